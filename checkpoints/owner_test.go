package checkpoints

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/nn"
)

// Issue 20.5: retention acts only on the Manager's run: another run's step
// file above every own step is neither counted nor removed, the run keeps
// KeepLast of its own, a step file without a run (an older build's) is
// the run's, and another run's best.mpdf is an error, never replaced.
func TestManagerKeepsOnlyItsRun(t *testing.T) {
	dir := t.TempDir()
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 3)
	foreign := s.checkpoint(t)
	foreign.Header.Run, foreign.Header.Step = "other", 99999
	foreignBytes := mustMarshal(t, foreign)
	os.WriteFile(filepath.Join(dir, StepName(99999)), foreignBytes, 0o644)
	legacy := s.checkpoint(t)
	legacy.Header.Step = 1
	os.WriteFile(filepath.Join(dir, StepName(1)), mustMarshal(t, legacy), 0o644)

	m := &Manager{Dir: dir, KeepLast: 2, Run: "mine"}
	for step := int64(2); step <= 5; step++ {
		s.run(1)
		c := s.checkpoint(t)
		c.Header.Step, c.Header.Run = step, "mine"
		if _, err := m.Save(c); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{StepName(4), StepName(5), StepName(99999)}
	if got := stepFiles(t, dir); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v (the run's last two and the other run's untouched)", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, StepName(99999))); !bytes.Equal(b, foreignBytes) {
		t.Error("the other run's checkpoint changed")
	}

	c := s.checkpoint(t)
	c.Header.Run = "someone"
	if _, err := m.Save(c); err == nil {
		t.Error("Save of another run's checkpoint: no error")
	}

	// Another run's best.mpdf.
	best := filepath.Join(dir, BestName)
	os.WriteFile(best, foreignBytes, 0o644)
	m = &Manager{Dir: dir, Run: "mine", BestMetric: "loss"}
	c = s.checkpoint(t)
	c.Header.Step, c.Header.Run, c.Header.Metrics = 6, "mine", map[string]float64{"loss": -1}
	_, err := m.Save(c)
	var fe *ForeignError
	if !errors.As(err, &fe) || fe.Path != best || !strings.Contains(err.Error(), "belongs to another run") {
		t.Fatalf("Save over another run's best.mpdf: %v, want a ForeignError naming it", err)
	}
	if b, _ := os.ReadFile(best); !bytes.Equal(b, foreignBytes) {
		t.Error("another run's best.mpdf was replaced")
	}
	// A step file of another run at the step being saved is not replaced.
	c.Header.Step = 99999
	if _, err := m.Save(c); !errors.Is(err, ErrForeign) {
		t.Errorf("Save over another run's step file: %v, want ErrForeign", err)
	}
}

// CheckRun names a foreign checkpoint; without a run to check against it
// returns the run the checkpoints agree on, or refuses two.
func TestCheckRun(t *testing.T) {
	dir := t.TempDir()
	c := sample(t)
	save := func(name, run string) {
		c.Header.Run = run
		if err := Save(filepath.Join(dir, name), c); err != nil {
			t.Fatal(err)
		}
	}
	save(StepName(1), "")
	save(StepName(2), "a")
	if run, err := CheckRun(dir, ""); err != nil || run != "a" {
		t.Fatalf("CheckRun(dir, \"\") = %q, %v; want a", run, err)
	}
	if _, err := CheckRun(dir, "a"); err != nil {
		t.Fatal(err)
	}
	save(StepName(3), "b")
	_, err := CheckRun(dir, "a")
	if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), StepName(3)+" belongs to another run (run b") {
		t.Fatalf("CheckRun(dir, a) with b's: %v", err)
	}
	if _, err := CheckRun(dir, ""); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "run a") || !strings.Contains(err.Error(), "run b") {
		t.Fatalf("CheckRun(dir, \"\") with two runs: %v", err)
	}
}

// ReadHeader gives Load's header without the arrays, and refuses what
// Load's prefix checks refuse.
func TestReadHeader(t *testing.T) {
	dir := t.TempDir()
	c := sample(t)
	c.Header.Run, c.Header.ConfigSHA256 = "r1", strings.Repeat("ab", 32)
	path := filepath.Join(dir, "c.mpdf")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	full, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(full.Header, *h); d != "" {
		t.Errorf("ReadHeader differs from Load's header (-Load +ReadHeader):\n%s", d)
	}
	b, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"truncated": b[:len(b)-10],
		"magic":     append([]byte("NOTACKPT"), b[8:]...),
		"frame":     append(append(append([]byte(nil), b[:prefixLen]...), bytes.Repeat([]byte{0xff}, len(b)-prefixLen-trailerLen)...), b[len(b)-trailerLen:]...),
	} {
		p := filepath.Join(dir, name+".mpdf")
		os.WriteFile(p, bad, 0o644)
		if _, err := ReadHeader(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: ReadHeader = %v, want an error naming the file", name, err)
		}
	}
}
