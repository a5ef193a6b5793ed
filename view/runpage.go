package view

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/trainer/run"
)

// RunPageName is the page WriteRunPage writes into a run directory.
const RunPageName = run.PageName

// maxCheckpointPoints caps the checkpoints whose headers the evaluation
// curve reads (the latest ones; a run keeps run.Config.Keep of them).
const maxCheckpointPoints = 1000

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
// self-contained HTML file like the deliberations page: the curves of
// metrics.jsonl (reward, KL, entropy and action shares, as curve.png draws
// them) and the training rollouts' team accuracy and tokens at each kept
// checkpoint, as inline SVG; the final evaluation and verdict of
// eval.json as mpdf train printed them; and the provenance of best.mpdf
// (or of the latest checkpoint) as mpdf inspect prints it. A part whose
// file is absent says so; a file that does not read is an error.
func WriteRun(w io.Writer, dir string) error {
	p := runPage{Title: "training run " + filepath.Base(filepath.Clean(dir)), Dir: dir, CSS: template.CSS(pageCSS)}
	if b, err := os.ReadFile(filepath.Join(dir, "run.json")); err == nil {
		p.RunJSON = strings.TrimSpace(string(b))
	}
	curves, err := run.ReadCurves(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("view: %w", err)
	case len(curves.Step) > 0:
		// plots.Curves holds one series per action as a field: another
		// action needs its own series here (this fails to build until then).
		var _ = [1]struct{}{}[metapolicy.NumActions-3]
		p.Charts = append(p.Charts,
			chart("reward", "mean reward per row", curves.Step, []series{{"reward", "#1f77b4", curves.Reward, band(curves.Min, curves.Max, 0)}}),
			chart("KL", "KL(π ‖ π_ref)", curves.Step, []series{{"kl", "#d62728", curves.KL, band(curves.Min, curves.Max, 1)}}),
			chart("entropy", "H(π)", curves.Step, []series{{"entropy", "#2ca02c", curves.Entropy, band(curves.Min, curves.Max, 2)}}),
			chart("actions", "action shares", curves.Step, []series{
				{"persist", "#1f77b4", curves.Persist, nil}, {"refine", "#ff7f0e", curves.Refine, nil}, {"concede", "#9467bd", curves.Concede, nil}}),
		)
	}
	if c, err := learningCurves(dir); err != nil {
		return err
	} else if c != nil {
		p.Charts = append(p.Charts, c...)
	}
	if c, err := checkpointCurves(dir); err != nil {
		return err
	} else if c != nil {
		p.Charts = append(p.Charts, c...)
	}
	if b, err := os.ReadFile(filepath.Join(dir, run.EvalName)); err == nil {
		var ef run.EvalFile
		if err := json.Unmarshal(b, &ef); err != nil {
			return fmt.Errorf("view: %s: %w", filepath.Join(dir, run.EvalName), err)
		}
		var t bytes.Buffer
		played := ""
		if ef.Checkpoint != "" {
			played = fmt.Sprintf(", %s (step %d)", ef.Checkpoint, ef.Step)
		}
		fmt.Fprintf(&t, "evaluation on %d held-out tasks of %s, %d episodes each, seed %d%s:\n", ef.Tasks, ef.Env, ef.Episodes, ef.Seed, played)
		if err := ef.Results.WriteTable(&t); err != nil {
			return err
		}
		if ef.Verdict != nil {
			t.WriteByte('\n')
			if err := ef.Verdict.WriteTable(&t); err != nil {
				return err
			}
		}
		if ef.RLChange != nil {
			t.WriteByte('\n')
			if err := ef.RLChange.WriteText(&t); err != nil {
				return err
			}
		}
		for _, n := range ef.Notes {
			fmt.Fprintf(&t, "note: %s\n", n)
		}
		p.Eval = t.String()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("view: %w", err)
	}
	if ck := provenanceFile(dir); ck != "" {
		d, err := checkpoints.Inspect(ck)
		if err != nil {
			return fmt.Errorf("view: %w", err)
		}
		var t bytes.Buffer
		if err := d.WriteText(&t); err != nil {
			return err
		}
		p.Checkpoint, p.Provenance = filepath.Base(ck), t.String()
	}
	if len(p.Charts) == 0 && p.Eval == "" && p.Provenance == "" {
		return fmt.Errorf("view: %s: no metrics.jsonl, eval.json or checkpoint: not a training run's directory", dir)
	}
	return runTemplate.Execute(w, p)
}

