package checkpoints

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// Stopping at step 5, saving, loading and running 5 more steps ends in the
// same state, bit for bit, as running 10 steps straight: the file holds
// everything the run depends on (weights, Adam moments and step, RNG).
func TestResumeContinuesExactly(t *testing.T) {
	straight := newTrainState(t, []int{6, 8, 8, 3}, nn.ReLU, 11)
	straight.run(10)
	want := mustMarshal(t, straight.checkpoint(t))

	first := newTrainState(t, []int{6, 8, 8, 3}, nn.ReLU, 11)
	first.run(5)
	m := &Manager{Dir: t.TempDir(), KeepLast: 1}
	if _, err := m.Save(first.checkpoint(t)); err != nil {
		t.Fatal(err)
	}
	path, err := Latest(m.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != StepName(5) {
		t.Fatalf("Latest = %s", path)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	resumed := restore(t, c)
	resumed.run(5)
	if got := mustMarshal(t, resumed.checkpoint(t)); !bytes.Equal(got, want) {
		t.Fatal("a resumed run differs from an uninterrupted one")
	}
}
