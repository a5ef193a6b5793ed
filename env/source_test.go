package env_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/env"
)

// files is an Env of tasks from several files; it says each task's own.
type files struct{}

func (files) Name() string                            { return "files:a,b" }
func (files) NumTasks() int                           { return 4 }
func (files) Start(int, *rand.Rand) (env.Game, error) { return nil, fmt.Errorf("not played") }
func (files) TaskSource(task int) string              { return fmt.Sprintf("file:%d", task%2) }

// odd is a View of the odd tasks of files.
type odd struct{ files }

func (odd) Name() string                   { return "odd" }
func (odd) NumTasks() int                  { return 2 }
func (odd) Source(task int) (env.Env, int) { return files{}, 2*task + 1 }

// TestSourceOf: an episode's source is its task's own where the Env (or
// the Env a View plays from) says it, else the Env's name.
func TestSourceOf(t *testing.T) {
	if got := env.SourceOf(files{}, 2); got != "file:0" {
		t.Errorf("task source %q, want file:0", got)
	}
	if got := env.SourceOf(odd{}, 0); got != "file:1" {
		t.Errorf("through a view: %q, want file:1 (task 1 of files)", got)
	}
	type named struct{ env.Env }
	if got := env.SourceOf(named{odd{}}, 0); got != "odd" {
		t.Errorf("an Env that is neither: %q, want its name", got)
	}
}
