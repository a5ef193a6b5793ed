package cliflag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spf13/cobra"
)

// echoFlags is a command's flag struct: Add defines --word, Run prints it.
type echoFlags struct{ word string }

func (e *echoFlags) Add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&e.word, "word", "hi", "what to say")
}
func (e *echoFlags) Run(cmd *cobra.Command, _ []string) error {
	if e.word == "fail" {
		return fmt.Errorf("echo: %w", &ExitError{Code: 2, Err: errors.New("asked to")})
	}
	_, err := fmt.Fprint(cmd.OutOrStdout(), e.word)
	return err
}

// A command of a flag struct runs with its flags parsed, each command of
// its own struct; an ExitError's code survives wrapping, and any other
// error exits 1. AddHelp fills in the help from its files. (Finish is
// mpdf's tests' to run, on the real commands.)
func TestCommandAndHelp(t *testing.T) {
	help := fstest.MapFS{"help/echo.txt": {Data: []byte("Say {what}\n---\nLong text.\n---\n  tool echo\n")}}
	newRoot := func() *cobra.Command {
		root := &cobra.Command{Use: "tool", SilenceErrors: true, SilenceUsage: true}
		root.AddCommand(Command[echoFlags]("echo", cobra.NoArgs))
		AddHelp(root, help, strings.NewReplacer("{what}", "a word"))
		WordErrors(root, func(_ *cobra.Command, err error) error {
			if err != nil {
				return fmt.Errorf("worded: %w", err)
			}
			return nil
		})
		return root
	}
	for args, want := range map[string]string{"echo": "hi", "echo --word yo": "yo"} {
		root, out := newRoot(), new(bytes.Buffer)
		root.SetOut(out)
		root.SetArgs(strings.Fields(args))
		if err := root.Execute(); err != nil || out.String() != want {
			t.Errorf("%s: %q, %v; want %q", args, out, err, want)
		}
	}
	root := newRoot()
	root.SetArgs([]string{"echo", "--word", "fail"})
	err := root.Execute()
	if ExitCode(err) != 2 || err.Error() != "worded: echo: asked to" {
		t.Errorf("failing run: %v, exit %d; want the worded error, exit 2", err, ExitCode(err))
	}
	if ExitCode(errors.New("plain")) != 1 {
		t.Error("a plain error does not exit 1")
	}
	echo, _, _ := newRoot().Find([]string{"echo"})
	if echo.Short != "Say a word" || echo.Long != "Long text." || echo.Example != "  tool echo" {
		t.Errorf("help: %q %q %q", echo.Short, echo.Long, echo.Example)
	}
}

// A Scaled flag sets bytes from units; FlagWords words a library's setting
// as the flag that sets it, in its units, or keeps the setting's name.
func TestScaledFlagWords(t *testing.T) {
	var body int64
	var read time.Duration
	cmd := &cobra.Command{Use: "serve"}
	cmd.Flags().Var(Scaled(&body, 10, 1024), "max-body-kib", "")
	cmd.Flags().DurationVar(&read, "read-timeout", 0, "")
	Sets(cmd, "max-body-kib", "max_body_bytes")
	if body != 1024<<10 || cmd.Flags().Lookup("max-body-kib").DefValue != "1024" {
		t.Errorf("default: %d bytes, shown %q", body, cmd.Flags().Lookup("max-body-kib").DefValue)
	}
	if err := cmd.ParseFlags([]string{"--max-body-kib", "2"}); err != nil || body != 2048 {
		t.Fatalf("--max-body-kib 2: %d bytes, %v", body, err)
	}
	for _, c := range []struct {
		key  string
		v    any
		want string
	}{
		{"MaxBodyBytes", int64(4096), "--max-body-kib 4"},
		{"MaxBodyBytes", int64(1000), "--max-body-kib (1000 bytes)"},
		{"ReadTimeout", 5 * time.Second, "--read-timeout 5s"},
		{"IdleTimeout", time.Second, "IdleTimeout 1s"},
	} {
		if got := FlagWords(cmd, c.key, c.v); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.key, c.v, got, c.want)
		}
	}
}

// An optional number stays nil (the library's default, which the help
// shows) unless given.
func TestOptional(t *testing.T) {
	var retries *int
	var temp *float64
	cmd := &cobra.Command{Use: "collect"}
	cmd.Flags().Var(OptionalInt(&retries, 3), "retries", "")
	cmd.Flags().Var(OptionalFloat(&temp, 0), "temperature", "")
	if retries != nil || cmd.Flags().Lookup("retries").DefValue != "3" || cmd.Flags().Lookup("temperature").DefValue != "0" {
		t.Fatalf("not given: %v, shown %q", retries, cmd.Flags().Lookup("retries").DefValue)
	}
	if err := cmd.ParseFlags([]string{"--retries", "0", "--temperature", "0.5"}); err != nil || retries == nil || *retries != 0 || temp == nil || *temp != 0.5 {
		t.Fatalf("given: %v, %v, %v", retries, temp, err)
	}
	if err := cmd.ParseFlags([]string{"--retries", "x"}); err == nil || *retries != 0 {
		t.Errorf("bad value: %v, retries %d", err, *retries)
	}
}

// Show prints a result as indented JSON or as its text.
func TestShow(t *testing.T) {
	cmd, out := &cobra.Command{}, new(bytes.Buffer)
	cmd.SetOut(out)
	v := map[string]int{"a": 1}
	if err := Show(cmd, true, v, nil); err != nil || out.String() != "{\n  \"a\": 1\n}\n" {
		t.Errorf("JSON: %q, %v", out, err)
	}
	out.Reset()
	text := func(w io.Writer) error {
		_, err := fmt.Fprint(w, "a=1")
		return err
	}
	if err := Show(cmd, false, v, text); err != nil || out.String() != "a=1" {
		t.Errorf("text: %q, %v", out, err)
	}
	if LogUnless(true, out) != nil || LogUnless(false, out) != out {
		t.Error("LogUnless")
	}
}
