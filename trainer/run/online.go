package run

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/trainer"
)

// online trains by playing in cfg.Env and evaluates on cfg.HeldOutEnv
// against the heuristic baselines.
func (r *runner) online(ctx context.Context) error {
	sim := r.cfg.Env
	fz, err := r.cfg.featurizer()
	if err != nil {
		return err
	}
	switch {
	case r.cfg.Resume != nil:
	case r.cfg.Teacher != nil:
		if err := r.teach(ctx, fz); err != nil {
			return err
		}
	default:
		teacher, err := metapolicy.ParseHeuristic(r.cfg.Train.SFT.Labels)
		if err != nil {
			return fmt.Errorf("run: sft labels: %w", err)
		}
		c := &r.cfg.Train
		tasks := trainer.IterTasks(c.Seed, -1, sim.NumTasks(), sim.NumTasks())
		x, actions, err := trainer.LabelsFor(sim, teacher, tasks, c.RL.Rounds, c.Seed, fz)
		if err != nil {
			return err
		}
		all := func(each func([]float32, []uint8) error) error { return each(x, actions) }
		if err := r.sft(ctx, "labels of "+teacher.Name()+" on "+r.cfg.EnvName, all); err != nil {
			return err
		}
	}
	err = r.rlLoop(ctx, func() (Iteration, map[string]float64, error) {
		res, err := r.rl.Iterate(sim, r.iter)
		it := Iteration{Metrics: res.Update.Metrics, TeamAccuracy: res.TeamAcc, TokensPerEpisode: res.Tokens}
		extra := map[string]float64{"tokens_per_episode": res.Tokens}
		if !math.IsNaN(res.TeamAcc) { // no scored episode: no accuracy to rank by
			extra["team_accuracy"] = res.TeamAcc
		}
		return it, extra, err
	})
	if err != nil {
		return err
	}
	return r.evaluate(ctx, fz)
}

// teach runs the supervised stage on cfg.Teacher's labels: clone, then
// Again rounds of labelling the clone's states and cloning again.
func (r *runner) teach(ctx context.Context, fz metapolicy.Featurizer) error {
	t, c, e := r.cfg.Teacher, &r.cfg.Train, r.cfg.Env
	if c.SFT.Epochs == 0 {
		return r.sft(ctx, t.Name, nil)
	}
	tasks := trainer.IterTasks(c.Seed, -1, e.NumTasks(), e.NumTasks())
	x, actions, err := t.Label(e, tasks, nil)
	if err != nil {
		return fmt.Errorf("run: %s labels: %w", t.Name, err)
	}
	for k := 0; ; k++ {
		all := func(each func([]float32, []uint8) error) error { return each(x, actions) }
		if err := r.sft(ctx, t.Name, all); err != nil {
			return err
		}
		if k == t.Again {
			return nil
		}
		clone, err := metapolicy.NewFeaturizedPolicy("mpdf", r.policy, fz)
		if err != nil {
			return err
		}
		dx, da, err := t.Label(e, tasks, clone)
		if err != nil {
			return fmt.Errorf("run: %s labels, dagger %d: %w", t.Name, k+1, err)
		}
		x, actions = append(x, dx...), append(actions, da...)
	}
}

// evaluate compares the trained policy (sampled and greedy) with the
// heuristic baselines on held-out tasks, two episodes each.
func (r *runner) evaluate(ctx context.Context, fz metapolicy.Featurizer) error {
	held := r.cfg.HeldOutEnv
	if r.cfg.EvalTasks == 0 || held == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("run: evaluation: %w", err)
	}
	learned, err := metapolicy.NewFeaturizedPolicy("mpdf", r.policy, fz)
	if err != nil {
		return err
	}
	policies := []metapolicy.Policy{learned, metapolicy.GreedyPolicy{Policy: learned}}
	for _, name := range env.Baselines(held) {
		p, err := metapolicy.NewHeuristic(name)
		if err != nil {
			return err
		}
		policies = append(policies, p)
	}
	n := min(r.cfg.EvalTasks, held.NumTasks())
	const episodes = 2
	total := n * episodes * len(policies)
	r.progress("eval", 0, total, "eval")
	res, err := env.Evaluate(held, policies, env.RunOptions{
		NumTasks: n, Episodes: episodes, Rounds: r.cfg.Train.RL.Rounds, Seed: r.cfg.Train.Seed + 7,
		Progress: func(done, total int) { r.progress("eval", done, total, "eval") },
	})
	if err != nil {
		return err
	}
	r.res.Eval, r.res.EvalTasks = res, n
	if r.cfg.Dir == "" {
		return nil
	}
	if err := outfile.WriteFile(filepath.Join(r.cfg.Dir, EvalName), res.WriteJSON); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	r.res.Files = append(r.res.Files, EvalName)
	return nil
}
