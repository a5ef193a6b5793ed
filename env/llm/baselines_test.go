package llm

import (
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// TestBaselinesLive runs gate, until-consensus and majority through the
// runner on the live environment (against the fake server): each round's
// actions follow the baseline's rule on the answers the team really held.
func TestBaselinesLive(t *testing.T) {
	for _, name := range []string{"majority", "gate", "until-consensus"} {
		s := newFakeServer(t, model)
		e := newTestEnv(t, s, Options{}, nil)
		pol, err := metapolicy.ParseHeuristic(name)
		if err != nil {
			t.Fatal(err)
		}
		eps, err := env.Collect(e, pol, env.RunOptions{Rounds: 3, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ep := &eps[0]
		answers := func(r int) []string {
			var out []string
			for _, tu := range ep.Rounds[r].Turns {
				out = append(out, tu.Answer)
			}
			return out
		}
		for r := 1; r < len(ep.Rounds); r++ {
			want := metapolicy.Persist
			switch name {
			case "gate":
				if !metapolicy.Unanimous(answers(0)) {
					want = metapolicy.Refine
				}
			case "until-consensus":
				if !metapolicy.Unanimous(answers(r - 1)) {
					want = metapolicy.Refine
				}
			}
			for k, tu := range ep.Rounds[r].Turns {
				if *tu.Action != want {
					t.Errorf("%s: round %d agent %d: %v after %q, want %v", name, r, k, *tu.Action, answers(r-1), want)
				}
			}
		}
	}
}
