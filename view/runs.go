package view

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/trainer/run"
)

// The index of runs (mpdf runs): every training run's directory under a
// directory, side by side — the configuration keys whose values differ
// between them, each run's verdict and best numbers, and their curves
// overlaid, a checkbox per run to show or hide its lines. The directory's
// files are untrusted: they are read through an os.Root (no symbolic link
// leads out of the directory; a symbolically linked run directory is not
// entered), every read is bounded (runread.go), every text escaped; a
// run whose files do not read is listed as skipped with the error (file
// and line), and the other runs are shown.

// DefaultRunsDir is the directory the index covers when given none: where
// mpdf train and mpdf study write by default (runs/mpdf, runs/study).
const DefaultRunsDir = "runs"

// RunsIndexName is the index's file in the directory of runs.
const RunsIndexName = "index.html"

// runsMarker is in every index this package writes: an existing file
// without it is not replaced.
const runsMarker = `<meta name="generator" content="mpdf runs">`

// Caps of the index: the runs shown (the first by path; the page says how
// many more there are), how deep under the directory a run may sit, the
// entries the search visits, the points of a run's per-step curve (means
// of buckets of steps), and the configuration keys shown.
const (
	MaxRuns         = 50
	maxRunsDepth    = 4
	maxRunsEntries  = 20000
	overlayPoints   = 300
	maxConfigColumn = 40
	runsShownAtOpen = 10 // the runs whose lines show when the page opens
)

// DefaultRunsMaxBytes is the index's size budget: the index of 50 copies
// of the default run (mpdf train --out DIR, 1,280 steps, 9 held-out
// points) is 1.03 MB, written in 0.7 s.
const DefaultRunsMaxBytes = 5 << 20

// Skipped is a run directory the index leaves out, and why.
type Skipped struct {
	Dir, Reason string
}

// RunsIndex says what an index holds.
type RunsIndex struct {
	// Path is the file written (WriteRunsIndex).
	Path string
	// Runs are the directories shown, relative to the directory of runs;
	// Skipped those whose files did not read; More the runs past MaxRuns.
	Runs    []string
	Skipped []Skipped
	More    int
	// Truncated says the search stopped after maxRunsEntries entries.
	Truncated bool
}

// WriteRunsIndex writes the index of the runs under dir (WriteRuns) to
// out, or to dir/index.html when out is "", whole or not at all. It
// refuses dir when dir is itself a run's directory (its index.html is
// the run's page), and an out that exists and is not an index of runs.
func WriteRunsIndex(dir, out string) (*RunsIndex, error) {
	if out == "" {
		out = filepath.Join(dir, RunsIndexName)
	}
	// The runs' links are relative to the index's own directory.
	base := ""
	if ad, err := filepath.Abs(dir); err == nil {
		if ao, err := filepath.Abs(out); err == nil {
			if rel, err := filepath.Rel(filepath.Dir(ao), ad); err == nil {
				base = filepath.ToSlash(rel)
			}
		}
	}
	var page bytes.Buffer
	idx, err := writeRuns(&page, dir, base)
	if err != nil {
		return nil, err
	}
	if err := notOverOther(out); err != nil {
		return nil, err
	}
	idx.Path = out
	return idx, outfile.WriteFile(out, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	})
}

// notOverOther refuses out when it exists and is not an index of runs.
func notOverOther(out string) error {
	fi, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("view: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("view: %s: not a regular file: the index is not written over it", out)
	}
	f, err := os.Open(out)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte(runsMarker)) {
		return fmt.Errorf("view: %s exists and is not an index of runs (mpdf runs writes those): not replaced; give another output file", out)
	}
	return nil
}

// WriteRuns renders the index of the training runs under dir to w, one
// self-contained HTML page (see the package's notes above). A directory
// is a run when it holds metrics.jsonl, eval.json or best.mpdf; the
// search does not enter a run, a hidden directory or a symbolic link, nor
// go deeper than 4 levels. It refuses dir when dir is itself a run, or
// when the page would be over DefaultRunsMaxBytes (ErrOverBudget).
func WriteRuns(w io.Writer, dir string) (*RunsIndex, error) {
	return writeRuns(w, dir, ".")
}

