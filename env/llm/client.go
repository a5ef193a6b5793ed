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
// wait before a retry). An Env may run many games at once. Game.Start
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
	Reasoning    string // "reasoning_content", when the server splits it off
	FinishReason string // "stop", "length", ...
	Model        string // the model the server says answered
	Usage        Usage
	Attempts     int // attempts made, 1 when the first succeeded
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
	Failures         int64 // Chat calls that returned an error
	PromptTokens     int64 // from the server's usage
	CompletionTokens int64
	MissingUsage     int64 // successful answers without usage
}

// Client sends chat completions to one OpenAI-compatible server. It is safe
// for concurrent use; at most Config.Concurrency requests are in flight at
// once, whatever the number of goroutines calling it.
type Client struct {
	cfg      Config
	endpoint string
	http     *http.Client
	sem      chan struct{}

	rngMu sync.Mutex
	rng   *rand.Rand // jitter

	// sleep waits d or until ctx is done; tests replace it to record the
	// waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error

	requests, attempts, retries, failures atomic.Int64
	promptTokens, completionTokens        atomic.Int64
	missingUsage                          atomic.Int64
}

// NewClient checks cfg, fills its defaults and returns a client.
func NewClient(cfg Config) (*Client, error) {
	endpoint, err := cfg.withDefaults()
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
		endpoint: endpoint,
		http:     hc,
		sem:      make(chan struct{}, cfg.Concurrency),
		rng:      rand.New(rand.NewPCG(cfg.Backoff.Seed, 0x6d706466)),
		sleep:    sleepCtx,
	}, nil
}

// Config returns the client's configuration, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// Endpoint returns the URL requests are posted to.
func (c *Client) Endpoint() string { return c.endpoint }

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Requests: c.requests.Load(), Attempts: c.attempts.Load(), Retries: c.retries.Load(),
		Failures: c.failures.Load(), PromptTokens: c.promptTokens.Load(),
		CompletionTokens: c.completionTokens.Load(), MissingUsage: c.missingUsage.Load(),
	}
}

// Chat posts req and returns the first choice. It retries what may pass
// when sent again (timeouts, connection errors, 408/409/425/429/5xx),
// waiting as Config.Backoff says or as long as the server's Retry-After
// asks, up to Config.MaxRetries times. It returns at once on a request the
// server rejects (other 4xx, with the server's message in an *APIError),
// on a malformed answer (ErrMalformed) and when ctx is done (ctx.Err()
// wrapped).
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	c.requests.Add(1)
	resp, err := c.chat(ctx, req)
	if err != nil {
		c.failures.Add(1)
		return resp, err
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
	for attempt := 1; ; attempt++ {
		resp, err := c.attempt(ctx, body)
		if err == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: %w", c.endpoint, ctx.Err())
		}
		var apiErr *APIError
		retryable := errors.Is(err, ErrTimeout) || errors.Is(err, errTransport) ||
			(errors.As(err, &apiErr) && apiErr.Temporary())
		if !retryable {
			return Response{Attempts: attempt}, err
		}
		if attempt > *c.cfg.MaxRetries {
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: giving up after %d attempts: %w", c.endpoint, attempt, err)
		}
		wait := c.backoff(attempt)
		if apiErr != nil {
			wait = max(wait, min(apiErr.RetryAfter, c.cfg.MaxRetryAfter))
		}
		c.retries.Add(1)
		if serr := c.sleep(ctx, wait); serr != nil {
			return Response{Attempts: attempt}, fmt.Errorf("llm: POST %s: %w (waiting to retry after: %v)", c.endpoint, serr, err)
		}
	}
}

// errTransport marks a request that failed before a status came back
// (refused, reset, DNS) or whose body broke off: retried.
var errTransport = errors.New("transport error")

// attempt sends one request, holding a concurrency slot for its duration.
func (c *Client) attempt(ctx context.Context, body []byte) (Response, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	defer func() { <-c.sem }()
	c.attempts.Add(1)

	actx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, ErrTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
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
		return Response{}, c.sendError(ctx, actx, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody+1))
	if err != nil {
		return Response{}, c.sendError(ctx, actx, err)
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
func (c *Client) sendError(ctx, actx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(actx), ErrTimeout):
		return fmt.Errorf("llm: POST %s: %w after %v", c.endpoint, ErrTimeout, c.cfg.Timeout)
	}
	return fmt.Errorf("llm: POST %s: %w: %v", c.endpoint, errTransport, err)
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
