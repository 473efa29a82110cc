package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gtrace/gtrace/internal/debtool"
)

// structFields lists the fields of shim.h's struct typedef name, in order.
func structFields(t *testing.T, name string) []string {
	t.Helper()
	h, err := os.ReadFile("shim.h")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)typedef struct \{([^}]*)\} ` + name + `;`).FindSubmatch(h)
	if body == nil {
		t.Fatalf("shim.h has no %s", name)
	}
	var fields []string
	for _, decl := range strings.Split(string(body[1]), ";") {
		words := strings.Fields(strings.ReplaceAll(decl, ",", " , "))
		if len(words) == 0 {
			continue
		}
		// Every name is followed by "," or ends the declaration; the type words precede
		// the first.
		for i, w := range words {
			if i+1 == len(words) || words[i+1] == "," {
				fields = append(fields, regexp.MustCompile(`\[\d+\]$`).ReplaceAllString(w, ""))
			}
		}
	}
	return fields
}

// The shim's cudaDeviceProp and cudaFuncAttributes are NVIDIA's, field for field: every
// field's offset, and the size, equal those of CUDA 11.8's driver_types.h (installed with
// nvidia-cuda-toolkit).
func TestStructLayouts(t *testing.T) {
	debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	for _, c := range []struct {
		shim, nvidia string
		fields       int
	}{
		{"gtrace_device_prop", "cudaDeviceProp", 80},
		{"gtrace_func_attributes", "cudaFuncAttributes", 10},
	} {
		fields := structFields(t, c.shim)
		if len(fields) != c.fields {
			t.Fatalf("read %d fields of %s from shim.h, want CUDA 11.8's %d: %v", len(fields), c.shim, c.fields, fields)
		}
		var prog strings.Builder
		fmt.Fprintf(&prog, "#include <stdio.h>\n#include <stddef.h>\n#ifdef NVIDIA\n#include <driver_types.h>\ntypedef struct %s T;\n#else\n#include \"shim.h\"\ntypedef %s T;\n#endif\nint main(void) {\n\tprintf(\"size %%zu\\n\", sizeof(T));\n", c.nvidia, c.shim)
		for _, f := range fields {
			fmt.Fprintf(&prog, "\tprintf(\"%s %%zu\\n\", offsetof(T, %s));\n", f, f)
		}
		prog.WriteString("\treturn 0;\n}\n")
		dir := t.TempDir()
		src := filepath.Join(dir, "layout.c")
		if err := os.WriteFile(src, []byte(prog.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, def := range []string{"-DNVIDIA", "-DGTRACE"} {
			exe := filepath.Join(dir, def[2:])
			if b, err := exec.Command("cc", def, "-I.", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("cc %s: %v\n%s", def, err, b)
			}
			b, err := exec.Command(exe).Output()
			if err != nil {
				t.Fatal(err)
			}
			out[def] = string(b)
		}
		if out["-DNVIDIA"] != out["-DGTRACE"] {
			t.Errorf("%s: offsets differ:\nNVIDIA's driver_types.h:\n%s\nshim.h:\n%s", c.nvidia, out["-DNVIDIA"], out["-DGTRACE"])
		}
	}
}
