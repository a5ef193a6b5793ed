package env

import (
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Env is a source of deliberation tasks.
type Env interface {
	// Name identifies the environment in episodes' Source field.
	Name() string
	// NumTasks is the number of tasks; Start takes 0 ≤ task < NumTasks().
	NumTasks() int
	// Start opens task number task for a team. rng is the episode's own
	// stream: an Env draws all its randomness from it, so that the same
	// seed replays the same episode.
	Start(task int, rng *rand.Rand) (Game, error)
}

// Game is one task in progress.
type Game interface {
	// Task returns the task id, its text (may be empty) and its gold
	// answer ("" when unknown).
	Task() (id, question, gold string)
	// Agents is the team size N ≥ 2.
	Agents() int
	// Initial returns every agent's round-0 turn.
	Initial() ([]data.Turn, error)
	// Step returns agent's turn for round (≥ 1) after it takes action,
	// given every agent's turn of the previous round. Actions within a
	// round are simultaneous: all see the same prev.
	Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error)
}

// CheckStep checks the arguments of Game.Step for a team of n agents, as
// every Game does before acting; the error names the argument, and the
// Game adds its own prefix and task.
func CheckStep(round, agent, n int, action metapolicy.Action, prev []data.Turn) error {
	switch {
	case round < 1:
		return fmt.Errorf("round %d, want ≥ 1", round)
	case agent < 0 || agent >= n:
		return fmt.Errorf("agent %d outside [0, %d)", agent, n)
	case len(prev) != n:
		return fmt.Errorf("%d previous turns, want %d", len(prev), n)
	case !action.Valid():
		return fmt.Errorf("invalid action %d", uint8(action))
	}
	return nil
}

// PeersAlwaysSeen is implemented by an Env whose refine always reflects the
// peers' answers, whatever Play hides from it: a replay, where every recorded
// revision was written after seeing the peers. Such an Env cannot play
// Self-Refine: Play refuses a metapolicy.SelfRefiner policy that refines
// alone on it, and Baselines leaves refine out, rather than reporting a
// debate under Self-Refine's name.
type PeersAlwaysSeen interface {
	PeersAlwaysSeen() bool
}

// IOBound is implemented by an Env whose games wait on I/O (a live model
// answering over the network). Play gains nothing from batching such an
// Env's decisions and would hold finished episodes back until the slowest
// of their batch ends, so it plays each worker's episodes one at a time
// (RunOptions.Batch 1), delivering each as soon as it is done.
type IOBound interface {
	IOBound() bool
}

// ioBound reports whether e, or the Env a View of e plays, says it is IOBound.
func ioBound(e Env) bool {
	if e.NumTasks() > 0 {
		e, _ = Source(e, 0)
	}
	b, ok := e.(IOBound)
	return ok && b.IOBound()
}

// Unseeded is implemented by an Env whose games draw nothing from the
// stream Start is given: a replay plays back recorded answers. A task of
// such an Env plays the same under every seed, so a result computed for
// one seed (or through one View's numbering, which may pick the stream)
// holds for all, and a cache may key on the task alone.
type Unseeded interface {
	Unseeded() bool
}

// IsUnseeded reports whether the Env that holds task of e (Source) is
// Unseeded.
func IsUnseeded(e Env, task int) bool {
	s, _ := Source(e, task)
	u, ok := s.(Unseeded)
	return ok && u.Unseeded()
}

// TaskRounder is implemented by an Env whose tasks each have their own
// number of deliberation rounds, such as a replay of transcripts that
// recorded one round for some questions and three for others. Beyond its
// recorded rounds a replayed agent has nothing new to say: a refine would
// repeat its last answer and pay its tokens again. So Play plays task t for
// at most TaskRounds(t) rounds (RoundsOf), whatever RunOptions.Rounds asks.
type TaskRounder interface {
	TaskRounds(task int) int
}

// RoundsOf is the number of deliberation rounds played for task of e when
// rounds are asked: rounds, capped at e's TaskRounds(task) when e is a
// TaskRounder.
func RoundsOf(e Env, task, rounds int) int {
	if tr, ok := e.(TaskRounder); ok {
		return min(rounds, tr.TaskRounds(task))
	}
	return rounds
}

// View is implemented by an Env that plays tasks of another Env under
// other numbers (a fold's training side, say): Source returns that Env and
// the task's number there. Caches of per-task results key on the source
// (Source), so that every view of a task shares one entry.
type View interface {
	Source(task int) (Env, int)
}

// Source follows Views from task of e down to the Env that holds it and
// its number there (e and task themselves when e is no View).
func Source(e Env, task int) (Env, int) {
	for {
		v, ok := e.(View)
		if !ok {
			return e, task
		}
		e, task = v.Source(task)
	}
}

// TaskSourcer is implemented by an Env whose tasks come from several
// sources, such as a replay of several transcript files: TaskSource is
// task's own source, the Source its episodes carry (Name names them all),
// so that an episode says which file, and so which model, it replays.
type TaskSourcer interface {
	TaskSource(task int) string
}

// SourceOf is the Source of the episodes of task of e: its TaskSource
// when e, or the Env a View plays it from, is a TaskSourcer; else e's
// Name.
func SourceOf(e Env, task int) string {
	s, t := Source(e, task)
	if ts, ok := s.(TaskSourcer); ok {
		return ts.TaskSource(t)
	}
	return e.Name()
}

// peersAlwaysSeen reports whether e implements PeersAlwaysSeen and says so.
func peersAlwaysSeen(e Env) bool {
	p, ok := e.(PeersAlwaysSeen)
	return ok && p.PeersAlwaysSeen()
}

// Baselines lists the heuristic baselines (metapolicy.HeuristicNames) that
// e can play, in table order: all of them, less refine on an Env whose
// peers are always seen.
func Baselines(e Env) []string {
	names := metapolicy.HeuristicNames()
	if !peersAlwaysSeen(e) {
		return names
	}
	out := names[:0]
	for _, n := range names {
		if n != metapolicy.HeuristicRefine {
			out = append(out, n)
		}
	}
	return out
}
