package env

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// A Recording is what Record wrote: the file, its episodes and rounds,
// and the policy's result over them.
type Recording struct {
	Out      string  `json:"out"`
	Episodes int64   `json:"episodes"`
	Rounds   int     `json:"rounds"`
	Results  Results `json:"results"`
	// Tasks and PerTask are the tasks played and the episodes of each.
	Tasks   int `json:"-"`
	PerTask int `json:"-"`
}

// Record plays pol in e under opts and writes every episode to the
// rollout file path (data.Create: compressed by its extension, replaced
// whole when the play succeeds; a failed play leaves path as it was),
// records of at most maxLine bytes, tallying the policy's result.
func Record(e Env, pol metapolicy.Policy, opts RunOptions, path string, maxLine int) (*Recording, error) {
	p, err := opts.plan(e) // options out of range refused before path is touched; 0s as played
	if err != nil {
		return nil, err
	}
	w, err := data.Create(path)
	if err != nil {
		return nil, err
	}
	w.SetMaxLineBytes(maxLine)
	tally := &Tally{Policy: pol.Name()}
	rec := &Recording{Out: path, Rounds: p.rounds, Tasks: len(p.tasks), PerTask: p.episodes}
	err = Play(e, pol, opts, func(ep *data.Episode) error {
		if err := w.WriteEpisode(ep); err != nil {
			return err
		}
		rec.Episodes++
		return tally.Add(ep)
	})
	if err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	rec.Results = Results{tally.Result()}
	return rec, nil
}

// WriteText says what was written and prints the result's table.
func (r *Recording) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "wrote %d episodes (%d tasks × %d episodes, %d rounds, policy %s) to %s\n",
		r.Episodes, r.Tasks, r.PerTask, r.Rounds, r.Results[0].Policy, r.Out)
	return r.Results.WriteTable(w)
}
