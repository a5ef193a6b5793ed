package teacher

import (
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// Fallback adapts cfg to what its teacher can label in e (the training
// tasks): the hindsight and pivotal teachers label only questions with a
// gold answer and at least one deliberation round. When no task has both,
// the supervised stage is skipped (SFT.Epochs 0: the run trains online
// only) and note says so; when some lack them, cfg is unchanged and note
// says how many the teacher labels. A heuristic teacher, or a skipped
// stage, returns cfg unchanged and no note.
func Fallback(e env.Env, cfg trainer.Config) (trainer.Config, string, error) {
	if !Handles(cfg.SFT.Labels) || cfg.SFT.Epochs == 0 {
		return cfg, "", nil
	}
	n := e.NumTasks()
	noGold, noRound := 0, 0
	for task := range n {
		g, err := e.Start(task, rand.New(rand.NewPCG(cfg.Seed, uint64(task))))
		if err != nil {
			return cfg, "", fmt.Errorf("teacher: %s: task %d: %w", e.Name(), task, err)
		}
		_, _, gold := g.Task()
		switch {
		case gold == "":
			noGold++
		case env.RoundsOf(e, task, cfg.RL.Rounds) < 1:
			noRound++
		}
	}
	labelled := n - noGold - noRound
	switch {
	case labelled == n:
		return cfg, "", nil
	case labelled > 0:
		return cfg, fmt.Sprintf("the %s teacher labels %d of the %d training questions (%d have no gold answer, %d record no deliberation round)",
			cfg.SFT.Labels, labelled, n, noGold, noRound), nil
	}
	cfg.SFT.Epochs = 0
	why := "has a gold answer"
	if noGold == 0 {
		why = "records a deliberation round"
	}
	note := fmt.Sprintf("the %s teacher has nothing to label (none of the %d training questions %s): supervised stage skipped, training online only (sft.epochs 0)",
		cfg.SFT.Labels, n, why)
	if noGold == n {
		note += "; without gold answers the reward has no correctness to score either"
	}
	return cfg, note, nil
}

// Online sets up the supervised stage of an online run rc (its Env and
// Train set): a fresh run falls back as Fallback says, the note (if any)
// added to rc.Notes and returned; a teacher this package handles labels
// the stage (RunTeacher). A resumed run keeps its config.
func Online(rc *run.Config) (note string, err error) {
	if rc.Resume == nil {
		if rc.Train, note, err = Fallback(rc.Env, rc.Train); err != nil {
			return "", err
		}
		if note != "" {
			rc.Notes = append(rc.Notes, note)
		}
	}
	if Handles(rc.Train.SFT.Labels) {
		if rc.Teacher, err = RunTeacher(rc.Train); err != nil {
			return note, errmark.Mark(err, ErrLabels)
		}
	}
	return note, nil
}

// ErrLabels marks the error of the teacher the supervised labels name
// (SFT.Labels), which cannot label the run.
var ErrLabels = errmark.Of("sft_labels", "sft labels")
