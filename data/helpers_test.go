package data

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

func ptr[T any](v T) *T { return &v }

// episodeOf builds a valid episode from answers[t][i]; every turn of
// round ≥ 1 refines. conf[t][i] < 0 means missing; conf may be nil.
func episodeOf(gold string, answers [][]string, conf [][]float64) *Episode {
	ep := &Episode{Kind: KindEpisode, ID: "ep", Task: "task", Gold: gold, Agents: len(answers[0])}
	for t, row := range answers {
		var r Round
		for i, a := range row {
			u := Turn{Answer: a}
			if t > 0 {
				u.Action = ptr(metapolicy.Refine)
			}
			if conf != nil && conf[t][i] >= 0 {
				u.Confidence = ptr(conf[t][i])
			}
			r.Turns = append(r.Turns, u)
		}
		ep.Rounds = append(ep.Rounds, r)
	}
	return ep
}

// randomEpisode is a valid episode using every field, for round trips.
func randomEpisode(rng *rand.Rand, id int) *Episode {
	n := 2 + rng.IntN(3)
	rounds := 1 + rng.IntN(4)
	ep := &Episode{
		Kind: KindEpisode, ID: fmt.Sprintf("ep-%d", id), Task: fmt.Sprintf("task-%d", rng.IntN(5)),
		Agents: n, Source: "simulator", Policy: "random",
	}
	if rng.IntN(4) > 0 {
		ep.Gold = fmt.Sprint(rng.IntN(3))
	}
	if rng.IntN(2) == 0 {
		ep.Question = "What is 1+1? <b>&\"quoted\"</b>\n\tünïcode"
	}
	for t := range rounds {
		var r Round
		for range n {
			u := Turn{Answer: fmt.Sprint(rng.IntN(4)), Tokens: rng.IntN(3000)}
			if rng.IntN(5) == 0 {
				u.Answer = ""
			}
			if t > 0 {
				u.Action = ptr(metapolicy.Action(rng.IntN(metapolicy.NumActions)))
				if rng.IntN(3) > 0 {
					u.LogProb = ptr(-rng.ExpFloat64())
				}
			}
			if rng.IntN(3) > 0 {
				u.Confidence = ptr(rng.Float64())
			}
			if rng.IntN(2) == 0 {
				u.Profile = Profile{Steps: rng.IntN(20), Tokens: rng.IntN(500), Hedges: rng.IntN(3)}
				if rng.IntN(2) == 0 {
					u.Profile.SelfConfidence = ptr(float64(rng.IntN(11)) / 10)
				}
			}
			if rng.IntN(3) == 0 {
				u.Text = "The answer is \\boxed{" + u.Answer + "}"
				u.Exchanges = []Exchange{{Role: "refine", Prompt: "p", Response: u.Text, PromptTokens: 12, CompletionTokens: 7}}
			}
			if len(r.Turns)%2 == 0 { // no draw: the stream stays what older tests saw
				u.Model = "Llama-2 13B, \"chat\" ünï"
			}
			r.Turns = append(r.Turns, u)
		}
		ep.Rounds = append(ep.Rounds, r)
	}
	return ep
}

// randomDecision is a valid decision of the given width; exact32 makes
// every feature a float32 value, so that packing keeps it exactly.
func randomDecision(rng *rand.Rand, width int, exact32 bool) *Decision {
	d := &Decision{Kind: KindDecision, Group: fmt.Sprintf("g%d", rng.IntN(7)), Features: make([]float64, width),
		Action: metapolicy.Action(rng.IntN(metapolicy.NumActions)), Reward: rng.NormFloat64()}
	for k := range d.Features {
		v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		if exact32 {
			v = float64(float32(v))
		}
		d.Features[k] = v
	}
	if rng.IntN(3) > 0 {
		d.LogProb = ptr(-rng.ExpFloat64())
	}
	return d
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll reads every record of the patterns with opts.
func readAll(t testing.TB, opts ReaderOptions, patterns ...string) ([]Record, *Reader) {
	t.Helper()
	r, err := Open(patterns, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []Record
	for {
		rec, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return recs, r
			}
			t.Fatalf("Next: %v", err)
		}
		recs = append(recs, rec)
	}
}
