package arch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// configText writes c as a config file Load reads: base, then every key that differs
// from the preset, each where its preset lets it be set (l1.size only after
// l1.unified_size = 0, say).
func configText(t testing.TB, c *Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "base = %s/%s\n", c.Arch, c.GPU)
	d, err := Preset(c.Arch, c.GPU)
	if err != nil {
		t.Fatal(err)
	}
	todo := c.Keys()
	for len(todo) > 0 {
		var later []KeyInfo
		for _, k := range todo {
			if v, _ := d.Get(k.Key); v == k.Value {
				continue
			}
			if d.Derived(k.Key) {
				later = append(later, k)
				continue
			}
			if err := d.Set(k.Key, k.Value); err != nil {
				t.Fatalf("%s = %s, as Keys gives it: %v", k.Key, k.Value, err)
			}
			fmt.Fprintf(&b, "%s = %s\n", k.Key, k.Value)
		}
		if len(later) == len(todo) {
			break // derived for good: Load recomputes them
		}
		todo = later
	}
	return b.String()
}

func values(c *Config) []string {
	var out []string
	for _, k := range c.Keys() {
		out = append(out, k.Key+"="+k.Value)
	}
	return out
}

// FuzzLoad feeds arbitrary config files (--config) to Load: it returns a validated
// config or an error, never panics; and a config it accepts, written back out key by
// key, loads to the same values.
func FuzzLoad(f *testing.F) {
	for _, name := range Names() {
		arch, gpu, _ := strings.Cut(name, "/")
		c, err := Preset(arch, gpu)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(configText(f, c))
		full := "base = " + name + "\n" // every key, as gtrace archs lists them
		for _, k := range c.Keys() {
			if !c.Derived(k.Key) {
				full += k.Key + " = " + k.Value + "\n"
			}
		}
		f.Add(full)
	}
	f.Add("base = hopper/h100\nl1.unified_size = 128KB # my note\nl2.ways = 8\n")
	f.Add("base = fermi\nl1.replacement = fifo\nsm.count = 0\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 16<<10 {
			return
		}
		c, err := Load(strings.NewReader(text))
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load accepted a config Validate refuses: %v\n%s", err, text)
		}
		text2 := configText(t, c)
		again, err := Load(strings.NewReader(text2))
		if err != nil {
			t.Fatalf("the accepted config, written back, does not load: %v\n%s", err, text2)
		}
		if a, b := values(c), values(again); !reflect.DeepEqual(a, b) {
			t.Fatalf("written back and loaded, the values change:\n%v\n%v\n%s", a, b, text2)
		}
	})
}

// FuzzSet feeds arbitrary --set KEY=VALUE pairs to every preset: Set and Validate
// return errors, never panic, and a value they accept reads back (Get) as a value
// that sets the same config.
func FuzzSet(f *testing.F) {
	c, _ := Preset("hopper", "h100")
	for _, k := range c.Keys() {
		f.Add(k.Key, k.Value)
	}
	f.Add("l1.unified_size", "96KB")
	f.Add("dram.banks", "-1")
	f.Add("l2.size", "1e30")
	f.Add("sm.count", "99999999999999999999")
	f.Fuzz(func(t *testing.T, key, value string) {
		for _, name := range Names() {
			arch, gpu, _ := strings.Cut(name, "/")
			c, err := Preset(arch, gpu)
			if err != nil {
				t.Fatal(err)
			}
			if c.Set(key, value) != nil || c.Validate() != nil {
				continue
			}
			got, err := c.Get(key)
			if err != nil {
				t.Fatalf("%s: %s=%q set, but Get says %v", name, key, value, err)
			}
			d, _ := Preset(arch, gpu)
			if err := d.Set(key, got); err != nil {
				t.Fatalf("%s: %s=%q reads back as %q, which Set refuses: %v", name, key, value, got, err)
			}
			if x, y := values(c), values(d); !reflect.DeepEqual(x, y) {
				t.Fatalf("%s: %s=%q and its read-back %q set different configs", name, key, value, got)
			}
		}
	})
}
