package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBadRequests: each malformed request gets a 4xx whose JSON body names
// the field at fault, and the server keeps serving.
func TestBadRequests(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	good := `{"round":1,"rounds":3,"agents":[{"answer":"1","confidence":0.5},{"answer":"2"}]}`
	cases := []struct {
		name, body string
		code       int
		kind       string
		field      string
		msg        string // substring of the error
	}{
		{"empty", ``, 400, "bad_json", "", "body: empty"},
		{"not JSON", `hello`, 400, "bad_json", "", "offset 1"},
		{"truncated", `{"round":1,"agents":[{"answer":"1"}`, 400, "bad_json", "", "ends early"},
		{"array body", `[1,2]`, 400, "bad_json", "", "want a JSON object"},
		{"trailing data", good + ` {}`, 400, "bad_json", "", "data after the JSON object"},
		{"NaN literal", `{"round":1,"rounds":3,"agents":[{"answer":"1","confidence":NaN},{}]}`, 400, "bad_json", "", "invalid character 'N'"},
		{"NaN string", `{"round":1,"rounds":3,"agents":[{"answer":"1"},{"confidence":"NaN"}]}`, 400, "invalid", "agents[1].confidence", "agents[1].confidence: string, want a number"},
		{"confidence out of range", `{"round":1,"rounds":3,"agents":[{},{},{"confidence":1.4}]}`, 400, "invalid", "agents[2].confidence", "agents[2].confidence: 1.4 outside [0,1]"},
		{"negative confidence", `{"round":1,"rounds":3,"agents":[{"confidence":-0.1},{}]}`, 400, "invalid", "agents[0].confidence", "outside [0,1]"},
		{"huge number", `{"round":1,"rounds":3,"agents":[{"confidence":1e400},{}]}`, 400, "invalid", "agents[0].confidence", "agents[0].confidence: 1e400 overflows a 64-bit float"},
		{"negative seed, greedy", `{"round":1,"rounds":3,"seed":-5,"agents":[{},{}]}`, 400, "invalid", "seed", "seed: -5 is negative: want a non-negative integer"},
		{"answer a number", `{"round":1,"rounds":3,"agents":[{"answer":42},{}]}`, 400, "invalid", "agents[0].answer", "number, want a string"},
		{"round a string", `{"round":"1","rounds":3,"agents":[{},{}]}`, 400, "invalid", "round", "round: string, want an integer"},
		{"round fraction", `{"round":1.5,"rounds":3,"agents":[{},{}]}`, 400, "invalid", "round", "want an integer"},
		{"unknown field", `{"round":1,"rounds":3,"agents":[{},{}],"agnets":[]}`, 400, "invalid", "agnets", "unknown field"},
		{"nested unknown field", `{"round":1,"rounds":3,"agents":[{},{"confidance":0.3}]}`, 400, "invalid", "agents[1].confidance", "agents[1].confidance: unknown field"},
		{"agents an object", `{"round":1,"rounds":3,"agents":{"a":1}}`, 400, "invalid", "agents", "object, want an array"},
		{"no agents", `{"round":1,"rounds":3}`, 400, "invalid", "agents", "required"},
		{"one agent", `{"round":1,"rounds":3,"agents":[{}]}`, 400, "invalid", "agents", "1 agent(s), want ≥ 2"},
		{"no rounds", `{"round":1,"agents":[{},{}]}`, 400, "invalid", "rounds", "want ≥ 1"},
		{"round past rounds", `{"round":4,"rounds":3,"agents":[{},{}]}`, 400, "invalid", "round", "4 outside [1, rounds=3]"},
		{"bad mode", `{"round":1,"rounds":3,"agents":[{},{}],"mode":"best"}`, 400, "invalid", "mode", `"best", want "greedy" or "sample"`},
		{"negative seed", `{"round":1,"rounds":3,"agents":[{},{}],"mode":"sample","seed":-1}`, 400, "invalid", "seed", "seed: -1 is negative: want a non-negative integer"},
		{"negative steps", `{"round":1,"rounds":3,"agents":[{},{"profile":{"steps":-2}}]}`, 400, "invalid", "agents[1].profile.steps", "-2, want ≥ 0"},
		{"self confidence", `{"round":1,"rounds":3,"agents":[{},{"profile":{"self_confidence":2}}]}`, 400, "invalid", "agents[1].profile.self_confidence", "outside [0,1]"},
		{"text and profile", `{"kind":"gsm","round":1,"rounds":3,"agents":[{},{"text":"42","profile":{}}]}`, 400, "invalid", "agents[1].profile", "not both"},
		{"text without kind", `{"round":1,"rounds":3,"agents":[{},{"text":"42"}]}`, 400, "invalid", "kind", "needs a kind: gsm8k (gsm), mmlu, arithmetic or math"},
		{"tokens without text", `{"round":1,"rounds":3,"agents":[{},{"completion_tokens":3}]}`, 400, "invalid", "agents[1].completion_tokens", "only with text"},
		{"history too many rounds", `{"round":1,"rounds":3,"agents":[{"answer":"1"},{"answer":"2"}],"history":[["1","2"],["1","2"]]}`, 400, "invalid", "history", "2 rounds, want round=1"},
		{"history empty", `{"round":2,"rounds":3,"agents":[{},{}],"history":[]}`, 400, "invalid", "history", "0 rounds, want round=2"},
		{"history short row", `{"round":2,"rounds":3,"agents":[{"answer":"1"},{"answer":"2"}],"history":[["1"],["1","2"]]}`, 400, "invalid", "history[0]", "1 answers for 2 agents"},
		{"history last round", `{"round":2,"rounds":3,"agents":[{"answer":"1"},{"answer":"2"}],"history":[["1","2"],["1","3"]]}`, 400, "invalid", "history[1][1]", `"3", but agents[1]'s answer is "2"`},
		{"history not strings", `{"round":1,"rounds":3,"agents":[{},{}],"history":[[1,2]]}`, 400, "invalid", "history[0][0]", "number, want a string"},
		{"history in batch", `{"deliberations":[{"round":1,"rounds":1,"agents":[{},{}],"history":[["",""]]},{"round":2,"rounds":2,"agents":[{},{}],"history":[["",""],["",""],["",""]]}]}`, 400, "invalid", "deliberations[1].history", "3 rounds, want round=2"},
		{"both single and batch", `{"agents":[{},{}],"deliberations":[]}`, 400, "invalid", "agents", "not both"},
		{"empty batch", `{"deliberations":[]}`, 400, "invalid", "deliberations", "empty batch"},
		{"batch with top-level round", `{"round":1,"deliberations":[{"round":1,"rounds":1,"agents":[{},{}]}]}`, 400, "invalid", "deliberations", "not at the top level"},
		{"bad agent in batch", `{"deliberations":[{"round":1,"rounds":1,"agents":[{},{}]},{"round":1,"rounds":1,"agents":[{},{"confidence":3}]}]}`, 400, "invalid", "deliberations[1].agents[1].confidence", "deliberations[1].agents[1].confidence: 3 outside [0,1]"},
		{"type error in batch", `{"deliberations":[{"round":1,"rounds":1,"agents":[{},{}]},{"round":1,"rounds":1,"agents":[{},{"answer":true}]}]}`, 400, "invalid", "deliberations[1].agents[1].answer", "bool, want a string"},
		{"too many agents", `{"round":1,"rounds":1,"agents":[` + strings.Repeat(`{},`, MaxAgents) + `{}]}`, 400, "invalid", "agents", "more than 64 agents, at most 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := post(t, hs.URL+"/v1/decide", []byte(c.body))
			var eb ErrorBody
			if err := json.Unmarshal(body, &eb); err != nil {
				t.Fatalf("status %d, body %q is not an error object: %v", code, body, err)
			}
			if code != c.code || eb.Kind != c.kind || eb.Field != c.field || !strings.Contains(eb.Error, c.msg) {
				t.Errorf("status %d %+v\nwant %d kind %q field %q error containing %q", code, eb, c.code, c.kind, c.field, c.msg)
			}
		})
	}
	if code, body := post(t, hs.URL+"/v1/decide", []byte(good)); code != 200 {
		t.Fatalf("after the bad requests, a good one got %d: %s", code, body)
	}
}

