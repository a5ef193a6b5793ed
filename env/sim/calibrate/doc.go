// Package calibrate fits the simulator (package env/sim) to recorded
// debates and checks the fit: [Transcripts] reads transcript files, fits
// sim.Params to their statistics and plays the fitted simulator on the
// same team sizes and round counts, so that every statistic and every
// feature's signal can be read side by side ([Calibration.WriteTable]).
// mpdf simulate --calibrate prints it; --params-out writes the parameters
// (env/sim/calibrated.json is such a file). [MeasureSimulatorSignals] says
// what each feature tells of correctness on the simulator alone (mpdf
// simulate --signals).
//
// The signals are package stats/correctness' [correctness.Tally]: one
// path from decisions to feature AUCs for the simulator, the transcripts
// and the signal study (study/signals).
//
// # Method
//
// sim.DebateStats measures, on debate episodes (real ones from
// transcript.ToEpisode, or the simulator's under the debate policy): how
// many agents of each team are right in round 0, unreadable answers, how
// often two wrong agents agree, every revision's outcome grouped by what
// the reviser saw (peers on the gold, on its own answer, on the top wrong
// answer), completion lengths, steps and hedges of right and wrong
// answers, and prompt sizes. sim.Fit turns them into sim.Params: a
// maximum-likelihood grid search for skill and difficulty spread (slope
// fixed at 6: only their ratio is identified), logistic regressions
// (Newton's method on the grouped counts) for fixing and breaking, ratio
// estimators for Conform, KeepWrong and BreakTo, log-normal and
// overdispersed-Poisson moments for lengths, steps and hedges, least
// squares for the refine prompt. The transcripts say nothing of a task's
// difficulty beyond what the team answers, so FixSkill and BreakGap are 0
// in a fit; the simulator's confidence signal has no counterpart in them
// (no judge or critic ran), so its coefficients keep hand-set values. FromStats fits, then
// plays debate on simulators of the real episodes' team sizes and round
// counts and reports every statistic and every feature's signal on both
// sides (mpdf simulate --calibrate prints it).
//
// correctness.Tally measures what each feature of metapolicy.Featurize says
// about correctness: the AUC of the feature as a score for "the agent's
// current answer is the gold", over every decision of the episodes
// tallied. On the calibrated simulator the agreement features (own_share,
// peer_agree, target_is_own) carry about what they carry in the real
// transcripts (AUC ≈ 0.84 both), length, steps and hedges about as much
// (AUC 0.3–0.46, longer answers being more often wrong); the confidence
// features, fed by the simulator's confidence signal, are the one planted
// signal with no real counterpart: conf has AUC ≈ 0.95 in the simulator
// and is missing in the transcripts. mpdf simulate --signals prints the table; --calibrate
// prints it next to the real one.
package calibrate
