package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestReloadOptIn: POST /v1/reload re-reads the policy only on a server
// that allows it, only as an application/json request without an Origin
// header: a web page cannot trigger it, neither with a CORS-simple request
// (text/plain, a form) nor with a JSON one (a browser adds Origin). A
// refused reload leaves the policy as it was.
func TestReloadOptIn(t *testing.T) {
	reload := func(url, ctype, origin, body string) (int, ErrorBody) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url+"/v1/reload", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var eb ErrorBody
		json.NewDecoder(resp.Body).Decode(&eb)
		return resp.StatusCode, eb
	}
	step := func(url string) int64 {
		t.Helper()
		var info PolicyInfo
		if _, b := get(t, url+"/v1/policy"); json.Unmarshal(b, &info) != nil || info.Step == nil {
			t.Fatalf("GET /v1/policy: %s", b)
		}
		return *info.Step
	}

	// Off by default: the request and a well-formed one alike.
	_, off, path := newTestServer(t, Config{})
	writeCheckpoint(t, path, 2, 200)
	for _, c := range []struct{ ctype, origin string }{{"text/plain", "http://evil"}, {"application/json", ""}} {
		if code, eb := reload(off.URL, c.ctype, c.origin, ""); code != http.StatusForbidden || eb.Kind != "forbidden" {
			t.Errorf("reload (%s, Origin %q) on a server without AllowReload: %d %+v, want 403 forbidden", c.ctype, c.origin, code, eb)
		}
	}
	if st := step(off.URL); st != 100 {
		t.Errorf("step %d after refused reloads, want 100", st)
	}

	// Allowed: JSON only, no Origin, an empty body or {}.
	_, on, path := newTestServer(t, Config{AllowReload: true})
	writeCheckpoint(t, path, 2, 200)
	for _, c := range []struct {
		ctype, origin, body string
		code                int
		kind                string
	}{
		{"text/plain", "http://evil", "", http.StatusForbidden, "forbidden"},
		{"text/plain", "", "", http.StatusUnsupportedMediaType, "content_type"},
		{"application/x-www-form-urlencoded", "", "a=1", http.StatusUnsupportedMediaType, "content_type"},
		{"multipart/form-data; boundary=x", "", "", http.StatusUnsupportedMediaType, "content_type"},
		{"", "", "", http.StatusUnsupportedMediaType, "content_type"},
		{"application/json", "http://evil", "{}", http.StatusForbidden, "forbidden"},
		{"application/json", "null", "{}", http.StatusForbidden, "forbidden"},
		{"application/json", "", `{"path":"/etc/passwd"}`, http.StatusBadRequest, "bad_json"},
	} {
		if code, eb := reload(on.URL, c.ctype, c.origin, c.body); code != c.code || eb.Kind != c.kind {
			t.Errorf("reload (%q, Origin %q, body %q): %d %+v, want %d %s", c.ctype, c.origin, c.body, code, eb, c.code, c.kind)
		}
	}
	if st := step(on.URL); st != 100 {
		t.Fatalf("step %d after refused reloads, want 100", st)
	}
	if code, eb := reload(on.URL, "application/json; charset=utf-8", "", ""); code != http.StatusOK {
		t.Fatalf("reload: %d %+v", code, eb)
	}
	writeCheckpoint(t, path, 3, 300)
	if code, eb := reload(on.URL, "application/json", "", " {} "); code != http.StatusOK {
		t.Fatalf("reload with {}: %d %+v", code, eb)
	}
	if st := step(on.URL); st != 300 {
		t.Errorf("step %d after the reloads, want 300", st)
	}
}
