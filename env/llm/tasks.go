package llm

// The tasks file (ReadTasks): kind is any kind the answer package reads
// (answer.ParseKind, any case): "gsm8k" or "gsm" (a number, asked for as
// \boxed{N}), "mmlu" (a letter, asked for as (X); the question
// carries its options), "arithmetic" (an integer, asked for at the end of
// the response; the question is the whole sentence, as LLM-Debate's
// "What is the result of ...?") or "math" (a LaTeX expression, asked for
// as \boxed{...}; answers compare after answer.NormalizeMath). gold may
// be omitted (no reward is computed for the task) and is normalised by
// NormalizeGold, so GSM8K reference solutions ending "#### 18", letters
// written "(d)" and "\dfrac12" for 0.5 do. Unknown fields, empty ids or
// questions, other kinds, repeated ids and golds no answer could equal
// (gsm or arithmetic: not a number; mmlu: not a letter A–D) are errors
// reported as FILE:LINE: FIELD: reason.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/internal/jsonscan"
)

// Task is one question for a live deliberation, a line of a tasks file:
//
//	{"id": "gsm-17", "question": "Jared is ...", "gold": "52", "kind": "gsm8k"}
//
// Kind is any kind the answer package reads — gsm8k (or gsm), mmlu,
// arithmetic, math, any case — and is kept as answer.ParseKind names it. Question is the whole text the model sees; for mmlu it holds
// the options too ("...?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X"), for
// arithmetic the whole question ("What is the result of 6+19*28?"). Gold
// is optional ("" = unknown: the episode earns no reward) and is
// normalised with NormalizeGold, so a GSM8K reference solution ending
// "#### 52" will do; a gold the kind's answers could never equal (a gsm8k or
// arithmetic gold that is no number, an mmlu gold that is no letter A–D)
// is an error.
type Task struct {
	ID       string      `json:"id"`
	Question string      `json:"question"`
	Gold     string      `json:"gold,omitempty"`
	Kind     answer.Kind `json:"kind"`
}

// maxTaskLine bounds one line of a tasks file.
const maxTaskLine = 4 << 20

// check validates t and normalises its gold.
func (t *Task) check() error {
	switch {
	case strings.TrimSpace(t.ID) == "":
		return errors.New("id: empty")
	case strings.TrimSpace(t.Question) == "":
		return errors.New("question: empty")
	}
	k, err := normalizeKind(t.Kind)
	if err != nil {
		return fmt.Errorf("kind: %w", err)
	}
	t.Kind = k
	raw := t.Gold
	t.Gold = NormalizeGold(t.Kind, t.Gold)
	if t.Gold == "" {
		return nil
	}
	// A gold that no answer of the kind can equal would make every
	// episode of the task wrong.
	switch _, err := strconv.ParseFloat(t.Gold, 64); {
	case t.Kind == answer.GSM8K && err != nil:
		return fmt.Errorf("gold: %s is not a number (a gsm8k gold is the final number, or a solution ending \"#### N\")", quote([]byte(raw)))
	case t.Kind == answer.Arithmetic && err != nil:
		return fmt.Errorf("gold: %s is not a number (an arithmetic gold is the integer result)", quote([]byte(raw)))
	case t.Kind == answer.MMLU && (len(t.Gold) != 1 || !strings.Contains("ABCD", t.Gold)):
		return fmt.Errorf("gold: %s is not a letter A–D (an mmlu gold names the right option)", quote([]byte(raw)))
	}
	return nil
}

// ReadTasks reads a tasks file: JSON Lines, one Task per line, blank lines
// skipped, unknown fields rejected (a misspelt "answer" for "gold" would
// otherwise pass silently), ids unique. Errors read "FILE:LINE: FIELD:
// reason". A file of the four kinds:
//
//	{"id": "gsm-0", "question": "Janet's ducks lay 16 eggs ...", "gold": "18", "kind": "gsm8k"}
//	{"id": "mmlu-0", "question": "Which of the following is an example of monosomy?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X", "gold": "D", "kind": "mmlu"}
//	{"id": "ar-0", "question": "What is the result of 6+19*28+14-10*7?", "gold": "482", "kind": "arithmetic"}
//	{"id": "math-0", "question": "If $\frac{n+5}{n-3} = 2$, what is $n$?", "gold": "11", "kind": "math"}
func ReadTasks(path string) ([]Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("llm: tasks: %w", err)
	}
	defer f.Close()
	return DecodeTasks(f, path)
}

// DecodeTasks reads tasks in ReadTasks's format from r; name stands for
// the file in errors.
func DecodeTasks(r io.Reader, name string) ([]Task, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var tasks []Task
	seen := map[string]int{}
	for line := 1; ; line++ {
		b, err := readLine(br)
		if err == io.EOF && len(b) == 0 {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("llm: %s:%d: %w", name, line, err)
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var t Task
		// The strict rules of every JSON input (jsonscan.CheckStrict): "gold"
		// twice, or "Gold", was read with the last value winning.
		if err := jsonscan.CheckStrict(b, &t); err != nil {
			var de *jsonscan.DecodeError
			errors.As(err, &de)
			return nil, fmt.Errorf("llm: %s:%d: %s: %s", name, line, de.Field, de.Msg)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("llm: %s:%d: %s", name, line, jsonReason(err))
		}
		if dec.More() {
			return nil, fmt.Errorf("llm: %s:%d: more than one JSON value on the line", name, line)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("llm: %s:%d: %w", name, line, err)
		}
		if prev, ok := seen[t.ID]; ok {
			return nil, fmt.Errorf("llm: %s:%d: id: %s repeats line %d", name, line, quote([]byte(t.ID)), prev)
		}
		seen[t.ID] = line
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("llm: %s: no tasks", name)
	}
	return tasks, nil
}

// readLine reads one line without its newline, refusing lines longer than
// maxTaskLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxTaskLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxTaskLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// jsonReason words a decoding error as "field: reason" when it can, in
// JSON's words rather than Go's, clipping what it quotes of the input.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got := clip([]byte(te.Value), 40) // "number 1e999...": the literal can be long
		if te.Field == "" {
			return fmt.Sprintf("want a JSON object, got JSON %s", got)
		}
		return fmt.Sprintf("%s: want %s, got JSON %s", clip([]byte(te.Field), 120), jsonscan.Want(te.Type), got)
	}
	s := err.Error()
	if f, ok := strings.CutPrefix(s, "json: unknown field "); ok {
		return fmt.Sprintf("%s: unknown field (want id, question, gold, kind)", clip([]byte(strings.Trim(f, `"`)), 120))
	}
	return "invalid JSON: " + strings.TrimPrefix(s, "json: ")
}
