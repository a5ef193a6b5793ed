package main

import (
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	out, err := runCmd(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "mpdf ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: %q", out)
	}
}
