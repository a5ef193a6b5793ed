package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// runCmd runs the mpdf command line in-process and returns its standard
// output and error.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.Execute()
	return out.String(), err
}

// mustRun is runCmd that fails the test on an error.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("mpdf %s: %v\noutput:\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// readAll reads every record of files and fails on any rejection.
func readAll(t *testing.T, files ...string) ([]data.Record, data.Counts) {
	t.Helper()
	r, err := data.Open(files, data.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []data.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading back %v: %v", files, err)
		}
		recs = append(recs, rec)
	}
	return recs, r.Counts()
}

// testNet is a small random policy network over this build's features.
func testNet(t *testing.T, seed uint64) *nn.MLP[float32] {
	t.Helper()
	m, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 8, metapolicy.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	return m
}

// writeCheckpoint saves a checkpoint with a policy, a reference, Adam state,
// metrics and a training config, and returns its path.
func writeCheckpoint(t *testing.T, dir string, withReference bool) (string, *checkpoints.Checkpoint) {
	t.Helper()
	pol := testNet(t, 1)
	adam := nn.NewAdam[float32](nn.DefaultAdam(), len(pol.Params))
	adam.Step = 42
	ck := &checkpoints.Checkpoint{
		Header: checkpoints.Header{
			FeatureVersion: metapolicy.FeatureVersion, Step: 42, Seed: 7,
			Metrics: map[string]float64{"reward": 0.25, "kl": 0.0125},
			Train:   json.RawMessage(`{"lr":0.0003,"hidden":[8],"tau":0.8}`),
			DataPos: json.RawMessage(`{"epoch":2,"shard":1}`),
		},
		Policy: pol,
		Adam:   adam,
		RNG:    []byte{1, 2, 3, 4},
	}
	if withReference {
		ck.Reference = testNet(t, 2)
	}
	path := filepath.Join(dir, "pol.mpdf")
	if err := checkpoints.Save(path, ck); err != nil {
		t.Fatal(err)
	}
	return path, ck
}

func TestSimulateWritesReadableEpisodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sim.jsonl.zst")
	stdout := mustRun(t, "simulate", "--tasks", "6", "--episodes", "2", "--rounds", "2", "--seed", "3", "-q", "--out", out)
	if !strings.Contains(stdout, "wrote 12 episodes") || !strings.Contains(stdout, "random") {
		t.Errorf("summary does not say what was written:\n%s", stdout)
	}
	recs, c := readAll(t, out)
	if c.Read != 12 || c.Accepted != 12 || c.Rejected != 0 || c.Episodes != 12 {
		t.Fatalf("counts %+v, want 12 episodes, 0 rejected", c)
	}
	tasks := map[string]int{}
	for _, rec := range recs {
		ep := rec.Episode
		if ep == nil || len(ep.Rounds) != 3 || ep.Policy != "random" || ep.Source != "simulator" {
			t.Fatalf("episode %+v: want 1+2 rounds of policy random from the simulator", ep)
		}
		tasks[ep.Task]++
	}
	if len(tasks) != 6 {
		t.Errorf("%d distinct tasks, want 6", len(tasks))
	}
	for task, n := range tasks {
		if n != 2 {
			t.Errorf("task %s has %d episodes, want 2", task, n)
		}
	}

	// Same flags, other worker count: the same bytes.
	again := filepath.Join(dir, "again.jsonl.zst")
	mustRun(t, "simulate", "--tasks", "6", "--episodes", "2", "--rounds", "2", "--seed", "3", "-q", "--workers", "1", "--out", again)
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("the same flags with another --workers wrote other bytes")
	}
}

func TestSimulateGreedyCheckpointTakesTheMode(t *testing.T) {
	dir := t.TempDir()
	ckpt, ck := writeCheckpoint(t, dir, false)
	out := filepath.Join(dir, "greedy.jsonl")
	mustRun(t, "simulate", "--policy", ckpt, "--greedy", "--tasks", "5", "-q", "--out", out)
	pol, err := metapolicy.NewMLPPolicy("x", ck.Policy)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := readAll(t, out)
	if len(recs) != 5 {
		t.Fatalf("%d episodes, want 5", len(recs))
	}
	for _, rec := range recs {
		ep := rec.Episode
		if ep.Policy != "pol.mpdf" {
			t.Fatalf("policy %q, want the checkpoint's base name", ep.Policy)
		}
		for r := 1; r < len(ep.Rounds); r++ {
			for i, u := range ep.Rounds[r].Turns {
				obs := ep.Observation(r, i)
				want, _, err := metapolicy.Greedy(pol, &obs)
				if err != nil {
					t.Fatal(err)
				}
				if *u.Action != want {
					t.Fatalf("%s round %d agent %d: action %v, want the mode %v", ep.ID, r, i, *u.Action, want)
				}
			}
		}
	}
}

