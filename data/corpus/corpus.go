package corpus

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/metapolicy"
)

// FileRow describes one transcript file, or the pool of all of them.
type FileRow struct {
	File   string            `json:"file"` // "" in the pooled row
	Task   answer.Kind       `json:"task"`
	Models []string          `json:"models"` // the name's model, or each agent's (heterogeneous team)
	Layout transcript.Layout `json:"layout"`
	// Agents and Rounds are the largest team and the most deliberation
	// rounds (round 0 not counted) of any question.
	Agents    int `json:"agents"`
	Rounds    int `json:"rounds"`
	Questions int `json:"questions"`
	// Unreadable[t] is the unreadable share of round t's answers.
	Unreadable []float64 `json:"unreadable_share"`
	// Scored counts the questions with a readable gold; the accuracies and
	// Unanimous are over them.
	Scored int `json:"scored"`
	// Round0Majority and FinalMajority are the accuracies of the team
	// answer (metapolicy.TeamAnswer, confidence missing) of round 0 and
	// of the last recorded round.
	Round0Majority float64 `json:"round0_majority"`
	FinalMajority  float64 `json:"final_majority"`
	// Unanimous is the share of questions whose round-0 answers are all
	// one readable answer.
	Unanimous float64 `json:"round0_unanimous"`
	// Revisions counts an agent's answer changing from one recorded round
	// to its next; Fixes are wrong → right, Breaks right → wrong.
	Revisions int `json:"revisions"`
	Fixes     int `json:"fixes"`
	Breaks    int `json:"breaks"`
	// Shared counts questions (by QuestionID) that another file of the set
	// also holds; the pooled row counts each such question once.
	Shared int `json:"shared_questions"`

	answers, unread []int
	r0, fin, unan   int
}

// Table is the table of a set of transcripts: a row per file, then the
// pooled row.
type Table struct {
	Files  []FileRow `json:"files"`
	Pooled FileRow   `json:"pooled"`
}

