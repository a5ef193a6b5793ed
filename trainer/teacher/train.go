package teacher

// RunTeacher makes any of them (trainer.Config.SFT.Labels "hindsight",
// "pivotal[:K]" or "pivotal:P") the supervised stage of a trainer/run.Train, the one
// training run of the project: `mpdf train --sft-labels pivotal` uses it
// online. Train has study.Trainer's signature: that run in memory, the
// teacher's clone then SoftRankPO (trainer.RL.Iterate, in the layout
// trainer.Config.Features). `mpdf study --sft-labels hindsight|pivotal`
// runs it per fold, on the training folds only. A task's hindsight plan
// is searched once per process and configuration and reused by every fold
// that trains on it, through any view of its Env (env.Source).
//
// On a replay a task is searched and labelled over its own recorded
// rounds (env.RoundsOf), not the most any file recorded.
//
// Search on a game that draws randomness (the simulator) is deterministic
// for a seed, but a plan's outcome there is one draw, not an expectation.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// LabelsName is the value of trainer.Config.SFT.Labels that asks for the
// hindsight teacher (Train) instead of a heuristic one.
const LabelsName = "hindsight"

// Handles reports whether Train understands labels, the value of
// trainer.Config.SFT.Labels: "hindsight", "pivotal", "pivotal:K" (K ≥ 0
// DAgger rounds: after cloning, the pivotal decisions of the states the
// clone reaches are labelled and added, and the clone trained again), or
// "pivotal:P" with P a fixed protocol of OverProtocols (PivotalOver: the
// pivotal decisions of P's play, P's own action on every other one).
func Handles(labels string) bool {
	_, err := parseLabels(labels)
	return err == nil
}

// OverProtocols are the fixed protocols "pivotal:P" may fill the
// non-pivotal decisions with: the deterministic ones whose agents see
// their peers (Play does not hide them, as Self-Refine would need).
var OverProtocols = []string{metapolicy.HeuristicMajority, metapolicy.HeuristicDebate, metapolicy.HeuristicGate, metapolicy.HeuristicUntilAgree}

// labelSpec is a parsed trainer.Config.SFT.Labels.
type labelSpec struct {
	pivotal bool
	dagger  int               // DAgger rounds of "pivotal:K"
	over    metapolicy.Policy // the base protocol of "pivotal:P", or nil
}

func parseLabels(labels string) (labelSpec, error) {
	switch {
	case labels == LabelsName:
		return labelSpec{}, nil
	case labels == PivotalName:
		return labelSpec{pivotal: true}, nil
	}
	if k, ok := strings.CutPrefix(labels, PivotalName+":"); ok {
		if d, err := strconv.Atoi(k); err == nil && d >= 0 && d <= 16 {
			return labelSpec{pivotal: true, dagger: d}, nil
		}
		if slices.Contains(OverProtocols, k) {
			p, err := metapolicy.NewHeuristic(k)
			if err != nil {
				return labelSpec{}, err
			}
			return labelSpec{pivotal: true, over: p}, nil
		}
	}
	return labelSpec{}, fmt.Errorf("teacher: labels %q: want %s, %s, %s:K (0 ≤ K ≤ 16) or %s:P (P one of %s)",
		labels, LabelsName, PivotalName, PivotalName, PivotalName, strings.Join(OverProtocols, ", "))
}

// Train trains a policy on every task of train: the in-memory run of
// trainer/run (run.Train, a fresh network over the layout cfg.Features)
// whose supervised stage, of cfg.SFT.Epochs epochs, clones the hindsight
// plans (Search with λ = cfg.Reward.Lambda over cfg.RL.Rounds, every
// training task) — or, when cfg.SFT.Labels is "pivotal[:K]", the pivotal
// decisions (PivotalLabels, then K DAgger rounds of PivotalLabelsOf the
// clone; see Handles), or for "pivotal:P" PivotalOver protocol P — then cfg.RL.Iterations SoftRankPO iterations
// against the supervised policy as reference. Its signature is
// study.Trainer's; it uses the kernel backend on one thread, so that the
// result does not depend on the machine, and is deterministic in its
// inputs. The plans know the gold answers: give it training tasks only.
func Train(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
	t, err := RunTeacher(cfg)
	if err != nil {
		return nil, err
	}
	fz, err := metapolicy.FeaturizerFor(cfg.FeatureLayout())
	if err != nil {
		return nil, err
	}
	if train.NumTasks() == 0 {
		return nil, fmt.Errorf("teacher: train: no training task")
	}
	cfg.Backend = "kernel"
	res, err := run.Train(context.Background(), run.Config{Train: cfg, Env: train, Threads: 1, Teacher: t}, run.Hooks{})
	if err != nil {
		return nil, fmt.Errorf("teacher: train: %w", err)
	}
	if res.Networks != nil { // a network per agent slot or model
		return res.PolicyOver("mpdf", fz)
	}
	return metapolicy.NewFeaturizedPolicy("mpdf", res.Policy, fz)
}

// RunTeacher is the run.Teacher of cfg.SFT.Labels (see Handles) over the
// layout cfg.Features, for cfg's λ, rounds and seed: the supervised stage
// of `mpdf train` and of Train. Hindsight plans are searched once per
// task and kept: a study that trains several folds on the same Env asks
// for each task's plan once (the plan depends only on the task, λ, rounds
// and seed).
func RunTeacher(cfg trainer.Config) (*run.Teacher, error) {
	spec, err := parseLabels(cfg.SFT.Labels)
	if err != nil {
		return nil, err
	}
	fz, err := metapolicy.FeaturizerFor(cfg.FeatureLayout())
	if err != nil {
		return nil, err
	}
	lambda, rounds, seed := cfg.Reward.Lambda, cfg.RL.Rounds, cfg.Seed
	t := &run.Teacher{Name: cfg.SFT.Labels, Again: spec.dagger}
	pivotal := spec.pivotal
	t.Label = func(e env.Env, tasks []int, clone metapolicy.Policy) (x []float32, actions []uint8, err error) {
		switch {
		case spec.over != nil: // PivotalOver, kept per task
			x, actions, _, err = pivotalCached(e, tasks, spec.over, spec.over.Name(), rounds, lambda, seed, fz)
		case pivotal && clone == nil: // PivotalLabels, kept per task
			x, actions, _, err = pivotalCached(e, tasks, nil, "", rounds, lambda, seed, fz)
		case pivotal:
			x, actions, _, err = PivotalLabelsOf(e, tasks, clone, rounds, lambda, seed, fz.Width, fz.Featurize)
		default:
			var res []Result
			res, err = searchCached(e, tasks, Config{Lambda: lambda, Rounds: rounds, Seed: seed})
			if err == nil {
				x, actions, err = Labels(e, res, seed, fz.Width, fz.Featurize)
			}
		}
		if err == nil && len(actions) == 0 {
			err = fmt.Errorf("teacher: %s labels: %w", cfg.SFT.Labels, run.ErrNoLabels)
		}
		return x, actions, err
	}
	return t, nil
}
