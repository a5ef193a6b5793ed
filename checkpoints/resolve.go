package checkpoints

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

// Resolved is a policy named by a spec (ResolvePolicy): a heuristic, or a
// learned policy file with what it records of its training.
type Resolved struct {
	metapolicy.Policy
	// Path is the file of a learned policy ("" for a heuristic).
	Path string
	// Learned is true for a checkpoint or safetensors file, false for a
	// heuristic. Greedy play applies to learned policies only: the
	// heuristics are deterministic except random, which greedy would turn
	// into persist.
	Learned bool
	// Split is the replay split a checkpoint's online run trained on (nil
	// for others): an evaluation defaults to its held-out side.
	Split *ReplaySplit
	// TrainedEnv is the replay spec a checkpoint's online run trained on
	// ("" for others).
	TrainedEnv string
	// Confidence is where the confidence of a learned policy's training
	// came from (ConfidenceSource, or a safetensors file's
	// ConfidenceSourceOfMeta); "" for a heuristic.
	Confidence string
}

// ProbsBatch implements metapolicy.BatchPolicy: the policy's own batch (one
// forward pass of a learned policy), not Probs row by row.
func (r Resolved) ProbsBatch(p [][metapolicy.NumActions]float64, obs []metapolicy.Observation) error {
	return metapolicy.Batch(r.Policy).ProbsBatch(p, obs)
}

// ReplaySplit is the train/held-out split of an online replay run.
type ReplaySplit struct {
	Env       string // the run's replay spec
	HeldOut   float64
	SplitSeed uint64
}

// IsPolicyFile reports whether spec names a policy file (.mpdf or
// .safetensors) rather than a heuristic.
func IsPolicyFile(spec string) bool {
	ext := strings.ToLower(filepath.Ext(strings.TrimSpace(spec)))
	return ext == ".mpdf" || ext == ".safetensors"
}

// ResolvePolicy turns a policy spec into a policy: a heuristic name
// understood by metapolicy.ParseHeuristic, or the path of a checkpoint
// (.mpdf) or safetensors file (.safetensors), read once, through the
// feature layout the file records (LoadPolicyHeader). A learned policy is
// named by its file's base name.
func ResolvePolicy(spec string) (Resolved, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Resolved{}, fmt.Errorf("empty policy")
	}
	if IsPolicyFile(spec) {
		p, h, meta, err := loadPolicy(spec, filepath.Base(spec))
		if err != nil {
			return Resolved{}, fmt.Errorf("policy %s: %w", spec, err)
		}
		r := Resolved{Policy: p, Path: spec, Learned: true, Confidence: ConfidenceSource(h)}
		if h == nil {
			r.Confidence = ConfidenceSourceOfMeta(meta)
		}
		if r.Split, r.TrainedEnv, err = replayRunOf(h); err != nil {
			return Resolved{}, fmt.Errorf("policy %s: %s: %w", spec, spec, err)
		}
		return r, nil
	}
	p, err := metapolicy.ParseHeuristic(spec)
	if err != nil {
		if st, statErr := os.Stat(spec); statErr == nil {
			if st.IsDir() {
				hint := ""
				if _, err := os.Stat(filepath.Join(spec, BestName)); err == nil {
					hint = fmt.Sprintf(": give its checkpoint, %s", filepath.Join(spec, BestName))
				}
				return Resolved{}, fmt.Errorf("policy %s: a directory, not a .mpdf checkpoint or a .safetensors export%s", spec, hint)
			}
			return Resolved{}, fmt.Errorf("policy %s: a file, but not a .mpdf checkpoint or a .safetensors export", spec)
		}
		return Resolved{}, fmt.Errorf("policy %q: not a heuristic (%s, threshold:HIGH:LOW) nor a .mpdf or .safetensors file: %w",
			spec, strings.Join(metapolicy.HeuristicNames(), ", "), err)
	}
	return Resolved{Policy: p}, nil
}

