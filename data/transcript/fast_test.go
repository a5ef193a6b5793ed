package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
)

// readBoth reads content by the fast path (with its fallback) and by the
// slow path alone: questions, report and error.
func readBoth(name, content string, opts Options) (fast, slow string) {
	read := func(only bool) string {
		slowOnly = only
		defer func() { slowOnly = false }()
		var b strings.Builder
		rep, err := Each(strings.NewReader(content), name, opts, func(q *Question) error {
			j, _ := json.Marshal(q) // pointers by value
			fmt.Fprintf(&b, "%s\n", j)
			return nil
		})
		if rep != nil {
			j, _ := json.Marshal(rep)
			fmt.Fprintf(&b, "report %s\n", j)
		}
		fmt.Fprintf(&b, "error %v\n", err)
		return b.String()
	}
	return read(false), read(true)
}

// The fast path reads every shared file, and every file of testdata, to
// the questions, report and error of the encoding/json path.
func TestFastMatchesSlow(t *testing.T) {
	paths := append(testenv.Debates(t, "*/*/*.json"), must(filepath.Glob("testdata/*.json"))...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {SkipCritic: true}} {
			if fast, slow := readBoth(p, string(b), opts); fast != slow {
				t.Errorf("%s (%+v): the fast path reads differently", p, opts)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// fastSeeds are debate-layout documents at the edges of what the fast path
// reads, and past them (where it gives up).
var fastSeeds = []string{
	`{"q": [[[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{1}"}],[{"role":"user","content":"q"},{"role":"assistant","content":"2"}]], "1"]}`,
	`{"q": [[["q","1"],["q","2"]], 12, 3, "x", {"a":[true,false,null]}]}`,
	`{"q": [[["q","1"],["q","2"]], null]}`,
	`{"q": [[["q","1"],["q","2"]], -1.5e3]}`,
	`{"q": [[["q","1"],["q","2"]], true]}`,
	`{"q": [null, "1"]}`,
	`{"q": [[null, ["q","1"]], "1"]}`,
	`{"q": [[[null], ["q","1"]], "1"]}`,
	`{"q": [[["q","1"],["q","2"]]]}`,
	`{"q": []}`,
	`{}`,
	`{"q": [[[{"Role":"assistant","content":"1"}],["q","2"]], "1"]}`,
	`{"q": [[[{"role":"assistant","role":"user","content":"1","x":[1,{"y":2}]}],[{"role":"assistant","content":"2"}]], "1"]}`,
	`{"q": [[["q","\u00e9\ud83d\ude00\n\"\\\/\b\f\r\t"],["q","\ud800"]], "1"]}`,
	`{"q": [[["q","1"],["q","2"]], "1"]} x`,
	`{"q": [[["q","1"],["q","2"]], "1"],}`,
	`{"q": [[["q","1"],["q","2"]], "1"], "q": [[["q","1"],["q","2"]], "1"]}`,
	"{\"q\xff\": [[[\"q\",\"1\"],[\"q\",\"2\"]], \"1\"]}",
	"\xef\xbb\xbf {\"q\": [[[\"q\",\"1\"],[\"q\",\"2\"]], \"1\"]}",
	`{"q": [[["q","1"],["q","2"]], "1"]`,
	`{"q": [[["q","1"],["q","2"]], 01]}`,
	`{"q": [[["q","a	b"],["q","2"]], "1"]}`,
	`[{"question": "q", "agent_response": {"a": ["1"], "b": ["2"]}, "answer": "1"}]`,
	`[{"question_id": [1, {"x": null}], "question": "q", "agent_response": {"a": ["1", "3"], "a": ["2"]}, "summarization": "s", "answer": 12}]`,
	`[{"question": "q", "agent_response": {"a": ["1"], "b": []}, "answer": null}, {"question": "r", "agent_response": {}}]`,
	`[{"question": "q", "agent_response": {"a": ["1"], "b": null}, "answer": "1"}]`,
	`[{"question": "q", "agent_response": {"a": ["1"], "b": [null]}, "answer": "1"}]`,
	`[{"Question": "q", "agent_response": {"a": ["1"], "b": ["2"]}}]`,
	`[{"question": "q", "question": "r", "agent_response": {"a": ["1"], "b": ["2"]}}]`,
	`[{"question": null, "agent_response": {"a": ["1"], "b": ["2"]}}]`,
	`[{"question": "q", "agent_response": {"a": ["1"], "b": ["2"]}, "answer": true}]`,
	`[null]`, `[]`, ` [ ] `, `[{"question": "q", "agent_response": {"a": ["1"], "b": ["2"]}},]`,
}

// FuzzFastMatchesSlow holds the fast path to the slow one on any document.
func FuzzFastMatchesSlow(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if fast, slow := readBoth("gsm_fuzz.json", doc, Options{}); fast != slow {
			t.Fatalf("%q:\nfast %s\nslow %s", doc, fast, slow)
		}
	})
}

func TestFastSeeds(t *testing.T) {
	for _, s := range fastSeeds {
		if fast, slow := readBoth("gsm_seed.json", s, Options{}); fast != slow {
			t.Errorf("%q:\nfast %s\nslow %s", s, fast, slow)
		}
		if fast, slow := readBoth("agora_gsm_seed.json", s, Options{Layout: LayoutAgora}); fast != slow {
			t.Errorf("%q:\nfast %s\nslow %s", s, fast, slow)
		}
		if fast, slow := readBoth("gsm_seed.json", s, Options{Layout: LayoutDebate}); fast != slow {
			t.Errorf("%q:\nfast %s\nslow %s", s, fast, slow)
		}
	}
}

// A fast read that gives up after some questions hands fn only the rest
// (the slow path's), and fn's error stops either path as is.
func TestFastFallbackDelivers(t *testing.T) {
	doc := "{" + debateQ("What is 1?", "1") + ", " + debateQ("What is 2?", "2") + `, "bad": [[["q","1"],["q","2"]], true]}`
	var got []int
	_, err := Each(strings.NewReader(doc), "gsm_x.json", Options{}, func(q *Question) error {
		got = append(got, q.Index)
		return nil
	})
	if err == nil || !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("delivered %v, error %v; want [0 1] once and the gold's error", got, err)
	}
	stop := errors.New("stop")
	_, err = Each(strings.NewReader(doc), "gsm_x.json", Options{}, func(q *Question) error { return stop })
	if err != stop {
		t.Errorf("fn's error: %v", err)
	}
}

// Every shared debate-layout file is read by the fast path itself, without
// falling back: the speed is on the files there are.
func TestFastReadsSharedFiles(t *testing.T) {
	for _, p := range testenv.Debates(t, "*/*/*.json") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := resolveMeta(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if _, err := eachFast(strings.NewReader(string(b)), p, meta, Options{}, func(*Question) error { return nil }, &n); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
