package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// PolicyVerdict is the verdict on the served checkpoint that the run which
// wrote it printed (design §9.1): its eval.json, beside it, when that file
// judged this checkpoint at this step.
type PolicyVerdict struct {
	// Use is the row to use; Sentence says why, each difference with its
	// interval; Lambda is the price of tokens and Play how the policy
	// played (greedy or sampled).
	Use      string  `json:"use"`
	Sentence string  `json:"sentence"`
	Lambda   float64 `json:"lambda"`
	Play     string  `json:"play,omitempty"`
}

// evalName is the run's evaluation file (trainer/run.EvalName), and
// maxEvalBytes the most of it read: a few kilobytes are written.
const (
	evalName     = "eval.json"
	maxEvalBytes = 1 << 20
)

// runVerdict reads the verdict on the checkpoint at path, at step, from
// the eval.json beside it: nil when there is none, or when it judged
// another file or step; an error when it is there but unreadable (a
// symlink, not a regular file, too large, not JSON).
func runVerdict(path string, step int64) (*PolicyVerdict, error) {
	name := filepath.Join(filepath.Dir(path), evalName)
	st, err := os.Lstat(name)
	switch {
	case os.IsNotExist(err):
		return nil, nil
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", name)
	case st.Size() > maxEvalBytes:
		return nil, fmt.Errorf("%s: %d bytes, over %d", name, st.Size(), maxEvalBytes)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var doc struct {
		Checkpoint string         `json:"checkpoint"`
		Step       int64          `json:"step"`
		Verdict    *PolicyVerdict `json:"verdict"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxEvalBytes)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc.Verdict == nil || doc.Checkpoint != filepath.Base(path) || doc.Step != step {
		return nil, nil
	}
	return doc.Verdict, nil
}
