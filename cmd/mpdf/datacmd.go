package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/cliflag"
)

func init() { register(newDataCmd) }

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "data",
	}
	cmd.AddCommand(newValidateCmd(), newPackCmd(), newStatsCmd(), newCorpusCmd())
	cmd.AddCommand(newSignalCmd(), newHindsightCmd()) // signalcmd.go
	cmd.AddCommand(newMergeCmd())                     // mergecmd.go
	return cmd
}

// rewardFlags are the reward and grouping of decisions made from episodes
// (design §2, §3), bound as train binds them (bindReward).
type rewardFlags struct{ c data.RewardConfig }

func (r *rewardFlags) add(cmd *cobra.Command) {
	r.c = data.DefaultRewardConfig()
	bindReward(cmd.Flags(), &r.c)
}

// changed reports whether any reward flag was given.
func (r *rewardFlags) changed(cmd *cobra.Command) bool {
	return len(cliflag.Given(cmd.Flags(), "w-local", "w-global", "lambda", "group-by")) > 0
}

func (r *rewardFlags) config() (data.RewardConfig, error) { return r.c, checkReward(r.c) }

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newValidateCmd() *cobra.Command {
	var (
		maxShown, width, maxLine int
		asJSON                   bool
	)
	cmd := command("validate FILES...", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		v, err := data.ValidateFiles(args, data.ValidateOptions{MaxListed: maxShown, FeatureWidth: width, MaxLineBytes: maxLine})
		if err != nil {
			return err
		}
		if err := show(cmd, asJSON, v, v.WriteText); err != nil {
			return err
		}
		return validateExit(v.Counts)
	})
	f := cmd.Flags()
	f.Var(cliflag.Count(&maxShown, 50), "max-errors", "most rejected records and repeated ids to list, ≥ 0 (all are counted)")
	shared(f, cliflag.Count(&width, 0), "feature-width", "")
	shared(f, &asJSON, "json", "")
	addMaxLineFlag(cmd, &maxLine)
	return cmd
}

// validateExit is validate's exit status: 1 when a file could not be
// read, 2 when a record was rejected.
func validateExit(c data.Counts) error {
	if c.Unreadable > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", c.Unreadable, c.Files)}
	}
	if c.Rejected > 0 {
		return &exitError{code: 2, err: fmt.Errorf("%d of %d records rejected", c.Rejected, c.Read)}
	}
	return nil
}

// show prints a command's result v to its output: as indented JSON, or
// as text writes it.
func show(cmd *cobra.Command, asJSON bool, v any, text func(io.Writer) error) error {
	if asJSON {
		return printJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout())
}

// packFlags are pack's flags.
type packFlags struct {
	rf                             rewardFlags
	out, features                  string
	shardRows, featureWidth, maxLn int
	skipInvalid, asJSON            bool
}

func newPackCmd() *cobra.Command {
	var fl packFlags
	cmd := command("pack FILES... --out DIR [--shard-rows N]", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error { return runPack(cmd, args, &fl) })
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the pack's directory, empty or new (required)")
	f.Var(cliflag.Count(&fl.shardRows, data.DefaultRowsPerShard), "shard-rows", "most decisions per shard (bounds a reader's memory)")
	shared(f, &fl.skipInvalid, "skip-invalid", "")
	shared(f, cliflag.Count(&fl.featureWidth, 0), "feature-width", "")
	shared(f, &fl.features, "features", "", ": the episodes' decisions are featurized in it and the manifest records it (default: mpdf-features/v1)")
	shared(f, &fl.asJSON, "json", "")
	addMaxLineFlag(cmd, &fl.maxLn)
	fl.rf.add(cmd)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// runPack packs the rollout files args name.
func runPack(cmd *cobra.Command, args []string, fl *packFlags) error {
	cfg, err := fl.rf.config()
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
	return show(cmd, fl.asJSON, m, func(w io.Writer) error { return m.WriteSummary(w, fl.out) })
}

func newStatsCmd() *cobra.Command {
	var (
		rf      rewardFlags
		asJSON  bool
		maxLine int
	)
	cmd := command("stats FILES...|DIR", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		cfg, err := rf.config()
		if err != nil {
			return err
		}
		st, err := data.ReadStats(args, cfg, rf.changed(cmd), maxLine)
		if err != nil {
			return err
		}
		return show(cmd, asJSON, st, st.WriteText)
	})
	shared(cmd.Flags(), &asJSON, "json", "")
	addMaxLineFlag(cmd, &maxLine)
	rf.add(cmd)
	return cmd
}
