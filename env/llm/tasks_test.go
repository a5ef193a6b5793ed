package llm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
)

func TestReadTasks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	text := `{"id":"g1","question":"What is 2+2?","gold":"4","kind":"gsm"}

{"id":"g2","question":"Jared types ...","gold":"Jared ... \n#### 1,052","kind":"gsm"}
{"id":"m1","question":"Which is monosomy?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X","gold":"(d)","kind":"mmlu"}
{"id":"u1","question":"No gold here","kind":"gsm"}
{"id":"g3","question":"What is 3+4?","gold":"7","kind":"GSM8K"}
{"id":"a1","question":"What is the result of 6+19*28+14-10*7?","gold":"482","kind":"arithmetic"}
{"id":"x1","question":"Solve 2x = 1.","gold":"\\dfrac12","kind":"Math"}
{"id":"x2","question":"Simplify x+x.","gold":"$2x$","kind":"math"}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, err := ReadTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Task{
		{"g1", "What is 2+2?", "4", answer.GSM8K},
		{"g2", "Jared types ...", "1052", answer.GSM8K},
		{"m1", "Which is monosomy?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X", "D", answer.MMLU},
		{"u1", "No gold here", "", answer.GSM8K},
		{"g3", "What is 3+4?", "7", answer.GSM8K},
		{"a1", "What is the result of 6+19*28+14-10*7?", "482", answer.Arithmetic},
		{"x1", "Solve 2x = 1.", "0.5", answer.Math},
		{"x2", "Simplify x+x.", "2x", answer.Math},
	}
	if len(tasks) != len(want) {
		t.Fatalf("%d tasks, want %d", len(tasks), len(want))
	}
	for i := range want {
		if tasks[i] != want[i] {
			t.Errorf("task %d: %+v, want %+v", i, tasks[i], want[i])
		}
	}
}

func TestReadTasksErrors(t *testing.T) {
	good := `{"id":"a","question":"q","kind":"gsm"}` + "\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "\n\n", "t.jsonl: no tasks"},
		{"syntax", good + "{\"id\":\"b\",\n", "t.jsonl:2: invalid JSON"},
		{"unknown field", good + good[:len(good)-2] + `,"answer":"4"}`, `t.jsonl:2: answer: unknown field`},
		{"type", `{"id":7,"question":"q","kind":"gsm"}`, "t.jsonl:1: id: want a string, got JSON number"},
		{"no id", `{"question":"q","kind":"gsm"}`, "t.jsonl:1: id: empty"},
		{"no question", `{"id":"a","kind":"gsm"}`, "t.jsonl:1: question: empty"},
		{"kind", `{"id":"a","question":"q","kind":"physics"}`, `t.jsonl:1: kind: "physics" is not a task kind (want gsm8k, mmlu, arithmetic, math; gsm is gsm8k)`},
		{"no kind", `{"id":"a","question":"q"}`, `t.jsonl:1: kind: "" is not a task kind`},
		{"duplicate", good + "\n" + good, `t.jsonl:3: id: "a" repeats line 1`},
		{"two values", `{"id":"a","question":"q","kind":"gsm"} {}`, "t.jsonl:1: more than one JSON value"},
		// Issue 34, cause 5: the last "gold" won; "Gold" was read as gold.
		{"gold twice", `{"id":"a","question":"q","gold":"4","kind":"gsm","gold":"5"}`, `t.jsonl:1: gold: given twice`},
		{"Gold", `{"id":"a","question":"q","Gold":"4","kind":"gsm"}`, `t.jsonl:1: Gold: unknown field (want "gold": keys are case-sensitive)`},
		{"lone surrogate", `{"id":"a","question":"q\ud800","kind":"gsm"}`, `t.jsonl:1: question: a lone UTF-16 surrogate \ud800`},
		{"array", `[1]`, "t.jsonl:1: want a JSON object, got JSON array"},
		{"gsm gold not a number", `{"id":"a","question":"q","gold":"forty-two","kind":"gsm"}`, `t.jsonl:1: gold: "forty-two" is not a number`},
		{"gsm solution without a number", `{"id":"a","question":"q","gold":"so\n#### many","kind":"gsm"}`, `t.jsonl:1: gold: "so\n#### many" is not a number`},
		{"arithmetic gold not a number", `{"id":"a","question":"q","gold":"many","kind":"arithmetic"}`, `t.jsonl:1: gold: "many" is not a number`},
		{"mmlu gold not a letter", `{"id":"a","question":"q","gold":"Insulin","kind":"mmlu"}`, `t.jsonl:1: gold: "Insulin" is not a letter A–D`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeTasks(strings.NewReader(tc.text), "t.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := ReadTasks(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadTasksLongLine(t *testing.T) {
	long := `{"id":"a","question":"` + strings.Repeat("x", 200<<10) + `","kind":"gsm"}`
	tasks, err := DecodeTasks(strings.NewReader(long), "t")
	if err != nil || len(tasks[0].Question) != 200<<10 {
		t.Fatalf("a 200 KiB line: %v", err)
	}
	huge := strings.Repeat("x", maxTaskLine+10)
	if _, err := DecodeTasks(strings.NewReader(huge), "t"); err == nil || !strings.Contains(err.Error(), "t:1: line longer") {
		t.Errorf("a line over the bound: %v", err)
	}
}