// writeRuns is WriteRuns with the runs' links relative to base, the
// directory of runs as seen from the page ("": no links).
func writeRuns(w io.Writer, dir, base string) (*RunsIndex, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	defer root.Close()
	if isRun(root, ".") {
		return nil, fmt.Errorf("view: %s is a training run's directory (its %s is the run's page: mpdf view %s); give the directory that holds runs", dir, RunPageName, dir)
	}
	idx := &RunsIndex{}
	dirs, err := findRuns(root, idx)
	if err != nil {
		return nil, fmt.Errorf("view: %s: %w", dir, err)
	}
	if len(dirs) > MaxRuns {
		idx.More, dirs = len(dirs)-MaxRuns, dirs[:MaxRuns]
	}
	var runs []runsEntry
	for _, rel := range dirs {
		d, err := readRunData(root, rel)
		if err != nil {
			idx.Skipped = append(idx.Skipped, Skipped{Dir: rel, Reason: err.Error()})
			continue
		}
		idx.Runs = append(idx.Runs, rel)
		runs = append(runs, runsEntry{Dir: rel, Data: d, HasPage: regular(root, path.Join(rel, RunPageName))})
	}
	p := buildRunsPage(dir, base, runs, idx)
	var buf bytes.Buffer
	if err := runsTemplate.Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("view: render: %w", err)
	}
	if buf.Len() > DefaultRunsMaxBytes {
		size, limit := sizePair(buf.Len(), DefaultRunsMaxBytes)
		return nil, errmark.Mark(fmt.Errorf("view: %s: the index would be %s, over its budget of %s: index fewer runs (a subdirectory)", dir, size, limit), ErrOverBudget)
	}
	_, err = w.Write(buf.Bytes())
	return idx, err
}

// isRun reports whether rel in root holds a run's file (of any type: one
// that is a link out of the directory, or no regular file, makes the run
// listed as skipped, not left out unsaid).
func isRun(root *os.Root, rel string) bool {
	for _, name := range []string{run.MetricsName, run.EvalName, "best.mpdf"} {
		if _, err := root.Lstat(path.Join(rel, name)); err == nil {
			return true
		}
	}
	return false
}

