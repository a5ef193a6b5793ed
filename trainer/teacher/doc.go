// Package teacher labels decisions by hindsight: for each training task of
// an environment it finds the best joint sequence of meta-actions, and turns
// those sequences into the supervised labels that a training run clones
// before SoftRankPO.
//
// # Use
//
// From the command line, `mpdf train --sft-labels hindsight|pivotal` and
// `mpdf study --sft-labels hindsight|pivotal` train through this package. In
// Go, [RunTeacher] makes the teacher that trainer.Config.SFT.Labels names
// ("hindsight", "pivotal[:K]" or "pivotal:P") the supervised stage of a
// trainer/run training run (its run.Config.Teacher), and [Train] is that
// run in memory, with study.Trainer's signature.
//
// # What the teachers label
//
// In a replay of recorded transcripts (env/replay) every action's outcome
// is known in advance, so [Search] plays whole action plans ([Plan]) and
// keeps the best by
//
//	score = 1[final team answer correct] − λ·tokens/1000
//
// (ties to fewer tokens, then to the plan first in action order): the
// quantity an evaluation reports, with design §2's token cost λ. Up to
// [Config].MaxExhaustive plans the search is exhaustive; beyond, it is a
// coordinate ascent, and [Result] says which was run. [SearchTasks]
// searches many tasks at once.
//
//   - [Labels] (hindsight) records, for every agent and round of each
//     task's best plan, the observation the agent saw and the action the
//     plan gave it.
//   - [PivotalLabels] keeps only the decisions of the majority protocol
//     whose action changes the team's result, labelled with the best
//     action.
//   - [PivotalOver] ("pivotal:gate", the replay recipe's) labels every
//     decision of a fixed protocol: the best action where the agent's
//     action changes whether the team is right, the protocol's own
//     elsewhere.
//
// Only training tasks may be given: the plans are chosen knowing the gold
// answer. [Summarize] reports the hindsight optimum against the fixed
// protocols (mpdf hindsight). How the search, the ties and the caching work
// is beside their code: search.go, pivotal.go, train.go.
package teacher
