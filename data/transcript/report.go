package transcript

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/answer"
)

// Report says what a transcript held and how much of it could be read.
type Report struct {
	File  string
	Task  answer.Kind
	Model string // "" when neither the name nor the options say
	// Agents and Rounds are read from the content: the largest team and the
	// most deliberation rounds (round 0 not counted) of any question.
	Agents, Rounds int
	Questions      int      // usable questions
	GoldMissing    int      // questions whose gold answer could not be read
	Skipped        []string // questions left out, with why
	// PerRound[t] counts the answers of round t and the unreadable ones.
	PerRound []RoundCount
	// Warnings note where the content disagrees with the file name.
	Warnings []string
	// Layout is the layout read; Variants name its departures from the
	// plain LLM-Debate layout that the file showed ("plain-string
	// contexts", "system messages", "extra value elements", "ragged teams",
	// "heterogeneous team").
	Layout   Layout
	Variants []string
	// Models lists the agents' models of a heterogeneous team, in the
	// order first seen.
	Models []string
	// Ragged counts questions where some agent recorded fewer answers than
	// another (it stopped speaking and keeps its last answer).
	Ragged int
}

// RoundCount counts one round's answers.
type RoundCount struct {
	Answers, Unreadable int
}

// Share is the unreadable fraction of the answers (0 when there are none).
func (c RoundCount) Share() float64 {
	if c.Answers == 0 {
		return 0
	}
	return float64(c.Unreadable) / float64(c.Answers)
}

// Total sums the counts over all rounds.
func (r *Report) Total() RoundCount {
	var t RoundCount
	for _, c := range r.PerRound {
		t.Answers += c.Answers
		t.Unreadable += c.Unreadable
	}
	return t
}

// take counts a built question and hands it to fn, or lists why it was
// skipped.
func (r *Report) take(q *Question, skip string, index int, fn func(q *Question) error) error {
	if skip != "" {
		r.Skipped = append(r.Skipped, fmt.Sprintf("question %d: %s", index, skip))
		return nil
	}
	r.add(q)
	return fn(q)
}

// noteValue records the debate-layout variants a question's value shows.
func (r *Report) noteValue(ctxs [][]message, extra int) {
	if extra > 0 {
		r.Variants = addOnce(r.Variants, "extra value elements")
	}
	for _, chat := range ctxs {
		for _, m := range chat {
			if m.plain {
				r.Variants = addOnce(r.Variants, "plain-string contexts")
			} else if m.Role == "system" {
				r.Variants = addOnce(r.Variants, "system messages")
			}
		}
	}
}

func (r *Report) add(q *Question) {
	if r.Questions > 0 && (len(q.Agents) != r.Agents || q.Rounds() != r.Rounds) {
		r.Variants = addOnce(r.Variants, "team size or rounds vary by question")
	}
	r.Questions++
	for _, m := range q.Models {
		r.Models = addOnce(r.Models, m)
	}
	if q.Ragged() {
		r.Ragged++
		r.Variants = addOnce(r.Variants, "ragged teams")
	}
	if q.Gold == "" {
		r.GoldMissing++
	}
	r.Agents = max(r.Agents, len(q.Agents))
	r.Rounds = max(r.Rounds, q.Rounds())
	for _, as := range q.Agents {
		for t, a := range as {
			for len(r.PerRound) <= t {
				r.PerRound = append(r.PerRound, RoundCount{})
			}
			r.PerRound[t].Answers++
			if a.Answer == "" {
				r.PerRound[t].Unreadable++
			}
		}
	}
}

// finish compares the content with what the name promised.
func (r *Report) finish(m Meta) {
	if m.Agents != 0 && r.Questions > 0 && m.Agents != r.Agents {
		r.Warnings = append(r.Warnings, fmt.Sprintf("name says %d agents, content has %d", m.Agents, r.Agents))
	}
	if m.Generations != 0 && r.Questions > 0 && m.Generations != r.Rounds+1 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("name says %d rounds (answers per agent), content has %d", m.Generations, r.Rounds+1))
	}
}

// WriteReports writes one row per report: task, model, team size, rounds,
// questions, gold unreadable, skipped, then per round and in total the
// unreadable answers as "n/answers (share%)". Warnings follow the table.
func WriteReports(w io.Writer, reps []Report) error {
	rounds := 0
	for i := range reps {
		rounds = max(rounds, len(reps[i].PerRound))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"task", "model", "agents", "rounds", "questions", "gold?", "skipped"}
	for t := range rounds {
		head = append(head, fmt.Sprintf("unread r%d", t))
	}
	head = append(head, "unread all", "file")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for i := range reps {
		r := &reps[i]
		model := r.Model
		if model == "" {
			model = "-"
		}
		row := []string{string(r.Task), model, fmt.Sprint(r.Agents), fmt.Sprint(r.Rounds),
			fmt.Sprint(r.Questions), fmt.Sprint(r.GoldMissing), fmt.Sprint(len(r.Skipped))}
		for t := range rounds {
			if t < len(r.PerRound) {
				row = append(row, count(r.PerRound[t]))
			} else {
				row = append(row, "-")
			}
		}
		row = append(row, count(r.Total()), r.File)
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i := range reps {
		for _, s := range reps[i].Skipped {
			if _, err := fmt.Fprintf(w, "%s: skipped %s\n", reps[i].File, s); err != nil {
				return err
			}
		}
		for _, s := range reps[i].Warnings {
			if _, err := fmt.Fprintf(w, "%s: warning: %s\n", reps[i].File, s); err != nil {
				return err
			}
		}
	}
	return nil
}

func count(c RoundCount) string {
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Unreadable, c.Answers, 100*c.Share())
}
