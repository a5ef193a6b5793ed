package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigStrictAndShortErrors runs train --config as a real process on
// configs encoding/json reads silently: a key twice, a key in another case,
// a lone surrogate; each must be refused naming the file, line and field.
// A million-digit seed must be refused with an error that quotes at most
// about 100 bytes of it (issue 34, causes 5 and 12: {"seed":1,"Seed":2}
// ran with seed 2; the seed came back whole, 1 MB on stderr).
func TestConfigStrictAndShortErrors(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name, config string
		want         []string
	}{
		{"seed twice", `{"seed":1,` + "\n" + `"Seed":2}`, []string{"twice.json:2: Seed: given twice", `"seed" and "Seed"`}},
		{"same key twice", `{"seed":1, "seed":2}`, []string{"twice.json:1: seed: given twice"}},
		{"Seed", "{\n\n" + `"Seed":2}`, []string{"Seed.json:3: Seed: unknown field", `want "seed"`}},
		{"lone surrogate", `{"env":"replay:\udfff"}`, []string{"surrogate.json:1: env: a lone UTF-16 surrogate \\udfff"}},
		{"long seed", `{"seed":` + strings.Repeat("9", 1_000_000) + `}`, []string{"long.json:1: seed: 999", "(1000000 bytes) is too large"}},
		{"long key", `{"` + strings.Repeat("k", 1_000_000) + `":1}`, []string{"long.json:1: kkk", "(1000000 bytes): unknown field"}},
	} {
		file := map[string]string{"seed twice": "twice.json", "same key twice": "twice.json", "Seed": "Seed.json",
			"lone surrogate": "surrogate.json", "long seed": "long.json", "long key": "long.json"}[c.name]
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "run")
		b, err := exec.Command(bin, "train", "--config", path, "--out", out, "-q").CombinedOutput()
		msg := string(b)
		t.Logf("%s: %d bytes: %.300s", c.name, len(msg), msg)
		if err == nil {
			t.Errorf("%s: trained with a config it should refuse", c.name)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q, want it to say %q", c.name, msg, w)
			}
		}
		if len(msg) > 600 {
			t.Errorf("%s: %d bytes of error output, want a short message quoting at most ~100 bytes of a value", c.name, len(msg))
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s created for a refused config", c.name, out)
		}
	}
	// A flag's value too (the kernel caps one argument at 128 KiB).
	b, err := exec.Command(bin, "train", "--seed", strings.Repeat("9", 100_000), "--out", filepath.Join(dir, "run"), "-q").CombinedOutput()
	if err == nil || len(b) > 600 || !strings.Contains(string(b), "(100000 bytes)") {
		t.Errorf("--seed of 100,000 digits: %v, %d bytes: %.300s", err, len(b), b)
	}
}
