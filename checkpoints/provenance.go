package checkpoints

// ConfidenceSource derives from a header where the confidence of the
// policy's training states came from — "text-critic", "none", "given" or
// "unknown" — from the environment spec the run recorded (a replay spec's
// critic=on part; see design §6), and ConfidenceSourceOfMeta from a
// safetensors file's "mpdf.confidence_source" (MetaConfidenceSource), which
// mpdf export and a run's policy.safetensors write. Evaluation and serving
// compare it with the confidence they will feed the policy.

import (
	"encoding/json"
	"strings"
)

// Where the confidence a policy read in training came from
// (ConfidenceSource). The confidence (metapolicy.AgentState.Confidence) is
// a feature like any other: a policy that learned to trust the text critic
// decides differently where it is missing, and one that never saw it may
// read a filled-in value as a signal it has no use for. A server or an
// evaluation compares these to what it will feed the policy.
const (
	// ConfidenceTextCritic: a replay with critic=on, each turn's confidence
	// read from its text by answer.Critic (missing where it checks nothing).
	ConfidenceTextCritic = "text-critic"
	// ConfidenceNone: a replay without the critic: the confidence was
	// missing on every turn.
	ConfidenceNone = "none"
	// ConfidenceGiven: the environment gave it with the state (the
	// simulator's confidence signal).
	ConfidenceGiven = "given"
	// ConfidenceUnknown: nothing recorded says — offline rollouts (their
	// confidences are whatever the files hold), a safetensors file without
	// MetaConfidenceSource, a checkpoint written without a run position.
	ConfidenceUnknown = "unknown"
)

// MetaConfidenceSource is the safetensors metadata key under which mpdf
// export (and a training run's policy.safetensors) records the checkpoint's
// ConfidenceSource, so that the provenance outlives the header.
const MetaConfidenceSource = "mpdf.confidence_source"

// ConfidenceSource says where the confidence of the policy's training
// states came from, derived from the environment the run recorded in the
// header's DataPos (trainer/run.Position: "mode" and "env"): an online run
// on "sim" is ConfidenceGiven; on a replay spec ("replay:...") it is
// ConfidenceTextCritic when the spec has the part critic=on
// (env/replay.ParseSpec, which refused any other critic= value when the
// run started), ConfidenceNone otherwise; anything else is
// ConfidenceUnknown. A nil header is ConfidenceUnknown.
func ConfidenceSource(h *Header) string {
	if h == nil || len(h.DataPos) == 0 {
		return ConfidenceUnknown
	}
	var pos struct {
		Mode string `json:"mode"`
		Env  string `json:"env"`
	}
	if err := json.Unmarshal(h.DataPos, &pos); err != nil || pos.Mode != "online" {
		return ConfidenceUnknown
	}
	return ConfidenceSourceOfEnv(pos.Env)
}

// ConfidenceSourceOfEnv is ConfidenceSource of an online run on the
// environment spec env (the --env of mpdf train).
func ConfidenceSourceOfEnv(env string) string {
	switch {
	case env == "sim" || env == "simulator":
		return ConfidenceGiven
	case strings.HasPrefix(env, "replay:"):
		for part := range strings.SplitSeq(strings.TrimPrefix(env, "replay:"), ",") {
			if part == "critic=on" {
				return ConfidenceTextCritic
			}
		}
		return ConfidenceNone
	}
	return ConfidenceUnknown
}

// ConfidenceSourceOfMeta is the ConfidenceSource a safetensors file's
// metadata records (MetaConfidenceSource), ConfidenceUnknown when absent.
func ConfidenceSourceOfMeta(meta map[string]string) string {
	switch v := meta[MetaConfidenceSource]; v {
	case ConfidenceTextCritic, ConfidenceNone, ConfidenceGiven:
		return v
	}
	return ConfidenceUnknown
}
