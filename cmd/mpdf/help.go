package main

import (
	"embed"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/view"
)

// helpFiles hold the commands' help, prose kept apart from the wiring
// (cliflag.AddHelp says how).
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpVars fill in what this build knows where a help text says {key}, so
// that the text cannot fall behind the code.
var helpVars = strings.NewReplacer(
	"{policy}", policySpecHelp,
	"{heuristics}", strings.Join(metapolicy.HeuristicNames(), ", "),
	"{kinds}", strings.Join(llm.Kinds, ", "),
	"{env-base-url}", strings.Join(llm.EnvBaseURL, ", "),
	"{env-model}", strings.Join(llm.EnvModel, ", "),
	"{env-api-key}", strings.Join(llm.EnvAPIKey, ", "),
	"{max-text-bytes}", strconv.Itoa(view.MaxTextBytes),
)

// policySpecHelp describes what a --policy value may be, for help texts:
// every heuristic this build knows (metapolicy.HeuristicNames).
var policySpecHelp = `A policy is a heuristic baseline — ` + strings.Join(metapolicy.HeuristicNames(), ", ") + `
(threshold:HIGH:LOW sets its bounds, e.g. threshold:0.9:0.3; persist is
majority's old name) — or a learned policy: a checkpoint (*.mpdf, written by mpdf train) or a
safetensors export (*.safetensors). A learned policy reads the feature
layout its file records (` + metapolicy.FeatureVersion + `, ` + metapolicy.FeatureVersionV2 + `, or
` + metapolicy.FeatureVersionPeers + ` for an attention network, teams of up to 8).`
