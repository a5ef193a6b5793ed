package run

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

// writeRollouts collects the simulator's episodes under pol into a file.
func writeRollouts(t *testing.T, path string, pol metapolicy.Policy, source string) {
	t.Helper()
	sim, err := sim.New(sim.Config{Seed: 1, Tasks: 8})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := env.Collect(sim, pol, env.RunOptions{Rounds: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := data.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range eps {
		if source != "" {
			eps[i].Source = source
		}
		if err := w.WriteEpisode(&eps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckBehaviour(t *testing.T) {
	dir := t.TempDir()
	heuristic := func(name string) metapolicy.Policy {
		p, err := metapolicy.NewHeuristic(name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	debate, random, imported := filepath.Join(dir, "debate.jsonl"), filepath.Join(dir, "random.jsonl"), filepath.Join(dir, "imported.jsonl")
	writeRollouts(t, debate, heuristic(metapolicy.HeuristicDebate), "")
	writeRollouts(t, random, heuristic(metapolicy.HeuristicRandom), "")
	// Imported episodes are refused even when their actions vary (DyLAN's
	// teams stop early: persist after refine).
	writeRollouts(t, imported, heuristic(metapolicy.HeuristicRandom), "llm-debate:"+transcript.DebatePolicy+".json")

	err := CheckBehaviour([]string{debate})
	if !errors.Is(err, ErrSingleBehaviour) || !strings.Contains(err.Error(), "decisions is refine") {
		t.Errorf("debate rollouts: %v, want a refusal naming refine", err)
	}
	if err := CheckBehaviour([]string{random}); err != nil {
		t.Errorf("random rollouts: %v, want them accepted", err)
	}
	if err := CheckBehaviour([]string{random, debate}); err != nil {
		t.Errorf("random and debate rollouts together: %v, want them accepted", err)
	}
	err = CheckBehaviour([]string{imported})
	if !errors.Is(err, ErrSingleBehaviour) || !strings.Contains(err.Error(), "imported debate transcripts") {
		t.Errorf("imported episodes: %v, want a refusal naming the import", err)
	}
	if err := CheckBehaviour([]string{filepath.Join(dir, "missing.jsonl")}); err != nil {
		t.Errorf("missing file: %v, want no verdict (training reports it)", err)
	}
}
