package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
)

// The recipes of docs/recipes run here as the schedulers would run them,
// without Slurm or Kubernetes: each array task or Job index is the
// recipe's own script run with the variable the scheduler sets
// (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX), then the merge step; the
// merge must equal the unsharded run of the very command the recipe ran.

const recipeDir = "../../docs/recipes"

// recipeRunner runs recipe scripts with mpdf on the PATH through a wrapper
// that logs every invocation's arguments (to rebuild the unsharded run).
type recipeRunner struct {
	t        *testing.T
	bin, log string
	env      []string
}

func newRecipeRunner(t *testing.T, data string, env ...string) *recipeRunner {
	bin := mpdfBinary(t)
	wrap := t.TempDir()
	log := filepath.Join(wrap, "args.log")
	script := fmt.Sprintf("#!/bin/sh\n{ printf '%%s\\n' \"$#\"; printf '%%s\\n' \"$@\"; } >> %q\nexec %q \"$@\"\n", log, bin)
	if err := os.WriteFile(filepath.Join(wrap, "mpdf"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	base := []string{"PATH=" + wrap + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DATA=" + data}
	return &recipeRunner{t: t, bin: bin, log: log, env: append(base, env...)}
}

// run runs a script (bash FILE, or sh -c TEXT) with the runner's
// environment and extra, which win over it.
func (r *recipeRunner) run(extra []string, name string, args ...string) {
	r.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(slices.Clone(r.env), extra...)
	if b, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
}

// calls returns the logged invocations of mpdf whose first argument is
// sub.
func (r *recipeRunner) calls(sub string) [][]string {
	r.t.Helper()
	f, err := os.Open(r.log)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			r.t.Fatalf("args log: %q", sc.Text())
		}
		var args []string
		for range n {
			sc.Scan()
			args = append(args, sc.Text())
		}
		if len(args) > 0 && args[0] == sub {
			out = append(out, args)
		}
	}
	return out
}

// unsharded runs the logged call without --shard and --resume, into out.
func (r *recipeRunner) unsharded(call []string, out string) {
	r.t.Helper()
	var args []string
	for i := 0; i < len(call); i++ {
		switch call[i] {
		case "--shard", "--out":
			i++
		case "--resume":
		default:
			args = append(args, call[i])
		}
	}
	runBin(r.t, r.bin, append(args, "--out", out)...)
}

// checkShards fails unless calls are shards 0/n … n-1/n, in that order.
func checkShards(t *testing.T, calls [][]string, n int) {
	t.Helper()
	if len(calls) != n {
		t.Fatalf("%d shard runs, want %d", len(calls), n)
	}
	for k, c := range calls {
		i := slices.Index(c, "--shard")
		if i < 0 || i+1 >= len(c) || c[i+1] != fmt.Sprintf("%d/%d", k, n) {
			t.Fatalf("run %d: %q: want --shard %d/%d", k, c, k, n)
		}
	}
}

// slurmArray reads the last index M of a script's "#SBATCH --array=0-M".
func slurmArray(t *testing.T, script string) int {
	t.Helper()
	b, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no #SBATCH --array=0-M line", script)
	}
	last, _ := strconv.Atoi(string(m[1]))
	return last
}

// k8sJob is what a recipe's Job runs: its completions (0 when not an
// Indexed Job), its container's environment and its sh -c script.
type k8sJob struct {
	completions int
	env         []string
	script      string
}

// readJob extracts a Job's completions, env and script from a recipe:
// the subset of YAML the recipes use (block scalars, name/value pairs).
func readJob(t *testing.T, path string) k8sJob {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var j k8sJob
	indexed := false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "completionMode: Indexed":
			indexed = true
		case strings.HasPrefix(l, "completions:"):
			j.completions, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(l, "completions:")))
		case strings.HasPrefix(l, "- name: ") && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "value: "):
			v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i+1]), "value: "))
			if k := strings.Index(v, " #"); k >= 0 {
				v = strings.TrimSpace(v[:k])
			}
			j.env = append(j.env, strings.TrimPrefix(l, "- name: ")+"="+strings.Trim(v, `"`))
			i++
		case l == `command: ["sh", "-c"]`:
			if i+2 >= len(lines) || strings.TrimSpace(lines[i+1]) != "args:" || strings.TrimSpace(lines[i+2]) != "- |" {
				t.Fatalf("%s:%d: want args: - | after the sh -c command", path, i+1)
			}
			indent := strings.Index(lines[i+2], "-") + 2
			var sb strings.Builder
			for i += 3; i < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], strings.Repeat(" ", indent))); i++ {
				sb.WriteString(strings.TrimPrefix(lines[i], strings.Repeat(" ", indent)) + "\n")
			}
			j.script = sb.String()
			i--
		}
	}
	if j.script == "" {
		t.Fatalf("%s: no sh -c script", path)
	}
	if !indexed {
		j.completions = 0
	}
	return j
}

