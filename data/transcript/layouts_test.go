package transcript

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// TestLayoutsRegistered: every layout package data knows has a reader
// here, in data's order, and ParseLayout chooses it by each of its names
// in any case.
func TestLayoutsRegistered(t *testing.T) {
	known := data.TranscriptLayouts()
	if len(layouts) != len(known) {
		t.Fatalf("%d layouts registered, package data knows %d", len(layouts), len(known))
	}
	for i, l := range known {
		if layouts[i].Name != l.Name || layouts[i].read == nil {
			t.Errorf("layout %d: registered %q (reader %v), data's is %q", i, layouts[i].Name, layouts[i].read != nil, l.Name)
		}
		if got, ok := layoutOpening(l.Opens); !ok || string(got) != l.Name {
			t.Errorf("a file opening with %q detected as %q, want %q", l.Opens, got, l.Name)
		}
		for _, n := range append([]string{l.Name}, l.Aliases...) {
			for _, s := range []string{n, strings.ToUpper(n), " " + n + "\n"} {
				if got, err := ParseLayout(s); err != nil || string(got) != l.Name {
					t.Errorf("ParseLayout(%q) = %q, %v; want %q", s, got, err, l.Name)
				}
			}
		}
	}
	_, err := ParseLayout("bogus")
	if err == nil || !strings.Contains(err.Error(), "(want "+strings.Join(LayoutNames()[:len(LayoutNames())-1], ", ")+" or ") {
		t.Errorf("ParseLayout(bogus): %v, want the names listed", err)
	}
}

// TestLayoutSources: an episode imported from a file in each layout, read
// by the fast and the slow path, carries its layout's Source, which
// data.ImportedFrom (the behaviour check's, the viewer's) reads back.
func TestLayoutSources(t *testing.T) {
	files := map[Layout]string{
		LayoutDebate: `{"What is 1+1?": [[[{"role": "user", "content": "q"}, {"role": "assistant", "content": "2"}], ["q", "2"]], "2"]}`,
		LayoutAgora:  `[{"question_id": 0, "question": "What is 1+1?", "agent_response": {"m1": ["2"], "m2": ["3"]}, "answer": "2"}]`,
	}
	for _, l := range data.TranscriptLayouts() {
		text, ok := files[Layout(l.Name)]
		if !ok {
			t.Errorf("layout %s: no test file", l.Name)
			continue
		}
		for _, slow := range []bool{false, true} {
			slowOnly = slow
			var eps int
			rep, err := Each(strings.NewReader(text), "gsm_x.json", Options{}, func(q *Question) error {
				eps++
				ep := ToEpisode(q, EpisodeOptions{})
				if got, ok := data.ImportedFrom(ep.Source); !ok || got.Name != l.Name {
					t.Errorf("%s (slow %v): Source %q read back as %q", l.Name, slow, ep.Source, got.Name)
				}
				return nil
			})
			slowOnly = false
			if err != nil || eps != 1 || string(rep.Layout) != l.Name {
				t.Errorf("%s (slow %v): %d episodes, layout %v, %v", l.Name, slow, eps, rep, err)
			}
		}
	}
}
