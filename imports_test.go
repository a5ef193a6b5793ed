package mpdf_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mpdf/mpdf"

// layer is one package of the module: its directory, what it holds, and the
// module packages its non-test code may import.
type layer struct {
	dir, about string
	imports    []string
}

// layers is the architecture, bottom up: each package imports only packages
// listed in its row, and those rows come before it (so the graph has no
// cycles and docs/architecture.md reads from the bottom layer to the command). It is
// the single source of docs/architecture.md's layer block and of doc.go's layer
// list (go test -run TestArchitectureDocs -update rewrites both).
var layers = []layer{
	{".", "the module's doc; the architecture test and the update-step benchmarks", nil},
	{"internal/testenv", "what tests need beyond Go (PyTorch oracle, shared transcripts, Chromium): skip locally, fail under CI", nil},
	{"internal/browser", "headless Chromium for the HTML pages' tests, over the DevTools protocol's pipe", nil},
	{"internal/version", "which build of mpdf runs: its module version and VCS revision, else the hash of its embedded sources", []string{"."}},
	{"internal/errmark", "an error marked with a sentinel (one may name a setting), its message unchanged, or a setting out of range named by its key: a library's errors a caller words", nil},
	{"internal/progress", "progress of long work on stderr: a bar on a terminal, plain lines elsewhere", nil},
	{"internal/jsonscan", "the byte-level JSON scanner of the fast paths (data's decision lines, serve's requests; transcripts' numbers)", nil},
	{"internal/cliflag", "the command line's flag machinery, no domain package: commands of flag structs, help files, the shared-flag table, binding, value adapters, errors in flag words", []string{"internal/errmark", "internal/jsonscan"}},
	{"internal/peak", "the machine's measured float32 multiply-add peak, for the update step's benchmarks' share of it", nil},
	{"nn", "MLP parameters, Adam, fast batched CPU kernels of the update step", nil},
	{"stats", "cluster-bootstrap confidence intervals and the AUC, plain Go", nil},
	{"outfile", "output files replaced whole (temp file, sync, rename) and run-directory locks", nil},
	{"plots", "the figures as PNG: training curves, a study's accuracy-against-tokens plane, curves as bands over seeds", nil},
	{"autodiff", "the same model and loss as a Gorgonia graph: the reference for the kernels", []string{"nn"}},
	{"metapolicy", "actions, meta-cognitive state, consensus rules, featurizer, policies, baselines", []string{"nn"}},
	{"answer", "one reader of model text: answers (gsm8k, mmlu, arithmetic, math) and profiles", nil},
	{"data", "rollout formats (JSONL episodes/decisions), reader/writer, reward, packed shards", []string{"answer", "internal/errmark", "internal/jsonscan", "internal/version", "metapolicy", "outfile"}},
	{"stats/correctness", "how well each feature tells a right answer from a wrong one: its AUC over the decisions of episodes", []string{"data", "metapolicy", "stats"}},
	{"checkpoints", "compressed checkpoint format, retention, safetensors interop", []string{"internal/errmark", "internal/jsonscan", "metapolicy", "nn", "outfile"}},
	{"data/transcript", "reader of debate transcripts (LLM-Debate, DyLAN, LLM-Agora) into questions and episodes", []string{"answer", "data", "internal/jsonscan", "metapolicy"}},
	{"data/corpus", "what a set of transcripts holds: the corpus table, the persist and debate baselines", []string{"answer", "data/transcript", "metapolicy"}},
	{"env", "the environment interface, the episode runner, evaluation and verdict", []string{"data", "internal/errmark", "metapolicy", "stats"}},
	{"env/sim", "the calibrated simulator: the default environment, its parameters and their fit", []string{"data", "env", "metapolicy"}},
	{"env/sim/calibrate", "the simulator fitted to transcripts and checked against them, statistics and feature signals", []string{"data", "data/transcript", "env", "env/sim", "internal/errmark", "metapolicy", "stats/correctness"}},
	{"env/replay", "recorded transcripts replayed as an environment, built from questions or files; the replay spec", []string{"answer", "data", "data/transcript", "env", "metapolicy"}},
	{"env/llm", "live deliberations through an OpenAI-compatible chat-completions backend", []string{"answer", "data", "env", "internal/errmark", "internal/jsonscan", "internal/version", "metapolicy", "outfile"}},
	{"env/open", "an --env spec (sim or replay) opened, a training run's two sides split, an evaluation set up with its checkpoints' defaults", []string{"answer", "checkpoints", "data/transcript", "env", "env/replay", "env/sim", "internal/errmark", "metapolicy"}},
	{"trainer", "advantage estimators (SoftRankPO & ablations), update step, SFT and RL loops", []string{"data", "env", "metapolicy", "nn"}},
	{"trainer/run", "a training run: stages, checkpoints and resume, run directory, metrics log, curve", []string{"autodiff", "checkpoints", "data", "env", "internal/errmark", "internal/progress", "metapolicy", "nn", "outfile", "plots", "trainer"}},
	{"trainer/teacher", "hindsight search of the best joint plan per task; hindsight and pivotal labels", []string{"data", "env", "internal/errmark", "metapolicy", "trainer", "trainer/run"}},
	{"view", "deliberations and policies' decisions, a training run and a study's report, as self-contained HTML pages", []string{"answer", "checkpoints", "data", "data/transcript", "env", "env/open", "env/replay", "internal/errmark", "metapolicy", "outfile", "plots", "trainer/run"}},
	{"study/internal/parallel", "a study's independent cells or runs on a fixed number of goroutines, results by index", nil},
	{"study", "cross-validated study of learned policies against the baselines: the plan and its cells, the rows, report, verdict and directory", []string{"data", "data/transcript", "env", "env/replay", "metapolicy", "nn", "outfile", "plots", "stats", "study/internal/parallel", "trainer", "trainer/run", "view"}},
	{"study/compare", "studies' results.json compared: per kind or model, paired across studies, hindsight ceilings", []string{"internal/jsonscan", "stats", "study"}},
	{"study/shards", "a study's cells split between processes and merged back to the unsharded study's bytes", []string{"data", "env", "env/replay", "internal/errmark", "internal/jsonscan", "internal/version", "metapolicy", "outfile", "study", "study/internal/parallel"}},
	{"study/ablate", "the ablations (settings cross-validated with the study's folds) and the stability study's curves", []string{"data", "env", "env/replay", "env/sim", "metapolicy", "nn", "outfile", "plots", "stats", "study", "study/internal/parallel", "trainer", "trainer/run"}},
	{"study/internal/studytest", "what the tests of study's rooms share: a trainer that trains nothing, the shared transcripts", []string{"data/transcript", "env", "env/replay", "internal/testenv", "metapolicy", "study", "trainer"}},
	{"study/signals", "AUC of state features for correctness and for \"refining now fixes the team\"", []string{"answer", "data", "env", "metapolicy", "stats", "stats/correctness", "trainer/teacher"}},
	{"serve", "a trained policy as an HTTP/JSON service, with Prometheus metrics", []string{"answer", "checkpoints", "data", "internal/jsonscan", "metapolicy", "nn"}},
	{"cmd/mpdf", "the command line: flags, help text and wiring only", []string{"answer", "checkpoints", "data", "data/corpus", "data/transcript", "env", "env/llm", "env/open", "env/replay", "env/sim", "env/sim/calibrate", "internal/cliflag", "internal/progress", "internal/version", "metapolicy", "nn", "outfile", "serve", "study", "study/ablate", "study/compare", "study/shards", "study/signals", "trainer", "trainer/run", "trainer/teacher", "view"}},
}

