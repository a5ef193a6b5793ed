package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

func init() { register(newDataCmd) }

func newDataCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Validate, pack and summarise rollout files",
		Long: `The data commands work on rollouts: JSON Lines files (.jsonl, optionally
.gz or .zst) of episode and decision records (docs/schema). FILES are
paths or filepath.Match globs ('runs/*.jsonl.zst'), read in order.`,
	}
	cmd.AddCommand(newValidateCmd(), newPackCmd(), newStatsCmd(), newCorpusCmd())
	cmd.AddCommand(newSignalCmd(), newHindsightCmd()) // signalcmd.go
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
	for _, n := range []string{"w-local", "w-global", "lambda", "group-by"} {
		if cmd.Flags().Changed(n) {
			return true
		}
	}
	return false
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
	cmd := &cobra.Command{
		Use:   "validate FILES...",
		Short: "Check every record; list the rejected ones as file:line: field: reason",
		Long: `Validate reads every record of FILES and checks it against the episode and
decision rules. It prints each rejected record as file:line: field: reason
(the first --max-errors of them, then how many more), a warning for each
episode whose id an earlier one had, and always the counts of every file,
read, accepted and rejected, and their total. A file that cannot be read
(missing, not gzip/zstd as named, corrupt) is named with its error and the
others are still read. A file cut mid-record (its writer was killed) ends
in a rejected record reported as torn.

Exit status: 0 when every record is accepted, 2 when any is rejected,
1 when a file cannot be read.`,
		Example: `  mpdf data validate rollouts.jsonl.zst
  mpdf data validate 'runs/*.jsonl' --max-errors 10`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxShown < 0 {
				return fmt.Errorf("--max-errors %d: want ≥ 0 (0 lists none; all are counted)", maxShown)
			}
			if width < 0 {
				return fmt.Errorf("--feature-width %d: want ≥ 0", width)
			}
			if err := checkMaxLine(maxLine); err != nil {
				return err
			}
			o := cmd.OutOrStdout()
			var errs []*data.RecordError
			var shown int64
			opts := data.ReaderOptions{Skip: true, FeatureWidth: width, MaxLineBytes: maxLine, SkipUnreadable: true,
				KeepErrors: maxShown, OnReject: func(e *data.RecordError) {
					if shown < int64(maxShown) {
						if asJSON {
							errs = append(errs, e)
						} else {
							fmt.Fprintln(o, e.Error())
						}
						shown++
					}
				}}
			if maxShown == 0 {
				opts.KeepErrors = -1
			}
			r, err := data.Open(args, opts)
			if err != nil {
				return err
			}
			defer r.Close()
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
			}
			c := r.Counts()
			more := c.Rejected - shown
			dups := r.Duplicates()
			if asJSON {
				type rejected struct {
					File   string `json:"file"`
					Line   int    `json:"line"`
					Field  string `json:"field"`
					Reason string `json:"reason"`
					Torn   bool   `json:"torn,omitempty"`
				}
				rs := make([]rejected, len(errs))
				for i, e := range errs {
					rs[i] = rejected{e.File, e.Line, e.Field, e.Reason, e.Torn}
				}
				if err := printJSON(o, struct {
					Counts     data.Counts        `json:"counts"`
					Files      []data.FileStats   `json:"files"`
					Rejected   []rejected         `json:"rejected"`
					NotPrinted int64              `json:"rejected_not_listed"`
					Duplicates []data.DuplicateID `json:"duplicate_ids"`
				}{c, r.Files(), rs, more, append([]data.DuplicateID{}, dups...)}); err != nil {
					return err
				}
			} else {
				if more > 0 {
					fmt.Fprintf(o, "... and %d more rejected records\n", more)
				}
				for _, d := range dups {
					fmt.Fprintf(o, "warning: %s: episode id %q repeats an earlier episode's\n", d.Pos, d.ID)
				}
				if n := c.DuplicateIDs - int64(len(dups)); n > 0 {
					fmt.Fprintf(o, "... and %d more repeated episode ids\n", n)
				}
				for _, f := range r.Files() {
					if f.Error != "" {
						fmt.Fprintf(o, "%s: unreadable: %s (read %d records before it: accepted %d, rejected %d)\n",
							f.Path, f.Error, f.Read, f.Accepted, f.Rejected)
						continue
					}
					if len(args) > 1 || c.Files > 1 {
						fmt.Fprintf(o, "%s: read %d records, accepted %d, rejected %d\n", f.Path, f.Read, f.Accepted, f.Rejected)
					}
				}
				fmt.Fprintf(o, "%d files: read %d records, accepted %d (%d episodes, %d decisions), rejected %d",
					c.Files, c.Read, c.Accepted, c.Episodes, c.Decisions, c.Rejected)
				if c.DuplicateIDs > 0 {
					fmt.Fprintf(o, "; %d repeated episode ids", c.DuplicateIDs)
				}
				if c.Unreadable > 0 {
					fmt.Fprintf(o, "; %d files unreadable", c.Unreadable)
				}
				fmt.Fprintln(o)
			}
			if c.Unreadable > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d files could not be read", c.Unreadable, c.Files)}
			}
			if c.Rejected > 0 {
				return &exitError{code: 2, err: fmt.Errorf("%d of %d records rejected", c.Rejected, c.Read)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&maxShown, "max-errors", 50, "most rejected records and repeated ids to list, ≥ 0 (all are counted)")
	f.IntVar(&width, "feature-width", 0, "width decision records must have (0 = that of the first decision)")
	f.BoolVar(&asJSON, "json", false, "print the counts, files and rejected records as JSON")
	addMaxLineFlag(cmd, &maxLine)
	return cmd
}

