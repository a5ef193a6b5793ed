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
// # Determinism
//
// Episode e of task k draws from two random streams seeded by (Seed, k, e):
// one for the Env, one for the policy's sampling. Episodes therefore do not
// depend on each other, on how many workers play them (RunOptions.Workers)
// or on how many each worker plays in lockstep (RunOptions.Batch: a round's
// decisions of those episodes go to the policy in one
// metapolicy.BatchPolicy call, a learned policy's one forward pass), and
// [Play] delivers them in task order, then episode order: the same options
// give the same episodes, byte for byte. Two policies that act
// alike see the same environment draws, so [Evaluate] compares policies on
// common random numbers.
//
// # Baselines
//
// The heuristics of metapolicy.NewHeuristic (majority, debate, gate,
// until-consensus, refine, threshold, random) play wherever a learned
// policy plays. refine is Self-Refine: its agents refine alone, so Play
// hides the peers from the Env for them; an Env that cannot hide them (a
// replay, whose recorded revisions all saw them) implements
// [PeersAlwaysSeen], and there Play refuses Self-Refine and [Baselines]
// leaves it out.
//
// # Evaluation
//
// [Evaluate] plays every policy on the same tasks and seeds and reports,
// per policy ([Result]), the team accuracy (the final round's
// metapolicy.TeamAnswer equals the gold; episodes without a gold are
// counted but not scored) with a 95% bootstrap interval that resamples
// tasks, the round-0 accuracy, the mean tokens per episode and the share of
// each action. A [Tally] scores episodes read back from a file the same
// way. [Results] print as an aligned table or as JSON.
package env