// owners lists, for each third-party import prefix, the directories of
// this module allowed to import it, in tests too (a directory owns its
// subdirectories): each library lives with the package that owns its concern.
var owners = map[string][]string{
	"gorgonia.org/":                  {"autodiff"},
	"github.com/klauspost/compress":  {"data", "checkpoints"},
	"github.com/spf13/":              {"cmd", "internal/cliflag"},
	"github.com/schollz/progressbar": {"internal/progress"},
	"golang.org/x/term":              {"internal/progress"},
	"gonum.org/v1/plot":              {"plots"},
	"gonum.org/v1/gonum":             {"nn", "trainer", "env", "data"},
	"github.com/prometheus/":         {"serve"},
	"go.etcd.io/bbolt":               {"env/llm"},
	"golang.org/x/sys/cpu":           {"nn"},
	"github.com/mmcloughlin/avo":     {"nn/_generate"}, // its own module: never a dependency of nn
}

// testOnly lists third-party libraries any package's tests may import and
// no package's code: go-cmp prints a diff where a test compares structures.
var testOnly = []string{"github.com/google/go-cmp/"}

// pkg is what go list says of one package of the module.
type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// modulePackages lists the module's packages with their imports, from go
// list: the build's own view, build tags and all.
func modulePackages(t *testing.T) []pkg {
	t.Helper()
	// go test puts its own GOROOT/bin first on the test's PATH.
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// dirOf is a module import path's directory relative to the module root.
func dirOf(importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	d, ok := strings.CutPrefix(importPath, module+"/")
	return d, ok
}

// TestLayers fails when a package is missing from the layer table or its
// non-test code imports a module package its row does not list.
func TestLayers(t *testing.T) {
	rows := map[string]layer{}
	for _, l := range layers {
		rows[l.dir] = l
	}
	for _, p := range modulePackages(t) {
		dir, _ := dirOf(p.ImportPath)
		row, ok := rows[dir]
		if !ok {
			t.Errorf("package %s is not in the layer table of imports_test.go: add a row (directory, what it holds, what it may import)", dir)
			continue
		}
		for _, im := range p.Imports {
			target, ok := dirOf(im)
			if ok && !slices.Contains(row.imports, target) {
				t.Errorf("%s imports %s; its row allows only %v", dir, target, row.imports)
			}
		}
	}
}

// TestLayerTable checks the table itself: one row per directory, a
// description, and imports only of rows above (bottom up, so no cycles).
func TestLayerTable(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range layers {
		if seen[l.dir] {
			t.Errorf("layer table: %s has two rows", l.dir)
		}
		if l.about == "" {
			t.Errorf("layer table: %s has no description", l.dir)
		}
		for _, im := range l.imports {
			if !seen[im] {
				t.Errorf("layer table: %s may import %s, which is not a row above it", l.dir, im)
			}
		}
		seen[l.dir] = true
	}
}

// TestImportOwners fails when a package, tests included, imports a
// third-party library that another package owns, or one the table does not
// know, or when its code imports a test-only library.
func TestImportOwners(t *testing.T) {
	for _, p := range modulePackages(t) {
		dir, _ := dirOf(p.ImportPath)
		for i, im := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if first, _, _ := strings.Cut(im, "/"); !strings.Contains(first, ".") || strings.HasPrefix(im, module) {
				continue // the standard library or the module
			}
			if slices.ContainsFunc(testOnly, func(p string) bool { return strings.HasPrefix(im+"/", p) }) {
				if i < len(p.Imports) {
					t.Errorf("%s imports %s outside its tests; it is a test-only library", dir, im)
				}
				continue
			}
			prefix, dirs := owner(im)
			switch {
			case prefix == "":
				t.Errorf("%s imports %s, which has no owner in imports_test.go", dir, im)
			case !within(dir, dirs):
				t.Errorf("%s imports %s, which only %v may import", dir, im, dirs)
			}
		}
	}
}

