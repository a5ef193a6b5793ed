package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/study"
)

// Results is the rows of one study read back from its results.json
// (WriteResults), with the name they were read from.
type Results struct {
	Name string
	Rows []study.ResultRow
}

// ReadResultsFile reads a study's results.json (ReadResults).
func ReadResultsFile(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("study: results: %w", err)
	}
	defer f.Close()
	return ReadResults(f, path)
}

// ReadResults reads the JSON array of rows WriteResults writes, one row at
// a time. A row that is not a study row (an unknown field, no task or
// policy, counts that do not add up: scored > episodes, correct > scored,
// a negative count) or that repeats an earlier row's task, seed and policy
// is an error naming name, the row's number and byte offset, and the field.
func ReadResults(r io.Reader, name string) (*Results, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	fail := func(off int64, row int, format string, args ...any) error {
		where := fmt.Sprintf("%s: offset %d", name, off)
		if row >= 0 {
			where = fmt.Sprintf("%s: row %d (offset %d)", name, row+1, off)
		}
		return fmt.Errorf("study: results: %s: %s", where, fmt.Sprintf(format, args...))
	}
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(0, -1, "empty, want a JSON array of study rows")
		}
		return nil, fail(dec.InputOffset(), -1, "want a JSON array of study rows (results.json): %s", jsonReason(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fail(0, -1, "want a JSON array of study rows (results.json), got %v", tok)
	}
	type key struct {
		file   string
		index  int
		seed   uint64
		policy string
	}
	seen := map[key]int{}
	res := &Results{Name: name}
	for dec.More() {
		off := dec.InputOffset()
		i := len(res.Rows)
		var row study.ResultRow
		if err := dec.Decode(&row); err != nil {
			return nil, fail(off, i, "%s", jsonReason(err))
		}
		switch {
		case row.Task == "":
			return nil, fail(off, i, "task: missing")
		case row.Policy == "":
			return nil, fail(off, i, "policy: missing")
		case row.Episodes < 1:
			return nil, fail(off, i, "episodes: %d, want ≥ 1", row.Episodes)
		case row.Scored < 0 || row.Scored > row.Episodes:
			return nil, fail(off, i, "scored: %d of %d episodes", row.Scored, row.Episodes)
		case row.Correct < 0 || row.Correct > row.Scored:
			return nil, fail(off, i, "correct: %d of %d scored episodes", row.Correct, row.Scored)
		case row.Tokens < 0 || row.Persist < 0 || row.Refine < 0 || row.Concede < 0:
			return nil, fail(off, i, "tokens or actions: negative")
		case row.Index < 0:
			return nil, fail(off, i, "index: %d, want ≥ 0", row.Index)
		}
		k := key{row.File, row.Index, row.Seed, row.Policy}
		if j, ok := seen[k]; ok {
			return nil, fail(off, i, "policy %.120q, seed %d, task %d (%.120s) again: first at row %d", row.Policy, row.Seed, row.Index, row.Task, j+1)
		}
		seen[k] = i
		res.Rows = append(res.Rows, row)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(dec.InputOffset(), -1, "end of the array: %s", jsonReason(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), -1, "data after the array")
	}
	if len(res.Rows) == 0 {
		return nil, fail(0, -1, "no rows")
	}
	return res, nil
}

// jsonReason words a row's decoding error in JSON's terms rather than Go's
// ("seed: want an integer ≥ 0, got JSON number -1"), clipping what it
// quotes of the input.
func jsonReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		switch {
		case te.Type.Kind() == reflect.Struct:
			return fmt.Sprintf("want a JSON object (a study row), got JSON %.40s", te.Value)
		case te.Field == "": // a number out of range where the array should start
			return fmt.Sprintf("got JSON %.40s", te.Value)
		}
		want := jsonscan.Want(te.Type)
		switch te.Type.Kind() { // a study row's numbers are finite, its seed unsigned
		case reflect.Float64:
			want = "a finite number"
		case reflect.Uint64:
			want = "an integer ≥ 0"
		}
		return fmt.Sprintf("%.120s: want %s, got JSON %.40s", te.Field, want, te.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("%.120s: unknown field", strings.Trim(f, `"`))
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
