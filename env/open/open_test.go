package open

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
)

// Env opens the simulator or a replay by its spec, with a kind and a
// critic that may repeat the spec, not contradict it; its errors say which
// field and spec, marked ErrSpec or ErrConfig.
func TestEnv(t *testing.T) {
	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	spec := "replay:" + filepath.Join(src, "gsm_*.json")
	e, rounds, err := Env("sim", Config{Sim: sim.Config{Seed: 1}})
	if _, ok := e.(*sim.Simulator); !ok || rounds != env.DefaultRounds || err != nil {
		t.Errorf("sim: %T, %d rounds, %v", e, rounds, err)
	}
	var log strings.Builder
	e, rounds, err = Env(spec, Config{Kind: answer.GSM8K, Critic: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := e.(*replay.Env); !ok || !r.Critic() || rounds != r.Rounds() || log.Len() == 0 {
		t.Errorf("replay: %T, %d rounds, log %q", e, rounds, log.String())
	}
	for _, c := range []struct {
		spec string
		cfg  Config
		want string
		mark error
	}{
		{"sim", Config{Critic: true}, "critic: only a replay", ErrConfig},
		{"replay:", Config{}, "replay: spec", ErrSpec},
		{spec + ",kind=gsm8k", Config{Kind: answer.MMLU}, "kind mmlu and " + spec + ",kind=gsm8k: two tasks", ErrConfig},
		{spec + ",critic=off", Config{Critic: true}, "critic and " + spec + ",critic=off (critic=off): give one", ErrConfig},
		{"replay:" + filepath.Join(src, "none_*.json"), Config{}, "replay:" + filepath.Join(src, "none_*.json") + ": ", ErrSpec},
		{"bogus", Config{}, `"bogus": want sim or replay:`, ErrSpec},
	} {
		_, _, err := Env(c.spec, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.mark) {
			t.Errorf("Env(%q, %+v): %v, want %q marked %v", c.spec, c.cfg, err, c.want, c.mark)
		}
		if strings.Contains(err.Error(), "--") {
			t.Errorf("Env(%q, %+v): %v names a flag", c.spec, c.cfg, err)
		}
	}
	if got := Title(e); got != e.Name() {
		t.Errorf("Title of one file: %q, want its name %q", got, e.Name())
	}
	two, _, err := Env("replay:"+filepath.Join(src, "*.json"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Title(two), fmt.Sprintf("replay of 2 files (%d tasks, ", two.NumTasks()); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, " distinct questions)") {
		t.Errorf("Title of two files: %q, want %q", got, want)
	}
	if !sameFiles(spec+",critic=on", spec) || sameFiles(spec, spec+",kind=math") || sameFiles(spec, "replay:x.json") {
		t.Error("sameFiles: wrong")
	}
}

// Tasks takes one side of the split, or all, then the first n; Split
// opens the two sides of the same split.
func TestTasksAndSplit(t *testing.T) {
	sim, err := sim.New(sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all, err := Tasks(sim, "all", 0.3, 1, 0)
	if err != nil || len(all) != sim.NumTasks() {
		t.Fatalf("all: %d tasks, %v", len(all), err)
	}
	_, test, _ := replay.Split(sim.NumTasks(), 0.3, 1)
	if got, err := Tasks(sim, "test", 0.3, 1, 5); err != nil || !slices.Equal(got, test[:5]) {
		t.Errorf("test side: %v, %v", got, err)
	}
	for side, want := range map[string]string{"both": "want train or test", "test": "the test side has"} {
		if _, err := Tasks(sim, side, 0.3, 1, sim.NumTasks()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Tasks(%s): %v, want %q", side, err, want)
		}
	}

	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	tr, te, rounds, err := Split("replay:"+filepath.Join(src, "gsm_*.json"), Config{}, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumTasks()+te.NumTasks() != 2 || rounds < 1 {
		t.Errorf("replay split: %d + %d tasks, %d rounds", tr.NumTasks(), te.NumTasks(), rounds)
	}
	if _, _, rounds, err := Split("sim", Config{}, 0.5, 0); err != nil || rounds != 0 {
		t.Errorf("sim: %d rounds, %v", rounds, err)
	}
}
