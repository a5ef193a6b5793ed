package llm

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/metapolicy"
)

// TestImportAndLiveFeaturesAgree feeds the same three texts through the
// import path (an LLM-Debate transcript read by transcript) and the live
// path (a game against a server that returns them) and asserts that the
// policy's features of round 0 are identical: answers, steps, tokens,
// hedges and stated confidence are read by one package, with one rule.
func TestImportAndLiveFeaturesAgree(t *testing.T) {
	question := "Can you answer the following question as accurately as possible? Which hormone lowers blood sugar?: A) Glucagon, B) Insulin, C) Cortisol, D) Adrenaline Explain your answer, putting the answer in the form (X) at the end of your response."
	texts := []string{
		"<think>Maybe glucagon? Wait, no.</think>\nInsulin lets cells take up glucose. I think it is clear.\n\nConfidence: 80%\n\n(B)",
		"Glucagon raises it. Cortisol raises it too. Perhaps the answer is:\n\nX) Insulin",
		"1. Adrenaline raises blood sugar.\n2. So not D.\nThe answer is **A**",
	}
	personas := []string{"p0", "p1", "p2"}

	// Live: persona k's solve call gets texts[k]; no judge, so the
	// confidence is missing as in transcripts.
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		k := slices.Index(personas, req.Messages[0].Content)
		completion(w, req, texts[k])
	})
	c, _ := testClient(t, s, nil)
	e, err := NewEnv(c, []Task{{ID: "q", Question: question, Gold: "B", Kind: answer.MMLU}},
		Options{Agents: 3, Personas: personas, NoJudge: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.Start(0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	live, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}

	// Import: the same texts as a one-question transcript.
	ctxs := make([][]map[string]string, 3)
	for k := range ctxs {
		ctxs[k] = []map[string]string{{"role": "user", "content": question}, {"role": "assistant", "content": texts[k]}}
	}
	doc, _ := json.Marshal(map[string]any{question: []any{ctxs, "B"}})
	var imported []data.Turn
	_, err = transcript.Each(strings.NewReader(string(doc)), "mmlu_x.json", transcript.Options{}, func(q *transcript.Question) error {
		imported = transcript.ToEpisode(q, transcript.EpisodeOptions{}).Rounds[0].Turns
		return nil
	})
	if err != nil || len(imported) != 3 {
		t.Fatalf("import: %v, %d turns", err, len(imported))
	}

	if got := []string{live[0].Answer, live[1].Answer, live[2].Answer}; !slices.Equal(got, []string{"B", "B", "A"}) {
		t.Errorf("live answers %q, want B B A", got)
	}
	feats := func(turns []data.Turn) [][]float64 {
		states := make([]metapolicy.AgentState, len(turns))
		for i := range turns {
			states[i] = turns[i].State()
		}
		var out [][]float64
		for self := range turns {
			f := make([]float64, metapolicy.FeatureWidth)
			if err := metapolicy.Featurize(f, &metapolicy.Observation{Self: self, Round: 1, Rounds: 2, Agents: states}); err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		}
		return out
	}
	fl, fi := feats(live), feats(imported)
	for k := range fl {
		if !slices.Equal(fl[k], fi[k]) {
			t.Errorf("agent %d: live features %v\nimported features %v", k, fl[k], fi[k])
		}
		if live[k].Answer != imported[k].Answer || live[k].Profile.Steps != imported[k].Profile.Steps ||
			live[k].Profile.Tokens != imported[k].Profile.Tokens || live[k].Profile.Hedges != imported[k].Profile.Hedges {
			t.Errorf("agent %d: live %+v %+v, imported %+v %+v", k, live[k].Answer, live[k].Profile, imported[k].Answer, imported[k].Profile)
		}
	}
	if live[0].Profile.SelfConfidence == nil || *live[0].Profile.SelfConfidence != 0.8 {
		t.Errorf("agent 0: stated confidence %v, want 0.8", live[0].Profile.SelfConfidence)
	}
}
