package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer/run"
)

// policySpecHelp describes what a --policy value may be, for help texts.
const policySpecHelp = `A policy is a heuristic baseline — persist, refine, debate,
threshold (or threshold:HIGH:LOW, e.g. threshold:0.9:0.3), random — or a
learned policy: a checkpoint (*.mpdf, written by mpdf train) or a
safetensors export (*.safetensors). A learned policy reads the feature
layout its file records (` + metapolicy.FeatureVersion + ` or ` + metapolicy.FeatureVersionV2 + `).`

// resolvedPolicy is a --policy value made into a policy.
type resolvedPolicy struct {
	metapolicy.Policy
	// Learned is true for a checkpoint or safetensors file, false for a
	// heuristic. --greedy applies to learned policies only: the heuristics
	// are deterministic except random, which greedy would turn into persist.
	Learned bool
	// Split is the replay split a checkpoint trained on (nil for others):
	// eval defaults to its held-out side.
	Split *replaySplit
	// TrainedEnv is the replay spec a checkpoint's online run trained on
	// ("" for others): eval without --env plays it.
	TrainedEnv string
	// Confidence is where the confidence of a learned policy's training
	// came from (checkpoints.ConfidenceSource; a safetensors file's
	// metadata); "" for a heuristic. Eval defaults a replay's critic= to it.
	Confidence string
}

// replaySplit is the train/held-out split of an online replay run.
type replaySplit struct {
	Env       string // --env of the run
	HeldOut   float64
	SplitSeed uint64
}

// replaySplitOf reads the replay split a checkpoint's run trained on from
// its header's stored position: nil for a safetensors export (no header),
// an offline or simulator run, or a checkpoint without a position.
func replaySplitOf(path string, h *checkpoints.Header) (*replaySplit, error) {
	if h == nil {
		return nil, nil
	}
	pos, ok, err := run.PositionOf(h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !ok || pos.Mode != "online" || !strings.HasPrefix(pos.Env, "replay:") || pos.HeldOut <= 0 {
		return nil, nil
	}
	return &replaySplit{Env: pos.Env, HeldOut: pos.HeldOut, SplitSeed: pos.SplitSeed}, nil
}

// replayEnvOf is the replay spec a checkpoint's online run trained on,
// from its header's stored position: "" for a safetensors export, an
// offline or simulator run, or a checkpoint without a position.
func replayEnvOf(path string, h *checkpoints.Header) (string, error) {
	if h == nil {
		return "", nil
	}
	pos, ok, err := run.PositionOf(h)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !ok || pos.Mode != "online" || !strings.HasPrefix(pos.Env, "replay:") {
		return "", nil
	}
	return pos.Env, nil
}

// resolvePolicy turns a --policy value into a policy: a heuristic name
// understood by metapolicy.ParseHeuristic, or the path of a checkpoint
// (.mpdf) or safetensors file (.safetensors), read once, through the
// feature layout the file records (checkpoints.LoadPolicyHeader). A learned
// policy is named by its file's base name.
func resolvePolicy(spec string) (resolvedPolicy, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return resolvedPolicy{}, fmt.Errorf("empty policy")
	}
	if !isHeuristicSpec(spec) {
		p, h, err := checkpoints.LoadPolicyHeader(spec, filepath.Base(spec))
		if err != nil {
			return resolvedPolicy{}, fmt.Errorf("policy %s: %w", spec, err)
		}
		split, err := replaySplitOf(spec, h)
		if err != nil {
			return resolvedPolicy{}, fmt.Errorf("policy %s: %w", spec, err)
		}
		conf := checkpoints.ConfidenceSource(h)
		if h == nil {
			conf = safetensorsConfidence(spec)
		}
		trained, err := replayEnvOf(spec, h)
		if err != nil {
			return resolvedPolicy{}, fmt.Errorf("policy %s: %w", spec, err)
		}
		return resolvedPolicy{Policy: p, Learned: true, Split: split, Confidence: conf, TrainedEnv: trained}, nil
	}
	p, err := metapolicy.ParseHeuristic(spec)
	if err != nil {
		if _, statErr := os.Stat(spec); statErr == nil {
			return resolvedPolicy{}, fmt.Errorf("policy %s: a file, but not a .mpdf checkpoint or a .safetensors export", spec)
		}
		return resolvedPolicy{}, fmt.Errorf("policy %q: not a heuristic (%s, threshold:HIGH:LOW) nor a .mpdf or .safetensors file: %w",
			spec, strings.Join(metapolicy.HeuristicNames(), ", "), err)
	}
	return resolvedPolicy{Policy: p}, nil
}

// safetensorsConfidence is the confidence source a safetensors file's
// metadata records (checkpoints.MetaConfidenceSource), unknown when it
// records none or cannot be read again.
func safetensorsConfidence(path string) string {
	_, meta, err := checkpoints.LoadSafetensors(path, checkpoints.WithFeatureVersion(""))
	if err != nil {
		return checkpoints.ConfidenceUnknown
	}
	return checkpoints.ConfidenceSourceOfMeta(meta)
}

// loadNetwork reads a policy network from a checkpoint (.mpdf) or a
// safetensors export (.safetensors) trained on the feature layout version
// ("" is the default): the loader of train --init.
func loadNetwork(path, version string) (*nn.MLP[float32], error) {
	fz, err := metapolicy.FeaturizerFor(version)
	if err != nil {
		return nil, err
	}
	m, _, err := checkpoints.LoadNetwork(path, checkpoints.WithFeatureVersion(fz.Version))
	return m, err
}

// isHeuristicSpec reports whether spec names a heuristic rather than a file.
func isHeuristicSpec(spec string) bool {
	ext := strings.ToLower(filepath.Ext(strings.TrimSpace(spec)))
	return ext != ".mpdf" && ext != ".safetensors"
}

// expandPaths turns arguments into file paths: an argument naming an
// existing file is kept, any other is a filepath.Match glob whose matches
// are taken in lexical order. An argument that matches nothing is an error;
// a file named twice is kept once.
func expandPaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%s: is a directory, want files", a)
			}
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
			continue
		}
		matches, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %w", a, err)
		}
		var files []string
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				files = append(files, m)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no such file", a)
		}
		for _, m := range files { // Glob returns lexical order
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}
