package view

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// MaxTextBytes caps each turn's text and each question in the page; a
// longer one is cut on a character boundary and marked (truncateMarker).
const MaxTextBytes = 4000

// DefaultMaxBytes is the default size budget of a page: small enough to
// mail (most mail servers take 10 MB; base64 inflates by a third).
const DefaultMaxBytes = 5 << 20

// Run is the episodes of one policy, in task order.
type Run struct {
	Policy   string
	Episodes []*data.Episode
}

// Options configures Write.
type Options struct {
	// Title heads the page.
	Title string
	// MaxBytes is the size budget; 0 means DefaultMaxBytes.
	MaxBytes int
	// Confidence, when set, says where every episode's confidences come
	// from; otherwise each episode's Source tells (confidenceSource).
	Confidence string
}

// Play plays each policy on e with the same options (the tasks and seeds
// env.Evaluate uses for it) and keeps its episodes.
func Play(e env.Env, pols []metapolicy.Policy, opts env.RunOptions) ([]Run, error) {
	runs := make([]Run, 0, len(pols))
	for _, p := range pols {
		r := Run{Policy: p.Name()}
		err := env.Play(e, p, opts, func(ep *data.Episode) error {
			r.Episodes = append(r.Episodes, ep)
			return nil
		})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Group splits episodes by their Policy field, policies in order of first
// appearance ("unnamed" for episodes that name none).
func Group(eps []*data.Episode) []Run {
	var runs []Run
	at := map[string]int{}
	for _, ep := range eps {
		name := ep.Policy
		if name == "" {
			name = "unnamed"
		}
		k, ok := at[name]
		if !ok {
			k = len(runs)
			at[name] = k
			runs = append(runs, Run{Policy: name})
		}
		runs[k].Episodes = append(runs[k].Episodes, ep)
	}
	return runs
}

// Summary is one policy's scores as env.Tally computes them: the figures
// mpdf eval prints for the same episodes. The page embeds them as JSON
// (the element with id "summary").
type Summary struct {
	Policy         string           `json:"policy"`
	Episodes       int              `json:"episodes"`
	Tasks          int              `json:"tasks"`
	Accuracy       float64          `json:"accuracy"`
	CILow          float64          `json:"ci95_low"`
	CIHigh         float64          `json:"ci95_high"`
	Round0Accuracy float64          `json:"round0_accuracy"`
	TokensPerTask  float64          `json:"tokens_per_task"`
	Actions        env.ActionShares `json:"actions"`
}

// Write renders runs as one HTML page to w. It writes nothing when an
// episode is malformed or the page is over the size budget.
func Write(w io.Writer, runs []Run, o Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("view: no episodes")
	}
	budget := o.MaxBytes
	if budget <= 0 {
		budget = DefaultMaxBytes
	}
	p, err := build(runs, o.Title, o.Confidence)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("view: render: %w", err)
	}
	if buf.Len() > budget {
		return fmt.Errorf("view: the page would be %.1f MB, over its budget of %.1f MB: show fewer tasks (--tasks N; about %d%% of these fit)",
			float64(buf.Len())/1e6, float64(budget)/1e6, int64(budget)*100/int64(buf.Len()))
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// page is what the template renders.
type page struct {
	Title     string
	Policies  []string
	Summary   []Summary
	Questions []question
	CSS       template.CSS
	JS        template.JS
}

// maxSources and maxSourceBytes cap the sources a question lists (a
// replay's source names all its files).
const (
	maxSources     = 16
	maxSourceBytes = 400
)

// question is one task under every policy.
type question struct {
	Task, Text, Gold string
	// Source lists the sources of the task's episodes (the model is in a
	// replayed file's name), the first maxSources, for the filter.
	Source  string
	sources []string
	// Correct and Scored count, per policy, the task's episodes whose
	// final team answer is the gold and those with a gold answer.
	Correct, Scored []int
	Tokens          []int64
	Total           int64
	Disagree        bool
	Cols            [][]episode // per policy, its episodes of the task
}

type episode struct {
	ID, Confidence string
	Rounds         []round
}

type round struct {
	Team    string
	Right   bool
	Known   bool // gold known
	Turns   []turn
	Tokens  int
	Numeral int
}

type turn struct {
	Answer, Action, Prob, Conf, Text string
	Tokens                           int
}

// build groups the runs' episodes by task, in order of first appearance,
// and scores each run with env.Tally.
func build(runs []Run, title, confidence string) (*page, error) {
	p := &page{Title: title, CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	at := map[string]int{}
	for k, r := range runs {
		p.Policies = append(p.Policies, r.Policy)
		t := env.Tally{Policy: r.Policy}
		for _, ep := range r.Episodes {
			if err := t.Add(ep); err != nil {
				return nil, fmt.Errorf("view: policy %s: %w", r.Policy, err)
			}
			i, ok := at[ep.Task]
			if !ok {
				i = len(p.Questions)
				at[ep.Task] = i
				p.Questions = append(p.Questions, question{
					Task: ep.Task, Text: cut(ep.Question), Gold: ep.Gold,
					Correct: make([]int, len(runs)), Scored: make([]int, len(runs)),
					Tokens: make([]int64, len(runs)), Cols: make([][]episode, len(runs)),
				})
			}
			q := &p.Questions[i]
			if !slices.Contains(q.sources, ep.Source) && len(q.sources) < maxSources {
				q.sources = append(q.sources, ep.Source)
				q.Source = strings.Join(q.sources, " ")
				if len(q.Source) > maxSourceBytes {
					q.Source = cutTo(q.Source, maxSourceBytes)
				}
			}
			e, tokens, right := convert(ep)
			if confidence != "" {
				e.Confidence = confidence
			}
			q.Cols[k] = append(q.Cols[k], e)
			q.Tokens[k] += tokens
			q.Total += tokens
			if ep.Gold != "" {
				q.Scored[k]++
				if right {
					q.Correct[k]++
				}
			}
		}
		res := t.Result()
		p.Summary = append(p.Summary, Summary{
			Policy: res.Policy, Episodes: res.Episodes, Tasks: res.Tasks,
			Accuracy: res.Accuracy, CILow: res.CILow, CIHigh: res.CIHigh,
			Round0Accuracy: res.Round0Accuracy, TokensPerTask: res.TokensPerTask, Actions: res.Actions,
		})
	}
	for i := range p.Questions {
		q := &p.Questions[i]
		for k := range q.Correct {
			if q.Scored[k] > 0 && q.Scored[0] > 0 && q.Correct[k]*q.Scored[0] != q.Correct[0]*q.Scored[k] {
				q.Disagree = true
			}
		}
	}
	return p, nil
}

// convert is one episode as the page shows it: its tokens and whether its
// final team answer is the gold. Tally.Add has checked its shape.
func convert(ep *data.Episode) (episode, int64, bool) {
	e := episode{ID: ep.ID, Confidence: confidenceSource(ep.Source)}
	var tokens int64
	right := false
	for r, rd := range ep.Rounds {
		team := data.TeamAnswer(rd.Turns)
		out := round{Team: team, Known: ep.Gold != "", Right: ep.Gold != "" && team == ep.Gold, Numeral: r}
		for _, t := range rd.Turns {
			v := turn{Answer: t.Answer, Tokens: t.Tokens, Text: cut(t.Text), Conf: "missing"}
			if t.Action != nil {
				v.Action = t.Action.String()
			}
			if t.LogProb != nil {
				v.Prob = fmt.Sprintf("%.2f", math.Exp(*t.LogProb))
			}
			if t.Confidence != nil {
				v.Conf = fmt.Sprintf("%.2f", *t.Confidence)
			}
			out.Tokens += t.Tokens
			out.Turns = append(out.Turns, v)
		}
		tokens += int64(out.Tokens)
		right = out.Right
		e.Rounds = append(e.Rounds, out)
	}
	return e, tokens, right
}

// confidenceSource says where an episode's confidences come from, by its
// Source: the simulator draws them, a live collection asks the LLM judge,
// a replay has the text critic's read (critic=on) or none.
func confidenceSource(source string) string {
	switch {
	case source == "simulator":
		return "simulated"
	case strings.HasPrefix(source, "openai:"):
		return "the LLM judge"
	case strings.HasPrefix(source, "replay"):
		return "the text critic when played with critic=on, else missing"
	}
	return "as recorded"
}

// truncateMarker ends a text cut to MaxTextBytes.
const truncateMarker = "… [cut: %d of %d bytes shown]"

// cut is s, or its first MaxTextBytes bytes (on a character boundary) and
// the marker.
func cut(s string) string { return cutTo(s, MaxTextBytes) }

// cutTo is s, or its first max bytes and the marker.
func cutTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf(truncateMarker, n, len(s))
}

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"join": func(xs []int) string {
		var b bytes.Buffer
		for i, x := range xs {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, x)
		}
		return b.String()
	},
	"pct": func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) },
	"f1":  func(x float64) string { return fmt.Sprintf("%.1f", x) },
}).Parse(pageHTML))
