package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/ablate"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/teacher"
)

func init() { commands = append(commands, newStudyCmd) }

func newStudyCmd() *cobra.Command {
	cmd := cliflag.Command[studyFlags]("study [--env sim|"+replay.Syntax+"] [flags]", cobra.NoArgs)
	cmd.AddCommand(cliflag.Command[compareFlags]("compare RESULTS.json [RESULTS.json...] [flags]", cobra.MinimumNArgs(1))) // studycompare.go
	cmd.AddCommand(cliflag.Command[studyMergeFlags]("merge SHARD_DIR... --out DIR", cobra.MinimumNArgs(1)))                // studymerge.go
	return cmd
}

// studyFlags are study's flags.
type studyFlags struct {
	cfg                              study.Config
	sim                              sim.Config
	env, out, groupBy                string
	kind                             answer.Kind
	sftEpochs                        int
	critic, quiet, asJSON, overwrite bool
	ablate, recipe                   string
	shard                            string // studymerge.go
	resume                           bool
}

// Add defines the flags on cmd.
func (fl *studyFlags) Add(cmd *cobra.Command) {
	def := study.DefaultConfig()
	fl.cfg, fl.cfg.Baselines = def, nil
	f := cmd.Flags()
	shared(f, &fl.env, "env", "")
	kindFlag(f, &fl.kind, "task of replayed transcripts (as a kind= part of --env)")
	shared(f, &fl.out, "out", "o", ": the study's directory of results.json, report.md, pareto.png and report.html")
	shared(f, &fl.overwrite, "overwrite", "")
	f.IntVar(&fl.cfg.Folds, "folds", def.Folds, "K of the K-fold split by question")
	f.IntVar(&fl.cfg.Seeds, "seeds", def.Seeds, "repetitions of the cross-validation, seeds --seed, --seed+1, …")
	shared(f, &fl.cfg.Seed, "seed", "", ": the first (folds, training, episodes); --seeds repeats with the next")
	f.StringVar(&fl.groupBy, "fold-by", string(study.ByQuestion), "folds by question (K-fold) or by model (leave one model out)")
	shared(f, &fl.recipe, "recipe", "", studyRecipeUsage)
	f.Var(cliflag.NewFloats(&fl.cfg.Lambdas), "lambdas", usageOf("lambdas")+": one learned policy trained with each")
	shared(f, &fl.cfg.Episodes, "episodes", "", " on the test side, per policy")
	shared(f, &fl.cfg.Rounds, "rounds", "", " (0 = the most a replay recorded, 3 in the simulator)")
	f.StringSliceVar(&fl.cfg.Baselines, "baselines", nil, "baselines to compare (default: every heuristic baseline)")
	shared(f, &fl.cfg.Greedy, "greedy", "", " on the test side (default on a replay)")
	shared(f, &fl.cfg.Train.RL.Iterations, "iterations", "")
	shared(f, &fl.cfg.Train.RL.TasksPerIter, "tasks-per-iter", "")
	shared(f, &fl.cfg.Train.RL.EpisodesPerTask, "episodes-per-task", "")
	shared(f, &fl.cfg.Train.Adam.LR, "lr", "")
	shared(f, &fl.cfg.Train.Reward.Gamma, "gamma", "")
	f.Var(creditFlag(&fl.cfg.Train.Credit), "credit", usageOf("credit")+" of the learned policies")
	f.StringVar(&fl.ablate, "ablate", "", "run an ablation instead of the study: estimator, tau, reward-scale, gamma, loss, team-size (the simulator at 3, 5 and 7 agents, or a replay's files by team size), agent-policy, arch (the MLP, the MLP on peers-v1 features, the attention network) or rl-signal (where RL on a replay gets a signal: credit, groups, γ, SFT, lr, iterations, KL; each against SFT alone and gate), each setting with the study's folds, seeds and paired intervals, at the first --lambdas (writes ablation.md, ablation.json, results.json); or stability: SoftRankPO, GRPO and Dr.GRPO trained once per seed on one split (fold 0 of --folds held out), the held-out accuracy every --eval-every iterations as a band over --seeds (writes stability.md, stability.json, stability.png)")
	f.StringVar(&fl.cfg.Train.RewardNoise, "reward-noise", "", "heavy-tailed noise added to each training reward of the learned policies: student-t:NU:S (S times a Student-t draw with NU degrees of freedom; NU 1 is Cauchy); none by default")
	shared(f, &fl.cfg.EvalEvery, "eval-every", "", "; with --ablate stability")
	f.Var(hiddenValue(&fl.cfg.Train.Hidden), "hidden", usageOf("hidden")+", e.g. 64,64")
	shared(f, &fl.sftEpochs, "sft-epochs", "", " (0 skips it; not given: 5, on a replay 20 with the default pivotal teacher and 0 with a heuristic one, whose confidence is missing unless the text critic fills it; give it with critic=on)")
	shared(f, &fl.cfg.Train.SFT.Labels, "sft-labels", "", ": a heuristic, hindsight, pivotal[:K] or pivotal:P (see mpdf train -h; not given: "+def.Train.SFT.Labels+" on the simulator, "+trainer.ReplayLabels+" on a replay)")
	shared(f, &fl.cfg.Train.Features, "features", "", " (default: v1 on the simulator, v2 on a replay)")
	f.Var(agentPolicyValue(&fl.cfg.Train.AgentPolicy), "agent-policy", usageOf("agent-policy")+" of the learned policies")
	f.Var(lossValue(&fl.cfg.Train.Loss.Kind), "loss", usageOf("loss")+" of the learned policies (see mpdf train -h)")
	shared(f, &fl.cfg.Bootstrap.Resamples, "resamples", "")
	shared(f, &fl.cfg.Workers, "workers", "")
	shared(f, &fl.quiet, "quiet", "q")
	shared(f, &fl.asJSON, "json", "")
	shared(f, &fl.critic, "critic", "")
	shared(f, &fl.shard, "shard", "", ": of the study's (seed, fold, λ) cells (cell i to shard i mod N), into --out, for mpdf study merge")
	shared(f, &fl.resume, "resume", "", ": with --shard, keep the shard's finished cells (same flags as the first run)")
	simFlags(cmd.Flags(), &fl.sim)
}

