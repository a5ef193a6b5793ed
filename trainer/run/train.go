package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// ErrNoData is returned when a pass over the offline data (or the labels
// of the online supervised stage) yields no decision to train on.
var ErrNoData = errors.New("run: no training decisions in the input")

// runner is the state of one run.
type runner struct {
	cfg     Config
	hooks   Hooks
	log     *slog.Logger
	policy  *nn.MLP[float32]
	backend trainer.Backend
	rl      *trainer.RL
	sftS    *trainer.SFT // the supervised stage's optimiser, kept over DAgger rounds
	mgr     *checkpoints.Manager
	id      string // the run's identity (runID), stamped on its checkpoints
	saved   bool   // a checkpoint has been written
	metrics *metricsLog
	iter    int   // completed iterations
	stepErr error // the first error of the step hook
	res     Result
}

// Train trains a policy as cfg says: the supervised stage (unless resuming),
// then RL online in cfg.Env or offline on cfg.Data, saving a checkpoint
// after the supervised stage and after every iteration, and, online, a
// final evaluation on cfg.HeldOutEnv. With cfg.Dir it writes the run
// directory, holding its lock for the whole run; without, it trains in
// memory. Cancelling ctx stops the run between epochs, iterations or
// chunks: what the last checkpoint holds is kept, and Resume continues
// from it. Every input is checked before the directory is touched.
func Train(ctx context.Context, cfg Config, hooks Hooks) (res *Result, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	offline := cfg.Data != nil
	r := &runner{cfg: cfg, hooks: hooks, log: hooks.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.res.Mode = r.mode()
	if err := r.buildPolicy(); err != nil {
		return nil, err
	}
	backend, closeBackend, err := newBackend(&r.cfg.Train, r.policy, cfg.Threads)
	if err != nil {
		return nil, err
	}
	defer closeBackend()
	r.backend = backend

	var step int64
	if rs := cfg.Resume; rs != nil {
		step = rs.Checkpoint.Header.Step
		r.iter = rs.Position.Iter
		if err := cfg.sameMetricsGrain(rs); err != nil {
			return nil, err
		}
	}
	if cfg.Dir != "" {
		if offline {
			if err := r.checkData(ctx); err != nil {
				return nil, err
			}
		}
		lock, lerr := LockDir(cfg.Dir)
		if lerr != nil {
			return nil, lerr
		}
		defer lock.Unlock()
		claimed := false
		if cfg.Resume == nil {
			// A fresh run that fails before its first checkpoint leaves
			// nothing to resume: what it wrote goes (once the directory was
			// found empty or cleared, the log and run.json are its own), so
			// that the retry is not refused as a directory holding a run.
			defer func() {
				if err == nil || r.saved {
					return
				}
				var mine []string
				if claimed {
					mine = []string{MetricsName, IdentityName}
				}
				if r.metrics != nil {
					r.metrics.close()
				}
				err = errors.Join(err, lock.d.Abandon(mine...))
			}()
		}
		if err := r.claim(lock); err != nil {
			return nil, err
		}
		claimed = true
		metric, higher, _ := cfg.bestMetric(offline)
		r.mgr = &checkpoints.Manager{Dir: cfg.Dir, KeepLast: cfg.Keep, BestMetric: metric, HigherIsBetter: higher, OnBest: r.bestWritten, Run: r.id}
		if cfg.Resume != nil {
			// A run killed between writing best.mpdf and its weights.
			if err := syncWeights(cfg.Dir); err != nil {
				return nil, err
			}
		}
	}
	if r.metrics, err = openMetrics(cfg.Dir, cfg.metricsEvery(), cfg.Resume != nil, step); err != nil {
		return nil, err
	}
	defer r.metrics.close()

	r.start(step)
	if err := r.play(ctx, offline); err != nil {
		return nil, err
	}
	return r.result()
}

// start tells hooks.Start what the run begins from.
func (r *runner) start(step int64) {
	if r.hooks.Start == nil {
		return
	}
	s := Start{Config: r.cfg.Train, Mode: r.res.Mode, Step: step, Iter: r.iter, Features: r.policy.In()}
	if r.cfg.Resume != nil {
		s.Resumed = r.cfg.Resume.Path
	}
	r.hooks.Start(s)
}

// play runs the stages, offline or online.
func (r *runner) play(ctx context.Context, offline bool) error {
	var err error
	if offline {
		err = r.offline(ctx)
	} else {
		err = r.online(ctx)
	}
	if err != nil {
		// Stopped or failed: the log ends where the last checkpoint does,
		// without the steps no checkpoint holds or a line torn by a
		// failed write.
		return errors.Join(err, r.metrics.rewind())
	}
	return nil
}

// result closes the metrics log and returns the run's result with the
// trained policy and its networks.
func (r *runner) result() (*Result, error) {
	if err := r.metrics.close(); err != nil {
		return nil, err
	}
	r.res.Policy = r.policy
	var err error
	if r.res.Networks, err = r.networks(); err != nil {
		return nil, err
	}
	return &r.res, nil
}

func (r *runner) mode() string {
	if r.cfg.Data != nil {
		return "offline"
	}
	return "online"
}

// buildPolicy makes the network: the resumed checkpoint's, the given
// initial one, or a fresh one from the seed.
func (r *runner) buildPolicy() error {
	want := r.cfg.width()
	switch {
	case r.cfg.Resume != nil:
		ck := r.cfg.Resume.Checkpoint
		if v := r.cfg.featureVersion(); ck.Header.FeatureVersion != v {
			return fmt.Errorf("run: resume: %s was trained on features %q, this run's are %q", r.cfg.Resume.Path, ck.Header.FeatureVersion, v)
		}
		r.policy = ck.Policy
	case r.cfg.Init != nil:
		r.policy = r.cfg.Init
	default:
		m, err := trainer.NewPolicy(&r.cfg.Train, want)
		if err != nil {
			return err
		}
		r.policy = m
	}
	if r.policy.In() != want || r.policy.Out() != nn.NumActions {
		return fmt.Errorf("run: network maps %d → %d, want %d features (%s) → %d actions",
			r.policy.In(), r.policy.Out(), want, r.cfg.featureVersion(), nn.NumActions)
	}
	// The network's shape wins over the config: record what is trained.
	r.cfg.Train.Hidden = append([]int(nil), r.policy.Sizes[1:len(r.policy.Sizes)-1]...)
	r.cfg.Train.Activation = r.policy.Act.String()
	if d := r.policy.Attn; d > 0 {
		r.cfg.Train.Arch = trainer.ArchAttention
		if r.cfg.Train.Attention() != d {
			r.cfg.Train.AttnDim = d
		}
	} else {
		r.cfg.Train.Arch, r.cfg.Train.AttnDim = "", 0
	}
	return nil
}

// newBackend builds the configured loss-and-gradient backend.
func newBackend(cfg *trainer.Config, m *nn.MLP[float32], threads int) (trainer.Backend, func(), error) {
	if cfg.Backend == "gorgonia" {
		e, err := autodiff.NewAttention[float32](m.Attn, m.Sizes, m.Act, cfg.Loss)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	}
	k, err := trainer.NewKernelBackendAttn(m.Attn, m.Sizes, m.Act, cfg.Loss, threads)
	if err != nil {
		return nil, nil, err
	}
	return k, k.Close, nil
}

func (r *runner) progress(stage string, done, total int, desc string) {
	if r.hooks.Progress != nil {
		r.hooks.Progress(Progress{Stage: stage, Done: done, Total: total, Desc: desc})
	}
}

// stopped wraps ctx's error with where the run stands.
func (r *runner) stopped(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	return fmt.Errorf("run: stopped after %d iterations (the last checkpoint holds them): %w", r.iter, err)
}

// sft runs the supervised stage: epochs over the labelled rows that each
// call of pass delivers (all at once, or chunk by chunk).
func (r *runner) sft(ctx context.Context, what string, pass func(each func(x []float32, actions []uint8) error) error) error {
	cfg := r.cfg.Train.SFT
	res := SFTResult{What: what, Epochs: cfg.Epochs}
	again := r.sftS != nil // a DAgger round: same optimiser, epochs add up
	if again {
		res.Epochs += r.res.SFT.Epochs
	}
	defer func() {
		if again {
			res.FirstLoss = r.res.SFT.FirstLoss
		}
		r.res.SFT = res
	}()
	if cfg.Epochs == 0 {
		res.Skipped = true
		if r.hooks.SFT != nil {
			r.hooks.SFT(res)
		}
		return nil
	}
	s := r.sftS
	if s == nil {
		var err error
		if s, err = trainer.NewSFT(r.backend, r.policy, cfg, r.cfg.Train.Adam, r.cfg.Train.Seed); err != nil {
			return err
		}
		r.sftS = s
	}
	r.progress("sft", 0, cfg.Epochs, "sft")
	for ep := 0; ep < cfg.Epochs; ep++ {
		if err := r.stopped(ctx); err != nil {
			return err
		}
		sum, n, hits := 0.0, 0, 0
		err := pass(func(x []float32, actions []uint8) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			loss, err := s.Epoch(x, actions)
			if err != nil {
				return err
			}
			sum += loss * float64(len(actions))
			n += len(actions)
			if ep == cfg.Epochs-1 { // every chunk's rows, each after its chunk's epoch
				h, err := s.Agreement(x, actions)
				hits += h
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNoData
		}
		res.Loss, res.Rows = sum/float64(n), n
		if ep == cfg.Epochs-1 {
			res.Agreement = float64(hits) / float64(n)
		}
		if ep == 0 {
			res.FirstLoss = res.Loss
		}
		r.progress("sft", ep+1, cfg.Epochs, fmt.Sprintf("sft loss %.4f", res.Loss))
	}
	res.Steps = s.Steps
	if r.hooks.SFT != nil {
		r.hooks.SFT(res)
	}
	return nil
}

// startRL freezes the reference and builds the RL loop, restoring the
// optimiser, step count and random state when resuming; a fresh run saves
// its step-0 checkpoint (the supervised policy), so that a resume never
// redoes the supervised stage.
func (r *runner) startRL() error {
	rs := r.cfg.Resume
	ref := r.policy.Clone()
	if rs != nil && rs.Checkpoint.Reference != nil {
		ref = rs.Checkpoint.Reference
	}
	rl, err := trainer.NewRL(r.backend, r.policy, ref, r.cfg.Train)
	if err != nil {
		return err
	}
	if rs != nil {
		ck := rs.Checkpoint
		if err := restoreNets(rl, ck, r.cfg.Train.Agents()); err != nil {
			return fmt.Errorf("run: resume: %s: %w", rs.Path, err)
		}
		rl.Steps = ck.Header.Step
		if a := ck.Adam; a != nil {
			st := rl.Stepper().Adam()
			if len(a.M) != len(st.M) || len(a.V) != len(st.V) {
				return fmt.Errorf("run: resume: %s: optimiser state of %d parameters, the network has %d", rs.Path, len(a.M), len(st.M))
			}
			copy(st.M, a.M)
			copy(st.V, a.V)
			st.Step = a.Step
		}
		if ck.RNG != nil {
			if err := rl.SetRNGState(ck.RNG); err != nil {
				return fmt.Errorf("run: resume: rng state: %w", err)
			}
		}
	}
	r.rl = rl
	rl.OnStep = r.logStep
	if rs == nil {
		var extra map[string]float64
		if !r.res.SFT.Skipped && r.res.SFT.Epochs > 0 {
			extra = map[string]float64{"sft_loss": r.res.SFT.Loss, "sft_agreement": r.res.SFT.Agreement}
		}
		return r.save(extra)
	}
	return nil
}

// rlLoop starts RL and runs the iterations left, each one call of
// iterate (which returns the iteration's metrics and extra checkpoint
// metrics), saving a checkpoint after each; then it finishes the run.
func (r *runner) rlLoop(ctx context.Context, iterate func() (Iteration, map[string]float64, error)) error {
	if err := r.startRL(); err != nil {
		return err
	}
	total := r.cfg.Train.RL.Iterations
	r.progress("rl", r.iter, total, "rl")
	start := time.Now()
	if err := r.heldOutPoint(ctx); err != nil { // the supervised policy's point, iteration 0
		return err
	}
	for r.iter < total {
		if err := r.stopped(ctx); err != nil {
			return err
		}
		r.rl.Progress = float64(r.iter) / float64(total)
		it, extra, err := iterate()
		if err == nil {
			err = r.stepErr
		}
		if err == nil {
			err = r.metrics.endIteration()
		}
		if err != nil {
			return err
		}
		r.iter++
		it.Iter, it.Step = r.iter, r.rl.Steps
		if err := r.heldOutPoint(ctx); err != nil {
			return err
		}
		if err := r.save(stepMetrics(it.Metrics, extra)); err != nil {
			return err
		}
		if r.hooks.Iteration != nil {
			r.hooks.Iteration(it)
		}
		m := &it.Metrics
		desc := fmt.Sprintf("rl step %d loss %+.4f kl %.4f reward %+.3f", it.Step, m.Loss, m.KL, m.Reward)
		if r.cfg.Data == nil {
			desc += fmt.Sprintf(" acc %.3f", it.TeamAccuracy)
		}
		r.progress("rl", r.iter, total, desc)
	}
	r.res.RLTime = time.Since(start)
	return r.finish(ctx)
}

func (r *runner) logStep(s trainer.StepInfo) {
	line := StepLine{Step: s.Step, Iter: r.iter, Metrics: s.Metrics}
	if s.Skipped != nil {
		line.Skipped = s.Skipped.Error()
		r.log.Warn("step skipped", "step", s.Step, "err", s.Skipped)
	}
	if err := r.metrics.add(line); err != nil && r.stepErr == nil {
		r.stepErr = err
	}
}

// stepMetrics are a step's metrics by name, plus extra, for a checkpoint
// header; step_time is left out, as wall time would make the bytes of two
// identical runs differ, and so is advantages/nonzero (metrics.jsonl's,
// added after checkpoints' bytes were fixed: a header keeps its keys).
func stepMetrics(m trainer.Metrics, extra map[string]float64) map[string]float64 {
	out := map[string]float64{}
	names := trainer.MetricNames()
	for i, v := range m.AppendValues(nil) {
		if names[i] != "step_time" && names[i] != "advantages/nonzero" {
			out[names[i]] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// position is where the run stands now.
func (r *runner) position() Position {
	c := &r.cfg
	metric, higher, _ := c.bestMetric(c.Data != nil)
	if !higher {
		metric = "-" + metric
	}
	p := Position{Mode: r.mode(), Iter: r.iter, Options: &Options{
		EvalTasks: c.EvalTasks, Keep: c.Keep, BestMetric: metric, SkipInvalid: c.SkipInvalid,
	}}
	if every := c.metricsEvery(); every != c.defaultMetricsEvery() {
		p.Options.MetricsEvery = every
	}
	if c.Data != nil {
		p.Data = c.DataID
		p.Options.FeatureWidth = c.width()
	} else {
		p.Env, p.HeldOut, p.SplitSeed, p.EnvID = c.EnvName, c.HeldOut, c.SplitSeed, c.envID
	}
	return p
}

// save writes a checkpoint (in a run directory): after the supervised
// stage (step 0, so that a resume does not redo it) and after every
// completed iteration.
func (r *runner) save(metrics map[string]float64) error {
	if r.stepErr != nil {
		return r.stepErr
	}
	if r.mgr == nil {
		r.metrics.mark()
		return nil
	}
	train, err := json.Marshal(r.cfg.Train)
	if err != nil {
		return fmt.Errorf("run: config: %w", err)
	}
	pos, err := json.Marshal(r.position())
	if err != nil {
		return fmt.Errorf("run: data position: %w", err)
	}
	rng, err := r.rl.RNGState()
	if err != nil {
		return err
	}
	st := r.rl.Stepper()
	ck := &checkpoints.Checkpoint{
		Header: checkpoints.Header{
			FeatureVersion: r.cfg.featureVersion(), Step: r.rl.Steps, Seed: r.cfg.Train.Seed,
			Metrics: metrics, Train: train, DataPos: pos, Run: r.id, ConfigSHA256: configSHA256(train),
		},
		Policy: st.Policy(), Reference: st.Reference(), Adam: st.Adam(), RNG: rng,
	}
	if keys := r.rl.NetKeys(); keys != nil {
		ck.NetKeys, ck.Nets = keys, st.Nets()
	}
	path, err := r.mgr.Save(ck)
	if path != "" {
		r.saved = true // written, even if retention failed after
	}
	if err == nil {
		r.metrics.mark()
	}
	return err
}

// finish records the totals and writes the curve and the exported weights
// (those of best.mpdf). A stop while the curve is drawn leaves curve.png
// as it was; the checkpoints hold the whole run.
func (r *runner) finish(ctx context.Context) error {
	r.res.Iterations, r.res.Steps, r.res.Skipped = r.iter, r.rl.Steps, r.rl.Skipped
	r.res.Shares = r.metrics.shares()
	r.res.HeldOut = r.metrics.heldOut
	if r.cfg.Dir == "" {
		return nil
	}
	r.res.Files = append(r.res.Files, "checkpoints", MetricsName)
	if r.metrics.curve.Len() > 0 {
		r.progress("curve", 0, 1, "drawing "+CurveName)
		if err := writeCurve(ctx, filepath.Join(r.cfg.Dir, CurveName), r.metrics.curve.Curves()); err != nil {
			if ctx.Err() != nil {
				return r.stopped(ctx)
			}
			return fmt.Errorf("run: %s: %w", CurveName, err)
		}
		r.progress("curve", 1, 1, "drew "+CurveName)
		r.res.Files = append(r.res.Files, CurveName)
	}
	// best.mpdf's weights (export.go); written whenever best.mpdf was,
	// checked once more here.
	if err := syncWeights(r.cfg.Dir); err != nil {
		return err
	}
	r.res.Files = append(r.res.Files, WeightsName)
	return nil
}