// runJob runs a Job's script as each of its pods would, the recipe's env
// first, then over (the test's DATA, server...) winning.
func (r *recipeRunner) runJob(j k8sJob, over ...string) {
	r.t.Helper()
	if j.completions == 0 {
		r.run(append(slices.Clone(j.env), over...), "sh", "-c", j.script)
		return
	}
	shards := ""
	for _, e := range j.env {
		if v, ok := strings.CutPrefix(e, "SHARDS="); ok {
			shards = v
		}
	}
	if shards != strconv.Itoa(j.completions) {
		r.t.Fatalf("the Job's SHARDS is %q, its completions %d: they must agree", shards, j.completions)
	}
	for k := range j.completions {
		r.run(append(append(slices.Clone(j.env), over...), fmt.Sprint("JOB_COMPLETION_INDEX=", k)), "sh", "-c", j.script)
	}
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	x, errX := os.ReadFile(a)
	y, errY := os.ReadFile(b)
	if errX != nil || errY != nil {
		t.Fatalf("%v, %v", errX, errY)
	}
	if !bytes.Equal(x, y) {
		t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", b, len(y), a, len(x))
	}
}

// The collection recipes: every array task / Job index against a loopback
// LLM server, then the merge, equal the unsharded collection's bytes.
func TestRecipesShardedCollect(t *testing.T) {
	srv := newSeededServer(t)
	t.Run("slurm", func(t *testing.T) {
		data := t.TempDir()
		crashTasks(t, data, 10) // $DATA/tasks.jsonl
		r := newRecipeRunner(t, data, "MPDF_BASE_URL="+srv.URL+"/v1")
		script := filepath.Join(recipeDir, "slurm-collect.sbatch")
		last := slurmArray(t, script)
		for k := range last + 1 {
			r.run([]string{fmt.Sprint("SLURM_ARRAY_TASK_ID=", k), fmt.Sprint("SLURM_ARRAY_TASK_MAX=", last)}, "bash", script)
		}
		r.run(nil, "bash", filepath.Join(recipeDir, "slurm-collect-merge.sbatch"))
		calls := r.calls("collect")
		checkShards(t, calls, last+1)
		// A 1-based array (--array=1-4) is refused before any call.
		for _, sbatch := range []string{"slurm-collect.sbatch", "slurm-study.sbatch"} {
			cmd := exec.Command("bash", filepath.Join(recipeDir, sbatch))
			cmd.Env = append(slices.Clone(r.env), "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=4", "SLURM_ARRAY_TASK_COUNT=4")
			b, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(b), "want --array=0-3") || len(r.calls("collect")) != len(calls) || len(r.calls("study")) != 0 {
				t.Errorf("%s with --array=1-4: %v\n%s\nwant refused before any mpdf call", sbatch, err, b)
			}
		}
		single := filepath.Join(t.TempDir(), "single.jsonl.zst")
		r.unsharded(calls[0], single)
		sameFile(t, single, filepath.Join(data, "runs", "collect.jsonl.zst"))
	})
	t.Run("kubernetes", func(t *testing.T) {
		data := t.TempDir()
		crashTasks(t, data, 10)
		r := newRecipeRunner(t, data)
		job := readJob(t, filepath.Join(recipeDir, "k8s-collect-job.yaml"))
		r.runJob(job, "DATA="+data, "MPDF_BASE_URLS_FILE=", "MPDF_BASE_URL="+srv.URL+"/v1")
		r.runJob(readJob(t, filepath.Join(recipeDir, "k8s-collect-merge-job.yaml")), "DATA="+data)
		calls := r.calls("collect")
		checkShards(t, calls, job.completions)
		single := filepath.Join(t.TempDir(), "single.jsonl.zst")
		r.unsharded(calls[0], single)
		sameFile(t, single, filepath.Join(data, "runs", "collect.jsonl.zst"))
	})
}

