package corpus

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/metapolicy"
)

// BaselineRow is the accuracy of two fixed behaviours on a set of transcripts:
// Persist, the team answer of round 0 (every agent keeps its independent
// answer), and Debate, the team answer of the last recorded round (every
// agent refined every round, as recorded). Team answers are
// metapolicy.TeamAnswer with confidence missing; questions without a
// readable gold answer are left out and counted in NoGold.
type BaselineRow struct {
	Task   answer.Kind
	Model  string
	Agents int // team size; 0 when the row pools several
	Files  int
	// Questions is the number of questions scored (gold readable).
	Questions, NoGold             int
	PersistCorrect, DebateCorrect int
}

// Persist is round-0 majority accuracy (0 for no questions).
func (r BaselineRow) Persist() float64 { return frac(r.PersistCorrect, r.Questions) }

// Debate is final-round majority accuracy (0 for no questions).
func (r BaselineRow) Debate() float64 { return frac(r.DebateCorrect, r.Questions) }

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Baselines scores every file: one row per file, in the given order.
func Baselines(files []*transcript.File) []BaselineRow {
	rows := make([]BaselineRow, 0, len(files))
	var buf []string
	for _, f := range files {
		row := BaselineRow{Task: f.Report.Task, Model: f.Report.Model, Agents: f.Report.Agents, Files: 1}
		for i := range f.Questions {
			q := &f.Questions[i]
			if q.Gold == "" {
				row.NoGold++
				continue
			}
			row.Questions++
			buf = q.Answers(buf, 0)
			if metapolicy.TeamAnswer(buf, nil, -1) == q.Gold {
				row.PersistCorrect++
			}
			buf = q.Answers(buf, q.Rounds())
			if metapolicy.TeamAnswer(buf, nil, -1) == q.Gold {
				row.DebateCorrect++
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ByModel pools rows by task and model, summing their counts, ordered by
// task then model. A pooled row keeps the team size only when all its rows
// share it.
func ByModel(rows []BaselineRow) []BaselineRow {
	var out []BaselineRow
	for _, r := range rows {
		i := slices.IndexFunc(out, func(o BaselineRow) bool { return o.Task == r.Task && o.Model == r.Model })
		if i < 0 {
			out = append(out, r)
			continue
		}
		o := &out[i]
		if o.Agents != r.Agents {
			o.Agents = 0
		}
		o.Files += r.Files
		o.Questions += r.Questions
		o.NoGold += r.NoGold
		o.PersistCorrect += r.PersistCorrect
		o.DebateCorrect += r.DebateCorrect
	}
	slices.SortStableFunc(out, func(a, b BaselineRow) int {
		return cmp.Or(cmp.Compare(a.Task, b.Task), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// WriteBaselines writes the rows as a table: task, model, agents, files,
// questions, persist and debate accuracy, and their difference in points.
func WriteBaselines(w io.Writer, rows []BaselineRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tmodel\tagents\tfiles\tquestions\tpersist\tdebate\tdebate−persist\t")
	for _, r := range rows {
		agents, model := "all", r.Model
		if r.Agents > 0 {
			agents = fmt.Sprint(r.Agents)
		}
		if model == "" {
			model = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f%%\t%.1f%%\t%+.1f\t\n", r.Task, model, agents, r.Files,
			r.Questions, 100*r.Persist(), 100*r.Debate(), 100*(r.Debate()-r.Persist()))
	}
	return tw.Flush()
}
