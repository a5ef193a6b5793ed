package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/cliflag"
)

func init() { commands = append(commands, newDataCmd) }

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "data"}
	cmd.AddCommand(
		cliflag.Command[validateFlags]("validate FILES...", cobra.MinimumNArgs(1)),
		cliflag.Command[packFlags]("pack FILES... --out DIR [--shard-rows N]", cobra.MinimumNArgs(1)),
		cliflag.Command[statsFlags]("stats FILES...|DIR", cobra.MinimumNArgs(1)),
		cliflag.Command[corpusFlags]("corpus TRANSCRIPTS... [--json]", cobra.MinimumNArgs(1)), // corpus.go
		cliflag.Command[signalFlags]("signal TRANSCRIPTS...", cobra.MinimumNArgs(1)),          // signalcmd.go
		cliflag.Command[hindsightFlags]("hindsight TRANSCRIPTS...", cobra.MinimumNArgs(1)),    // signalcmd.go
		cliflag.Command[mergeFlags]("merge SHARDS... --out FILE", cobra.MinimumNArgs(1)),      // mergecmd.go
	)
	return cmd
}

// validateFlags are data validate's flags.
type validateFlags struct {
	maxShown, width, maxLine int
	asJSON                   bool
}

func (fl *validateFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Var(cliflag.Count(&fl.maxShown, 50), "max-errors", "most rejected records and repeated ids to list, ≥ 0 (all are counted)")
	shared(f, cliflag.Count(&fl.width, 0), "feature-width", "")
	shared(f, &fl.asJSON, "json", "")
	cliflag.MaxLine(cmd, &fl.maxLine)
}

// Run validates the files args name (data.ValidateFiles); its exit status
// is 1 when a file could not be read, 2 when a record was rejected.
func (fl *validateFlags) Run(cmd *cobra.Command, args []string) error {
	v, err := data.ValidateFiles(args, data.ValidateOptions{MaxListed: fl.maxShown, FeatureWidth: fl.width, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	if err := cliflag.Show(cmd, fl.asJSON, v, v.WriteText); err != nil {
		return err
	}
	if c := v.Counts; c.Unreadable > 0 {
		return &cliflag.ExitError{Code: 1, Err: fmt.Errorf("%d of %d files could not be read", c.Unreadable, c.Files)}
	} else if c.Rejected > 0 {
		return &cliflag.ExitError{Code: 2, Err: fmt.Errorf("%d of %d records rejected", c.Rejected, c.Read)}
	}
	return nil
}

// packFlags are data pack's flags.
type packFlags struct {
	rf                             rewardFlags
	out, features                  string
	shardRows, featureWidth, maxLn int
	skipInvalid, asJSON            bool
}

func (fl *packFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the pack's directory, empty or new (required)")
	f.Var(cliflag.Count(&fl.shardRows, data.DefaultRowsPerShard), "shard-rows", "most decisions per shard (bounds a reader's memory)")
	shared(f, &fl.skipInvalid, "skip-invalid", "")
	shared(f, cliflag.Count(&fl.featureWidth, 0), "feature-width", "")
	shared(f, &fl.features, "features", "", ": the episodes' decisions are featurized in it and the manifest records it (default: mpdf-features/v1)")
	shared(f, &fl.asJSON, "json", "")
	cliflag.MaxLine(cmd, &fl.maxLn)
	fl.rf.Add(cmd)
	_ = cmd.MarkFlagRequired("out")
}

// Run packs the rollout files args name.
func (fl *packFlags) Run(cmd *cobra.Command, args []string) error {
	cfg, err := fl.rf.Config()
	if err != nil {
		return err
	}
	r, err := data.Open(args, data.ReaderOptions{Hash: true, Skip: fl.skipInvalid, FeatureWidth: fl.featureWidth, MaxLineBytes: fl.maxLn})
	if err != nil {
		return err
	}
	defer r.Close()
	m, err := data.WritePack(fl.out, r, data.PackOptions{RowsPerShard: fl.shardRows, Reward: cfg, FeatureVersion: fl.features})
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, m, func(w io.Writer) error { return m.WriteSummary(w, fl.out) })
}

// statsFlags are data stats' flags.
type statsFlags struct {
	rf      rewardFlags
	asJSON  bool
	maxLine int
}

func (fl *statsFlags) Add(cmd *cobra.Command) {
	shared(cmd.Flags(), &fl.asJSON, "json", "")
	cliflag.MaxLine(cmd, &fl.maxLine)
	fl.rf.Add(cmd)
}

// Run summarises the rollouts args name (data.ReadStats).
func (fl *statsFlags) Run(cmd *cobra.Command, args []string) error {
	cfg, err := fl.rf.Config()
	if err != nil {
		return err
	}
	st, err := data.ReadStats(args, cfg, fl.rf.Changed(cmd), fl.maxLine)
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, st, st.WriteText)
}
