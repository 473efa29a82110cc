package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gtrace/gtrace/internal/debtool"
)

// chromiumTimeout bounds one headless Chromium run; a test never waits on it longer.
const chromiumTimeout = 60 * time.Second

// quietFlags keep the browser's own background traffic (time sync, accounts,
// dictionaries) off the network log, so what remains there is the page's.
var quietFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--no-first-run", "--disable-default-apps", "--disable-domain-reliability",
	"--enable-logging=stderr", "--v=0"}

// chromium runs headless Chromium on page with args, in its own process group that is
// killed whole at the timeout, and returns stdout and stderr.
func chromium(t *testing.T, bin, page string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(append([]string{}, quietFlags...), args...), "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // a fresh profile, removed after
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String()
}

// pageRequests lists the network requests a page made, from a Chromium net log: those
// whose network isolation key is the file's own site (the browser's own requests have
// another key).
func pageRequests(t *testing.T, netLog string) []string {
	t.Helper()
	b, err := os.ReadFile(netLog)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Events []struct {
			Params map[string]any `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("net log: %v", err)
	}
	var urls []string
	for _, e := range log.Events {
		url, _ := e.Params["url"].(string)
		key, _ := e.Params["network_isolation_key"].(string)
		if url != "" && !strings.HasPrefix(url, "file:") && strings.Contains(key, "file://") {
			urls = append(urls, url)
		}
	}
	return urls
}

// TestReportInChromium opens a report in headless Chromium (Debian's chromium; the test
// installs it as root, or skips saying so): the DOM has every section, every chart and
// the advice; nothing is printed to the console; the page makes no network request; and
// a screenshot can be taken. The check of the network log is itself checked on a page
// that fetches an image.
func TestReportInChromium(t *testing.T) {
	bin := debtool.Path(t, "chromium", "chromium")
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	html := writePage(t, buildPage(t, Options{}, []string{"fermi", "kepler", "ampere", "hopper"}, "transpose_v1", "transpose_v2"))
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	netLog := filepath.Join(dir, "net.json")
	dom, stderr := chromium(t, bin, page, "--log-net-log="+netLog, "--dump-dom")
	for _, want := range []string{`id="summary"`, `id="source"`, `id="archs"`, `id="stalls"`, `id="memory"`, `id="advice"`, `id="roofline"`, `class="finding"`, "hopper/h100"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, "<svg"); n != len(chartMetrics)+4 {
		t.Errorf("the DOM has %d charts, want %d (and a roofline per arch)", n, len(chartMetrics)+4)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	if urls := pageRequests(t, netLog); len(urls) > 0 {
		t.Errorf("the page made network requests: %q", urls)
	}
	shot := filepath.Join(dir, "report.png")
	chromium(t, bin, page, "--window-size=1280,1600", "--screenshot="+shot)
	if b, err := os.ReadFile(shot); err != nil || len(b) < 10000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("screenshot: %d bytes, %v", len(b), err)
	}

	// The network check sees a page that fetches.
	bad := filepath.Join(dir, "fetches.html")
	if err := os.WriteFile(bad, []byte(`<html><body><img src="https://gtrace.invalid/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	chromium(t, bin, bad, "--log-net-log="+netLog, "--dump-dom")
	if urls := pageRequests(t, netLog); len(urls) == 0 {
		t.Errorf("a page that fetches an image shows no request in the net log: the check is blind")
	}
}