// Read reads every file (streaming, with opts) and tabulates it.
// A question debated in several files counts once in the pooled row (its
// first occurrence, in the order given) and is flagged in each file's
// Shared.
func Read(paths []string, opts transcript.Options) (*Table, error) {
	c := &Table{}
	owner := map[string]int{} // question ID → first file index
	ids := make([][]string, len(paths))
	pool := &c.Pooled
	pool.Task = ""
	opts.SkipCritic = true // the table reads no confidence
	for i, p := range paths {
		var row FileRow
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		rep, err := transcript.Each(f, p, opts, func(q *transcript.Question) error {
			row.addQuestion(q)
			ids[i] = append(ids[i], q.ID)
			if _, ok := owner[q.ID]; !ok {
				owner[q.ID] = i
				pool.addQuestion(q)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return nil, err
		}
		row.File, row.Task, row.Layout, row.Agents, row.Rounds = rep.File, rep.Task, rep.Layout, rep.Agents, rep.Rounds
		row.Models = rep.Models
		if row.Models == nil && rep.Model != "" {
			row.Models = []string{rep.Model}
		}
		for _, m := range row.Models {
			if !slices.Contains(pool.Models, m) {
				pool.Models = append(pool.Models, m)
			}
		}
		switch {
		case i == 0:
			pool.Task = row.Task
		case pool.Task != row.Task:
			pool.Task = "mixed"
		}
		pool.Agents, pool.Rounds = max(pool.Agents, row.Agents), max(pool.Rounds, row.Rounds)
		c.Files = append(c.Files, row)
	}
	count := map[string]int{}
	for i := range ids {
		seen := map[string]bool{}
		for _, id := range ids[i] {
			if !seen[id] {
				seen[id] = true
				count[id]++
			}
		}
	}
	for i := range ids {
		for _, id := range ids[i] {
			if count[id] > 1 {
				c.Files[i].Shared++
			}
		}
	}
	for _, n := range count {
		if n > 1 {
			pool.Shared++
		}
	}
	c.Pooled.Layout = ""
	for i := range c.Files {
		c.Files[i].finish()
	}
	pool.finish()
	return c, nil
}

// addQuestion adds one question's counts.
func (r *FileRow) addQuestion(q *transcript.Question) {
	r.Questions++
	for _, as := range q.Agents {
		for t, a := range as {
			for len(r.answers) <= t {
				r.answers, r.unread = append(r.answers, 0), append(r.unread, 0)
			}
			r.answers[t]++
			if a.Answer == "" {
				r.unread[t]++
			}
		}
	}
	if q.Gold == "" {
		return
	}
	r.Scored++
	buf := q.Answers(nil, 0)
	if metapolicy.TeamAnswer(buf, nil, -1) == q.Gold {
		r.r0++
	}
	if unanimous(buf) {
		r.unan++
	}
	if metapolicy.TeamAnswer(q.Answers(buf, q.Rounds()), nil, -1) == q.Gold {
		r.fin++
	}
	for _, as := range q.Agents {
		for t := 1; t < len(as); t++ {
			prev, cur := as[t-1].Answer, as[t].Answer
			if prev == cur {
				continue
			}
			r.Revisions++
			switch {
			case prev != q.Gold && cur == q.Gold:
				r.Fixes++
			case prev == q.Gold && cur != q.Gold:
				r.Breaks++
			}
		}
	}
}

func (r *FileRow) finish() {
	r.Unreadable = make([]float64, len(r.answers))
	for t := range r.answers {
		r.Unreadable[t] = frac(r.unread[t], r.answers[t])
	}
	r.Round0Majority, r.FinalMajority, r.Unanimous = frac(r.r0, r.Scored), frac(r.fin, r.Scored), frac(r.unan, r.Scored)
	if r.Models == nil {
		r.Models = []string{}
	}
}

// Write writes the table: one row per file, then the pooled row.
func Write(w io.Writer, c *Table) error {
	rounds := len(c.Pooled.Unreadable)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"task", "model(s)", "agents×answers", "questions"} // answers per agent: round 0 and each deliberation round (import says the rounds)
	for t := range rounds {
		head = append(head, fmt.Sprintf("unread r%d", t))
	}
	head = append(head, "maj r0", "maj final", "unanimous r0", "revisions", "fixes", "breaks", "shared", "file")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	rows := append(append([]FileRow(nil), c.Files...), c.Pooled)
	for i := range rows {
		r := &rows[i]
		models := strings.Join(r.Models, "+")
		if r.File == "" && len(r.Models) > 1 {
			models = fmt.Sprintf("%d models", len(r.Models))
		}
		if models == "" {
			models = "-"
		}
		file := r.File
		if file == "" {
			file = fmt.Sprintf("(pooled: %d files, shared questions once)", len(c.Files))
		}
		row := []string{string(r.Task), models, fmt.Sprintf("%d×%d", r.Agents, r.Rounds+1), fmt.Sprint(r.Questions)}
		for t := range rounds {
			if t < len(r.Unreadable) {
				row = append(row, fmt.Sprintf("%.1f%%", 100*r.Unreadable[t]))
			} else {
				row = append(row, "-")
			}
		}
		row = append(row, fmt.Sprintf("%.1f%%", 100*r.Round0Majority), fmt.Sprintf("%.1f%%", 100*r.FinalMajority),
			fmt.Sprintf("%.1f%%", 100*r.Unanimous), fmt.Sprint(r.Revisions), fmt.Sprint(r.Fixes), fmt.Sprint(r.Breaks),
			fmt.Sprint(r.Shared), file)
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// unanimous reports whether every answer is the same readable one.
func unanimous(as []string) bool {
	for _, a := range as {
		if a == "" || a != as[0] {
			return false
		}
	}
	return len(as) > 0
}
