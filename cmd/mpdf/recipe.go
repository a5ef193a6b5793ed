package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/trainer"
)

// The --recipe usage suffixes of train (which has each flag the recipe
// sets) and study (which has some).
const (
	trainRecipeUsage = ": --agent-policy slot --arch attention --loss rank-match --estimator softrank --tau 0.8 --gamma 0.9"
	studyRecipeUsage = ": slot networks, attention over peers, rank-match loss, SoftRankPO τ 0.8, γ 0.9"
)

// recipeFlags are the flags of the settings a recipe may set, by key
// (trainer.RecipeSetting.Key: "_" for "-").
var recipeFlags = []string{"agent-policy", "arch", "loss", "estimator", "tau", "gamma", "features"}

// namedRecipeNote says on stderr, and returns for a run's notes, which
// settings the recipe set and which flags given it left as given; a
// resumed run keeps its own config.
func namedRecipeNote(stderr io.Writer, cmdName, name string, resumed bool, set []trainer.RecipeSetting, f *pflag.FlagSet) string {
	var note string
	if resumed {
		note = fmt.Sprintf("recipe %s: a resumed run keeps its own config (the recipe is not applied again)", name)
	} else {
		parts := make([]string, len(set))
		for i, s := range set {
			parts[i] = "--" + strings.ReplaceAll(s.Key, "_", "-") + " " + s.Value
		}
		note = fmt.Sprintf("recipe %s sets %s", name, strings.Join(parts, " "))
		if given := givenOf(f, recipeFlags...); len(given) > 0 {
			note += "; given, kept: --" + strings.Join(given, ", --")
		}
	}
	fmt.Fprintln(stderr, cmdName+": "+note)
	return note
}

// givenOf are those of names that were given on f.
func givenOf(f *pflag.FlagSet, names ...string) []string {
	var out []string
	for _, n := range names {
		if fl := f.Lookup(n); fl != nil && fl.Changed {
			out = append(out, n)
		}
	}
	return out
}
