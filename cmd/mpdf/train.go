package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/trainer/teacher"
)

func init() { register(newTrainCmd) }

// trainOpts are the flags of train that are not part of the stored config.
type trainOpts struct {
	config       string
	out          string
	resume       bool
	overwrite    bool
	otherData    bool
	init         string
	keep         int
	quiet        bool
	evalTasks    int
	skipBad      bool
	threads      int
	env          string
	heldOut      float64
	splitSeed    uint64
	best         string
	featureWidth int
	single       bool
}

func newTrainCmd() *cobra.Command {
	cfg := trainer.DefaultConfig()
	o := trainOpts{out: "runs/mpdf", keep: 3, evalTasks: 500, env: "sim", heldOut: 0.3}
	cmd := &cobra.Command{
		Use:   "train [rollouts...]",
		Short: "Train a meta-policy: supervised bootstrap, then SoftRankPO fine-tuning",
		Long: `Train a meta-policy in two stages (design §4): a supervised stage that clones
labelled decisions, then SoftRankPO fine-tuning with the supervised policy
frozen as the KL reference.

With no rollouts, train runs online on the embedded simulator (or, with
--env replay:FILES, on recorded transcripts, holding out --held-out of the
questions for the final evaluation; the spec's kind= and layout= parts say
how to read files whose names or shapes mislead, critic=on fills the
confidence from each answer's text, and --resume reopens the same spec): it clones the --sft-labels heuristic,
then alternates play (current policy) → reward → update for --iterations
iterations. With rollout files (JSONL episodes or
decisions, .gz/.zst, globs) or a packed directory, it trains offline on them,
using the behaviour log-probabilities they carry.

Configuration: defaults < --config FILE.json < flags. The resolved config is
printed at start and stored in every checkpoint. The defaults depend on the
environment: on the simulator and offline they are the ones shown below; on
--env replay:FILES they are the recipe that holds on real transcripts,
cross-validated and on held-out models: --sft-labels pivotal:gate --sft-epochs 20 --features
mpdf-features/v2, the verdict judging the greedy policy (train says so on
stderr; flags given still win). A teacher that cannot label the transcripts
(no gold answer, no deliberation round) is skipped, and train says so on
stderr and in eval.json's notes.

The run directory --out belongs to one run: a fresh run refuses a directory
that holds files (give --resume, a new --out, or --overwrite), and one
process writes it at a time (run.lock names the holder; a lock left by a
killed run is taken over). Its checkpoints name the run (run.json says
which), and a checkpoint of another run found there is refused by name,
never resumed or pruned. An offline run reads all of its input once before
--out is touched, and a fresh run that fails before its first checkpoint
removes what it wrote. --resume continues the run in --out from its
latest checkpoint with its stored config, data and options (--eval-tasks,
--keep, --best-metric, ...; flags given again win) and gives the same
weights and the same metrics.jsonl as a run never interrupted. An offline
run resumes on its own data: without rollout arguments it reads the paths
it was started with, and other data is refused unless --allow-other-data.
Offline data from one deterministic behaviour (every decision the same
action, or episodes imported from transcripts by mpdf import) is refused:
trained on, it teaches only that behaviour; train on the transcripts with
--env replay:FILES instead (--allow-single-behaviour overrides).
SIGINT or SIGTERM stops the run at the next iteration (or chunk); the last
checkpoint is kept for --resume.

Writes to --out: checkpoints (ckpt-*.mpdf, best.mpdf), metrics.jsonl,
curve.png and policy.safetensors (best.mpdf's weights, its step and SHA-256
in the metadata: for PyTorch, mpdf.torch.load), and ends with an evaluation
table of the trained policy against the heuristic baselines (online mode), then
a verdict: the learned policy (greedy on a replay) against majority, debate,
gate, until-consensus (and threshold where agents state a confidence) with
paired 95% intervals by task, the points on the accuracy–tokens frontier
marked, and one sentence on what to use. eval.json holds the same (results,
verdict, notes).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrain(cmd, o, args)
		},
	}
	bindConfig(cmd.Flags(), &cfg)
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "JSON config file (flags win over it)")
	f.StringVarP(&o.out, "out", "o", o.out, "run directory")
	f.BoolVar(&o.resume, "resume", false, "continue the run in --out from its latest checkpoint, stored config and options")
	f.BoolVar(&o.overwrite, "overwrite", false, "start afresh in an --out that holds another run, removing that run's files")
	f.BoolVar(&o.otherData, "allow-other-data", false, "--resume an offline run on data other than it trained on")
	f.StringVar(&o.init, "init", "", "start from these weights (.safetensors or .mpdf) instead of a fresh network")
	f.IntVar(&o.keep, "keep", o.keep, "step checkpoints to keep besides best.mpdf (0: all)")
	f.StringVar(&o.best, "best-metric", "", "metric that picks best.mpdf: a metrics.jsonl name, or team_accuracy/tokens_per_episode (online); prefix - for lower is better (default team_accuracy online, -loss offline)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	f.IntVar(&o.evalTasks, "eval-tasks", o.evalTasks, "held-out tasks in the final evaluation (0 skips it)")
	f.BoolVar(&o.skipBad, "skip-invalid", false, "offline: skip rejected records (reported and counted) instead of stopping")
	f.IntVar(&o.threads, "threads", 0, "kernel threads (0: all cores)")
	f.IntVar(&o.featureWidth, "feature-width", 0, "offline: features per decision record, for your own encoding (0: a pack's, else the built-in 26)")
	f.BoolVar(&o.single, "allow-single-behaviour", false, "offline: train on rollouts of one deterministic behaviour (every decision the same action, or imported transcripts), which are refused otherwise")
	f.StringVar(&o.env, "env", o.env, "online environment: sim (the built-in simulator) or "+replaySyntax+" (debate transcripts; see mpdf eval -h)")
	f.Float64Var(&o.heldOut, "held-out", o.heldOut, "replay: share of questions held out of training for the final evaluation")
	f.Uint64Var(&o.splitSeed, "split-seed", 0, "replay: seed of the train/held-out split (mpdf eval --split uses the same)")
	addEnvKindFlag(cmd, &o.env) // envflags.go
	addEnvCriticFlag(cmd, &o.env)
	return cmd
}

// runTrain wires the flags into a run.Config, runs it and prints.
func runTrain(cmd *cobra.Command, o trainOpts, args []string) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	fl := cmd.Flags()
	for _, c := range []struct {
		name string
		v    int
	}{{"keep", o.keep}, {"threads", o.threads}, {"eval-tasks", o.evalTasks}, {"feature-width", o.featureWidth}} {
		if c.v < 0 {
			return fmt.Errorf("--%s %d: want ≥ 0", c.name, c.v)
		}
	}
	if o.overwrite && o.resume {
		return fmt.Errorf("--overwrite and --resume: give one or the other")
	}
	// The defaults are the recipe of the environment trained in: on a
	// replay, trainer.DefaultRecipe(RecipeReplay) (docs/results.md, 2026-12-01); on the
	// simulator and offline, trainer's defaults. Flags given still win.
	kind := trainer.RecipeSim
	if len(args) == 0 && strings.HasPrefix(o.env, replay.SpecPrefix) {
		kind = trainer.RecipeReplay
	}
	recipe, err := trainer.DefaultRecipe(kind)
	if err != nil {
		return err
	}
	base := recipe.Train
	var rs *run.Resumable
	if o.resume {
		var err error
		if rs, err = run.Latest(o.out); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		// The run goes on with its own config, data, environment and
		// options; flags given now still win, except that the run refuses
		// another replay split or other tasks (run.Config's check).
		base = rs.Config
		pos := rs.Position
		keep := func(name string) bool { return !fl.Changed(name) }
		if pos.Mode == "online" {
			if len(args) > 0 {
				return fmt.Errorf("--resume: %s is an online run (%s); it cannot go on offline on %v", rs.Path, pos.Env, args)
			}
			if pos.Env != "" && keep("env") {
				o.env = pos.Env
			}
			if pos.Env != "" && keep("held-out") {
				o.heldOut = pos.HeldOut
			}
			if pos.Env != "" && keep("split-seed") {
				o.splitSeed = pos.SplitSeed
			}
		}
		if pos.Mode == "offline" && len(args) == 0 {
			if pos.Data == nil {
				return fmt.Errorf("--resume: %s is an offline run of an older build that did not record its data: give the rollouts again", rs.Path)
			}
			args = pos.Data.Paths
		}
		if p := pos.Options; p != nil {
			if keep("eval-tasks") {
				o.evalTasks = p.EvalTasks
			}
			if keep("keep") {
				o.keep = p.Keep
			}
			if keep("best-metric") {
				o.best = p.BestMetric
			}
			if keep("skip-invalid") {
				o.skipBad = p.SkipInvalid
			}
			if keep("feature-width") && pos.Mode == "offline" {
				o.featureWidth = p.FeatureWidth
			}
		}
		fmt.Fprintf(stdout, "resuming from %s (step %d)\n", rs.Path, rs.Checkpoint.Header.Step)
		if len(args) == 0 && strings.HasPrefix(o.env, replay.SpecPrefix) { // the run's own env, now known
			kind = trainer.RecipeReplay
			if recipe, err = trainer.DefaultRecipe(kind); err != nil {
				return err
			}
		}
	}
	c, err := resolveConfig(base, o.config, fl)
	if err != nil {
		return err
	}
	var notes []string
	if rs == nil && kind == trainer.RecipeReplay {
		note := "defaults for transcripts (the recipe that holds up in mpdf study and on held-out models): " + recipe.Summary
		if given := givenRecipeFlags(fl); len(given) > 0 {
			note += "; given: --" + strings.Join(given, ", --")
		}
		fmt.Fprintln(stderr, "train: "+note)
		notes = append(notes, note)
	}
	if _, _, err := run.ParseBestMetric(o.best, len(args) > 0); err != nil {
		return fmt.Errorf("--best-metric: %w", err)
	}
	rc := run.Config{
		Train: c, Dir: o.out, Resume: rs, Overwrite: o.overwrite, Keep: o.keep, BestMetric: o.best,
		Threads: o.threads, EvalTasks: o.evalTasks, SkipInvalid: o.skipBad, AllowOtherData: o.otherData,
		FeatureWidth: o.featureWidth, Greedy: kind == trainer.RecipeReplay && recipe.Greedy, Notes: notes,
	}
	if o.init != "" {
		if rs != nil {
			return fmt.Errorf("--init and --resume: a resumed run goes on from its checkpoint")
		}
		if rc.Init, err = loadNetwork(o.init, c.Features); err != nil {
			return fmt.Errorf("--init: %w", err)
		}
	}
	if len(args) > 0 {
		if o.env != "sim" || fl.Changed("env") {
			return fmt.Errorf("--env %s: rollout files train offline; --env chooses the online environment (give one or the other)", o.env)
		}
		d, err := run.CheckData(args, o.featureWidth)
		if err != nil {
			return err
		}
		if rs == nil && !o.single {
			if err := run.CheckBehaviour(args); err != nil {
				return fmt.Errorf("%w. Train on the transcripts online instead, with --env 'replay:FILES' (the replay plays every action), or give --allow-single-behaviour to train on these rollouts anyway", err)
			}
		}
		rc.Data = &trainer.Dataset{Paths: args, Skip: o.skipBad, Reward: c.Reward, Log: stderr, Width: d.Width}
		rc.DataID, rc.FeatureWidth, rc.FeatureVersion = d.ID, d.Width, d.FeatureVersion
	} else {
		if fl.Changed("feature-width") && o.featureWidth != 0 {
			return fmt.Errorf("--feature-width: online runs use the environment's features")
		}
		if rc.Env, rc.HeldOutEnv, err = trainEnvs(stdout, stderr, o, &rc.Train); err != nil {
			return err
		}
		if rs == nil {
			var note string
			if rc.Train, note, err = teacher.Fallback(rc.Env, rc.Train); err != nil {
				return err
			}
			if note != "" {
				fmt.Fprintln(stderr, "train: "+note)
				rc.Notes = append(rc.Notes, note)
			}
		}
		if teacher.Handles(rc.Train.SFT.Labels) {
			if rc.Teacher, err = teacher.RunTeacher(rc.Train); err != nil {
				return fmt.Errorf("--sft-labels: %w", err)
			}
		}
		rc.EnvName, rc.HeldOut, rc.SplitSeed = o.env, o.heldOut, o.splitSeed
	}

	p := &trainPrinter{stdout: stdout, quiet: o.quiet}
	logOpts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	hooks := run.Hooks{
		Logger:   slog.New(slog.NewTextHandler(stderr, logOpts)),
		Start:    p.start,
		Progress: p.progress,
		SFT:      p.sft,
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.Run(ctx, rc, hooks)
	p.endBar(err == nil)
	switch {
	case errors.Is(err, run.ErrNotEmpty):
		return fmt.Errorf("--out: %w: --resume continues that run, a new --out starts another, --overwrite replaces it", err)
	case err != nil:
		return err
	}
	return p.result(res, o, c.Seed)
}

// givenRecipeFlags lists the flags given that a recipe sets.
func givenRecipeFlags(fl *pflag.FlagSet) []string {
	var out []string
	for _, name := range []string{"config", "sft-labels", "sft-epochs", "features"} {
		if fl.Changed(name) {
			out = append(out, name)
		}
	}
	return out
}

// trainEnvs opens the online environments: one to train in, one to
// evaluate on tasks never trained on. The simulator's evaluation tasks
// come from another seed; a replay splits its questions by --held-out and
// --split-seed, as `mpdf eval --split` does, and sets the rounds to the
// recording's.
func trainEnvs(stdout, stderr io.Writer, o trainOpts, c *trainer.Config) (train, held env.Env, err error) {
	if o.env == "sim" || o.env == "simulator" {
		if train, err = env.NewSimulator(env.SimConfig{Seed: c.Seed}); err != nil {
			return nil, nil, err
		}
		held, err = env.NewSimulator(env.SimConfig{Seed: c.Seed + 1_000_003})
		return train, held, err
	}
	e, rounds, err := openEvalEnv(stderr, o.env, "", false, env.SimConfig{}, o.quiet)
	if err != nil {
		return nil, nil, err
	}
	re, ok := e.(*replay.Env)
	if !ok {
		return nil, nil, fmt.Errorf("--env %s: want sim or %s", o.env, replaySyntax)
	}
	trainIdx, testIdx, err := re.Split(o.heldOut, o.splitSeed)
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
	if c.RL.Rounds != rounds {
		fmt.Fprintf(stdout, "replay: %d deliberation rounds recorded; rl.rounds set to %d\n", rounds, rounds)
		c.RL.Rounds = rounds
	}
	fmt.Fprintf(stdout, "replay: %d questions for training, %d held out\n", tr.NumTasks(), te.NumTasks())
	return tr, te, nil
}

// trainPrinter prints a run's progress and summaries.
type trainPrinter struct {
	stdout io.Writer
	quiet  bool
	bar    *bar
	stage  string
}

func (p *trainPrinter) start(s run.Start) {
	resolved, _ := json.MarshalIndent(s.Config, "", "  ")
	fmt.Fprintf(p.stdout, "mpdf train: resolved config\n%s\n", resolved)
}

func (p *trainPrinter) progress(g run.Progress) {
	if g.Stage != p.stage {
		p.endBar(true)
		p.stage, p.bar = g.Stage, newBar(g.Total, g.Stage, p.quiet)
	}
	p.bar.Describe(g.Desc)
	p.bar.Set(g.Done)
}

// endBar finishes the current bar, or leaves it where it stands.
func (p *trainPrinter) endBar(ok bool) {
	if p.bar == nil {
		return
	}
	if ok {
		p.bar.Finish()
	} else {
		p.bar.Exit()
	}
	p.bar, p.stage = nil, ""
}

func (p *trainPrinter) sft(r run.SFTResult) {
	p.endBar(true)
	if r.Skipped && r.Reason != "" {
		fmt.Fprintln(p.stdout, "supervised stage: skipped: "+r.Reason)
		return
	}
	if r.Skipped {
		fmt.Fprintln(p.stdout, "supervised stage: skipped (--sft-epochs 0)")
		return
	}
	fmt.Fprintf(p.stdout, "supervised stage: %d decisions (%s), %d epochs, %d steps, cross-entropy %.4f → %.4f, agreement %.1f%%\n",
		r.Rows, r.What, r.Epochs, r.Steps, r.FirstLoss, r.Loss, 100*r.Agreement)
}

func (p *trainPrinter) result(res *run.Result, o trainOpts, seed uint64) error {
	unit := "iterations"
	if res.Mode == "offline" {
		unit = "passes"
	}
	fmt.Fprintf(p.stdout, "RL: %d %s, %d steps (%d skipped) in %s\n", res.Iterations, unit, res.Steps, res.Skipped, res.RLTime.Round(time.Millisecond))
	if a := res.Shares; a != nil && res.Mode == "online" {
		fmt.Fprintf(p.stdout, "actions sampled, first → last fifth of RL: persist %.1f%% → %.1f%%, refine %.1f%% → %.1f%%, concede %.1f%% → %.1f%%\n",
			100*a.First[0], 100*a.Last[0], 100*a.First[1], 100*a.Last[1], 100*a.First[2], 100*a.Last[2])
	}
	fmt.Fprintf(p.stdout, "wrote %s: %s\n", o.out, strings.Join(res.Files, ", "))
	if res.Eval == nil {
		return nil
	}
	fmt.Fprintf(p.stdout, "\nevaluation on %d held-out tasks of %s (seed %d):\n", res.EvalTasks, o.env, seed)
	if err := res.Eval.WriteTable(p.stdout); err != nil {
		return err
	}
	if res.Verdict == nil {
		return nil
	}
	fmt.Fprintln(p.stdout)
	return res.Verdict.WriteTable(p.stdout)
}
