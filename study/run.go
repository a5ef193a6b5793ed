package study

import (
	"bytes"
	"errors"
	"io"

	"github.com/mpdf/mpdf/env"
)

// A Report is a study run into its directory (Dir.CrossValidate): the
// study, its summary and report.md's bytes.
type Report struct {
	Study    *Study
	Summary  *Summary
	Markdown []byte
}

// CrossValidate runs the study of cfg on e (CrossValidate) into d:
// results.json, report.md, pareto.png and report.html. A study that fails
// leaves d as it found it (Abandon).
func (d *Dir) CrossValidate(e env.Env, cfg Config) (*Report, error) {
	s, err := CrossValidate(e, cfg)
	if err != nil {
		return nil, errors.Join(err, d.Abandon())
	}
	sum, err := s.Summarise()
	if err != nil {
		return nil, err
	}
	var md bytes.Buffer
	if err := sum.WriteMarkdown(&md); err != nil {
		return nil, err
	}
	if err := d.Write(s, sum); err != nil {
		return nil, err
	}
	return &Report{Study: s, Summary: sum, Markdown: md.Bytes()}, nil
}

// Publish writes the study's files into the held directory and prints
// its verdict lines to w (its summary as JSON with asJSON): what mpdf
// study and mpdf study merge end with.
func (d *Dir) Publish(s *Study, w io.Writer, asJSON bool) error {
	sum, err := s.Summarise()
	if err != nil {
		return err
	}
	if err := d.Write(s, sum); err != nil {
		return err
	}
	if asJSON {
		return sum.WriteJSON(w)
	}
	return sum.WriteVerdict(w)
}
