// Package sim is the default environment: a calibrated simulator of LLM
// agents deliberating, so that training, evaluation and studies run
// without an LLM. Build one with [New] and play it like any env.Env:
//
//	s, err := sim.New(sim.Config{Seed: 1}) // 500 tasks, 3 agents
//	...
//	res, err := env.Evaluate(s, policies, env.RunOptions{Seed: 1})
//
// [Config] sets the pool (tasks, team, skills, missing confidences);
// [Params] the model's coefficients, read from a file with [ReadParams].
// [DebateStats] measures debate episodes and [Fit] turns the statistics
// into Params; package env/sim/calibrate fits them to transcripts and
// checks the fit.
//
// # Model
//
// The Simulator models a team deliberating on a pool of synthetic tasks
// (Config.Seed draws it; default 500 tasks, 3 agents). Its coefficients
// are [Params]; the default, [DefaultParams], is the fit of [Fit] to
// the shared LLM-Debate transcripts, embedded from calibrated.json
// (its "source" field holds the command that reproduces it, and a test in
// env/sim/calibrate checks that the fit still gives those bytes).
//
// Each task has a difficulty d ~ N(DifficultyMean, DifficultySpread²), a
// gold answer, WrongAnswers plausible wrong answers (integers) and a
// question prompt of exp(N(·,·)) tokens. The first wrong answer is the
// attractor, taking about Attractor of the wrong answers, so wrong agents
// often agree. In round 0 agent i is right with probability
// σ(SolveSlope·(skill_i − d)) (every skill Params.Skill unless
// Config.Skills says otherwise), else gives a wrong answer; an answer is
// unreadable ("", no vote) with probability Unreadable on average, more on
// some tasks than on others (UnreadableCorrelation). Each answer comes
// with a completion length drawn from a log-normal of right or of wrong
// answers (of round 0 or of revisions), reasoning steps and hedges drawn
// from overdispersed Poissons whose means differ for right and wrong answers
// and grow with the length, a stated self-confidence with probability
// StatedRate, and an introspective (critic) confidence σ(z) with z = bias_i
// + ConfRight | ConfAttractor | ConfOther − ConfDifficulty·(d − mean) +
// ConfConsensus·(share of seen peers agreeing) + ConfNoise·N(0,1), missing
// with probability Config.MissingConfidence.
//
// The meta-actions act as follows (seen peers are the other agents whose
// previous turn has an answer):
//
//   - persist keeps the turn as it was and costs 0 tokens;
//   - concede adopts metapolicy.ConcedeTarget of the previous round, with
//     the mean confidence of the target's holders discounted by a tenth
//     and the profile of its most confident holder, for
//     Config.ConcedeTokens (default 20); with no target, or when the
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
package sim
