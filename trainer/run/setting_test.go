package run

import (
	"errors"
	"strings"
	"testing"
)

// A resume goes on with the run's own environment, split, data and
// options, except what is given anew; an online run does not go on
// offline; an older offline run without its data needs it given.
func TestContinue(t *testing.T) {
	online := &Resumable{Path: "ckpt-1.mpdf", Position: Position{Mode: "online", Env: "replay:x.json", HeldOut: 0.4, SplitSeed: 9,
		Options: &Options{EvalTasks: 50, Keep: 2, BestMetric: "reward", SkipInvalid: true, FeatureWidth: 7}}}
	none := func(string) bool { return false }
	s, err := online.Continue(Setting{Env: "sim", HeldOut: 0.3, Options: Options{EvalTasks: 500, Keep: 3}}, none)
	want := Setting{Env: "replay:x.json", HeldOut: 0.4, SplitSeed: 9, Options: Options{EvalTasks: 50, Keep: 2, BestMetric: "reward", SkipInvalid: true}}
	if err != nil || s.Env != want.Env || s.HeldOut != want.HeldOut || s.SplitSeed != want.SplitSeed || s.Options != want.Options {
		t.Errorf("online resume: %+v, %v; want %+v", s, err, want)
	}
	s, _ = online.Continue(Setting{HeldOut: 0.2, Options: Options{Keep: 5}}, func(n string) bool { return n == "held_out" || n == "keep" })
	if s.HeldOut != 0.2 || s.Keep != 5 || s.Env != "replay:x.json" {
		t.Errorf("flags given win: %+v", s)
	}
	if _, err := online.Continue(Setting{Data: []string{"a.jsonl"}}, none); !errors.Is(err, ErrContinue) || !strings.Contains(err.Error(), "ckpt-1.mpdf is an online run (replay:x.json); it cannot go on offline") {
		t.Errorf("online run on data: %v", err)
	}

	offline := &Resumable{Path: "ckpt-2.mpdf", Position: Position{Mode: "offline", Data: &DataID{Paths: []string{"d.jsonl"}},
		Options: &Options{FeatureWidth: 7}}}
	if s, err := offline.Continue(Setting{}, none); err != nil || len(s.Data) != 1 || s.Data[0] != "d.jsonl" || s.FeatureWidth != 7 {
		t.Errorf("offline resume: %+v, %v", s, err)
	}
	older := &Resumable{Path: "ckpt-3.mpdf", Position: Position{Mode: "offline"}}
	if _, err := older.Continue(Setting{}, none); !errors.Is(err, ErrContinue) || !strings.Contains(err.Error(), "give the rollouts again") {
		t.Errorf("older offline run: %v", err)
	}
}
