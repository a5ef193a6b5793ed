package main

import (
	"fmt"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer"
)

// offline trains on rollout files or a pack: the supervised stage clones
// the rollouts' own actions, then each RL iteration is one pass in which
// every chunk is a rollout batch (its groups ranked within the chunk).
func (r *run) offline(args []string, resumed *checkpoints.Checkpoint) error {
	src := &trainer.Dataset{Paths: args, Skip: r.o.skipBad, Reward: r.cfg.Reward, Log: r.stderr}
	if resumed == nil {
		err := r.sft("actions of the rollouts", func(each func([]float32, []uint8) error) error {
			_, err := src.Pass(func(s *trainer.Samples) error { return each(s.Features, s.Actions) })
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := r.startRL("offline", resumed); err != nil {
		return err
	}
	total := r.cfg.RL.Iterations
	bar := newBar(total, "rl", r.o.quiet)
	bar.Add(r.iter)
	start := time.Now()
	for r.iter < total {
		r.rl.Progress = float64(r.iter) / float64(total)
		var acc []trainer.Metrics
		_, err := src.Pass(func(s *trainer.Samples) error {
			res, err := r.rl.Update(s)
			acc = append(acc, res.Metrics)
			return err
		})
		if err != nil {
			bar.Exit()
			return err
		}
		if len(acc) == 0 {
			bar.Exit()
			return errNoData
		}
		r.iter++
		m := acc[len(acc)-1]
		bar.Describe(fmt.Sprintf("rl step %d loss %+.4f kl %.4f reward %+.3f", r.rl.Steps, m.Loss, m.KL, m.Reward))
		bar.Add(1)
		if err := r.save("offline", stepMetrics(m, nil)); err != nil {
			bar.Exit()
			return err
		}
	}
	bar.Finish()
	fmt.Fprintf(r.stdout, "RL: %d passes, %d steps (%d skipped) in %s\n", total, r.rl.Steps, r.rl.Skipped, time.Since(start).Round(time.Millisecond))
	return r.finish()
}
