package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/trainer/teacher"
	"github.com/mpdf/mpdf/view"
)

func init() { register[trainFlags]("train [rollouts...]", nil) }

// trainFlags are the flags of train that are not part of the stored
// config; set holds those a resume keeps (run.Setting).
type trainFlags struct {
	set                                 run.Setting
	configFile, out, init, recipe       string
	resume, overwrite, otherData, quiet bool
	threads                             int
	single                              bool
}

// Add defines the flags on cmd: the config's (bindConfig, whose defaults
// the help shows; run.BaseOf resolves the config), and the others.
func (fl *trainFlags) Add(cmd *cobra.Command) {
	f, cfg := cmd.Flags(), trainer.DefaultConfig()
	bindConfig(f, &cfg)
	f.StringVar(&fl.configFile, "config", "", "JSON config file (flags win over it)")
	shared(f, &fl.out, "out", "o", ": the run directory")
	shared(f, &fl.resume, "resume", "", ": from its latest checkpoint, stored config and options")
	shared(f, &fl.overwrite, "overwrite", "", ", removing that run's files")
	f.BoolVar(&fl.otherData, "allow-other-data", false, "--resume an offline run on data other than it trained on")
	shared(f, &fl.recipe, "recipe", "", trainRecipeUsage)
	f.StringVar(&fl.init, "init", "", "start from these weights (.safetensors or .mpdf) instead of a fresh network")
	f.IntVar(&fl.set.Keep, "keep", 3, "step checkpoints to keep besides best.mpdf (0: all)")
	f.StringVar(&fl.set.BestMetric, "best-metric", "", "metric that picks best.mpdf: a metrics.jsonl name, or team_accuracy/tokens_per_episode (online), prefix - for lower is better; or last, the latest checkpoint (default team_accuracy online, -loss offline)")
	shared(f, &fl.quiet, "quiet", "q")
	f.IntVar(&fl.set.EvalTasks, "eval-tasks", 500, "held-out tasks in the final evaluation (0 skips it)")
	shared(f, &fl.set.EvalEvery, "eval-every", "", "; online, a line of metrics.jsonl, of the --eval-tasks (-1: none)")
	shared(f, &fl.set.SkipInvalid, "skip-invalid", "")
	f.IntVar(&fl.threads, "threads", 0, "kernel threads (0: all cores)")
	f.StringVar(&fl.set.MetricsEvery, "metrics-every", "", "metrics.jsonl lines: step (one per RL step) or iteration (one per RL iteration: means over its steps); default iteration offline, step online")
	shared(f, &fl.set.FeatureWidth, "feature-width", "", "; offline, for your own encoding (0: a pack's, else the built-in 26)")
	f.BoolVar(&fl.single, "allow-single-behaviour", false, "offline: train on rollouts of one deterministic behaviour (every decision the same action, or imported transcripts), which are refused otherwise")
	shared(f, &fl.set.Env, "env", "", "; online runs (see mpdf eval -h)")
	shared(f, &fl.set.HeldOut, "held-out", "", "; on a replay, of training, for the final evaluation")
	shared(f, &fl.set.SplitSeed, "split-seed", "", " (replay; mpdf eval --split uses the same)")
	envKind(cmd, &fl.set.Env)
	envCritic(cmd, &fl.set.Env)
}

