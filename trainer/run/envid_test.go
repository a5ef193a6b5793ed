package run

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
)

// TestResumeChecksEnvID: a stored identity must match the tasks given now;
// a checkpoint of an older build, without one, still resumes.
func TestResumeChecksEnvID(t *testing.T) {
	sim := func(tasks int) env.Env {
		e, err := sim.New(sim.Config{Tasks: tasks, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a, err := EnvID(sim(20), sim(5))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := EnvID(sim(20), sim(5)); b != a {
		t.Error("same tasks, other identity")
	}
	if b, _ := EnvID(sim(21), sim(5)); b == a {
		t.Error("another training side, same identity")
	}
	if b, _ := EnvID(sim(5), sim(20)); b == a {
		t.Error("sides swapped, same identity")
	}
	for _, c := range []struct {
		stored, want string
	}{
		{"", ""}, // older build: not checked
		{a, ""},  // the same tasks
		{"0123456789abcdef", "tasks differ"},
	} {
		cfg := Config{Train: trainer.DefaultConfig(), Dir: t.TempDir(), Env: sim(20), HeldOutEnv: sim(5), EnvName: "sim",
			Resume: &Resumable{Path: "ckpt", Position: Position{Mode: "online", Env: "sim", EnvID: c.stored}}}
		err := cfg.check()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("stored identity %q: err = %v, want %q", c.stored, err, c.want)
		}
	}
}
