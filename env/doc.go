// Package env plays deliberations and scores them. Open an environment —
// the simulator (package env/sim), recorded transcripts (env/replay) or a
// live LLM (env/llm) — then play a policy on it or compare policies:
//
//	s, err := sim.New(sim.Config{Seed: 1})
//	err = env.Play(s, policy, env.RunOptions{Seed: 1}, func(ep *data.Episode) error { ... })
//	res, err := env.Evaluate(s, policies, env.RunOptions{Seed: 1})
//	res.WriteTable(os.Stdout)
//
// An [Env] supplies tasks and what each meta-action does to an agent;
// [Play] lets any metapolicy.Policy, learned or heuristic, drive a team
// through the rounds and streams the resulting data.Episodes with the
// behaviour log-probability of every decision; [Evaluate] scores policies
// against each other and [Judge] turns the scores into a [Verdict].
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
// depend on each other or on how many workers play them, and Play delivers
// them in task order, then episode order: the same options give the same
// episodes, byte for byte. Splitting the streams means that two policies
// that act alike see the same environment draws, so that Evaluate compares
// policies on common random numbers. With Workers > 1, Env.Start, the
// Games and Policy.Probs run on several goroutines at once (one Game per
// goroutine); the simulator, the replay, the heuristics and
// metapolicy.MLPPolicy are safe for that. Each observation carries the
// answers of every earlier round (metapolicy.Observation.History). Play holds at most a small window of finished episodes
// waiting for their turn, so its memory does not grow with the count.
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
// heuristic implements metapolicy.SelfRefiner, and Play, when such a
// policy's agent refines, passes Game.Step a copy of the previous round in
// which the peers' turns are blank (no answer), so the Env treats them as
// unseen. An Env that cannot hide the peers (a replay, whose recorded
// revisions all saw them) implements PeersAlwaysSeen: Play refuses
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
