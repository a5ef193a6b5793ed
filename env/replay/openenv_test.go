package replay

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
)

// OpenEnv opens the simulator or a replay by its spec, with a kind and a
// critic that may repeat the spec, not contradict it; its errors say which
// field and spec, marked ErrSpec or ErrEnvConfig.
func TestOpenEnv(t *testing.T) {
	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	spec := "replay:" + filepath.Join(src, "gsm_*.json")
	e, rounds, err := OpenEnv("sim", EnvConfig{Sim: sim.Config{Seed: 1}})
	if _, ok := e.(*sim.Simulator); !ok || rounds != env.DefaultRounds || err != nil {
		t.Errorf("sim: %T, %d rounds, %v", e, rounds, err)
	}
	var log strings.Builder
	e, rounds, err = OpenEnv(spec, EnvConfig{Kind: answer.GSM8K, Critic: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := e.(*Env); !ok || !r.Critic() || rounds != r.Rounds() || log.Len() == 0 {
		t.Errorf("replay: %T, %d rounds, log %q", e, rounds, log.String())
	}
	for _, c := range []struct {
		spec string
		cfg  EnvConfig
		want string
		mark error
	}{
		{"sim", EnvConfig{Critic: true}, "critic: only a replay", ErrEnvConfig},
		{"replay:", EnvConfig{}, "replay: spec", ErrSpec},
		{spec + ",kind=gsm8k", EnvConfig{Kind: answer.MMLU}, "kind mmlu and " + spec + ",kind=gsm8k: two tasks", ErrEnvConfig},
		{spec + ",critic=off", EnvConfig{Critic: true}, "critic and " + spec + ",critic=off (critic=off): give one", ErrEnvConfig},
		{"replay:" + filepath.Join(src, "none_*.json"), EnvConfig{}, "replay:" + filepath.Join(src, "none_*.json") + ": ", ErrSpec},
		{"bogus", EnvConfig{}, `"bogus": want sim or replay:`, ErrSpec},
	} {
		_, _, err := OpenEnv(c.spec, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.mark) {
			t.Errorf("OpenEnv(%q, %+v): %v, want %q marked %v", c.spec, c.cfg, err, c.want, c.mark)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("OpenEnv(%q, %+v): %v names a flag", c.spec, c.cfg, err)
		}
	}
	if got := Title(e); got != e.Name() {
		t.Errorf("Title of one file: %q, want its name %q", got, e.Name())
	}
	two, _, err := OpenEnv("replay:"+filepath.Join(src, "*.json"), EnvConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Title(two), fmt.Sprintf("replay of 2 files (%d tasks, ", two.NumTasks()); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " distinct questions)") {
		t.Errorf("Title of two files: %q, want %q", got, want)
	}
	if !SameFiles(spec+",critic=on", spec) || SameFiles(spec, spec+",kind=math") || SameFiles(spec, "replay:x.json") {
		t.Error("SameFiles: wrong")
	}
}

// Tasks takes one side of the split, or all, then the first n; OpenSplit
// opens the two sides of the same split.
func TestTasksAndOpenSplit(t *testing.T) {
	sim, err := sim.New(sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Tasks(sim, "all", 0.3, 1, 0)
	if err != nil || len(all) != sim.NumTasks() {
		t.Fatalf("all: %d tasks, %v", len(all), err)
	}
	_, test, _ := Split(sim.NumTasks(), 0.3, 1)
	if got, err := Tasks(sim, "test", 0.3, 1, 5); err != nil || !slices.Equal(got, test[:5]) {
		t.Errorf("test side: %v, %v", got, err)
	}
	for side, want := range map[string]string{"both": "want train or test", "test": "the test side has"} {
		if _, err := Tasks(sim, side, 0.3, 1, sim.NumTasks()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Tasks(%s): %v, want %q", side, err, want)
		}
	}

	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	tr, te, rounds, err := OpenSplit("replay:"+filepath.Join(src, "gsm_*.json"), EnvConfig{}, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumTasks()+te.NumTasks() != 2 || rounds < 1 {
		t.Errorf("replay split: %d + %d tasks, %d rounds", tr.NumTasks(), te.NumTasks(), rounds)
	}
	if _, _, rounds, err := OpenSplit("sim", EnvConfig{}, 0.5, 0); err != nil || rounds != 0 {
		t.Errorf("sim: %d rounds, %v", rounds, err)
	}
}
