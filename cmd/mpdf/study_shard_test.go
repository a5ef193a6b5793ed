package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/shards"
)

// studyFiles are the files a merged study must share byte for byte with
// the unsharded one.
var studyFiles = []string{study.ResultsName, study.ReportName, study.ParetoName, study.HTMLName}

// sameStudy fails unless dirs a and b hold the same study files.
func sameStudy(t *testing.T, a, b string) {
	t.Helper()
	for _, f := range studyFiles {
		x, errX := os.ReadFile(filepath.Join(a, f))
		y, errY := os.ReadFile(filepath.Join(b, f))
		if errX != nil || errY != nil {
			t.Fatalf("%s: %v, %v", f, errX, errY)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s: %s's %d bytes differ from %s's %d", f, b, len(y), a, len(x))
		}
	}
}

// runShards runs shards 0..n-1 of a study at once, each a process, into
// dir/shard-K, and returns their directories.
func runShards(t *testing.T, bin, dir string, n int, args []string) []string {
	t.Helper()
	dirs := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	for k := range n {
		dirs[k] = filepath.Join(dir, fmt.Sprint("shard-", k))
		cmds[k] = exec.Command(bin, append(append([]string{"study"}, args...), "--shard", fmt.Sprintf("%d/%d", k, n), "--out", dirs[k])...)
		cmds[k].Stdout, cmds[k].Stderr = &outs[k], &outs[k]
		if err := cmds[k].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for k, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", k, err, outs[k].String())
		}
	}
	return dirs
}

