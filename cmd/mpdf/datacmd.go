package main

import (
	"encoding/json"
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
		command[validateFlags]("validate FILES...", cobra.MinimumNArgs(1)),
		command[packFlags]("pack FILES... --out DIR [--shard-rows N]", cobra.MinimumNArgs(1)),
		command[statsFlags]("stats FILES...|DIR", cobra.MinimumNArgs(1)),
		command[corpusFlags]("corpus TRANSCRIPTS... [--json]", cobra.MinimumNArgs(1)), // corpus.go
		command[signalFlags]("signal TRANSCRIPTS...", cobra.MinimumNArgs(1)),          // signalcmd.go
		command[hindsightFlags]("hindsight TRANSCRIPTS...", cobra.MinimumNArgs(1)),    // signalcmd.go
		command[mergeFlags]("merge SHARDS... --out FILE", cobra.MinimumNArgs(1)),      // mergecmd.go
	)
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

// show prints a command's result v to its output: as indented JSON, or
// as text writes it.
func show(cmd *cobra.Command, asJSON bool, v any, text func(io.Writer) error) error {
	if asJSON {
		return printJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout())
}

// validateFlags are data validate's flags.
type validateFlags struct {
	maxShown, width, maxLine int
	asJSON                   bool
}

func (fl *validateFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Var(cliflag.Count(&fl.maxShown, 50), "max-errors", "most rejected records and repeated ids to list, ≥ 0 (all are counted)")
	shared(f, cliflag.Count(&fl.width, 0), "feature-width", "")
	shared(f, &fl.asJSON, "json", "")
	addMaxLineFlag(cmd, &fl.maxLine)
}

// run validates the files args name (data.ValidateFiles); its exit status
// is 1 when a file could not be read, 2 when a record was rejected.
func (fl *validateFlags) run(cmd *cobra.Command, args []string) error {
	v, err := data.ValidateFiles(args, data.ValidateOptions{MaxListed: fl.maxShown, FeatureWidth: fl.width, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	if err := show(cmd, fl.asJSON, v, v.WriteText); err != nil {
		return err
	}
	if c := v.Counts; c.Unreadable > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", c.Unreadable, c.Files)}
	} else if c.Rejected > 0 {
		return &exitError{code: 2, err: fmt.Errorf("%d of %d records rejected", c.Rejected, c.Read)}
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

func (fl *packFlags) add(cmd *cobra.Command) {
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
}

// run packs the rollout files args name.
func (fl *packFlags) run(cmd *cobra.Command, args []string) error {
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

// statsFlags are data stats' flags.
type statsFlags struct {
	rf      rewardFlags
	asJSON  bool
	maxLine int
}

func (fl *statsFlags) add(cmd *cobra.Command) {
	shared(cmd.Flags(), &fl.asJSON, "json", "")
	addMaxLineFlag(cmd, &fl.maxLine)
	fl.rf.add(cmd)
}

// run summarises the rollouts args name (data.ReadStats).
func (fl *statsFlags) run(cmd *cobra.Command, args []string) error {
	cfg, err := fl.rf.config()
	if err != nil {
		return err
	}
	st, err := data.ReadStats(args, cfg, fl.rf.changed(cmd), fl.maxLine)
	if err != nil {
		return err
	}
	return show(cmd, fl.asJSON, st, st.WriteText)
}
