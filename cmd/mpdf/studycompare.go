package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/compare"
)

// compareFlags are study compare's flags.
type compareFlags struct {
	by, pair string
	cfg      compare.Config
	ceilings []string
	asJSON   bool
}

// Add defines the flags on cmd.
func (fl *compareFlags) Add(cmd *cobra.Command) {
	fl.cfg = compare.Config{Bootstrap: study.DefaultConfig().Bootstrap}
	f := cmd.Flags()
	shared(f, &fl.by, "by", "", ": kind, model or model-kind (after all rows)")
	shared(f, &fl.cfg.Policy, "policy", "p", "; here the name of the one compared, as results.json has it (default: the first learned policy)")
	f.StringSliceVar(&fl.cfg.Against, "against", nil, "policies --policy is compared with, paired by task and seed (default: every fixed protocol)")
	f.StringVar(&fl.pair, "pair", "", "another study's results.json to pair with, by transcript file, task and seed")
	f.StringSliceVar(&fl.cfg.PairAgainst, "pair-against", nil, "policies of --pair that --policy is compared with (default: every common policy with itself)")
	f.StringSliceVar(&fl.ceilings, "ceiling", nil, "hindsight ceilings: one fixed protocol per model, kind or model-kind")
	f.StringSliceVar(&fl.cfg.Among, "among", nil, "fixed protocols a --ceiling chooses from (default: every fixed protocol)")
	shared(f, &fl.cfg.Bootstrap.Resamples, "resamples", "", ": the study's --resamples, for its report.md's intervals")
	shared(f, &fl.asJSON, "json", "")
}

// Run reads the studies' results and prints their comparison
// (compare.Files).
func (fl *compareFlags) Run(cmd *cobra.Command, args []string) error {
	cfg := fl.cfg
	var err error
	if cfg.By, err = compare.ParseBy(fl.by); err != nil {
		return err
	}
	if cfg.Ceilings, err = compare.ParseCeilings(fl.ceilings); err != nil {
		return err
	}
	c, err := compare.Files(args, fl.pair, cfg)
	if err != nil {
		return err
	}
	if fl.asJSON {
		return c.WriteJSON(cmd.OutOrStdout())
	}
	return c.WriteMarkdown(cmd.OutOrStdout())
}