// TestRoutesAndMethods: unknown routes and wrong methods get JSON errors.
func TestRoutesAndMethods(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	for _, c := range []struct {
		method, path string
		code         int
		kind         string
	}{
		{"GET", "/v1/decide", 405, "method"},
		{"POST", "/healthz", 405, "method"},
		{"GET", "/v1/reload", 405, "method"},
		{"GET", "/v2/decide", 404, "not_found"},
	} {
		req, _ := http.NewRequest(c.method, hs.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var eb ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		if err != nil || resp.StatusCode != c.code || eb.Kind != c.kind {
			t.Errorf("%s %s: %d %+v (%v), want %d %s", c.method, c.path, resp.StatusCode, eb, err, c.code, c.kind)
		}
	}
}

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLargeRequests: a 10 MB body gets 413 without being read whole, 10⁵
// agents get 400, and neither leaves memory behind.
func TestLargeRequests(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	big := append([]byte(`{"round":1,"rounds":1,"agents":[{"answer":"`), bytes.Repeat([]byte("9"), 10<<20)...)
	big = append(big, `"},{}]}`...)
	many := []byte(`{"round":1,"rounds":1,"agents":[` + strings.Repeat(`{},`, 100_000-1) + `{}]}`)
	before := heapAfterGC()
	for range 5 {
		code, body := post(t, hs.URL+"/v1/decide", big)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "longer than 1048576 bytes") {
			t.Fatalf("10 MB body: %d %s", code, body)
		}
		code, body = post(t, hs.URL+"/v1/decide", many)
		if code != http.StatusBadRequest || !strings.Contains(string(body), `"field":"agents"`) || !strings.Contains(string(body), "more than 64 agents, at most 64") {
			t.Fatalf("10⁵ agents: %d %s", code, body)
		}
	}
	// Every buffer a request used is garbage or pooled: the live heap grows
	// by at most a couple of pooled body buffers (≤ 1 MiB each).
	if after := heapAfterGC(); after > before+8<<20 {
		t.Errorf("live heap %d MiB after the large requests, %d MiB before", after>>20, before>>20)
	}
	if code, _ := post(t, hs.URL+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
		t.Fatalf("after large requests: %d", code)
	}
}

