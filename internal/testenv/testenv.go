// Package testenv finds what some tests need outside the Go toolchain: the
// repository's PyTorch oracle with an interpreter that has torch, and the
// shared real debate transcripts beside the repository (../shared).
//
// Locally a test that lacks them skips, saying what is missing. Under CI
// (the CI environment variable set, as .ci/run's runner does) it fails
// instead: CI installs torch and lays ../shared beside the clone, so a
// missing piece there is a broken setup, not a reason to test less.
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
