package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A replay run resumes on the questions it trained on, or not at all:
// another --held-out or --split-seed, or a glob that now matches another
// file, would move questions between training and the held-out side.
func TestTrainReplayResumeKeepsItsSplit(t *testing.T) {
	dir := t.TempDir()
	path := writeTranscript(t, dir)
	out := filepath.Join(dir, "run")
	glob := "replay:" + filepath.Join(dir, "gsm_*.json")
	train(t, out, "--env", glob, "--iterations", "1", "--held-out", "0.4", "--split-seed", "3")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--held-out", "0.5"}, "held-out 0.4 and split seed 3, not 0.5 and 3"},
		{[]string{"--split-seed", "4"}, "held-out 0.4 and split seed 3, not 0.4 and 4"},
	} {
		if _, err := resume(t, out, append([]string{"--iterations", "2"}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume %v: err = %v, want a refusal naming %q", c.args, err, c.want)
		}
	}
	if got, err := resume(t, out, "--iterations", "2"); err != nil || !strings.Contains(got, "resuming from") {
		t.Fatalf("resume on the same split: %v\n%s", err, got)
	}
	// The glob now matches a second file: other tasks, same spec string.
	if err := os.WriteFile(filepath.Join(dir, "gsm_Other_agents2_rounds2.json"), readFile(t, path), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := resume(t, out, "--iterations", "3"); err == nil || !strings.Contains(err.Error(), "tasks differ") {
		t.Errorf("resume after the glob matched another file: err = %v, want a refusal", err)
	}
}
