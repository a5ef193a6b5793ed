// Package signals measures which state features carry signal for a
// meta-policy, before any of them is added to the featurizer (mpdf signal):
//
//	rep, err := signals.Measure(e, behaviour, signals.Options{}, signals.Candidates())
//	// rep.Rows: per feature, its AUC for each target
//
// For every decision a team makes in an environment, [Measure] computes each
// [Candidate] feature and the area under the ROC curve ([AUC]) with which
// that feature alone ranks four targets:
//
//   - correct: the agent's current answer (what it holds when it decides)
//     is the gold answer;
//   - fix: refining now would make the team answer correct — with the other
//     agents' actions of that round as the behaviour took them, the team
//     answer after the round is correct if the agent refines and not if it
//     persists;
//   - break: the reverse — refining makes a team answer that persisting
//     keeps correct wrong;
//   - fix|pivotal: fix, among the pivotal decisions only (fix or break):
//     whether the feature tells a refine that helps from one that hurts,
//     which is what a policy deciding when to refine needs.
//
// An AUC of 0.5 is no signal; 1 or 0 ranks perfectly (0: the feature is
// higher for the negatives). Each is also reported on the contested
// decisions only — those where the team does not agree unanimously on one
// readable answer — because on unanimous states agreement features predict
// correctness trivially and no action changes the team answer.
//
// The decisions are those of a behaviour policy (by default everyone
// refines: the recorded debate, whose states carry real answer histories),
// played with env.Play. The fix target is counterfactual: Measure replays
// the round with the agent's action switched (teacher.Play, from a fresh
// Start), so it needs an environment that is deterministic for a plan, as
// a replay is; Measure checks that replaying the behaviour's own actions
// reproduces each episode and refuses an environment that does not.
//
// Candidates lists the features measured: every feature of the current
// featurizer (metapolicy.FeatureVersion, by its constant's name) and
// candidate new ones computed from the episode's history (answer changes,
// majority growth, margins, length and hedging relative to peers).
//
// stats/correctness' Tally is the target correct alone, over the
// featurizer's features, on episodes read or played without replaying
// anything: the simulator's calibration (package env/sim/calibrate)
// compares real and simulated debates with it. It and [Measure] walk
// decisions the same way (correctness.EachDecision), so the two report
// the same features of the same decisions.
package signals
