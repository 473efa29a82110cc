package kernels

// One particle update on three data layouts, from the optimization-techniques seed
// (optimization-techniques-layout-scatter-tiling, "Data Layout Transformation"):
// AoS, SoA (the seed's discrete arrays) and ASTA with tiles of 32 particles.
//
// dt is a power of two, so vx*dt is exact and the fma that the compilers form
// from x + vx*dt rounds exactly as the reference's separate multiply and add.
func layoutKernels() []*Kernel {
	const (
		block = 256
		tile  = 32 // ASTA_TILE in layout.cu
		dt    = float32(0.5)
	)
	// step updates one particle's fields: x y z vx vy vz.
	// g and h are variables so that Go rounds 9.8 to float32 first and then
	// multiplies, as the kernel's 9.8f * dt does.
	g, h := float32(9.8), dt
	step := func(x, y, z, vx, vy, vz float32) (float32, float32, float32, float32) {
		vy = vy - g*h
		return x + vx*h, y + vy*h, z + vz*h, vy
	}
	sizes := []Size{count("n", 1<<18, block, "particles")}
	kernel := func(name, entry, summary string, args func(n int) []string) *Kernel {
		return &Kernel{
			Name: name, Entry: entry, PTXFile: "layout.ptx",
			Topic:   "data layout AoS/SoA/ASTA (seed: optimization techniques)",
			Summary: summary + "; vy -= 9.8*dt, position += velocity*dt, dt = 0.5",
			Sizes:   sizes, Small: []string{"n=512"}, SIMT: both,
			Launch: func(sz map[string]int) Launch {
				n := sz["n"]
				return Launch{Grid: dim1(n / block), Block: dim1(block), Args: args(n)}
			},
		}
	}

	aos := kernel("particles_aos", "particles_aos", "array of structures {x,y,z,vx,vy,vz}: six 4-byte fields 24 bytes apart per lane",
		func(n int) []string { return []string{buf("f32", 6*n, "rand:1"), i32(n), f32(dt)} })
	soa := kernel("particles_soa", "particles_soa", "structure of arrays: one array per field, each its own allocation",
		func(n int) []string {
			var a []string
			for f := 0; f < 6; f++ {
				a = append(a, buf("f32", n, "rand:"+string(rune('1'+f))))
			}
			return append(a, i32(n), f32(dt))
		})
	asta := kernel("particles_asta", "particles_asta", "array of structures of tiled arrays: tiles of 32 particles, one 128-byte array per field",
		func(n int) []string { return []string{buf("f32", 6*n, "rand:1"), i32(n), f32(dt)} })

	// field(i, f) is the index of particle i's field f in one buffer.
	interleaved := func(field func(i, f int) int) expectFunc {
		return func(sz map[string]int, m mem) (map[int]any, error) {
			p := m.f32(0)
			for i := 0; i < sz["n"]; i++ {
				x, y, z, vy := step(p[field(i, 0)], p[field(i, 1)], p[field(i, 2)], p[field(i, 3)], p[field(i, 4)], p[field(i, 5)])
				p[field(i, 0)], p[field(i, 1)], p[field(i, 2)], p[field(i, 4)] = x, y, z, vy
			}
			return map[int]any{0: p}, nil
		}
	}
	return []*Kernel{
		withCheck(aos, interleaved(func(i, f int) int { return 6*i + f })),
		withCheck(soa, func(sz map[string]int, m mem) (map[int]any, error) {
			var a [6][]float32
			for f := range a {
				a[f] = m.f32(f)
			}
			for i := 0; i < sz["n"]; i++ {
				a[0][i], a[1][i], a[2][i], a[4][i] = step(a[0][i], a[1][i], a[2][i], a[3][i], a[4][i], a[5][i])
			}
			// vx and vz (arguments 3 and 5) are only read.
			return map[int]any{0: a[0], 1: a[1], 2: a[2], 4: a[4]}, nil
		}),
		withCheck(asta, interleaved(func(i, f int) int { return i/tile*6*tile + f*tile + i%tile })),
	}
}