// TestSlowClient: a client that sends its body slower than the read
// timeout is cut off with 408 while the others are served.
func TestSlowClient(t *testing.T) {
	s, err := New(Config{PolicyPath: writeTestPolicy(t), ReadTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()

	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"round\":")
	// Meanwhile, the server serves others.
	for range 3 {
		if code, body := post(t, url+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
			t.Fatalf("while a client is slow: %d %s", code, body)
		}
	}
	// The slow client gets 408 (or a closed connection) long before it
	// could finish; the deadline only keeps a broken server from hanging
	// the test.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"kind":"timeout"`) {
			t.Errorf("slow client got %d %s", resp.StatusCode, b)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server never cut off the slow client")
	}
}

// TestConcurrencyLimit: beyond MaxInflight decide requests at once, the
// next gets 429 at once; health checks are not limited.
func TestConcurrencyLimit(t *testing.T) {
	s, err := New(Config{PolicyPath: writeTestPolicy(t), MaxInflight: 2})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()
	body := `{"round":1,"rounds":1,"agents":[{},{}]}`
	var writers []*io.PipeWriter
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(url+"/v1/decide", "application/json", pr)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
		pw.Write([]byte(body[:10])) // the request is in the handler, reading its body
	}
	waitFor(t, func() bool { return len(s.sem) == 2 })
	code, b := post(t, url+"/v1/decide", []byte(body))
	if code != http.StatusTooManyRequests || !strings.Contains(string(b), `"kind":"overloaded"`) {
		t.Errorf("third request: %d %s", code, b)
	}
	if code, _ := get(t, url+"/healthz"); code != 200 {
		t.Errorf("healthz while saturated: %d", code)
	}
	for _, pw := range writers {
		pw.Write([]byte(body[10:]))
		pw.Close()
	}
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("the requests in flight got %v", codes)
	}
	if code, _ := post(t, url+"/v1/decide", []byte(body)); code != 200 {
		t.Errorf("after the load: %d", code)
	}
}

// waitFor polls cond until it holds (or fails the test after a generous
// bound that only a broken server reaches).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
	}
}
