package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLockSymlinkLeavesTarget plants each lock file as a symbolic link to a
// file of value, then runs train, study and collect as real processes on
// that output: each must refuse the lock, naming it, and leave the file the
// link points to as it was (issue 34, cause 6: it was truncated to 0
// bytes), and a FIFO as the lock must be refused too, not waited on.
func TestLockSymlinkLeavesTarget(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tasks := crashTasks(t, dir, 2)
	const precious = "a file of value\n"
	cases := []struct {
		name     string
		lockFile string
		args     []string
	}{
		{"train", filepath.Join(dir, "run", "run.lock"),
			[]string{"train", "--out", filepath.Join(dir, "run"), "-q"}},
		{"study", filepath.Join(dir, "study", "study.lock"),
			append(append([]string{}, smallStudy...), "--out", filepath.Join(dir, "study"))},
		{"collect", filepath.Join(dir, ".eps.jsonl.lock"),
			[]string{"collect", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--tasks-file", tasks,
				"--policy", "debate", "--rounds", "1", "--agents", "2", "--no-judge", "--retries", "0", "-q",
				"--out", filepath.Join(dir, "eps.jsonl")}},
	}
	for _, c := range cases {
		for _, kind := range []string{"symlink", "fifo"} {
			if err := os.MkdirAll(filepath.Dir(c.lockFile), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Remove(c.lockFile)
			target := filepath.Join(dir, c.name+"-target.txt")
			if err := os.WriteFile(target, []byte(precious), 0o644); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "symlink":
				if err := os.Symlink(target, c.lockFile); err != nil {
					t.Fatal(err)
				}
			case "fifo":
				if err := syscall.Mkfifo(c.lockFile, 0o644); err != nil {
					t.Skip("no mkfifo:", err)
				}
			}
			out, err := exec.Command(bin, c.args...).CombinedOutput()
			t.Logf("%s, lock a %s: %s", c.name, kind, strings.TrimSpace(string(out)))
			if err == nil {
				t.Errorf("%s: ran with its lock a %s", c.name, kind)
			}
			if !strings.Contains(string(out), "not a regular file") || !strings.Contains(string(out), filepath.Base(c.lockFile)) {
				t.Errorf("%s: %q, want it to name the lock and say it is not a regular file", c.name, out)
			}
			if b, _ := os.ReadFile(target); string(b) != precious {
				t.Errorf("%s: the file the lock links to now holds %q, want %q", c.name, b, precious)
			}
		}
	}
}
