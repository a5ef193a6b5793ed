package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A numeric flag's bad value is worded for a user, without Go function
// names (issue 20, item 10: "-5" and "1e400" read as "want an integer",
// "want a number", or strconv.ParseUint's own words).
func TestNumericFlagMessages(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"train", "--out", out, "--seed", "-5"}, `--seed "-5": -5 is negative: want a non-negative integer`},
		{[]string{"train", "--out", out, "--lr", "1e400"}, `--lr "1e400": 1e400 overflows a 64-bit float`},
		{[]string{"simulate", "--tasks", "1.5"}, `--tasks "1.5": 1.5 is not an integer`},
	}
	for _, c := range cases {
		_, err := runCmd(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "strconv") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// More simulated tasks than the pool holds is refused naming the flag and
// the pool, with the flag that grows it; within a grown pool it plays.
func TestSimulateTasksBeyondThePool(t *testing.T) {
	dir := t.TempDir()
	_, err := runCmd(t, "simulate", "--tasks", "600", "--out", filepath.Join(dir, "a.jsonl"), "-q")
	if want := "--tasks 600: simulator has 500 tasks (raise --sim-tasks)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("600 tasks of 500: %v, want %q", err, want)
	}
	if _, err := runCmd(t, "simulate", "--tasks", "600", "--sim-tasks", "600", "--out", filepath.Join(dir, "b.jsonl"), "-q"); err != nil {
		t.Errorf("600 tasks of 600: %v", err)
	}
}
