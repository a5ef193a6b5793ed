package transcript

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/internal/testenv"
)

// criticCounts reads the files with opts and counts the answers with a
// critic's confidence, and all answers.
func criticCounts(t *testing.T, paths []string, opts Options) (withCritic, answers int) {
	t.Helper()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Each(f, p, opts, func(q *Question) error {
			for _, as := range q.Agents {
				for _, a := range as {
					answers++
					if a.Critic != nil {
						withCritic++
					}
				}
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return withCritic, answers
}

// SkipCritic leaves every Answer.Critic nil; by default the critic is read
// (a replay may play with it).
func TestSkipCritic(t *testing.T) {
	paths := testenv.Debates(t, "slm-debate/gsm/*.json")[:2]
	on, n := criticCounts(t, paths, Options{})
	off, m := criticCounts(t, paths, Options{SkipCritic: true})
	if n == 0 || n != m {
		t.Fatalf("%d and %d answers", n, m)
	}
	if on == 0 || off != 0 {
		t.Errorf("answers with a critic's confidence: %d by default, %d skipped; want > 0 and 0", on, off)
	}
}

// Question.WithCritic reads what Read reads with the critic on: questions
// read without it and then given it equal those read with it (a GSM and an
// MMLU file: the critic checks GSM's arithmetic and nothing of MMLU's).
func TestWithCriticAsRead(t *testing.T) {
	paths := append(testenv.Debates(t, "slm-debate/gsm/*.json")[:1], testenv.Debates(t, "slm-debate/mmlu/*.json")[:1]...)
	for _, p := range paths {
		on, err := ReadFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		off, err := ReadFile(p, Options{SkipCritic: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(on.Questions) == 0 || len(on.Questions) != len(off.Questions) {
			t.Fatalf("%s: %d and %d questions", p, len(on.Questions), len(off.Questions))
		}
		for i := range off.Questions {
			q := &off.Questions[i]
			got := q.WithCritic()
			if d := cmp.Diff(on.Questions[i], got); d != "" {
				t.Fatalf("%s: question %d: WithCritic differs from reading with the critic (-read with it +WithCritic):\n%s", p, i, d)
			}
			for _, as := range q.Agents {
				for _, a := range as {
					if a.Critic != nil {
						t.Fatalf("%s: question %d: WithCritic changed the question it was called on", p, i)
					}
				}
			}
		}
	}
}
