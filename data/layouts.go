package data

import (
	"slices"
	"strings"
)

// A TranscriptLayout is one file layout of debate transcripts, as far as
// a reader of rollout records must know it: its names, how a file in it
// begins, and the Source its imported episodes carry. It is written once,
// here, for everything that tells layouts apart: this package's Reader
// (which must know a transcript without importing data/transcript, which
// imports this package), data/transcript (which adds each one's reader,
// its detection and its --layout names), the behaviour check of a
// training run and the viewer (by Source). A new layout is an entry in
// transcriptLayouts and a reader registered in data/transcript; both
// packages' tests hold the two lists to each other.
type TranscriptLayout struct {
	Name    string   // as chosen: mpdf import --layout NAME, replay:FILE,layout=NAME
	Aliases []string // other names that choose it (lower case)
	Source  string   // the scheme of its imported episodes' Source: "llm-debate" in "llm-debate:FILE"
	// Opens is the first JSON byte of a file in the layout (after a byte
	// order mark and white space); no two layouts share one, so that
	// detection can go by it.
	Opens byte
	Want  string // what a detection error says the layout's file is: "a JSON object (LLM-Debate layout: ...)"
	What  string // what TranscriptError says the file is
	// sniff tells, from the bytes after Opens, whether a file is in the
	// layout and not rollout records; decided is false when the bytes are
	// too few to tell.
	sniff func(s *sniffer) (yes, decided bool)
}

// The layouts' names (data/transcript's LayoutDebate and LayoutAgora).
const (
	TranscriptDebate = "debate"
	TranscriptAgora  = "agora"
)

// transcriptLayouts are the layouts, in the order detection's words and
// the --layout names list them.
var transcriptLayouts = []TranscriptLayout{
	{
		Name: TranscriptDebate, Aliases: []string{"llm-debate", "dylan"}, Source: "llm-debate", Opens: '{',
		Want:  "a JSON object (LLM-Debate layout: question → [agent_contexts, gold, ...])",
		What:  "LLM-Debate layout: question → [agent_contexts, gold]",
		sniff: sniffDebate,
	},
	{
		Name: TranscriptAgora, Aliases: []string{"llm-agora"}, Source: "llm-agora", Opens: '[',
		Want:  "a JSON array (LLM-Agora layout: [{question, agent_response, answer}, ...])",
		What:  "LLM-Agora layout: [{question, agent_response, answer}]",
		sniff: sniffAgora,
	},
}

// TranscriptLayouts returns the transcript layouts (a copy), in their
// order.
func TranscriptLayouts() []TranscriptLayout { return slices.Clone(transcriptLayouts) }

// TranscriptLayoutNamed returns the layout whose Name is name.
func TranscriptLayoutNamed(name string) (TranscriptLayout, bool) {
	i := slices.IndexFunc(transcriptLayouts, func(l TranscriptLayout) bool { return l.Name == name })
	if i < 0 {
		return TranscriptLayout{}, false
	}
	return transcriptLayouts[i], true
}

// ImportedFrom returns the layout an episode with this Source was
// imported from (mpdf import: "llm-debate:FILE", "llm-agora:FILE
// models=..."); false for any other Source (a replay's, a collection's,
// the simulator's).
func ImportedFrom(source string) (TranscriptLayout, bool) {
	for _, l := range transcriptLayouts {
		if strings.HasPrefix(source, l.Source) && strings.HasPrefix(source[len(l.Source):], ":") {
			return l, true
		}
	}
	return TranscriptLayout{}, false
}
