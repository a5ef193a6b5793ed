package open_test

import (
	"fmt"
	"path/filepath"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

// Replay replays the transcripts an environment spec names — the --env of
// mpdf train and eval — ready for env.Play or a training run.
func ExampleReplay() {
	sp, err := replay.ParseSpec("replay:../../data/transcript/testdata/gsm_*.json,critic=on")
	if err != nil {
		panic(err)
	}
	e, err := open.Replay(sp, nil) // nil: no readability reports
	if err != nil {
		panic(err)
	}
	byModel, err := e.Grouper("model")
	if err != nil {
		panic(err)
	}
	fmt.Println(e.NumTasks(), "questions,", e.Rounds(), "rounds, model", byModel(0))
	// Output:
	// 2 questions, 2 rounds, model TinyModel
}

// What mpdf eval does, through the library: resolve the policies, open the
// environment a spec names, take one side of a split, play and judge.
func ExampleEnv() {
	var pols []metapolicy.Policy
	for _, spec := range []string{"majority", "gate"} {
		p, err := checkpoints.ResolvePolicy(spec) // or a .mpdf / .safetensors file
		if err != nil {
			panic(err)
		}
		pols = append(pols, p.Policy)
	}
	spec := "replay:" + filepath.Join("..", "..", "data", "transcript", "testdata", "*.json")
	e, rounds, err := open.Env(spec, open.Config{}) // or "sim"
	if err != nil {
		panic(err)
	}
	tasks, err := open.Tasks(e, "all", 0.3, 0, 0)
	if err != nil {
		panic(err)
	}
	rs, err := env.Evaluate(e, pols, env.RunOptions{Tasks: tasks, Episodes: 1, Rounds: rounds})
	if err != nil {
		panic(err)
	}
	fmt.Println(open.Title(e), "rounds", rounds)
	for _, r := range rs {
		fmt.Printf("%s: %d of %d correct\n", r.Policy, r.Correct, r.Scored)
	}
	// Output:
	// replay of 2 files (4 tasks, 4 distinct questions) rounds 2
	// majority: 4 of 4 correct
	// gate: 3 of 4 correct
}
