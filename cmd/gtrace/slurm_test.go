//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gtrace/gtrace/internal/debtool"
)

// TestSweepOnSlurm runs a sweep of 8 tasks on a real one-node SLURM cluster (Debian's
// slurm-wlm and munge; installed when the test runs as root, skipped saying so
// otherwise): one array task is killed mid-run, the sweep says a task ended with no
// result, the rerun submits only that task, and every result file is byte-identical
// to the local runner's.
func TestSweepOnSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the SLURM test starts a cluster")
	}
	env := startSlurm(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	// Timing replays of transpose at 2048² take about 2 s each: long enough to kill one
	// while it runs.
	if err := os.WriteFile(spec, []byte(`
kernels:
  - {name: transpose_v1, size: {n: 2048}}
  - {name: transpose_v2, size: {n: 2048}}
archs: [hopper, ampere]
engines: [timing]
set:
  l1.replacement: [lru, fifo]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "local")
	if code, out, errs := gtrace(t, "sweep", spec, "-o", local); code != 0 || !strings.Contains(out, "8 tasks: 8 done") {
		t.Fatalf("local sweep: exit %d\n%s%s", code, out, errs)
	}

	res := filepath.Join(dir, "slurm")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd, out := gtraceProcess(ctx, "sweep", spec, "-o", res, "--runner", "slurm", "--throttle", "2", "--time", "0:05:00")
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := killRunningArrayTask(t, ctx, env, res)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 ||
		!strings.Contains(out.String(), "8 tasks: 7 done, 0 failed, 1 pending") ||
		!strings.Contains(out.String(), "1 ended with no result (killed or cancelled); run the same command again") {
		t.Fatalf("sweep with array task %s killed: %v\n%s", killed, err, out.String())
	}
	// The killed task was stopped mid-run, by SIGTERM, and left no result behind.
	log, _ := os.ReadFile(filepath.Join(res, "slurm", killed+".out"))
	if !strings.Contains(string(log), "gtrace sweep: interrupted by SIGTERM") {
		t.Errorf("array task %s's log does not show it interrupted mid-run:\n%s", killed, log)
	}

	rerun := exec.CommandContext(ctx, os.Args[0], "sweep", spec, "-o", res, "--runner", "slurm")
	rerun.Env = append(os.Environ(), append(env, "GTRACE_TEST_AS_MAIN=1")...)
	b, err := rerun.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "8 tasks: 8 done, 0 failed, 0 pending") {
		t.Fatalf("rerun on SLURM: %v\n%s", err, b)
	}
	// One task was left: the rerun's job array holds it alone.
	if n := strings.Count(string(b), ", array "); n != 1 || strings.Contains(string(b), ", array 0-") {
		t.Errorf("rerun submitted more than the killed task:\n%s", b)
	}

	want, got := resultFiles(t, local), resultFiles(t, res)
	if len(want) != 8 || len(got) != len(want) {
		t.Fatalf("%d local results, %d from SLURM; want 8 each", len(want), len(got))
	}
	for path, data := range want {
		if !bytes.Equal(got[path], data) {
			t.Errorf("%s differs between the local and the SLURM runner", path)
		}
	}
	if code, out, _ := gtrace(t, "sweep", "status", res); code != 0 || !strings.HasPrefix(out, "8 tasks: 8 done, 0 failed, 0 pending\n") {
		t.Errorf("sweep status after SLURM: exit %d\n%s", code, out)
	}
}

// killRunningArrayTask waits until an array task of the sweep in res has logged that it
// started (its signal handler is then in place: a SIGTERM before it would end the
// process with no word) and cancels it (scancel sends SIGTERM), returning its JOB_TASK
// name.
func killRunningArrayTask(t *testing.T, ctx context.Context, env []string, res string) string {
	t.Helper()
	for ctx.Err() == nil {
		q := slurmClient(ctx, env, "squeue", "--noheader", "--array", "--states=RUNNING", "--format=%i")
		b, err := q.Output()
		if err == nil {
			for _, id := range strings.Fields(string(b)) {
				log, _ := os.ReadFile(filepath.Join(res, "slurm", id+".out"))
				if strings.Contains(string(log), "gtrace sweep: task ") && strings.Contains(string(log), " started") {
					if b, err := slurmClient(ctx, env, "scancel", id).CombinedOutput(); err != nil {
						t.Fatalf("scancel %s: %v %s", id, err, b)
					}
					return id
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no array task started within the test's time")
	return ""
}

// resultFiles reads a sweep's Parquet results, by path relative to the folder.
func resultFiles(t *testing.T, results string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(results, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".parquet") {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(results, path)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func slurmClient(ctx context.Context, env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// startSlurm starts munged, slurmctld and slurmd for a one-node cluster in a temporary
// folder (Debian's slurm-wlm and munge, installed by debtool when the test runs as root), and
// returns the environment that points SLURM's commands at it. The daemons run at most
// five minutes and are stopped when the test ends.
func startSlurm(t *testing.T) []string {
	t.Helper()
	for _, p := range [][2]string{{"munged", "munge"}, {"mungekey", "munge"}, {"slurmctld", "slurm-wlm"},
		{"slurmd", "slurm-wlm"}, {"sbatch", "slurm-wlm"}, {"squeue", "slurm-wlm"}, {"scancel", "slurm-wlm"}, {"sinfo", "slurm-wlm"}} {
		debtool.Path(t, p[0], p[1])
	}
	if os.Geteuid() != 0 {
		t.Skip("the one-node SLURM cluster runs slurmd as root (it starts jobs as their users): run the tests as root")
	}
	// A short folder: munge's socket path must fit a Unix socket's 108 bytes.
	dir, err := os.MkdirTemp("", "gtrace-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"munge", "state", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "munge", "key")
	if b, err := exec.Command("mungekey", "--create", "--keyfile="+key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v %s", err, b)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "slurm.conf")
	sock := filepath.Join(dir, "munge", "sock")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`ClusterName=gtrace-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%d
SlurmdPort=%d
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%s/state
SlurmdSpoolDir=%s/spool
SlurmctldPidFile=%s/slurmctld.pid
SlurmdPidFile=%s/slurmd.pid
SlurmctldLogFile=%s/slurmctld.log
SlurmdLogFile=%s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=localhost NodeHostname=%s CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`, freePort(t), freePort(t), sock, dir, dir, dir, dir, dir, dir, host)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"SLURM_CONF=" + conf}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	var daemons []*exec.Cmd
	t.Cleanup(func() {
		// Jobs first (their tasks are slurmd's children), then the daemons, whole
		// process groups, waited for.
		slurmClient(context.Background(), env, "scancel", "--user=root").Run()
		for i := len(daemons) - 1; i >= 0; i-- {
			syscall.Kill(-daemons[i].Process.Pid, syscall.SIGKILL)
			daemons[i].Wait()
		}
		cancel()
	})
	start := func(name string, args ...string) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		logf, err := os.Create(filepath.Join(dir, name+".out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		daemons = append(daemons, cmd)
	}
	start("munged", "--foreground", "--force", "--socket="+sock, "--key-file="+key,
		"--log-file="+filepath.Join(dir, "munge", "log"), "--pid-file="+filepath.Join(dir, "munge", "pid"),
		"--seed-file="+filepath.Join(dir, "munge", "seed"))
	waitFor(t, dir, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	start("slurmctld", "-D", "-i")
	start("slurmd", "-D", "-N", "localhost")
	waitFor(t, dir, "the node to be idle", func() bool {
		b, err := slurmClient(ctx, env, "sinfo", "--noheader", "--format=%T").Output()
		return err == nil && strings.TrimSpace(string(b)) == "idle"
	})
	return env
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitFor polls ok for 30 s, failing the test with the daemons' logs if it never holds.
func waitFor(t *testing.T, dir, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return
		}
	}
	var logs strings.Builder
	for _, f := range []string{"munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		fmt.Fprintf(&logs, "--- %s\n%s", f, b)
	}
	t.Fatalf("waiting for %s: not within 30 s\n%s", what, logs.String())
}
