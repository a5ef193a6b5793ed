package checkpoints

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// saveRun writes a checkpoint whose header records the data position pos.
func saveRun(t *testing.T, dir, name, pos string) string {
	t.Helper()
	c := newTrainState(t, []int{metapolicy.FeatureWidth, 8, 3}, nn.Tanh, 3).checkpoint(t)
	c.Header.DataPos = []byte(pos)
	path := filepath.Join(dir, name)
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// ResolvePolicy reads what a checkpoint says of its run from one read: the
// replay it trained on, its split and its confidence source; a heuristic
// is not learned; a safetensors export takes its confidence from its
// metadata.
func TestResolvePolicy(t *testing.T) {
	dir := t.TempDir()
	path := saveRun(t, dir, "a.mpdf", `{"mode":"online","iter":2,"env":"replay:x/*.json,critic=on","held_out":0.3,"split_seed":7}`)
	r, err := ResolvePolicy(" " + path + " ")
	if err != nil {
		t.Fatal(err)
	}
	want := ReplaySplit{Env: "replay:x/*.json,critic=on", HeldOut: 0.3, SplitSeed: 7}
	if !r.Learned || r.Path != path || r.Name() != "a.mpdf" || r.Split == nil || *r.Split != want ||
		r.TrainedEnv != want.Env || r.Confidence != ConfidenceTextCritic {
		t.Errorf("resolved %+v (split %v)", r, r.Split)
	}

	sim := saveRun(t, dir, "sim.mpdf", `{"mode":"online","iter":2,"env":"sim"}`)
	if r, err := ResolvePolicy(sim); err != nil || r.Split != nil || r.TrainedEnv != "" || r.Confidence != ConfidenceGiven {
		t.Errorf("simulator run: %+v, %v", r, err)
	}
	noSplit := saveRun(t, dir, "all.mpdf", `{"mode":"online","iter":2,"env":"replay:y.json"}`)
	if r, err := ResolvePolicy(noSplit); err != nil || r.Split != nil || r.TrainedEnv != "replay:y.json" || r.Confidence != ConfidenceNone {
		t.Errorf("replay run without held-out questions: %+v, %v", r, err)
	}
	bad := saveRun(t, dir, "bad.mpdf", `{"mode":"online","held_out":"most"}`)
	if _, err := ResolvePolicy(bad); err == nil || !strings.Contains(err.Error(), "data position") {
		t.Errorf("a data position of the wrong shape: %v, want an error naming it", err)
	}

	c := newTrainState(t, []int{metapolicy.FeatureWidth, 8, 3}, nn.Tanh, 3).checkpoint(t)
	st := filepath.Join(dir, "p.safetensors")
	meta := map[string]string{MetaFeatureVersion: metapolicy.FeatureVersion, MetaConfidenceSource: ConfidenceNone}
	if err := SaveSafetensors(st, c.Policy, meta); err != nil {
		t.Fatal(err)
	}
	if r, err := ResolvePolicy(st); err != nil || !r.Learned || r.Confidence != ConfidenceNone || r.Split != nil {
		t.Errorf("safetensors: %+v, %v", r, err)
	}

	if r, err := ResolvePolicy("gate"); err != nil || r.Learned || r.Name() != "gate" {
		t.Errorf("heuristic: %+v, %v", r, err)
	}
	for _, spec := range []string{"", "nonsense", filepath.Join(dir, "none.mpdf")} {
		if _, err := ResolvePolicy(spec); err == nil {
			t.Errorf("ResolvePolicy(%q): no error", spec)
		}
	}
}

// The critic-mismatch rule: a policy trained with the text critic played
// without it, or played with it after training on another confidence.
func TestCriticMismatch(t *testing.T) {
	for _, c := range []struct {
		src    string
		critic bool
		want   bool
	}{
		{ConfidenceTextCritic, true, false}, {ConfidenceTextCritic, false, true},
		{ConfidenceNone, true, true}, {ConfidenceNone, false, false},
		{ConfidenceGiven, true, true}, {ConfidenceGiven, false, false},
		{ConfidenceUnknown, true, true}, {ConfidenceUnknown, false, false},
	} {
		if got := CriticMismatch(c.src, c.critic); got != c.want {
			t.Errorf("CriticMismatch(%s, %v) = %v, want %v", c.src, c.critic, got, c.want)
		}
	}
}

// What a set of policies says of where to evaluate them: the replay they
// trained on, their split, who read the text critic; disagreements are
// errors naming both.
func TestPoliciesAgree(t *testing.T) {
	pa, _ := metapolicy.ParseHeuristic("gate")
	pb, _ := metapolicy.ParseHeuristic("debate")
	a := Resolved{Policy: pa, Path: "a.mpdf", Learned: true, TrainedEnv: "replay:a", Confidence: ConfidenceTextCritic,
		Split: &ReplaySplit{Env: "replay:a", HeldOut: 0.3, SplitSeed: 1}}
	b := Resolved{Policy: pb, Path: "b.mpdf", Learned: true, TrainedEnv: "replay:b", Confidence: ConfidenceNone,
		Split: &ReplaySplit{Env: "replay:b", HeldOut: 0.5, SplitSeed: 2}}
	h := Resolved{Policy: pb}
	if spec, from, err := TrainedReplay([]Resolved{h, a, a}); err != nil || spec != "replay:a" || from != "a.mpdf" {
		t.Errorf("TrainedReplay: %q %q %v", spec, from, err)
	}
	if _, _, err := TrainedReplay([]Resolved{a, b}); err == nil || !strings.Contains(err.Error(), "a.mpdf trained on replay:a and b.mpdf on replay:b") || !errors.Is(err, ErrTrainedEnvs) {
		t.Errorf("TrainedReplay of two replays: %v", err)
	}
	if sp, _, err := HeldOutSplit([]Resolved{h}, false); sp != nil || err != nil {
		t.Errorf("HeldOutSplit of a heuristic: %v %v", sp, err)
	}
	if _, _, err := HeldOutSplit([]Resolved{a, b}, false); err == nil || !errors.Is(err, ErrTrainedSplits) {
		t.Errorf("HeldOutSplit of two splits: %v, want ErrTrainedSplits", err)
	}
	if sp, _, err := HeldOutSplit([]Resolved{a, b}, true); err != nil || *sp != *b.Split {
		t.Errorf("HeldOutSplit given: %v %v, want the last", sp, err)
	}
	if on, with, err := TextCritic([]Resolved{h, a, a}); !on || len(with) != 2 || with[0] != "gate" || err != nil {
		t.Errorf("TextCritic: %v %v %v", on, with, err)
	}
	if on, _, err := TextCritic([]Resolved{h, b}); on || err != nil {
		t.Errorf("TextCritic without: %v %v", on, err)
	}
	if _, _, err := TextCritic([]Resolved{a, b}); err == nil || !strings.Contains(err.Error(), "gate trained with the text critic (critic=on) and debate without") || !errors.Is(err, ErrTrainedCritics) {
		t.Errorf("TextCritic of both: %v", err)
	}
}

// A run directory given as a policy is refused with its best.mpdf named
// (issue 33); a directory without one is refused as a directory.
func TestResolvePolicyDirSuggestsBest(t *testing.T) {
	dir := t.TempDir()
	if _, err := ResolvePolicy(dir); err == nil || !strings.Contains(err.Error(), "a directory") || strings.Contains(err.Error(), BestName) {
		t.Errorf("empty directory: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, BestName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ResolvePolicy(dir); err == nil || !strings.Contains(err.Error(), "give its checkpoint, "+filepath.Join(dir, BestName)) {
		t.Errorf("run directory: %v", err)
	}
}
