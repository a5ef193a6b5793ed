package serve

import "github.com/mpdf/mpdf/metapolicy"

// The JSON bodies of the API. api/openapi.json describes the same fields;
// TestOpenAPIMatchesTypes keeps the two in step.

// DecideRequest is the body of POST /v1/decide: one deliberation, its
// fields at the top level, or a batch in Deliberations (then the top-level
// deliberation fields stay empty).
type DecideRequest struct {
	Deliberation
	// Deliberations is a batch: many deliberations decided in one call.
	Deliberations []Deliberation `json:"deliberations,omitempty"`
	// Mode is "greedy" (the default: the most probable action, lowest
	// index on ties) or "sample" (an action drawn from the policy).
	Mode string `json:"mode,omitempty"`
	// Seed makes sampling reproducible: deliberation i of the request draws
	// from PCG(seed, i), its agents in order. Absent in sample mode, the
	// server picks one and returns it. Ignored in greedy mode.
	Seed *uint64 `json:"seed,omitempty"`
}

// Deliberation is the state of one deliberation at the start of a round,
// as the caller has it: no state is kept between requests.
type Deliberation struct {
	// ID is echoed back in the result, for the caller's bookkeeping.
	ID string `json:"id,omitempty"`
	// Kind is the task kind, "gsm8k" (or "gsm"), "mmlu", "arithmetic" or
	// "math"; it picks the answer reader (and the critic: none on mmlu) for
	// agents given as raw text, and is needed only then.
	Kind string `json:"kind,omitempty"`
	// Round is the 1-based deliberation round about to be played, of Rounds.
	Round  int     `json:"round,omitempty"`
	Rounds int     `json:"rounds,omitempty"`
	Agents []Agent `json:"agents,omitempty"`
	// History holds every agent's answer in the rounds played so far, as
	// metapolicy.Observation.History: History[r][i] is agent i's answer
	// ("" when unreadable) in round r, 0 ≤ r < Round, round 0 first, so
	// it has Round rows of len(Agents) answers and its last row repeats the
	// agents' current answers (as given, or read from their text). Only an
	// mpdf-features/v2 policy reads it; without it such a policy sees the
	// past as unknown (its history-missing feature is 1).
	History [][]string `json:"history,omitempty"`
}

// Agent is one agent's state: its current answer, or the raw text of its
// last response from which the answer and profile are read.
type Agent struct {
	// Answer is the normalised answer, compared verbatim with the others';
	// "" (or absent, without Text) means no readable answer. When Text is
	// given too, Answer wins over the answer read from it.
	Answer *string `json:"answer,omitempty"`
	// Text is the agent's raw response; the answer (unless Answer is given)
	// and the profile are read from it by the importer's reader.
	Text *string `json:"text,omitempty"`
	// CompletionTokens, with Text, is the response's length in tokens as
	// the LLM server counted it; without it the reader estimates it.
	CompletionTokens *int `json:"completion_tokens,omitempty"`
	// Confidence is the introspective confidence in [0,1] (a critic's
	// score); absent or null when unknown — missing is not zero. On a
	// server with the critic (mpdf serve --critic), an agent given as Text
	// without it gets the critic's read from the text.
	Confidence *float64 `json:"confidence,omitempty"`
	// Profile is the reasoning profile of the answer, when the caller
	// measured it; exclusive with Text.
	Profile *Profile `json:"profile,omitempty"`
	// Model is the agent's backbone model, at most MaxModelBytes bytes: a
	// policy with a network per model (agent policy "model") decides for
	// the agent with that model's network, or with its fallback when it
	// has none or the model is absent. Other policies ignore it.
	Model *string `json:"model,omitempty"`
}

// MaxModelBytes caps an agent's model name in a request.
const MaxModelBytes = 256

// Profile is an agent's reasoning profile (metapolicy.Profile). Zero counts
// mean unknown or none.
type Profile struct {
	Steps  int `json:"steps,omitempty"`
	Tokens int `json:"tokens,omitempty"`
	Hedges int `json:"hedges,omitempty"`
	// SelfConfidence is the confidence the agent stated, in [0,1].
	SelfConfidence *float64 `json:"self_confidence,omitempty"`
}

// DecideResponse is the answer to a DecideRequest: a single deliberation's
// result at the top level, or Results for a batch, in request order.
type DecideResponse struct {
	// FeatureVersion is the feature layout the decisions were made with.
	FeatureVersion string `json:"feature_version"`
	// Policy names the policy file that decided (its base name) and Step
	// its training step (absent for a safetensors file).
	Policy string `json:"policy"`
	Step   *int64 `json:"step,omitempty"`
	Mode   string `json:"mode"`
	// Seed is the seed sampling used; absent in greedy mode.
	Seed *uint64 `json:"seed,omitempty"`
	*Result
	Results []Result `json:"results,omitempty"`
}

