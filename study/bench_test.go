package study

import (
	"testing"

	"github.com/mpdf/mpdf/env"
)

// BenchmarkStudyFold measures one fold of the default study on the shared
// transcripts: training one λ on four fifths of the questions and playing
// the learned policy and every baseline on the remaining fifth.
func BenchmarkStudyFold(b *testing.B) {
	e := shared(b, "slm-debate/*/*.json")
	info := Describe(e)
	folds, _, err := Folds(info, 5, ByQuestion, 1)
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := cfg.FillDefaults(); err != nil {
		b.Fatal(err)
	}
	cfg.Baselines = env.Baselines(e)
	s := &Study{Config: cfg, Tasks: info}
	bases, err := s.baselines()
	if err != nil {
		b.Fatal(err)
	}
	rounds := e.Rounds()
	for b.Loop() {
		if _, err := s.runJob(e, &cfg, bases, rounds, Cell{Seed: 1, Fold: 0, Test: folds[0], Baselines: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.runJob(e, &cfg, bases, rounds, Cell{Seed: 1, Fold: 0, Test: folds[0]}); err != nil {
			b.Fatal(err)
		}
	}
}
