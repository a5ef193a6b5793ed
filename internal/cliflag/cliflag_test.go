package cliflag

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/errmark"
)

// A bound flag takes the table's default, or its command's exception, and
// its meaning as usage with the command's note after it.
func TestBindDefaults(t *testing.T) {
	root := &cobra.Command{Use: "mpdf"}
	var trainIters, studyIters int
	train, study := &cobra.Command{Use: "train"}, &cobra.Command{Use: "study"}
	Bind(train.Flags(), &trainIters, "iterations", "", ": here")
	Bind(study.Flags(), &studyIters, "iterations", "")
	root.AddCommand(train, study)
	SetDefaults(root)
	if trainIters != 40 || studyIters != 20 {
		t.Errorf("--iterations: train %d, study %d; want the table's 40 and study's exception 20", trainIters, studyIters)
	}
	f := train.Flags().Lookup("iterations")
	if f.DefValue != "40" || f.Usage != Usage("iterations")+": here" {
		t.Errorf("train --iterations: default %q, usage %q", f.DefValue, f.Usage)
	}
}

// The user's first --lambdas replaces the table's default; later ones
// append; a bad number is refused in words.
func TestFloats(t *testing.T) {
	root := &cobra.Command{Use: "mpdf"}
	var l []float64
	Bind(root.Flags(), NewFloats(&l), "lambdas", "")
	SetDefaults(root)
	if fmt.Sprint(l) != "[0]" {
		t.Fatalf("default %v, want [0]", l)
	}
	if err := root.ParseFlags([]string{"--lambdas", "0.5,1", "--lambdas=2"}); err != nil {
		t.Fatal(err)
	}
	if got := root.Flags().Lookup("lambdas").Value.String(); got != "0.5,1,2" {
		t.Errorf("got %q, want 0.5,1,2", got)
	}
	if err := NewFloats(&l).Set("1,NaN"); err == nil || !strings.Contains(err.Error(), `"NaN" is not a finite number`) {
		t.Errorf("NaN: %v", err)
	}
}

// A Parsed value sets what its parser reads, keeps the value on an error,
// and prints what the parser reads back.
func TestParsed(t *testing.T) {
	n := 7
	v := Parsed(&n, "count", strconv.Atoi, strconv.Itoa)
	if err := v.Set("x"); err == nil || n != 7 {
		t.Errorf("Set(x): %v, n %d", err, n)
	}
	if err := v.Set("12"); err != nil || n != 12 || v.String() != "12" || v.Type() != "count" {
		t.Errorf("Set(12): %v, n %d, String %q, Type %q", err, n, v.String(), v.Type())
	}
}

// A numeric flag's bad value is said in a user's words, naming the flag.
func TestNumberError(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Uint64("seed", 1, "")
	err := NumberError(nil, fs.Parse([]string{"--seed", "-5"}))
	if err == nil || !strings.HasPrefix(err.Error(), `--seed "-5": `) || strings.Contains(err.Error(), "strconv") {
		t.Errorf("got %v", err)
	}
	other := errors.New("other")
	if NumberError(nil, other) != other {
		t.Error("an error that is not a flag's value changed")
	}
}

// InWords words the errors its sentinels mark, for their command only,
// and the result is still the error; Rewrite swaps a part's message.
func TestInWords(t *testing.T) {
	sentinel := errors.New("sentinel")
	err := fmt.Errorf("lib: %w", sentinel)
	words := []Word{{Err: sentinel, Format: "--x: %s"}, {Cmd: "mpdf b", Err: sentinel, Format: "%s (b)"}}
	if got := InWords(words, "mpdf a", err); got.Error() != "--x: lib: sentinel" || !errors.Is(got, sentinel) {
		t.Errorf("mpdf a: %v", got)
	}
	if got := InWords(words, "mpdf b", err); got.Error() != "--x: lib: sentinel (b)" {
		t.Errorf("mpdf b: %v", got)
	}
	if InWords(words, "mpdf a", nil) != nil {
		t.Error("nil worded")
	}
	if got := Rewrite(err, sentinel, "--y 3"); got.Error() != "lib: --y 3" || !errors.Is(got, sentinel) {
		t.Errorf("Rewrite: %v", got)
	}
}

// A Count refuses a negative value when parsed, in the flag's words, and
// takes 0.
func TestCount(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var n int
	fs.Var(Count(&n, 5), "shard-rows", "")
	err := NumberError(nil, fs.Parse([]string{"--shard-rows", "-1"}))
	if err == nil || err.Error() != "--shard-rows -1: want ≥ 0" || n != 5 {
		t.Errorf("-1: %v, n %d", err, n)
	}
	if err := fs.Parse([]string{"--shard-rows", "0"}); err != nil || n != 0 {
		t.Errorf("0: %v, n %d", err, n)
	}
}

// Given lists the flags given, in the order asked; Overlay sets what was
// given onto another binding, and only that.
func TestGivenOverlay(t *testing.T) {
	type cfg struct {
		Seed  uint64
		Iters int
	}
	var c cfg
	bind := func(c *cfg) func(*pflag.FlagSet) {
		return func(fs *pflag.FlagSet) {
			fs.Uint64Var(&c.Seed, "seed", c.Seed, "")
			fs.IntVar(&c.Iters, "iterations", c.Iters, "")
		}
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	bind(&c)(fs)
	if err := fs.Parse([]string{"--iterations", "9"}); err != nil {
		t.Fatal(err)
	}
	if got := Given(fs, "seed", "iterations", "lr"); len(got) != 1 || got[0] != "iterations" {
		t.Errorf("Given: %v", got)
	}
	file := cfg{Seed: 7, Iters: 3}
	if err := Overlay(fs, bind(&file)); err != nil || file != (cfg{Seed: 7, Iters: 9}) {
		t.Errorf("Overlay: %+v, %v", file, err)
	}
}

// A library's setting is worded as the command's flag of its key, and
// only where the command has that flag (--rounds here: none).
func TestSettingInFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "eval"}
	cmd.Flags().Int("tasks", 0, "")
	cmd.Flags().Int("episodes", 0, "")
	cmd.Flags().Int("retries", 0, "")
	Sets(cmd, "retries", "max_retries") // a flag named otherwise than its key
	for key, want := range map[string]string{
		"tasks":       "play: --tasks -1: want ≥ 0",
		"rounds":      "play: env: rounds -1: want ≥ 0",
		"seed":        "play: env: seed -1: want ≥ 0",
		"max_retries": "play: --retries -1: want ≥ 0",
	} {
		err := fmt.Errorf("play: %w", errmark.Bad("env", key, -1, "want ≥ 0"))
		if got := SettingInFlags(cmd, err); got.Error() != want || !errors.Is(got, errors.Unwrap(err)) {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}

// An error marked as about a setting (errmark.Of) gets the command's flag
// of its key before it, and only where the command has that flag.
func TestKeyedInFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "train"}
	cmd.Flags().Float64("held-out", 0, "")
	for key, want := range map[string]string{
		"held_out": "--held-out: play: 2 tasks cannot split",
		"split":    "play: 2 tasks cannot split",
	} {
		mark := errmark.Of(key, "bad")
		err := fmt.Errorf("play: %w", errmark.Mark(errors.New("2 tasks cannot split"), mark))
		if got := SettingInFlags(cmd, err); got.Error() != want || !errors.Is(got, mark) {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}
