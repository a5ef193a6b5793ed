package run

import (
	"context"
	"fmt"

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

// checkData reads the whole of the offline data once, streaming, before
// the run directory is touched: a torn JSONL line, a shard that is
// missing, corrupt or not the one the manifest hashed, or data without a
// decision then fail the run with nothing written. (A pack's shards are
// hashed here once; the passes that train do not hash them again.)
func (r *runner) checkData(ctx context.Context) error {
	r.progress("check", 0, 1, "checking the data")
	st, err := r.cfg.Data.Pass(func(*trainer.Samples) error { return ctx.Err() })
	if err != nil {
		return fmt.Errorf("run: %w", err) // the error names the data file
	}
	if st.Rows == 0 {
		return ErrNoData
	}
	r.progress("check", 1, 1, fmt.Sprintf("checked %d decisions", st.Rows))
	return nil
}
