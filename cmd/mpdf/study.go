package main

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer/teacher"
)

func init() { register(newStudyCmd) }

// studyFlags are study's flags.
type studyFlags struct {
	cfg                              study.Config
	sim                              sim.Config
	env, out, groupBy                string
	kind                             transcript.Task
	sftEpochs                        int
	critic, quiet, asJSON, overwrite bool
	ablate                           string
}

const studyLong = `Study runs the experiment that checks whether a learned meta-policy beats the
fixed protocols: K-fold cross-validation over questions (a question debated
in several files is one unit, never on both sides), repeated over --seeds
seeds, for each token cost λ of --lambdas. Each fold trains a policy on the
other folds (in memory: the online run of mpdf train, shortened) and plays it
and every heuristic baseline on its own tasks with the same episode seeds.
--fold-by model makes one fold per model instead (leave one model out: the
policies are tested on a model they never trained on).

It writes into --out:
  results.json  one row per task × policy × seed: correct, tokens, actions
  report.md     pooled and per-model tables: accuracy with a 95% bootstrap
                interval resampled by question, tokens per task, action
                shares, and for each learned policy the paired difference
                "learned − baseline" with its interval; the hindsight oracle
                (per task the best fixed protocol, chosen knowing the
                answer) is a ceiling row
  pareto.png    accuracy against tokens per task: baselines as points,
                learned policies as a curve over λ, with the intervals
and prints report.md (or the summary as JSON with --json). The same flags and
data give the same bytes.

On a replay the learned policies train the recipe mpdf train --env replay:
starts from, where the flags do not say otherwise: the pivotal teacher
over gate (--sft-labels pivotal:gate --sft-epochs 20), --features mpdf-features/v2, and
--greedy on the test side. On the simulator the defaults are those shown.

--out belongs to one study: one that holds files is refused before the study
runs (--overwrite removes only a study's three files), and one process writes
it at a time (study.lock names the holder; a lock left by a killed study is
taken over).`

func newStudyCmd() *cobra.Command {
	fl := studyFlags{cfg: study.DefaultConfig()}
	fl.cfg.Baselines = nil
	cmd := &cobra.Command{
		Use:   "study [--env sim|" + replaySyntax + "] [flags]",
		Short: "Cross-validated comparison of learned policies with every baseline (report.md, results.json, pareto.png)",
		Long:  studyLong,
		Example: `  mpdf study --env 'replay:../shared/data/debates/slm-debate/*/*.json'
  mpdf study --env 'replay:debates/*/*.json' --fold-by model --lambdas 0,0.2 --out runs/study-models
  mpdf study --env sim --folds 5 --seeds 1 --sim-tasks 500
  mpdf study --env sim --folds 3 --seeds 2 --sim-tasks 300 --ablate gamma --out runs/ablate-gamma`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStudy(cmd, &fl) },
	}
	fl.add(cmd)
	cmd.AddCommand(newStudyCompareCmd()) // studycompare.go
	return cmd
}

