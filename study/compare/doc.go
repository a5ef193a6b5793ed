// Package compare works on studies' results.json files alone (mpdf study
// compare): [ReadResults] reads and checks one; [Compare] pools the rows
// of one or more studies, breaks accuracy and tokens down by kind or model
// ([By]), pairs one study's rows with another's by file, task and
// seed, and adds hindsight ceilings (per group the best fixed protocol,
// chosen knowing the answers), with intervals that resample questions.
//
//	c, err := compare.Files([]string{"runs/a/results.json"}, "runs/b/results.json", compare.Config{By: compare.ByModel})
//	err = c.WriteMarkdown(os.Stdout)
package compare