func TestSimulateRejectsUnknownPolicy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.jsonl")
	_, err := runCmd(t, "simulate", "--policy", "consensus", "-q", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "not a heuristic") || !strings.Contains(err.Error(), "debate") {
		t.Fatalf("error %v, want one naming the known heuristics", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Error("a failed simulate left its output file")
	}
	if _, err := runCmd(t, "simulate", "-q"); err == nil || !strings.Contains(err.Error(), "out") {
		t.Errorf("error %v, want one about the required --out", err)
	}
}

func TestEvalPrintsEveryBaseline(t *testing.T) {
	stdout := mustRun(t, "eval", "--tasks", "20", "-q")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	names := metapolicy.HeuristicNames()
	if len(lines) != 2+len(names) { // env line, header, one row per policy
		t.Fatalf("table has %d lines, want %d:\n%s", len(lines), 2+len(names), stdout)
	}
	for i, name := range names {
		f := strings.Fields(lines[2+i])
		if f[0] != name || f[1] != "20" {
			t.Errorf("row %d = %q, want policy %s over 20 episodes", i, lines[2+i], name)
		}
	}

	ckpt, _ := writeCheckpoint(t, t.TempDir(), false)
	js := mustRun(t, "eval", "--tasks", "20", "-q", "--json", "--policy", ckpt)
	var rs []env.Result
	if err := json.Unmarshal([]byte(js), &rs); err != nil {
		t.Fatalf("--json output is not a JSON array of results: %v\n%s", err, js)
	}
	if len(rs) != len(names)+1 || rs[len(rs)-1].Policy != "pol.mpdf" {
		t.Fatalf("results %+v: want the baselines then the checkpoint", rs)
	}
	for _, r := range rs {
		if r.Episodes != 20 || r.Accuracy < 0 || r.Accuracy > 1 || r.CILow > r.Accuracy || r.CIHigh < r.Accuracy {
			t.Errorf("result %+v: want 20 episodes and an accuracy inside its interval", r)
		}
	}
	// The same policy, named in the table, scores the same as among the
	// baselines: common random numbers.
	js = mustRun(t, "eval", "--tasks", "20", "-q", "--json", "--policy", "debate")
	var one []env.Result
	if err := json.Unmarshal([]byte(js), &one); err != nil {
		t.Fatal(err)
	}
	if len(one) != 1 || !reflect.DeepEqual(one[0], rs[2]) {
		t.Errorf("--policy debate gave %+v, want only debate, equal to its row among the baselines %+v", one, rs[2])
	}
}

func TestEvalSplit(t *testing.T) {
	var sides [2][]env.Result
	for i, side := range []string{"train", "test"} {
		js := mustRun(t, "eval", "--sim-tasks", "40", "--split", side, "--held-out", "0.25", "--policy", "persist", "-q", "--json")
		if err := json.Unmarshal([]byte(js), &sides[i]); err != nil {
			t.Fatal(err)
		}
	}
	if sides[0][0].Episodes != 30 || sides[1][0].Episodes != 10 {
		t.Errorf("train/test episodes %d/%d, want 30/10", sides[0][0].Episodes, sides[1][0].Episodes)
	}
	if _, err := runCmd(t, "eval", "--split", "dev", "-q"); err == nil || !strings.Contains(err.Error(), "train or test") {
		t.Errorf("--split dev: error %v, want one naming train and test", err)
	}
	if _, err := runCmd(t, "eval", "--env", "lab", "-q"); err == nil || !strings.Contains(err.Error(), "replay:") {
		t.Errorf("--env lab: error %v, want one naming the environments", err)
	}
}

