package main

import (
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/answer"
)

// addKindFlag adds --kind: the task of transcripts whose names do not say,
// read when the flags are parsed by answer.ParseKind (answer.Kind is a
// pflag.Value). Every command thus refuses a bad kind with one message
// naming the flag and the kinds, and lists them in its help.
func addKindFlag(f *pflag.FlagSet, k *answer.Kind, what string) {
	f.Var(k, "kind", what+", when the file names do not say (gsm is gsm8k)")
}
