package cliflag

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
)

// Transcripts say how to read transcripts whose names do not: the flags of
// the commands that read transcript files (import, data corpus).
type Transcripts struct {
	kind          answer.Kind
	model, layout string
}

// Add binds --kind, --layout and --model on f.
func (t *Transcripts) Add(f *pflag.FlagSet) {
	Kind(f, &t.kind, "task of every file")
	Bind(f, &t.layout, "layout", "")
	Bind(f, &t.model, "model", "", "; here a label for the reports, when the names do not say")
}

// Inputs expands the transcript arguments (transcript.Glob) and parses the
// flags into transcript.Options.
func (t *Transcripts) Inputs(args []string) ([]string, transcript.Options, error) {
	opts := transcript.Options{Model: t.model, Task: t.kind}
	paths, err := transcript.Glob(args)
	if err != nil {
		return nil, opts, err
	}
	if opts.Layout, err = transcript.ParseLayout(t.layout); err != nil {
		return nil, opts, fmt.Errorf("--layout: %w", err)
	}
	return paths, opts, nil
}
