package main

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/teacher"
)

func init() { register(newStudyCmd) }

func newStudyCmd() *cobra.Command {
	def := study.DefaultConfig()
	var (
		cfg           = def
		sim           env.SimConfig
		envSpec       string
		kind          transcript.Task
		out, groupBy  string
		sftEpochs     int
		critic        bool
		quiet, asJSON bool
		overwrite     bool
		ablate        string
	)
	cfg.Baselines = nil
	cmd := &cobra.Command{
		Use:   "study [--env sim|" + replaySyntax + "] [flags]",
		Short: "Cross-validated comparison of learned policies with every baseline (report.md, results.json, pareto.png)",
		Long: `Study runs the experiment that checks whether a learned meta-policy beats the
fixed protocols: K-fold cross-validation over questions (a question debated
in several files is one unit, never on both sides), repeated over --seeds
seeds, for each token cost λ of --lambda. Each fold trains a policy on the
other folds (in memory: the online run of mpdf train, shortened) and plays it
and every heuristic baseline on its own tasks with the same episode seeds.
--group-by model makes one fold per model instead (leave one model out: the
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
taken over).`,
		Example: `  mpdf study --env 'replay:../shared/data/debates/slm-debate/*/*.json'
  mpdf study --env 'replay:debates/*/*.json' --group-by model --lambda 0,0.2
  mpdf study --env sim --folds 5 --seeds 1 --sim-tasks 500
  mpdf study --env sim --folds 3 --seeds 2 --sim-tasks 300 --ablate gamma --out runs/ablate-gamma`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.GroupBy = study.GroupBy(groupBy)
			e, _, err := openEvalEnv(cmd.ErrOrStderr(), envSpec, kind, critic, sim, quiet)
			if err != nil {
				return err
			}
			_, isReplay := e.(*replay.Env)
			if isReplay {
				// The transcript recipe, where the flags do not say.
				rec, err := study.DefaultConfigFor(trainer.RecipeReplay)
				if err != nil {
					return err
				}
				fl := cmd.Flags()
				if !fl.Changed("sft-labels") {
					cfg.Train.SFT.Labels = rec.Train.SFT.Labels
					if !fl.Changed("sft-epochs") {
						sftEpochs = rec.Train.SFT.Epochs
					}
				}
				if !fl.Changed("features") {
					cfg.Train.Features = rec.Train.Features
				}
				if !fl.Changed("greedy") {
					cfg.Greedy = rec.Greedy
				}
			}
			if teacher.Handles(cfg.Train.SFT.Labels) { // hindsight, pivotal[:K]: teacher.Train
				cfg.Trainer = teacher.Train
			}
			cfg.Train.SFT.Epochs = studySFTEpochs(sftEpochs, cfg.Train.SFT.Labels, isReplay)
			if err := study.Check(e, cfg); err != nil {
				return err
			}
			if ablate != "" {
				if _, err := study.AblationSettings(ablate); err != nil {
					return fmt.Errorf("--ablate: %w", err)
				}
			}
			dir, err := study.OpenDir(out, overwrite)
			if errors.Is(err, study.ErrNotEmpty) {
				return fmt.Errorf("--out: %w: give a new --out, or --overwrite to replace that study's files", err)
			}
			if err != nil {
				return err
			}
			defer dir.Close()
			if ablate != "" {
				return runAblation(cmd, e, cfg, dir, ablate, out, quiet, asJSON) // studyablate.go
			}
			jobs := cfg.Seeds * (1 + len(cfg.Lambdas))
			if cfg.GroupBy != study.ByModel {
				jobs *= cfg.Folds
			}
			bar := newBar(jobs, "study (folds × seeds × policies)", quiet)
			cfg.Progress = func(done, total int) {
				bar.SetTotal(total)
				_ = bar.Set(done)
			}
			start := time.Now()
			s, err := study.Run(e, cfg)
			if err != nil {
				bar.Exit()
				return errors.Join(err, dir.Abandon())
			}
			_ = bar.Finish()
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
			if !quiet {
				fmt.Fprintf(cmd.ErrOrStderr(), "study: %d rows in %s; wrote %s/{results.json,report.md,pareto.png}\n",
					len(s.Rows), elapsed.Round(time.Second), out)
			}
			o := cmd.OutOrStdout()
			if asJSON {
				return sum.WriteJSON(o)
			}
			_, err = o.Write(report.Bytes())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&envSpec, "env", "sim", "environment: sim, or "+replaySyntax+" of debate transcripts (see mpdf eval -h)")
	addKindFlag(f, &kind, "task of replayed transcripts (as a kind= part of --env)")
	f.StringVar(&out, "out", "runs/study", "directory of results.json, report.md and pareto.png")
	f.BoolVar(&overwrite, "overwrite", false, "write into an --out that holds another study, removing that study's files")
	f.IntVar(&cfg.Folds, "folds", def.Folds, "K of the K-fold split by question")
	f.IntVar(&cfg.Seeds, "seeds", def.Seeds, "repetitions of the cross-validation, seeds --seed, --seed+1, …")
	f.Uint64Var(&cfg.Seed, "seed", def.Seed, "first seed (folds, training, episodes)")
	f.StringVar(&groupBy, "group-by", string(study.ByQuestion), "folds by question (K-fold) or by model (leave one model out)")
	f.Float64SliceVar(&cfg.Lambdas, "lambda", def.Lambdas, "token costs λ (reward per 1000 tokens) to train with, one learned policy each")
	f.IntVar(&cfg.Episodes, "episodes", def.Episodes, "test episodes per task and policy")
	f.IntVar(&cfg.Rounds, "rounds", 0, "deliberation rounds (0 = the most a replay recorded, 3 in the simulator)")
	f.StringSliceVar(&cfg.Baselines, "baselines", nil, "baselines to compare (default: every heuristic baseline)")
	f.BoolVar(&cfg.Greedy, "greedy", false, "learned policies take their most probable action on the test side (default on a replay)")
	f.IntVar(&cfg.Train.RL.Iterations, "iterations", def.Train.RL.Iterations, "SoftRankPO iterations per fold and λ")
	f.IntVar(&cfg.Train.RL.TasksPerIter, "tasks-per-iter", def.Train.RL.TasksPerIter, "training tasks per iteration")
	f.IntVar(&cfg.Train.RL.EpisodesPerTask, "episodes-per-task", def.Train.RL.EpisodesPerTask, "episodes per training task (one SoftRankPO group)")
	f.Float64Var(&cfg.Train.Reward.Gamma, "gamma", 0, "discount γ of the return-to-go each decision is ranked on (0: the round's own reward)")
	f.StringVar(&ablate, "ablate", "", "run an ablation instead of the study: estimator, tau, reward-scale or gamma, each setting with the study's folds, seeds and paired intervals, at the first --lambda (writes ablation.md, ablation.json, results.json)")
	f.Float64Var(&cfg.Train.Adam.LR, "lr", def.Train.Adam.LR, "Adam learning rate of SoftRankPO")
	f.Var(hiddenValue{&cfg.Train.Hidden}, "hidden", "hidden layer sizes, e.g. 64,64")
	f.IntVar(&sftEpochs, "sft-epochs", -1, "supervised epochs on --sft-labels before RL (-1 = 5; on a replay 20 with the default pivotal teacher, 0 with a heuristic one, whose confidence is missing unless the text critic fills it; give it with critic=on)")
	f.StringVar(&cfg.Train.SFT.Labels, "sft-labels", def.Train.SFT.Labels, "teacher of the supervised stage: a heuristic, hindsight (the best plan per training question), pivotal[:K] (the decisions that change the team result, K DAgger rounds) or pivotal:P (those decisions on protocol P's play, P's action elsewhere; P: majority, debate, gate, until-consensus; default pivotal:gate on a replay)")
	f.StringVar(&cfg.Train.Features, "features", "", "feature layout the learned policies read (mpdf-features/v1 or v2; default v1, v2 on a replay)")
	f.IntVar(&cfg.Bootstrap.Resamples, "resamples", def.Bootstrap.Resamples, "bootstrap resamples of the intervals")
	f.IntVar(&cfg.Workers, "workers", 0, "folds run at once (0 = one per CPU); the results do not depend on it")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no transcript report")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON instead of report.md")
	f.BoolVar(&critic, "critic", false, "replay: fill the missing confidence with the critic's read from each answer's text (answer.Critic); shorthand for critic=on in --env")
	addSimFlags(cmd, &sim)
	cmd.AddCommand(newStudyCompareCmd()) // studycompare.go
	return cmd
}

// studySFTEpochs resolves --sft-epochs: -1 (not given) is defaultSFTEpochs,
// except for a heuristic teacher (the threshold one by default) on
// transcripts, whose confidence is missing unless the text critic fills it
// (critic=on; then give --sft-epochs to use it): 0 there. The
// hindsight and pivotal teachers read the transcripts' answers, so they
// keep their supervised stage on a replay too.
func studySFTEpochs(flag int, labels string, replay bool) int {
	switch {
	case flag >= 0:
		return flag
	case replay && !teacher.Handles(labels):
		return 0
	}
	return defaultSFTEpochs
}

// defaultSFTEpochs is the supervised stage of a study's training run when
// --sft-epochs is not given (and the teacher can label the environment).
const defaultSFTEpochs = 5
