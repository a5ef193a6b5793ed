package view

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/data"
)

// Read reads the episodes of files (paths or globs; JSON Lines, plain or
// compressed), keeping those of the first maxTasks distinct tasks (0: all)
// so that memory follows what the page shows. A record that does not read,
// or a decision record, is an error naming its file and line.
func Read(patterns []string, maxTasks int) ([]*data.Episode, error) {
	r, err := data.Open(patterns, data.ReaderOptions{})
	if err != nil {
		return nil, fmt.Errorf("view: %w", err)
	}
	defer r.Close()
	var eps []*data.Episode
	tasks := map[string]bool{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("view: %w", err)
		}
		if rec.Episode == nil {
			return nil, fmt.Errorf("view: %s: a decision record: the page shows episodes (rollouts of kind \"episode\")", rec.Pos)
		}
		t := rec.Episode.Task
		if !tasks[t] {
			if maxTasks > 0 && len(tasks) == maxTasks {
				continue
			}
			tasks[t] = true
		}
		eps = append(eps, rec.Episode)
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("view: %v: no episodes", patterns)
	}
	return eps, nil
}
