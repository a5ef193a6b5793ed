package main

import (
	"strings"
	"testing"
)

// Every --kind is the one kind flag: parsed when the flags are, by
// answer.ParseKind, refused with one message naming the flag and the
// kinds, whatever the command.
func TestKindFlagIsOne(t *testing.T) {
	n := 0
	for _, c := range allCommands(newRoot()) {
		f := c.Flags().Lookup("kind")
		if f == nil {
			continue
		}
		n++
		if f.Value.Type() != "gsm8k|mmlu|arithmetic|math" {
			t.Errorf("%s --kind: type %q, not the kind flag", c.CommandPath(), f.Value.Type())
		}
		if err := c.Flags().Set("kind", "GSM"); err != nil || f.Value.String() != "gsm8k" {
			t.Errorf("%s --kind GSM: %q, %v", c.CommandPath(), f.Value.String(), err)
		}
		args := strings.Fields(strings.TrimPrefix(c.CommandPath(), "mpdf "))
		_, err := runCmd(t, append(args, "--kind", "chess")...)
		want := `invalid argument "chess" for "--kind" flag: answer: unknown kind "chess" (want gsm8k, mmlu, arithmetic or math; gsm is gsm8k)`
		if err == nil || err.Error() != want {
			t.Errorf("%s --kind chess: error %v, want %q", c.CommandPath(), err, want)
		}
	}
	// train, eval, study, simulate, import, data corpus, data signal, data hindsight
	if n != 8 {
		t.Errorf("%d commands have --kind, want 8", n)
	}
}
