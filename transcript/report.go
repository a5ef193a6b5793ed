package transcript

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report says what a transcript held and how much of it could be read.
type Report struct {
	File  string
	Task  Task
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

func (r *Report) add(q *Question) {
	r.Questions++
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
