package view

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

// MaxTextBytes caps each turn's text and each question in the page; a
// longer one is cut on a character boundary and marked (truncateMarker).
const MaxTextBytes = 4000

// DefaultMaxBytes is the default size budget of a page: small enough to
// mail (most mail servers take 10 MB; base64 inflates by a third). The
// largest case the package is measured on (pack.go) fits it.
const DefaultMaxBytes = 5 << 20

// Run is the episodes of one policy, in task order.
type Run struct {
	Policy   string
	Episodes []*data.Episode
	// Probs, when set, is the policy's full distribution π(·|obs) behind
	// each action: Probs[e][t-1][k] for episode e, round t ≥ 1, agent k.
	// Play fills it; episodes read from files record only the chosen
	// action's log-probability, which the page shows instead.
	Probs [][][][metapolicy.NumActions]float64
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
	// Verdict, when set, is the verdict lines shown under the summary
	// (PlayEvaluation: eval's, design §9.1).
	Verdict []string
}

// Play plays each policy on e with the same options (the tasks and seeds
// env.Evaluate uses for it) and keeps its episodes, each action's full
// distribution (Run.Probs) and, on a replay, the recorded texts (which
// change no action or score: a policy reads the text's profile, recorded
// either way).
func Play(e env.Env, pols []metapolicy.Policy, opts env.RunOptions) ([]Run, error) {
	if r, ok := e.(*replay.Env); ok {
		t, err := r.With(replay.WithText(true))
		if err != nil {
			return nil, err
		}
		e = t
	}
	runs := make([]Run, 0, len(pols))
	for _, p := range pols {
		r := Run{Policy: p.Name()}
		err := env.Play(e, p, opts, func(ep *data.Episode) error {
			probs, err := distributions(p, ep)
			if err != nil {
				return err
			}
			r.Episodes = append(r.Episodes, ep)
			r.Probs = append(r.Probs, probs)
			return nil
		})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// distributions is p's π(·|obs) behind each action of ep, asked again on
// the observation env.Play showed (data.Episode.Observation).
func distributions(p metapolicy.Policy, ep *data.Episode) ([][][metapolicy.NumActions]float64, error) {
	out := make([][][metapolicy.NumActions]float64, len(ep.Rounds)-1)
	for t := 1; t < len(ep.Rounds); t++ {
		out[t-1] = make([][metapolicy.NumActions]float64, len(ep.Rounds[t].Turns))
		for k := range out[t-1] {
			obs := ep.Observation(t, k)
			if err := p.Probs(&out[t-1][k], &obs); err != nil {
				return nil, fmt.Errorf("view: %s: round %d agent %d: policy %s: %w", ep.ID, t, k, p.Name(), err)
			}
		}
	}
	return out, nil
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

// ErrOverBudget: a page over its size budget (Options.MaxBytes), which
// Write refuses, saying which share of its tasks would fit.
var ErrOverBudget = errors.New("page over its size budget")

// Write renders runs as one HTML page to w. It writes nothing when an
// episode is malformed or the page is over the size budget (ErrOverBudget).
func Write(w io.Writer, runs []Run, o Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("view: no episodes")
	}
	budget := o.MaxBytes
	if budget < 0 {
		return errmark.Bad("view", "max_bytes", budget, fmt.Sprintf("want ≥ 0 (0: %d)", DefaultMaxBytes))
	} else if budget == 0 {
		budget = DefaultMaxBytes
	}
	m, sum, err := build(runs, o.Confidence)
	if err != nil {
		return err
	}
	p := page{Title: o.Title, Summary: sum, Bars: bars(sum), Verdict: o.Verdict, CSS: template.CSS(pageCSS), JS: template.JS(pageJS)}
	if p.Data, p.Texts, err = m.pack(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("view: render: %w", err)
	}
	if buf.Len() > budget {
		size, limit := sizePair(buf.Len(), budget)
		return errmark.Mark(fmt.Errorf("view: the page would be %s, over its budget of %s: show fewer tasks (about %d%% of these fit)",
			size, limit, int64(budget)*100/int64(buf.Len())), ErrOverBudget)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// page is what the template renders: the summary as a table and a JSON
// island, the questions packed (pack) for the page's script to unpack.
type page struct {
	Title       string
	Summary     []Summary
	Bars        []bar // the summary strip
	Verdict     []string
	Data, Texts string
	CSS         template.CSS
	JS          template.JS
}

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJSSource string

// pageJS is page.js with the actions' names written in where it reads
// them (ACTION_NAMES), from metapolicy's list: the page knows no action by
// hand.
var pageJS = withActionNames(pageJSSource)

// actionNamesMark is where page.js takes the actions' names, with the
// comment that says so (the page's bytes predate it).
const actionNamesMark = "ACTION_NAMES; // the actions' names, written in by view (metapolicy's list)"

func withActionNames(js string) string {
	names := metapolicy.Names()
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	out := strings.Replace(js, actionNamesMark, "["+strings.Join(q, ", ")+"];", 1)
	if out == js {
		panic("view: page.js does not read ACTION_NAMES")
	}
	return out
}

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct": func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) },
	"f1":  func(x float64) string { return fmt.Sprintf("%.1f", x) },
	// actions are the actions' names, the summary's share columns.
	"actions": metapolicy.Names,
}).Parse(pageHTML))
