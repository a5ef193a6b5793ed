package replay

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specReason matches what a ParseSpec error says after the quoted spec:
// the part at fault and why.
var specReason = regexp.MustCompile(`^: (want replay:GLOB|empty part$|no file$|(kind|layout|critic)= given twice$|critic=.*: want on or off$|(transcript|answer): unknown (kind|layout) )`)

// FuzzParseSpec feeds arbitrary strings as a replay spec. It must never
// panic; an error must quote the spec and name the part at fault; and a
// spec it accepts has file parts only among its globs, and written back in
// canonical form (formatSpec) parses to the same Spec.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"replay:a.json", "replay:d/*.json,b.json", "replay:x.json,layout=agora",
		"replay:kind=GSM,x.json,layout=debate,y.json", "replay:x.json,kind= Math ,layout=LLM-Agora,critic=on",
		"replay:./kind=1.json", "replay:a.json,critic=off", "replay:a.json,layout=",
		"sim", "replay:", "replay:a.json,,b.json", "replay:kind=math", "replay:a.json,layout=dylan2",
		"replay:a.json,kind=physics", "replay:a.json,kind=gsm,kind=gsm", "replay:a.json,critic=on,critic=off",
		"replay:a.json,critic=yes", "replay:a.json,kind=", "replay:critic=on", "replay:,", "replay:é,\x00,\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			rest, ok := strings.CutPrefix(err.Error(), "replay: spec "+strconv.Quote(s))
			if !ok || !specReason.MatchString(rest) {
				t.Fatalf("error %q: want replay: spec %q: PART: reason", err, s)
			}
			return
		}
		if len(sp.Globs) == 0 || !sp.CriticSet && sp.Critic {
			t.Fatalf("accepted %q as %+v", s, sp)
		}
		for _, g := range sp.Globs {
			if g == "" || strings.Contains(g, ",") || strings.HasPrefix(g, "kind=") ||
				strings.HasPrefix(g, "layout=") || strings.HasPrefix(g, "critic=") {
				t.Fatalf("%q: glob %q is not a file part", s, g)
			}
		}
		canon := formatSpec(sp)
		again, err := ParseSpec(canon)
		if err != nil {
			t.Fatalf("%q parsed, its canonical form %q does not: %v", s, canon, err)
		}
		if d := cmp.Diff(sp, again); d != "" {
			t.Fatalf("%q and its canonical form %q differ (-first +second):\n%s", s, canon, d)
		}
	})
}

// formatSpec writes sp back as a spec: the globs in order, then the options
// it sets.
func formatSpec(sp Spec) string {
	parts := slices.Clone(sp.Globs)
	if sp.Options.Task != "" {
		parts = append(parts, "kind="+string(sp.Options.Task))
	}
	if sp.Options.Layout != "" {
		parts = append(parts, "layout="+string(sp.Options.Layout))
	}
	if sp.CriticSet {
		parts = append(parts, "critic="+map[bool]string{true: "on", false: "off"}[sp.Critic])
	}
	return SpecPrefix + strings.Join(parts, ",")
}
