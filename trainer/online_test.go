package trainer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// goldEnv is a team of two that always answers "7": the task's gold is "7"
// for the first scored tasks and unknown ("") for the rest.
type goldEnv struct{ tasks, scored int }

func (e goldEnv) Name() string  { return "gold-test" }
func (e goldEnv) NumTasks() int { return e.tasks }
func (e goldEnv) Start(task int, _ *rand.Rand) (env.Game, error) {
	g := &goldGame{id: fmt.Sprint("t", task)}
	if task < e.scored {
		g.gold = "7"
	}
	return g, nil
}

type goldGame struct{ id, gold string }

func (g *goldGame) Task() (string, string, string) { return g.id, "", g.gold }
func (g *goldGame) Agents() int                    { return 2 }
func (g *goldGame) Initial() ([]data.Turn, error) {
	return []data.Turn{{Answer: "7", Tokens: 10}, {Answer: "7", Tokens: 10}}, nil
}
func (g *goldGame) Step(_, _ int, _ metapolicy.Action, _ []data.Turn) (data.Turn, error) {
	return data.Turn{Answer: "7", Tokens: 5}, nil
}

// TestIterateTeamAccuracyScoredOnly: episodes without gold are unknown,
// not wrong, so a team right on every scored episode has accuracy 1 however
// many unscored ones were sampled (it was scored/all = 0.5 here).
func TestIterateTeamAccuracyScoredOnly(t *testing.T) {
	cfg := smallConfig()
	cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask, cfg.RL.Rounds = 4, 2, 2
	rl := newTestRL(t, cfg, metapolicy.FeatureWidth)
	res, err := rl.Iterate(goldEnv{tasks: 4, scored: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != 8 || res.NoGold != 4 {
		t.Fatalf("episodes %d, no gold %d; want 8 and 4", res.Episodes, res.NoGold)
	}
	if res.TeamAcc != 1 {
		t.Errorf("team accuracy %v, want 1 (4 scored episodes, all right)", res.TeamAcc)
	}
}
