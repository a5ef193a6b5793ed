package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/mpdf/mpdf/internal/testenv"
)

// The README and the docs hold their examples to three rules, checked
// here so that a newcomer who runs them all can: the README's quickstart
// runs as written; every example writes under runs/ (git-ignored) with its
// own output and listens on its own port; every relative link resolves.

// docFiles lists README.md and docs/*.md, relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(testenv.Root(), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		files = append(files, filepath.Join("docs", filepath.Base(m)))
	}
	return files
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.Root(), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shellLine is one command of a sh code block: continuation lines joined.
type shellLine struct {
	doc  string
	line int // 1-based line of the command's first physical line
	text string
	// quickstart marks the commands of a block preceded by a
	// <!-- quickstart ... --> comment.
	quickstart bool
}

// shellLines returns the commands of the ```sh (bash, shell) blocks of
// doc, comments and blank lines dropped.
func shellLines(doc, text string) []shellLine {
	const (
		outside = iota
		inShell
		inOther
	)
	var out []shellLine
	state, quick, pendingQuick := outside, false, false
	var cur *shellLine
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch state {
		case outside:
			switch {
			case strings.HasPrefix(trimmed, "<!-- quickstart"):
				pendingQuick = true
			case trimmed == "```sh" || trimmed == "```bash" || trimmed == "```shell":
				state, quick, pendingQuick = inShell, pendingQuick, false
			case strings.HasPrefix(trimmed, "```"):
				state, pendingQuick = inOther, false
			case trimmed != "":
				pendingQuick = false
			}
			continue
		case inOther:
			if trimmed == "```" {
				state = outside
			}
			continue
		}
		if trimmed == "```" {
			state, cur = outside, nil
			continue
		}
		if cur != nil {
			cur.text += " " + strings.TrimSpace(strings.TrimSuffix(trimmed, `\`))
			if !strings.HasSuffix(trimmed, `\`) {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		l := shellLine{doc: doc, line: i + 1, text: strings.TrimSpace(strings.TrimSuffix(trimmed, `\`)), quickstart: quick}
		if strings.HasSuffix(trimmed, `\`) {
			cur = &l
			continue
		}
		out = append(out, l)
	}
	return out
}

// shellWords splits a command as sh would, quotes removed, without
// expanding anything; a trailing "# comment" is dropped.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '#' && !inWord:
			i = len(s)
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// mpdfCommands returns the mpdf invocations of a shell line ("a && b"
// gives two), each as its words from "mpdf" on; "go run ./cmd/mpdf" counts
// as mpdf.
func mpdfCommands(line string) [][]string {
	var out [][]string
	for _, part := range regexp.MustCompile(`&&|;|\|`).Split(line, -1) {
		words := shellWords(part)
		for i, w := range words {
			if w == "mpdf" {
				out = append(out, words[i:])
				break
			}
			if w == "go" && i+2 < len(words) && words[i+1] == "run" && words[i+2] == "./cmd/mpdf" {
				out = append(out, append([]string{"mpdf"}, words[i+3:]...))
				break
			}
		}
	}
	return out
}

// flagValue returns the value of --name (or -short) in words: "--out X"
// or "--out=X".
func flagValue(words []string, names ...string) (string, bool) {
	for i, w := range words {
		for _, n := range names {
			if w == n && i+1 < len(words) {
				return words[i+1], true
			}
			if v, ok := strings.CutPrefix(w, n+"="); ok {
				return v, true
			}
		}
	}
	return "", false
}

func hasWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// outputsOf lists what an mpdf command writes, defaults included: the
// run directory of train and study, the files of import, simulate,
// collect and export.
func outputsOf(words []string) []string {
	if len(words) < 2 {
		return nil
	}
	var outs []string
	if v, ok := flagValue(words, "--out", "-o"); ok {
		outs = append(outs, v)
	} else {
		switch words[1] {
		case "train":
			outs = append(outs, "runs/mpdf")
		case "study":
			if len(words) < 3 || words[2] != "compare" {
				outs = append(outs, "runs/study")
			}
		}
	}
	for _, f := range []string{"--safetensors", "--params-out"} {
		if v, ok := flagValue(words, f); ok {
			outs = append(outs, v)
		}
	}
	return outs
}

var redirectRe = regexp.MustCompile(`(?:^|\s)>>?\s*(\S+)`)

// Every example of the README and the docs writes under runs/ (ignored by
// git, so .ci/run's clean-tree check holds after a user ran them all), each
// with its own output, and every listener has its own port: examples can
// be run one after another, in any order, without one refusing or
// overwriting another's files, and none touches a tracked file.
func TestDocsExamplesStayInRuns(t *testing.T) {
	outputs := map[string]string{} // output → where it was first named
	ports := map[string]string{}
	for _, doc := range docFiles(t) {
		for _, l := range shellLines(doc, readDoc(t, doc)) {
			where := fmt.Sprintf("%s:%d", l.doc, l.line)
			for _, m := range redirectRe.FindAllStringSubmatch(l.text, -1) {
				if target := m[1]; target != "/dev/null" && !strings.HasPrefix(target, "runs/") && !strings.HasPrefix(target, "&") {
					t.Errorf("%s: %q redirects into %s, outside runs/", where, l.text, target)
				}
			}
			words := shellWords(l.text)
			for _, f := range []string{"-cpuprofile", "-memprofile", "-o"} {
				if len(words) > 1 && words[0] == "go" && words[1] == "test" {
					if v, ok := flagValue(words, f); ok && !strings.HasPrefix(v, "runs/") {
						t.Errorf("%s: go test %s %s writes outside runs/", where, f, v)
					}
				}
			}
			if v, ok := flagValue(words, "--port"); ok {
				if prev, dup := ports[v]; dup {
					t.Errorf("%s: port %s is already used by %s", where, v, prev)
				}
				ports[v] = where
			}
			for _, cmd := range mpdfCommands(l.text) {
				if len(cmd) > 1 && cmd[1] == "serve" {
					addr, ok := flagValue(cmd, "--addr")
					if !ok {
						t.Errorf("%s: mpdf serve without --addr listens on the default port; give each example its own", where)
						continue
					}
					port := addr[strings.LastIndexByte(addr, ':')+1:]
					if prev, dup := ports[port]; dup {
						t.Errorf("%s: port %s is already used by %s", where, port, prev)
					}
					ports[port] = where
				}
				again := hasWord(cmd, "--resume") || hasWord(cmd, "--overwrite")
				for _, out := range outputsOf(cmd) {
					out = filepath.Clean(out)
					if !strings.HasPrefix(out, "runs/") && out != "runs" {
						t.Errorf("%s: %q writes %s, outside runs/", where, strings.Join(cmd, " "), out)
					}
					if again {
						continue
					}
					if prev, dup := outputs[out]; dup {
						t.Errorf("%s: %s is already written by %s: the second run would be refused or overwrite it", where, out, prev)
					}
					outputs[out] = where
				}
			}
		}
	}
	if len(outputs) < 10 {
		t.Fatalf("found only %d example outputs: is the sh-block parser broken?", len(outputs))
	}
}

// slug is GitHub's anchor of a heading: lower case, spaces to hyphens,
// punctuation dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the heading anchors of a markdown text (code blocks
// skipped).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if in || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		out[slug(h)] = true
	}
	return out
}

var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README and the docs names a file of the
// repository, and every #anchor a heading of its target.
func TestDocsLinks(t *testing.T) {
	root := testenv.Root()
	for _, doc := range docFiles(t) {
		text := readDoc(t, doc)
		// Links inside code blocks are code, not links.
		var prose strings.Builder
		in := false
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				in = !in
				continue
			}
			if !in {
				prose.WriteString(line + "\n")
			}
		}
		for _, m := range linkRe.FindAllStringSubmatch(prose.String(), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, doc)
			if file != "" {
				path = filepath.Join(filepath.Dir(path), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", doc, target, err)
				continue
			}
			if anchor == "" || info.IsDir() {
				continue
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(b))[anchor] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", doc, target, anchor, file)
			}
		}
	}
}

// The README's quickstart blocks (a ```sh block after a <!-- quickstart
// --> comment) run as written: each mpdf command ("go run ./cmd/mpdf" is
// the built binary) in a fresh directory beside ../shared, so that the
// README's paths to the shared transcripts resolve, through sh, with its
// quoting and globs. Each must succeed and leave the outputs it names;
// together they must write nothing outside runs/.
func TestReadmeQuickstart(t *testing.T) {
	var quick []shellLine
	for _, l := range shellLines("README.md", readDoc(t, "README.md")) {
		if l.quickstart {
			quick = append(quick, l)
		}
	}
	if len(quick) == 0 {
		t.Fatal("README.md has no quickstart block (a ```sh block after <!-- quickstart ... -->)")
	}
	shared := testenv.Shared(t)
	bin := mpdfBinary(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(base, "shared")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "mpdf")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	ran := 0
	var printed []byte
	for _, l := range quick {
		where := fmt.Sprintf("README.md:%d", l.line)
		words := shellWords(l.text)
		if len(words) >= 2 && words[0] == "go" && words[1] == "test" {
			continue // the tests: this test is one of them
		}
		cmds := mpdfCommands(l.text)
		if len(cmds) != 1 || strings.HasSuffix(l.text, "&") {
			t.Fatalf("%s: %q: a quickstart line must be one mpdf command (or go test) that ends", where, l.text)
		}
		text := strings.Replace(l.text, "go run ./cmd/mpdf", "mpdf", 1)
		cmd := exec.CommandContext(t.Context(), sh, "-c", text)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %s: %v\n%s", where, text, err, tail(out, 40))
		}
		printed = append(printed, out...)
		t.Logf("%s: %s: ok", where, text)
		for _, o := range outputsOf(cmds[0]) {
			if _, err := os.Stat(filepath.Join(work, o)); err != nil {
				t.Errorf("%s: %s did not write %s: %v", where, text, o, err)
			}
		}
		if cmds[0][1] == "train" {
			dir, _ := flagValue(cmds[0], "--out", "-o")
			if dir == "" {
				dir = "runs/mpdf"
			}
			// The files the README says a run writes.
			for _, f := range []string{"best.mpdf", "metrics.jsonl", "curve.png", "policy.safetensors", "eval.json"} {
				if _, err := os.Stat(filepath.Join(work, dir, f)); err != nil {
					t.Errorf("%s: %s: no %s in %s", where, text, f, dir)
				}
			}
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("the quickstart ran %d mpdf commands; the README promises train, eval, study and export", ran)
	}
	// Every verdict line the README shows is one these commands printed,
	// word for word (design §9.1's rule, as a user sees it).
	for i, l := range strings.Split(readDoc(t, "README.md"), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "verdict (") || strings.Contains(l, " — verdict (") {
			if !strings.Contains(string(printed), l+"\n") {
				t.Errorf("README.md:%d shows a verdict no quickstart command printed: %s", i+1, l)
			}
		}
	}
	if outside := outsideRuns(t, work); len(outside) > 0 {
		t.Errorf("the quickstart wrote outside runs/: %v", outside)
	}
}

// outsideRuns lists, sorted, what work holds outside its runs/ directory.
func outsideRuns(t *testing.T, work string) []string {
	t.Helper()
	var outside []string
	err := filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(work, p)
		if rel == "." {
			return nil
		}
		if rel == "runs" && d.IsDir() {
			return filepath.SkipDir
		}
		outside = append(outside, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(outside)
	return outside
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
