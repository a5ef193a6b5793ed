package replay

import (
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// concedeAll concedes whenever it can: a turn copied from a peer.
type concedeAll struct{}

func (concedeAll) Name() string { return "concede-all" }
func (concedeAll) Probs(p *[metapolicy.NumActions]float64, _ *metapolicy.Observation) error {
	*p = [metapolicy.NumActions]float64{metapolicy.Concede: 1}
	return nil
}

// Every replayed turn records its agent's backbone model — LLM-Agora's
// per agent, a persona file's from its name — and keeps it through a
// concede, which copies a peer's answer, not its model.
func TestTurnsRecordTheAgentsModel(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    func(k int) string
	}{
		{"more/variants/agora_gsm_*.json", func(k int) string { return []string{"llama", "wizardlm", "orca"}[k] }},
		{"slm-debate/gsm/gsm_Qwen3-14B_persona_enigma*_agents3_*.json", func(int) string { return "Qwen3-14B" }},
	} {
		paths := testenv.Debates(t, c.pattern)
		e, _, err := Load(paths[:1], transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = env.Play(e, concedeAll{}, env.RunOptions{NumTasks: 3, Episodes: 1, Rounds: 2, Seed: 1}, func(ep *data.Episode) error {
			for r, rd := range ep.Rounds {
				for k, u := range rd.Turns {
					if u.Model != c.want(k) {
						t.Errorf("%s: %s round %d agent %d: model %q, want %q", c.pattern, ep.Task, r, k, u.Model, c.want(k))
					}
					n++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("%s: no turns played", c.pattern)
		}
	}
}
