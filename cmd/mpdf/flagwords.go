package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/sim/calibrate"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/serve"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/shards"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/view"
)

// flagWords are the one place where library errors become flag words.
var flagWords = []cliflag.Word{
	{Err: data.ErrPackReward, Format: "%s; drop the reward flags"},
	{Err: data.ErrNoShardRecord, Format: "%s: not the output of collect --shard"},
	{Err: data.ErrExists, Format: "%s: --overwrite replaces it"},
	{Err: data.ErrOtherBuild, Format: "%s: merge shards of one build, or give --allow-other-build (recorded in the merged file's .merge.json)"},
	{Err: llm.ErrNoModel, Format: "%s (set --model or " + llm.EnvModel[0] + ")"},
	{Err: llm.ErrNoBaseURL, Format: "%s (set --base-url or " + llm.EnvBaseURL[0] + ")"},
	{Err: calibrate.ErrFiles, Format: "--calibrate: %s"},
	{Err: open.ErrEmptySide, Format: "%s: check --held-out"},
	{Err: env.ErrNoCounterfactual, Format: "%s: --credit counterfactual and baseline need --env replay:..."},
	{Err: open.ErrConfig, Format: "--%s"},
	{Err: open.ErrNoPolicy, Format: "%s: give --policy, or drop --no-baselines"},
	{Err: checkpoints.ErrForeign, Format: "%s or start a new --out"},
	{Err: checkpoints.ErrTrainedEnvs, Format: "%s: give --env"},
	{Err: checkpoints.ErrTrainedCritics, Format: "%s: add critic=on or critic=off to --env"},
	{Err: checkpoints.ErrTrainedSplits, Format: "%s: give --split with --held-out and --split-seed, or --split all"},
	{Err: llm.ErrExists, Format: "%s: --resume continues its collection, --overwrite replaces it"},
	{Err: llm.ErrCacheBusy, Format: "%s: give each collection running at once its own --cache, and share the others' with --cache-from (read-only)"},
	{Err: llm.ErrReplyTooLong, Format: "%s: raise --max-reply-bytes, or bound the replies with --max-tokens"},
	{Err: llm.ErrMidway, Format: "%s: --resume puts them in order and plays the missing ones, --overwrite drops them"},
	{Err: llm.ErrForeign, Format: "%s: resume with the first run's flags, or give another --out"},
	{Err: llm.ErrShardOutput, Format: "%s: resume it with the same --shard"},
	{Err: llm.ErrNotShard, Format: "%s: it was not collected with --shard"},
	{Err: llm.ErrOtherShard, Format: "%s: resume with the first run's --shard"},
	{Cmd: "mpdf train", Err: run.ErrNotEmpty, Format: "--out: %s: --resume continues that run, a new --out starts another, --overwrite replaces it"},
	{Cmd: "mpdf train", Err: run.ErrInitResume, Format: "--init and --resume: %s"},
	{Cmd: "mpdf train", Err: run.ErrLocked, Format: "%s, or give another --out"},
	{Cmd: "mpdf train", Err: run.ErrSingleBehaviour, Format: "%s. Train on the transcripts online instead, with --env 'replay:FILES' (the replay plays every action), or give --allow-single-behaviour to train on these rollouts anyway"},
	{Cmd: "mpdf simulate", Err: env.ErrTasks, Format: "%s (raise --sim-tasks)"},
	{Cmd: "mpdf view", Err: view.ErrOverBudget, Format: "%s: give --tasks N"},
	{Err: shards.ErrNoRecord, Format: "%s: not the output of mpdf study --shard"},
	{Err: shards.ErrUnfinished, Format: "%s (mpdf study with its --shard, --resume and the same flags)"},
	{Cmd: "mpdf study", Err: study.ErrLocked, Format: "%s, or give another --out"},
	{Cmd: "mpdf study", Err: study.ErrNotEmpty, Format: "--out: %s: give a new --out, or --overwrite to replace that study's files"},
	{Cmd: "mpdf study", Err: shards.ErrNotEmpty, Format: "--out: %s: give a new --out, --resume to continue this shard, or --overwrite to replace it"},
}

// inFlagWords words err, an error of cmd, in flag words: flagWords'
// sentinels, then a library's setting (out of range, or named by its
// error's mark) as the flag that sets it, a transcript given as rollouts,
// and serve's settings.
func inFlagWords(cmd *cobra.Command, err error) error {
	err = cliflag.SettingInFlags(cmd, cliflag.InWords(flagWords, cmd.CommandPath(), err))
	var te *data.TranscriptError
	if errors.As(err, &te) {
		do := ": replay it with --env 'replay:" + te.File + "', or convert it with mpdf import"
		if cmd.CommandPath() == "mpdf train" { // imported episodes record one behaviour: refused for training
			do = ": train on it with --env 'replay:" + te.File + "'"
		}
		err = cliflag.Rewrite(err, te, te.What()+do)
	}
	var se *serve.SettingError
	if errors.As(err, &se) {
		err = cliflag.Rewrite(err, se, se.Words(func(s serve.Setting) string { return cliflag.FlagWords(cmd, s.Field, s.Value) }))
	}
	return err
}
