package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxErrorLen bounds an error message about an untrusted body or line,
// however long the input: the messages clip what they quote.
const maxErrorLen = 1024

// FuzzDecodeResponse feeds arbitrary bytes as a server's answer body, the
// way attempt reads one: as a 2xx body (decodeResponse) and as an error
// body (errorMessage). It must never panic; an error must be an APIError
// or wrap ErrMalformed, start "llm: ", name no Go type and stay short; and
// an accepted answer must write back as a server would send it and read
// back the same.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
		`{"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"hmm"},"finish_reason":"length"}]}`,
		`{"choices":[{"message":{"content":"a"}},{"message":{"content":"b"}}],"usage":{"prompt_tokens":1}}`,
		`{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":-3,"completion_tokens":2}}`,
		`{"choices":[{"message":{"content":7}}]}`,
		`{"choices":{"message":"x"},"usage":[]}`,
		`{"choices":[{"index":0,"text":"legacy completion"}]}`,
		`{"id":"x","choices":[]}`, `{"id":"x"}`, `null`, `[]`, `""`, ``,
		`{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`,
		`{"error":"model not loaded"}`, `{"error":null,"choices":[{"message":{"content":"ok"}}]}`,
		`{"object":"error","message":"bad","type":"BadRequestError"}`,
		`{"detail":"Not Found"}`, `{"detail":[{"loc":["body"],"msg":"field required"}]}`,
		`<html>502 from a proxy that says 200</html>`, `{"choices":[{"message":{"content":"hi"`,
		`{"choices":[{"message":{"content":"\ud800 \xff"}}]}`,
		`{"error":{"message":"` + strings.Repeat("long ", 2000) + `"}}`,
		`{"detail":` + strings.Repeat("[", 3000) + `}`,
		`{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":` + strings.Repeat("9", 2000) + `}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if msg, typ := errorMessage(body); len(msg)+len(typ) > maxErrorLen {
			t.Fatalf("error message of %d+%d bytes from a %d-byte body", len(msg), len(typ), len(body))
		}
		r, err := decodeResponse(body, 200)
		if err != nil {
			var api *APIError
			if !errors.As(err, &api) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is neither an APIError nor ErrMalformed", err)
			}
			checkErrorText(t, err, body)
			return
		}
		if r.Usage.Known && (r.Usage.PromptTokens < 0 || r.Usage.CompletionTokens < 0) {
			t.Fatalf("accepted negative usage %+v", r.Usage)
		}
		back, err := decodeResponse(encodeResponse(t, r), 200)
		if err != nil {
			t.Fatalf("an accepted answer, written back, is refused: %v", err)
		}
		if d := cmp.Diff(r, back); d != "" {
			t.Fatalf("decode → encode → decode differs (-first +second):\n%s", d)
		}
	})
}

// encodeResponse writes r as a chat-completions server would.
func encodeResponse(t *testing.T, r Response) []byte {
	var w wireResponse
	w.Model = r.Model
	c := wireChoice{FinishReason: &r.FinishReason}
	c.Message = &struct {
		Role             string  `json:"role"`
		Content          *string `json:"content"`
		ReasoningContent *string `json:"reasoning_content"`
	}{"assistant", &r.Content, &r.Reasoning}
	if r.Null {
		c.Message.Content = nil
	}
	w.Choices = []wireChoice{c}
	if r.Usage.Known {
		w.Usage = &wireUsage{PromptTokens: &r.Usage.PromptTokens, CompletionTokens: &r.Usage.CompletionTokens}
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goNames matches what encoding/json's messages say of Go types.
var goNames = regexp.MustCompile(`Go (struct field|value)|wire[A-Z]|llm\.`)

// checkErrorText holds an error about the untrusted input in to the house
// rules: it starts with the package, is short, and names no Go type (unless
// the input could have put the words there itself: it holds them, or a
// backslash escape that decodes to them).
func checkErrorText(t *testing.T, err error, in []byte) {
	t.Helper()
	msg := err.Error()
	goWords := goNames.MatchString(msg) && !goNames.Match(in) && !bytes.ContainsRune(in, '\\')
	if !strings.HasPrefix(msg, "llm: ") || len(msg) > maxErrorLen || goWords {
		t.Fatalf("error of %d bytes not of the form llm: ... (short, no Go names):\n%.300s", len(msg), msg)
	}
}

// taskReason matches what follows "llm: fuzz:LINE: " in a DecodeTasks error:
// a field and its reason, or what is wrong with the line as a whole.
var taskReason = regexp.MustCompile(`^((id|question|gold|kind): |.*: unknown field \(want |.*: given twice|.*: invalid UTF-8|.*: a lone UTF-16 surrogate|invalid JSON|want a JSON object|more than one JSON value|line longer than)`)

// FuzzDecodeTasks feeds arbitrary bytes as a tasks file. It must never
// panic; an error must say "llm: FILE:LINE: " and then the field and the
// reason (or what is wrong with the line), in a short message; and the
// tasks it accepts have unique ids and a known kind, and written back one
// JSON line each they read back the same (the normalised kind and gold are
// fixed points).
func FuzzDecodeTasks(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","question":"q","kind":"gsm"}`,
		`{"id":"a","question":"Jared is ...","gold":"so 50+2\n#### 52","kind":"GSM8K"}` + "\n\n" +
			`{"id":"b","question":"Which?: A) x, B) y","gold":"(d)","kind":"mmlu"}` + "\n",
		`{"id":"m","question":"Solve 2x = 1.","gold":"\\dfrac12","kind":"MATH"}` + "\r\n" +
			`{"id":"r","question":"What is 6+19?","gold":"25","kind":" Arithmetic "}`,
		`{"id":"a","question":"q","kind":"gsm"}` + "\n" + `{"id":"a","question":"q","kind":"gsm"}`,
		`{"id":"a","question":"q","kind":"gsm","answer":"4"}`, `{"id":7,"question":"q","kind":"gsm"}`,
		`{"id":"a","question":"q","kind":"physics"}`, `{"id":"a","question":"q"}`, `{"id":" ","question":"q","kind":"gsm"}`,
		`{"id":"a","question":"q","gold":"forty-two","kind":"gsm"}`, `{"id":"a","question":"q","gold":"Insulin","kind":"mmlu"}`,
		`{"id":"a","question":"q","kind":"gsm"} {}`, `[1]`, `null`, `{"id":"b",`, "", "\n\n", "\xef\xbb\xbf{}",
		`{"id":"a","question":"q","gold":"` + strings.Repeat("x", 3000) + `","kind":"gsm"}`,
		`{"id":"a","question":"q","kind":"` + strings.Repeat("k", 3000) + `"}`,
		`{"id":"a","question":"q","kind":"gsm","` + strings.Repeat("f", 3000) + `":1}`,
		`{"id":` + strings.Repeat("1", 3000) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		tasks, err := DecodeTasks(bytes.NewReader(in), "fuzz")
		if err != nil {
			checkErrorText(t, err, in)
			msg := strings.TrimPrefix(err.Error(), "llm: fuzz:")
			if msg == " no tasks" {
				return
			}
			line, reason, ok := strings.Cut(msg, ": ")
			if !ok || strings.Trim(line, "0123456789") != "" || !taskReason.MatchString(reason) {
				t.Fatalf("error %q: want llm: fuzz:LINE: FIELD: reason", err)
			}
			return
		}
		var file bytes.Buffer
		seen := map[string]bool{}
		for _, task := range tasks {
			if seen[task.ID] || !slices.Contains(Kinds, string(task.Kind)) {
				t.Fatalf("accepted task %+v: a repeated id or an unknown kind", task)
			}
			seen[task.ID] = true
			b, err := json.Marshal(task)
			if err != nil {
				t.Fatal(err)
			}
			file.Write(append(b, '\n'))
		}
		again, err := DecodeTasks(&file, "again")
		if err != nil {
			t.Fatalf("accepted tasks, written back, are refused: %v\n%s", err, file.Bytes())
		}
		if d := cmp.Diff(tasks, again); d != "" {
			t.Fatalf("read → write → read differs (-first +second):\n%s", d)
		}
	})
}
