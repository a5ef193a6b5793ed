package main

import (
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

// policySpecHelp describes what a --policy value may be, for help texts.
const policySpecHelp = `A policy is a heuristic baseline — persist, refine, debate,
threshold (or threshold:HIGH:LOW, e.g. threshold:0.9:0.3), random — or a
learned policy: a checkpoint (*.mpdf, written by mpdf train) or a
safetensors export (*.safetensors). A learned policy reads the feature
layout its file records (` + metapolicy.FeatureVersion + `, ` + metapolicy.FeatureVersionV2 + `, or
` + metapolicy.FeatureVersionPeers + ` for an attention network, teams of up to 8).`

// replaySyntax is the replay form of --env, for help texts and errors.
const replaySyntax = replay.Syntax

// resolvedPolicy is a --policy value made into a policy.
type resolvedPolicy = checkpoints.Resolved

// resolvePolicy reads a --policy value (checkpoints.ResolvePolicy).
var resolvePolicy = checkpoints.ResolvePolicy
