package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/trainer"
)

// StepLine is one line of metrics.jsonl: an RL step's metrics, or, for a
// skipped (non-finite) step, why it was skipped.
type StepLine struct {
	Step    int64  `json:"step"`
	Iter    int    `json:"iter"`
	Skipped string `json:"skipped,omitempty"`
	trainer.Metrics
}

// skippedLine is a skipped step's line: its metrics are not finite, and
// JSON has no NaN.
type skippedLine struct {
	Step    int64  `json:"step"`
	Iter    int    `json:"iter"`
	Skipped string `json:"skipped"`
}

// metricsLog appends step lines to metrics.jsonl (when a directory is
// given) and keeps the run's history, resumes included, for the curve and
// the action shares.
type metricsLog struct {
	f       *os.File
	history []StepLine
	size    int64 // bytes in the file
	// mark is the size and history length at the last checkpoint.
	markSize    int64
	markHistory int
}

// openMetrics opens dir's log. A fresh run starts it empty; a resumed run
// keeps the lines up to step (the checkpoint's) and drops the rest, which
// the killed process wrote after its last checkpoint and the resumed one
// will write again. The kept prefix replaces the file atomically.
func openMetrics(dir string, resumed bool, step int64) (*metricsLog, error) {
	l := &metricsLog{}
	if dir == "" {
		return l, nil
	}
	path := filepath.Join(dir, MetricsName)
	if resumed {
		kept, err := l.load(path, step)
		if err != nil {
			return nil, err
		}
		if err := outfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(kept); return err }); err != nil {
			return nil, fmt.Errorf("run: %s: %w", MetricsName, err)
		}
		l.size = int64(len(kept))
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

// load reads the lines of path up to step into the history and returns
// their bytes. A torn last line (a crash mid-write) ends the log.
func (l *metricsLog) load(path string, step int64) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	var kept bytes.Buffer
	lines := bytes.Split(b, []byte("\n"))
	lines = lines[:len(lines)-1] // after the last newline: "" or the torn line of a killed writer
	for n, line := range lines {
		var s StepLine
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("run: %s:%d: %w", path, n+1, err)
		}
		if s.Step > step {
			break
		}
		l.history = append(l.history, s)
		kept.Write(line)
		kept.WriteByte('\n')
	}
	return kept.Bytes(), nil
}

// add records a step and appends its line.
func (l *metricsLog) add(s StepLine) error {
	l.history = append(l.history, s)
	if l.f == nil {
		return nil
	}
	var b []byte
	var err error
	if s.Skipped != "" {
		b, err = json.Marshal(skippedLine{Step: s.Step, Iter: s.Iter, Skipped: s.Skipped})
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

// mark records that a checkpoint holds every step logged so far.
func (l *metricsLog) mark() { l.markSize, l.markHistory = l.size, len(l.history) }

// rewind drops the steps logged after the last mark, the work a stopped
// run leaves unsaved, so that the log ends where the last checkpoint does.
func (l *metricsLog) rewind() error {
	l.history = l.history[:l.markHistory]
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
	var per [][3]float64
	var cur [3]float64
	n, iter := 0, -1
	flush := func() {
		if n > 0 {
			per = append(per, [3]float64{cur[0] / float64(n), cur[1] / float64(n), cur[2] / float64(n)})
		}
		cur, n = [3]float64{}, 0
	}
	for _, s := range l.history {
		if s.Skipped != "" {
			continue
		}
		if s.Iter != iter {
			flush()
			iter = s.Iter
		}
		cur[0] += s.ActPersist
		cur[1] += s.ActRefine
		cur[2] += s.ActConcede
		n++
	}
	flush()
	if len(per) < 2 {
		return nil
	}
	k := (len(per) + 4) / 5
	return &Shares{First: mean3(per[:k]), Last: mean3(per[len(per)-k:])}
}

func mean3(s [][3]float64) [3]float64 {
	var m [3]float64
	for _, v := range s {
		for i := range m {
			m[i] += v[i] / float64(len(s))
		}
	}
	return m
}
