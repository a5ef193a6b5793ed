package transcript

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/testenv"
)

// Every shared transcript, of every layout and variant, given to the
// rollout reader is recognised as a transcript of the layout this package
// detects, and the message says which command reads it (issue 19, item 3),
// plain or gzip'd, where it was "a torn last record" before.
func TestRolloutReaderRecognisesTranscripts(t *testing.T) {
	paths := testenv.Debates(t, "*/*/*.json")
	layouts := map[Layout]int{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Each's detection (the first JSON byte), without reading answers.
		layout := LayoutDebate
		if bytes.TrimLeft(raw, " \t\r\n")[0] == '[' {
			layout = LayoutAgora
		}
		layouts[layout]++
		checkRecognised(t, path, string(layout))
	}
	if layouts[LayoutDebate] == 0 || layouts[LayoutAgora] == 0 {
		t.Fatalf("layouts covered: %v, want both", layouts)
	}
	// Compressed, and among rollout files read with SkipUnreadable: the
	// transcript is unreadable, the rollouts are read.
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gzPath := filepath.Join(dir, "t.json.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	os.WriteFile(gzPath, gz.Bytes(), 0o644)
	checkRecognised(t, gzPath, "")
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"kind":"decision","group":"g","features":[1],"action":"refine","reward":1}`+"\n"), 0o644)
	r, err := data.Open([]string{gzPath, good}, data.ReaderOptions{SkipUnreadable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if c := r.Counts(); c.Unreadable != 1 || c.Accepted != 1 || c.Rejected != 0 || c.Read != 1 {
		t.Fatalf("counts %+v, want the transcript unreadable and the record read", c)
	}
}

func checkRecognised(t *testing.T, path, layout string) {
	t.Helper()
	r, err := data.Open([]string{path}, data.ReaderOptions{Skip: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Next()
	var te *data.TranscriptError
	if !errors.As(err, &te) || layout != "" && te.Layout != layout {
		t.Fatalf("%s: %v, want a transcript (%s layout) recognised", filepath.Base(path), err, layout)
	}
	for _, want := range []string{path, "debate transcript", "replay it", "import it into episodes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "torn") {
		t.Errorf("%v: still called torn", err)
	}
}
