package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// TestRoundTrip writes episodes and decisions (every field, awkward
// strings and floats) in each compression and reads back identical records.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var want []Record
	for i := range 60 {
		if i%3 == 0 {
			d := randomDecision(rng, 5, false)
			if i == 3 {
				d.Features = []float64{math.SmallestNonzeroFloat64, math.Copysign(0, -1), 1e-300, math.MaxFloat32, 0.1}
				d.Reward = math.MaxFloat64
			}
			want = append(want, Record{Decision: d})
		} else {
			want = append(want, Record{Episode: randomEpisode(rng, i)})
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"r.jsonl", "r.jsonl.gz", "r.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			w, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range want {
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			got, r := readAll(t, ReaderOptions{}, path)
			if len(got) != len(want) || r.Counts().Rejected != 0 {
				t.Fatalf("read %d records (%v), want %d", len(got), r.Counts(), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i].Episode, want[i].Episode) || !reflect.DeepEqual(got[i].Decision, want[i].Decision) {
					t.Fatalf("record %d differs after the round trip:\n got %+v %+v\nwant %+v %+v", i,
						got[i].Episode, got[i].Decision, want[i].Episode, want[i].Decision)
				}
				if got[i].Pos.Line != i+1 {
					t.Errorf("record %d at line %d", i, got[i].Pos.Line)
				}
			}
			// Same records, same bytes.
			again := filepath.Join(dir, "again-"+name)
			w2, _ := Create(again)
			for _, rec := range got {
				w2.Write(rec)
			}
			w2.Close()
			b1, _ := os.ReadFile(path)
			b2, _ := os.ReadFile(again)
			if !bytes.Equal(b1, b2) {
				t.Errorf("writing the same records twice gave different bytes")
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	bad := &Decision{Group: "g", Features: []float64{math.NaN()}, Action: metapolicy.Refine}
	if err := w.WriteDecision(bad); err == nil || !strings.Contains(err.Error(), "features[0]: NaN, want a finite number") {
		t.Errorf("NaN feature: %v", err)
	}
	ok := &Decision{Group: "g", Features: []float64{1, 2}, Action: metapolicy.Refine}
	if err := w.WriteDecision(ok); err != nil {
		t.Fatal(err)
	}
	if ok.Kind != "" {
		t.Error("WriteDecision modified its argument")
	}
	wide := &Decision{Group: "g", Features: []float64{1, 2, 3}, Action: metapolicy.Refine}
	if err := w.WriteDecision(wide); err == nil {
		t.Error("Writer accepted a second feature width")
	}
	ep := episodeOf("4", [][]string{{"4", "4"}, {"4", "4"}}, nil)
	ep.Kind = ""
	ep.Rounds[1].Turns[1].Confidence = ptr(2.0)
	if err := w.WriteEpisode(ep); err == nil || !strings.Contains(err.Error(), "rounds[1].turns[1].confidence: 2 outside [0,1]") {
		t.Errorf("confidence 2: %v", err)
	}
	if err := w.Write(Record{}); err == nil {
		t.Error("Writer wrote an empty record")
	}
	w.Close()
	if w.Records() != 1 || b.String() != `{"kind":"decision","group":"g","features":[1,2],"action":"refine","reward":0}`+"\n" {
		t.Errorf("wrote %d records: %q", w.Records(), b.String())
	}
}
