// Package progress reports the progress of long work on stderr: a redrawn
// bar on a terminal, a plain line every few seconds elsewhere (CI logs,
// files), nothing when quiet; both with an ETA once the total is known and
// enough is done (eta.go). Set may be called from worker goroutines.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// plainEvery is how often a progress line is printed when stderr is not a
// terminal (CI logs, files): a redrawn bar there would fill the log.
const plainEvery = 10 * time.Second

// A Bar reports progress on stderr: a redrawn bar on a terminal, a plain
// line at most every plainEvery (and one at the end) elsewhere, nothing
// when quiet; with an ETA when its total is known.
type Bar struct {
	pb *progressbar.ProgressBar // on a terminal

	mu          sync.Mutex // Set may come from worker goroutines
	w           io.Writer
	desc        string
	total, done int
	start, last time.Time
	finished    bool
	now         func() time.Time // the clock (a test's own)
	eta         eta
	shown       string // the terminal bar's description: desc and the ETA
}

// New returns a progress bar on stderr for total units of work.
func New(total int, desc string, quiet bool) *Bar {
	if quiet {
		return NewTo(io.Discard, false, total, desc)
	}
	return NewTo(os.Stderr, term.IsTerminal(int(os.Stderr.Fd())), total, desc)
}

// NewTo writes to w, redrawing only when w is a terminal.
func NewTo(w io.Writer, terminal bool, total int, desc string) *Bar {
	return newClocked(w, terminal, total, desc, time.Now)
}

// newClocked is NewTo on the clock now.
func newClocked(w io.Writer, terminal bool, total int, desc string, now func() time.Time) *Bar {
	b := &Bar{w: w, desc: desc, total: total, now: now, start: now(), shown: desc}
	b.last, b.eta.start, b.eta.at = b.start, b.start, b.start
	if terminal {
		// The bar shows the elapsed time; the ETA is ours (the bar's own
		// is the mean rate since the start), after the description.
		b.pb = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(100_000_000), // at most 10 redraws a second
			progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
		)
	}
	return b
}

// Describe sets the text shown before the count.
func (b *Bar) Describe(desc string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.desc = desc
	b.redescribe(b.etaSuffix(b.now()))
}

// etaSuffix is the ETA as the bar shows it after its description
// (", ETA 3m10s"), or "" when there is none to show; the caller holds mu.
func (b *Bar) etaSuffix(now time.Time) string {
	if d, ok := b.eta.left(now, b.done, b.total); ok {
		return ", ETA " + etaText(d)
	}
	return ""
}

// redescribe gives the terminal bar its description and ETA when they
// changed; the caller holds mu.
func (b *Bar) redescribe(suffix string) {
	if b.pb == nil || b.desc+suffix == b.shown {
		return
	}
	b.shown = b.desc + suffix
	b.pb.Describe(b.shown)
}

// Add moves the bar n units on.
func (b *Bar) Add(n int) error {
	b.mu.Lock()
	done := b.done + n
	b.mu.Unlock()
	return b.Set(done)
}

// Set moves the bar to done units.
func (b *Bar) Set(done int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = done
	now := b.now()
	b.eta.observe(now, done)
	suffix := b.etaSuffix(now)
	if b.pb != nil {
		b.redescribe(suffix)
		return b.pb.Set(done)
	}
	if now.Sub(b.last) >= plainEvery {
		b.last = now
		return b.line(now, suffix)
	}
	return nil
}

// line prints the plain progress line; the caller holds mu.
func (b *Bar) line(now time.Time, suffix string) error {
	pct := 100.0
	if b.total > 0 {
		pct = 100 * float64(b.done) / float64(b.total)
	}
	_, err := fmt.Fprintf(b.w, "%s: %d/%d (%.0f%%) %s%s\n", b.desc, b.done, b.total, pct, now.Sub(b.start).Round(time.Second), suffix)
	return err
}

// Finish completes the bar: the terminal bar is filled, a plain log gets
// its last line.
func (b *Bar) Finish() error { return b.end(" done", (*progressbar.ProgressBar).Finish) }

// Exit leaves the bar where it stands (on an error).
func (b *Bar) Exit() error { return b.end(" stopped", (*progressbar.ProgressBar).Exit) }

// end ends the bar once: the terminal bar by how, a plain log by a last
// line ending in suffix.
func (b *Bar) end(suffix string, how func(*progressbar.ProgressBar) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return nil
	}
	b.finished = true
	if b.pb != nil {
		b.redescribe("")
		return how(b.pb)
	}
	return b.line(b.now(), suffix)
}

// SetTotal changes the amount of work, for work whose size is known late.
func (b *Bar) SetTotal(total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = total
	if b.pb != nil && b.pb.GetMax() != total {
		b.pb.ChangeMax(total)
	}
}

// Func returns a progress callback (done, total) that moves b, offset by
// the units counted before: the Progress of env.RunOptions and friends.
func (b *Bar) Func(offset int) func(done, total int) {
	return func(done, _ int) { _ = b.Set(offset + done) }
}

// Grow returns a progress callback that also sets the total, for work
// whose size its callee knows.
func (b *Bar) Grow() func(done, total int) {
	return func(done, total int) {
		b.SetTotal(total)
		_ = b.Set(done)
	}
}

// Lazy returns a progress callback whose bar is made at its first call,
// when the total is known, and a function that finishes that bar (if any).
func Lazy(desc string, quiet bool) (progress func(done, total int), finish func()) {
	progress, _, finish = LazyDescribed(desc, quiet)
	return progress, finish
}

// LazyDescribed is Lazy with a function that sets the bar's description
// (once the bar exists; before, it is kept for the bar).
func LazyDescribed(desc string, quiet bool) (progress func(done, total int), describe func(string), finish func()) {
	var b *Bar
	progress = func(done, total int) {
		if b == nil {
			b = New(total, desc, quiet)
		}
		_ = b.Set(done)
	}
	describe = func(d string) {
		desc = d
		if b != nil {
			b.Describe(d)
		}
	}
	finish = func() {
		if b != nil {
			_ = b.Finish()
		}
	}
	return progress, describe, finish
}

// Done ends the bar after work that returned err: filled when it is nil,
// left where it stands otherwise.
func (b *Bar) Done(err error) {
	if err != nil {
		_ = b.Exit()
		return
	}
	_ = b.Finish()
}