// owner returns the longest owners prefix of the import path im.
func owner(im string) (prefix string, dirs []string) {
	for p, d := range owners {
		if strings.HasPrefix(im, p) && len(p) > len(prefix) {
			prefix, dirs = p, d
		}
	}
	return prefix, dirs
}

func within(dir string, roots []string) bool {
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+"/") {
			return true
		}
	}
	return false
}

var update = flag.Bool("update", false, "rewrite docs/architecture.md's layer block and doc.go's layer list from the layer table")

const (
	readmeBegin = "<!-- layers: generated from the table in imports_test.go (go test -run TestArchitectureDocs -update) -->"
	readmeEnd   = "<!-- end layers -->"
	docBegin    = "// The layers, bottom up (generated from the table in imports_test.go):\n//\n"
	docEnd      = "package mpdf\n"
)

// readmeBlock renders the table for docs/architecture.md: a directory and what it
// holds, then what it may import.
func readmeBlock() string {
	var b strings.Builder
	b.WriteString(readmeBegin + "\n```\n")
	w := dirWidth()
	for _, l := range layers {
		fmt.Fprintf(&b, "%-*s%s\n", w, l.dir, l.about)
		if len(l.imports) > 0 {
			fmt.Fprintf(&b, "%-*s  imports %s\n", w, "", strings.Join(l.imports, ", "))
		}
	}
	b.WriteString("```\n" + readmeEnd)
	return b.String()
}

// dirWidth is the directory column's width: the longest directory and two
// spaces, so a long name never runs into its description.
func dirWidth() int {
	w := 0
	for _, l := range layers {
		w = max(w, len(l.dir))
	}
	return w + 2
}

// docBlock renders the table for doc.go's package comment.
func docBlock() string {
	var b strings.Builder
	b.WriteString(docBegin)
	w := dirWidth()
	for _, l := range layers {
		if l.dir == "." {
			continue
		}
		fmt.Fprintf(&b, "//\t%-*s%s\n", w, l.dir, l.about)
	}
	b.WriteString(docEnd)
	return b.String()
}

// TestArchitectureDocs fails when docs/architecture.md's layer block or
// doc.go's layer list differs from the table; -update rewrites them.
func TestArchitectureDocs(t *testing.T) {
	for _, f := range []struct{ name, begin, end, want string }{
		{"docs/architecture.md", readmeBegin, readmeEnd, readmeBlock()},
		{"doc.go", docBegin, docEnd, docBlock()},
	} {
		src, err := os.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(src)
		i := strings.Index(s, f.begin)
		j := strings.Index(s, f.end)
		if i < 0 || j < i {
			t.Errorf("%s: no generated block between %q and %q", f.name, f.begin, f.end)
			continue
		}
		j += len(f.end)
		if s[i:j] == f.want {
			continue
		}
		if !*update {
			t.Errorf("%s differs from the layer table of imports_test.go; run go test -run TestArchitectureDocs -update\nwant:\n%s", f.name, f.want)
			continue
		}
		if err := os.WriteFile(f.name, []byte(s[:i]+f.want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
