package serve

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// TestHandlerAllocations: once its pools are warm, the handler allocates
// next to nothing per request (the arena's promise); what remains is the
// body's strings (one allocation) and metapolicy.Greedy's, one per agent. The bound leaves room for a garbage
// collection emptying the pools during the run.
func TestHandlerAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop what it is given")
	}
	s, err := New(Config{PolicyPath: writeTestPolicy(t)})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"round":2,"rounds":3,"id":"x","agents":[{"answer":"42","confidence":0.9},{"answer":"41","profile":{"steps":3,"tokens":120}},{"answer":"42"}]}`)
	rd := bytes.NewReader(body)
	r, err := http.NewRequest(http.MethodPost, "/v1/decide", io.NopCloser(rd))
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = int64(len(body))
	w := &nullWriter{h: http.Header{}}
	allocs := testing.AllocsPerRun(200, func() {
		rd.Reset(body)
		w.code = 0
		s.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			t.Fatalf("status %d", w.code)
		}
	})
	if allocs > 6 {
		t.Errorf("%.1f allocations per request, want at most 6 (3 agents)", allocs)
	}
}