// validLines returns n episode lines as the simulator writes them.
func validLines(t *testing.T, n int) []string {
	t.Helper()
	sim, err := sim.New(sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.ParseHeuristic("random")
	eps, err := env.Collect(sim, pol, env.RunOptions{NumTasks: n, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for i := range eps {
		if err := w.WriteEpisode(&eps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(buf.String()), "\n")
}

func TestDataValidateReportsBadLine(t *testing.T) {
	lines := validLines(t, 3)
	lines[1] = strings.Replace(lines[1], `"agents":3`, `"agents":1`, 1)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, err := runCmd(t, "data", "validate", path)
	var ee *cliflag.ExitError
	if !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("error %v, want an exit status 2", err)
	}
	if !strings.Contains(stdout, path+":2: agents: 1, want at least 2\n") {
		t.Errorf("output does not report file:line: field: reason:\n%s", stdout)
	}
	if !strings.Contains(stdout, "read 3 records, accepted 2 (2 episodes, 0 decisions), rejected 1") {
		t.Errorf("output lacks the counts:\n%s", stdout)
	}

	// The list is capped, the count is not; JSON tells the same.
	for i := range lines {
		lines[i] = strings.Replace(lines[i], `"agents":3`, `"agents":1`, 1)
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	stdout, err = runCmd(t, "data", "validate", "--max-errors", "1", path)
	if !errors.As(err, &ee) || ee.Code != 2 {
		t.Fatalf("error %v, want an exit status 2", err)
	}
	if strings.Count(stdout, "agents: 1") != 1 || !strings.Contains(stdout, "and 2 more rejected") || !strings.Contains(stdout, "rejected 3") {
		t.Errorf("--max-errors 1 output:\n%s", stdout)
	}
	js, _ := runCmd(t, "data", "validate", "--json", path)
	var v struct {
		Counts   data.Counts `json:"counts"`
		Rejected []struct {
			File  string `json:"file"`
			Line  int    `json:"line"`
			Field string `json:"field"`
		} `json:"rejected"`
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if v.Counts.Rejected != 3 || len(v.Rejected) != 3 || v.Rejected[2].Line != 3 || v.Rejected[2].Field != "agents" {
		t.Errorf("--json gave %+v", v)
	}

	// A clean file: status 0 and the counts.
	good := filepath.Join(t.TempDir(), "good.jsonl")
	os.WriteFile(good, []byte(strings.Join(validLines(t, 2), "\n")+"\n"), 0o644)
	if out := mustRun(t, "data", "validate", good); !strings.Contains(out, "read 2 records, accepted 2") {
		t.Errorf("clean file output:\n%s", out)
	}
	if out, err := runCmd(t, "data", "validate", filepath.Join(t.TempDir(), "none*.jsonl")); !errors.As(err, &ee) || ee.Code != 1 ||
		!strings.Contains(out, "none*.jsonl\" matches no file") {
		t.Errorf("a pattern matching nothing: error %v, output %q; want status 1 naming it", err, out)
	}
}

func TestDataPackThenStats(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "sim.jsonl.gz")
	mustRun(t, "simulate", "--tasks", "8", "--episodes", "3", "--rounds", "2", "-q", "--out", in)
	pack := filepath.Join(dir, "pack")
	stdout := mustRun(t, "data", "pack", in, "--out", pack, "--shard-rows", "50", "--lambda", "0.1")
	const rows = 8 * 3 * 2 * 3 // tasks × episodes × rounds × agents
	if !strings.Contains(stdout, "144 rows in 3 shards") || !strings.Contains(stdout, "lambda 0.1") {
		t.Errorf("pack summary:\n%s", stdout)
	}
	p, err := data.OpenPack(pack)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows() != rows || p.Manifest().Reward.Lambda != 0.1 {
		t.Errorf("pack has %d rows, lambda %g; want %d, 0.1", p.Rows(), p.Manifest().Reward.Lambda, rows)
	}
	p.Close()

	var fromPack, fromFile data.Stats
	if err := json.Unmarshal([]byte(mustRun(t, "data", "stats", pack, "--json")), &fromPack); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "data", "stats", in, "--json", "--lambda", "0.1")), &fromFile); err != nil {
		t.Fatal(err)
	}
	if fromPack.Decisions != rows || fromFile.Decisions != rows || fromPack.Groups != 8 {
		t.Errorf("decisions %d (pack) and %d (file), groups %d; want %d and 8 groups", fromPack.Decisions, fromFile.Decisions, fromPack.Groups, rows)
	}
	for _, a := range []string{"persist", "refine", "concede"} {
		if fromPack.Actions[a] != fromFile.Actions[a] {
			t.Errorf("%s: %d in the pack, %d in the file", a, fromPack.Actions[a], fromFile.Actions[a])
		}
	}
	if math.Abs(fromPack.Reward.Mean-fromFile.Reward.Mean) > 1e-12 || fromPack.Reward.Min != fromFile.Reward.Min {
		t.Errorf("reward %+v in the pack, %+v in the file", fromPack.Reward, fromFile.Reward)
	}
	if fromPack.Counts.Episodes != 24 {
		t.Errorf("pack counts %+v, want the 24 episodes packed", fromPack.Counts)
	}
	if text := mustRun(t, "data", "stats", in); !strings.Contains(text, "training decisions") {
		t.Errorf("stats table:\n%s", text)
	}

	if _, err := runCmd(t, "data", "stats", pack, "--lambda", "1"); err == nil {
		t.Error("reward flags on a pack: no error")
	}
	if _, err := runCmd(t, "data", "pack", in, "--out", pack); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("packing into a full directory: error %v", err)
	}
	_, err = runCmd(t, "data", "pack", in, "--out", filepath.Join(dir, "p2"), "--w-local", "0", "--w-global", "0")
	if err == nil || !strings.Contains(err.Error(), "constant") {
		t.Errorf("an all-zero reward: error %v, want one saying it is constant", err)
	}
}