// simStudy is a small simulator study: 3 folds × 2 seeds × (baselines + 2
// λ) = 18 cells.
var simStudy = []string{"--env", "sim", "--sim-tasks", "60", "--folds", "3", "--seeds", "2", "--lambdas", "0,0.5",
	"--iterations", "4", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--resamples", "200", "-q"}

// N shard processes, merged in any order, give the unsharded study's
// results.json, report.md, pareto.png and report.html byte for byte, on the simulator
// and on a replay of transcripts; a missing, repeated, foreign or
// unfinished shard is refused, naming it.
func TestShardedStudyMergesToTheUnshardedBytes(t *testing.T) {
	bin := mpdfBinary(t)
	files := testenv.Debates(t, "slm-debate/gsm/gsm_*agents3*.json")[:2]
	replayStudy := []string{"--env", "replay:" + strings.Join(files, ","), "--folds", "3", "--seeds", "1", "--lambdas", "0,0.5",
		"--iterations", "3", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--sft-epochs", "1", "--resamples", "200", "-q"}
	for _, tc := range []struct {
		name string
		n    int
		args []string
	}{{"sim", 3, simStudy}, {"replay", 2, replayStudy}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			single := filepath.Join(dir, "single")
			report := runBin(t, bin, append(append([]string{"study"}, tc.args...), "--out", single)...)
			dirs := runShards(t, bin, dir, tc.n, tc.args)
			merged := filepath.Join(dir, "merged")
			rev := append([]string{"study", "merge"}, dirs...)
			for i, j := 2, len(rev)-1; i < j; i, j = i+1, j-1 { // given in any order
				rev[i], rev[j] = rev[j], rev[i]
			}
			say := runBin(t, bin, append(rev, "--out", merged)...)
			sameStudy(t, single, merged)
			if say != report {
				t.Errorf("merge printed\n%s\nthe study printed\n%s", say, report)
			}
		})
	}

	// The refusals, on the simulator's shards.
	dir := t.TempDir()
	dirs := runShards(t, bin, dir, 3, simStudy)
	refused := func(why, want string, args ...string) {
		t.Helper()
		out := filepath.Join(dir, "refused")
		b, err := exec.Command(bin, append(append([]string{"study", "merge"}, args...), "--out", out)...).CombinedOutput()
		if err == nil || !strings.Contains(string(b), want) {
			t.Errorf("merge of %s: %v\n%s\nwant an error saying %q", why, err, b, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("merge of %s wrote its output", why)
		}
	}
	refused("a missing shard", "shard 1/3 is missing", dirs[0], dirs[2])
	refused("a repeated shard", dirs[0]+" and "+dirs[0]+" are both shard 0/3", dirs[0], dirs[1], dirs[0])
	foreign := filepath.Join(dir, "foreign")
	runBin(t, bin, append(append([]string{"study"}, simStudy...), "--shard", "1/3", "--resamples", "300", "--out", foreign)...)
	refused("a shard of other flags", foreign+" is not a shard of the study of "+dirs[0]+": other config (other study flags)", dirs[0], foreign, dirs[2])
	otherSim := filepath.Join(dir, "other-sim")
	runBin(t, bin, append(append([]string{"study"}, simStudy...), "--shard", "1/3", "--sim-seed", "7", "--out", otherSim)...)
	refused("a shard of other data", otherSim+" is not a shard of the study of "+dirs[0]+": other play (the environment plays otherwise)", dirs[0], otherSim, dirs[2])
	otherN := filepath.Join(dir, "other-n")
	runBin(t, bin, append(append([]string{"study"}, simStudy...), "--shard", "1/4", "--out", otherN)...)
	refused("a shard of another N", otherN+" is not a shard of the study of "+dirs[0]+": 4 shards, not 3", dirs[0], otherN, dirs[2])
	unsharded := filepath.Join(dir, "unsharded")
	runBin(t, bin, append(append([]string{"study"}, simStudy...), "--out", unsharded)...)
	refused("an unsharded study", unsharded+": no study-shard.json", dirs[0], unsharded, dirs[2])
	if b, err := exec.Command(bin, "study", "merge", dirs[0], dirs[1], dirs[2], "--out", dirs[1], "--overwrite").CombinedOutput(); err == nil ||
		!strings.Contains(string(b), "the output is one of the shards") {
		t.Errorf("merge into a shard: %v\n%s", err, b)
	}

	// A shard whose last cell is lost is refused until resumed; a resume
	// as another shard or with other flags is refused.
	rec := shards.RecordPath(dirs[1])
	full, _ := os.ReadFile(rec)
	var r map[string]json.RawMessage
	json.Unmarshal(full, &r)
	var done []json.RawMessage
	json.Unmarshal(r["done"], &done)
	r["done"], _ = json.Marshal(done[:len(done)-1])
	cut, _ := json.Marshal(r)
	os.WriteFile(rec, cut, 0o644)
	refused("an unfinished shard", dirs[1]+": shard 1/3 has 1 of its cells not done", dirs[0], dirs[1], dirs[2])
	resume := func(args ...string) ([]byte, error) {
		return exec.Command(bin, append(append(append([]string{"study"}, simStudy...), "--out", dirs[1], "--resume"), args...)...).CombinedOutput()
	}
	if b, err := resume("--shard", "2/3"); err == nil || !strings.Contains(string(b), "is shard 1/3, this run 2/3") {
		t.Errorf("resume as another shard: %v\n%s", err, b)
	}
	if b, err := resume("--shard", "1/3", "--resamples", "300"); err == nil || !strings.Contains(string(b), "is a shard of another study: other config") {
		t.Errorf("resume with other flags: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, append(append([]string{"study"}, simStudy...), "--out", dirs[1], "--shard", "1/3")...).CombinedOutput(); err == nil ||
		!strings.Contains(string(b), "--resume to continue this shard") {
		t.Errorf("a shard rerun into its directory without --resume: %v\n%s", err, b)
	}
	if b, err := resume(); err == nil || !strings.Contains(string(b), "--resume continues a --shard run") {
		t.Errorf("--resume without --shard: %v\n%s", err, b)
	}
	say, err := resume("--shard", "1/3")
	if err != nil || !strings.Contains(string(say), "(kept 5, ran 1)") {
		t.Errorf("resume: %v\n%s", err, say)
	}
	if again, _ := os.ReadFile(rec); !bytes.Equal(again, full) {
		t.Error("the resumed shard's record differs from the uninterrupted one's")
	}
	merged := filepath.Join(dir, "merged")
	runBin(t, bin, "study", "merge", dirs[0], dirs[1], dirs[2], "--out", merged)
	sameStudy(t, unsharded, merged)
}

// A shard killed (kill -9) after some cells keeps them: the merge refuses
// it, naming it, until --resume runs the rest; the merge then equals the
// one-process study.
func TestStudyShardKilledResumes(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	args := []string{"--env", "sim", "--sim-tasks", "60", "--folds", "3", "--seeds", "2", "--lambdas", "0,0.5",
		"--iterations", "60", "--tasks-per-iter", "16", "--episodes-per-task", "4", "--resamples", "200", "--workers", "1", "-q"}
	single := filepath.Join(dir, "single")
	runBin(t, bin, append(append([]string{"study"}, args...), "--out", single)...)
	dirs := []string{filepath.Join(dir, "shard-0"), filepath.Join(dir, "shard-1")}
	runBin(t, bin, append(append([]string{"study"}, args...), "--shard", "0/2", "--out", dirs[0])...)
	cmd := exec.Command(bin, append(append([]string{"study"}, args...), "--shard", "1/2", "--out", dirs[1])...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Kill it once its record holds a finished cell.
	for kept := 0; kept == 0; {
		select {
		case err := <-exited:
			t.Fatalf("the shard ended (%v) before it was killed: give it more work", err)
		case <-time.After(5 * time.Millisecond):
		}
		if r, err := shards.ReadRecord(dirs[1]); err == nil {
			kept = len(r.Done)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	r, err := shards.ReadRecord(dirs[1])
	if err != nil {
		t.Fatalf("the killed shard's record: %v", err)
	}
	kept := len(r.Done)
	if kept == 9 {
		t.Fatal("the shard finished before the kill")
	}
	merged := filepath.Join(dir, "merged")
	b, err := exec.Command(bin, "study", "merge", dirs[0], dirs[1], "--out", merged).CombinedOutput()
	if err == nil || !strings.Contains(string(b), dirs[1]+": shard 1/2 has") || !strings.Contains(string(b), "resume it first (mpdf study with its --shard, --resume and the same flags)") {
		t.Errorf("merge with a killed shard: %v\n%s", err, b)
	}
	say := runBin(t, bin, append(append([]string{"study"}, args...), "--shard", "1/2", "--resume", "--out", dirs[1])...)
	if want := fmt.Sprintf("(kept %d, ran %d)", kept, 9-kept); !strings.Contains(say, want) {
		t.Errorf("the resumed shard said %q, want %q", say, want)
	}
	runBin(t, bin, "study", "merge", dirs[0], dirs[1], "--out", merged)
	sameStudy(t, single, merged)
}
