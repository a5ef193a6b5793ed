package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
)

// The README, the Python client and its examples name serve's default
// port, the one mpdf serve listens on without --addr (issue 33: they said
// 8080, 8181 and 8091). An LLM server's URL (…/v1) is not serve's.
func TestOneServePort(t *testing.T) {
	cmd, _, err := newRoot().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	def := cmd.Flags().Lookup("addr").DefValue
	_, port, ok := strings.Cut(def, ":")
	if !ok {
		t.Fatalf("--addr default %q", def)
	}
	url := regexp.MustCompile(`127\.0\.0\.1:(\d+)(/v1\b)?`)
	files := []string{"README.md", "python/README.md", "python/mpdf/client.py", "python/mpdf/__init__.py"}
	ex, _ := filepath.Glob(filepath.Join(testenv.Root(), "python", "examples", "*.py"))
	n := 0
	for _, f := range files {
		ex = append(ex, filepath.Join(testenv.Root(), f))
	}
	for _, f := range ex {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range url.FindAllStringSubmatch(string(b), -1) {
			if m[2] != "" && m[1] != port { // an OpenAI-compatible LLM server
				continue
			}
			n++
			if m[1] != port {
				t.Errorf("%s names serve at %s, serve's default port is %s", f, m[0], port)
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d serve addresses: is the pattern broken?", n)
	}
}
