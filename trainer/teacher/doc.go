// Package teacher finds, for one task of an environment, the best joint
// sequence of meta-actions in hindsight, and turns those sequences into
// supervised labels.
//
// In a replay of recorded transcripts (env/replay) every action's outcome
// is known in advance, so the actions that a team should have taken on a
// training question can be found by search rather than guessed by a
// heuristic. Search plays whole action plans through the env.Env/env.Game
// interface — every plan from a fresh Start with the same seed, so that a
// stateful game (a replay that counts an agent's revisions) is never
// branched mid-way — and keeps the best by
//
//	score = 1[final team answer correct] − λ·tokens/1000
//
// where tokens are all the tokens the episode spent (round 0 included; it
// is the same for every plan). This is the quantity an evaluation reports
// (accuracy and tokens per task) with design §2's token cost λ; the
// per-decision differential reward of design §2 is what SoftRankPO learns
// from, but its sum over an episode is not the team's result, so the
// teacher optimises the result. Ties go to fewer tokens, then to the plan
// whose actions, read round by round and agent by agent, come first in
// action order (persist < refine < concede): a consistent choice, so that
// equal states get equal labels.
//
// # Search
//
// With N agents and R rounds there are 3^(N·R) plans. Up to
// Config.MaxExhaustive plans (default 3^9: three agents, three rounds)
// Search tries them all and the result is the true optimum. Beyond, it runs
// per-agent coordinate ascent: from the best of the fixed protocols
// (everyone persists, everyone refines, everyone refines once then
// persists), it tries every 3^R sequence of one agent with the others
// fixed, keeps the best, and sweeps the agents until a sweep improves
// nothing. That result is a lower bound on the optimum, and Result says
// which was run.
//
// # Labels
//
// Labels plays each task's best plan once more and records, for every
// agent and round, the observation the agent saw and the action the plan
// gave it: the decisions a supervised stage clones (trainer.SFT). Only
// training tasks may be given: the plans are chosen knowing the gold answer.
//
// PivotalLabels is a second teacher: it keeps only the decisions of the
// majority protocol (everyone persists) whose action changes the team's
// result, labelled with the best action, so that a cloned policy learns
// when a refine helps rather than that it is rarely needed.
//
// PivotalOver is the third, and the replay recipe's (trainer.ReplayLabels,
// "pivotal:gate"): it plays a fixed protocol (gate) and labels every one of
// its decisions, with the best action where the agent's action changes
// whether the team is right, and with the protocol's own action elsewhere.
// Where hindsight is silent the clone then keeps the protocol's prior
// (refine when round 0 disagrees) instead of generalising "persist" from
// the few pivotal decisions, which on models whose revisions mostly fix
// costs accuracy (docs/results.md, 2026-12-01).
//
// # Training
//
// RunTeacher makes any of them (trainer.Config.SFT.Labels "hindsight",
// "pivotal[:K]" or "pivotal:P") the supervised stage of a trainer/run.Train, the one
// training run of the project: `mpdf train --sft-labels pivotal` uses it
// online. Train has study.Trainer's signature: that run in memory, the
// teacher's clone then SoftRankPO (trainer.RL.Iterate, in the layout
// trainer.Config.Features). `mpdf study --sft-labels hindsight|pivotal`
// runs it per fold, on the training folds only. A task's hindsight plan
// is searched once per process and configuration and reused by every fold
// that trains on it, through any view of its Env (env.Source).
//
// On a replay a task is searched and labelled over its own recorded
// rounds (env.RoundsOf), not the most any file recorded.
//
// Search on a game that draws randomness (the simulator) is deterministic
// for a seed, but a plan's outcome there is one draw, not an expectation.
package teacher
