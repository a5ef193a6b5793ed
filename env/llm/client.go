package llm

// Retries, timeouts, errors.
//
// Each attempt is bounded by Config.Timeout, which covers reading the
// whole body. Retried, up to MaxRetries times: timeouts (ErrTimeout),
// connection errors and broken bodies, and statuses 408, 409, 425, 429
// and 5xx. Retry k waits min(Max, Initial·2^(k−1)) less up to Jitter of
// it (drawn from a PCG stream seeded by Backoff.Seed, so waits repeat), or
// the server's retry-after-ms / Retry-After (seconds or HTTP date) when
// longer, capped at MaxRetryAfter. Not retried: other 4xx, returned as an
// *APIError quoting the server's message (the OpenAI, llama.cpp, vLLM,
// Ollama and FastAPI error shapes are understood); 2xx bodies that are not
// JSON, have no choices or no message, or negative token counts
// (ErrMalformed, quoting the start of the body); and cancellation of the
// caller's context, which also ends a wait between attempts.
//
// Concurrency and determinism.
//
// A Client is safe for concurrent use and keeps at most Concurrency
// requests in flight (a slot is held during an attempt, not during the
// wait before a retry), spread over its endpoints as pool.go says. An Env may run many games at once. Game.Start
// draws one number from the episode's rng; each call's "seed" is derived
// from it, the round, the agent and the role, so a replayed episode sends
// the same seeds whatever order concurrent calls happen in (Options.NoSeed
// sends none). Whether the server then answers the same is up to the
// server: vLLM and llama.cpp do for the same model, batch and hardware.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// Request is one chat completion to ask for.
type Request struct {
	Messages []Message
	// Seed is sent as "seed" when not nil; vLLM, llama.cpp and Ollama
	// then sample reproducibly (given the same server and batch).
	Seed *int64
}

// Response is the first choice of a completion.
type Response struct {
	Content      string // the message content; "" when the server sent null
	Null         bool   // the server sent "content": null (counted: Stats.NullContent)
	Reasoning    string // "reasoning_content", when the server splits it off
	FinishReason string // "stop", "length", ...
	Model        string // the model the server says answered
	Usage        Usage
	Attempts     int // attempts made, 1 when the first succeeded, 0 when the cache answered
}

// Usage is the server's token count of one completion. Known is false when
// the answer carried no usage (or lacked one of the two counts): the counts
// are then zero, and callers that need a number estimate one (see
// answer.EstimateTokens).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	Known            bool
}

// Stats counts what a Client has done since it was made.
type Stats struct {
	Requests         int64 // Chat calls
	Attempts         int64 // HTTP requests sent
	Retries          int64 // attempts after a failed one
	Moved            int64 // of them, those moved at once to another live endpoint
	Failures         int64 // Chat calls that returned an error
	PromptTokens     int64 // from the server's usage
	CompletionTokens int64
	MissingUsage     int64 // successful answers without usage
	// Cached counts the answers taken from Config.Cache: no request sent,
	// no token paid (they are not in the token counts).
	Cached int64
	// NullContent counts answers whose content was null: recorded as
	// empty replies (a server that cannot answer, or one that put the
	// whole reply elsewhere), which the report warns about.
	NullContent int64
}

// Client sends chat completions to an OpenAI-compatible server, or spreads
// them over several replicas of one (see pool.go). It is safe for
// concurrent use; at most Config.Concurrency requests are in flight at
// once, whatever the number of goroutines calling it.
type Client struct {
	cfg      Config
	endpoint string // the first endpoint's
	http     *http.Client
	sem      chan struct{}
	pool     *pool

	rngMu sync.Mutex
	rng   *rand.Rand // jitter

	// sleep waits d or until ctx is done; tests replace it to record the
	// waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error

	requests, attempts, retries, failures atomic.Int64
	moved                                 atomic.Int64
	promptTokens, completionTokens        atomic.Int64
	missingUsage                          atomic.Int64
	cached, nullContent                   atomic.Int64
}