// add defines the flags on cmd.
func (fl *studyFlags) add(cmd *cobra.Command) {
	def := study.DefaultConfig()
	f := cmd.Flags()
	f.StringVar(&fl.env, "env", "sim", "environment: sim, or "+replaySyntax+" of debate transcripts (see mpdf eval -h)")
	addKindFlag(f, &fl.kind, "task of replayed transcripts (as a kind= part of --env)")
	f.StringVar(&fl.out, "out", "runs/study", "directory of results.json, report.md and pareto.png")
	f.BoolVar(&fl.overwrite, "overwrite", false, "write into an --out that holds another study, removing that study's files")
	f.IntVar(&fl.cfg.Folds, "folds", def.Folds, "K of the K-fold split by question")
	f.IntVar(&fl.cfg.Seeds, "seeds", def.Seeds, "repetitions of the cross-validation, seeds --seed, --seed+1, …")
	f.Uint64Var(&fl.cfg.Seed, "seed", def.Seed, "first seed (folds, training, episodes)")
	f.StringVar(&fl.groupBy, "fold-by", string(study.ByQuestion), "folds by question (K-fold) or by model (leave one model out)")
	f.Var(newFloats(&fl.cfg.Lambdas), "lambdas", "token costs λ per 1000 tokens, comma-separated: one learned policy trained with each")
	f.IntVar(&fl.cfg.Episodes, "episodes", def.Episodes, "test episodes per task and policy")
	f.IntVar(&fl.cfg.Rounds, "rounds", 0, "deliberation rounds (0 = the most a replay recorded, 3 in the simulator)")
	f.StringSliceVar(&fl.cfg.Baselines, "baselines", nil, "baselines to compare (default: every heuristic baseline)")
	f.BoolVar(&fl.cfg.Greedy, "greedy", false, "learned policies take their most probable action on the test side (default on a replay)")
	f.IntVar(&fl.cfg.Train.RL.Iterations, "iterations", def.Train.RL.Iterations, "SoftRankPO iterations per fold and λ")
	f.IntVar(&fl.cfg.Train.RL.TasksPerIter, "tasks-per-iter", def.Train.RL.TasksPerIter, "training tasks per iteration")
	f.IntVar(&fl.cfg.Train.RL.EpisodesPerTask, "episodes-per-task", def.Train.RL.EpisodesPerTask, "episodes per training task (one SoftRankPO group)")
	f.Float64Var(&fl.cfg.Train.Adam.LR, "lr", def.Train.Adam.LR, "Adam learning rate of SoftRankPO")
	f.Float64Var(&fl.cfg.Train.Reward.Gamma, "gamma", 0, "discount γ of the return-to-go each decision is ranked on (0: the round's own reward)")
	f.StringVar(&fl.ablate, "ablate", "", "run an ablation instead of the study: estimator, tau, reward-scale, gamma or agent-policy, each setting with the study's folds, seeds and paired intervals, at the first --lambdas (writes ablation.md, ablation.json, results.json)")
	f.Var(hiddenValue{&fl.cfg.Train.Hidden}, "hidden", "hidden layer sizes, e.g. 64,64")
	f.IntVar(&fl.sftEpochs, "sft-epochs", -1, "supervised epochs on --sft-labels before RL (-1 = 5; on a replay 20 with the default pivotal teacher, 0 with a heuristic one, whose confidence is missing unless the text critic fills it; give it with critic=on)")
	f.StringVar(&fl.cfg.Train.SFT.Labels, "sft-labels", def.Train.SFT.Labels, "teacher of the supervised stage: a heuristic, hindsight (the best plan per training question), pivotal[:K] (the decisions that change the team result, K DAgger rounds) or pivotal:P (those decisions on protocol P's play, P's action elsewhere; P: majority, debate, gate, until-consensus; default pivotal:gate on a replay)")
	f.StringVar(&fl.cfg.Train.Features, "features", "", "feature layout the learned policies read, mpdf-features/v1 or mpdf-features/v2 (default: v1 on the simulator, v2 on a replay)")
	f.Var(agentPolicyValue{&fl.cfg.Train.AgentPolicy}, "agent-policy", "networks of the agents of the learned policies: shared (one for all), slot (one per agent position) or model (one per backbone model)")
	f.Var(lossValue{&fl.cfg.Train.Loss.Kind}, "loss", "policy loss of the learned policies: clip or rank-match (see mpdf train -h)")
	f.IntVar(&fl.cfg.Bootstrap.Resamples, "resamples", def.Bootstrap.Resamples, "bootstrap resamples of the intervals")
	f.IntVar(&fl.cfg.Workers, "workers", 0, "folds run at once (0 = one per CPU); the results do not depend on it")
	f.BoolVarP(&fl.quiet, "quiet", "q", false, "no progress bar and no transcript report")
	f.BoolVar(&fl.asJSON, "json", false, "print the summary as JSON instead of report.md")
	f.BoolVar(&fl.critic, "critic", false, "replay: fill the missing confidence with the critic's read from each answer's text; shorthand for critic=on in --env")
	addSimFlags(cmd, &fl.sim)
}

