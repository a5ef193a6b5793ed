package trainer

// Online, RL.Iterate plays an env.Env with the current policy (the
// iteration's tasks drawn by IterTasks from (seed, iteration), so a resumed
// run replays the same iterations), rewards the episodes (data.Decisions)
// and updates. Offline, Dataset streams rollout files or a pack chunk by
// chunk; each chunk is a rollout batch.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// AppendDecisions appends decisions to s as float32 rows of their features,
// with NaN for an absent log-probability. All must have width features.
func AppendDecisions(s *Samples, ds []data.Decision, width int) error {
	for i := range ds {
		d := &ds[i]
		if len(d.Features) != width {
			return fmt.Errorf("trainer: decision of group %q has %d features, want %d", d.Group, len(d.Features), width)
		}
		for _, v := range d.Features {
			s.Features = append(s.Features, float32(v))
		}
		s.Actions = append(s.Actions, uint8(d.Action))
		s.Rewards = append(s.Rewards, d.Reward)
		s.Groups = append(s.Groups, d.Group)
		lp := math.NaN()
		if d.LogProb != nil {
			lp = *d.LogProb
		}
		s.LogProb = append(s.LogProb, lp)
	}
	return nil
}

// IterResult summarises one online iteration.
type IterResult struct {
	Iter      int          `json:"iter"`
	Episodes  int          `json:"episodes"`
	Decisions int          `json:"decisions"`
	NoGold    int          `json:"no_gold"`       // episodes without a gold answer: no reward, not trained on
	TeamAcc   float64      `json:"team_accuracy"` // final round, of the Episodes−NoGold scored ones; NaN if none
	Tokens    float64      `json:"tokens_per_episode"`
	Update    UpdateResult `json:"update"`
	// Untrained counts the Decisions the fallback took, which train no
	// network (agent policy model: agents naming no backbone model).
	Untrained int `json:"untrained,omitempty"`
}

// IterTasks picks the tasks of online iteration iter: TasksPerIter distinct
// tasks drawn from the Env's pool by a stream seeded by (seed, iter), so an
// iteration is the same whether or not the run was resumed before it.
func IterTasks(seed uint64, iter, perIter, pool int) []int {
	rng := rand.New(rand.NewPCG(seed, 0x6f6e6c696e65^uint64(iter))) // "online"
	if perIter >= pool {
		return rng.Perm(pool)
	}
	return rng.Perm(pool)[:perIter]
}

// Iterate runs online iteration iter: it samples EpisodesPerTask episodes of
// each of the iteration's tasks with the current policy, turns them into
// decisions with the configured reward (grouped as Config.Reward says; by
// task by default, so a task's episodes compete), and updates the policy.
//
// The policy reads the layout Config.FeatureLayout (metapolicy.FeaturizerFor);
// the decisions are featurized in the same layout.
func (r *RL) Iterate(e env.Env, iter int) (IterResult, error) {
	fz, err := metapolicy.FeaturizerFor(r.cfg.FeatureLayout())
	if err != nil {
		return IterResult{}, err
	}
	pol, err := r.actingPolicy(fz)
	if err != nil {
		return IterResult{}, err
	}
	res := IterResult{Iter: iter}
	// The rollout batch reuses the previous iteration's arrays (Update
	// keeps nothing of it): growing them anew was a seventh of a study's
	// allocation.
	batch := &r.rollout
	*batch = Samples{Features: batch.Features[:0], Actions: batch.Actions[:0], Rewards: batch.Rewards[:0],
		Groups: batch.Groups[:0], LogProb: batch.LogProb[:0]}
	if r.cfg.Agents().Decoupled() {
		batch.Nets = r.rolloutNets[:0]
	}
	tokens := 0
	opts := env.RunOptions{
		Tasks:    IterTasks(r.cfg.Seed, iter, r.cfg.RL.TasksPerIter, e.NumTasks()),
		Episodes: r.cfg.RL.EpisodesPerTask,
		Rounds:   r.cfg.RL.Rounds,
		Seed:     r.cfg.Seed ^ (uint64(iter)+1)*0x9e3779b97f4a7c15,
	}
	if r.cfg.Credit != "" {
		batch.Counter = r.counter[:0]
	}
	err = env.Play(e, pol, opts, func(ep *data.Episode) error {
		k := res.Episodes // Play emits in task then episode order
		res.Episodes++
		if ep.Gold != "" && data.TeamAnswer(ep.Rounds[len(ep.Rounds)-1].Turns) == ep.Gold {
			res.TeamAcc++
		}
		for _, rd := range ep.Rounds {
			for _, t := range rd.Turns {
				tokens += t.Tokens
			}
		}
		ds, err := data.DecisionsIn(ep, r.cfg.Reward, fz)
		if err != nil {
			if ep.Gold == "" {
				res.NoGold++
				return nil
			}
			return err
		}
		res.Decisions += len(ds)
		if r.cfg.Credit != "" {
			if batch.Counter, err = appendCounterfactual(batch.Counter, e, opts.Tasks[k/opts.Episodes], ep, r.cfg.Reward); err != nil {
				return err
			}
		}
		if r.cfg.Agents().Decoupled() {
			var dropped int
			if ds, batch.Nets, dropped, err = r.keepTrainable(ds, batch.Nets, ep); err != nil {
				return err
			}
			res.Untrained += dropped
		}
		return AppendDecisions(batch, ds, r.stepper.Policy().In())
	})
	if err != nil {
		return res, fmt.Errorf("trainer: online iteration %d: %w", iter, err)
	}
	// An episode without gold is unknown, not wrong: it stays out of the
	// accuracy's denominator.
	if scored := res.Episodes - res.NoGold; scored > 0 {
		res.TeamAcc /= float64(scored)
	} else {
		res.TeamAcc = math.NaN()
	}
	if res.Episodes > 0 {
		res.Tokens = float64(tokens) / float64(res.Episodes)
	}
	if batch.Len() == 0 {
		if res.Untrained > 0 {
			// Every decision was the fallback's (agent policy model, no
			// agent naming its model): nothing to update.
			return res, nil
		}
		return res, fmt.Errorf("trainer: online iteration %d: no decisions with a reward", iter)
	}
	r.rolloutNets, r.counter = batch.Nets, batch.Counter
	if noise, _ := ParseRewardNoise(r.cfg.RewardNoise); noise != nil {
		noise.Add(batch.Rewards, r.cfg.Seed, iter) // Validate parsed it
	}
	res.Update, err = r.Update(batch)
	return res, err
}

