package data

import (
	"strings"
	"testing"
)

// TestTranscriptLayoutsDistinct: every layout is told apart from the
// others by its name, its first byte and its Source, and says what it is.
func TestTranscriptLayoutsDistinct(t *testing.T) {
	names, opens, sources := map[string]string{}, map[byte]string{}, map[string]string{}
	for _, l := range TranscriptLayouts() {
		for _, n := range append([]string{l.Name}, l.Aliases...) {
			if n == "" || n == "auto" || n != strings.ToLower(n) {
				t.Errorf("%s: name %q: want a lower-case name other than auto", l.Name, n)
			}
			if o, ok := names[n]; ok {
				t.Errorf("%s: name %q is also %s's", l.Name, n, o)
			}
			names[n] = l.Name
		}
		if o, ok := opens[l.Opens]; ok || l.Opens != '{' && l.Opens != '[' {
			t.Errorf("%s: opens with %q (also %q's): detection goes by it", l.Name, l.Opens, o)
		}
		opens[l.Opens] = l.Name
		if o, ok := sources[l.Source]; ok || l.Source == "" || strings.Contains(l.Source, ":") {
			t.Errorf("%s: Source %q (also %q's): want a scheme of its own", l.Name, l.Source, o)
		}
		sources[l.Source] = l.Name
		if l.Want == "" || l.What == "" || l.sniff == nil {
			t.Errorf("%s: Want, What or sniff missing", l.Name)
		}
		if got, ok := TranscriptLayoutNamed(l.Name); !ok || got.Name != l.Name {
			t.Errorf("TranscriptLayoutNamed(%q) = %q, %v", l.Name, got.Name, ok)
		}
	}
	if _, ok := TranscriptLayoutNamed("auto"); ok {
		t.Error(`TranscriptLayoutNamed("auto") found a layout`)
	}
}

func TestImportedFrom(t *testing.T) {
	cases := []struct{ source, want string }{
		{"llm-debate:gsm_3_2.json", TranscriptDebate},
		{"llm-agora:agora_gsm.json models=a,b", TranscriptAgora},
		{"llm-debate:", TranscriptDebate},
		{"llm-debate", ""}, // no scheme: not what import writes
		{"llm-debater:x", ""},
		{"replay:gsm_3_2.json", ""},
		{"openai:gpt-4o", ""},
		{"simulator", ""},
		{"", ""},
	}
	for _, c := range cases {
		l, ok := ImportedFrom(c.source)
		if l.Name != c.want || ok != (c.want != "") {
			t.Errorf("ImportedFrom(%q) = %q, %v; want %q", c.source, l.Name, ok, c.want)
		}
	}
}
