package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
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

` + policySpecHelp,
		Example: `  mpdf simulate --policy random --tasks 200 --episodes 4 --out rollouts.jsonl.zst
  mpdf simulate --policy runs/best.mpdf --greedy --out eval.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkMaxLine(maxLine); err != nil {
				return err
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
	addMaxLineFlag(cmd, &maxLine)
	addSimFlags(cmd, &cfg)
	_ = cmd.MarkFlagRequired("out")
	return cmd
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
