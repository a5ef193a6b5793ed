package replay

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
)

func TestSpecWithKind(t *testing.T) {
	for _, c := range []struct{ spec, kind, want, err string }{
		{"replay:a/*.json", "", "replay:a/*.json", ""},
		{"sim", "", "sim", ""},
		{"replay:a/*.json", "math", "replay:a/*.json,kind=math", ""},
		{"replay:a/*.json,critic=on", "gsm8k", "replay:a/*.json,critic=on,kind=gsm8k", ""},
		{"replay:a/*.json,kind=mmlu", "mmlu", "replay:a/*.json,kind=mmlu", ""},
		{"replay:a/*.json,kind=mmlu", "math", "", "kind=mmlu, not math"},
		{"sim", "math", "", "not a replay"},
	} {
		got, err := SpecWithKind(c.spec, answer.Kind(c.kind))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SpecWithKind(%q, %q): error %v, want one containing %q", c.spec, c.kind, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("SpecWithKind(%q, %q) = %q, %v; want %q", c.spec, c.kind, got, err, c.want)
		}
		if sp, err := ParseSpec(got); c.kind != "" && (err != nil || string(sp.Options.Task) != c.kind) {
			t.Errorf("ParseSpec(%q): task %q, %v; want %q", got, sp.Options.Task, err, c.kind)
		}
	}
}

func TestSpecWithCritic(t *testing.T) {
	for _, c := range []struct {
		spec string
		on   bool
		want string
		err  string
	}{
		{"sim", false, "sim", ""},
		{"replay:a/*.json", true, "replay:a/*.json,critic=on", ""},
		{"replay:a/*.json,kind=math", true, "replay:a/*.json,kind=math,critic=on", ""},
		{"replay:a/*.json,critic=on", true, "replay:a/*.json,critic=on", ""},
		{"replay:a/*.json,critic=off", false, "replay:a/*.json,critic=off", ""},
		{"replay:a/*.json,critic=off", true, "", "says critic=off"},
		{"sim", true, "", "not a replay"},
		{"replay:", true, "", "empty part"},
	} {
		got, err := SpecWithCritic(c.spec, c.on)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SpecWithCritic(%q, %v): error %v, want one containing %q", c.spec, c.on, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("SpecWithCritic(%q, %v) = %q, %v; want %q", c.spec, c.on, got, err, c.want)
		}
		if sp, err := ParseSpec(got); c.on && (err != nil || !sp.Critic) {
			t.Errorf("ParseSpec(%q): critic %v, %v; want on", got, sp.Critic, err)
		}
	}
}