// NewClient checks cfg, fills its defaults and returns a client.
func NewClient(cfg Config) (*Client, error) {
	endpoints, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Concurrency
		hc = &http.Client{Transport: tr}
	}
	return &Client{
		cfg:      cfg,
		endpoint: endpoints[0],
		http:     hc,
		sem:      make(chan struct{}, cfg.Concurrency),
		pool:     newPool(endpoints, cfg.PerEndpoint, cfg.Backoff),
		rng:      rand.New(rand.NewPCG(cfg.Backoff.Seed, 0x6d706466)),
		sleep:    sleepCtx,
	}, nil
}

// Config returns the client's configuration, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// Endpoint returns the URL requests are posted to (the first endpoint's,
// when there are several).
func (c *Client) Endpoint() string { return c.endpoint }

// Endpoints returns each endpoint's counters and state, in the order the
// configuration gave them.
func (c *Client) Endpoints() []EndpointStats { return c.pool.stats() }

// Health is the endpoints' state for a progress line, such as
// "endpoints 2/3 live, out: http://10.0.0.7:8000/v1"; "" when there is one.
func (c *Client) Health() string { return c.pool.health() }

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Requests: c.requests.Load(), Attempts: c.attempts.Load(), Retries: c.retries.Load(), Moved: c.moved.Load(),
		Failures: c.failures.Load(), PromptTokens: c.promptTokens.Load(),
		CompletionTokens: c.completionTokens.Load(), MissingUsage: c.missingUsage.Load(),
		Cached: c.cached.Load(), NullContent: c.nullContent.Load(),
	}
}

// Chat posts req and returns the first choice. It retries what may pass
// when sent again (timeouts, connection errors, 408/409/425/429/5xx): at
// once on another live endpoint when there is one, else waiting as
// Config.Backoff says or as long as the server's Retry-After asks, up to
// Config.MaxRetries times. It returns at once on a request the
// server rejects (other 4xx, with the server's message in an *APIError),
// on a malformed answer (ErrMalformed) and when ctx is done (ctx.Err()
// wrapped).
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	c.requests.Add(1)
	resp, err := c.chat(ctx, req)
	if err == nil {
		err = c.checkReply(resp)
	}
	if err != nil {
		c.failures.Add(1)
		return resp, err
	}
	if resp.Null {
		c.nullContent.Add(1)
	}
	if resp.Attempts == 0 { // from the cache: nothing paid now
		c.cached.Add(1)
		return resp, nil
	}
	if resp.Usage.Known {
		c.promptTokens.Add(int64(resp.Usage.PromptTokens))
		c.completionTokens.Add(int64(resp.Usage.CompletionTokens))
	} else {
		c.missingUsage.Add(1)
	}
	return resp, nil
}

func (c *Client) chat(ctx context.Context, req Request) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, errors.New("llm: request has no messages")
	}
	body, err := json.Marshal(wireRequest{
		Model: c.cfg.Model, Messages: req.Messages, Temperature: c.cfg.Temperature,
		MaxTokens: c.cfg.MaxTokens, Seed: req.Seed,
	})
	if err != nil {
		return Response{}, fmt.Errorf("llm: encode request: %w", err)
	}
	if c.cfg.Cache != nil {
		if resp, ok := c.cfg.Cache.get(body); ok {
			return resp, nil
		}
	}
	retries, moves := 0, 0
	failed := "" // the endpoint of the last failed attempt
	for attempt := 1; ; attempt++ {
		resp, url, err := c.attempt(ctx, body, failed)
		if err == nil {
			resp.Attempts = attempt
			if c.cfg.Cache != nil { // paid: kept before it is used, whatever happens next
				if err := c.cfg.Cache.put(body, resp); err != nil {
					return resp, err
				}
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: %w", url, ctx.Err())
		}
		var apiErr *APIError
		retryable := errors.Is(err, ErrTimeout) || errors.Is(err, errTransport) ||
			(errors.As(err, &apiErr) && apiErr.Temporary())
		if !retryable {
			return Response{Attempts: attempt}, err
		}
		failed = url
		if moves < len(c.pool.eps)-1 && c.pool.liveOther(url) {
			moves++
			c.retries.Add(1)
			c.moved.Add(1)
			continue
		}
		if retries >= *c.cfg.MaxRetries {
			if down := c.pool.allOut(); len(c.pool.eps) > 1 && down != "" {
				return Response{Attempts: attempt}, &allOutError{fmt.Sprintf("llm: giving up after %d attempts: all %d endpoints are failing: %s", attempt, len(c.pool.eps), down), err}
			}
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: giving up after %d attempts: %w", url, attempt, err)
		}
		retries++
		wait := c.backoff(retries)
		if apiErr != nil {
			wait = max(wait, min(apiErr.RetryAfter, c.cfg.MaxRetryAfter))
		}
		c.retries.Add(1)
		if serr := c.sleep(ctx, wait); serr != nil {
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: %w (waiting to retry after: %v)", url, serr, err)
		}
	}
}

