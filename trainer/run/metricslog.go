package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/trainer"
)

// The grains of metrics.jsonl (Config.MetricsEvery).
const (
	// MetricsEveryStep writes a line per RL step.
	MetricsEveryStep = "step"
	// MetricsEveryIteration writes a line per RL iteration: the step
	// metrics over the iteration's finite steps (see iterMetrics).
	MetricsEveryIteration = "iteration"
)

// maxLineBytes bounds a metrics.jsonl line read on resume; a written line
// is under 1 KiB.
const maxLineBytes = 64 << 10

// StepLine is one line of metrics.jsonl: an RL step's metrics, or, for a
// skipped (non-finite) step, why it was skipped. Per iteration, Step is the
// iteration's last step, Steps the finite steps its metrics summarise and
// SkippedSteps those left out (Skipped is set when no step was finite).
type StepLine struct {
	Step         int64  `json:"step"`
	Iter         int    `json:"iter"`
	Steps        int    `json:"steps,omitempty"`
	SkippedSteps int    `json:"skipped_steps,omitempty"`
	Skipped      string `json:"skipped,omitempty"`
	// HeldOut is set on a held-out point's line instead of the metrics
	// (Config.EvalEvery): Step and Iter say when it was taken.
	HeldOut *HeldOut `json:"heldout,omitempty"`
	trainer.Metrics
}

// skippedLine is a skipped step's line: its metrics are not finite, and
// JSON has no NaN.
type skippedLine struct {
	Step         int64  `json:"step"`
	Iter         int    `json:"iter"`
	SkippedSteps int    `json:"skipped_steps,omitempty"`
	Skipped      string `json:"skipped"`
}

// metricsLog appends lines to metrics.jsonl (when a directory is given),
// one per step or one per iteration, and folds every line logged, resumes
// included, into what the end of the run needs: the curve (a bounded
// plots.Stream) and each iteration's action shares. Memory is O(curve
// points + iterations), whatever the run's length.
type metricsLog struct {
	f     *os.File
	every string
	curve plots.Stream
	// iters are the action shares per iteration: sums and counts of the
	// finite lines, in iteration order.
	iters []iterShares
	size  int64 // bytes in the file
	lines int   // lines logged
	last  int64 // step of the last line
	// pending is the iteration being gathered (per iteration).
	pending *iterMetrics
	// mark is the size at the last checkpoint.
	markSize int64
	// heldOut are the held-out points logged, in order (one per
	// Config.EvalEvery iterations).
	heldOut []HeldOutPoint
}

type iterShares struct {
	iter    int
	sum     [metapolicy.NumActions]float64
	nonzero float64 // sum of advantages/nonzero
	n       int
}

// openMetrics opens dir's log at the grain every. A fresh run starts it
// empty; a resumed run keeps the lines up to step (the checkpoint's) and
// drops the rest, which the killed process wrote after its last checkpoint
// and the resumed one will write again. The kept prefix replaces the file
// atomically.
func openMetrics(dir, every string, resumed bool, step int64) (*metricsLog, error) {
	l := &metricsLog{every: every}
	if dir == "" {
		return l, nil
	}
	path := filepath.Join(dir, MetricsName)
	if resumed {
		err := outfile.WriteFile(path, func(w io.Writer) error { return l.load(path, step, w) })
		if err != nil {
			return nil, fmt.Errorf("run: %s: %w", MetricsName, err)
		}
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if resumed {
		flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	l.f = f
	l.mark()
	return l, nil
}

// load reads the lines of path up to step, streaming, folds them into the
// log and copies their bytes to w (when not nil). A torn last line (a
// crash mid-write) ends the log.
func (l *metricsLog) load(path string, step int64, w io.Writer) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return l.loadFrom(f, path, step, w)
}

// loadFrom is load's reading of r, the log named name in its errors.
func (l *metricsLog) loadFrom(r io.Reader, name string, step int64, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err == io.EOF { // no further newline: "" or the torn line of a killed writer
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		var s StepLine
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if s.Step > step {
			return nil
		}
		l.fold(s)
		l.size += int64(len(line)) + 1
		if w != nil {
			if _, err := w.Write(line); err != nil {
				return err
			}
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
	}
}

// readLine returns the next newline-terminated line without its newline,
// io.EOF when none is left, and an error for a line over maxLineBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLineBytes {
			return nil, fmt.Errorf("line over %d bytes", maxLineBytes)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// fold adds a logged line to the curve and the shares.
func (l *metricsLog) fold(s StepLine) {
	l.lines++
	l.last = s.Step
	if s.HeldOut != nil {
		l.heldOut = append(l.heldOut, HeldOutPoint{Step: s.Step, Iter: s.Iter, HeldOut: s.HeldOut})
		return
	}
	if s.Skipped != "" {
		return
	}
	m := &s.Metrics
	sh := m.ActionShares()
	// plots.Curves holds one series per action as a field (Persist, Refine,
	// Concede; plots sits below metapolicy): another action needs its own.
	var _ = [1]struct{}{}[metapolicy.NumActions-3]
	l.curve.Add(s.Step, m.Reward, m.KL, m.Entropy, sh[metapolicy.Persist], sh[metapolicy.Refine], sh[metapolicy.Concede])
	if k := len(l.iters); k == 0 || l.iters[k-1].iter != s.Iter {
		l.iters = append(l.iters, iterShares{iter: s.Iter})
	}
	it := &l.iters[len(l.iters)-1]
	for a, v := range sh {
		it.sum[a] += v
	}
	it.nonzero += m.AdvNonZero
	it.n++
}

// writeHeldOut logs a held-out point (after the iteration's own line).
func (l *metricsLog) writeHeldOut(h HeldOutPoint) error {
	if err := l.endIteration(); err != nil {
		return err
	}
	l.fold(StepLine{Step: h.Step, Iter: h.Iter, HeldOut: h.HeldOut})
	if l.f == nil {
		return nil
	}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("run: %s: held-out point at iteration %d: %w", MetricsName, h.Iter, err)
	}
	n, err := l.f.Write(append(b, '\n'))
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("run: %s: %w", MetricsName, err)
	}
	return nil
}

