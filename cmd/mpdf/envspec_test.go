package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
)

// A replay spec's kind= and layout= parts reach the transcript reader, in
// eval and in train, and a resumed run reopens the spec it recorded: a
// file whose name says no task trains and resumes with kind= alone.
func TestReplaySpecOptions(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.json") // a name that says no task
	if err := os.Rename(writeTranscript(t, dir), log); err != nil {
		t.Fatal(err)
	}
	spec := "replay:" + log

	if _, err := runCmd(t, "eval", "--env", spec, "-q"); err == nil || !strings.Contains(err.Error(), "log.json") {
		t.Errorf("a file whose name says no task, no kind: error %v, want one naming the file", err)
	}
	for _, args := range [][]string{
		{"--env", spec + ",kind=gsm"},
		{"--env", spec, "--kind", "GSM8K"},
		{"--env", spec + ",layout=debate,kind=gsm8k", "--kind", "gsm"},
	} {
		js := mustRun(t, append([]string{"eval", "--policy", "debate", "-q", "--json"}, args...)...)
		var rs []env.Result
		if err := json.Unmarshal([]byte(js), &rs); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, js)
		}
		// As TestEvalReplay: after the debate every question is right.
		if len(rs) != 1 || rs[0].Scored != 3 || rs[0].Correct != 3 {
			t.Errorf("%v: results %+v, want debate 3/3", args, rs)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		// The layout is forced: the LLM-Debate object is refused as
		// LLM-Agora's list, which auto-detection would not have read it as.
		{[]string{"--env", spec + ",kind=gsm,layout=agora"}, "log.json"},
		{[]string{"--env", spec + ",kind=gsm,layout=threads"}, `unknown layout "threads" (want auto, debate or agora)`},
		{[]string{"--env", spec + ",kind=gsm", "--kind", "mmlu"}, "two tasks"},
		{[]string{"--env", spec + ",kind=chess"}, `unknown kind "chess" (want gsm8k, mmlu, arithmetic or math`},
		{[]string{"--env", spec, "--kind", "chess"}, `invalid argument "chess" for "--kind" flag: answer: unknown kind "chess" (want gsm8k, mmlu, arithmetic or math`},
	} {
		if _, err := runCmd(t, append([]string{"eval", "-q"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eval %v: error %v, want %q", c.args, err, c.want)
		}
	}

	out := filepath.Join(dir, "run")
	full := spec + ",kind=gsm,layout=debate"
	train(t, out, "--env", full, "--iterations", "1", "--held-out", "0.4", "--eval-tasks", "0")
	got, err := resume(t, out, "--iterations", "2")
	if err != nil || !strings.Contains(got, "resuming from") {
		t.Fatalf("resume of a run on %s: %v\n%s", full, err, got)
	}
	if _, _, err := trainErr(t, filepath.Join(dir, "run2"), "--env", spec+",kind=gsm,layout=agora", "--iterations", "1"); err == nil || !strings.Contains(err.Error(), "log.json") {
		t.Errorf("train on a forced wrong layout: error %v, want one naming the file", err)
	}
}
