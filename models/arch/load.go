package arch

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// LoadError is a problem in a config file, with its line.
type LoadError struct {
	Line int
	Err  error
}

func (e *LoadError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LoadError) Unwrap() error { return e.Err }

// Load reads a custom arch: "base = ARCH/GPU" first, then "key = value"
// lines; "#" starts a comment, and a comment on a value's line becomes that
// value's source (else "config line N"). The result is validated.
func Load(r io.Reader) (*Config, error) {
	var c *Config
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, comment, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &LoadError{n, fmt.Errorf("want key = value, got %q", line)}
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if c == nil {
			if key != "base" {
				return nil, &LoadError{n, fmt.Errorf("the first setting must be base = ARCH/GPU (one of %s)", strings.Join(Names(), ", "))}
			}
			arch, gpu, _ := strings.Cut(value, "/")
			var err error
			if c, err = Preset(arch, gpu); err != nil {
				return nil, &LoadError{n, err}
			}
			continue
		}
		if key == "base" {
			return nil, &LoadError{n, fmt.Errorf("base given twice")}
		}
		src := strings.TrimSpace(comment)
		if src == "" {
			src = fmt.Sprintf("config line %d", n)
		}
		if err := c.set(key, value, src); err != nil {
			return nil, &LoadError{n, err}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("empty config: want base = ARCH/GPU first")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}
