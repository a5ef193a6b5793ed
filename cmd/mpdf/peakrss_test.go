package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A child's ru_maxrss on Linux starts from the peak of the process that
// exec'd it (exec keeps the old memory's high-water mark, and os/exec
// starts children sharing the parent's memory), so a test binary grown by
// earlier tests would read its own size as the child's peak. measured runs
// the command through a fresh start of this test binary instead (small
// until m.Run), which reports the command's ru_maxrss on fd 3.
const peakRSSEnv = "MPDF_TEST_PEAK_RSS_OF"

// runMeasured is the fresh process's whole life: run the command spec
// (a JSON array) with this process's stdio, write its ru_maxrss in KiB to
// fd 3, exit with its exit code.
func runMeasured(spec string) int {
	syscall.CloseOnExec(3)
	report := os.NewFile(3, "peak-rss")
	var argv []string
	if err := json.Unmarshal([]byte(spec), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "%s: %q is not a command\n", peakRSSEnv, spec)
		return 125
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Killed with this process (a test's time-out kills it, not the command).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	fmt.Fprintf(report, "%d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	report.Close()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// measured returns bin with args as a command to run (Run, Start and Wait,
// CombinedOutput: its stdio are the command's) and, once it has ended, the
// command's peak RSS in MiB.
func measured(t *testing.T, bin string, args ...string) (*exec.Cmd, func() int64) {
	t.Helper()
	spec, err := json.Marshal(append([]string{bin}, args...))
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), peakRSSEnv+"="+string(spec))
	cmd.ExtraFiles = []*os.File{w}
	return cmd, func() int64 {
		t.Helper()
		w.Close() // ours: the fresh process's copy closes when it exits
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			t.Fatalf("no peak RSS from the measured run of %s: %q", spec, b)
		}
		return kib >> 10
	}
}
