package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
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
	f.BoolVar(&o.skipBad, "skip-invalid", false, "offline: skip rejected records (reported and counted) instead of stopping")
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
