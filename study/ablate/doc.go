// Package ablate runs the study's ablations (mpdf study --ablate): each
// setting of one ([AblationSettings]: estimators, τ, reward scales, γ,
// losses, agent policies, architectures, where RL on a replay gets a
// signal; team sizes through [AblateTeams]) cross-validated with the
// study's folds, seeds and paired intervals ([Ablate]: ablation.md,
// ablation.json), and the stability study ([RunStability]): SoftRankPO,
// GRPO and Dr.GRPO trained once per seed on one split, their held-out
// accuracy as bands over the seeds.
//
//	a, err := ablate.Ablate(e, study.DefaultConfig(), ablate.AblateGamma)
//	err = a.WriteMarkdown(os.Stdout)
//
// [CrossValidateOrAblate] writes a study, an ablation or the stability
// study into a study.Dir, as the command does.
package ablate
