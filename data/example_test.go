package data_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/data"
)

// ValidateFiles checks every record of rollout files and says which are
// rejected, where and why: what mpdf data validate prints.
func ExampleValidateFiles() {
	dir, err := os.MkdirTemp("", "validate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rollouts.jsonl")
	if err := os.WriteFile(path, []byte(`{"kind":"episode","task":"t1"}`+"\n"), 0o644); err != nil {
		panic(err)
	}

	v, err := data.ValidateFiles([]string{path}, data.ValidateOptions{MaxListed: 10})
	if err != nil {
		panic(err)
	}
	r := v.Rejected[0]
	fmt.Println("accepted", v.Counts.Accepted, "rejected", v.Counts.Rejected)
	fmt.Printf("line %d: %s: %s\n", r.Line, r.Field, r.Reason)
	// Output:
	// accepted 0 rejected 1
	// line 1: id: missing
}

// Open reads rollout files (JSON Lines, gzip or zstd, globs expanded)
// record by record. With Skip, a rejected record is reported and the read
// goes on; Counts adds up what was read.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "open-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	lines := `{"kind":"episode","id":"e1","task":"t1","gold":"4","agents":2,"rounds":[` +
		`{"turns":[{"answer":"4","confidence":0.8,"profile":{"steps":3},"tokens":100},{"answer":"5","profile":{},"tokens":90}]},` +
		`{"turns":[{"action":"persist","logprob":-0.1,"answer":"4","profile":{},"tokens":0},{"action":"concede","answer":"4","profile":{},"tokens":20}]}]}
{"kind":"decision","group":"t1","features":[0.5,1,-2],"action":"refine","reward":1,"logprob":-0.5}
{"kind":"decision","group":"t1","features":[0.5,1,-2],"action":"jump","reward":1}
`
	if err := os.WriteFile(filepath.Join(dir, "run1.jsonl"), []byte(lines), 0o644); err != nil {
		panic(err)
	}

	r, err := data.Open([]string{filepath.Join(dir, "*.jsonl")}, data.ReaderOptions{
		Skip:     true,
		OnReject: func(e *data.RecordError) { fmt.Printf("rejected line %d: %s: %s\n", e.Line, e.Field, e.Reason) },
	})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic(err)
		}
		switch {
		case rec.Episode != nil:
			fmt.Printf("line %d: episode %s, %d rounds\n", rec.Pos.Line, rec.Episode.ID, len(rec.Episode.Rounds))
		case rec.Decision != nil:
			fmt.Printf("line %d: decision, action %v, reward %g\n", rec.Pos.Line, rec.Decision.Action, rec.Decision.Reward)
		}
	}
	fmt.Println(r.Counts())
	// Output:
	// line 1: episode e1, 2 rounds
	// line 2: decision, action refine, reward 1
	// rejected line 3: action: unknown action "jump" (want persist, refine or concede)
	// read 3 records from 1 files: 2 accepted (1 episodes, 1 decisions), 1 rejected
}
