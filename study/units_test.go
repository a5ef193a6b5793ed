package study

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

// peersEnv marks an Env as a replay would (env.PeersAlwaysSeen).
type peersEnv struct{ env.Env }

func (peersEnv) PeersAlwaysSeen() bool { return true }

// TestSubsetKeepsPeersAlwaysSeen: the training side of a fold keeps its
// parent's marker, so env.Play still refuses Self-Refine on a replay's
// training tasks and Baselines still leaves refine out.
func TestSubsetKeepsPeersAlwaysSeen(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(env.Baselines(subset{Env: sim, tasks: []int{1, 2}}), "refine") == false {
		t.Fatal("subset of a simulator lost refine")
	}
	sub := subset{Env: peersEnv{sim}, tasks: []int{1, 2}}
	if slices.Contains(env.Baselines(sub), "refine") {
		t.Error("subset of a peers-always-seen Env still offers refine")
	}
	refine, err := metapolicy.ParseHeuristic("refine")
	if err != nil {
		t.Fatal(err)
	}
	err = env.Play(sub, refine, env.RunOptions{NumTasks: 2, Episodes: 1, Rounds: 2, Seed: 1}, func(*data.Episode) error { return nil })
	if err == nil {
		t.Error("env.Play played Self-Refine on the subset of a peers-always-seen Env")
	}
}

// NormaliseQuestion is Join(Fields(ToLower(text)), " "): on white space of
// every kind (Unicode's too), bytes that are not UTF-8, and fuzzed text.
func FuzzNormaliseQuestion(f *testing.F) {
	for _, s := range []string{"", " ", "A  b\tC\n", "  Ünïcode\u00a0SPACE\u2003x\u3000 ", "bad \xff\xfe bytes \xc3", "İSTANBUL ǅ", "x\u0085y\u1680z", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormaliseQuestion(s), strings.Join(strings.Fields(strings.ToLower(s)), " "); got != want {
			t.Errorf("NormaliseQuestion(%q) = %q, want %q", s, got, want)
		}
	})
}
