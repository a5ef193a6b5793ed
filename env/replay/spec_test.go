package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in     string
		globs  []string
		task   transcript.Task
		layout transcript.Layout
	}{
		{"replay:a.json", []string{"a.json"}, "", transcript.LayoutAuto},
		{"replay:d/*.json,b.json", []string{"d/*.json", "b.json"}, "", transcript.LayoutAuto},
		{"replay:x.json,layout=agora", []string{"x.json"}, "", transcript.LayoutAgora},
		{"replay:kind=GSM,x.json,layout=debate,y.json", []string{"x.json", "y.json"}, transcript.GSM8K, transcript.LayoutDebate},
		{"replay:x.json,kind=math,layout=auto", []string{"x.json"}, transcript.Math, transcript.LayoutAuto},
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
	} {
		_, err := ParseSpec(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), in) {
			t.Errorf("%s: error %v, want one quoting the spec and saying %q", in, err, want)
		}
	}
}
