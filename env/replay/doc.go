// Package replay is an environment (env.Env) made of imported debate
// transcripts: a team replays a recorded question, and any policy —
// learned or heuristic — chooses each agent's meta-action in each round,
// so that a policy can be trained on some recorded questions and evaluated
// on held-out ones without calling a model.
//
//	e, reps, err := replay.Load(paths, transcript.Options{}) // reps: each file's readability
//	train, test, err := e.Split(0.3, 1)                      // by question, never on both sides
//	err = env.Play(e, policy, env.RunOptions{Tasks: test, Seed: 1}, emit)
//
// [Load] and [New] build an [Env] from paths or from questions already
// read. Opening an environment from its spec — the simulator ("sim") or a
// replay's globs — a training run's two sides and an evaluation is the
// job of package env/open, above this one and env/sim.
//
// # What each action does
//
// Round 0 is the recorded round 0. After it, refine takes the agent's next
// recorded revision, persist keeps its previous turn at no cost, and
// concede adopts the peers' best-supported answer at a small fixed cost
// ([DefaultConcedeTokens], [WithConcedeTokens]). Every agent refining
// every round reproduces the recorded debate exactly. Confidence is
// missing everywhere — the transcripts have none — unless [WithCritic]
// fills it with the text critic's (answer.Critic). Replay is
// deterministic, and episodes may run concurrently.
//
// A replay is an approximation: a recorded revision was written after the
// recorded peers, not the ones the replay shows it, and nobody's answer
// can be one the recording lacks. Results on replay measure how well a
// policy chooses among recorded behaviours — a model-free proxy for, not
// an equal of, running it live (env/llm); [Env] says it in full, with why
// Self-Refine cannot be replayed ([Env.PeersAlwaysSeen]).
//
// # Specs and splits
//
// A [Spec] is the one string ([Syntax]) the command line takes and a
// training run records: files or globs with optional kind=, layout= and
// critic= parts. The critic is in the spec because the confidence is a
// policy input: a resume and an evaluation reopen it, and
// checkpoints.ConfidenceSource tells from it whether a checkpoint's
// policy learned from the text critic. [Split] and [SplitKeys] divide
// tasks with a seeded shuffle; [Env.Split] splits by question ID, so that
// a question debated in several files is never on both sides; [Env.Subset]
// makes an Env of one side.
package replay