// replayRunOf reads the replay a checkpoint's online run trained on from
// its header's data position (trainer/run.Position's mode, env, held_out
// and split_seed): its spec, and its split when it held questions out.
// Both are zero for a safetensors export (no header), an offline or
// simulator run, or a checkpoint without a position.
func replayRunOf(h *Header) (*ReplaySplit, string, error) {
	if h == nil || len(h.DataPos) == 0 {
		return nil, "", nil
	}
	var pos struct {
		Mode      string  `json:"mode"`
		Env       string  `json:"env"`
		HeldOut   float64 `json:"held_out"`
		SplitSeed uint64  `json:"split_seed"`
	}
	if err := json.Unmarshal(h.DataPos, &pos); err != nil {
		return nil, "", fmt.Errorf("data position: %w", err)
	}
	if pos.Mode != "online" || !strings.HasPrefix(pos.Env, "replay:") {
		return nil, "", nil
	}
	if pos.HeldOut <= 0 {
		return nil, pos.Env, nil
	}
	return &ReplaySplit{Env: pos.Env, HeldOut: pos.HeldOut, SplitSeed: pos.SplitSeed}, pos.Env, nil
}

// CriticMismatch reports whether a policy whose training confidence came
// from src (ConfidenceSource) is fed another kind of confidence when played
// with the text critic filling it (critic) or without: trained with the
// text critic and played without, or played with it after training on
// another. An evaluation and a server both warn of it; neither refuses,
// since the confidence may come from elsewhere.
func CriticMismatch(src string, critic bool) bool {
	if critic {
		return src != ConfidenceTextCritic
	}
	return src == ConfidenceTextCritic
}

// TrainedReplay is the replay spec the learned policies among pols trained
// on (their TrainedEnv), from the first of them, so that a policy trained on
// transcripts is evaluated on them rather than elsewhere: "" when none
// trained on a replay, an error naming two that trained on different ones (ErrTrainedEnvs).
func TrainedReplay(pols []Resolved) (spec, from string, err error) {
	for _, p := range pols {
		if p.TrainedEnv == "" {
			continue
		}
		if spec != "" && p.TrainedEnv != spec {
			return "", "", errmark.Mark(fmt.Errorf("%s trained on %s and %s on %s", from, spec, p.Path, p.TrainedEnv), ErrTrainedEnvs)
		}
		spec, from = p.TrainedEnv, p.Path
	}
	return spec, from, nil
}

// TextCritic says whether a replay that does not say (no critic= part)
// plays the learned policies among pols with the text critic: on when
// those whose confidence came from a replay trained with it (their names
// are with), since a policy that learned to read the critic's confidence
// would otherwise be scored without it. Policies trained with it and
// without it (the confidence missing) need the replay to say: an error (ErrTrainedCritics).
func TextCritic(pols []Resolved) (on bool, with []string, err error) {
	var without []string
	for _, p := range pols {
		switch p.Confidence {
		case ConfidenceTextCritic:
			with = append(with, p.Name())
		case ConfidenceNone:
			without = append(without, p.Name())
		}
	}
	if len(with) > 0 && len(without) > 0 {
		return false, nil, errmark.Mark(fmt.Errorf("%s trained with the text critic (critic=on) and %s without", with[0], without[0]), ErrTrainedCritics)
	}
	return len(with) > 0, with, nil
}

// HeldOutSplit is the replay split the learned policies among pols trained
// on, with the name of the last that says: nil when none does. Policies of
// different splits are an error unless given (the evaluation's own split
// given), when the last one's is returned (ErrTrainedSplits).
func HeldOutSplit(pols []Resolved, given bool) (sp *ReplaySplit, from string, err error) {
	for _, p := range pols {
		if p.Split == nil {
			continue
		}
		if sp != nil && *p.Split != *sp && !given {
			return nil, "", errmark.Mark(fmt.Errorf("%s and %s trained on different replay splits (held out %g, seed %d; held out %g, seed %d)",
				from, p.Name(), sp.HeldOut, sp.SplitSeed, p.Split.HeldOut, p.Split.SplitSeed), ErrTrainedSplits)
		}
		sp, from = p.Split, p.Name()
	}
	return sp, from, nil
}
