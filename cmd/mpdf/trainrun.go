package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// run is the state of one training run.
type run struct {
	cfg     trainer.Config
	o       trainOpts
	stdout  io.Writer
	stderr  io.Writer
	policy  *nn.MLP[float32]
	backend trainer.Backend
	rl      *trainer.RL
	mgr     *checkpoints.Manager
	metrics *os.File
	curve   curve
	iter    int // completed iterations

	sftMetrics map[string]float64 // of the supervised stage, when it ran
}

func runTrain(stdout, stderr io.Writer, cfg trainer.Config, o trainOpts, args []string, resumed *checkpoints.Checkpoint) error {
	if len(args) > 0 && o.env != "sim" {
		return fmt.Errorf("--env %s: rollout files train offline; --env chooses the online environment (give one or the other)", o.env)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	r := &run{cfg: cfg, o: o, stdout: stdout, stderr: stderr}
	best := o.best
	switch {
	case best != "":
	case len(args) > 0:
		best = "-loss" // offline rewards are the data's, the same every pass
	default:
		best = "team_accuracy"
	}
	metric := strings.TrimPrefix(best, "-")
	known := slices.Contains(trainer.MetricNames(), metric) || metric == "sft_loss" || metric == "sft_agreement" ||
		(len(args) == 0 && (metric == "team_accuracy" || metric == "tokens_per_episode"))
	if !known || metric == "step_time" {
		return fmt.Errorf("--best-metric %q: not a metric this run records", best)
	}
	r.mgr = &checkpoints.Manager{Dir: o.out, KeepLast: o.keep, BestMetric: metric, HigherIsBetter: !strings.HasPrefix(best, "-")}

	if err := r.buildPolicy(resumed); err != nil {
		return err
	}
	// Printed once the network is known: --init and --resume fix its shape.
	resolved, _ := json.MarshalIndent(r.cfg, "", "  ")
	fmt.Fprintf(stdout, "mpdf train: resolved config\n%s\n", resolved)
	backend, closeBackend, err := newBackend(&r.cfg, r.policy, o.threads)
	if err != nil {
		return err
	}
	defer closeBackend()
	r.backend = backend

	mf, err := os.OpenFile(filepath.Join(o.out, "metrics.jsonl"), os.O_CREATE|os.O_WRONLY|appendOrTrunc(o.resume), 0o644)
	if err != nil {
		return err
	}
	defer mf.Close()
	r.metrics = mf

	if len(args) > 0 {
		return r.offline(args, resumed)
	}
	return r.online(resumed)
}

func appendOrTrunc(resume bool) int {
	if resume {
		return os.O_APPEND
	}
	return os.O_TRUNC
}

// buildPolicy makes the network: from a checkpoint being resumed, from
// --init weights, or freshly initialised from the seed.
func (r *run) buildPolicy(resumed *checkpoints.Checkpoint) error {
	switch {
	case resumed != nil:
		r.policy = resumed.Policy
	case r.o.init != "":
		m, err := loadWeights(r.o.init)
		if err != nil {
			return fmt.Errorf("--init: %w", err)
		}
		r.policy = m
	default:
		m, err := trainer.NewPolicy(&r.cfg, metapolicy.FeatureWidth)
		if err != nil {
			return err
		}
		r.policy = m
	}
	if r.policy.In() != metapolicy.FeatureWidth || r.policy.Out() != nn.NumActions {
		return fmt.Errorf("network maps %d → %d, want %d features (%s) → %d actions",
			r.policy.In(), r.policy.Out(), metapolicy.FeatureWidth, metapolicy.FeatureVersion, nn.NumActions)
	}
	// The network's shape wins over the flags: record what is trained.
	r.cfg.Hidden = append([]int(nil), r.policy.Sizes[1:len(r.policy.Sizes)-1]...)
	r.cfg.Activation = r.policy.Act.String()
	return nil
}

// loadWeights reads a policy network from safetensors or a checkpoint.
func loadWeights(path string) (*nn.MLP[float32], error) {
	if filepath.Ext(path) == ".safetensors" {
		m, _, err := checkpoints.LoadSafetensors(path, checkpoints.WithFeatureVersion(metapolicy.FeatureVersion))
		return m, err
	}
	c, err := checkpoints.Load(path, checkpoints.WithFeatureVersion(metapolicy.FeatureVersion))
	if err != nil {
		return nil, err
	}
	return c.Policy, nil
}

// newBackend builds the configured loss-and-gradient backend.
func newBackend(cfg *trainer.Config, m *nn.MLP[float32], threads int) (trainer.Backend, func(), error) {
	if cfg.Backend == "gorgonia" {
		e, err := autodiff.New[float32](m.Sizes, m.Act, cfg.Loss)
		if err != nil {
			return nil, nil, err
		}
		return e, func() { e.Close() }, nil
	}
	k, err := trainer.NewKernelBackend(m.Sizes, m.Act, cfg.Loss, threads)
	if err != nil {
		return nil, nil, err
	}
	return k, k.Close, nil
}

// sft runs the supervised stage: epochs over the labelled rows that each
// call of pass delivers (all at once, or chunk by chunk), then reports how
// well the policy agrees with the labels of the last chunk.
func (r *run) sft(what string, pass func(each func(x []float32, actions []uint8) error) error) error {
	if r.cfg.SFT.Epochs == 0 {
		fmt.Fprintln(r.stdout, "supervised stage: skipped (--sft-epochs 0)")
		return nil
	}
	r.sftMetrics = map[string]float64{}
	s, err := trainer.NewSFT(r.backend, r.policy, r.cfg.SFT, r.cfg.Adam, r.cfg.Seed)
	if err != nil {
		return err
	}
	bar := newBar(r.cfg.SFT.Epochs, "sft", r.o.quiet)
	var first, last, agree float64
	rows := 0
	for ep := 0; ep < r.cfg.SFT.Epochs; ep++ {
		sum, n := 0.0, 0
		err := pass(func(x []float32, actions []uint8) error {
			loss, err := s.Epoch(x, actions)
			sum += loss * float64(len(actions))
			n += len(actions)
			if ep == r.cfg.SFT.Epochs-1 {
				agree = trainer.Agreement(r.policy, x, actions)
			}
			return err
		})
		if err != nil {
			bar.Exit()
			return err
		}
		if n == 0 {
			bar.Exit()
			return errNoData
		}
		last, rows = sum/float64(n), n
		if ep == 0 {
			first = last
		}
		bar.Describe(fmt.Sprintf("sft loss %.4f", last))
		bar.Add(1)
	}
	bar.Finish()
	r.sftMetrics = map[string]float64{"sft_loss": last, "sft_agreement": agree}
	fmt.Fprintf(r.stdout, "supervised stage: %d decisions (%s), %d epochs, %d steps, cross-entropy %.4f → %.4f, agreement %.1f%%\n",
		rows, what, r.cfg.SFT.Epochs, s.Steps, first, last, 100*agree)
	return nil
}

// startRL freezes the reference and builds the RL loop, restoring the
// optimiser, step count and random state when resuming; a fresh run saves
// its step-0 checkpoint (the supervised policy), so that --resume never
// redoes the supervised stage.
func (r *run) startRL(mode string, resumed *checkpoints.Checkpoint) error {
	ref := r.policy.Clone()
	if resumed != nil && resumed.Reference != nil {
		ref = resumed.Reference
	}
	rl, err := trainer.NewRL(r.backend, r.policy, ref, r.cfg)
	if err != nil {
		return err
	}
	if resumed != nil {
		var pos dataPos
		if err := json.Unmarshal(resumed.Header.DataPos, &pos); err != nil {
			return fmt.Errorf("--resume: data position: %w", err)
		}
		r.iter = pos.Iter
		rl.Steps = resumed.Header.Step
		if a := resumed.Adam; a != nil {
			st := rl.Stepper().Adam()
			copy(st.M, a.M)
			copy(st.V, a.V)
			st.Step = a.Step
		}
		if resumed.RNG != nil {
			if err := rl.SetRNGState(resumed.RNG); err != nil {
				return fmt.Errorf("--resume: rng state: %w", err)
			}
		}
	}
	r.rl = rl
	rl.OnStep = r.logStep
	if resumed == nil {
		return r.save(mode, r.sftMetrics)
	}
	return nil
}

// stepLine is one line of metrics.jsonl.
type stepLine struct {
	Step    int64  `json:"step"`
	Iter    int    `json:"iter"`
	Skipped string `json:"skipped,omitempty"`
	trainer.Metrics
}

func (r *run) logStep(s trainer.StepInfo) {
	line := stepLine{Step: s.Step, Iter: r.iter, Metrics: s.Metrics}
	if s.Skipped != nil {
		line.Skipped = s.Skipped.Error()
		fmt.Fprintf(r.stderr, "step %d skipped: %v\n", s.Step, s.Skipped)
	} else {
		m := &s.Metrics
		r.curve.add(s.Step, m.Reward, m.KL, m.Entropy, m.ActPersist, m.ActRefine, m.ActConcede)
	}
	b, _ := json.Marshal(line)
	r.metrics.Write(append(b, '\n'))
}

// stepMetrics are a step's metrics by name, plus extra, for a checkpoint
// header; step_time is left out, as wall time would make the bytes of two
// identical runs differ.
func stepMetrics(m trainer.Metrics, extra map[string]float64) map[string]float64 {
	out := map[string]float64{}
	names := trainer.MetricNames()
	for i, v := range m.AppendValues(nil) {
		if names[i] != "step_time" {
			out[names[i]] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// save writes a checkpoint: after the supervised stage (step 0, so that
// --resume does not redo it) and after every completed iteration.
func (r *run) save(mode string, metrics map[string]float64) error {
	train, _ := json.Marshal(r.cfg)
	p := dataPos{Mode: mode, Iter: r.iter}
	if mode == "online" {
		p.Env, p.HeldOut, p.SplitSeed = r.o.env, r.o.heldOut, r.o.splitSeed
	}
	pos, _ := json.Marshal(p)
	rng, err := r.rl.RNGState()
	if err != nil {
		return err
	}
	st := r.rl.Stepper()
	_, err = r.mgr.Save(&checkpoints.Checkpoint{
		Header: checkpoints.Header{
			FeatureVersion: metapolicy.FeatureVersion, Step: r.rl.Steps, Seed: r.cfg.Seed,
			Metrics: metrics, Train: train, DataPos: pos,
		},
		Policy: st.Policy(), Reference: st.Reference(), Adam: st.Adam(), RNG: rng,
	})
	return err
}

// finish writes the curve and the exported weights.
func (r *run) finish() error {
	if len(r.curve.step) > 0 {
		if err := r.curve.writePNG(filepath.Join(r.o.out, "curve.png")); err != nil {
			return fmt.Errorf("curve.png: %w", err)
		}
	}
	meta := map[string]string{"activation": r.policy.Act.String(), "feature_version": metapolicy.FeatureVersion}
	if err := checkpoints.SaveSafetensors(filepath.Join(r.o.out, "policy.safetensors"), r.policy, meta); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "wrote %s: checkpoints, metrics.jsonl, curve.png, policy.safetensors\n", r.o.out)
	return nil
}
