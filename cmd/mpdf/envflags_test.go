package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/trainer/run"
)

// mpdf train's --kind and --critic are the replay spec's kind= and
// critic=on parts: the run records them in its spec, so that a resume
// and an evaluation reopen the transcripts read the same way.
func TestTrainKindAndCriticFlags(t *testing.T) {
	dir := testenv.Shared(t, "data", "debates", "slm-debate", "gsm")
	spec := "replay:" + filepath.Join(dir, "*Qwen3-0.6B*agents3*.json")
	out := filepath.Join(t.TempDir(), "run")
	train(t, out, "--env", spec, "--kind", "gsm8k", "--critic", "--iterations", "1", "--sft-epochs", "0", "--eval-tasks", "0", "-q")
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := spec + ",kind=gsm8k,critic=on"; r.Position.Env != want {
		t.Errorf("recorded env %q, want %q", r.Position.Env, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "math", "--env", spec + ",kind=gsm8k"}, "says kind=gsm8k, not math"},
		{[]string{"--kind", "math"}, `--kind math and --env: "sim" is not a replay`},
		{[]string{"--critic", "--env", spec + ",critic=off"}, "says critic=off"},
		{[]string{"--critic"}, `--critic and --env: "sim" is not a replay`},
	} {
		if _, _, err := trainErr(t, filepath.Join(t.TempDir(), "x"), c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("train %v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}

// mpdf eval --critic plays what critic=on in --env plays, and not what the
// replay plays without it.
func TestEvalCriticFlag(t *testing.T) {
	spec := "replay:" + testenv.Debates(t, "slm-debate/gsm/gsm_*agents3*.json")[0]
	eval := func(args ...string) string {
		return mustRun(t, append([]string{"eval", "-q", "--json", "--no-baselines", "--policy", "threshold"}, args...)...)
	}
	flag, part, off := eval("--env", spec, "--critic"), eval("--env", spec+",critic=on"), eval("--env", spec)
	if flag != part {
		t.Errorf("--critic:\n%s\ncritic=on:\n%s", flag, part)
	}
	if flag == off {
		t.Errorf("--critic plays as the replay without the critic:\n%s", flag)
	}
	if _, err := runCmd(t, "eval", "-q", "--critic", "--env", spec+",critic=off"); err == nil || !strings.Contains(err.Error(), "says critic=off") {
		t.Errorf("--critic with critic=off: error %v", err)
	}
}
