package ablate

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// MovesTasks bounds the tasks AdvantageMoves plays.
const MovesTasks = 64

// AdvantageMove is how one estimator's advantages move when the rewards
// go through a transform, against the same rewards as they are, over the
// decisions of real groups: Scale is mean |A_f| / mean |A|, Change is
// mean |A_f − A| / mean |A| (0: the values do not move), SignFlips the
// share of decisions whose advantage changes sign (a decision pushed the
// other way). Scale and Change are 0 when every advantage is 0. Every transform is increasing, so no estimator's order
// within a group changes; Change is what the scale does to the update.
type AdvantageMove struct {
	Estimator string  `json:"estimator"`
	Transform string  `json:"transform"`
	Decisions int     `json:"decisions"`
	Scale     float64 `json:"scale"`
	Change    float64 `json:"change"`
	SignFlips float64 `json:"sign_flips"`
}

// AdvantageMoves measures, for every estimator of trainer.EstimatorNames
// (SoftRankPO at train.Tau) and every non-identity transform of
// RewardTransforms, the move of the advantages of the decisions of the
// random policy on the first MovesTasks tasks of e, train.RL.EpisodesPerTask
// episodes each over rounds rounds, rewarded with train.Reward at token
// cost lambda and grouped as training groups them. The random policy
// stands for an untrained one: the groups are those the first iteration
// of a run ranks.
func AdvantageMoves(e env.Env, train trainer.Config, lambda float64, rounds int, seed uint64) ([]AdvantageMove, error) {
	pol, err := metapolicy.ParseHeuristic(metapolicy.HeuristicRandom)
	if err != nil {
		return nil, err
	}
	rc := train.Reward
	rc.Lambda = lambda
	var rewards []float64
	var groups []string
	opts := env.RunOptions{NumTasks: min(MovesTasks, e.NumTasks()), Episodes: max(2, train.RL.EpisodesPerTask), Rounds: rounds, Seed: seed, Workers: 1}
	err = env.Play(e, pol, opts, func(ep *data.Episode) error {
		ds, err := data.Decisions(ep, rc)
		if err != nil {
			if ep.Gold == "" {
				return nil
			}
			return err
		}
		for _, d := range ds {
			rewards = append(rewards, d.Reward)
			groups = append(groups, d.Group)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("advantage moves: %w", err)
	}
	if len(rewards) == 0 {
		return nil, fmt.Errorf("advantage moves: no decision with a reward")
	}
	var out []AdvantageMove
	base, moved := make([]float64, len(rewards)), make([]float64, len(rewards))
	for _, name := range trainer.EstimatorNames() {
		est, err := trainer.NewEstimator(name, train.Tau)
		if err != nil {
			return nil, err
		}
		if err := trainer.GroupAdvantages(base, rewards, groups, est); err != nil {
			return nil, err
		}
		for _, spec := range RewardTransforms[1:] {
			f, err := trainer.ParseRewardTransform(spec)
			if err != nil {
				return nil, err
			}
			t := &trainer.Transformed{Estimator: est, Spec: spec, F: f}
			if err := trainer.GroupAdvantages(moved, rewards, groups, t); err != nil {
				return nil, fmt.Errorf("advantage moves: %s: %w", spec, err)
			}
			m := AdvantageMove{Estimator: name, Transform: spec, Decisions: len(rewards)}
			var sa, sm, sd float64
			flips := 0
			for i := range base {
				sa += math.Abs(base[i])
				sm += math.Abs(moved[i])
				sd += math.Abs(moved[i] - base[i])
				if sign(moved[i]) != sign(base[i]) {
					flips++
				}
			}
			if sa > 0 { // else every advantage is 0: nothing to move
				m.Scale, m.Change = sm/sa, sd/sa
			}
			m.SignFlips = float64(flips) / float64(len(base))
			out = append(out, m)
		}
	}
	return out, nil
}

// sign is −1, 0 or 1, with advantages within 1e-12 of 0 counted as 0.
func sign(x float64) int {
	switch {
	case x > 1e-12:
		return 1
	case x < -1e-12:
		return -1
	}
	return 0
}
