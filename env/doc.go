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
// goroutine); the Simulator, the heuristics and metapolicy.MLPPolicy are
// safe for that. Run holds at most a small window of finished episodes
// waiting for their turn, so its memory does not grow with the count.
//
// # The simulator
//
// The Simulator models what makes deliberation worth learning: a team whose
// majority is sometimes wrong, confidences that carry information but
// cannot be taken at face value, and actions whose benefit depends on the
// state. SimConfig.Seed draws a fixed pool of tasks (default 500); each has
// a difficulty d in (0,1) (triangular, mostly middling), a gold answer and
// a few plausible wrong answers (integers, as in arithmetic problems). The
// first wrong answer is the attractor: it takes 45–85% of the wrong
// answers, more on harder tasks, so wrong agents tend to agree with each
// other and a wrong majority is common (about one team in four that has a
// right agent in round 0 still votes wrong).
//
// The team has N agents (default 3) with skills from 0.70 down to 0.35 on
// the difficulty scale. In round 0 agent i is right with probability
// σ(6·(skill_i − d)) — about 69%, 52% and 34% over the pool — and
// otherwise draws a wrong answer; 2% of answers are unreadable ("", no
// vote). Each answer comes with
//
//   - an introspective confidence σ(z), z = bias_i + m − 1.2·(d − ½) +
//     0.6·(share of seen peers holding the same answer) + 0.9·N(0,1), where
//     m is 1.4 for a right answer, 0.4 for the attractor and −0.6 for other
//     wrong answers, and bias_i grows to 0.8 for the weakest agent: the
//     confidence is informative (a right answer is usually more confident)
//     but overconfident, more so for weak agents, and high for the tempting
//     mistake; it is missing with probability SimConfig.MissingConfidence;
//   - a stated self-confidence, more overconfident, noisier, in steps of 0.05;
//   - a profile whose steps and tokens grow with difficulty and are larger
//     for wrong answers, and whose hedges grow as the confidence falls.
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
//     σ(−2.2 + 3·(skill − d) + 3.5·g − 1.5·s), g the share of seen peers
//     holding the gold and s the share sharing its own wrong answer: alone
//     it rarely finds its mistake, with right peers it usually does, and
//     peers agreeing on its mistake entrench it. Not fixed, it follows the
//     peers' most common wrong answer with probability ½·(their share),
//     else keeps its answer (60%) or draws another wrong one. A right agent
//     breaks with probability σ(−2.9 + 1.5·w + 1.5·(d − skill)), w the share
//     of seen peers on their most common wrong answer: refining a right
//     answer is mostly wasted and slightly risky, riskier when the peers
//     push a wrong one, to which a broken agent goes 70% of the time. Then
//     confidence and profile are drawn afresh. A refine costs the prompt
//     (question, instructions, its own previous answer and 60% of each seen
//     peer's) plus the new completion: about 1,200 tokens with two peers,
//     against about 430 for a round-0 answer.
//
// Measured over the default pool (R = 3, seed 1, two episodes a task),
// persisting gives the round-0 majority, about 62% right at about 1,300
// tokens a task; Self-Refine about 68% at 8,600; debating about 74% at
// 12,000; the threshold baseline about 71% at 4,600. A hand-written policy
// that persists when the team is unanimous, concedes below confidence 0.3
// and otherwise refines reaches about 75% at 6,800 (the package tests hold
// these relations). That gap — debate's accuracy or better at a fraction
// of its tokens — is what a learned meta-policy has to find.
//
// # Baselines
//
// The heuristics of metapolicy.NewHeuristic run wherever a learned policy
// runs. persist is self-consistency over the team (the final answer is the
// round-0 majority). debate refines every agent every round, each shown its
// peers: exactly SPEC's refine, i.e. LLM-Debate. refine is Self-Refine:
// every agent refines every round but alone. Since the meta-action refine
// always shows the peers (SPEC §1), the difference is one of information,
// not of action: the refine heuristic implements metapolicy.SelfRefiner,
// and Run, when such a policy's agent refines, passes Game.Step a copy of
// the previous round in which the peers' turns are blank (no answer), so
// any Env treats them as unseen. Both baselines thus choose the same
// actions with the same log-probabilities; in the simulator Self-Refine is
// cheaper (no quoted peers) and gains much less. threshold persists at
// confidence ≥ 0.8, concedes below 0.4 and refines between or when the
// confidence is missing; random picks each action with probability 1/3.
//
// # Evaluation
//
// Evaluate plays every policy on the same tasks and seeds and reports, per
// policy, the team accuracy (the final round's metapolicy.TeamAnswer over
// all agents equals the gold; episodes without a gold are counted but not
// scored) with a 95% bootstrap interval that resamples tasks — a task's
// episodes are correlated, so they are drawn together (AccuracyInterval,
// package stats) — the round-0 accuracy, the
// mean tokens per episode over all rounds (round 0 included) and the share
// of each action among decisions. A Tally scores episodes read back from a
// file the same way. Results print as an aligned table or as JSON.
package env
