package env_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
)

// Unordered delivery gives the ordered run's episodes, each once, whatever
// the workers; Index puts them back in order, and Skip leaves out exactly
// the episodes it names while the others stay as they were.
func TestPlayUnorderedSameEpisodes(t *testing.T) {
	s := newSim(t, sim.Config{})
	p := heuristic(t, "random")
	tasks := []int{3, 0, 7, 5, 1, 9}
	opts := env.RunOptions{Tasks: tasks, Episodes: 2, Seed: 5, Workers: 1}
	want, err := env.Collect(s, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	place := map[string]int{}
	for i, ep := range want {
		place[ep.ID] = i
	}
	for _, w := range []int{1, 3, 16} {
		opts := opts
		opts.Workers, opts.Unordered = w, true
		got := make([]data.Episode, len(want))
		seen := 0
		err := env.Play(s, p, opts, func(ep *data.Episode) error {
			i, ok := place[ep.ID]
			if !ok || got[i].ID != "" {
				t.Fatalf("workers=%d: episode %q unknown or delivered twice", w, ep.ID)
			}
			got[i] = *ep
			seen++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if seen != len(want) {
			t.Fatalf("workers=%d: %d episodes, want %d", w, seen, len(want))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("workers=%d: unordered episodes differ (-ordered +unordered):\n%s", w, d)
		}
	}
	if env.Index(2, 1, 2) != place[want[5].ID] {
		t.Errorf("Index(2, 1, 2) = %d, want 5", env.Index(2, 1, 2))
	}
	opts.Unordered, opts.Workers = true, 4
	opts.Skip = func(task, ep int) bool { return task == 7 || (task == 1 && ep == 0) }
	var got []string
	err = env.Play(s, p, opts, func(ep *data.Episode) error {
		if d := cmp.Diff(want[place[ep.ID]], *ep); d != "" {
			t.Errorf("with Skip, episode %s changed:\n%s", ep.ID, d)
		}
		got = append(got, ep.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want)-3 {
		t.Errorf("with Skip: %d episodes, want %d", len(got), len(want)-3)
	}
}