// Labels collects supervised labels for the first stage: the decisions of
// episodes in which the heuristic teacher chose every action, featurized
// in the default layout (LabelsFor takes another).
func Labels(e env.Env, teacher metapolicy.Policy, tasks []int, rounds int, seed uint64) (x []float32, actions []uint8, err error) {
	return LabelsFor(e, teacher, tasks, rounds, seed, metapolicy.Featurizers()[0])
}

// LabelsFor is Labels with the decisions featurized in layout fz.
func LabelsFor(e env.Env, teacher metapolicy.Policy, tasks []int, rounds int, seed uint64, fz metapolicy.Featurizer) (x []float32, actions []uint8, err error) {
	opts := env.RunOptions{Tasks: tasks, Episodes: 1, Rounds: rounds, Seed: seed, Greedy: true}
	f := make([]float64, fz.Width)
	err = env.Play(e, teacher, opts, func(ep *data.Episode) error {
		for t := 1; t < len(ep.Rounds); t++ {
			for i, turn := range ep.Rounds[t].Turns {
				obs := ep.Observation(t, i)
				if err := fz.Featurize(f, &obs); err != nil {
					return err
				}
				for _, v := range f {
					x = append(x, float32(v))
				}
				actions = append(actions, uint8(*turn.Action))
			}
		}
		return nil
	})
	return x, actions, err
}

// NewPolicy returns a freshly initialised policy network of cfg's shape
// for features inputs, seeded by cfg.Seed.
func NewPolicy(cfg *Config, features int) (*nn.MLP[float32], error) {
	act, err := nn.ParseActivation(cfg.Activation)
	if err != nil {
		return nil, err
	}
	var m *nn.MLP[float32]
	if d := cfg.Attention(); d > 0 {
		if features != nn.AttnIn {
			return nil, fmt.Errorf("trainer: the attention network reads %d features (%s), not %d", nn.AttnIn, metapolicy.FeatureVersionPeers, features)
		}
		if err := CheckNetworkMemory(cfg.Sizes(nn.AttnSelf+d), d); err != nil {
			return nil, err
		}
		m, err = nn.NewAttention[float32](d, cfg.Sizes(nn.AttnSelf+d), act)
	} else {
		if err := CheckNetworkMemory(cfg.Sizes(features), 0); err != nil {
			return nil, err
		}
		m, err = nn.NewMLP[float32](cfg.Sizes(features), act)
	}
	if err != nil {
		return nil, err
	}
	m.Init(cfg.Seed)
	return m, nil
}

// policyOver is net read through layout fz: the MLPPolicy of the default
// layout, a FeaturizedPolicy of any other.
func policyOver(net *nn.MLP[float32], fz metapolicy.Featurizer) (metapolicy.Policy, error) {
	if fz.Version == metapolicy.FeatureVersion {
		return metapolicy.NewMLPPolicy("mpdf", net)
	}
	return metapolicy.NewFeaturizedPolicy("mpdf", net, fz)
}

// appendCounterfactual appends the three counterfactual rewards of each
// decision of ep, episode of task of e, in data.Decisions' order (round,
// then agent).
func appendCounterfactual(dst []float64, e env.Env, task int, ep *data.Episode, cfg data.RewardConfig) ([]float64, error) {
	alt, err := env.Alternatives(e, task, ep)
	if err != nil {
		return dst, err
	}
	cr, err := data.CounterfactualRewards(ep, alt, cfg)
	if err != nil {
		return dst, err
	}
	for t := 1; t < len(cr); t++ {
		for _, three := range cr[t] {
			dst = append(dst, three[:]...)
		}
	}
	return dst, nil
}
