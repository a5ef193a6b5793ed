package study

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
)

// TaskInfo says what a study needs to know about one task of an Env.
type TaskInfo struct {
	// Unit is the unit of resampling and of the fold split: the task kind
	// and its normalised question text, so that a question debated in
	// several files (other models, other team sizes) is one unit.
	Unit string
	// Model is the model whose transcript the task replays ("" when the
	// file name does not say); for other environments, the Env's name.
	Model string
	// File is the transcript file of a replayed task ("" otherwise).
	File string
}

// Describe returns the TaskInfo of every task of e. A *replay.Env is
// described by its questions (Unit from the question text, Model from the
// file name, transcript.ParseName: DyLAN's files, whose names say none,
// are GPT-3.5-turbo's); any other Env has one unit per task and one model,
// its name.
func Describe(e env.Env) []TaskInfo {
	info := make([]TaskInfo, e.NumTasks())
	r, ok := e.(*replay.Env)
	for i := range info {
		if !ok {
			info[i] = TaskInfo{Unit: fmt.Sprint("task ", i), Model: e.Name()}
			continue
		}
		q := r.Question(i)
		info[i] = TaskInfo{Unit: string(q.Task) + ":" + NormaliseQuestion(q.Text), Model: transcript.ParseName(q.File).Model, File: q.File}
	}
	return info
}

// NormaliseQuestion is the question text compared across files: lower
// case, runs of white space made one space, trimmed.
func NormaliseQuestion(text string) string {
	// strings.Join(strings.Fields(strings.ToLower(text)), " ") in one pass
	// over the lowered text: a study describes its tasks twice.
	lower := strings.ToLower(text)
	var b strings.Builder
	b.Grow(len(lower))
	gap := false // white space since the last field
	for i := 0; i < len(lower); {
		c := lower[i]
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(lower[i:])
		}
		if unicode.IsSpace(r) {
			gap = true
		} else {
			if gap && b.Len() > 0 {
				b.WriteByte(' ')
			}
			gap = false
			b.WriteString(lower[i : i+n]) // the bytes as they are, invalid ones too
		}
		i += n
	}
	return b.String()
}

// GroupBy says how tasks are dealt into folds.
type GroupBy string

const (
	// ByQuestion deals questions (units) into K folds by a seeded shuffle.
	ByQuestion GroupBy = "question"
	// ByModel makes one fold per model: leave-one-model-out, a test of
	// policies on transcripts of a model they never trained on.
	ByModel GroupBy = "model"
)

// foldStream is the second PCG word of the fold shuffle.
const foldStream = 0x666f6c64 // "fold"

// Folds deals the tasks into folds and returns each fold's tasks
// (ascending) and its name. ByQuestion deals the distinct units, in order
// of first appearance shuffled by seed, round-robin into k folds, so that
// fold sizes differ by at most one question and no question is in two
// folds. ByModel ignores k and seed: one fold per distinct model, sorted by
// name; it needs two or more models. It leaves one model out, a test on a
// model never trained on; the same question text may then appear in
// training under another model — the policy sees features of the debate,
// never the text — so it tests transfer across models, not across
// questions.
func Folds(info []TaskInfo, k int, by GroupBy, seed uint64) (folds [][]int, names []string, err error) {
	switch by {
	case ByQuestion, "":
		var units []string
		id := map[string]int{}
		for _, t := range info {
			if _, ok := id[t.Unit]; !ok {
				id[t.Unit] = len(units)
				units = append(units, t.Unit)
			}
		}
		if k < 2 || k > len(units) {
			return nil, nil, fmt.Errorf("study: %d folds for %d questions, want 2 ≤ folds ≤ questions", k, len(units))
		}
		fold := make([]int, len(units))
		for pos, u := range rand.New(rand.NewPCG(seed, foldStream)).Perm(len(units)) {
			fold[u] = pos % k
		}
		folds = make([][]int, k)
		for i, t := range info {
			f := fold[id[t.Unit]]
			folds[f] = append(folds[f], i)
		}
		for f := range folds {
			names = append(names, fmt.Sprint("fold ", f))
		}
		return folds, names, nil
	case ByModel:
		for _, t := range info {
			if !slices.Contains(names, t.Model) {
				names = append(names, t.Model)
			}
		}
		slices.SortFunc(names, cmp.Compare)
		if len(names) < 2 {
			return nil, nil, fmt.Errorf("study: folds by model: %d model(s) (%q), want ≥ 2", len(names), names)
		}
		folds = make([][]int, len(names))
		for i, t := range info {
			f, _ := slices.BinarySearch(names, t.Model)
			folds[f] = append(folds[f], i)
		}
		return folds, names, nil
	}
	return nil, nil, fmt.Errorf("study: folds by %q, want %q or %q", by, ByQuestion, ByModel)
}

// Complement returns the tasks 0..n−1 not in fold (ascending): the
// training side of a fold.
func Complement(n int, fold []int) []int {
	in := make([]bool, n)
	for _, t := range fold {
		in[t] = true
	}
	var out []int
	for t := range n {
		if !in[t] {
			out = append(out, t)
		}
	}
	return out
}

// Subset is e restricted to its tasks listed (renumbered from 0): the
// training side of a fold (Complement), or its test side.
func Subset(e env.Env, tasks []int) env.Env { return subset{Env: e, tasks: tasks} }

// subset is an Env restricted to some tasks of another, renumbered from 0:
// the training side of a fold.
type subset struct {
	env.Env
	tasks []int
}

func (s subset) NumTasks() int { return len(s.tasks) }

// PeersAlwaysSeen forwards the parent's env.PeersAlwaysSeen marker, which
// embedding alone would hide: a replay's training side must still refuse
// Self-Refine.
func (s subset) PeersAlwaysSeen() bool {
	p, ok := s.Env.(env.PeersAlwaysSeen)
	return ok && p.PeersAlwaysSeen()
}

// TaskRounds implements env.TaskRounder by the wrapped Env's rounds of the
// task (unbounded when it has none of its own).
func (s subset) TaskRounds(task int) int { return env.RoundsOf(s.Env, s.tasks[task], math.MaxInt) }

// Source implements env.View.
func (s subset) Source(task int) (env.Env, int) { return s.Env, s.tasks[task] }

func (s subset) Start(task int, rng *rand.Rand) (env.Game, error) {
	if task < 0 || task >= len(s.tasks) {
		return nil, fmt.Errorf("study: task %d outside [0, %d)", task, len(s.tasks))
	}
	return s.Env.Start(s.tasks[task], rng)
}
