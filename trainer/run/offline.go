package run

import (
	"context"

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
	return r.rlLoop(ctx, func() (Iteration, map[string]float64, error) {
		var it Iteration
		chunks := 0
		_, err := src.Pass(func(s *trainer.Samples) error {
			if err := r.stopped(ctx); err != nil {
				return err
			}
			res, err := r.rl.Update(s)
			it.Metrics = res.Metrics // the last chunk's update stands for the pass
			chunks++
			if err == nil {
				err = r.stepErr
			}
			return err
		})
		if err == nil && chunks == 0 {
			err = ErrNoData
		}
		return it, nil, err
	})
}