// The study recipes, on a replay of two transcripts linked into
// $DATA/debates (the recipes' default --env), with small study flags: the
// merge equals the one-process study.
func TestRecipesShardedStudy(t *testing.T) {
	files := testenv.Debates(t, "slm-debate/gsm/gsm_*agents3*.json")[:2]
	flags := "STUDY_FLAGS=--folds 3 --seeds 1 --lambdas 0,0.5 --iterations 3 --tasks-per-iter 8 --episodes-per-task 2 --sft-epochs 1 --resamples 200"
	newData := func(t *testing.T) string {
		data := t.TempDir()
		os.MkdirAll(filepath.Join(data, "debates", "gsm"), 0o755)
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			if err := os.Symlink(abs, filepath.Join(data, "debates", "gsm", filepath.Base(f))); err != nil {
				t.Fatal(err)
			}
		}
		return data
	}
	check := func(t *testing.T, r *recipeRunner, data string, n int) {
		calls := r.calls("study")
		var shards [][]string
		for _, c := range calls {
			if len(c) < 2 || c[1] != "merge" {
				shards = append(shards, c)
			}
		}
		checkShards(t, shards, n)
		single := filepath.Join(t.TempDir(), "single")
		r.unsharded(shards[0], single)
		sameStudy(t, single, filepath.Join(data, "runs", "study", "merged"))
	}
	t.Run("slurm", func(t *testing.T) {
		data := newData(t)
		r := newRecipeRunner(t, data, flags)
		script := filepath.Join(recipeDir, "slurm-study.sbatch")
		last := slurmArray(t, script)
		for k := range last + 1 {
			r.run([]string{fmt.Sprint("SLURM_ARRAY_TASK_ID=", k), fmt.Sprint("SLURM_ARRAY_TASK_MAX=", last), "SLURM_CPUS_PER_TASK=1"}, "bash", script)
		}
		r.run(nil, "bash", filepath.Join(recipeDir, "slurm-study-merge.sbatch"))
		check(t, r, data, last+1)
	})
	t.Run("kubernetes", func(t *testing.T) {
		data := newData(t)
		r := newRecipeRunner(t, data)
		job := readJob(t, filepath.Join(recipeDir, "k8s-study-job.yaml"))
		r.runJob(job, "DATA="+data, "STUDY_ENV=replay:"+data+"/debates/*/*.json", flags)
		r.runJob(readJob(t, filepath.Join(recipeDir, "k8s-study-merge-job.yaml")), "DATA="+data)
		check(t, r, data, job.completions)
	})
}

// The serve recipe's probes are answered 200 by a real mpdf serve run with
// the recipe's arguments (its policy file and address swapped for the
// test's), on the port the probes name.
func TestRecipeServeProbes(t *testing.T) {
	bin := mpdfBinary(t)
	b, err := os.ReadFile(filepath.Join(recipeDir, "k8s-serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(b)
	var args []string
	m := regexp.MustCompile(`(?m)^\s*args: (\[.*\])\s*$`).FindStringSubmatch(yaml)
	if m == nil || json.Unmarshal([]byte(m[1]), &args) != nil || len(args) == 0 || args[0] != "serve" {
		t.Fatalf("k8s-serve.yaml: want args: [\"serve\", ...] as a flow sequence of quoted strings, got %q", m)
	}
	if !strings.Contains(yaml, `command: ["mpdf"]`) {
		t.Fatal(`k8s-serve.yaml: want command: ["mpdf"]`)
	}
	// The probes' port is the container port named http, the one --addr
	// listens on; the Service sends its traffic there too.
	port := regexp.MustCompile(`(?m)- name: http\n\s+containerPort: (\d+)`).FindStringSubmatch(yaml)
	addr := slices.Index(args, "--addr")
	if port == nil || addr < 0 || args[addr+1] != ":"+port[1] {
		t.Fatalf("k8s-serve.yaml: --addr %v and containerPort %v must agree", args, port)
	}
	if !strings.Contains(yaml, "targetPort: http") {
		t.Error("k8s-serve.yaml: the Service's targetPort is not the http port")
	}
	probes := map[string]string{}
	for _, kind := range []string{"readinessProbe", "livenessProbe"} {
		m := regexp.MustCompile(kind + `:\n\s+httpGet:\n\s+path: (\S+)\n\s+port: (\S+)`).FindStringSubmatch(yaml)
		if m == nil || m[2] != "http" {
			t.Fatalf("k8s-serve.yaml: %s: want httpGet path and port http, got %q", kind, m)
		}
		probes[kind] = m[1]
	}

	ckpt, _ := writeCheckpoint(t, t.TempDir(), false)
	pol := slices.Index(args, "--policy")
	if pol < 0 {
		t.Fatal("k8s-serve.yaml: no --policy")
	}
	args[pol+1], args[addr+1] = ckpt, "127.0.0.1:0"
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve after SIGTERM: %v\n%s", err, stderr.String())
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("serve's first line %q (%v)\n%s", line, err, stderr.String())
	}
	for kind, path := range probes {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatalf("%s %s: %v", kind, path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s GET %s: %d, want 200", kind, path, resp.StatusCode)
		}
	}
}
