package study

import (
	"bytes"
	"errors"

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

// RunAblation runs the ablation kind of cfg on e (Ablate) into d:
// ablation.md, ablation.json and results.json, returned with
// ablation.md's bytes. An ablation that fails leaves d as it found it.
func (d *Dir) RunAblation(e env.Env, cfg Config, kind string) (*Ablation, []byte, error) {
	a, err := Ablate(e, cfg, kind)
	if err != nil {
		return nil, nil, errors.Join(err, d.Abandon())
	}
	if err := d.WriteAblation(a); err != nil {
		return nil, nil, err
	}
	var md bytes.Buffer
	if err := a.WriteMarkdown(&md); err != nil {
		return nil, nil, err
	}
	return a, md.Bytes(), nil
}
