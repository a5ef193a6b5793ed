package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Behaviour is what offline data says of the behaviour that chose its
// actions: offline training weighs the data's decisions by their rewards
// relative to their group's, and learns nothing but the behaviour itself
// when every decision is the same action.
type Behaviour struct {
	Decisions int64
	Actions   [metapolicy.NumActions]int64
	// Episodes and Imported count episode records, and those imported
	// from debate transcripts (mpdf import: a Source of a transcript
	// layout, data.ImportedFrom: "llm-debate:" or "llm-agora:"), which
	// record the debate as it was run, one deterministic behaviour (every
	// agent refines).
	Episodes, Imported int64
}

// ErrSingleBehaviour is the error (wrapped) of CheckBehaviour.
var ErrSingleBehaviour = errors.New("the rollouts hold one deterministic behaviour")

// ScanBehaviour reads offline data (JSON Lines files and globs, or a
// pack directory) once and counts its decisions' actions and imported
// episodes. Records the reader rejects are skipped here: training reads
// the data again and reports them.
func ScanBehaviour(paths []string) (*Behaviour, error) {
	b := &Behaviour{}
	if len(paths) == 1 {
		if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() {
			p, err := data.OpenPack(paths[0])
			if err != nil {
				return nil, err
			}
			defer p.Close()
			s := p.Scan(data.SelectActions)
			var c data.Columns
			for {
				err := s.ReadColumns(&c)
				if err == io.EOF {
					return b, nil
				}
				if err != nil {
					return nil, err
				}
				for _, a := range c.Actions {
					if int(a) < len(b.Actions) {
						b.Actions[a]++
						b.Decisions++
					}
				}
			}
		}
	}
	r, err := data.Open(paths, data.ReaderOptions{Skip: true, KeepErrors: -1, SkipUnreadable: true})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if d := rec.Decision; d != nil {
			if d.Action.Valid() {
				b.Actions[d.Action]++
				b.Decisions++
			}
			continue
		}
		ep := rec.Episode
		b.Episodes++
		if _, ok := data.ImportedFrom(ep.Source); ok {
			b.Imported++
		}
		for _, round := range ep.Rounds[min(1, len(ep.Rounds)):] {
			for _, t := range round.Turns {
				if t.Action != nil && t.Action.Valid() {
					b.Actions[*t.Action]++
					b.Decisions++
				}
			}
		}
	}
}

// Single says why the data hold one deterministic behaviour — every
// decision the same action, or every episode imported from a transcript
// — or "" when they do not.
func (b *Behaviour) Single() string {
	var why []string
	if b.Episodes > 0 && b.Imported == b.Episodes {
		why = append(why, fmt.Sprintf("all %d episodes are imported debate transcripts, which record one behaviour: every agent refines", b.Episodes))
	}
	for a, n := range b.Actions {
		if n > 0 && n == b.Decisions {
			why = append(why, fmt.Sprintf("every one of the %d decisions is %s", n, metapolicy.Action(a)))
		}
	}
	return strings.Join(why, "; ")
}

// CheckBehaviour refuses offline data from one deterministic behaviour
// (Behaviour.Single): ranking a decision against others that all took the
// same action teaches only that action. A transcript's questions are
// better trained on online, in a replay that plays every action.
func CheckBehaviour(paths []string) error {
	b, err := ScanBehaviour(paths)
	if err != nil {
		return nil // training reads the data again and reports the error
	}
	if why := b.Single(); why != "" {
		return fmt.Errorf("%w (%s): trained on offline, a policy can only learn to repeat it", ErrSingleBehaviour, why)
	}
	return nil
}
