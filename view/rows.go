package view

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// maxFieldBytes caps a task id, gold or agent answer, a source or a model
// name in the page (normalised answers are short; a longer one is a
// model's runaway text).
const maxFieldBytes = 200

// model is what the page's script shows: one row per question (a task of
// one source), each policy's episodes of it side by side. Names shared by
// many rows (models, kinds, sources, confidence sources) are listed once
// and rows refer to them by index; texts likewise (texts), so that a text
// every policy replays is in the page once.
type model struct {
	Policies []string `json:"policies"`
	// Fixed says which policies are fixed protocols (heuristics, or a
	// recorded debate), so that the page compares a learned one (A) with
	// one of them (B) first.
	Fixed []bool `json:"fixed"`
	// Rule says which policies are deterministic rules (every probability
	// they gave is 0 or 1: deterministic): their probabilities say nothing
	// their action does not, so the page leaves them out (a learned
	// policy's, or random's, stay).
	Rule    []bool   `json:"rule"`
	Models  []string `json:"models"`
	Kinds   []string `json:"kinds"`
	Sources []string `json:"sources"`
	Confs   []string `json:"confs"`
	Rows    []row    `json:"rows"`

	texts []string
	at    map[string]int // index of a name or text in its list, by list and value
}

// row is one question under every policy.
type row struct {
	Task   string `json:"t"`
	Gold   string `json:"g"`
	Model  int    `json:"m"`
	Kind   int    `json:"k"`
	Source int    `json:"s"`
	Text   int    `json:"q"` // the question's text in texts; -1 none
	// Opening is the question's opening words (opening), shown in the
	// list before the texts are unpacked and without opening the row.
	Opening string `json:"o"`
	Total   int64  `json:"tok"`
	// Disagree: some policy's share of right episodes differs from the
	// first policy's.
	Disagree bool `json:"d"`
	// Correct and Scored count, per policy, the episodes whose final
	// team answer is the gold and those with a gold answer; Tokens are
	// per policy.
	Correct []int       `json:"c"`
	Scored  []int       `json:"n"`
	Tokens  []int64     `json:"pt"`
	Cols    [][]episode `json:"e"` // per policy, its episodes of the question
}

type episode struct {
	ID     string  `json:"id"`
	Conf   int     `json:"c"` // where its confidences come from, in Confs
	Rounds []round `json:"r"`
}

type round struct {
	Team   string `json:"a"`
	Right  int    `json:"ok"` // 1 right, 0 wrong, -1 gold unknown
	Tokens int    `json:"tok"`
	Turns  []turn `json:"u"`
}

// turn is one agent's turn, written as a JSON array (MarshalJSON) to keep
// the page small: [answer, action (-1 in round 0), confidence (-1
// missing), tokens, text (index in texts, -1 none), probabilities] where
// the last is π over persist, refine, concede, or the chosen action's
// probability alone, or absent when unknown.
type turn struct {
	Answer string
	Action int
	Conf   float64
	Tokens int
	Text   int
	Probs  []float64
}

// MarshalJSON writes the turn as its array.
func (t turn) MarshalJSON() ([]byte, error) {
	b := appendString([]byte{'['}, t.Answer)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Action), 10)
	b = append(b, ',')
	b = appendNum(b, t.Conf)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Tokens), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(t.Text), 10)
	switch len(t.Probs) {
	case 0:
	case 1:
		b = appendNum(append(b, ','), t.Probs[0])
	default:
		b = append(b, ",["...)
		for i, p := range t.Probs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendNum(b, p)
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// appendNum writes x rounded to 3 decimals, the page's precision.
func appendNum(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, math.Round(x*1000)/1000, 'f', -1, 64)
}

