package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The tests that need a real process (to kill it, to limit its file size)
// share one build of the command per test binary; TestMain removes it.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(peakRSSEnv); spec != "" {
		os.Exit(runMeasured(spec))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// mpdfBinary builds the command once per test binary and returns its path;
// -short skips the tests that need it.
func mpdfBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the mpdf binary")
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "mpdf-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "mpdf")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}
