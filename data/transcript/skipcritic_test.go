package transcript

import (
	"os"
	"testing"

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
