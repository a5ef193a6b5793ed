package transcript

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// bombLimitMiB bounds the peak RSS of a process reading a gzip bomb.
const bombLimitMiB = 200

// TestBombsBoundedMemory reads, each in its own process, small gzip files
// that decompress to one enormous string: a 1 GiB assistant message and a
// 256 MiB question in transcripts (and 256 MiB of short strings in one
// question), a 1 GiB text in a rollout line; and a
// rollout line of 1 GiB of numbers. Each
// read must fail, naming the file and the limit, with a peak RSS (VmHWM)
// under bombLimitMiB (issue 20, item 4: 3 GB and 1.3 GB before).
func TestBombsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2.3 GiB through gzip")
	}
	if raceEnabled {
		t.Skip("peak RSS under the race detector's shadow memory is not the reader's")
	}
	dir := t.TempDir()
	const (
		message = `{"What is 1?": [[[{"role":"user","content":"q"},{"role":"assistant","content":"`
		key     = `{"`
		text    = `{"kind":"episode","id":"e","task":"t","agents":2,"rounds":[{"turns":[{"answer":"1","profile":{},"tokens":1,"text":"`
		numbers = `{"kind":"decision","group":"g","action":"refine","reward":1,"features":[`
	)
	cases := []struct {
		kind, name       string
		head, unit, tail string
		size             int64
		wantInError      []string
	}{
		{"transcript", "gsm_bomb_agents2_rounds1.json.gz", message, "a", `"}]], "1"]}`, 1 << 30,
			[]string{fmt.Sprintf("offset %d:", len(message)-1), "question 0", "4194304 bytes, the limit per text"}},
		{"transcript", "gsm_bombkey.json.gz", key, "a", `": [[], "1"]}`, 256 << 20,
			[]string{"offset 1:", "question 0", "4194304 bytes, the limit per text"}},
		// Many short strings in one question: the question limit holds,
		// on the fast path (which gives up) as on encoding/json's.
		{"transcript", "gsm_bombmany.json.gz", `{"What is 1?": [[[`, `"a",`, `"a"]], "1"]}`, 256 << 20,
			[]string{"offset 1:", "question 0 is longer than 33554432 bytes"}},
		{"transcript", "agora_gsm_bombmany.json.gz", `[{"question": "q", "agent_response": {"m": [`, `"a",`, `"a"]}}]`, 256 << 20,
			[]string{"offset 1:", "question 0 is longer than 33554432 bytes"}},
		{"rollout", "bomb.jsonl.gz", text, "a", `"},{"answer":"1","profile":{},"tokens":1}]}]}` + "\n", 1 << 30,
			[]string{"bomb.jsonl.gz:1", fmt.Sprintf("starts at byte %d of the line", len(text)), "more than 4194304 bytes"}},
		// No long string, one long line: the line limit (64 MiB) holds.
		{"rollout", "numbers.jsonl.gz", numbers, "1,", "1]}\n", 1 << 30,
			[]string{"numbers.jsonl.gz:1", "over the limit of 67108864"}},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		writeBomb(t, path, c.head, c.unit, c.tail, c.size)
		cmd := exec.Command(os.Args[0], "-test.run=^TestBombChild$")
		cmd.Env = append(os.Environ(), "MPDF_BOMB_KIND="+c.kind, "MPDF_BOMB_FILE="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: child: %v\n%s", c.name, err, out)
		}
		var readErr string
		var hwm int64 = -1
		for _, line := range strings.Split(string(out), "\n") {
			if s, ok := strings.CutPrefix(line, "BOMB-ERR: "); ok {
				readErr = s
			}
			if s, ok := strings.CutPrefix(line, "BOMB-HWM-KB: "); ok {
				hwm, _ = strconv.ParseInt(s, 10, 64)
			}
		}
		if hwm < 0 {
			t.Fatalf("%s: no VmHWM from the child:\n%s", c.name, out)
		}
		t.Logf("%s: peak RSS %.1f MiB; %s", c.name, float64(hwm)/1024, readErr)
		if hwm > bombLimitMiB<<10 {
			t.Errorf("%s: peak RSS %.0f MiB, want under %d MiB", c.name, float64(hwm)/1024, bombLimitMiB)
		}
		for _, want := range append(c.wantInError, c.name) {
			if !strings.Contains(readErr, want) {
				t.Errorf("%s: error %q, want it to name %q", c.name, readErr, want)
			}
		}
	}
}

// writeBomb writes head, size bytes of unit repeated and tail, gzip'd.
func writeBomb(t *testing.T, path, head, unit, tail string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	zw.Write([]byte(head))
	chunk := bytes.Repeat([]byte(unit), (1<<20)/len(unit))
	for n := size; n > 0; n -= int64(len(chunk)) {
		zw.Write(chunk[:min(n, int64(len(chunk)))])
	}
	zw.Write([]byte(tail))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBombChild is the child process of TestBombsBoundedMemory: it reads
// the file as its parent says and prints the error and its peak RSS.
func TestBombChild(t *testing.T) {
	path := os.Getenv("MPDF_BOMB_FILE")
	if path == "" {
		t.Skip("the child of TestBombsBoundedMemory")
	}
	var err error
	switch os.Getenv("MPDF_BOMB_KIND") {
	case "transcript":
		f, ferr := os.Open(path)
		if ferr != nil {
			t.Fatal(ferr)
		}
		_, err = Each(f, path, Options{}, func(*Question) error { return nil })
		f.Close()
	case "rollout":
		r, oerr := data.Open([]string{path}, data.ReaderOptions{})
		if oerr != nil {
			t.Fatal(oerr)
		}
		_, err = r.Next()
		r.Close()
	}
	if err == nil {
		t.Fatal("the bomb was read without an error")
	}
	fmt.Printf("BOMB-ERR: %v\n", err)
	fmt.Printf("BOMB-HWM-KB: %d\n", vmHWM(t))
}

// vmHWM is this process's peak resident set size in KiB, from /proc.
func vmHWM(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