// runStudy opens the environment, runs the study into --out and prints
// its report.
func runStudy(cmd *cobra.Command, fl *studyFlags) error {
	fl.cfg.GroupBy = study.GroupBy(fl.groupBy)
	e, _, err := replay.OpenEnv(fl.env, replay.EnvConfig{Sim: fl.sim, Kind: fl.kind, Critic: fl.critic, Log: logUnless(fl.quiet, cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	if err := fl.resolve(cmd.Flags(), e); err != nil {
		return err
	}
	if fl.ablate != "" {
		if _, err := study.AblationSettings(fl.ablate); err != nil {
			return fmt.Errorf("--ablate: %w", err)
		}
	}
	dir, err := study.OpenDir(fl.out, fl.overwrite)
	if errors.Is(err, study.ErrNotEmpty) {
		return fmt.Errorf("--out: %w: give a new --out, or --overwrite to replace that study's files", err)
	}
	if err != nil {
		return err
	}
	defer dir.Close()
	if fl.ablate != "" {
		return runAblation(cmd, e, fl.cfg, dir, fl.ablate, fl.out, fl.quiet, fl.asJSON) // studyablate.go
	}
	start := time.Now()
	s, err := fl.run(e)
	if err != nil {
		return errors.Join(err, dir.Abandon())
	}
	elapsed := time.Since(start)
	sum, err := s.Summarise()
	if err != nil {
		return err
	}
	var report bytes.Buffer
	if err := sum.WriteMarkdown(&report); err != nil {
		return err
	}
	if err := dir.Write(s, sum); err != nil {
		return err
	}
	if !fl.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "study: %d rows in %s; wrote %s/{results.json,report.md,pareto.png}\n",
			len(s.Rows), elapsed.Round(time.Second), fl.out)
	}
	if fl.asJSON {
		return sum.WriteJSON(cmd.OutOrStdout())
	}
	_, err = cmd.OutOrStdout().Write(report.Bytes())
	return err
}

// resolve completes the config for e: on a replay the transcript recipe
// (study.DefaultConfigFor) where the flags do not say, the teacher's
// trainer, the supervised epochs (study.SFTEpochs); then checks it.
func (fl *studyFlags) resolve(f *pflag.FlagSet, e env.Env) error {
	_, isReplay := e.(*replay.Env)
	if isReplay {
		given := study.RecipeGiven{Labels: f.Changed("sft-labels"), Epochs: f.Changed("sft-epochs"),
			Features: f.Changed("features"), Greedy: f.Changed("greedy")}
		var err error
		if fl.cfg, fl.sftEpochs, err = study.WithReplayRecipe(fl.cfg, fl.sftEpochs, given); err != nil {
			return err
		}
	}
	answers := teacher.Handles(fl.cfg.Train.SFT.Labels) // hindsight, pivotal[:K]: teacher.Train
	if answers {
		fl.cfg.Trainer = teacher.Train
	}
	fl.cfg.Train.SFT.Epochs = study.SFTEpochs(fl.sftEpochs, answers, isReplay)
	return study.Check(e, fl.cfg)
}

// run runs the study on a progress bar.
func (fl *studyFlags) run(e env.Env) (*study.Study, error) {
	cfg := fl.cfg
	jobs := cfg.Seeds * (1 + len(cfg.Lambdas))
	if cfg.GroupBy != study.ByModel {
		jobs *= cfg.Folds
	}
	bar := newBar(jobs, "study (folds × seeds × policies)", fl.quiet)
	cfg.Progress = func(done, total int) {
		bar.SetTotal(total)
		_ = bar.Set(done)
	}
	s, err := study.CrossValidate(e, cfg)
	if err != nil {
		bar.Exit()
		return nil, err
	}
	_ = bar.Finish()
	return s, nil
}
