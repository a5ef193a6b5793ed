package answer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
)

// sharedText is one string of a shared transcript, with the kind of its
// file and the top-level key it sits under (the question, in LLM-Debate's
// layout).
type sharedText struct {
	kind           Kind
	question, text string
}

// sharedTexts returns every distinct string of every shared transcript
// (messages, golds, questions: whatever the layout), so that the reader is
// compared on all the text there is, not on what one importer picks out.
func sharedTexts(t testing.TB) []sharedText {
	t.Helper()
	var out []sharedText
	seen := map[[2]string]bool{}
	for _, pattern := range []string{"*/*/*.json", "*/*.json", "*.json"} {
		for _, path := range globShared(t, pattern) {
			kind := kindOfPath(path)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			add := func(q, s string) {
				if k := [2]string{string(kind) + "\x00" + q, s}; !seen[k] {
					seen[k] = true
					out = append(out, sharedText{kind, q, s})
				}
			}
			if m, ok := v.(map[string]any); ok {
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for _, k := range keys {
					add("", k)
					walkStrings(m[k], func(s string) { add(k, s) })
				}
				continue
			}
			walkStrings(v, func(s string) { add("", s) })
		}
	}
	return out
}

func globShared(t testing.TB, pattern string) []string {
	dir := testenv.Shared(t, "data", "debates")
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func kindOfPath(path string) Kind {
	switch base := filepath.Base(path); {
	case strings.Contains(base, "arithmetic"):
		return Arithmetic
	case strings.Contains(base, "math"):
		return Math
	case strings.Contains(base, "mmlu"):
		return MMLU
	}
	return GSM8K
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			f(k)
			walkStrings(v[k], f)
		}
	}
}

// TestReadSharedUnchanged holds Read to the reader it replaced
// (the ref-prefixed copy) on every string of the shared transcripts: the
// caps that bound reading must not change what a real text reads as.
func TestReadSharedUnchanged(t *testing.T) {
	ts := sharedTexts(t)
	diffs := 0
	for i, s := range ts {
		if (testing.Short() || raceEnabled) && i%8 != 0 {
			continue // a sample: the old reader is slow
		}
		opts := Options{Question: s.question, Critic: true}
		got := Read(s.kind, s.text, opts)
		want := refRead(refKind(s.kind), s.text, refOptions{Question: s.question, refCritic: true})
		if len(s.text) > MaxCriticBytes && got.Answer == want.Answer && reflect.DeepEqual(got.Profile, want.Profile) {
			// The critic checks the last MaxCriticBytes only: two peer-solution
			// prompts of 74 KiB (no answer a critic is asked about) differ.
			continue
		}
		if !sameResult(got, want) {
			if diffs++; diffs <= 10 {
				t.Errorf("%s text of %d bytes: got %s, want %s\n%q", s.kind, len(s.text), showResult(got), showResult(want), clip(s.text))
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d shared texts read differently", diffs, len(ts))
	}
	t.Logf("%d shared texts compared", len(ts))
}

func sameResult(got Result, want refResult) bool {
	return got.Answer == want.Answer && reflect.DeepEqual(got.Profile, want.Profile) && reflect.DeepEqual(got.Critic, want.refCritic)
}

func showResult(r any) string {
	switch r := r.(type) {
	case Result:
		return fmt.Sprintf("{%q %+v %v}", r.Answer, r.Profile, deref(r.Critic))
	case refResult:
		return fmt.Sprintf("{%q %+v %v}", r.Answer, r.Profile, deref(r.refCritic))
	}
	return ""
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// clip shortens a text for a message: its head and its tail.
func clip(s string) string {
	if len(s) <= 400 {
		return s
	}
	return s[:150] + " ... " + s[len(s)-250:]
}

// BenchmarkReadShared reads every shared text (critic on, as the importer
// reads) with Read and with the reader before the caps: MB/s side by side.
func BenchmarkReadShared(b *testing.B) {
	ts := sharedTexts(b)
	var bytes int64
	for _, s := range ts {
		bytes += int64(len(s.text))
	}
	for _, critic := range []bool{true, false} {
		name := "read" // critic on: the name the benchmark had before the critic was optional
		if !critic {
			name = "read-no-critic" // as mpdf import and data corpus read now
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(bytes)
			b.ReportAllocs()
			for range b.N {
				for _, s := range ts {
					Read(s.kind, s.text, Options{Question: s.question, Critic: critic})
				}
			}
		})
	}
	b.Run("reference", func(b *testing.B) {
		b.SetBytes(bytes)
		for range b.N {
			for _, s := range ts {
				refRead(refKind(s.kind), s.text, refOptions{Question: s.question, refCritic: true})
			}
		}
	})
}
