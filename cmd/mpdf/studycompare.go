package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/study"
)

// compareFlags are study compare's flags.
type compareFlags struct {
	by, pair                              string
	cfg                                   study.CompareConfig
	ceilings, against, among, pairAgainst []string
	asJSON                                bool
	resamples                             int
}

const compareLong = `Compare reads the results.json of one or more studies (mpdf study --out
DIR), pools their rows (distinct studies: the same task, seed and policy in
two is an error) and prints, over all rows and per group of --by (kind or
model), each policy's accuracy with its bootstrap interval resampled by
question, its tokens per task, and --policy − each of --against paired by
task and seed. On one study's rows the pooled numbers are its report.md's.

--pair B.json pairs the rows with another study's, row by row on transcript
file, task and seed (the same questions in another environment, e.g. with
and without --critic on mpdf study): --policy (or every common policy) − its
partner in B, with a paired interval. Every compared row must have its
partner, or the command refuses: studies of other tasks or seeds do not pair.

--ceiling model,kind,model-kind adds, per group, the fixed protocol of
--among with the best accuracy on these very rows, chosen in hindsight: an
upper bound of a policy that picks one protocol per group, not a policy; its
accuracy, and its difference with each of --against and from --policy.

Intervals: the study's bootstrap (95%, --resamples resamples of questions,
seed 1). The same files and flags give the same bytes.`

func newStudyCompareCmd() *cobra.Command {
	var fl compareFlags
	cmd := &cobra.Command{
		Use:   "compare RESULTS.json [RESULTS.json...] [flags]",
		Short: "Per-kind and per-model tables, paired differences across studies and hindsight ceilings from studies' results.json",
		Long:  compareLong,
		Example: `  mpdf study compare runs/critic/results.json --by kind --against gate --pair runs/base/results.json
  mpdf study compare runs/critic/results.json --policy threshold --pair runs/base/results.json --pair-against gate
  mpdf study compare runs/critic/results.json --ceiling model,kind,model-kind --against gate,threshold
  mpdf study compare runs/gsm/results.json runs/mmlu/results.json --by kind --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd, &fl, args) },
	}
	fl.add(cmd)
	return cmd
}

// add defines the flags on cmd.
func (fl *compareFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&fl.by, "by", "", "break the rows down by kind, model or model-kind (after all rows)")
	f.StringVar(&fl.cfg.Policy, "policy", "", "the policy compared (default: the first learned policy)")
	f.StringSliceVar(&fl.against, "against", nil, "policies --policy is compared with, paired by task and seed (default: every fixed protocol)")
	f.StringVar(&fl.pair, "pair", "", "another study's results.json to pair with, by transcript file, task and seed")
	f.StringSliceVar(&fl.pairAgainst, "pair-against", nil, "policies of --pair that --policy is compared with (default: every common policy with itself)")
	f.StringSliceVar(&fl.ceilings, "ceiling", nil, "hindsight ceilings: one fixed protocol per model, kind or model-kind")
	f.StringSliceVar(&fl.among, "among", nil, "fixed protocols a --ceiling chooses from (default: every fixed protocol)")
	f.IntVar(&fl.resamples, "resamples", study.DefaultConfig().Bootstrap.Resamples, "bootstrap resamples of the intervals: the study's --resamples, for its report.md's intervals")
	f.BoolVar(&fl.asJSON, "json", false, "print the comparison as JSON")
}

// runCompare reads the studies' results and prints their comparison
// (study.Compare).
func runCompare(cmd *cobra.Command, fl *compareFlags, args []string) error {
	cfg := fl.cfg
	var err error
	if cfg.By, err = study.ParseCompareBy(fl.by); err != nil {
		return err
	}
	for _, s := range fl.ceilings {
		c, err := study.ParseCompareBy(s)
		if err != nil {
			return err
		}
		cfg.Ceilings = append(cfg.Ceilings, c)
	}
	if cmd.Flags().Changed("against") {
		cfg.Against = append([]string{}, fl.against...)
	}
	if cmd.Flags().Changed("among") {
		cfg.Among = append([]string{}, fl.among...)
	}
	cfg.PairAgainst = fl.pairAgainst
	cfg.Bootstrap = study.DefaultConfig().Bootstrap
	cfg.Bootstrap.Resamples = fl.resamples
	var inputs []*study.Results
	for _, path := range args {
		r, err := study.ReadResultsFile(path)
		if err != nil {
			return err
		}
		inputs = append(inputs, r)
	}
	if fl.pair != "" {
		if cfg.Pair, err = study.ReadResultsFile(fl.pair); err != nil {
			return err
		}
	}
	c, err := study.Compare(inputs, cfg)
	if err != nil {
		return err
	}
	if fl.asJSON {
		return c.WriteJSON(cmd.OutOrStdout())
	}
	return c.WriteMarkdown(cmd.OutOrStdout())
}
