package arch

import (
	"fmt"
	"strings"
)

// Lookup finds a preset by the names a user gives: an arch ("hopper", its default GPU),
// "arch/gpu" ("hopper/h200"), or a GPU preset's name alone ("h200"); gpu, when not
// empty, names the arch's GPU instead. Errors list the valid names.
func Lookup(name, gpu string) (*Config, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	gpu = strings.ToLower(strings.TrimSpace(gpu))
	if a, g, ok := strings.Cut(name, "/"); ok {
		if gpu != "" && gpu != g {
			return nil, fmt.Errorf("%q names GPU %q, and the GPU given is %q: give it once", name, g, gpu)
		}
		return Preset(a, g)
	}
	if _, ok := defaultGPU[name]; !ok && gpu == "" {
		for _, p := range presets {
			if p.gpu == name {
				return Preset(p.arch, p.gpu)
			}
		}
	}
	return Preset(name, gpu)
}

// SetPairs applies overrides given as "KEY=VALUE", in order, as Set does; the error
// names the pair it refused. The result is not validated: call Validate after the last.
func (c *Config) SetPairs(pairs []string) error {
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		if err := c.Set(strings.TrimSpace(k), v); err != nil {
			return fmt.Errorf("%s: %w", kv, err)
		}
	}
	return nil
}
