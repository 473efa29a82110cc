package replay

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
)

// orderedMetrics marshals as a JSON object whose keys keep the report's order.
type orderedMetrics []Metric

func (m orderedMetrics) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, x.Name)
		b = append(b, ':')
		b = strconv.AppendFloat(b, x.Value, 'g', -1, 64)
	}
	return append(b, '}'), nil
}

type jsonLaunch struct {
	Grid          [3]uint32 `json:"grid"`
	Block         [3]uint32 `json:"block"`
	SharedBytes   uint32    `json:"shared_bytes"`
	RegsPerThread uint32    `json:"regs_per_thread"`
	SIMT          string    `json:"simt"`
	CTAsPerSM     int       `json:"ctas_per_sm"`
	Limiter       string    `json:"occupancy_limiter"`
	Carveout      int       `json:"shared_carveout_bytes"`
	L1Bytes       int       `json:"l1_bytes"`
}

type jsonPC struct {
	PC      uint32         `json:"pc"`
	PTX     string         `json:"ptx"`
	Line    uint32         `json:"line,omitempty"`
	Metrics orderedMetrics `json:"metrics"`
}

type jsonKernel struct {
	Name    string         `json:"name"`
	Launch  jsonLaunch     `json:"launch"`
	Metrics orderedMetrics `json:"metrics"`
	PerPC   []jsonPC       `json:"per_pc,omitempty"`
}

// WriteJSON writes the report as DESIGN.md's contract:
// {"arch":…,"gpu":…,"kernels":[{"name":…,"launch":{…},"metrics":{NAME: number,…}}]}.
func (r *Report) WriteJSON(w io.Writer) error {
	out := struct {
		Arch    string       `json:"arch"`
		GPU     string       `json:"gpu"`
		Kernels []jsonKernel `json:"kernels"`
	}{Arch: r.Arch, GPU: r.GPU}
	for _, k := range r.Kernels {
		l := k.Launch
		jk := jsonKernel{Name: k.Name, Metrics: k.Metrics, Launch: jsonLaunch{
			Grid: [3]uint32{l.Grid.X, l.Grid.Y, l.Grid.Z}, Block: [3]uint32{l.Block.X, l.Block.Y, l.Block.Z},
			SharedBytes: l.SharedBytes, RegsPerThread: l.RegsPerThread, SIMT: l.SIMT.String(),
			CTAsPerSM: k.Occupancy.CTAsPerSM, Limiter: k.Occupancy.Limiter, Carveout: k.SharedCarveout, L1Bytes: k.L1Bytes,
		}}
		for _, p := range k.PerPC {
			jk.PerPC = append(jk.PerPC, jsonPC{p.PC, p.PTX, p.Line, p.Metrics})
		}
		out.Kernels = append(out.Kernels, jk)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Rows calls fn for every (kernel, pc, metric) of the report, kernel totals first with pc
// -1, then each instruction of --per-pc; it stops at fn's first error.
func (r *Report) Rows(fn func(k *KernelReport, pc int, ptx string, m Metric) error) error {
	for i := range r.Kernels {
		k := &r.Kernels[i]
		for _, m := range k.Metrics {
			if err := fn(k, -1, "", m); err != nil {
				return err
			}
		}
		for _, p := range k.PerPC {
			for _, m := range p.Metrics {
				if err := fn(k, int(p.PC), p.PTX, m); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// WriteCSV writes one row per metric: arch, gpu, kernel, pc (empty for totals), ptx,
// metric, value.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"arch", "gpu", "kernel", "pc", "ptx", "metric", "value"}); err != nil {
		return err
	}
	err := r.Rows(func(k *KernelReport, pc int, ptx string, m Metric) error {
		p := ""
		if pc >= 0 {
			p = strconv.Itoa(pc)
		}
		return cw.Write([]string{r.Arch, r.GPU, k.Name, p, ptx, m.Name, strconv.FormatFloat(m.Value, 'g', -1, 64)})
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
