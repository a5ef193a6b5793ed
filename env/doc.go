// Package env runs deliberations. An Env supplies tasks and what each
// meta-action does to an agent (env.go); Run lets any metapolicy.Policy,
// learned or heuristic, drive a team through the rounds and streams the
// resulting data.Episodes with the behaviour log-probability of every
// decision; Evaluate scores policies against each other. The Simulator is
// the embedded default environment, so that everything runs without an LLM.
//
// # Running
//
// An episode is round 0 (every agent answers alone, Game.Initial) followed
// by R deliberation rounds (RunOptions.Rounds, default 3). In round t every
// agent's action is chosen from the states of round t−1 — simultaneously:
// all agents see the same states, none sees another's round-t choice — by
// metapolicy.Sample (or metapolicy.Greedy), and recorded in the turn with
// its log-probability (≤ 0). Then Game.Step produces each agent's new turn.
//
// Episode e of task k draws from two random streams seeded by (Seed, k, e):
// one for the Env, one for the policy's sampling. Episodes therefore do not
// depend on each other or on how many workers play them, and Run delivers
// them in task order, then episode order: the same options give the same
// episodes, byte for byte. Splitting the streams means that two policies
// that act alike see the same environment draws, so that Evaluate compares
// policies on common random numbers. With Workers > 1, Env.Start, the
// Games and Policy.Probs run on several goroutines at once (one Game per
// goroutine); the Simulator, the replay, the heuristics and
// metapolicy.MLPPolicy are safe for that. Each observation carries the
// answers of every earlier round (metapolicy.Observation.History). Run holds at most a small window of finished episodes
// waiting for their turn, so its memory does not grow with the count.
//
// # The simulator
//
// The Simulator models a team deliberating on a pool of synthetic tasks
// (SimConfig.Seed draws it; default 500 tasks, 3 agents). Its coefficients
// are SimParams; the default, DefaultSimParams, is the fit of Calibrate to
// the shared LLM-Debate transcripts, embedded from simulator_calibrated.json
// (its "source" field holds the command that reproduces it, and a test in
// env/replay checks that the fit still gives those bytes).
//
// Each task has a difficulty d ~ N(DifficultyMean, DifficultySpread²), a
// gold answer, WrongAnswers plausible wrong answers (integers) and a
// question prompt of exp(N(·,·)) tokens. The first wrong answer is the
// attractor, taking about Attractor of the wrong answers, so wrong agents
// often agree. In round 0 agent i is right with probability
// σ(SolveSlope·(skill_i − d)) (every skill Params.Skill unless
// SimConfig.Skills says otherwise), else gives a wrong answer; an answer is
// unreadable ("", no vote) with probability Unreadable on average, more on
// some tasks than on others (UnreadableCorrelation). Each answer comes
// with a completion length drawn from a log-normal of right or of wrong
// answers (of round 0 or of revisions), reasoning steps and hedges drawn
// from overdispersed Poissons whose means differ for right and wrong answers
// and grow with the length, a stated self-confidence with probability
// StatedRate, and an introspective (critic) confidence σ(z) with z = bias_i
// + ConfRight | ConfAttractor | ConfOther − ConfDifficulty·(d − mean) +
// ConfConsensus·(share of seen peers agreeing) + ConfNoise·N(0,1), missing
// with probability SimConfig.MissingConfidence.
//
// The meta-actions act as follows (seen peers are the other agents whose
// previous turn has an answer):
//
//   - persist keeps the turn as it was and costs 0 tokens;
//   - concede adopts metapolicy.ConcedeTarget of the previous round, with
//     the mean confidence of the target's holders discounted by a tenth
//     and the profile of its most confident holder, for
//     SimConfig.ConcedeTokens (default 20); with no target, or when the
//     target is its own answer, the agent keeps its state at that cost;
//   - refine redraws the answer. A wrong agent is fixed with probability
//     σ(FixBase + FixGold·g + FixSame·s + FixAllGold·[g = 1] +
//     FixSkill·(skill − d)), g the share of seen peers on the gold and s
//     the share on its own wrong answer; not fixed, it joins the peers'
//     most common wrong answer with probability Conform·(its share), else
//     keeps its answer with probability KeepWrong, else drifts to another
//     wrong answer. A right agent breaks with probability σ(BreakBase +
//     BreakWrong·w + BreakAllWrong·[w = 1] + BreakGap·(d − skill)), w the
//     share of seen peers on their most common wrong answer, and then joins
//     that answer with probability BreakTo. The revision is unreadable with
//     probability RevisionUnreadable. A refine costs PromptBase +
//     PromptQuestion·(question) + PromptOwn·(own previous completion) +
//     PromptPeers·(seen peers' previous completions) prompt tokens plus the
//     new completion.
//
// # Calibration
//
// DebateStats measures, on debate episodes (real ones from
// transcript.ToEpisode, or the simulator's under the debate policy): how
// many agents of each team are right in round 0, unreadable answers, how
// often two wrong agents agree, every revision's outcome grouped by what
// the reviser saw (peers on the gold, on its own answer, on the top wrong
// answer), completion lengths, steps and hedges of right and wrong
// answers, and prompt sizes. FitSimParams turns them into SimParams: a
// maximum-likelihood grid search for skill and difficulty spread (slope
// fixed at 6: only their ratio is identified), logistic regressions
// (Newton's method on the grouped counts) for fixing and breaking, ratio
// estimators for Conform, KeepWrong and BreakTo, log-normal and
// overdispersed-Poisson moments for lengths, steps and hedges, least
// squares for the refine prompt. The transcripts say nothing of a task's
// difficulty beyond what the team answers, so FixSkill and BreakGap are 0
// in a fit; the critic confidence has no counterpart in them (no critic
// ran), so its coefficients keep hand-set values. Calibrate fits, then
// plays debate on simulators of the real episodes' team sizes and round
// counts and reports every statistic and every feature's signal on both
// sides (mpdf simulate --calibrate prints it).
//
// # Signals
//
// SignalTally measures what each feature of metapolicy.Featurize says
// about correctness: the AUC of the feature as a score for "the agent's
// current answer is the gold", over every decision of the episodes
// tallied. On the calibrated simulator the agreement features (own_share,
// peer_agree, target_is_own) carry about what they carry in the real
// transcripts (AUC ≈ 0.84 both), length, steps and hedges about as much
// (AUC 0.3–0.46, longer answers being more often wrong); the critic
// confidence features are the one planted signal with no real
// counterpart: conf has AUC ≈ 0.95 in the simulator and is missing in the
// transcripts. mpdf simulate --signals prints the table; --calibrate
// prints it next to the real one.
//
// # Baselines
//
// The heuristics of metapolicy.NewHeuristic run wherever a learned policy
// runs. majority (formerly persist) is self-consistency over the team (the
// final answer is the round-0 majority). debate refines every agent every
// round, each shown its peers: exactly design §1's refine, i.e. LLM-Debate.
// gate persists to the end when round 0 is unanimous and debates
// otherwise; until-consensus refines until the team is unanimous, then
// persists. refine is Self-Refine: every agent refines every round but
// alone. Since the meta-action refine always shows the peers (design §1),
// the difference is one of information, not of action: the refine
// heuristic implements metapolicy.SelfRefiner, and Run, when such a
// policy's agent refines, passes Game.Step a copy of the previous round in
// which the peers' turns are blank (no answer), so the Env treats them as
// unseen. An Env that cannot hide the peers (a replay, whose recorded
// revisions all saw them) implements PeersAlwaysSeen: Run refuses
// Self-Refine there and Baselines leaves it out. threshold persists at
// confidence ≥ 0.8, concedes below 0.4 and refines between or when the
// confidence is missing; random picks each action with probability 1/3.
//
// # Evaluation
//
// Evaluate plays every policy on the same tasks and seeds and reports, per
// policy, the team accuracy (the final round's metapolicy.TeamAnswer over
// all agents equals the gold; episodes without a gold are counted but not
// scored) with a 95% bootstrap interval that resamples tasks — a task's
// episodes are correlated, so they are drawn together (package stats) —
// the round-0 accuracy, the mean tokens per episode over all rounds
// (round 0 included) and the share of each action among decisions. A Tally
// scores episodes read back from a file the same way. Results print as an aligned table or as JSON.
package env
