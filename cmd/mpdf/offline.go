package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// chunks delivers a data set as column chunks, one pass at a time: shards of
// a pack, or BatchRows-sized reads of a JSONL stream. Memory holds one
// chunk, whatever the size of the data set.
type chunks struct {
	args    []string
	skipBad bool
	reward  data.RewardConfig
	stderr  io.Writer
}

// pass calls each with every chunk of the data set, in order.
func (c *chunks) pass(each func(*data.Columns) error) error {
	if len(c.args) == 1 {
		if st, err := os.Stat(c.args[0]); err == nil && st.IsDir() {
			return c.packPass(c.args[0], each)
		}
	}
	r, err := data.Open(c.args, data.ReaderOptions{Skip: c.skipBad, FeatureWidth: metapolicy.FeatureWidth,
		OnReject: func(e *data.RecordError) { fmt.Fprintln(c.stderr, e) }})
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := data.NewDecisionStream(r, c.reward)
	if err != nil {
		return err
	}
	s.OnNoGold = func(p data.Pos, ep *data.Episode) {
		fmt.Fprintf(c.stderr, "%s: episode %q has no gold answer: no reward, not trained on\n", p, ep.ID)
	}
	var cols data.Columns
	for {
		err := s.ReadColumns(&cols)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := each(&cols); err != nil {
			return err
		}
	}
	counts := r.Counts()
	fmt.Fprintf(c.stderr, "read %s: %v; decisions from episodes %d, decision records %d, episodes without gold %d\n",
		c.args, counts, s.Counts().FromEpisodes, s.Counts().FromRecords, s.Counts().NoGold)
	return nil
}

func (c *chunks) packPass(dir string, each func(*data.Columns) error) error {
	p, err := data.OpenPack(dir)
	if err != nil {
		return err
	}
	if p.Width() != metapolicy.FeatureWidth {
		return fmt.Errorf("%s: pack has %d features per decision, the policy takes %d (%s)", dir, p.Width(), metapolicy.FeatureWidth, metapolicy.FeatureVersion)
	}
	var cols data.Columns
	for i := range p.Shards() {
		if err := p.ReadShard(i, &cols, data.SelectAll); err != nil {
			return err
		}
		if err := each(&cols); err != nil {
			return err
		}
	}
	return nil
}

// samples views a chunk as trainer Samples (group ids become their keys).
func samples(dst *trainer.Samples, c *data.Columns) {
	n := c.Len()
	dst.Features = c.Features[:n*c.Width]
	dst.Actions = c.Actions[:n]
	dst.Rewards = c.Rewards[:n]
	dst.LogProb = c.LogProbs[:n]
	dst.Groups = dst.Groups[:0]
	for _, g := range c.Groups[:n] {
		dst.Groups = append(dst.Groups, c.GroupNames[g])
	}
}

// offline trains on rollout files or a pack: the supervised stage clones
// the rollouts' own actions, then each RL iteration is one pass in which
// every chunk is a rollout batch (its groups ranked within the chunk).
func (r *run) offline(args []string, resumed *checkpoints.Checkpoint) error {
	src := &chunks{args: args, skipBad: r.o.skipBad, reward: r.cfg.Reward, stderr: r.stderr}
	if resumed == nil {
		err := r.sft("actions of the rollouts", func(each func([]float32, []uint8) error) error {
			return src.pass(func(c *data.Columns) error { return each(c.Features[:c.Len()*c.Width], c.Actions[:c.Len()]) })
		})
		if err != nil {
			return err
		}
	}
	if err := r.startRL(resumed); err != nil {
		return err
	}
	total := r.cfg.RL.Iterations
	bar := newBar(total, "rl", r.o.quiet)
	bar.Add(r.iter)
	start := time.Now()
	var s trainer.Samples
	for r.iter < total {
		r.rl.Progress = float64(r.iter) / float64(total)
		var acc []trainer.Metrics
		err := src.pass(func(c *data.Columns) error {
			samples(&s, c)
			res, err := r.rl.Update(&s)
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
		if err := r.save("offline", nil, m); err != nil {
			bar.Exit()
			return err
		}
	}
	bar.Finish()
	fmt.Fprintf(r.stdout, "RL: %d passes, %d steps (%d skipped) in %s\n", total, r.rl.Steps, r.rl.Skipped, time.Since(start).Round(time.Millisecond))
	return r.finish()
}
