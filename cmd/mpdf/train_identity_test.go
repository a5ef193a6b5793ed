package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20.5: another run's checkpoint (another seed and feature layout)
// copied into a run directory as ckpt-00099999.mpdf is not resumed: the
// resume is refused naming the file, and the run's own checkpoints and
// best.mpdf stay as they were. Moved out, the run resumes.
func TestTrainResumeRefusesForeignCheckpoint(t *testing.T) {
	dir := t.TempDir()
	mine, other := filepath.Join(dir, "mine"), filepath.Join(dir, "other")
	train(t, mine, "--iterations", "3", "--keep", "2")
	train(t, other, "--iterations", "1", "--seed", "8", "--features", "mpdf-features/v2")
	paths, _ := filepath.Glob(filepath.Join(mine, "*.mpdf"))
	before := map[string][]byte{}
	for _, p := range paths {
		before[p] = readFile(t, p)
	}
	foreign := filepath.Join(mine, "ckpt-00099999.mpdf")
	if err := os.WriteFile(foreign, latest(t, other), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := resume(t, mine, "--iterations", "5")
	if err == nil || !strings.Contains(err.Error(), "ckpt-00099999.mpdf belongs to another run") ||
		!strings.HasSuffix(err.Error(), ": move it out or start a new --out") {
		t.Fatalf("--resume with another run's checkpoint: err = %v, want a refusal naming it\n%s", err, out)
	}
	for p, b := range before {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed or went after the refused resume (%v)", filepath.Base(p), err)
		}
	}
	if err := os.Rename(foreign, filepath.Join(dir, "moved.mpdf")); err != nil {
		t.Fatal(err)
	}
	if out, err := resume(t, mine, "--iterations", "5"); err != nil {
		t.Fatalf("--resume once the other run's file is moved out: %v\n%s", err, out)
	}
}
