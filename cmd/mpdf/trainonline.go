package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// envs opens the online environments: one to train in, one to evaluate on
// tasks never trained on. The simulator's evaluation tasks come from
// another seed; a replay splits its questions by --held-out and
// --split-seed, as `mpdf eval --split` does.
func (r *run) envs() (train, held env.Env, err error) {
	if r.o.env == "sim" || r.o.env == "simulator" {
		if train, err = env.NewSimulator(env.SimConfig{Seed: r.cfg.Seed}); err != nil {
			return nil, nil, err
		}
		held, err = env.NewSimulator(env.SimConfig{Seed: r.cfg.Seed + 1_000_003})
		return train, held, err
	}
	e, rounds, err := openEvalEnv(r.stderr, r.o.env, "", env.SimConfig{}, r.o.quiet)
	if err != nil {
		return nil, nil, err
	}
	re, ok := e.(*replay.Env)
	if !ok {
		return nil, nil, fmt.Errorf("--env %s: want sim or replay:GLOB", r.o.env)
	}
	trainIdx, testIdx, err := re.Split(r.o.heldOut, r.o.splitSeed)
	if err != nil {
		return nil, nil, fmt.Errorf("--held-out: %w", err)
	}
	tr, err := re.Subset(trainIdx)
	if err != nil {
		return nil, nil, err
	}
	te, err := re.Subset(testIdx)
	if err != nil {
		return nil, nil, err
	}
	if r.cfg.RL.Rounds != rounds {
		fmt.Fprintf(r.stdout, "replay: %d deliberation rounds recorded; rl.rounds set to %d\n", rounds, rounds)
		r.cfg.RL.Rounds = rounds
	}
	fmt.Fprintf(r.stdout, "replay: %d questions for training, %d held out\n", tr.NumTasks(), te.NumTasks())
	return tr, te, nil
}

// online trains by playing in an environment and evaluates on held-out
// tasks against the heuristic baselines.
func (r *run) online(resumed *checkpoints.Checkpoint) error {
	sim, held, err := r.envs()
	if err != nil {
		return err
	}
	if resumed == nil {
		teacher, err := metapolicy.ParseHeuristic(r.cfg.SFT.Labels)
		if err != nil {
			return fmt.Errorf("--sft-labels: %w", err)
		}
		tasks := trainer.IterTasks(r.cfg.Seed, -1, sim.NumTasks(), sim.NumTasks())
		x, actions, err := trainer.Labels(sim, teacher, tasks, r.cfg.RL.Rounds, r.cfg.Seed)
		if err != nil {
			return err
		}
		all := func(each func([]float32, []uint8) error) error { return each(x, actions) }
		if err := r.sft("labels of "+teacher.Name()+" on "+r.o.env, all); err != nil {
			return err
		}
	}
	if err := r.startRL("online", resumed); err != nil {
		return err
	}
	total := r.cfg.RL.Iterations
	bar := newBar(total, "rl", r.o.quiet)
	bar.Add(r.iter)
	start := time.Now()
	var shares [][3]float64 // action shares of the sampled decisions, per iteration
	for r.iter < total {
		r.rl.Progress = float64(r.iter) / float64(total)
		res, err := r.rl.Iterate(sim, r.iter)
		if err != nil {
			bar.Exit()
			return err
		}
		r.iter++
		m := res.Update.Metrics
		shares = append(shares, [3]float64{m.ActPersist, m.ActRefine, m.ActConcede})
		bar.Describe(fmt.Sprintf("rl step %d loss %+.4f kl %.4f reward %+.3f acc %.3f", r.rl.Steps, m.Loss, m.KL, m.Reward, res.TeamAcc))
		bar.Add(1)
		if err := r.save("online", stepMetrics(m, map[string]float64{"team_accuracy": res.TeamAcc, "tokens_per_episode": res.Tokens})); err != nil {
			bar.Exit()
			return err
		}
	}
	bar.Finish()
	fmt.Fprintf(r.stdout, "RL: %d iterations, %d steps (%d skipped) in %s\n", total, r.rl.Steps, r.rl.Skipped, time.Since(start).Round(time.Millisecond))
	if len(shares) >= 2 {
		a, b := meanShares(shares[:(len(shares)+4)/5]), meanShares(shares[len(shares)-(len(shares)+4)/5:])
		fmt.Fprintf(r.stdout, "actions sampled, first → last fifth of RL: persist %.1f%% → %.1f%%, refine %.1f%% → %.1f%%, concede %.1f%% → %.1f%%\n",
			100*a[0], 100*b[0], 100*a[1], 100*b[1], 100*a[2], 100*b[2])
	}
	if err := r.finish(); err != nil {
		return err
	}
	return r.evaluate(held)
}

// evaluate compares the trained policy with the heuristic baselines on
// held-out tasks.
func (r *run) evaluate(held env.Env) error {
	if r.o.evalTasks == 0 {
		return nil
	}
	learned, err := metapolicy.NewMLPPolicy("mpdf", r.policy)
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
	n := min(r.o.evalTasks, held.NumTasks())
	const episodes = 2
	bar := newBar(n*episodes*len(policies), "eval", r.o.quiet)
	res, err := env.Evaluate(held, policies, env.RunOptions{
		NumTasks: n, Episodes: episodes, Rounds: r.cfg.RL.Rounds, Seed: r.cfg.Seed + 7,
		Progress: func(done, total int) { bar.Set(done) },
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "\nevaluation on %d held-out tasks of %s (seed %d):\n", n, r.o.env, r.cfg.Seed)
	if err := res.WriteTable(r.stdout); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(r.o.out, "eval.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	return res.WriteJSON(f)
}

var errNoData = errors.New("no training decisions in the input")

func meanShares(s [][3]float64) [3]float64 {
	var m [3]float64
	for _, v := range s {
		for i := range m {
			m[i] += v[i] / float64(len(s))
		}
	}
	return m
}