// findRuns lists the run directories under root, by path.
func findRuns(root *os.Root, idx *RunsIndex) ([]string, error) {
	var dirs []string
	seen := 0
	err := fs.WalkDir(root.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return fs.SkipDir // an unreadable directory holds no run we can show
		}
		if seen++; seen > maxRunsEntries {
			idx.Truncated = true
			return fs.SkipAll
		}
		if !e.IsDir() || p == "." { // a symbolic link is not a directory here
			return nil
		}
		if strings.HasPrefix(e.Name(), ".") || strings.Count(p, "/")+1 > maxRunsDepth {
			return fs.SkipDir
		}
		if isRun(root, p) {
			dirs = append(dirs, p)
			return fs.SkipDir
		}
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// runsEntry is a run read for the index.
type runsEntry struct {
	Dir     string
	Data    *runData
	HasPage bool // its directory holds its page, a regular file
}

// runsPage is what the index's template renders.
type runsPage struct {
	Title, Dir  string
	Rows        []runsRow
	ConfigKeys  []string
	MoreKeys    int
	Charts      []template.HTML
	ChartData   map[string]*chartData
	Skipped     []Skipped
	More        int
	Truncated   bool
	Smoothing   float64
	Marker      template.HTML
	CSS         template.CSS
	JS          template.JS
	Same        []kv
	ShownAtOpen int
}

// runsRow is a run's row of the index.
type runsRow struct {
	ID, Dir, Color string
	Page           string // its run page, relative to the index, when it has one
	Viewer         string // its final evaluation's viewer, likewise
	Shown          bool
	Use, Sentence  string
	Accuracy, CI   string
	Tokens         string
	BestHeldOut    string
	LastHeldOut    string
	Steps          string
	Config         []string // the values of runsPage.ConfigKeys
}

// palette colours the runs (cycling past ten).
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

func buildRunsPage(dir, base string, runs []runsEntry, idx *RunsIndex) *runsPage {
	p := &runsPage{Title: "runs in " + dir, Dir: dir, Skipped: idx.Skipped, More: idx.More, Truncated: idx.Truncated,
		Smoothing: DefaultSmoothing, Marker: template.HTML(runsMarker), CSS: template.CSS(runCSS + runsCSS), JS: template.JS(runJS + runsJS),
		ChartData: map[string]*chartData{}, ShownAtOpen: min(len(runs), runsShownAtOpen)}
	p.ConfigKeys, p.Same, p.MoreKeys = configDiff(runs)
	acc := &lineChart{ID: "o-heldout-accuracy", Title: "held-out accuracy", XLabel: "RL iteration", Scale: yShare,
		Caption: "team accuracy on the held-out tasks, by RL iteration (0: the supervised policy)"}
	tok := &lineChart{ID: "o-heldout-tokens", Title: "held-out tokens", XLabel: "RL iteration", Scale: yCount,
		Caption: "tokens per task on the held-out tasks, by RL iteration"}
	rew := &lineChart{ID: "o-reward", Title: "reward", XLabel: "step", Scale: ySigned, Smooth: true, NoRaw: true,
		Caption: fmt.Sprintf("mean reward per row, by step (at most %d points a run: means of buckets of steps), smoothed", overlayPoints)}
	kl := &lineChart{ID: "o-kl", Title: "KL", XLabel: "step", Scale: yCount, Smooth: true, NoRaw: true,
		Caption: "KL(π ‖ π_ref), by step, smoothed"}
	for i, r := range runs {
		id := fmt.Sprintf("r%d", i)
		color := palette[i%len(palette)]
		row := runsRow{ID: id, Dir: r.Dir, Color: color, Shown: i < runsShownAtOpen, Use: "—", Accuracy: "—", CI: "", Tokens: "—", BestHeldOut: "—", LastHeldOut: "—", Steps: "—"}
		if r.HasPage && base != "" {
			row.Page = "./" + path.Join(base, r.Dir, RunPageName)
		}
		if r.Data.HasViewer && base != "" {
			row.Viewer = "./" + path.Join(base, r.Dir, RunViewName)
		}
		d := r.Data
		if ev := d.Eval; ev != nil && ev.Verdict != nil {
			v := ev.Verdict
			row.Use, row.Sentence = v.Use, v.Line()
			for _, vr := range v.Rows {
				if vr.Learned {
					row.Accuracy, row.CI, row.Tokens = fmt.Sprintf("%.3f", vr.Accuracy), fmt.Sprintf("[%.3f, %.3f]", vr.CILow, vr.CIHigh), fmt.Sprintf("%.0f", vr.TokensPerTask)
					break
				}
			}
		}
		if l := d.Learning; l != nil && len(l.HeldOut) > 0 {
			var it, a, t []float64
			best := 0
			for j, h := range l.HeldOut {
				it, a, t = append(it, float64(h.Iter)), append(a, h.HeldOut.TeamAccuracy), append(t, h.HeldOut.TokensPerTask)
				if h.HeldOut.TeamAccuracy > l.HeldOut[best].HeldOut.TeamAccuracy {
					best = j
				}
			}
			b, last := l.HeldOut[best], l.HeldOut[len(l.HeldOut)-1]
			row.BestHeldOut = fmt.Sprintf("%.3f (iteration %d)", b.HeldOut.TeamAccuracy, b.Iter)
			row.LastHeldOut = fmt.Sprintf("%.3f (iteration %d)", last.HeldOut.TeamAccuracy, last.Iter)
			acc.Series = append(acc.Series, series{Name: r.Dir, Color: color, X: it, Y: a, Run: id})
			tok.Series = append(tok.Series, series{Name: r.Dir, Color: color, X: it, Y: t, Run: id})
		}
		if c := d.Curves; c != nil && len(c.Step) > 0 {
			row.Steps = fmt.Sprintf("%.0f", c.Step[len(c.Step)-1])
			x, y := buckets(c.Step, c.Reward, overlayPoints)
			rew.Series = append(rew.Series, series{Name: r.Dir, Color: color, X: x, Y: y, Run: id})
			x, y = buckets(c.Step, c.KL, overlayPoints)
			kl.Series = append(kl.Series, series{Name: r.Dir, Color: color, X: x, Y: y, Run: id})
		}
		for _, k := range p.ConfigKeys {
			v, ok := configValue(d.Config, k)
			if !ok {
				v = "—"
			}
			row.Config = append(row.Config, v)
		}
		p.Rows = append(p.Rows, row)
	}
	for _, c := range []*lineChart{acc, tok, rew, kl} {
		if len(c.Series) == 0 {
			continue
		}
		h, data := c.render()
		p.Charts = append(p.Charts, h)
		if data != nil {
			p.ChartData[c.ID] = data
		}
	}
	return p
}

// buckets are at most n points of (x, y): the means of consecutive
// buckets of points when there are more.
func buckets(x, y []float64, n int) ([]float64, []float64) {
	if len(x) <= n {
		return x, y
	}
	bx, by := make([]float64, 0, n), make([]float64, 0, n)
	for b := range n {
		lo, hi := b*len(x)/n, (b+1)*len(x)/n
		var sx, sy float64
		for i := lo; i < hi; i++ {
			sx, sy = sx+x[i], sy+y[i]
		}
		k := float64(hi - lo)
		bx, by = append(bx, sx/k), append(by, sy/k)
	}
	return bx, by
}

// configDiff are the configuration keys whose values differ between the
// runs (a key some runs lack counts as differing), at most
// maxConfigColumn of them (the number left out is returned); and the keys
// every run has alike, with their value.
func configDiff(runs []runsEntry) (diff []string, same []kv, more int) {
	values := map[string]map[string]bool{}
	count := map[string]int{}
	first := map[string]string{}
	for _, r := range runs {
		for _, e := range r.Data.Config {
			if values[e.Key] == nil {
				values[e.Key] = map[string]bool{}
				first[e.Key] = e.Value
			}
			values[e.Key][e.Value] = true
			count[e.Key]++
		}
	}
	for _, k := range sortedKeys(values) {
		if len(values[k]) > 1 || count[k] < len(runs) {
			diff = append(diff, k)
		} else {
			same = append(same, kv{k, first[k]})
		}
	}
	if len(diff) > maxConfigColumn {
		more, diff = len(diff)-maxConfigColumn, diff[:maxConfigColumn]
	}
	return diff, same, more
}

func configValue(c []kv, key string) (string, bool) {
	for _, e := range c {
		if e.Key == key {
			return e.Value, true
		}
	}
	return "", false
}

//go:embed runs.html
var runsHTML string

//go:embed runs.css
var runsCSS string

//go:embed runs.js
var runsJS string

var runsTemplate = template.Must(template.New("runs").Parse(runsHTML))