func newPackCmd() *cobra.Command {
	var (
		rf           rewardFlags
		out          string
		shardRows    int
		skipInvalid  bool
		asJSON       bool
		featureWidth int
		maxLine      int
	)
	cmd := &cobra.Command{
		Use:   "pack FILES... --out DIR [--shard-rows N]",
		Short: "Turn rollouts into packed columnar shards of training decisions",
		Long: `Pack reads FILES and writes their training decisions to DIR as a pack:
zstd-compressed columnar shards of at most --shard-rows decisions and a
manifest.json recording the reward, the counts and every source's SHA-256.
Training reads a pack many times without parsing JSON again.

Episodes become one decision per agent per deliberation round, with the
differential consensus reward (--w-local, --w-global, --lambda) and the group
key of --group-by; decision records pass as they are. Episodes without a gold
answer yield no decision and are counted. DIR must be empty or not exist.
A rejected record stops the packing (run mpdf data validate), unless
--skip-invalid.`,
		Example: `  mpdf data pack rollouts.jsonl.zst --out packs/sim
  mpdf data pack 'runs/*.jsonl' --out packs/cost --lambda 0.1 --group-by task+round`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := rf.config()
			if err != nil {
				return err
			}
			if shardRows < 0 {
				return fmt.Errorf("--shard-rows %d: want ≥ 0", shardRows)
			}
			if featureWidth < 0 {
				return fmt.Errorf("--feature-width %d: want ≥ 0", featureWidth)
			}
			if err := checkMaxLine(maxLine); err != nil {
				return err
			}
			r, err := data.Open(args, data.ReaderOptions{Hash: true, Skip: skipInvalid, FeatureWidth: featureWidth, MaxLineBytes: maxLine})
			if err != nil {
				return err
			}
			defer r.Close()
			m, err := data.WritePack(out, r, data.PackOptions{RowsPerShard: shardRows, Reward: cfg})
			if err != nil {
				return err
			}
			o := cmd.OutOrStdout()
			if asJSON {
				return printJSON(o, m)
			}
			return writeManifest(o, out, m)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "", "directory of the pack, empty or new (required)")
	f.IntVar(&shardRows, "shard-rows", data.DefaultRowsPerShard, "most decisions per shard (bounds a reader's memory)")
	f.BoolVar(&skipInvalid, "skip-invalid", false, "skip rejected records (counted in the manifest) instead of stopping")
	f.IntVar(&featureWidth, "feature-width", 0, "width decision records must have (0 = that of the first decision)")
	f.BoolVar(&asJSON, "json", false, "print the manifest as JSON")
	addMaxLineFlag(cmd, &maxLine)
	rf.add(cmd)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// writeManifest prints what a pack holds.
func writeManifest(w io.Writer, dir string, m *data.Manifest) error {
	c, s := m.Counts, m.Stream
	fmt.Fprintf(w, "read %d records from %d files: accepted %d (%d episodes, %d decisions), rejected %d\n",
		c.Read, c.Files, c.Accepted, c.Episodes, c.Decisions, c.Rejected)
	fmt.Fprintf(w, "decisions: %d from episodes, %d decision records; %d episodes without gold skipped\n",
		s.FromEpisodes, s.FromRecords, s.NoGold)
	if c.DuplicateIDs > 0 {
		fmt.Fprintf(w, "warning: %d episodes repeat an earlier episode's id (mpdf data validate lists them)\n", c.DuplicateIDs)
	}
	var bytes int64
	for _, sh := range m.Shards {
		bytes += sh.Bytes
	}
	fv := m.FeatureVersion
	if fv == "" {
		fv = "unknown"
	}
	fmt.Fprintf(w, "pack %s: %d rows in %d shards (%d bytes), %d groups, feature width %d (%s)\n",
		dir, m.Rows, len(m.Shards), bytes, len(m.Groups), m.FeatureWidth, fv)
	r := m.Reward
	_, err := fmt.Fprintf(w, "reward: w_local %g, w_global %g, lambda %g, grouped by %s\n", r.WLocal, r.WGlobal, r.Lambda, r.GroupBy)
	return err
}

func newStatsCmd() *cobra.Command {
	var (
		rf      rewardFlags
		asJSON  bool
		maxLine int
	)
	cmd := &cobra.Command{
		Use:   "stats FILES...|DIR",
		Short: "Summarise rollouts or a pack: counts, accuracy, actions, rewards",
		Long: `Stats summarises a data set: record counts, team sizes and rounds, team
accuracy in round 0 and in the last round, tokens, and the training
decisions it yields — their number and groups, the share of each action,
and the reward's mean, spread and range.

Rewards of episodes follow the reward flags. DIR is a pack written by
mpdf data pack, whose rewards were fixed when it was packed (its manifest
says how); reward flags are refused with one. Rejected records are skipped
and counted: mpdf data validate lists them.`,
		Example: `  mpdf data stats rollouts.jsonl.zst
  mpdf data stats packs/sim --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var st *data.Stats
			if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() {
				if len(args) > 1 {
					return fmt.Errorf("%s is a pack directory: give it alone", args[0])
				}
				if rf.changed(cmd) {
					return fmt.Errorf("%s is a pack: its rewards were fixed when packed (see its %s); drop the reward flags",
						args[0], data.ManifestName)
				}
				if st, err = packStats(args[0]); err != nil {
					return err
				}
			} else {
				cfg, err := rf.config()
				if err != nil {
					return err
				}
				if err := checkMaxLine(maxLine); err != nil {
					return err
				}
				r, err := data.Open(args, data.ReaderOptions{Skip: true, KeepErrors: -1, MaxLineBytes: maxLine})
				if err != nil {
					return err
				}
				defer r.Close()
				if st, err = data.CollectStats(r, cfg); err != nil {
					return err
				}
			}
			o := cmd.OutOrStdout()
			if asJSON {
				return printJSON(o, st)
			}
			if err := st.Write(o); err != nil {
				return err
			}
			if st.Counts.Rejected > 0 {
				fmt.Fprintf(o, "%d records were rejected and skipped: mpdf data validate lists them\n", st.Counts.Rejected)
			}
			if st.Counts.DuplicateIDs > 0 {
				fmt.Fprintf(o, "warning: %d episodes repeat an earlier episode's id: mpdf data validate lists them\n", st.Counts.DuplicateIDs)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	addMaxLineFlag(cmd, &maxLine)
	rf.add(cmd)
	return cmd
}

// packStats summarises a pack from its actions, rewards and groups; the
// features are not decompressed.
func packStats(dir string) (*data.Stats, error) {
	p, err := data.OpenPack(dir)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	m := p.Manifest()
	st, err := data.NewStats(m.Reward)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, data.ManifestName), err)
	}
	st.Counts = m.Counts
	names := p.GroupNames()
	features := make([]float64, p.Width()) // Stats reads only the width
	var cols data.Columns
	sc := p.Scan(data.SelectActions | data.SelectRewards | data.SelectGroups)
	for {
		err := sc.ReadColumns(&cols)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for i := range cols.Len() {
			d := data.Decision{Kind: data.KindDecision, Group: names[cols.Groups[i]], Features: features,
				Action: metapolicy.Action(cols.Actions[i]), Reward: cols.Rewards[i]}
			if err := st.Add(data.Record{Decision: &d}); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}
