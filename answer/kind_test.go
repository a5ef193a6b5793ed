package answer

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestParseKind(t *testing.T) {
	for in, want := range map[string]Kind{
		"gsm": GSM8K, "GSM8K": GSM8K, " mmlu ": MMLU, "Arithmetic": Arithmetic, "math": Math,
	} {
		if k, err := ParseKind(in); err != nil || k != want {
			t.Errorf("ParseKind(%q) = %q, %v; want %q", in, k, err, want)
		}
	}
	for _, in := range []string{"", "gsm8", "mmlu-pro", "maths"} {
		_, err := ParseKind(in)
		if err == nil || !strings.Contains(err.Error(), "want gsm8k, mmlu, arithmetic or math") {
			t.Errorf("ParseKind(%q): error %v, want one naming every kind", in, err)
		}
	}
	// Every listed kind reads back as itself: the list and the parser
	// cannot drift apart.
	for _, k := range Kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
}

func TestKindFlag(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var k Kind
	fs.Var(&k, "kind", "task")
	if err := fs.Parse([]string{"--kind", "GSM"}); err != nil || k != GSM8K || k.String() != "gsm8k" {
		t.Fatalf("--kind GSM: %q, %v", k, err)
	}
	err := fs.Parse([]string{"--kind", "physics"})
	if err == nil || !strings.Contains(err.Error(), `-kind`) || !strings.Contains(err.Error(), "want gsm8k, mmlu, arithmetic or math") {
		t.Errorf("--kind physics: %v", err)
	}
	if k != GSM8K {
		t.Errorf("a refused value changed the kind to %q", k)
	}
	if typ := k.Type(); typ != "gsm8k|mmlu|arithmetic|math" {
		t.Errorf("Type %q", typ)
	}
}
