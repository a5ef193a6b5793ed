package teacher

import (
	"slices"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

func TestTrainClonesThePlan(t *testing.T) {
	e := handBuilt(t)
	for _, version := range []string{"", metapolicy.FeatureVersionV2} {
		cfg := trainer.DefaultConfig()
		cfg.Features = version
		cfg.SFT.Labels = LabelsName
		cfg.SFT.Epochs, cfg.SFT.BatchSize, cfg.SFT.LR = 300, 8, 1e-2
		cfg.RL.Iterations, cfg.RL.Rounds = 0, 2
		pol, err := Train(e, cfg)
		if err != nil {
			t.Fatal(err)
		}
		eps, err := env.Collect(e, metapolicy.GreedyPolicy{Policy: pol}, env.RunOptions{Rounds: 2, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got []metapolicy.Action
		for _, r := range eps[0].Rounds[1:] {
			for _, turn := range r.Turns {
				got = append(got, *turn.Action)
			}
		}
		p, r := metapolicy.Persist, metapolicy.Refine
		if want := []metapolicy.Action{p, p, p, r, p, p}; !slices.Equal(got, want) {
			t.Errorf("features %q: greedy clone plays %v, want the plan ppp|rpp", version, got)
		}
		if team := data.TeamAnswer(eps[0].Rounds[2].Turns); team != "7" {
			t.Errorf("features %q: team answer %q, want 7", version, team)
		}
	}
}

func TestTrainDeterministic(t *testing.T) {
	e := handBuilt(t)
	cfg := trainer.DefaultConfig()
	cfg.Features = metapolicy.FeatureVersionV2
	cfg.SFT.Labels = PivotalName + ":1"
	cfg.SFT.Epochs, cfg.SFT.BatchSize = 3, 4
	cfg.RL.Iterations, cfg.RL.Rounds, cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask = 2, 2, 1, 4
	var nets [2][]float32
	for k := range nets {
		pol, err := Train(e, cfg)
		if err != nil {
			t.Fatal(err)
		}
		nets[k] = pol.(*metapolicy.FeaturizedPolicy).Net.Params
	}
	if !slices.Equal(nets[0], nets[1]) {
		t.Error("two runs with the same config trained different weights")
	}
	cfg.Features = "mpdf-features/v0"
	if _, err := Train(e, cfg); err == nil {
		t.Error("unknown feature version accepted")
	}
}

// In the hand-built replay only agent 0's refine changes the team result
// (3 → 7), in either round; every other decision is the same whatever the
// action, and is left out.
func TestPivotalLabels(t *testing.T) {
	e := handBuilt(t)
	x, acts, seen, err := PivotalLabels(e, []int{0}, 2, 0, 0, metapolicy.FeatureWidth, metapolicy.Featurize)
	if err != nil {
		t.Fatal(err)
	}
	r := uint8(metapolicy.Refine)
	if seen != 6 || !slices.Equal(acts, []uint8{r, r}) || len(x) != 2*metapolicy.FeatureWidth {
		t.Errorf("seen %d, labels %v (%d features); want 6, [refine refine] (%d)", seen, acts, len(x), 2*metapolicy.FeatureWidth)
	}
	// With a token cost every refine costs something: all six are labelled,
	// persist except agent 0's two refines (1 − 0.1 > 0).
	_, acts, _, err = PivotalLabels(e, []int{0}, 2, 1, 0, metapolicy.FeatureWidth, metapolicy.Featurize)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint8{r, 0, 0, r, 0, 0}; !slices.Equal(acts, want) {
		t.Errorf("λ=1: labels %v, want %v", acts, want)
	}
}

func TestHandles(t *testing.T) {
	for l, want := range map[string]bool{
		"hindsight": true, "pivotal": true, "pivotal:0": true, "pivotal:3": true,
		"pivotal:-1": false, "pivotal:x": false, "threshold": false, "": false,
		"pivotal:gate": true, "pivotal:until-consensus": true, "pivotal:majority": true,
		"pivotal:random": false, "pivotal:refine": false, "pivotal:threshold": false, "gate": false,
	} {
		if got := Handles(l); got != want {
			t.Errorf("Handles(%q) = %v, want %v", l, got, want)
		}
	}
}

// DAgger rounds label the clone's own states and train again; on the
// hand-built replay the final clone still makes the team right.
func TestTrainPivotalDagger(t *testing.T) {
	e := handBuilt(t)
	cfg := trainer.DefaultConfig()
	cfg.SFT.Labels = PivotalName + ":2"
	cfg.SFT.Epochs, cfg.SFT.BatchSize, cfg.SFT.LR = 200, 8, 1e-2
	cfg.RL.Iterations, cfg.RL.Rounds = 0, 2
	pol, err := Train(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := env.Collect(e, metapolicy.GreedyPolicy{Policy: pol}, env.RunOptions{Rounds: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if team := data.TeamAnswer(eps[0].Rounds[2].Turns); team != "7" {
		t.Errorf("team answer %q after DAgger, want 7", team)
	}
}

// Over gate, every decision is labelled: gate refines every round of the
// hand-built replay (round 0 disagrees), and only agent 0's refine in
// round 1 and agent 2's choice in round 1 (conceding to 3, 3 makes the
// team wrong) change the result. At λ = 0 persist and refine tie there,
// and the tie goes to gate's refine; at λ = 1 persist is cheaper and wins
// that pivotal decision, while the decisions that change nothing keep
// gate's refine (the pivotal teacher would leave them out, or label them
// persist at λ > 0).
func TestPivotalOver(t *testing.T) {
	e := handBuilt(t)
	gate, err := metapolicy.NewHeuristic(metapolicy.HeuristicGate)
	if err != nil {
		t.Fatal(err)
	}
	p, r := uint8(metapolicy.Persist), uint8(metapolicy.Refine)
	for _, c := range []struct {
		lambda float64
		want   []uint8
	}{
		{0, []uint8{r, r, r, r, r, r}},
		{1, []uint8{r, r, p, r, r, r}},
	} {
		x, acts, seen, err := PivotalOver(e, []int{0}, gate, 2, c.lambda, 0, metapolicy.FeatureWidth, metapolicy.Featurize)
		if err != nil {
			t.Fatal(err)
		}
		if seen != 6 || !slices.Equal(acts, c.want) || len(x) != 6*metapolicy.FeatureWidth {
			t.Errorf("λ=%v: seen %d, labels %v (%d features); want 6, %v (%d)", c.lambda, seen, acts, len(x), c.want, 6*metapolicy.FeatureWidth)
		}
	}
	// Over majority (everyone persists) the pivotal decisions are the
	// pivotal teacher's, and the rest are labelled persist.
	maj, _ := metapolicy.NewHeuristic(metapolicy.HeuristicMajority)
	_, acts, _, err := PivotalOver(e, []int{0}, maj, 2, 0, 0, metapolicy.FeatureWidth, metapolicy.Featurize)
	if want := []uint8{r, p, p, r, p, p}; err != nil || !slices.Equal(acts, want) {
		t.Errorf("over majority: labels %v (%v), want %v", acts, err, want)
	}
	if _, _, _, err := PivotalOver(e, []int{0}, nil, 2, 0, 0, metapolicy.FeatureWidth, metapolicy.Featurize); err == nil {
		t.Error("no base policy accepted")
	}
}

// "pivotal:gate" trains on PivotalOver gate: the clone plays the labels.
func TestTrainPivotalOverGate(t *testing.T) {
	e := handBuilt(t)
	cfg := trainer.DefaultConfig()
	cfg.SFT.Labels = PivotalName + ":" + metapolicy.HeuristicGate
	cfg.SFT.Epochs, cfg.SFT.BatchSize, cfg.SFT.LR = 200, 8, 1e-2
	cfg.RL.Iterations, cfg.RL.Rounds = 0, 2
	cfg.Reward.Lambda = 1
	pol, err := Train(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := env.Collect(e, metapolicy.GreedyPolicy{Policy: pol}, env.RunOptions{Rounds: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := teacherPlan(&eps[0]); got != "rrp|rrr" {
		t.Errorf("clone plays %s, want the labels rrp|rrr", got)
	}
}

// teacherPlan is the plan an episode played, as Plan.String writes it.
func teacherPlan(ep *data.Episode) string {
	p := Plan{}
	for _, r := range ep.Rounds[1:] {
		row := []metapolicy.Action{}
		for _, t := range r.Turns {
			row = append(row, *t.Action)
		}
		p = append(p, row)
	}
	return p.String()
}

// A run with a network per slot comes back as a policy that dispatches on
// the slot (the study's trainer plays it so), not as its first network.
func TestTrainDecoupled(t *testing.T) {
	e := handBuilt(t)
	cfg := trainer.DefaultConfig()
	cfg.Features = metapolicy.FeatureVersionV2
	cfg.SFT.Labels = PivotalName
	cfg.SFT.Epochs, cfg.SFT.BatchSize = 3, 4
	cfg.RL.Iterations, cfg.RL.Rounds, cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask = 2, 2, 1, 4
	cfg.AgentPolicy = string(metapolicy.AgentSlot)
	pol, err := Train(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := pol.(*metapolicy.DecoupledPolicy)
	if !ok || d.By != metapolicy.AgentSlot || len(d.Keys) == 0 {
		t.Fatalf("policy %T %+v, want one decoupled by slot", pol, pol)
	}
}
