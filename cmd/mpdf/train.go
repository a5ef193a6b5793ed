package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

func init() { register(newTrainCmd) }

// trainOpts are the flags of train that are not part of the stored config.
type trainOpts struct {
	config    string
	out       string
	resume    bool
	init      string
	keep      int
	quiet     bool
	evalTasks int
	skipBad   bool
	threads   int
	env       string
	heldOut   float64
	splitSeed uint64
	best      string
}

func newTrainCmd() *cobra.Command {
	cfg := trainer.DefaultConfig()
	o := trainOpts{out: "runs/mpdf", keep: 3, evalTasks: 500, env: "sim", heldOut: 0.3}
	cmd := &cobra.Command{
		Use:   "train [rollouts...]",
		Short: "Train a meta-policy: supervised bootstrap, then SoftRankPO fine-tuning",
		Long: `Train a meta-policy in two stages (SPEC §4): a supervised stage that clones
labelled decisions, then SoftRankPO fine-tuning with the supervised policy
frozen as the KL reference.

With no rollouts, train runs online on the embedded simulator (or, with
--env replay:FILES, on recorded transcripts, holding out --held-out of the
questions for the final evaluation): it clones the --sft-labels heuristic,
then alternates play (current policy) → reward → update for --iterations
iterations. With rollout files (JSONL episodes or
decisions, .gz/.zst, globs) or a packed directory, it trains offline on them,
using the behaviour log-probabilities they carry.

Configuration: defaults < --config FILE.json < flags. The resolved config is
printed at start and stored in every checkpoint; --resume continues the run
in --out from its latest checkpoint with that stored config (flags given
again still win) and gives the same weights as a run never interrupted. Writes to --out:
checkpoints (ckpt-*.mpdf, best.mpdf), metrics.jsonl, curve.png and
policy.safetensors, and ends with an evaluation table of the trained policy
against the heuristic baselines (online mode).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			base := trainer.DefaultConfig()
			var resumed *checkpoints.Checkpoint
			if o.resume {
				path, err := checkpoints.Latest(o.out)
				if err != nil {
					return fmt.Errorf("--resume: %w", err)
				}
				if resumed, err = checkpoints.Load(path, checkpoints.WithFeatureVersion(metapolicy.FeatureVersion)); err != nil {
					return fmt.Errorf("--resume: %w", err)
				}
				// The run goes on with its own config and environment; flags
				// given now still win.
				if err := json.Unmarshal(resumed.Header.Train, &base); err != nil {
					return fmt.Errorf("--resume: %s: stored config: %w", path, err)
				}
				var pos dataPos
				if err := json.Unmarshal(resumed.Header.DataPos, &pos); err != nil {
					return fmt.Errorf("--resume: %s: data position: %w", path, err)
				}
				fl := cmd.Flags()
				if pos.Env != "" && !fl.Changed("env") {
					o.env = pos.Env
				}
				if pos.Env != "" && !fl.Changed("held-out") {
					o.heldOut = pos.HeldOut
				}
				if pos.Env != "" && !fl.Changed("split-seed") {
					o.splitSeed = pos.SplitSeed
				}
				fmt.Fprintf(cmd.OutOrStdout(), "resuming from %s (step %d)\n", path, resumed.Header.Step)
			}
			c, err := resolveConfig(base, o.config, cmd.Flags())
			if err != nil {
				return err
			}
			return runTrain(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, o, args, resumed)
		},
	}
	bindConfig(cmd.Flags(), &cfg)
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "JSON config file (flags win over it)")
	f.StringVarP(&o.out, "out", "o", o.out, "output directory")
	f.BoolVar(&o.resume, "resume", false, "continue the run in --out from its latest checkpoint and stored config")
	f.StringVar(&o.init, "init", "", "start from these weights (.safetensors or .mpdf) instead of a fresh network")
	f.IntVar(&o.keep, "keep", o.keep, "checkpoints to keep (plus best.mpdf)")
	f.StringVar(&o.best, "best-metric", "", "metric that picks best.mpdf: a metrics.jsonl name, or team_accuracy/tokens_per_episode (online); prefix - for lower is better (default team_accuracy online, -loss offline)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	f.IntVar(&o.evalTasks, "eval-tasks", o.evalTasks, "held-out simulator tasks in the final evaluation (0 skips it)")
	f.BoolVar(&o.skipBad, "skip-bad", false, "offline: skip rejected records (reported and counted) instead of stopping")
	f.IntVar(&o.threads, "threads", 0, "kernel threads (0: all cores)")
	f.StringVar(&o.env, "env", o.env, "online environment: sim (the built-in simulator) or replay:GLOB[,GLOB] (LLM-Debate transcripts)")
	f.Float64Var(&o.heldOut, "held-out", o.heldOut, "replay: share of questions held out of training for the final evaluation")
	f.Uint64Var(&o.splitSeed, "split-seed", 0, "replay: seed of the train/held-out split (eval --split uses the same)")
	return cmd
}

// dataPos is where a run stands, stored in checkpoints for --resume.
type dataPos struct {
	Mode string `json:"mode"` // online or offline
	Iter int    `json:"iter"` // iterations (or passes) completed
	// Online: the environment and, for a replay, its split.
	Env       string  `json:"env,omitempty"`
	HeldOut   float64 `json:"held_out,omitempty"`
	SplitSeed uint64  `json:"split_seed,omitempty"`
}

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
	for _, name := range metapolicy.HeuristicNames() {
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
