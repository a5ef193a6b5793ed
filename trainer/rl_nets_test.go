package trainer

import (
	"slices"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// Under agent policy model an agent naming no backbone model has no
// network: the fallback plays it, and its decisions are dropped from the
// update (the fallback does not train); the others train their model's.
func TestKeepTrainableDropsAgentsWithoutModel(t *testing.T) {
	r := &RL{cfg: Config{AgentPolicy: "model"}}
	turns := func(models ...string) data.Round {
		var rd data.Round
		for _, m := range models {
			rd.Turns = append(rd.Turns, data.Turn{Model: m})
		}
		return rd
	}
	ep := &data.Episode{ID: "e", Rounds: []data.Round{turns("a", "", "a"), turns("a", "", "a"), turns("a", "", "a")}}
	var ds []data.Decision
	for i := range 6 {
		ds = append(ds, data.Decision{Reward: float64(i)})
	}
	kept, nets, dropped, err := r.keepTrainable(ds, nil, ep)
	if err != nil {
		t.Fatal(err)
	}
	var rewards []float64
	for _, d := range kept {
		rewards = append(rewards, d.Reward)
	}
	if !slices.Equal(rewards, []float64{0, 2, 3, 5}) || !slices.Equal(nets, []int32{0, 0, 0, 0}) || dropped != 2 {
		t.Errorf("kept rewards %v, networks %v, dropped %d; want 0 2 3 5 (agents 0 and 2), all network 0, 2 dropped", rewards, nets, dropped)
	}
	if !slices.Equal(r.NetKeys(), []string{"model:a"}) {
		t.Errorf("networks %q, want only model:a", r.NetKeys())
	}
	if _, _, _, err := r.keepTrainable(ds[:5], nil, ep); err == nil {
		t.Error("5 decisions for 6 turns were accepted")
	}
}