// Run wires the flags into a run.Request, plans and runs it and prints.
func (fl *trainFlags) Run(cmd *cobra.Command, args []string) error {
	if err := fl.check(cmd, args); err != nil {
		return err
	}
	fl.set.Data = args
	f := cmd.Flags()
	rc, b, err := run.Request{Dir: fl.out, Resume: fl.resume, Overwrite: fl.overwrite, AllowOtherData: fl.otherData,
		Threads: fl.threads, Setting: fl.set, Init: fl.init, Recipe: fl.recipe, AllowSingleBehaviour: fl.single, Log: cmd.ErrOrStderr(),
		Given: func(key string) bool { return f.Changed(strings.ReplaceAll(key, "_", "-")) }, // held_out: --held-out
		Over:  func(c trainer.Config) (trainer.Config, error) { return resolveConfig(c, fl.configFile, f) },
	}.Plan()
	if b.Resume != nil {
		fmt.Fprintf(cmd.OutOrStdout(), "resuming from %s (step %d)\n", b.Resume.Path, b.Resume.Checkpoint.Header.Step)
	}
	if err == nil && fl.recipe != "" {
		rc.Notes = append(rc.Notes, namedRecipeNote(cmd.ErrOrStderr(), "train", fl.recipe, b.Resume != nil, b.RecipeSet, f))
	}
	if fl.set = b.Setting; err == nil && len(fl.set.Data) == 0 {
		err = fl.online(cmd, &rc, b)
	}
	if err != nil {
		return err
	}
	p := run.NewPrinter(cmd.OutOrStdout(), fl.quiet)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.Train(ctx, rc, p.Hooks(cmd.ErrOrStderr()))
	p.End(err == nil)
	if err != nil {
		return err
	}
	if fl.out != "" {
		if path, err := view.WriteRunViewer(fl.out, res); err != nil {
			return err
		} else if path != "" {
			res.Files = append(res.Files, view.RunViewName)
		}
		if _, err := view.WriteRunPage(fl.out, ""); err != nil {
			return err
		}
		res.Files = append(res.Files, view.RunPageName)
	}
	return res.WriteText(cmd.OutOrStdout(), fl.out, fl.set.Env, rc.Train.Seed)
}

// check refuses flags at odds (run.Request.Plan and run.Config's check
// refuse values out of range).
func (fl *trainFlags) check(cmd *cobra.Command, data []string) error {
	if fl.overwrite && fl.resume {
		return fmt.Errorf("--overwrite and --resume: give one or the other")
	}
	if len(data) > 0 && (fl.set.Env != "sim" || cmd.Flags().Changed("env")) {
		return fmt.Errorf("--env %s: rollout files train offline; --env chooses the online environment (give one or the other)", fl.set.Env)
	}
	return nil
}

// online sets rc to train in the environment of --env, with its teacher;
// a fresh run on transcripts says it starts from their recipe (b's).
func (fl *trainFlags) online(cmd *cobra.Command, rc *run.Config, b run.Base) error {
	stderr := cmd.ErrOrStderr()
	if b.Resume == nil && b.Recipe.Env == trainer.RecipeReplay {
		rc.Notes = append(rc.Notes, recipeNote(stderr, cmd.Flags(), b.Recipe))
	}
	var err error
	ec := open.Config{Sim: sim.Config{Seed: rc.Train.Seed}, Log: cliflag.LogUnless(fl.quiet, stderr)}
	rc.Env, rc.HeldOutEnv, err = open.Training(fl.set.Env, ec, fl.set.HeldOut, fl.set.SplitSeed, &rc.Train.RL.Rounds, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	note, err := teacher.Online(rc)
	if note != "" {
		fmt.Fprintln(stderr, "train: "+note)
	}
	if err != nil {
		return err
	}
	rc.EnvName, rc.HeldOut, rc.SplitSeed = fl.set.Env, fl.set.HeldOut, fl.set.SplitSeed
	return nil
}

// recipeNote says on stderr, and returns for eval.json's notes, that a
// fresh run on transcripts starts from their recipe, naming the flags
// given that it sets.
func recipeNote(stderr io.Writer, f *pflag.FlagSet, recipe trainer.Recipe) string {
	c := recipe.Train
	note := fmt.Sprintf("defaults for transcripts (the recipe that holds up in mpdf study and on held-out models): --sft-labels %s --sft-epochs %d --features %s",
		c.SFT.Labels, c.SFT.Epochs, c.Features)
	if recipe.Greedy {
		note += ", judged greedy"
	}
	if given := cliflag.Given(f, "config", "sft-labels", "sft-epochs", "features"); len(given) > 0 {
		note += "; given: --" + strings.Join(given, ", --")
	}
	fmt.Fprintln(stderr, "train: "+note)
	return note
}
