package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

func init() { register(newSimulateCmd) }

// simFlags are the simulator's configuration flags, shared by simulate
// and eval.
func addSimFlags(cmd *cobra.Command, cfg *env.SimConfig) {
	f := cmd.Flags()
	f.Uint64Var(&cfg.Seed, "sim-seed", 0, "seed of the simulator's task pool (difficulties, answers); --seed draws the episodes")
	f.IntVar(&cfg.Tasks, "sim-tasks", 0, fmt.Sprintf("size of the simulator's task pool (0 = %d)", env.DefaultSimTasks))
	f.IntVar(&cfg.Agents, "agents", 0, fmt.Sprintf("team size N ≥ 2 in the simulator (0 = %d)", env.DefaultSimAgents))
	f.Float64Var(&cfg.MissingConfidence, "missing-confidence", 0, "probability that a simulated turn's confidence is missing, in [0,1]")
}

// barProgress returns a RunOptions.Progress that moves bar, offset by the
// episodes counted before.
func barProgress(bar interface{ Set(int) error }, offset int) func(done, total int) {
	return func(done, _ int) { _ = bar.Set(offset + done) }
}

func newSimulateCmd() *cobra.Command {
	var (
		cfg                              env.SimConfig
		policy, out                      string
		tasks, episodes, rounds, workers int
		maxLine                          int
		seed                             uint64
		greedy, quiet, asJSON            bool
		calibrate                        []string
		paramsOut                        string
		kind                             transcript.Task
		signals                          bool
	)
	cmd := &cobra.Command{
		Use:   "simulate --out FILE.jsonl[.gz|.zst] [flags]",
		Short: "Play a policy in the built-in simulator and write the episodes",
		Long: `Simulate plays a policy in the built-in deliberation simulator (the
embedded default environment, no LLM needed) and writes every episode as
JSON Lines: each agent's answer, confidence, profile, action, behaviour
log-probability and tokens per round. The output is compressed by its
extension (.gz or .zst) and is the same, byte for byte, for the same flags.
The episodes go to a temporary file beside --out, renamed over it when
the run succeeds: a failed or interrupted run leaves --out as it was.
--out must be a new or a regular file (not a link or a device).

It plays --tasks tasks of the pool (0 = all), --episodes sampled episodes
per task, each with round 0 and --rounds deliberation rounds, and ends with
the policy's accuracy and cost over what it wrote.

The simulator's coefficients are fitted to real debates. --calibrate
GLOB[,GLOB] fits them to LLM-Debate transcripts (instead of playing) and
prints the fit: the parameters, each statistic (round-0 accuracy, how often
a revision fixes or breaks an answer given the peers, token lengths of right
and wrong answers, ...) on the transcripts and on the simulator's debates of
the same team sizes, and each feature's AUC for correctness on both;
--params-out writes the parameters as JSON. The default simulator embeds the
fit to the shared corpus (env/simulator_calibrated.json, whose "source" says
how it was made). --signals prints each feature's AUC for correctness on the
simulator's debate episodes (--tasks, --rounds, --seed): the signals the
simulator plants.

` + policySpecHelp,
		Example: `  mpdf simulate --policy random --tasks 200 --episodes 4 --out rollouts.jsonl.zst
  mpdf simulate --policy runs/best.mpdf --greedy --out eval.jsonl
  mpdf simulate --calibrate '../shared/data/debates/slm-debate/*/*.json' --params-out fit.json
  mpdf simulate --signals`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkMaxLine(maxLine); err != nil {
				return err
			}
			switch {
			case len(calibrate) > 0:
				return runCalibrate(cmd, calibrate, kind, paramsOut, seed, workers, quiet, asJSON)
			case paramsOut != "":
				return fmt.Errorf("--params-out needs --calibrate")
			case signals:
				return runSignals(cmd, cfg, tasks, rounds, seed, workers, asJSON)
			case out == "":
				return fmt.Errorf("--out is required (unless --calibrate or --signals)")
			}
			pol, err := resolvePolicy(policy)
			if err != nil {
				return err
			}
			sim, err := env.NewSimulator(cfg)
			if err != nil {
				return err
			}
			if tasks < 0 || episodes < 1 || rounds < 1 || workers < 0 {
				return fmt.Errorf("--tasks %d, --episodes %d, --rounds %d, --workers %d: want tasks ≥ 0, episodes ≥ 1, rounds ≥ 1, workers ≥ 0",
					tasks, episodes, rounds, workers)
			}
			if tasks > sim.NumTasks() {
				return fmt.Errorf("--tasks %d: the simulator's pool has %d tasks (raise --sim-tasks)", tasks, sim.NumTasks())
			}
			n := tasks
			if n == 0 {
				n = sim.NumTasks()
			}
			w, err := data.Create(out)
			if err != nil {
				return err
			}
			w.SetMaxLineBytes(maxLine)
			written, result, err := record(sim, pol, env.RunOptions{
				NumTasks: tasks, Episodes: episodes, Rounds: rounds, Seed: seed,
				Greedy: greedy && pol.Learned, Workers: workers,
			}, w, "simulate", n*episodes, quiet, false, nil, nil)
			if err != nil {
				w.Abort() // out is left as it was
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			res := env.Results{result}
			o := cmd.OutOrStdout()
			if asJSON {
				return printJSON(o, struct {
					Out      string      `json:"out"`
					Episodes int64       `json:"episodes"`
					Rounds   int         `json:"rounds"`
					Results  env.Results `json:"results"`
				}{out, written, rounds, res})
			}
			fmt.Fprintf(o, "wrote %d episodes (%d tasks × %d episodes, %d rounds, policy %s) to %s\n",
				written, n, episodes, rounds, pol.Name(), out)
			return res.WriteTable(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&policy, "policy", "random", "policy that chooses the actions: a heuristic name or a .mpdf/.safetensors file")
	f.StringVarP(&out, "out", "o", "", "output file: .jsonl, .jsonl.gz or .jsonl.zst (required)")
	f.IntVar(&tasks, "tasks", 0, "number of tasks to play, the first of the pool (0 = all)")
	f.IntVar(&episodes, "episodes", 1, "sampled episodes per task")
	f.IntVar(&rounds, "rounds", env.DefaultRounds, "deliberation rounds after round 0")
	f.Uint64Var(&seed, "seed", 0, "seed of the episodes (environment draws and action sampling)")
	f.BoolVar(&greedy, "greedy", false, "a learned policy takes its most probable action instead of sampling (heuristics unaffected)")
	f.IntVar(&workers, "workers", 0, "episodes played at once (0 = one per CPU); the output does not depend on it")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.StringSliceVar(&calibrate, "calibrate", nil, "fit the simulator to these LLM-Debate transcripts (globs) and print the fit, instead of playing")
	addKindFlag(f, &kind, "task of the --calibrate transcripts")
	f.StringVar(&paramsOut, "params-out", "", "with --calibrate: write the fitted parameters to this JSON file")
	f.BoolVar(&signals, "signals", false, "print each feature's AUC for correctness on the simulator's debate episodes, instead of playing")
	addMaxLineFlag(cmd, &maxLine)
	addSimFlags(cmd, &cfg)
	return cmd
}

// runCalibrate fits the simulator to transcripts and prints the fit.
func runCalibrate(cmd *cobra.Command, globs []string, kind transcript.Task, paramsOut string, seed uint64, workers int, quiet, asJSON bool) error {
	paths, err := expandPaths(globs)
	if err != nil {
		return fmt.Errorf("--calibrate: %w", err)
	}
	topts := transcript.Options{Task: kind}
	source := fmt.Sprintf("mpdf simulate --calibrate '%s' --seed %d (%d files)", strings.Join(globs, ","), seed, len(paths))
	c, reps, err := replay.Calibrate(paths, topts, env.CalibrateOptions{Source: source, Seed: seed, Workers: workers})
	if err != nil {
		return err
	}
	if !quiet {
		if err := transcript.WriteReports(cmd.ErrOrStderr(), reps); err != nil {
			return err
		}
	}
	if paramsOut != "" {
		if err := c.Params.WriteFile(paramsOut); err != nil {
			return err
		}
	}
	o := cmd.OutOrStdout()
	if asJSON {
		return printJSON(o, c)
	}
	if err := c.WriteTable(o); err != nil {
		return err
	}
	if paramsOut != "" {
		fmt.Fprintf(o, "\nwrote the parameters to %s\n", paramsOut)
	}
	return nil
}

// runSignals prints the simulator's feature AUCs under the debate policy.
func runSignals(cmd *cobra.Command, cfg env.SimConfig, tasks, rounds int, seed uint64, workers int, asJSON bool) error {
	sim, err := env.NewSimulator(cfg)
	if err != nil {
		return err
	}
	debate, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		return err
	}
	sig, n, err := env.MeasureSignals(sim, debate, env.RunOptions{NumTasks: tasks, Rounds: rounds, Seed: seed, Workers: workers})
	if err != nil {
		return err
	}
	o := cmd.OutOrStdout()
	if asJSON {
		return printJSON(o, struct {
			Decisions int          `json:"decisions"`
			Signals   []env.Signal `json:"signals"`
		}{n, sig})
	}
	fmt.Fprintf(o, "simulator (%s): AUC of each feature for \"the agent's current answer is right\" over %d debate decisions, seed %d\n",
		sim.Config().Params.Source, n, seed)
	return env.WriteSignals(o, []string{"simulated"}, sig)
}

// addMaxLineFlag adds --max-line-bytes, the longest record line written or
// read (data.DefaultMaxLineBytes by default).
func addMaxLineFlag(cmd *cobra.Command, n *int) {
	cmd.Flags().IntVar(n, "max-line-bytes", data.DefaultMaxLineBytes,
		"longest record (one JSON line) written or read, in bytes; writers and readers of one file need the same")
}

// checkMaxLine refuses a --max-line-bytes below 1.
func checkMaxLine(n int) error {
	if n < 1 {
		return fmt.Errorf("--max-line-bytes %d: want ≥ 1", n)
	}
	return nil
}
