package studytest

import (
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer"
)

// ConstTrainer "trains" a fixed heuristic: enough to test the plumbing.
func ConstTrainer(name string) study.Trainer {
	return func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		if train.NumTasks() == 0 {
			return nil, fmt.Errorf("no training tasks")
		}
		return metapolicy.ParseHeuristic(name)
	}
}

// Shared opens the shared transcripts matching glob (relative to
// ../shared/data/debates; testenv skips locally, fails under CI, when absent).
func Shared(t testing.TB, glob string) *replay.Env {
	t.Helper()
	paths := testenv.Debates(t, glob)
	e, _, err := replay.Load(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
