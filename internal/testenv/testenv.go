// Package testenv finds what some tests need outside the Go toolchain: the
// repository's PyTorch oracle with an interpreter that has torch, the
// shared real debate transcripts beside the repository (../shared), and a
// Chromium for the browser tests.
//
// Locally a test that lacks them skips, saying what is missing. Under CI
// (the CI environment variable set, as .ci/run's runner does) it fails
// instead: CI installs torch and Chromium and lays ../shared beside the
// clone, so a missing piece there is a broken setup, not a reason to test
// less.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Python is the interpreter the oracle runs under: Debian's, where
// python3-torch installs.
const Python = "/usr/bin/python3"

// Root is the repository root (the directory of go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// unavailable skips t, or fails it under CI.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("testenv: required under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}

var torchOnce = sync.OnceValue(func() error {
	return exec.Command(Python, "-c", "import torch").Run()
})

// Oracle returns the interpreter and the path of oracle/torch_reference.py,
// or skips (fails under CI) when torch cannot be imported.
func Oracle(t testing.TB) (python, script string) {
	t.Helper()
	script = filepath.Join(Root(), "oracle", "torch_reference.py")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("testenv: the oracle is part of the repository: %v", err)
	}
	if err := torchOnce(); err != nil {
		unavailable(t, "PyTorch not installed for %s (apt-get install python3-torch libopenblas0-pthread): %v", Python, err)
	}
	return Python, script
}

// Script returns the path of oracle/torch_reference.py and the interpreter,
// or skips (fails under CI) when there is no python3 at all; for tests that
// run the script's plain-Python parts without torch.
func Script(t testing.TB) (python, script string) {
	t.Helper()
	script = filepath.Join(Root(), "oracle", "torch_reference.py")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("testenv: the oracle is part of the repository: %v", err)
	}
	if _, err := os.Stat(Python); err != nil {
		unavailable(t, "no %s: %v", Python, err)
	}
	return Python, script
}

// Shared returns ../shared/<elem...> beside the repository, or skips
// (fails under CI) when it does not exist.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Root(), "..", "shared"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		unavailable(t, "shared data not beside the repository: %v", err)
	}
	return p
}

// Debates returns the files matching pattern (a filepath.Glob pattern
// relative to ../shared/data/debates), or skips (fails under CI) when the
// shared transcripts are absent or the pattern matches nothing.
func Debates(t testing.TB, pattern string) []string {
	t.Helper()
	dir := Shared(t, "data", "debates")
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatalf("testenv: %s: %v", pattern, err)
	}
	if len(paths) == 0 {
		unavailable(t, "no shared transcripts match %s", pattern)
	}
	return paths
}

// Chromium returns the path of a Chromium (or Chrome) for the browser
// tests: $MPDF_CHROMIUM, else the first of chromium, chromium-browser,
// google-chrome on the PATH; or skips (fails under CI, whose .ci/run
// installs Debian's chromium) when there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MPDF_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("testenv: MPDF_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	unavailable(t, "no Chromium on the PATH (apt-get install chromium, or set MPDF_CHROMIUM)")
	return ""
}

// Artifacts returns the directory where tests leave files for a person to
// look at (screenshots): $MPDF_ARTIFACTS, else .ci/artifacts in the
// repository (ignored by git); created if missing.
func Artifacts(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MPDF_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(Root(), ".ci", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("testenv: artifacts: %v", err)
	}
	return dir
}
