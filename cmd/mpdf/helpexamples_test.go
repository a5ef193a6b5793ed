package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every --help example writes under runs/, as the docs' do
// (TestDocsExamplesStayInRuns): a user who pastes one from the help does
// not litter the directory they are in, or the repository.
func TestHelpExamplesStayInRuns(t *testing.T) {
	n := 0
	for _, c := range allCommands(newRoot()) {
		for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
			for _, cmd := range mpdfCommands(line) {
				for _, out := range outputsOf(cmd) {
					n++
					if out = filepath.Clean(out); !strings.HasPrefix(out, "runs/") && out != "runs" {
						t.Errorf("%s example %q writes %s, outside runs/", c.CommandPath(), strings.TrimSpace(line), out)
					}
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("found only %d example outputs: is the parser broken?", n)
	}
}
