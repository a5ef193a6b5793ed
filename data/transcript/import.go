package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/data"
)

// Imported is what Import wrote.
type Imported struct {
	Episodes int64    // episodes written
	NoGold   int      // of them without a readable gold answer (no reward)
	Reports  []Report // one per file, in order
	out      string
}

// MarshalJSON encodes im as mpdf import --json prints it: the output, the
// episodes, those without gold and a FileSummary per file.
func (im *Imported) MarshalJSON() ([]byte, error) {
	fs := make([]FileSummary, len(im.Reports))
	for i := range im.Reports {
		fs[i] = im.Reports[i].Summary()
	}
	return json.Marshal(struct {
		Out      string        `json:"out"`
		Episodes int64         `json:"episodes"`
		NoGold   int           `json:"episodes_without_gold"`
		Files    []FileSummary `json:"files"`
	}{im.out, im.Episodes, im.NoGold, fs})
}

// WriteText writes the files' reports (WriteReports) and what was written.
func (im *Imported) WriteText(w io.Writer) error {
	if err := WriteReports(w, im.Reports); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "wrote %d episodes from %d files to %s (%d without a readable gold answer: no reward)\n",
		im.Episodes, len(im.Reports), im.out, im.NoGold)
	return err
}

// ImportOptions say how Import reads and writes.
type ImportOptions struct {
	Options                     // how to read files whose names do not say
	Episode      EpisodeOptions // what the episodes keep
	MaxLineBytes int            // longest record line written (data.Writer.SetMaxLineBytes)
}

// Import converts every usable question of the transcript files paths into
// an episode (ToEpisode) and writes them to the episodes file out (.jsonl,
// .jsonl.gz or .jsonl.zst), streamed, through a temporary file renamed over
// out on success: a failed import leaves out as it was. Episode ids are
// BASE#INDEX, so two files with one base name are refused.
func Import(out string, paths []string, opts ImportOptions) (*Imported, error) {
	bases := map[string]string{}
	for _, p := range paths {
		b := filepath.Base(p)
		if q, ok := bases[b]; ok {
			return nil, fmt.Errorf("%s and %s share the base name %s: their episode ids would collide", q, p, b)
		}
		bases[b] = p
	}
	w, err := data.CreateFrom(out, paths...)
	if err != nil {
		return nil, err
	}
	w.SetMaxLineBytes(opts.MaxLineBytes)
	im := &Imported{out: out}
	for _, p := range paths {
		rep, err := importFile(w, p, opts, im)
		if err != nil {
			w.Abort() // out is left as it was
			return nil, err
		}
		im.Reports = append(im.Reports, *rep)
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	im.Episodes = w.Records()
	return im, nil
}

// importFile streams the questions of the file p into w as episodes.
func importFile(w *data.Writer, p string, opts ImportOptions, im *Imported) (*Report, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ro := opts.Options
	ro.SkipCritic = ro.SkipCritic || !opts.Episode.Critic // no confidence asked for: no critic
	return Each(f, p, ro, func(q *Question) error {
		ep := ToEpisode(q, opts.Episode)
		if ep.Gold == "" {
			im.NoGold++
		}
		if err := w.WriteEpisode(&ep); err != nil {
			return fmt.Errorf("%s: question %d: %w", p, q.Index, err)
		}
		return nil
	})
}

// FileSummary is one file's Report in brief: what mpdf import --json
// prints per file.
type FileSummary struct {
	File            string   `json:"file"`
	Task            string   `json:"task"`
	Model           string   `json:"model,omitempty"`
	Agents          int      `json:"agents"`
	Rounds          int      `json:"rounds"`
	Questions       int      `json:"questions"`
	GoldMissing     int      `json:"gold_missing"`
	Skipped         []string `json:"skipped"`
	Answers         int      `json:"answers"`
	Unreadable      int      `json:"unreadable"`
	UnreadableShare float64  `json:"unreadable_share"`
	Warnings        []string `json:"warnings"`
}

// Summary is r in brief.
func (r *Report) Summary() FileSummary {
	tot := r.Total()
	return FileSummary{File: r.File, Task: string(r.Task), Model: r.Model, Agents: r.Agents,
		Rounds: r.Rounds, Questions: r.Questions, GoldMissing: r.GoldMissing,
		Skipped: nonNil(r.Skipped), Answers: tot.Answers, Unreadable: tot.Unreadable,
		UnreadableShare: tot.Share(), Warnings: nonNil(r.Warnings)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
