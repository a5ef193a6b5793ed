package run

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/mpdf/mpdf/internal/progress"
)

// A Printer shows a run as mpdf train does: the resolved config and each
// stage's result on stdout, a progress bar per stage and the run's log on
// stderr (without times: a log compared run to run).
type Printer struct {
	stdout io.Writer
	quiet  bool
	bar    *progress.Bar
	stage  string
}

// NewPrinter returns a Printer; quiet drops its progress bars and the
// resolved config (run.json and each checkpoint keep it).
func NewPrinter(stdout io.Writer, quiet bool) *Printer {
	return &Printer{stdout: stdout, quiet: quiet}
}

// Hooks are the run's hooks that print, with the log on stderr.
func (p *Printer) Hooks(stderr io.Writer) Hooks {
	logOpts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	return Hooks{Logger: slog.New(slog.NewTextHandler(stderr, logOpts)), Start: p.start, Progress: p.progress, SFT: p.sft}
}

func (p *Printer) start(s Start) {
	if p.quiet {
		return
	}
	resolved, _ := json.MarshalIndent(s.Config, "", "  ")
	fmt.Fprintf(p.stdout, "mpdf train: resolved config\n%s\n", resolved)
}

func (p *Printer) progress(g Progress) {
	if g.Stage != p.stage {
		p.End(true)
		p.stage, p.bar = g.Stage, progress.New(g.Total, g.Stage, p.quiet)
	}
	p.bar.Describe(g.Desc)
	p.bar.Set(g.Done)
}

// End finishes the current bar (ok), or leaves it where it stands.
func (p *Printer) End(ok bool) {
	if p.bar == nil {
		return
	}
	if ok {
		p.bar.Finish()
	} else {
		p.bar.Exit()
	}
	p.bar, p.stage = nil, ""
}

func (p *Printer) sft(r SFTResult) {
	p.End(true)
	_ = r.WriteText(p.stdout)
}
