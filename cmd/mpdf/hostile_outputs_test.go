package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsInputRefused runs, as real processes, every command with an
// input file and an output file with the output naming the input: by its
// name, and by a hard link (the same file by identity, another name). Each
// must refuse, saying the output is one of the inputs, and leave the input's
// bytes as they were (issue 34, cause 7: import X --out X overwrote its
// input; export best.mpdf --safetensors best.mpdf destroyed the checkpoint).
func TestOutputIsInputRefused(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tr := writeTranscript(t, dir)
	ckpt, _ := writeCheckpoint(t, dir, true)
	eps := filepath.Join(dir, "episodes.jsonl")
	if out, err := exec.Command(bin, "import", tr, "--out", eps).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	cases := []struct {
		name  string
		input string
		args  func(out string) []string
	}{
		{"import", tr, func(out string) []string { return []string{"import", tr, "--out", out} }},
		{"export", ckpt, func(out string) []string { return []string{"export", ckpt, "--safetensors", out} }},
		{"simulate", ckpt, func(out string) []string {
			return []string{"simulate", "--policy", ckpt, "--tasks", "2", "--out", out, "-q"}
		}},
		{"view", eps, func(out string) []string { return []string{"view", eps, "--out", out} }},
	}
	for _, c := range cases {
		before, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link-"+c.name+filepath.Ext(c.input))
		if err := os.Link(c.input, link); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{c.input, link} {
			b, err := exec.Command(bin, c.args(out)...).CombinedOutput()
			t.Logf("%s --out %s: %s", c.name, filepath.Base(out), strings.TrimSpace(string(b)))
			if err == nil {
				t.Errorf("%s: wrote its output over its input %s", c.name, out)
			}
			if !strings.Contains(string(b), "the output is one of the inputs") {
				t.Errorf("%s: %q, want it to say the output is one of the inputs", c.name, b)
			}
			if after, _ := os.ReadFile(c.input); !bytes.Equal(after, before) {
				t.Fatalf("%s: the input %s changed (%d bytes, was %d)", c.name, c.input, len(after), len(before))
			}
		}
	}
}
