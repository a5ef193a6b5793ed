package open

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/errmark"
)

// Tasks lists the tasks of e to play: one side ("train" or "test") of the
// split by heldOut and seed (replay.Env.Split on a replay, which keeps a question
// on one side, else replay.Split) or all ("" or "all"), then the first n of them
// (0 = all).
func Tasks(e env.Env, side string, heldOut float64, seed uint64, n int) ([]int, error) {
	if n < 0 {
		return nil, errmark.Bad("replay", "tasks", n, "want ≥ 0 (0: all)")
	}
	list, err := sideOf(e, side, heldOut, seed)
	if err != nil {
		return nil, err
	}
	if n > len(list) {
		what := "the environment has"
		if side != "" && side != "all" {
			what = "the " + side + " side has"
		}
		return nil, errmark.Mark(errmark.Bad("replay", "tasks", n, fmt.Sprintf("%s %d tasks", what, len(list))), env.ErrTasks)
	}
	if n > 0 {
		list = list[:n]
	}
	if len(list) == 0 {
		return nil, errmark.Mark(fmt.Errorf("no task to play (the %s side is empty)", side), ErrEmptySide)
	}
	return list, nil
}

// sideOf lists the tasks of one side of the split, or all.
func sideOf(e env.Env, side string, heldOut float64, seed uint64) ([]int, error) {
	if side == "" || side == "all" {
		list := make([]int, e.NumTasks())
		for i := range list {
			list[i] = i
		}
		return list, nil
	}
	var train, test []int
	var err error
	if r, ok := e.(*replay.Env); ok {
		train, test, err = r.Split(heldOut, seed)
	} else {
		train, test, err = replay.Split(e.NumTasks(), heldOut, seed)
	}
	if err != nil {
		return nil, errmark.Mark(err, ErrSplit)
	}
	switch side {
	case "train":
		return train, nil
	case "test":
		return test, nil
	}
	return nil, errmark.Mark(fmt.Errorf("%q: want train or test (or all)", side), ErrSplit)
}

// Title names e in a report's heading: its Name, or for a replay of
// several files (whose Name lists them all) their count, its tasks (a
// question of one file) and its distinct questions.
func Title(e env.Env) string {
	name := e.Name()
	if r, ok := e.(*replay.Env); ok && strings.Count(name, ",") > 0 {
		return fmt.Sprintf("replay of %d files (%s)", strings.Count(name, ",")+1, replay.Counts(r))
	}
	return name
}