func TestInspectAndExport(t *testing.T) {
	dir := t.TempDir()
	ckpt, ck := writeCheckpoint(t, dir, true)
	text := mustRun(t, "inspect", ckpt)
	for _, want := range []string{
		metapolicy.FeatureVersion + " (matches this build)", "step", "42", "26 → 8 → 3, tanh",
		"reference", "yes: MLP", "adam state", "rng state", "4 bytes", `"epoch":2`,
		"kl", "0.0125", "training config:\n{\n  \"lr\": 0.0003,",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, text)
		}
	}
	var info checkpoints.Info
	if err := json.Unmarshal([]byte(mustRun(t, "inspect", ckpt, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Step != 42 || info.Seed != 7 || info.Reference == nil || info.Adam == nil || info.Adam.Step != 42 ||
		!info.Usable || info.Metrics["reward"] != 0.25 || info.Policy.Params != len(ck.Policy.Params) {
		t.Errorf("inspect --json gave %+v", info)
	}

	for _, ref := range []bool{false, true} {
		out := filepath.Join(dir, "w.safetensors")
		args := []string{"export", ckpt, "--safetensors", out}
		want := ck.Policy
		if ref {
			args, want = append(args, "--reference"), ck.Reference
		}
		mustRun(t, args...)
		m, meta, err := checkpoints.LoadSafetensors(out)
		if err != nil {
			t.Fatal(err)
		}
		if !slicesEqual(m.Params, want.Params) || m.Act != want.Act {
			t.Errorf("reference %v: the exported weights differ from the checkpoint's", ref)
		}
		if meta[checkpoints.MetaFeatureVersion] != metapolicy.FeatureVersion || meta["mpdf.step"] != "42" {
			t.Errorf("metadata %v", meta)
		}
		if s := mustRun(t, "inspect", out); !strings.Contains(s, "safetensors") || !strings.Contains(s, "26 → 8 → 3") {
			t.Errorf("inspect of the export:\n%s", s)
		}
	}
	// The export runs as a policy.
	if js := mustRun(t, "eval", "--tasks", "3", "-q", "--json", "--no-baselines", "--policy", filepath.Join(dir, "w.safetensors")); !strings.Contains(js, `"policy": "w.safetensors"`) {
		t.Errorf("eval of the export:\n%s", js)
	}

	noRef, _ := writeCheckpoint(t, t.TempDir(), false)
	if _, err := runCmd(t, "export", noRef, "--reference", "--safetensors", filepath.Join(dir, "r.safetensors")); err == nil ||
		!strings.Contains(err.Error(), "no reference") {
		t.Errorf("--reference without one: error %v", err)
	}
	junk := filepath.Join(dir, "junk.mpdf")
	os.WriteFile(junk, []byte("not a checkpoint"), 0o644)
	if _, err := runCmd(t, "inspect", junk); !errors.Is(err, checkpoints.ErrNotCheckpoint) {
		t.Errorf("inspect of junk: error %v, want ErrNotCheckpoint", err)
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
