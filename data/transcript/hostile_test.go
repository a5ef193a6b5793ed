package transcript

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/testenv"
)

func eachErr(t *testing.T, name, content string) error {
	t.Helper()
	_, err := Each(strings.NewReader(content), name, Options{}, func(*Question) error { return nil })
	return err
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%v\nwant it to name %q", err, p)
		}
	}
}

// debateQ is one debate-layout member with two agents answering a.
func debateQ(q, a string) string {
	chat := `[{"role":"user","content":"` + q + `"},{"role":"assistant","content":"` + a + `"}]`
	return `"` + q + `": [[` + chat + `,` + chat + `], "1"]`
}

// A question given twice in a file is refused (issue 20, item 9): its two
// episodes would share one task id.
func TestDuplicateQuestions(t *testing.T) {
	debate := "{" + debateQ("What is 1?", "\\\\boxed{1}") + ", " + debateQ("What is 2?", "\\\\boxed{2}") + ", " +
		debateQ("What is 1?", "\\\\boxed{1}") + "}"
	wantErr(t, eachErr(t, "gsm_dup.json", debate), "gsm_dup.json", "question 2", "question 0", "offset ")
	agora := `[{"question": "What is 1?", "agent_response": {"a": ["1"], "b": ["1"]}, "answer": "1"},
	 {"question": "What is 1?", "agent_response": {"a": ["1"], "b": ["2"]}, "answer": "1"}]`
	wantErr(t, eachErr(t, "agora_gsm_dup.json", agora), "agora_gsm_dup.json", "question 1", "question 0")
	// Distinct questions pass.
	if err := eachErr(t, "gsm_ok.json", "{"+debateQ("What is 1?", "1")+", "+debateQ("What is 2?", "2")+"}"); err != nil {
		t.Fatal(err)
	}
}

// Strings and questions over their caps stop the read with the file, the
// offset and the limit (issue 20, item 4); at the caps they pass.
func TestCaps(t *testing.T) {
	long := strings.Repeat("x", data.MaxTextBytes+1)
	doc := "{" + debateQ("What is 1?", "1") + ", " + debateQ("What is 2?", long) + "}"
	wantErr(t, eachErr(t, "gsm_long.json", doc), "gsm_long.json", "offset ", "question 1", "4194304")
	wantErr(t, eachErr(t, "gsm_longq.json", "{"+debateQ(long, "1")+"}"), "gsm_longq.json", "offset 1:", "question 0", "4194304")
	ok := strings.Repeat("x", data.MaxTextBytes)
	if err := eachErr(t, "gsm_ok.json", "{"+debateQ("What is 1?", ok)+"}"); err != nil {
		t.Fatalf("a text at the limit: %v", err)
	}
	// Many texts under the cap, together over the question's.
	var chat strings.Builder
	chat.WriteString(`[{"role":"user","content":"q"}`)
	for range MaxQuestionBytes/(1<<20) + 1 {
		chat.WriteString(`,{"role":"assistant","content":"` + strings.Repeat("y", 1<<20) + `"}`)
	}
	chat.WriteString("]")
	big := `{"q": [[` + chat.String() + `,` + chat.String() + `], "1"]}`
	wantErr(t, eachErr(t, "gsm_bigq.json", big), "gsm_bigq.json", "offset 1:", "question 0", "33554432")
	agora := `[{"question": "q", "agent_response": {"a": ["` + long + `"], "b": ["1"]}, "answer": "1"}]`
	wantErr(t, eachErr(t, "agora_gsm_long.json", agora), "agora_gsm_long.json", "question 0", "4194304")
}

// A UTF-8 byte order mark before the JSON is skipped (issue 20, item 10),
// and a gzip file cut before its trailer is called truncated, not "data
// after the top-level value".
func TestBOMAndTruncatedGzip(t *testing.T) {
	path := testenv.Debates(t, "slm-debate/gsm/gsm_Qwen3-14B_persona_enigma*agents3*.json")[0]
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	count := func(content []byte, name string) (int, error) {
		n := 0
		_, err := Each(bytes.NewReader(content), name, Options{}, func(*Question) error { n++; return nil })
		return n, err
	}
	want, err := count(raw, name)
	if err != nil || want == 0 {
		t.Fatal(want, err)
	}
	if got, err := count(append([]byte("\xef\xbb\xbf"), raw...), name); err != nil || got != want {
		t.Fatalf("with a BOM: %d questions, %v; want %d", got, err, want)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	for _, cut := range []int{8, 4, 1} { // the whole trailer, or part of it
		_, err := count(gz.Bytes()[:gz.Len()-cut], name+".gz")
		wantErr(t, err, name, "truncated")
		if err != nil && strings.Contains(err.Error(), "data after") {
			t.Errorf("cut %d: %v", cut, err)
		}
	}
	_, err = count(gz.Bytes()[:gz.Len()/2], name+".gz")
	wantErr(t, err, name, "truncated")
}
