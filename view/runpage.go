package view

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/trainer/run"
)

// RunPageName is the page WriteRunPage writes into a run directory.
const RunPageName = run.PageName

// DefaultRunMaxBytes is the run page's size budget. Its largest part is
// the per-step curves, at most plots.DefaultMaxPoints points a series
// whatever the run's length (a bucket's mean and range past that): 2,000
// points of 6 series, drawn raw and smoothed with their numbers, are
// under 1 MB; the default run's page is 0.3 MB.
const DefaultRunMaxBytes = 2 << 20

// IsRunDir reports whether path is a training run's directory: a
// directory holding metrics.jsonl or best.mpdf (trainer/run's layout).
func IsRunDir(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		return false
	}
	for _, name := range []string{run.MetricsName, "best.mpdf"} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			return true
		}
	}
	return false
}

// WriteRunPage writes the page of the run in dir (WriteRun) to out, or to
// dir/index.html when out is "", whole or not at all, and returns its path.
func WriteRunPage(dir, out string) (string, error) {
	if out == "" {
		out = filepath.Join(dir, RunPageName)
	}
	var page bytes.Buffer
	if err := WriteRun(&page, dir); err != nil {
		return "", err
	}
	err := outfile.WriteFile(out, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	})
	return out, err
}

// WriteRun renders the page of the training run in dir to w, one
// self-contained HTML file: on top the verdict of eval.json as a sentence,
// its policies on an accuracy–tokens chart and in a table, what RL changed
// against the supervised policy, and the final evaluation's table; then
// the held-out points of metrics.jsonl (accuracy and tokens per RL
// iteration) and the per-step curves (reward, KL, entropy, action
// shares), drawn smoothed with a slider for the smoothing; then the
// provenance of best.mpdf (or of the latest checkpoint) as tables. It
// links to the viewer of the final evaluation when dir holds one
// (RunViewName). A part whose file is absent says so; a file that does
// not read is an error naming it (and its line); no file is read through
// a symbolic link leading out of dir. A page over DefaultRunMaxBytes is
// refused (ErrOverBudget).
func WriteRun(w io.Writer, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	defer root.Close()
	d, err := readRunData(root, ".")
	if err != nil {
		return fmt.Errorf("view: %s: %w", dir, err)
	}
	p := runPage{Title: "training run " + filepath.Base(filepath.Clean(dir)), Dir: dir, CSS: template.CSS(runCSS), JS: template.JS(runJS),
		RunJSON: d.RunJSON, Smoothing: DefaultSmoothing, Viewer: d.HasViewer, ViewerName: RunViewName}
	p.Charts = map[string]*chartData{}
	add := func(dst *[]template.HTML, c *lineChart) {
		h, data := c.render()
		*dst = append(*dst, h)
		if data != nil {
			p.Charts[c.ID] = data
		}
	}
	if c := d.Curves; c != nil && len(c.Step) > 0 {
		for _, lc := range stepCharts(c) {
			add(&p.StepCharts, lc)
		}
	}
	for _, lc := range learningCharts(d) {
		add(&p.HeldOutCharts, lc)
	}
	if ef := d.Eval; ef != nil {
		if err := p.setEval(ef); err != nil {
			return err
		}
	}
	if d.Info != nil {
		p.Checkpoint = d.Checkpoint
		p.Provenance = provenanceRows(d)
		p.Metrics = metricRows(d.Info.Metrics)
		p.Config = d.Config
		var t bytes.Buffer
		if err := d.Info.WriteText(&t); err != nil {
			return err
		}
		p.ProvenanceText = t.String()
	}
	var buf bytes.Buffer
	if err := runTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("view: render: %w", err)
	}
	if buf.Len() > DefaultRunMaxBytes {
		size, limit := sizePair(buf.Len(), DefaultRunMaxBytes)
		return errmark.Mark(fmt.Errorf("view: %s: the run page would be %s, over its budget of %s", dir, size, limit), ErrOverBudget)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// stepCharts are the per-step curves of metrics.jsonl (curve.png's),
// smoothed.
func stepCharts(c *plots.Curves) []*lineChart {
	// plots.Curves holds one series per action as a field: another
	// action needs its own series here (this fails to build until then).
	var _ = [1]struct{}{}[metapolicy.NumActions-3]
	return []*lineChart{
		{ID: "reward", Title: "reward", Caption: "mean reward per row, per optimiser step", XLabel: "step", X: c.Step, Scale: ySigned, Smooth: true,
			Series: []series{{Name: "reward", Color: "#1f77b4", Y: c.Reward, Band: band(c.Min, c.Max, 0)}}},
		{ID: "kl", Title: "KL", Caption: "KL(π ‖ π_ref), the distance to the supervised policy, per step", XLabel: "step", X: c.Step, Scale: yCount, Smooth: true,
			Series: []series{{Name: "kl", Color: "#d62728", Y: c.KL, Band: band(c.Min, c.Max, 1)}}},
		{ID: "entropy", Title: "entropy", Caption: "H(π), the entropy of the policy's actions, per step", XLabel: "step", X: c.Step, Scale: yCount, Smooth: true,
			Series: []series{{Name: "entropy", Color: "#2ca02c", Y: c.Entropy, Band: band(c.Min, c.Max, 2)}}},
		{ID: "actions", Title: "action shares", Caption: "the share of each action sampled, per step", XLabel: "step", X: c.Step, Scale: yShare, Smooth: true, Legend: true,
			Series: []series{{Name: "persist", Color: "#1f77b4", Y: c.Persist}, {Name: "refine", Color: "#ff7f0e", Y: c.Refine}, {Name: "concede", Color: "#9467bd", Y: c.Concede}}},
	}
}

// learningCharts are the held-out points (accuracy and tokens per RL
// iteration) and the share of decisions with a non-zero advantage, or
// where metrics.jsonl has no held-out point, the training rollouts'
// accuracy and tokens at each kept checkpoint.
func learningCharts(d *runData) []*lineChart {
	var out []*lineChart
	if l := d.Learning; l != nil && len(l.HeldOut) > 0 {
		var it, acc, tok []float64
		for _, h := range l.HeldOut {
			it, acc, tok = append(it, float64(h.Iter)), append(acc, h.HeldOut.TeamAccuracy), append(tok, h.HeldOut.TokensPerTask)
		}
		if len(it) > plots.DefaultMaxPoints { // a point every Config.EvalEvery iterations of a very long run
			x := it
			it, acc = buckets(x, acc, plots.DefaultMaxPoints)
			_, tok = buckets(x, tok, plots.DefaultMaxPoints)
		}
		out = append(out,
			&lineChart{ID: "heldout-accuracy", Title: "held-out accuracy", XLabel: "RL iteration", X: it, Scale: yShare,
				Caption: fmt.Sprintf("team accuracy on %d held-out tasks, one episode each, by RL iteration (0: the supervised policy)", l.HeldOut[0].HeldOut.Tasks),
				Series:  []series{{Name: "heldout/team_accuracy", Color: "#1f77b4", Y: acc}}},
			&lineChart{ID: "heldout-tokens", Title: "held-out tokens", XLabel: "RL iteration", X: it, Scale: yCount,
				Caption: "tokens per task on the held-out tasks, by RL iteration",
				Series:  []series{{Name: "heldout/tokens_per_task", Color: "#ff7f0e", Y: tok}}})
	}
	if l := d.Learning; l != nil && len(l.Iter) > 1 {
		it := make([]float64, len(l.Iter))
		for i, v := range l.Iter {
			it[i] = float64(v + 1)
		}
		caption := "share of decisions with a non-zero advantage (the decisions a step can move), by RL iteration"
		nz := l.NonZero
		if len(it) > plots.DefaultMaxPoints { // one point an iteration: a long run's are bucketed as the step curves are
			it, nz = buckets(it, nz, plots.DefaultMaxPoints)
			caption += fmt.Sprintf(" (%d points: means of buckets of iterations)", plots.DefaultMaxPoints)
		}
		out = append(out, &lineChart{ID: "nonzero", Title: "non-zero advantages", XLabel: "RL iteration", X: it, Scale: yShare,
			Caption: caption, Series: []series{{Name: "advantages/nonzero", Color: "#2ca02c", Y: nz}}})
	}
	if len(d.CkptStep) > 0 {
		out = append(out,
			&lineChart{ID: "ckpt-accuracy", Title: "team accuracy", XLabel: "step", X: d.CkptStep, Scale: yShare,
				Caption: "team accuracy of the training rollouts, per kept checkpoint",
				Series:  []series{{Name: "team_accuracy", Color: "#1f77b4", Y: d.CkptAccuracy}}},
			&lineChart{ID: "ckpt-tokens", Title: "tokens", XLabel: "step", X: d.CkptStep, Scale: yCount,
				Caption: "tokens per episode of the training rollouts, per kept checkpoint",
				Series:  []series{{Name: "tokens_per_episode", Color: "#ff7f0e", Y: d.CkptTokens}}})
	}
	return out
}

// band is series i of the curves' ranges (reward, KL, entropy), or nil.
func band(lo, hi *plots.Curves, i int) *[2][]float64 {
	if lo == nil || hi == nil {
		return nil
	}
	l := [][]float64{lo.Reward, lo.KL, lo.Entropy}[i]
	h := [][]float64{hi.Reward, hi.KL, hi.Entropy}[i]
	return &[2][]float64{l, h}
}

// setEval fills the page's evaluation part from eval.json: the verdict's
// sentence, chart and table, what RL changed, the results' table, and the
// text mpdf train printed.
func (p *runPage) setEval(ef *run.EvalFile) error {
	played := ""
	if ef.Checkpoint != "" {
		played = fmt.Sprintf(", %s (step %d)", ef.Checkpoint, ef.Step)
	}
	p.EvalHead = fmt.Sprintf("evaluation on %d held-out tasks of %s, %d episodes each, seed %d%s", ef.Tasks, ef.Env, ef.Episodes, ef.Seed, played)
	p.Results = resultRows(ef.Results)
	p.Notes = ef.Notes
	var t bytes.Buffer
	t.WriteString(p.EvalHead + ":\n")
	if err := ef.Results.WriteTable(&t); err != nil {
		return err
	}
	if v := ef.Verdict; v != nil && len(v.Rows) > 0 {
		line := v.Line()
		prefix := strings.TrimSuffix(line, v.Sentence)
		head, rest, ok := strings.Cut(v.Sentence, ": ")
		if !ok || prefix == line {
			prefix, head, rest = line, "", ""
		} else {
			rest = ": " + rest
		}
		p.Verdict = &verdictPart{Line: line, Prefix: prefix, Head: head, Rest: rest, Use: v.Use, Chart: verdictChart(v), Rows: verdictRows(v),
			Table: fmt.Sprintf("%s against the fixed protocols (%sΔ paired by question over %d questions, %.0f%% bootstrap intervals)", v.Policy, playNote(v.Play), v.Tasks, 100*v.Level)}
		t.WriteByte('\n')
		if err := v.WriteTable(&t); err != nil {
			return err
		}
	}
	if c := ef.RLChange; c != nil {
		p.RLChange = rlChangeRows(c)
		p.RLChangeTasks = c.Delta.Tasks
		t.WriteByte('\n')
		if err := c.WriteText(&t); err != nil {
			return err
		}
	}
	for _, n := range ef.Notes {
		fmt.Fprintf(&t, "note: %s\n", n)
	}
	p.EvalText = t.String()
	return nil
}

func playNote(play string) string {
	switch play {
	case env.PlayGreedy, env.PlaySampled:
		return "played " + play + "; "
	}
	return ""
}

// verdictPart is the verdict as the page shows it.
type verdictPart struct {
	// Line is the verdict's line (env.Verdict.Line), shown as Prefix
	// ("verdict (λ …): "), Head ("use threshold", emphasised) and Rest.
	Line, Prefix, Head, Rest string
	Use, Table               string
	Chart                    template.HTML
	Rows                     []verdictRow
}

// verdictRow is a row of the verdict's table, its cells in the formats of
// env.Verdict.WriteTable.
type verdictRow struct {
	Frontier, Learned, Use         bool
	Policy, Accuracy, CI, Tokens   string
	DeltaAccuracy, DeltaTokens, By string
}

func verdictRows(v *env.Verdict) []verdictRow {
	var out []verdictRow
	for _, r := range v.Rows {
		row := verdictRow{Frontier: r.Frontier, Learned: r.Learned, Use: r.Policy == v.Use, Policy: r.Policy,
			Accuracy: fmt.Sprintf("%.3f", r.Accuracy), CI: fmt.Sprintf("[%.3f, %.3f]", r.CILow, r.CIHigh),
			Tokens: fmt.Sprintf("%.0f", r.TokensPerTask), DeltaAccuracy: "—", DeltaTokens: "—", By: r.DominatedBy}
		if d := r.DeltaAccuracy; d != nil {
			row.DeltaAccuracy = fmt.Sprintf("%+.1f [%+.1f, %+.1f]", d.Estimate, d.Low, d.High)
		}
		if d := r.DeltaTokens; d != nil {
			row.DeltaTokens = fmt.Sprintf("%+.0f", d.Estimate)
		}
		out = append(out, row)
	}
	return out
}

// resultRows are the final evaluation's rows in the formats of
// env.Results.WriteTable: policy, episodes, accuracy, 95% CI, round 0,
// tokens/task, then the action shares.
func resultRows(rs env.Results) [][]string {
	var out [][]string
	for _, r := range rs {
		row := []string{r.Policy, fmt.Sprint(r.Episodes), fmt.Sprintf("%.3f", r.Accuracy), fmt.Sprintf("[%.3f, %.3f]", r.CILow, r.CIHigh),
			fmt.Sprintf("%.3f", r.Round0Accuracy), fmt.Sprintf("%.0f", r.TokensPerTask)}
		for _, v := range r.Actions {
			row = append(row, fmt.Sprintf("%.3f", v))
		}
		out = append(out, row)
	}
	return out
}

// rlChangeRows are RLChange's numbers as rows: what, supervised, RL, the
// paired difference with its interval (run.RLChange.WriteText's formats).
func rlChangeRows(c *run.RLChange) [][]string {
	s, l, d := &c.SFT, &c.RL, &c.Delta
	rows := [][]string{
		{"accuracy", fmt.Sprintf("%.3f", s.Accuracy), fmt.Sprintf("%.3f", l.Accuracy), fmt.Sprintf("%+.1f [%+.1f, %+.1f] points", d.Accuracy.Estimate, d.Accuracy.Low, d.Accuracy.High)},
		{"tokens/task", fmt.Sprintf("%.0f", s.TokensPerTask), fmt.Sprintf("%.0f", l.TokensPerTask), fmt.Sprintf("%+.0f [%+.0f, %+.0f]", d.Tokens.Estimate, d.Tokens.Low, d.Tokens.High)},
	}
	for a, name := range metapolicy.Names() {
		rows = append(rows, []string{name, fmt.Sprintf("%.3f", s.Actions[a]), fmt.Sprintf("%.3f", l.Actions[a]), ""})
	}
	return rows
}

// provenanceRows are the checkpoint's description (mpdf inspect's) as
// rows of a table.
func provenanceRows(d *runData) []kv {
	i := d.Info
	rows := []kv{
		{"file", fmt.Sprintf("%s (%d bytes)", d.Checkpoint, i.Bytes)},
		{"feature version", i.FeatureVersion},
		{"step", fmt.Sprint(i.Step)},
		{"seed", fmt.Sprint(i.Seed)},
		{"policy", i.Policy.String()},
	}
	if len(i.Networks) > 0 {
		rows = append(rows, kv{"networks", strings.Join(i.Networks, ", ")})
	}
	ref := "none"
	if i.Reference != nil {
		ref = i.Reference.String()
	}
	rows = append(rows, kv{"reference (π_ref)", ref})
	adam := "none (weights only)"
	if a := i.Adam; a != nil {
		adam = fmt.Sprintf("step %d, lr %g, beta1 %g, beta2 %g, eps %g", a.Step, a.Config.LR, a.Config.Beta1, a.Config.Beta2, a.Config.Eps)
	}
	rows = append(rows, kv{"adam state", adam}, kv{"confidence source", i.ConfidenceSource})
	for _, e := range d.RunJSON {
		rows = append(rows, kv{"run.json " + e.Key, e.Value})
	}
	return rows
}

// metricRows are a checkpoint's metrics, by name.
func metricRows(m map[string]float64) []kv {
	var out []kv
	for _, k := range sortedKeys(m) {
		out = append(out, kv{k, fmt.Sprintf("%.6g", m[k])})
	}
	return out
}

// runPage is what the run template renders.
type runPage struct {
	Title, Dir                  string
	RunJSON                     []kv
	Verdict                     *verdictPart
	EvalHead, EvalText          string
	Results                     [][]string
	RLChange                    [][]string
	RLChangeTasks               int
	Notes                       []string
	Viewer                      bool
	ViewerName                  string
	HeldOutCharts, StepCharts   []template.HTML
	Charts                      map[string]*chartData
	Smoothing                   float64
	Checkpoint, ProvenanceText  string
	Provenance, Metrics, Config []kv
	CSS                         template.CSS
	JS                          template.JS
}

//go:embed runpage.html
var runHTML string

//go:embed runpage.css
var runCSS string

//go:embed runpage.js
var runJS string

var runTemplate = template.Must(template.New("run").Funcs(template.FuncMap{"actions": metapolicy.Names}).Parse(runHTML))
