package trainer

// Credit: which rewards a decision's advantage is taken from (design §3,
// counterfactual credit).
//
//   - taken (the default, stored as ""): the reward of the action the
//     agent took, ranked within its group (by task by default) against
//     the other decisions' rewards;
//   - counterfactual: the three rewards the agent would have had with each
//     action, every other agent's turns held as they were (a replay can
//     score them: env.Alternatives, data.CounterfactualRewards), are the
//     decision's own group; the estimator ranks them and the decision's
//     advantage is the taken action's. A decision whose three actions tie
//     (none changes the reward) gets 0;
//   - baseline: the taken action's reward minus their mean under the
//     policy at the start of the update, A = r(a) − Σ_b π(b|s)·r(b)
//     (COMA's counterfactual baseline), no estimator.
//
// Both need an environment that replays its episodes exactly (a replay),
// rank the round's own reward (γ must be 0), and train a shared MLP with
// the clip loss.

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/nn"
)

// Credit values (Config.Credit).
const (
	CreditTaken          = "taken"
	CreditCounterfactual = "counterfactual"
	CreditBaseline       = "baseline"
)

// ParseCredit reads a credit: taken (stored as ""), counterfactual or
// baseline.
func ParseCredit(s string) (string, error) {
	switch s {
	case "", CreditTaken:
		return "", nil
	case CreditCounterfactual, CreditBaseline:
		return s, nil
	}
	return "", fmt.Errorf("trainer: credit %q, want %s, %s or %s", s, CreditTaken, CreditCounterfactual, CreditBaseline)
}

// validateCredit is Validate's part for Credit.
func (c *Config) validateCredit() error {
	k, err := ParseCredit(c.Credit)
	switch {
	case err != nil || k != c.Credit:
		return fmt.Errorf("trainer: config: credit: %q, want \"\" (taken), %s or %s", c.Credit, CreditCounterfactual, CreditBaseline)
	case k == "":
		return nil
	case c.Reward.Gamma != 0:
		return fmt.Errorf("trainer: config: credit %s ranks the round's own reward: reward.gamma %v, want 0", k, c.Reward.Gamma)
	case c.Agents().Decoupled() || c.Arch != "" || c.Loss.RankMatch():
		return fmt.Errorf("trainer: config: credit %s trains a shared MLP with the clip loss (agent_policy %q, arch %q, loss %q)", k, c.AgentPolicy, c.Arch, c.Loss.Kind)
	}
	return nil
}

// counterfactualAdvantages writes into adv the advantage of every row of b
// under credit (b.Counter set) and fills gstd and gzero, per group of
// grouping g, with the mean population std of its rows' three rewards and
// whether every row's three tie.
func (r *RL) counterfactualAdvantages(adv []float64, b *Samples, g *grouping) error {
	n := b.Len()
	var three, a3 [nn.NumActions]float64
	tie := func(v []float64) (float64, bool) {
		lo, hi := min(v[0], v[1], v[2]), max(v[0], v[1], v[2])
		m := (v[0] + v[1] + v[2]) / 3
		s := 0.0
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		return math.Sqrt(s / 3), hi-lo <= 1e-12
	}
	switch r.cfg.Credit {
	case CreditCounterfactual:
		for i := range n {
			copy(three[:], b.Counter[3*i:3*i+3])
			if err := r.stepper.est.Advantages(a3[:], three[:]); err != nil {
				return fmt.Errorf("trainer: counterfactual advantages: row %d: %w", i, err)
			}
			adv[i] = a3[b.Actions[i]]
		}
	case CreditBaseline:
		r.pi = grow(r.pi, n*nn.NumActions)
		if err := r.stepper.logProbsTo(r.pi, r.stepper.Policy(), b.Features); err != nil {
			return err
		}
		for i := range n {
			// The float32 probabilities are renormalised, so that a tie's
			// baseline is its reward (advantage 0 to rounding).
			base, sum := 0.0, 0.0
			for a := range nn.NumActions {
				p := math.Exp(float64(r.pi[i*nn.NumActions+a]))
				base += p * b.Counter[3*i+a]
				sum += p
			}
			adv[i] = b.Counter[3*i+int(b.Actions[i])] - base/sum
		}
	default:
		return fmt.Errorf("trainer: counterfactual rewards given to a run of credit %q", r.cfg.Credit)
	}
	r.gstd, r.gzero = grow(r.gstd, g.len()), grow(r.gzero, g.len())
	for k := range g.len() {
		rows := g.members(k)
		sd, zero := 0.0, true
		for _, i := range rows {
			s, z := tie(b.Counter[3*int(i) : 3*int(i)+3])
			sd += s
			zero = zero && z
		}
		r.gstd[k], r.gzero[k] = sd/float64(len(rows)), zero
	}
	return nil
}
