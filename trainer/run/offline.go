package run

import (
	"context"
	"fmt"
	"time"

	"github.com/mpdf/mpdf/trainer"
)

// offline trains on cfg.Data: the supervised stage clones the rollouts'
// own actions, then each RL iteration is one pass in which every chunk is
// a rollout batch (its groups ranked within the chunk).
func (r *runner) offline(ctx context.Context) error {
	src := r.cfg.Data
	if r.cfg.Resume == nil {
		err := r.sft(ctx, "actions of the rollouts", func(each func([]float32, []uint8) error) error {
			_, err := src.Pass(func(s *trainer.Samples) error { return each(s.Features, s.Actions) })
			return err
		})
		if err != nil {
			return err
		}
	}
	if err := r.startRL(); err != nil {
		return err
	}
	total := r.cfg.Train.RL.Iterations
	r.progress("rl", r.iter, total, "rl")
	start := time.Now()
	for r.iter < total {
		if err := r.stopped(ctx); err != nil {
			return err
		}
		r.rl.Progress = float64(r.iter) / float64(total)
		var last trainer.Metrics
		chunks := 0
		_, err := src.Pass(func(s *trainer.Samples) error {
			if err := r.stopped(ctx); err != nil {
				return err
			}
			res, err := r.rl.Update(s)
			last = res.Metrics
			chunks++
			if err == nil {
				err = r.stepErr
			}
			return err
		})
		if err != nil {
			return err
		}
		if chunks == 0 {
			return ErrNoData
		}
		r.iter++
		if err := r.save(stepMetrics(last, nil)); err != nil {
			return err
		}
		if r.hooks.Iteration != nil {
			r.hooks.Iteration(Iteration{Iter: r.iter, Step: r.rl.Steps, Metrics: last})
		}
		r.progress("rl", r.iter, total, fmt.Sprintf("rl step %d loss %+.4f kl %.4f reward %+.3f", r.rl.Steps, last.Loss, last.KL, last.Reward))
	}
	r.res.RLTime = time.Since(start)
	return r.finish()
}
