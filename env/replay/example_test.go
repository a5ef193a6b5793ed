package replay_test

import (
	"fmt"

	"github.com/mpdf/mpdf/env/replay"
)

// Open replays the transcripts an environment spec names — the --env of
// mpdf train and eval — ready for env.Run or a training run.
func ExampleOpen() {
	sp, err := replay.ParseSpec("replay:../../data/transcript/testdata/gsm_*.json,critic=on")
	if err != nil {
		panic(err)
	}
	e, err := replay.Open(sp, nil) // nil: no readability reports
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
