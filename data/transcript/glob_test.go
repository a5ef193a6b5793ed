package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Glob keeps named files, expands patterns in lexical order, drops
// repeats and refuses directories and patterns matching nothing.
func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.json", "a.json", "c.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "d.json"), 0o755)
	b := filepath.Join(dir, "b.json")
	got, err := Glob([]string{b, filepath.Join(dir, "*.json")})
	if want := []string{b, filepath.Join(dir, "a.json")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Glob = %v, %v; want %v", got, err, want)
	}
	for arg, msg := range map[string]string{filepath.Join(dir, "d.json"): "is a directory", filepath.Join(dir, "*.md"): "no such file"} {
		if _, err := Glob([]string{arg}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Glob(%s): %v, want %q", arg, err, msg)
		}
	}
}

func TestModelOf(t *testing.T) {
	for file, want := range map[string]string{"gsm_Qwen3-14B_agents3_rounds3.json": "Qwen3-14B", "gsm_3_2.json": "gsm_3_2.json"} {
		if got := ModelOf(file); got != want {
			t.Errorf("ModelOf(%s) = %q, want %q", file, got, want)
		}
	}
}
