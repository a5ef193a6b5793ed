package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The outputs of simulate, import, export and collect are files mpdf
// owns: a symbolic link, a device, a named pipe or a directory given as
// the output is refused and left as it was, and a failed run leaves an
// existing output as it was (nothing removed, nothing half-written).
func TestOutputsAreFilesWeOwn(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(dir, "precious.txt")
	os.WriteFile(precious, []byte("precious"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(precious, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{link: "symbolic link", fifo: "named pipe", dir: "directory"}
	if os.Geteuid() == 0 { // as root, a device node: the case that deleted one
		dev := filepath.Join(dir, "null.jsonl")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
			targets[dev] = "character device"
		}
	}
	ckpt, _ := writeCheckpoint(t, t.TempDir(), true)
	tr := writeTranscript(t, t.TempDir())
	tasks := crashTasks(t, t.TempDir(), 1)
	for target, what := range targets {
		for _, args := range [][]string{
			{"simulate", "--tasks", "3", "-q", "--out", target},
			{"import", tr, "--out", target},
			{"export", ckpt, "--safetensors", target},
			{"collect", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--tasks-file", tasks, "--policy", "debate", "-q", "--overwrite", "--out", target},
		} {
			_, err := runCmd(t, args...)
			if err == nil || !strings.Contains(err.Error(), what) {
				t.Errorf("%s onto a %s: %v, want a refusal naming it", args[0], what, err)
			}
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced or removed: %v", err)
	}
	if b, _ := os.ReadFile(precious); string(b) != "precious" {
		t.Errorf("the link's target now holds %q", b)
	}
	for target := range targets {
		if _, err := os.Lstat(target); err != nil {
			t.Errorf("%s was removed: %v", target, err)
		}
	}

	// A run that fails leaves an existing output as it was.
	out := filepath.Join(dir, "out.jsonl")
	os.WriteFile(out, []byte("old episodes\n"), 0o644)
	if _, err := runCmd(t, "simulate", "--tasks", "3", "-q", "--max-line-bytes", "100", "--out", out); err == nil {
		t.Error("simulate with a 100-byte line limit succeeded")
	}
	bad := filepath.Join(dir, "gsm_bad.json")
	os.WriteFile(bad, []byte(`["not", "an object"]`), 0o644)
	if _, err := runCmd(t, "import", bad, "--out", out); err == nil {
		t.Error("import of a non-transcript succeeded")
	}
	if b, _ := os.ReadFile(out); string(b) != "old episodes\n" {
		t.Errorf("after failed runs the output holds %q, want it unchanged", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// simulate stopped by SIGTERM or kill -9 (it does not catch them) leaves
// an existing --out as it was: the episodes went to a temporary file.
func TestSimulateKilledLeavesOutput(t *testing.T) {
	bin := mpdfBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		dir := t.TempDir()
		out := filepath.Join(dir, "sim.jsonl")
		os.WriteFile(out, []byte("old episodes\n"), 0o644)
		cmd := exec.Command(bin, "simulate", "--episodes", "100000", "--workers", "1", "-q", "--out", out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute) // a bound on a wait
		for {
			m, _ := filepath.Glob(filepath.Join(dir, ".sim.jsonl.tmp-*"))
			if fi, err := os.Stat(firstOr(m)); err == nil && fi.Size() > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("simulate never wrote its temporary file")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		if b, _ := os.ReadFile(out); string(b) != "old episodes\n" {
			t.Errorf("after %v, --out holds %d bytes, want it unchanged", sig, len(b))
		}
	}
}

func firstOr(m []string) string {
	if len(m) == 0 {
		return ""
	}
	return m[0]
}
