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
// [Simulator] documents the model: tasks of random difficulty with an
// attractive wrong answer, agents right in round 0 with a logistic chance,
// refine fixing or breaking answers by what the peers hold, concede
// adopting the team's choice, completion lengths, steps, hedges and
// confidences drawn per answer. The default [Params], [DefaultParams], are
// the fit to the shared LLM-Debate transcripts embedded from
// calibrated.json; its "source" field holds the command that reproduces it,
// and a test in env/sim/calibrate checks that the fit still gives those
// bytes.
package sim