// build groups the runs' episodes by question (task and source), in order
// of first appearance, and scores each run with env.Tally.
func build(runs []Run, confidence string) (*model, []Summary, error) {
	m := &model{at: map[string]int{}}
	rowAt := map[string]int{}
	var sums []Summary
	for k, r := range runs {
		m.Policies = append(m.Policies, r.Policy)
		m.Fixed = append(m.Fixed, fixed(r.Policy))
		rule := deterministic(r)
		m.Rule = append(m.Rule, rule)
		t := env.Tally{Policy: r.Policy}
		if r.Probs != nil && len(r.Probs) != len(r.Episodes) {
			return nil, nil, fmt.Errorf("view: policy %s: %d distributions for %d episodes", r.Policy, len(r.Probs), len(r.Episodes))
		}
		for e, ep := range r.Episodes {
			if err := t.Add(ep); err != nil {
				return nil, nil, fmt.Errorf("view: policy %s: %w", r.Policy, err)
			}
			key := ep.Task + "\x00" + ep.Source
			i, ok := rowAt[key]
			if !ok {
				i = len(m.Rows)
				rowAt[key] = i
				model, kind := origin(ep.Source, ep.Task)
				m.Rows = append(m.Rows, row{
					Task: cutTo(ep.Task, maxFieldBytes), Gold: cutTo(ep.Gold, maxFieldBytes),
					Model: m.name("m", model), Kind: m.name("k", kind), Source: m.name("s", cutTo(ep.Source, maxFieldBytes)),
					Text: m.text(ep.Question), Opening: opening(ep.Question),
					Correct: make([]int, len(runs)), Scored: make([]int, len(runs)),
					Tokens: make([]int64, len(runs)), Cols: make([][]episode, len(runs)),
				})
			}
			var probs [][][metapolicy.NumActions]float64
			if r.Probs != nil && !rule {
				probs = r.Probs[e]
			}
			conf := confidence
			if conf == "" {
				conf = confidenceSource(ep.Source)
			}
			v, tokens, right, err := m.convert(ep, probs, !rule, m.name("c", conf))
			if err != nil {
				return nil, nil, fmt.Errorf("view: policy %s: %w", r.Policy, err)
			}
			q := &m.Rows[i]
			q.Cols[k] = append(q.Cols[k], v)
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
		sums = append(sums, Summary{
			Policy: res.Policy, Episodes: res.Episodes, Tasks: res.Tasks,
			Accuracy: res.Accuracy, CILow: res.CILow, CIHigh: res.CIHigh,
			Round0Accuracy: res.Round0Accuracy, TokensPerTask: res.TokensPerTask, Actions: res.Actions,
		})
	}
	for i := range m.Rows {
		q := &m.Rows[i]
		for k := range q.Correct {
			if q.Scored[k] > 0 && q.Scored[0] > 0 && q.Correct[k]*q.Scored[0] != q.Correct[0]*q.Scored[k] {
				q.Disagree = true
			}
		}
	}
	return m, sums, nil
}

// deterministic reports whether every probability r gave its actions (its
// distributions, else the chosen actions' recorded probabilities) is 0 or
// 1, and it gave some: a rule such as majority or gate, whose π=0/1/0
// shows only the action again. Random's, or a learned policy's, are not.
func deterministic(r Run) bool {
	some := false
	for _, ep := range r.Probs {
		for _, rd := range ep {
			for _, p := range rd {
				for _, x := range p {
					if x != 0 && x != 1 {
						return false
					}
					some = true
				}
			}
		}
	}
	if r.Probs != nil {
		return some
	}
	for _, ep := range r.Episodes {
		for _, rd := range ep.Rounds {
			for _, t := range rd.Turns {
				if t.Action != nil && t.LogProb != nil {
					if *t.LogProb != 0 {
						return false
					}
					some = true
				}
			}
		}
	}
	return some
}

// maxOpeningBytes caps a question's opening words in the list: two lines
// at the page's width. A page of 2,450 questions carries about 0.2 MB
// more for them (pack.go).
const maxOpeningBytes = 200

// opening is the first words of a question, its spaces and line breaks
// each made one space, cut to maxOpeningBytes at a word's end (at a
// character's when a word is longer) and then marked with "…".
func opening(q string) string {
	n := min(len(q), 4*maxOpeningBytes) // enough for the cap however q is spaced
	for n < len(q) && n > 0 && !utf8.RuneStart(q[n]) {
		n--
	}
	head := q[:n]
	s := strings.Join(strings.Fields(head), " ")
	if len(s) <= maxOpeningBytes && len(head) == len(q) {
		return s
	}
	if len(s) > maxOpeningBytes {
		n = maxOpeningBytes
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		if sp := strings.LastIndexByte(s[:n], ' '); sp > maxOpeningBytes/2 {
			n = sp
		}
		s = s[:n]
	}
	return s + "…"
}

// fixed reports whether a policy name is a fixed protocol's.
func fixed(name string) bool {
	return name == transcript.DebatePolicy || slices.Contains(metapolicy.HeuristicNames(), name)
}

// name is the index of s in the list of names called list (m for
// models, k kinds, s sources, c confidence sources), added when new.
func (m *model) name(list, s string) int {
	key := list + "\x00" + s
	if i, ok := m.at[key]; ok {
		return i
	}
	var l *[]string
	switch list {
	case "m":
		l = &m.Models
	case "k":
		l = &m.Kinds
	case "s":
		l = &m.Sources
	default:
		l = &m.Confs
	}
	*l = append(*l, s)
	m.at[key] = len(*l) - 1
	return len(*l) - 1
}

// text is the index of s (cut to MaxTextBytes) in texts, added when new;
// -1 for no text.
func (m *model) text(s string) int {
	if s == "" {
		return -1
	}
	key := "t\x00" + s
	if i, ok := m.at[key]; ok {
		return i
	}
	m.texts = append(m.texts, cut(s))
	m.at[key] = len(m.texts) - 1
	return len(m.texts) - 1
}

// convert is one episode as the page shows it, its tokens and whether
// its final team answer is the gold. Tally.Add has checked its shape;
// probs, when given, are the distributions behind its actions (Run.Probs);
// withProbs false leaves every probability out (a deterministic rule's).
func (m *model) convert(ep *data.Episode, probs [][][metapolicy.NumActions]float64, withProbs bool, conf int) (episode, int64, bool, error) {
	if probs != nil && len(probs) != len(ep.Rounds)-1 {
		return episode{}, 0, false, fmt.Errorf("%s: distributions of %d rounds, want %d", ep.ID, len(probs), len(ep.Rounds)-1)
	}
	e := episode{ID: cutTo(ep.ID, maxFieldBytes), Conf: conf}
	var tokens int64
	right := false
	for r, rd := range ep.Rounds {
		team := data.TeamAnswer(rd.Turns)
		out := round{Team: cutTo(team, maxFieldBytes), Right: -1}
		if ep.Gold != "" {
			out.Right = 0
			if team == ep.Gold {
				out.Right = 1
			}
		}
		if r > 0 && probs != nil && len(probs[r-1]) != len(rd.Turns) {
			return episode{}, 0, false, fmt.Errorf("%s: round %d: distributions of %d agents, want %d", ep.ID, r, len(probs[r-1]), len(rd.Turns))
		}
		for a, t := range rd.Turns {
			v := turn{Answer: cutTo(t.Answer, maxFieldBytes), Action: -1, Conf: -1, Tokens: t.Tokens, Text: m.text(t.Text)}
			if t.Action != nil {
				v.Action = int(*t.Action)
				switch {
				case !withProbs:
				case r > 0 && probs != nil:
					v.Probs = probs[r-1][a][:]
				case t.LogProb != nil:
					v.Probs = []float64{math.Exp(*t.LogProb)}
				}
			}
			if t.Confidence != nil {
				v.Conf = *t.Confidence
			}
			out.Tokens += t.Tokens
			out.Turns = append(out.Turns, v)
		}
		tokens += int64(out.Tokens)
		right = out.Right == 1
		e.Rounds = append(e.Rounds, out)
	}
	return e, tokens, right, nil
}

// origin is the model and the kind of task behind an episode, read from
// its Source and task id for the page's filters: a transcript's file
// name (transcript.ParseName) for a replay or an import, the model an
// LLM collection asked, the simulator's; "" where they do not say (an
// older replay's Source names all its files, not the episode's).
func origin(source, task string) (model, kind string) {
	scheme, rest, _ := strings.Cut(source, ":")
	_, imported := data.ImportedFrom(scheme + ":") // a transcript layout's Source
	switch {
	case scheme == "simulator":
		model, kind = "simulator", "sim"
	case scheme == "openai":
		model = rest
	case scheme == "replay" || imported:
		file, models, agora := strings.Cut(rest, " models=")
		if !strings.Contains(file, ",") {
			meta := transcript.ParseName(file)
			model, kind = meta.Model, string(meta.Task)
			if agora {
				model = strings.ReplaceAll(models, ",", "+")
			}
		}
	}
	if kind == "" {
		if p, _, ok := strings.Cut(task, ":"); ok {
			if k, err := answer.ParseKind(p); err == nil {
				kind = string(k)
			}
		}
	}
	return cutTo(model, maxFieldBytes), kind
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
