package replay

import (
	"fmt"

	"github.com/mpdf/mpdf/data/transcript"
)

// Grouper names each task's row in a per-group table: "none" (or "") puts
// every task in one (a nil function), "file" groups by transcript file,
// "model" by the model its name records (transcript.ModelOf).
func (e *Env) Grouper(by string) (func(task int) string, error) {
	switch by {
	case "", "none":
		return nil, nil
	case "file":
		return func(t int) string { return e.Question(t).File }, nil
	case "model":
		return func(t int) string { return transcript.ModelOf(e.Question(t).File) }, nil
	}
	return nil, fmt.Errorf("%q: want none, file or model", by)
}

// Counts says a replay's size in the words every report uses: "N tasks,
// M distinct questions" (a task is one file's question; a question
// debated in several files is one question, and one pair of the verdict).
func Counts(r *Env) string {
	ids := make(map[string]struct{}, r.NumTasks())
	for i := range r.NumTasks() {
		ids[r.Question(i).ID] = struct{}{}
	}
	return fmt.Sprintf("%d tasks, %d distinct questions", r.NumTasks(), len(ids))
}
