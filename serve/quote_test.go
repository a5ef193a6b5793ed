package serve

import (
	"net/http"
	"strings"
	"testing"
)

// TestErrorQuotesAtMost100Bytes: a million-digit round gets a 400 whose
// body quotes at most about 100 bytes of it (issue 34, cause 12: the body
// was 1 MB; jsonscan.NumberMismatch quotes through jsonscan.Clip).
func TestErrorQuotesAtMost100Bytes(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	body := `{"round":` + strings.Repeat("9", 1_000_000) + `,"rounds":1,"agents":[{"answer":"1"},{"answer":"2"}]}`
	code, b := post(t, hs.URL+"/v1/decide", []byte(body))
	if code != http.StatusBadRequest || len(b) > 600 || !strings.Contains(string(b), "round") {
		t.Errorf("%d, %d bytes: %.300s; want a 400 naming round in under 600 bytes", code, len(b), b)
	}
}
