// Package replay is an environment (env.Env) made of imported debate
// transcripts: a team replays a recorded LLM-Debate question, and any
// policy — learned or heuristic — chooses each agent's meta-action in each
// round, so that a policy can be trained on some recorded questions and
// evaluated on held-out ones without calling a model.
//
// # What each action does
//
// Task i is question i (transcript.Question) in the order given; round 0 is
// the recorded round 0. In deliberation round t ≥ 1:
//
//   - refine: the agent takes its recorded round-t answer, with that
//     answer's estimated tokens (transcript.Answer.Tokens: prompt plus
//     response). Past the end of its recording it repeats its last
//     recorded answer, at that answer's cost.
//   - persist: the agent keeps its previous turn, at no cost.
//   - concede: the agent adopts metapolicy.ConcedeTarget of the previous
//     round (the peers' best-supported answer), with the reasoning profile
//     of the lowest-index peer holding it, at a small fixed cost,
//     DefaultConcedeTokens (a short message naming the answer, no
//     reasoning; WithConcedeTokens changes it). With no peer answer to
//     adopt it keeps its own.
//
// Confidence is missing everywhere: the transcripts have none. Replay is
// deterministic (Start ignores its rng) and an Env is read-only after New,
// so Start and the games may run concurrently.
//
// Every agent refining every round reproduces the recorded debate exactly,
// and every agent persisting reproduces round 0; the package tests check
// both on the shared transcripts against transcript.Baselines.
//
// # The approximation
//
// A recorded refinement was written after seeing the recorded peers — who
// all refined in the recording — not the peers this replay shows it. When
// a policy makes some agents persist or concede, a refining agent still
// gives the answer it gave when its peers had refined: the replay ignores
// how the changed peers would have changed that answer. It also cannot
// produce an answer nobody recorded. Results on replay therefore measure
// how well a policy chooses among recorded behaviours (keep, take the
// refinement, follow the peers), which is a lower-variance, model-free
// proxy for, not an equal of, running the policy with a live model; the
// llm environment is the live one.
//
// # Splits
//
// Split and SplitKeys divide tasks into train and held-out sets with a
// seeded shuffle (PCG, deterministic for a seed). Env.Split splits by
// question ID, so that a question debated in several files — other models,
// other team sizes — is never on both sides. Subset makes an Env of one
// side.
package replay
