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

// propFields lists gtrace_device_prop's fields, in order, from shim.h.
func propFields(t *testing.T) []string {
	t.Helper()
	h, err := os.ReadFile("shim.h")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)typedef struct \{([^}]*)\} gtrace_device_prop;`).FindSubmatch(h)
	if body == nil {
		t.Fatal("shim.h has no gtrace_device_prop")
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

// The shim's cudaDeviceProp is NVIDIA's, field for field: every field's offset, and the
// size, equal those of CUDA 11.8's driver_types.h (installed with nvidia-cuda-toolkit).
func TestDevicePropLayout(t *testing.T) {
	debtool.PathNonFree(t, "nvcc", "nvidia-cuda-toolkit")
	fields := propFields(t)
	if len(fields) != 80 {
		t.Fatalf("read %d fields from shim.h, want CUDA 11.8's 80: %v", len(fields), fields)
	}
	var prog strings.Builder
	prog.WriteString("#include <stdio.h>\n#include <stddef.h>\n#ifdef NVIDIA\n#include <driver_types.h>\ntypedef struct cudaDeviceProp T;\n#else\n#include \"shim.h\"\ntypedef gtrace_device_prop T;\n#endif\nint main(void) {\n\tprintf(\"size %zu\\n\", sizeof(T));\n")
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
		t.Errorf("offsets differ:\nNVIDIA's driver_types.h:\n%s\nshim.h:\n%s", out["-DNVIDIA"], out["-DGTRACE"])
	}
}