// provenanceFile is best.mpdf, else the latest checkpoint, else "".
func provenanceFile(dir string) string {
	if best := filepath.Join(dir, "best.mpdf"); fileExists(best) {
		return best
	}
	if latest, err := checkpoints.Latest(dir); err == nil && latest != "" {
		return latest
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// checkpointCurves draws the training rollouts' team accuracy and tokens
// per episode that each kept checkpoint recorded (online runs record
// them), the latest maxCheckpointPoints; nil when none records them.
func checkpointCurves(dir string) ([]template.HTML, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "ckpt-*.mpdf"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths) // ckpt-%08d: by step
	if len(paths) > maxCheckpointPoints {
		paths = paths[len(paths)-maxCheckpointPoints:]
	}
	var steps, acc, tok []float64
	for _, p := range paths {
		h, err := checkpoints.ReadHeader(p)
		if err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
		a, okA := h.Metrics["team_accuracy"]
		t, okT := h.Metrics["tokens_per_episode"]
		if !okA || !okT {
			continue
		}
		steps, acc, tok = append(steps, float64(h.Step)), append(acc, a), append(tok, t)
	}
	if len(steps) == 0 {
		return nil, nil
	}
	return []template.HTML{
		chart("team accuracy", "team accuracy of the training rollouts, per kept checkpoint", steps, []series{{"team_accuracy", "#1f77b4", acc, nil}}),
		chart("tokens", "tokens per episode of the training rollouts, per kept checkpoint", steps, []series{{"tokens_per_episode", "#ff7f0e", tok, nil}}),
	}, nil
}

// learningCurves are the charts of whether RL learns (run.ReadLearning):
// the held-out points' accuracy and tokens, and the share of decisions
// with a non-zero advantage per iteration; nil when metrics.jsonl has
// none.
func learningCurves(dir string) ([]template.HTML, error) {
	l, err := run.ReadLearning(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("view: %w", err)
	}
	var out []template.HTML
	if len(l.HeldOut) > 1 {
		var it, acc, tok []float64
		for _, h := range l.HeldOut {
			it, acc, tok = append(it, float64(h.Iter)), append(acc, h.HeldOut.TeamAccuracy), append(tok, h.HeldOut.TokensPerTask)
		}
		out = append(out,
			chart("held-out accuracy", fmt.Sprintf("team accuracy on %d held-out tasks, by RL iteration (0: the supervised policy)", l.HeldOut[0].HeldOut.Tasks), it, []series{{"heldout/team_accuracy", "#1f77b4", acc, nil}}),
			chart("held-out tokens", "tokens per task on the held-out tasks, by RL iteration", it, []series{{"heldout/tokens_per_task", "#ff7f0e", tok, nil}}))
	}
	if len(l.Iter) > 1 {
		it := make([]float64, len(l.Iter))
		for i, v := range l.Iter {
			it[i] = float64(v + 1)
		}
		out = append(out, chart("non-zero advantages", "share of decisions with a non-zero advantage, by RL iteration", it, []series{{"advantages/nonzero", "#2ca02c", l.NonZero, nil}}))
	}
	return out, nil
}

// series is one line of a chart, with an optional band (lo, hi).
type series struct {
	Name, Color string
	Y           []float64
	Band        *[2][]float64
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

// Chart geometry, in SVG pixels.
const (
	chartW, chartH         = 460, 230
	padL, padR, padT, padB = 58, 12, 26, 34
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	pointsWithMarks        = 60 // a series this short gets a circle (with its numbers on hover) per point
)

// chart is an inline SVG line chart of the series over x: axes with the
// ranges, a legend, bands where given, and the numbers on hover (the last
// value of each line; each point of a short series). Only numbers and
// escaped names go into it.
func chart(title, caption string, x []float64, ss []series) template.HTML {
	x0, x1 := span(x)
	var ys [][]float64
	for _, s := range ss {
		ys = append(ys, s.Y)
		if s.Band != nil {
			ys = append(ys, s.Band[0], s.Band[1])
		}
	}
	y0, y1 := span(ys...)
	px := func(v float64) float64 { return padL + (v-x0)/(x1-x0)*plotW }
	py := func(v float64) float64 { return padT + (1-(v-y0)/(y1-y0))*plotH }
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart"><svg width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(caption))
	fmt.Fprintf(&b, `<text x="%d" y="16" class="t">%s</text>`, padL, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>`, padL, padT, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="a" text-anchor="end">%s</text>`, padL-4, py(y1)+4, num(y1))
	fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="a" text-anchor="end">%s</text>`, padL-4, py(y0), num(y0))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a">%s</text>`, padL, chartH-18, num(x0))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" text-anchor="end">%s</text>`, chartW-padR, chartH-18, num(x1))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" text-anchor="middle">step</text>`, padL+plotW/2, chartH-18)
	for i, s := range ss {
		if s.Band != nil {
			b.WriteString(`<polygon fill="` + s.Color + `" fill-opacity="0.15" stroke="none" points="`)
			for j := range x {
				fmt.Fprintf(&b, "%.1f,%.1f ", px(x[j]), py(s.Band[1][j]))
			}
			for j := len(x) - 1; j >= 0; j-- {
				fmt.Fprintf(&b, "%.1f,%.1f ", px(x[j]), py(s.Band[0][j]))
			}
			b.WriteString(`"/>`)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, s.Color)
		for j := range x {
			fmt.Fprintf(&b, "%.1f,%.1f ", px(x[j]), py(s.Y[j]))
		}
		last := len(x) - 1
		fmt.Fprintf(&b, `"><title>%s: %s at step %s (last)</title></polyline>`, html.EscapeString(s.Name), num(s.Y[last]), num(x[last]))
		if len(x) <= pointsWithMarks {
			for j := range x {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s at step %s</title></circle>`,
					px(x[j]), py(s.Y[j]), s.Color, html.EscapeString(s.Name), num(s.Y[j]), num(x[j]))
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" fill="%s">%s</text>`, padL+8+i*100, chartH-4, s.Color, html.EscapeString(s.Name))
	}
	fmt.Fprintf(&b, `</svg><figcaption>%s</figcaption></figure>`, html.EscapeString(caption))
	return template.HTML(b.String()) // numbers, fixed colours and escaped names only
}

// span is the range of the finite values, widened when empty or flat.
func span(vs ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// num is a chart label: a few significant digits.
func num(x float64) string { return fmt.Sprintf("%.3g", x) }

// runPage is what the run template renders.
type runPage struct {
	Title, Dir, RunJSON    string
	Charts                 []template.HTML
	Eval                   string
	Checkpoint, Provenance string
	CSS                    template.CSS
}

//go:embed runpage.html
var runHTML string

var runTemplate = template.Must(template.New("run").Parse(runHTML))
