package serve

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestDecodeStopsAtLimits: a 1 MiB body of empty deliberations (or agents)
// is refused while decoding, naming the field, on the fast path and on the
// encoding/json one (an escape sends a request there), with allocation
// bounded well below what decoding it whole took (~131 MB).
func TestDecodeStopsAtLimits(t *testing.T) {
	fill := func(prefix, elem, suffix string) []byte {
		n := (1<<20 - len(prefix) - len(suffix)) / (len(elem) + 1)
		return []byte(prefix + strings.Repeat(elem+",", n-1) + elem + suffix)
	}
	for _, c := range []struct {
		name, field string
		body        []byte
	}{
		{"batch", "deliberations", fill(`{"deliberations":[`, `{}`, `]}`)},
		{"batch, json path", "deliberations", fill(`{"mode":"gr\u0065edy","deliberations":[`, `{}`, `]}`)},
		{"batch, escaped key", "deliberations", fill(`{"mode":"gr\u0065edy","deliberation\u0073":[`, `{}`, `]}`)},
		{"batch, other case", "Deliberations", fill(`{"Deliberations":[`, `{}`, `]}`)}, // refused for the case (strict.go)
		{"agents", "agents", fill(`{"round":1,"rounds":1,"agents":[`, `{}`, `]}`)},
		{"agents, json path", "agents", fill(`{"kind":"gs\u006d","agents":[`, `{}`, `]}`)},
		{"batch agents", "deliberations[1].agents", fill(`{"deliberations":[{"agents":[{},{}]},{"agents":[`, `{}`, `]}]}`)},
		{"batch agents, json path", "deliberations[1].agents",
			fill(`{"deliberations":[{"id":"\u0061","agents":[{},{}],"x":{"agents":[1]}},{"agents":[`, `{}`, `]}]}`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var eb *ErrorBody
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			var req DecideRequest
			eb = decodeRequest(c.body, &req)
			runtime.ReadMemStats(&ms1)
			if eb == nil || eb.Kind != "invalid" || eb.Field != c.field || !strings.Contains(eb.Error, "at most") && !strings.Contains(eb.Error, "case-sensitive") {
				t.Fatalf("decodeRequest: %+v, want an invalid %q naming the limit", eb, c.field)
			}
			got := ms1.TotalAlloc - ms0.TotalAlloc
			t.Logf("%d-byte body: %d KiB allocated", len(c.body), got>>10)
			if got > 16<<20 {
				t.Errorf("decoding a %d-byte body allocated %d MiB, want < 16", len(c.body), got>>20)
			}
		})
	}
	// Within the limits, nothing changes: a deliberation whose unknown
	// member holds an array named agents is not counted as agents.
	body := `{"deliberations":[{"id":"\u0061","round":1,"rounds":1,"agents":[{},{}],"x":{"agents":[` +
		strings.Repeat("1,", 100) + `1]}}]}`
	var req DecideRequest
	if eb := decodeRequest([]byte(body), &req); eb == nil || eb.Field != "deliberations[0].x" {
		t.Errorf("unknown member: %+v, want the unknown field deliberations[0].x", eb)
	}
	_, hs, _ := newTestServer(t, Config{})
	code, resp := post(t, hs.URL+"/v1/decide", fill(`{"deliberations":[`, `{}`, `]}`))
	if code != http.StatusBadRequest || !strings.Contains(string(resp), `"field":"deliberations"`) {
		t.Errorf("1 MiB of empty deliberations: %d %s, want 400 naming deliberations", code, resp)
	}
}
