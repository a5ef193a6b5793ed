package cliflag

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/errmark"
)

// A Word is a library error that a flag answers: the library says what is
// wrong in its own words, the command line adds what to give.
type Word struct {
	Cmd    string // the command whose errors it words ("mpdf train"), or "" for all
	Err    error  // the library's sentinel (errors.Is)
	Format string // the message, from the library's (%s)
}

// InWords words err, an error of the command path, as each Word it is
// says, in the order of words: a hint after the message is the library's
// innermost error's, which ends the message. The result is still the error
// it was (errors.Is, errors.As).
func InWords(words []Word, path string, err error) error {
	for _, w := range words {
		if (w.Cmd == "" || w.Cmd == path) && errors.Is(err, w.Err) {
			err = &worded{err, w.Format}
		}
	}
	return err
}

// worded is an error in flag words; it is still the error it was.
type worded struct {
	error
	format string
}

func (w *worded) Error() string { return fmt.Sprintf(w.format, w.error.Error()) }
func (w *worded) Unwrap() error { return w.error }

// Rewrite is err with the message of its part, a library's setting
// error, written as words, the flag's; it is still the error it was.
func Rewrite(err, part error, words string) error {
	return &rewritten{err, strings.Replace(err.Error(), part.Error(), words, 1)}
}

type rewritten struct {
	error
	msg string
}

func (r *rewritten) Error() string { return r.msg }
func (r *rewritten) Unwrap() error { return r.error }

// SettingInFlags words a library's setting out of range
// (*errmark.Setting) as the flag of cmd named by its key ("eval_tasks":
// --eval-tasks 3: want ≥ 0), and an error marked as about a setting
// (errmark.Of) with that flag before it (--held-out: ...); a setting no
// flag of cmd sets keeps the library's words.
func SettingInFlags(cmd *cobra.Command, err error) error {
	if key, ok := errmark.KeyOf(err); ok {
		if name, ok := flagOf(cmd, key); ok {
			err = &worded{err, "--" + name + ": %s"}
		}
	}
	var s *errmark.Setting
	if !errors.As(err, &s) {
		return err
	}
	name, ok := flagOf(cmd, s.Key)
	if !ok {
		return err
	}
	return Rewrite(err, s, fmt.Sprintf("--%s %s: %s", name, s.Value, s.Want))
}

// settingKey is the annotation of a flag that sets a library setting of
// another name (Sets).
const settingKey = "mpdf-setting"

// Sets records that cmd's flag name sets the library's setting key
// (--retries: "max_retries"), for a flag whose name is not its key's.
func Sets(cmd *cobra.Command, name, key string) {
	if err := cmd.Flags().SetAnnotation(name, settingKey, []string{key}); err != nil {
		panic(err) // a flag the command does not define: a programming error
	}
}

// flagOf is the flag of cmd that sets the library's setting key
// ("eval_tasks": eval-tasks), if cmd has it under that name now, or a flag
// that says it sets it (Sets).
func flagOf(cmd *cobra.Command, key string) (string, bool) {
	name := strings.ReplaceAll(key, "_", "-")
	if cmd.Flags().Lookup(name) != nil {
		return name, true
	}
	found := ""
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if k := f.Annotations[settingKey]; len(k) == 1 && k[0] == key {
			found = f.Name
		}
	})
	return found, found != ""
}

// WordErrors passes the error of every command under c, and of c, through
// word.
func WordErrors(c *cobra.Command, word func(cmd *cobra.Command, err error) error) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return word(cmd, run(cmd, args)) }
	}
	for _, s := range c.Commands() {
		WordErrors(s, word)
	}
}

// FlagWords words a library's setting, named by its key (snake_case, or a
// Go field name: "MaxBodyBytes" is max_body_bytes), and its value v as the
// flag of cmd that sets it: "--max-inflight -1", a Scaled flag's value in
// its units ("--max-body-kib 2") or in bytes when not a whole unit
// ("--max-body-kib (1000 bytes)"). A setting no flag sets keeps its key.
func FlagWords(cmd *cobra.Command, key string, v any) string {
	name, ok := flagOf(cmd, snake(key))
	if !ok {
		return fmt.Sprintf("%s %v", key, v)
	}
	sc, isScaled := cmd.Flags().Lookup(name).Value.(scaled)
	if n, ok := v.(int64); ok && isScaled {
		if n%(1<<sc.shift) != 0 {
			return fmt.Sprintf("--%s (%d bytes)", name, n)
		}
		v = n >> sc.shift
	}
	return fmt.Sprintf("--%s %v", name, v)
}

// snake is a Go field name as a setting key ("ReadTimeout": read_timeout,
// "GOGC": gogc); a key in snake_case stays as it is.
func snake(key string) string {
	var b strings.Builder
	for i, r := range key {
		if unicode.IsUpper(r) && i > 0 && unicode.IsLower(rune(key[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
