package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/serve"
	"github.com/mpdf/mpdf/trainer/run"
)

// TestFlagWords: a library error marked with a sentinel, or a setting
// error, reaches the user in flag words, its context kept, and is still
// the error it was.
func TestFlagWords(t *testing.T) {
	cfg := serve.Config{MaxBodyBytes: -1 << 10}
	serr := cfg.Validate()
	_, _, rerr := run.ParseBestMetric("bogus", false)
	_, _, eerr := open.Env("bogus", open.Config{})
	_, terr := open.Tasks(nil, "", 0, 0, -1)
	for _, c := range []struct {
		path string
		err  error
		want string
	}{
		{"mpdf serve", fmt.Errorf("start: %w", serr), "start: serve: --max-body-kib -1: negative; want 0 (the default) or more"},
		{"mpdf train", rerr, `--best-metric "bogus": not a metric this run records`},
		{"mpdf study", rerr, `run: best metric "bogus": not a metric this run records`}, // not train's flag there
		{"mpdf eval", eerr, `--env: "bogus": want sim or ` + replay.Syntax},
		{"mpdf data validate", fmt.Errorf("read: %w", &data.TranscriptError{File: "g.json", Layout: "debate"}),
			"read: data: g.json: this is a debate transcript (LLM-Debate layout: question → [agent_contexts, gold]), not rollout records (episodes or decisions, one JSON object a line): replay it with --env 'replay:g.json', or convert it with mpdf import"},
		{"mpdf train", fmt.Errorf("read: %w", &data.TranscriptError{File: "g.json", Layout: "debate"}),
			"read: data: g.json: this is a debate transcript (LLM-Debate layout: question → [agent_contexts, gold]), not rollout records (episodes or decisions, one JSON object a line): train on it with --env 'replay:g.json'"},
		{"mpdf eval", terr, "--tasks -1: want ≥ 0 (0: all)"},
		{"mpdf serve", terr, "replay: tasks -1: want ≥ 0 (0: all)"}, // no --tasks there
	} {
		cmd, _, err := newRoot().Find(strings.Fields(c.path)[1:])
		if err != nil {
			t.Fatal(err)
		}
		got := inFlagWords(cmd, c.err)
		if got.Error() != c.want || !errors.Is(got, c.err) {
			t.Errorf("%s: %q, want %q (still the library's error)", c.path, got, c.want)
		}
	}
}
