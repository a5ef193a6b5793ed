package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/study"
)

// smallStudy is a study of a few seconds at most.
var smallStudy = []string{"study", "--sim-tasks", "30", "--folds", "2", "--seeds", "1", "--lambdas", "0",
	"--iterations", "1", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--sft-epochs", "0",
	"--resamples", "50", "-q"}

// Issue 20.6: a second study into the --out of another is refused and the
// first's results stay; --overwrite replaces the study's files only.
func TestStudyRefusesNonEmptyOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "study")
	mustRun(t, append(smallStudy, "--out", out)...)
	results := readFile(t, filepath.Join(out, study.ResultsName))
	_, err := runCmd(t, append(smallStudy, "--out", out, "--seed", "7")...)
	if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("second study into the same --out: err = %v, want a refusal suggesting --overwrite", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, study.ResultsName)), results) {
		t.Fatal("a refused study changed results.json")
	}
	// A bad flag is refused before --out is looked at, even with --overwrite.
	if _, err := runCmd(t, append(smallStudy, "--out", out, "--overwrite", "--folds", "1")...); err == nil {
		t.Fatal("--folds 1 accepted")
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, study.ResultsName)), results) {
		t.Fatal("a study refused for its flags changed results.json")
	}
	notes := writeFile(t, out, "notes.txt", "mine")
	mustRun(t, append(smallStudy, "--out", out, "--seed", "7", "--overwrite")...)
	if bytes.Equal(readFile(t, filepath.Join(out, study.ResultsName)), results) {
		t.Error("--overwrite with another seed left the old results.json")
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("--overwrite removed a file no study writes: %v", err)
	}
}

// Issue 20.6, as real processes: while one study writes --out, a second
// into it fails at once naming the first's pid and writes nothing; once
// the first is killed (kill -9: its lock is stale), a study into the
// directory it left runs.
func TestStudyOneWriterPerOut(t *testing.T) {
	bin := mpdfBinary(t)
	out := filepath.Join(t.TempDir(), "study")
	// Minutes of work: it is killed once the second study has been refused.
	long := exec.Command(bin, "study", "--sim-tasks", "3000", "--folds", "5", "--seeds", "20", "--lambdas", "0,0.5,1",
		"--iterations", "200", "--workers", "1", "-q", "--out", out)
	var longErr bytes.Buffer
	long.Stderr = &longErr
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		long.Process.Signal(syscall.SIGKILL)
		long.Wait()
	}()
	holder := "pid " + strconv.Itoa(long.Process.Pid)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if b, _ := os.ReadFile(filepath.Join(out, study.LockName)); strings.Contains(string(b), holder) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first study never took the lock; stderr:\n%s", longErr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	second, err := exec.Command(bin, append(smallStudy, "--out", out)...).CombinedOutput()
	if err == nil || !strings.Contains(string(second), holder) {
		t.Fatalf("second study while the first writes --out: %v, want a refusal naming %s:\n%s", err, holder, second)
	}
	if err := long.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	long.Wait()
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || entries[0].Name() != study.LockName {
		t.Fatalf("after the refused study and the killed one, --out holds %d entries, want the lock file only", len(entries))
	}
	if b, err := exec.Command(bin, append(smallStudy, "--out", out)...).CombinedOutput(); err != nil {
		t.Fatalf("study into the directory a killed study left: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, study.ResultsName)); err != nil {
		t.Error(err)
	}
}
