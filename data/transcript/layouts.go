package transcript

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/data"
)

// layout is one registered layout: its entry in package data (names,
// first byte, detection's words, Source) and its readers. Each of the
// layouts' lists is read from here: detection (eachSlow, eachFast),
// ParseLayout and LayoutNames.
type layout struct {
	data.TranscriptLayout
	// read is the reference reading, by encoding/json through a Guard,
	// from the top-level value on.
	read func(dec *json.Decoder, name string, meta Meta, critic bool, rep *Report, fn func(q *Question) error) error
	// fast reads as read does, from the top-level value on, or gives up
	// with errFallback (fast.go); nil: read alone reads the layout.
	fast func(f *fastReader, meta Meta, critic bool, rep *Report, fn func(q *Question) error, delivered *int) error
}

// layouts are the registered layouts, in package data's order; each of
// data.TranscriptLayouts must be here (TestLayoutsRegistered).
var layouts = []layout{
	register(LayoutDebate, eachDebate, (*fastReader).debate),
	register(LayoutAgora, eachAgora, (*fastReader).agora),
}

// register pairs package data's entry named l with its readers.
func register(l Layout, read func(dec *json.Decoder, name string, meta Meta, critic bool, rep *Report, fn func(q *Question) error) error,
	fast func(f *fastReader, meta Meta, critic bool, rep *Report, fn func(q *Question) error, delivered *int) error) layout {
	e, ok := data.TranscriptLayoutNamed(string(l))
	if !ok {
		panic("transcript: layout " + string(l) + " is not in package data's list")
	}
	return layout{TranscriptLayout: e, read: read, fast: fast}
}

// layoutNamed returns the registered layout l.
func layoutNamed(l Layout) (*layout, bool) {
	i := slices.IndexFunc(layouts, func(e layout) bool { return Layout(e.Name) == l })
	if i < 0 {
		return nil, false
	}
	return &layouts[i], true
}

// layoutOpening returns the layout whose files begin with the JSON byte c.
func layoutOpening(c byte) (Layout, bool) {
	for _, l := range layouts {
		if l.Opens == c {
			return Layout(l.Name), true
		}
	}
	return "", false
}

// detectWant is what detection wants, for its error: every layout's
// Want, joined by "or".
func detectWant() string {
	w := make([]string, len(layouts))
	for i, l := range layouts {
		w[i] = l.Want
	}
	return strings.Join(w, " or ")
}

// LayoutNames are the names ParseLayout reads, "auto" first, as a flag's
// usage lists them.
func LayoutNames() []string {
	names := []string{"auto"}
	for _, l := range layouts {
		names = append(names, l.Name)
	}
	return names
}

// layoutChoices lists LayoutNames as a sentence: "auto, debate or agora".
func layoutChoices() string {
	names := LayoutNames()
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// sourceScheme is the scheme of the Source of an episode imported from a
// file in layout l (data.TranscriptLayout.Source).
func sourceScheme(l Layout) string {
	e, _ := layoutNamed(l)
	return e.Source
}
