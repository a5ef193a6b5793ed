// Package replay is an environment (env.Env) made of imported debate
// transcripts: a team replays a recorded LLM-Debate question, and any
// policy — learned or heuristic — chooses each agent's meta-action in each
// round, so that a policy can be trained on some recorded questions and
// evaluated on held-out ones without calling a model.
//
// OpenEnv opens what an environment spec names — the simulator ("sim") or
// a replay ("replay:GLOB,...", Spec) — as mpdf eval, train and study do;
// OpenSplit opens a training run's two sides, Tasks one side of an
// evaluation's split.
//
// # What each action does
//
// Task i is question i (transcript.Question) in the order given; round 0 is
// the recorded round 0. In deliberation round t ≥ 1:
//
//   - refine: the agent takes its next recorded revision: its k-th refine
//     of the episode takes its recorded answer of round k (and that
//     answer's estimated tokens, transcript.Answer.Tokens: prompt plus
//     response), whatever round the refine happens in. Refining is never
//     a way to skip ahead to a later round's answer: an agent that
//     persists twice and refines in round 3 gets its round-1 revision.
//     An agent that has used all its recorded revisions keeps its answer
//     and pays the tokens of its last recorded answer — the model would
//     have been called, and the recording has no answer for the call.
//   - persist: the agent keeps its previous turn, at no cost.
//   - concede: the agent adopts metapolicy.ConcedeTarget of the previous
//     round (the peers' best-supported answer), with the reasoning profile
//     of the lowest-index peer holding it, at a small fixed cost,
//     DefaultConcedeTokens (a short message naming the answer, no
//     reasoning; WithConcedeTokens changes it). With no peer answer to
//     adopt it keeps its own.
//
// Confidence is missing everywhere — the transcripts have none — unless
// WithCritic fills it with the critic's confidence read from each recorded
// answer's text (answer.Critic; still missing where the critic checks
// nothing, and for a concede). The team answer's and the concede target's
// ties then go to the answer the critic trusts more. Replay is
// deterministic (Start ignores its rng). An Env is read-only after New and
// each Start makes a fresh game holding the episode's state (how many
// revisions each agent has used), so episodes may run concurrently; one
// game's Steps may not.
//
// Every agent refining every round reproduces the recorded debate exactly,
// and every agent persisting reproduces round 0; the package tests check
// both on the shared transcripts against corpus.Baselines (package data/corpus).
//
// # Baselines on replay
//
// Self-Refine (the refine heuristic) cannot be replayed: every recorded
// revision was written after seeing the peers, so it would be the debate
// under another name. The Env implements env.PeersAlwaysSeen; env.Play
// refuses a Self-Refine policy on it and env.Baselines leaves refine out.
// majority, debate, gate and until-consensus replay without approximation:
// in each of them the whole team refines in the same rounds, from the
// first, so every revision meets the peers it was written after (gate is
// round 0 or the recorded debate; until-consensus is a prefix of it).
//
// # The approximation
//
// A recorded revision was written after seeing the recorded peers of the
// round before it — who all refined in the recording — not the peers this
// replay shows it. When a policy makes some agents persist or concede, or
// delays a refine, a refining agent still gives the revision it gave after
// seeing the recorded peers of that revision's round: the replay ignores
// how other peers would have changed that answer. An agent's k-th
// revision also saw the recorded peers' (k−1)-th answers, which need not
// be what the replayed peers hold. And it cannot produce an
// answer nobody recorded. Results on replay therefore measure how well a
// policy chooses among recorded behaviours (keep, take the next revision,
// follow the peers), a model-free proxy for, not an equal of, running the
// policy with a live model; the llm environment is the live one.
//
// # Specs
//
// ParseSpec reads the one-string name of a replay that the command line
// takes (--env) and a training run records: "replay:GLOB[,GLOB...]" with
// optional kind=K and layout=L parts, the transcript.Options every file is
// read with, and critic=on|off, whether the critic fills the confidence
// (Spec). Load(expanded Globs, Spec.Options, Spec.EnvOptions()...) opens
// it. The critic is in the spec because the confidence is a policy input:
// recorded with the run's environment, it is reopened by a resume and an
// evaluation, and checkpoints.ConfidenceSource tells from it whether a
// checkpoint's policy learned from the text critic.
//
// # Splits
//
// Split and SplitKeys divide tasks into train and held-out sets with a
// seeded shuffle (PCG, deterministic for a seed). Env.Split splits by
// question ID, so that a question debated in several files — other models,
// other team sizes — is never on both sides. Subset makes an Env of one
// side.
package replay
