package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// Every command that has --out has -o, and every one that has --policy has
// -p: one spelling a user learns once (issue 33).
func TestShortFlagsEverywhere(t *testing.T) {
	short := map[string]string{"out": "o", "policy": "p"}
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for name, s := range short {
			if f := c.Flags().Lookup(name); f != nil {
				n++
				if f.Shorthand != s {
					t.Errorf("%s --%s: shorthand %q, want -%s", c.CommandPath(), name, f.Shorthand, s)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if n < 10 {
		t.Errorf("%d commands with --out or --policy: the walk missed them", n)
	}
}
