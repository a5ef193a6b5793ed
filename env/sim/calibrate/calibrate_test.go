package calibrate

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats/correctness"
)

// sharedCorpus is every shared debate transcript the embedded fit was made on.
func sharedCorpus(t testing.TB) []string {
	t.Helper()
	return slices.Concat(testenv.Debates(t, "slm-debate/*/*.json"), testenv.Debates(t, "more/gsm/*.json"), testenv.Debates(t, "more/mmlu/*.json"))
}

func debate(t testing.TB) metapolicy.Policy {
	t.Helper()
	p, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCalibrateReport: FromStats' check plays the fitted simulator on the
// real episodes' shapes and fills both columns.
func TestCalibrateReport(t *testing.T) {
	s, err := sim.New(sim.Config{Tasks: 300})
	if err != nil {
		t.Fatal(err)
	}
	var stats sim.DebateStats
	var sig correctness.Tally
	err = env.Play(s, debate(t), env.RunOptions{Rounds: 2, Seed: 1}, func(ep *data.Episode) error {
		if err := stats.Add(ep); err != nil {
			return err
		}
		return sig.Add(ep)
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromStats(&stats, &sig, Options{Source: "test", Seed: 2, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c.RealEpisodes != 300 || c.SimEpisodes != 600 || c.Params.Source != "test" {
		t.Errorf("episodes %d real, %d simulated; source %q", c.RealEpisodes, c.SimEpisodes, c.Params.Source)
	}
	if len(c.RealSignals) != metapolicy.FeatureWidth || len(c.SimSignals) != metapolicy.FeatureWidth {
		t.Errorf("%d and %d signals", len(c.RealSignals), len(c.SimSignals))
	}
	var buf bytes.Buffer
	if err := c.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fitted parameters", "revision fixes a wrong answer", "AUC real", "own_share"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestEmbeddedCalibration: the simulator's embedded parameters are the
// fit to the shared corpus, as the command in their source field makes
// them (fields other than source must match exactly).
func TestEmbeddedCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the whole shared corpus")
	}
	var stats sim.DebateStats
	if _, err := AddTranscripts(sharedCorpus(t), transcript.Options{}, &stats, nil); err != nil {
		t.Fatal(err)
	}
	got, err := sim.Fit(&stats)
	if err != nil {
		t.Fatal(err)
	}
	want := sim.DefaultParams()
	got.Source = want.Source
	if got != want {
		t.Errorf("fit to the shared corpus differs from env/sim/calibrated.json: rerun\n  %s --params-out env/sim/calibrated.json\nfit %+v\nembedded %+v",
			want.Source, got, want)
	}
}

// TestTranscriptsNeedRevisions: transcripts without a revision of a right
// and of a wrong answer cannot be fitted, and the error names the files.
func TestTranscriptsNeedRevisions(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/gsm_one.json"
	doc := `{"q1": [[[{"role":"user","content":"q1"},{"role":"assistant","content":"\\boxed{5}"}],
	                 [{"role":"user","content":"q1"},{"role":"assistant","content":"\\boxed{6}"}]], "#### 6"]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Transcripts([]string{path}, transcript.Options{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "gsm_one.json") || !strings.Contains(err.Error(), "revisions") {
		t.Errorf("err %v, want one naming the file and the missing revisions", err)
	}
}

// The simulator's signals are correctness.Tally's of its debate episodes, and
// the text says which simulator, how many decisions and which seed.
func TestMeasureSimulatorSignals(t *testing.T) {
	opts := env.RunOptions{NumTasks: 20, Rounds: 2, Seed: 3, Workers: 2}
	got, err := MeasureSimulatorSignals(sim.Config{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	debate, _ := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	var tally correctness.Tally
	err = env.Play(s, debate, opts, tally.Add)
	want, n := tally.Signals(), tally.Decisions()
	if err != nil || got.Decisions != n || n == 0 || !slices.Equal(got.Signals, want) {
		t.Errorf("signals %+v, want %d decisions %v (%v)", got, n, want, err)
	}
	var b strings.Builder
	if err := got.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if head := fmt.Sprintf("over %d debate decisions, seed 3\n", n); !strings.Contains(b.String(), head) || !strings.Contains(b.String(), "simulated") {
		t.Errorf("text:\n%s", b.String())
	}
}
