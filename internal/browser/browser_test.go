package browser_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/browser"
	"github.com/mpdf/mpdf/internal/testenv"
)

// TestProblemsAreReported: what the pages' tests count on — a console
// error, an uncaught exception and a load the page's CSP refuses are each
// reported; a clean page reports nothing; Eval returns values.
func TestProblemsAreReported(t *testing.T) {
	chromium := testenv.Chromium(t)
	dir := t.TempDir()
	b, err := browser.Start(chromium, filepath.Join(dir, "profile"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(800, 600)
	if err != nil {
		t.Fatal(err)
	}
	const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'">`
	clean := filepath.Join(dir, "clean.html")
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(clean, []byte(`<!DOCTYPE html><html><head>`+csp+`</head><body><p id="x">7</p><script>document.getElementById("x").textContent = 6 * 7;</script></body></html>`), 0o644)
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head>`+csp+`</head><body><img src="http://192.0.2.1/x.png">
<script>console.error("logged error");</script><script>undefinedFunction();</script></body></html>`), 0o644)

	if err := p.Open("file://" + clean); err != nil {
		t.Fatal(err)
	}
	var x string
	if err := p.Eval(`document.getElementById("x").textContent`, &x); err != nil || x != "42" {
		t.Errorf("Eval: %q, %v; want 42", x, err)
	}
	if probs := p.Problems(); len(probs) != 0 {
		t.Errorf("a clean page reported %q", probs)
	}
	if err := p.Open("file://" + bad); err != nil {
		t.Fatal(err)
	}
	p.Eval("1", nil) // a round trip, for late reports
	all := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"logged error", "undefinedFunction", "192.0.2.1"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	png, err := p.Screenshot(false)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("Screenshot: %d bytes, %v", len(png), err)
	}
}

// TestClosePage: a page opened beside another and closed leaves the first
// one whole (a whole-page screenshot answers: a tab behind a newer one
// draws no frame).
func TestClosePage(t *testing.T) {
	chromium := testenv.Chromium(t)
	dir := t.TempDir()
	b, err := browser.Start(chromium, filepath.Join(dir, "profile"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	first, err := b.NewPage(800, 600)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "p.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p>7</p></body></html>`), 0o644)
	second, err := b.NewPage(1400, 900)
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Open("file://" + page); err != nil {
		t.Fatal(err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Open("file://" + page); err != nil {
		t.Fatal(err)
	}
	if png, err := first.Screenshot(true); err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("Screenshot of the first page: %d bytes, %v", len(png), err)
	}
}
