package transcript

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/stats"
)

// TestCriticOnRealFiles reads every shared transcript and measures the
// critic (answer.Critic) on every answer with a gold: per kind, the share
// of answers it checks (coverage) and the AUC with which its confidence
// ranks correct answers above wrong ones among those. It must check a fair
// share of the arithmetic kinds' answers and carry signal there; it must
// check none of mmlu's (it has nothing honest to read there). The table
// is logged (go test -run CriticOnRealFiles -v): the README's numbers.
func TestCriticOnRealFiles(t *testing.T) {
	paths := append(testenv.Debates(t, "slm-debate/*/*.json"), testenv.Debates(t, "more/*/*.json")...)
	type tally struct {
		answers, covered, failed int
		conf                     []float64
		correct                  []bool
	}
	by := map[answer.Kind]*tally{}
	for _, p := range paths {
		f, err := ReadFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range f.Questions {
			if q.Gold == "" {
				continue
			}
			k := by[q.Task]
			if k == nil {
				k = &tally{}
				by[q.Task] = k
			}
			for _, as := range q.Agents {
				for _, a := range as {
					k.answers++
					if a.Critic == nil {
						continue
					}
					k.covered++
					if *a.Critic == 0 {
						k.failed++
					}
					k.conf = append(k.conf, *a.Critic)
					k.correct = append(k.correct, a.Answer == q.Gold)
				}
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-10s %8s %8s %9s %10s %18s\n", "kind", "answers", "checked", "share", "conf = 0", "AUC correct|checked")
	for _, kind := range answer.Kinds {
		k := by[kind]
		if k == nil {
			continue
		}
		auc := stats.AUC(k.conf, k.correct)
		share := float64(k.covered) / float64(k.answers)
		fmt.Fprintf(&sb, "%-10s %8d %8d %8.1f%% %10d %18.3f\n", kind, k.answers, k.covered, 100*share, k.failed, auc)
		switch {
		case kind == answer.MMLU && k.covered > 0:
			t.Errorf("mmlu: the critic gave %d confidences, want none", k.covered)
		case slices.Contains([]answer.Kind{answer.GSM8K, answer.Arithmetic, answer.Math}, kind) && (share < 0.4 || !(auc > 0.55)):
			t.Errorf("%s: the critic checks %.1f%% of the answers with AUC %.3f; want ≥ 40%% and > 0.55", kind, 100*share, auc)
		}
	}
	t.Logf("the critic on the shared transcripts:\n%s", sb.String())
}