// heldOutAt reports whether the log holds a held-out point after iter
// iterations (a resumed run's).
func (l *metricsLog) heldOutAt(iter int) bool {
	k := len(l.heldOut)
	return k > 0 && l.heldOut[k-1].Iter == iter
}

// add records a step: its line now (per step), or into the iteration's
// line, which endIteration writes.
func (l *metricsLog) add(s StepLine) error {
	if l.every != MetricsEveryIteration {
		return l.write(s)
	}
	if l.pending == nil || l.pending.iter != s.Iter {
		if err := l.endIteration(); err != nil {
			return err
		}
		l.pending = &iterMetrics{iter: s.Iter}
	}
	l.pending.add(s)
	return nil
}

// endIteration writes the line of the iteration gathered so far, if any.
func (l *metricsLog) endIteration() error {
	p := l.pending
	l.pending = nil
	if p == nil {
		return nil
	}
	return l.write(p.line())
}

// write folds a line and appends it to the file.
func (l *metricsLog) write(s StepLine) error {
	l.fold(s)
	if l.f == nil {
		return nil
	}
	var b []byte
	var err error
	if s.Skipped != "" {
		b, err = json.Marshal(skippedLine{Step: s.Step, Iter: s.Iter, SkippedSteps: s.SkippedSteps, Skipped: s.Skipped})
	} else {
		b, err = json.Marshal(s)
	}
	if err != nil {
		return fmt.Errorf("run: %s: step %d: %w", MetricsName, s.Step, err)
	}
	n, err := l.f.Write(append(b, '\n'))
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("run: %s: %w", MetricsName, err)
	}
	return nil
}

// mark records that a checkpoint holds every line logged so far.
func (l *metricsLog) mark() { l.markSize = l.size }

// rewind drops the lines logged after the last mark, the work a stopped
// run leaves unsaved, so that the file ends where the last checkpoint
// does. (A rewound log ends its run: the curve and shares, which already
// hold those lines, are not drawn.)
func (l *metricsLog) rewind() error {
	l.pending = nil
	if l.f == nil || l.size == l.markSize {
		return nil
	}
	if err := l.f.Truncate(l.markSize); err != nil {
		return fmt.Errorf("run: %s: %w", MetricsName, err)
	}
	l.size = l.markSize
	return nil
}

func (l *metricsLog) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("run: %s: %w", MetricsName, err)
	}
	return nil
}

// shares averages each iteration's step action shares, then those over the
// first and last fifth of the iterations; nil under two iterations.
func (l *metricsLog) shares() *Shares {
	per := make([][metapolicy.NumActions]float64, 0, len(l.iters))
	for _, it := range l.iters {
		n := float64(it.n)
		var v [metapolicy.NumActions]float64
		for a, s := range it.sum {
			v[a] = s / n
		}
		per = append(per, v)
	}
	if len(per) < 2 {
		return nil
	}
	k := (len(per) + 4) / 5
	return &Shares{First: meanShares(per[:k]), Last: meanShares(per[len(per)-k:])}
}

func meanShares(s [][metapolicy.NumActions]float64) [metapolicy.NumActions]float64 {
	var m [metapolicy.NumActions]float64
	for _, v := range s {
		for i := range m {
			m[i] += v[i] / float64(len(s))
		}
	}
	return m
}

// iterMetrics gathers an iteration's steps into its line: the mean of
// each step metric over the finite steps, except advantages/min and
// advantages/max (the extremes) and learning_rate (the last step's).
type iterMetrics struct {
	iter    int
	last    int64
	n       int
	skipped int
	why     string // the first skipped step's reason
	sum     trainer.Metrics
	lo, hi  float64
	lr      float64
}

func (p *iterMetrics) add(s StepLine) {
	p.last = s.Step
	if s.Skipped != "" {
		if p.skipped == 0 {
			p.why = s.Skipped
		}
		p.skipped++
		return
	}
	m := &s.Metrics
	if p.n == 0 {
		p.lo, p.hi = math.Inf(1), math.Inf(-1)
	}
	p.n++
	dst, src := fieldsOf(&p.sum), fieldsOf(m)
	for i := range dst {
		*dst[i] += *src[i]
	}
	p.lo, p.hi, p.lr = min(p.lo, m.AdvMin), max(p.hi, m.AdvMax), m.LearningRate
}

func (p *iterMetrics) line() StepLine {
	s := StepLine{Step: p.last, Iter: p.iter, Steps: p.n, SkippedSteps: p.skipped}
	if p.n == 0 {
		s.Skipped = p.why
		return s
	}
	s.Metrics = p.sum
	for _, f := range fieldsOf(&s.Metrics) {
		*f /= float64(p.n)
	}
	s.AdvMin, s.AdvMax, s.LearningRate = p.lo, p.hi, p.lr
	return s
}

// fieldsOf lists m's fields in MetricNames order.
func fieldsOf(m *trainer.Metrics) []*float64 {
	return []*float64{
		&m.Loss, &m.PolicyLoss, &m.KL, &m.Entropy, &m.ClipLow, &m.ClipHigh,
		&m.Reward, &m.RewardStd, &m.FracRewardZeroStd,
		&m.AdvMean, &m.AdvMin, &m.AdvMax,
		&m.GradNorm, &m.LearningRate, &m.StepTime,
		&m.ActPersist, &m.ActRefine, &m.ActConcede,
		&m.AdvNonZero,
	}
}