// Run opens the environment, runs the study into --out and prints
// its report.
func (fl *studyFlags) Run(cmd *cobra.Command, _ []string) error {
	fl.cfg.GroupBy = study.GroupBy(fl.groupBy)
	e, _, err := open.Env(fl.env, open.Config{Sim: fl.sim, Kind: fl.kind, Critic: fl.critic, Log: cliflag.LogUnless(fl.quiet, cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	f := cmd.Flags()
	// Not given, the supervised stage is the recipe's (study.Resolve).
	switch {
	case !f.Changed("sft-epochs"):
		fl.sftEpochs = -1
	case fl.sftEpochs < 0:
		return fmt.Errorf("--sft-epochs %d: want ≥ 0 (0 skips the supervised stage; not given, the recipe's)", fl.sftEpochs)
	}
	if !f.Changed("sft-labels") {
		fl.cfg.Train.SFT.Labels = study.DefaultConfig().Train.SFT.Labels
	}
	given := study.RecipeGiven{Labels: f.Changed("sft-labels"), Epochs: f.Changed("sft-epochs"), Features: f.Changed("features"), Greedy: f.Changed("greedy")}
	if fl.cfg, err = study.Resolve(e, fl.cfg, fl.sftEpochs, given, study.Teacher{Handles: teacher.Handles, Train: teacher.Train, Run: teacher.RunTeacher}); err != nil {
		return err
	}
	if fl.recipe != "" {
		if fl.cfg, err = study.WithRecipe(e, fl.cfg, fl.recipe, func(key string) bool { return f.Changed(strings.ReplaceAll(key, "_", "-")) }); err != nil {
			return fmt.Errorf("--recipe: %w", err)
		}
		if !fl.quiet {
			namedRecipeNote(cmd.ErrOrStderr(), "study", fl.recipe, false, fl.cfg.RecipeSet, f)
		}
	}
	if fl.ablate != "" && fl.ablate != ablate.AblateStability {
		if _, err := ablate.AblationSettings(fl.ablate); err != nil {
			return fmt.Errorf("--ablate: %w", err)
		}
		// A flag the ablation sweeps would be silently overridden by each
		// setting: refused rather than ignored.
		if swept, ok := ablationFlags[fl.ablate]; ok && f.Changed(swept) {
			return fmt.Errorf("--ablate %s sweeps --%s itself: give one or the other", fl.ablate, swept)
		}
	}
	if fl.shard != "" || fl.resume {
		return runStudyShard(cmd, e, fl) // studymerge.go
	}
	dir, err := study.OpenDir(fl.out, fl.overwrite)
	if err != nil {
		return err
	}
	defer dir.Close()
	return runStudyDir(cmd, e, fl, dir)
}

// runStudyDir runs the study, or the ablation of --ablate, into dir on one
// progress bar, and prints what it wrote.
func runStudyDir(cmd *cobra.Command, e env.Env, fl *studyFlags, dir *study.Dir) error {
	total, label := ablate.Work(fl.cfg, fl.ablate)
	bar := progress.New(total, label, fl.quiet)
	cfg := fl.cfg
	cfg.Progress = bar.Grow()
	start := time.Now()
	r, err := ablate.CrossValidateOrAblate(dir, e, cfg, fl.ablate)
	bar.Done(err)
	if err != nil {
		return err
	}
	if !fl.quiet {
		fmt.Fprintln(cmd.ErrOrStderr(), r.Wrote(fl.out, time.Since(start)))
	}
	return r.WriteOut(cmd.OutOrStdout(), fl.asJSON)
}

// ablationFlags are the study flags each ablation sweeps (ablate.Ablate*).
var ablationFlags = map[string]string{
	ablate.AblateGamma: "gamma", ablate.AblateLoss: "loss", ablate.AblateAgentPolicy: "agent-policy",
	ablate.AblateTeamSize: "agents", ablate.AblateArch: "features",
}
