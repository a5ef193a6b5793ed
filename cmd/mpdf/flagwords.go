package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim/calibrate"
	"github.com/mpdf/mpdf/serve"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/trainer/teacher"
	"github.com/mpdf/mpdf/view"
)

// A flagWord is a library error that a flag answers: the library says
// what is wrong in its own words, the command line adds what to give.
type flagWord struct {
	cmd    string // the command whose errors it words ("mpdf train"), or "" for all
	err    error  // the library's sentinel (errors.Is)
	format string // the message, from the library's (%s)
}

// flagWords are the one place where library errors become flag words.
var flagWords = []flagWord{
	{"", data.ErrPackReward, "%s; drop the reward flags"},
	{"", data.ErrNoShardRecord, "%s: not the output of collect --shard"},
	{"", data.ErrExists, "%s: --overwrite replaces it"},
	{"", llm.ErrResume, "--resume: %s"},
	{"", llm.ErrNoModel, "%s (set --model or " + llm.EnvModel[0] + ")"},
	{"", llm.ErrNoBaseURL, "%s (set --base-url or " + llm.EnvBaseURL[0] + ")"},
	{"", teacher.ErrLabels, "--sft-labels: %s"},
	{"", calibrate.ErrFiles, "--calibrate: %s"},
	{"", replay.ErrTasks, "--tasks %s"},
	{"", replay.ErrSplit, "--split: %s"},
	{"", replay.ErrEmptySide, "%s: check --held-out"},
	{"", replay.ErrHeldOut, "--held-out: %s"},
	{"", replay.ErrSpec, "--env: %s"},
	{"", replay.ErrEnvConfig, "--%s"},
	{"", replay.ErrNoPolicy, "%s: give --policy, or drop --no-baselines"},
	{"", checkpoints.ErrForeign, "%s or start a new --out"},
	{"", checkpoints.ErrTrainedEnvs, "%s: give --env"},
	{"", checkpoints.ErrTrainedCritics, "%s: add critic=on or critic=off to --env"},
	{"", checkpoints.ErrTrainedSplits, "%s: give --split with --held-out and --split-seed, or --split all"},
	{"", llm.ErrExists, "%s: --resume continues its collection, --overwrite replaces it"},
	{"", llm.ErrForeign, "%s: resume with the first run's flags, or give another --out"},
	{"", llm.ErrShardOutput, "%s: resume it with the same --shard"},
	{"", llm.ErrNotShard, "%s: it was not collected with --shard"},
	{"", llm.ErrOtherShard, "%s: resume with the first run's --shard"},
	{"mpdf train", run.ErrNotEmpty, "--out: %s: --resume continues that run, a new --out starts another, --overwrite replaces it"},
	{"mpdf train", run.ErrContinue, "--resume: %s"},
	{"mpdf train", run.ErrLocked, "%s, or give another --out"},
	{"mpdf view", view.ErrOverBudget, "%s: give --tasks N"},
	{"", study.ErrNoShardRecord, "%s: not the output of mpdf study --shard"},
	{"", study.ErrShardUnfinished, "%s (mpdf study with its --shard, --resume and the same flags)"},
	{"mpdf study", study.ErrLocked, "%s, or give another --out"},
	{"mpdf study", study.ErrNotEmpty, "--out: %s: give a new --out, or --overwrite to replace that study's files"},
}

// inFlagWords words err, an error of the command path, as each flagWord
// it is says, in the table's order: a hint after the message is the
// library's innermost error's, which ends the message.
func inFlagWords(path string, err error) error {
	for _, w := range flagWords {
		if (w.cmd == "" || w.cmd == path) && errors.Is(err, w.err) {
			err = &worded{err, w.format}
		}
	}
	var re *run.SettingError
	if path == "mpdf train" && errors.As(err, &re) {
		err = rewrite(err, re, fmt.Sprintf("--%s %s: %s", strings.ReplaceAll(re.Key, "_", "-"), re.Value, re.Want))
	}
	var se *serve.SettingError
	if errors.As(err, &se) {
		err = rewrite(err, se, se.Words(serveFlag))
	}
	return err
}

// rewrite is err with the message of its part, a library's setting error,
// written as words, the flag's.
func rewrite(err, part error, words string) error {
	return &rewritten{err, strings.Replace(err.Error(), part.Error(), words, 1)}
}

// serveSettingFlags are the mpdf serve flags of serve.Config's fields,
// each with its unit: 2^shift bytes.
var serveSettingFlags = map[string]struct {
	name  string
	shift uint
}{
	"MaxBodyBytes": {"max-body-kib", 10}, "MaxMemory": {"max-memory-mib", 20}, "MaxInflight": {"max-inflight", 0},
	"ReadTimeout": {"read-timeout", 0}, "WriteTimeout": {"write-timeout", 0}, "ShutdownTimeout": {"shutdown-timeout", 0},
	"RequestTimeout": {"request-timeout", 0}, "GOGC": {"gogc", 0},
}

// serveFlag words a serve.Config setting as its flag and value
// ("--max-body-kib -1"); a field no flag sets keeps its name.
func serveFlag(s serve.Setting) string {
	f, ok := serveSettingFlags[s.Field]
	if !ok {
		return fmt.Sprintf("%s %v", s.Field, s.Value)
	}
	if n, ok := s.Value.(int64); ok && n%(1<<f.shift) != 0 {
		return fmt.Sprintf("--%s (%d bytes)", f.name, n)
	} else if ok {
		return fmt.Sprintf("--%s %d", f.name, n>>f.shift)
	}
	return fmt.Sprintf("--%s %v", f.name, s.Value)
}

// rewritten is an error whose setting error is written in flag words; it
// is still the error it was.
type rewritten struct {
	error
	msg string
}

func (r *rewritten) Error() string { return r.msg }
func (r *rewritten) Unwrap() error { return r.error }

// worded is an error in flag words; it is still the error it was
// (errors.Is, errors.As, an exitError's code).
type worded struct {
	error
	format string
}

func (w *worded) Error() string { return fmt.Sprintf(w.format, w.error.Error()) }
func (w *worded) Unwrap() error { return w.error }

// addFlagWords puts every command's errors in flag words.
func addFlagWords(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return inFlagWords(cmd.CommandPath(), run(cmd, args)) }
	}
	for _, s := range c.Commands() {
		addFlagWords(s)
	}
}
