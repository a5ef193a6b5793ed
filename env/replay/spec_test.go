package replay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data/transcript"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in     string
		globs  []string
		task   answer.Kind
		layout transcript.Layout
	}{
		{"replay:a.json", []string{"a.json"}, "", transcript.LayoutAuto},
		{"replay:d/*.json,b.json", []string{"d/*.json", "b.json"}, "", transcript.LayoutAuto},
		{"replay:x.json,layout=agora", []string{"x.json"}, "", transcript.LayoutAgora},
		{"replay:kind=GSM,x.json,layout=debate,y.json", []string{"x.json", "y.json"}, answer.GSM8K, transcript.LayoutDebate},
		{"replay:x.json,kind=math,layout=auto", []string{"x.json"}, answer.Math, transcript.LayoutAuto},
		{"replay:./kind=1.json", []string{"./kind=1.json"}, "", transcript.LayoutAuto},
	} {
		sp, err := ParseSpec(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !slices.Equal(sp.Globs, c.globs) || sp.Options.Task != c.task || sp.Options.Layout != c.layout {
			t.Errorf("%s: %+v, want globs %q task %q layout %q", c.in, sp, c.globs, c.task, c.layout)
		}
	}
	for in, want := range map[string]string{
		"sim":                                      "want replay:GLOB",
		"replay:":                                  "empty part",
		"replay:a.json,,b.json":                    "empty part",
		"replay:kind=math":                         "no file",
		"replay:a.json,layout=dylan2":              `unknown layout "dylan2" (want auto, debate or agora)`,
		"replay:a.json,kind=physics":               `unknown kind "physics" (want gsm8k, mmlu, arithmetic or math`,
		"replay:a.json,kind=gsm,kind=gsm":          "kind= given twice",
		"replay:a.json,layout=agora,layout=debate": "layout= given twice",
		"replay:a.json,critic=yes":                 "critic=yes: want on or off",
		"replay:a.json,critic=on,critic=off":       "critic= given twice",
	} {
		_, err := ParseSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), in) {
			t.Errorf("%s: error %v, want one quoting the spec and saying %q", in, err, want)
		}
	}
}

// TestParseSpecCritic: critic= is off unless the spec says on; CriticSet
// tells a spec that says off from one that says nothing; and the
// provenance checkpoints derives from a recorded spec (which cannot import
// this package) agrees with the parse.
func TestParseSpecCritic(t *testing.T) {
	for _, c := range []struct {
		in          string
		critic, set bool
	}{
		{"replay:a.json", false, false},
		{"replay:a.json,critic=off", false, true},
		{"replay:a.json,critic=on", true, true},
		{"replay:critic=on,a.json,kind=gsm", true, true},
		{"replay:./critic=on", false, false}, // a file
	} {
		sp, err := ParseSpec(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if sp.Critic != c.critic || sp.CriticSet != c.set {
			t.Errorf("%s: critic %v (set %v), want %v (set %v)", c.in, sp.Critic, sp.CriticSet, c.critic, c.set)
		}
		want := checkpoints.ConfidenceNone
		if sp.Critic {
			want = checkpoints.ConfidenceTextCritic
		}
		if got := checkpoints.ConfidenceSourceOfEnv(c.in); got != want {
			t.Errorf("%s: checkpoints.ConfidenceSourceOfEnv %q, want %q", c.in, got, want)
		}
	}
}

// TestSpecEnvOptions: the Env the spec's options build fills the
// confidence from the text exactly when the spec says critic=on.
func TestSpecEnvOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gsm_arith.json")
	if err := os.WriteFile(path, []byte(arithTiny), 0o644); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]float64{"replay:" + path: -1, "replay:" + path + ",critic=off": -1, "replay:" + path + ",critic=on": 1} {
		sp, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		e, _, err := Load(sp.Globs, sp.Options, sp.EnvOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		g, err := e.Start(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		turns, err := g.Initial()
		if err != nil {
			t.Fatal(err)
		}
		if got := confOf(&turns[0]); got != want {
			t.Errorf("%s: agent 0's confidence %v, want %v", spec, got, want)
		}
	}
}