// checkReply refuses a reply longer than Config.MaxReplyBytes: a reply
// goes into the peers' prompts of the next round and into the episode, so
// the cap bounds an episode's memory (docs/operations.md has the sum).
func (c *Client) checkReply(r Response) error {
	if n := len(r.Content) + len(r.Reasoning); n > c.cfg.MaxReplyBytes {
		return fmt.Errorf("llm: %w: %d bytes of content and reasoning, over the cap of %d (MaxReplyBytes)", ErrReplyTooLong, n, c.cfg.MaxReplyBytes)
	}
	return nil
}

// errTransport marks a request that failed before a status came back
// (refused, reset, DNS) or whose body broke off: retried.
var errTransport = errors.New("transport error")

// attempt sends one request to an endpoint of the pool, holding a
// concurrency slot and one of the endpoint's for its duration. It returns
// the endpoint's URL (the first's when it got none). It avoids the endpoint
// at avoid while another is live.
func (c *Client) attempt(ctx context.Context, body []byte, avoid string) (Response, string, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Response{}, c.endpoint, ctx.Err()
	}
	defer func() { <-c.sem }()
	s, err := c.pool.acquire(ctx, avoid)
	if err != nil {
		return Response{}, c.endpoint, err
	}
	c.attempts.Add(1)
	resp, err := c.send(ctx, s.ep.url, body)
	c.pool.release(s, resp, err)
	return resp, s.ep.url, err
}

// send posts body to url and reads the answer.
func (c *Client) send(ctx context.Context, url string, body []byte) (Response, error) {

	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, ErrTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "mpdf-llm")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return Response{}, c.sendError(ctx, actx, url, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody+1))
	if err != nil {
		return Response{}, c.sendError(ctx, actx, url, err)
	}
	if len(data) > maxBody {
		return Response{}, fmt.Errorf("llm: %w: body longer than %d bytes", ErrMalformed, maxBody)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		e := &APIError{StatusCode: hresp.StatusCode,
			RetryAfter: retryAfter(hresp.Header.Get("retry-after-ms"), hresp.Header.Get("Retry-After"), time.Now())}
		e.Message, e.Type = errorMessage(data)
		return Response{}, e
	}
	return decodeResponse(data, hresp.StatusCode)
}

// sendError classifies a failure to send or read: the caller's context,
// this attempt's timeout, or the transport.
func (c *Client) sendError(ctx, actx context.Context, url string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(actx), ErrTimeout):
		return fmt.Errorf("llm: POST %s: %w after %v", url, ErrTimeout, c.cfg.Timeout)
	}
	var uerr *neturl.Error // its text repeats the method and URL
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("llm: POST %s: %w: %v", url, errTransport, err)
}

// backoff is the wait before retry k ≥ 1 (see Backoff).
func (c *Client) backoff(k int) time.Duration {
	b := c.cfg.Backoff
	d := b.Initial
	for i := 1; i < k && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	if b.Jitter > 0 {
		c.rngMu.Lock()
		u := c.rng.Float64()
		c.rngMu.Unlock()
		d = time.Duration(float64(d) * (1 - b.Jitter*u))
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
