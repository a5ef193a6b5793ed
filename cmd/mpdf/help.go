package main

import (
	"embed"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/view"
)

// helpFiles hold the commands' help, prose kept apart from the wiring:
// help/NAME.txt (NAME the command's path after "mpdf", words joined by
// "-") is the one-line summary, then the long text, then the examples
// if any, parted by lines "---".
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

// addHelp sets the summary, long text and examples of c and of the
// commands under it from their help files.
func addHelp(c *cobra.Command) {
	name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "mpdf "), " ", "-")
	if b, err := helpFiles.ReadFile("help/" + name + ".txt"); err == nil {
		parts := strings.SplitN(helpVars.Replace(string(b)), "\n---\n", 3)
		c.Short, c.Long = parts[0], strings.TrimSuffix(parts[1], "\n")
		if len(parts) == 3 {
			c.Example = strings.TrimSuffix(parts[2], "\n")
		}
	}
	for _, s := range c.Commands() {
		addHelp(s)
	}
}

// policySpecHelp describes what a --policy value may be, for help texts.
const policySpecHelp = `A policy is a heuristic baseline — persist, refine, debate,
threshold (or threshold:HIGH:LOW, e.g. threshold:0.9:0.3), random — or a
learned policy: a checkpoint (*.mpdf, written by mpdf train) or a
safetensors export (*.safetensors). A learned policy reads the feature
layout its file records (` + metapolicy.FeatureVersion + `, ` + metapolicy.FeatureVersionV2 + `, or
` + metapolicy.FeatureVersionPeers + ` for an attention network, teams of up to 8).`