// Result is one deliberation's decisions.
type Result struct {
	ID string `json:"id,omitempty"`
	// TeamAnswer is the plurality answer of all agents now (design §1
	// tie-breaks); "" when no agent has one.
	TeamAnswer string `json:"team_answer"`
	// Agents holds one decision per agent, in request order.
	Agents []Decision `json:"agents"`
	// FeaturesIncomplete says what the policy's features lacked, when they
	// lacked something (HistoryMissing); absent when complete.
	FeaturesIncomplete string `json:"features_incomplete,omitempty"`
}

// HistoryMissing is Result.FeaturesIncomplete of a deliberation past round
// 0 sent without its history to a policy whose layout reads it
// (mpdf-features/v2): its features saw the past rounds as unknown, unlike
// its training's. The server decides anyway, says so, and logs it.
const HistoryMissing = "history absent: this mpdf-features/v2 policy read the past rounds as unknown (send history: every agent's answer of rounds 0..round-1)"

// Decision is one agent's meta-action.
type Decision struct {
	Action metapolicy.Action `json:"action"`
	// Probs is π(·|state) over the actions.
	Probs Probs `json:"probs"`
	// LogProb is log π(action|state), the behaviour log-probability a
	// rollout records.
	LogProb float64 `json:"log_prob"`
	// Answer is the answer the decision was made on (read from Text when
	// the request gave text).
	Answer string `json:"answer"`
	// ConcedeTarget is the answer the agent adopts if it concedes: the
	// peers' best-supported answer; "" when no peer has one.
	ConcedeTarget string `json:"concede_target"`
}

// Probs is a distribution over the actions, in action order, written as an
// object keyed by the actions' names ({"persist": …, "refine": …,
// "concede": …}: api/openapi.json's Probs).
type Probs = metapolicy.ByName[float64]

// PolicyInfo is the body of GET /v1/policy and POST /v1/reload: what is
// being served.
type PolicyInfo struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Format is "checkpoint" (.mpdf) or "safetensors".
	Format         string `json:"format"`
	FeatureVersion string `json:"feature_version"`
	// Step and Seed come from a checkpoint's header; absent for safetensors.
	Step *int64  `json:"step,omitempty"`
	Seed *uint64 `json:"seed,omitempty"`
	// TrainConfigHash is the SHA-256 (hex) of the checkpoint's training
	// configuration as stored (compacted JSON); absent when it has none.
	TrainConfigHash string             `json:"train_config_hash,omitempty"`
	Metrics         map[string]float64 `json:"metrics,omitempty"`
	Sizes           []int              `json:"sizes"`
	Activation      string             `json:"activation"`
	// AttnDim is the attention width d of an attention network
	// (mpdf-features/peers-v1; Sizes are then its layers after the
	// front), absent for an MLP.
	AttnDim int `json:"attn_dim,omitempty"`
	// LoadedAt is when this policy was loaded (RFC 3339).
	LoadedAt string `json:"loaded_at"`
	// ConfidenceSource is where the confidence of the policy's training
	// states came from (checkpoints.ConfidenceSource): "text-critic" (a
	// replay with critic=on: the critic's read from each text), "none" (a
	// replay without: always missing), "given" (the simulator's), or
	// "unknown" (offline data, a safetensors file that does not say, a
	// policy given in memory).
	ConfidenceSource string `json:"confidence_source"`
	// Critic says whether this server fills the confidence of agents given
	// as text without one from the text (mpdf serve --critic).
	Critic bool `json:"critic"`
	// Warnings says where the two disagree: the policy would see a
	// confidence unlike its training's.
	Warnings []string `json:"warnings,omitempty"`
	// AgentPolicy and Networks describe a decoupled policy (design §4): a
	// network per agent "slot" (its index in the request's agents) or per
	// "model" (the agent's model), named by Networks, and the fallback
	// for an agent none is named for. Absent for one shared network.
	AgentPolicy string   `json:"agent_policy,omitempty"`
	Networks    []string `json:"networks,omitempty"`
	// Verdict is what the run that wrote this checkpoint found it worth
	// against the fixed protocols (its eval.json), when that judged this
	// file at this step.
	Verdict *PolicyVerdict `json:"verdict,omitempty"`
}

// ErrorBody is the body of every 4xx and 5xx answer.
type ErrorBody struct {
	// Error says what is wrong, naming the field when there is one:
	// "agents[2].confidence: 1.4 outside [0,1]".
	Error string `json:"error"`
	// Kind classifies it (the label of the errors metric): bad_json,
	// invalid, too_large, overloaded, timeout, method, not_found, reload,
	// not_ready, internal.
	Kind string `json:"kind"`
	// Field is the JSON path of the offending field, when there is one.
	Field string `json:"field,omitempty"`
}

// Health is the body of GET /healthz and GET /readyz.
type Health struct {
	Status string `json:"status"`
}
