package llm

// Config holds the server (BaseURL, Model, APIKey; BaseURLs for more
// replicas, PerEndpoint requests in flight at each), the per-attempt
// Timeout (default 5 min: local models on a CPU are slow), MaxRetries
// (nil = 3; new(0) asks for none), Backoff (500 ms doubling up to 30 s, optional seeded jitter),
// MaxRetryAfter (60 s), Concurrency (4 requests in flight), and the
// sampling fields Temperature (nil = the server's default) and MaxTokens
// (0 = the server's). Zero fields take the defaults.
//
// Flags win over the environment: the command line starts from
// ConfigFromEnv and overwrites each field whose flag was given.

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mpdf/mpdf/internal/errmark"
)

// Config configures a Client. Zero fields take the defaults below; a field
// whose zero value is meaningful says how to ask for it.
type Config struct {
	// BaseURL is the server's API root, such as http://127.0.0.1:8080/v1;
	// requests go to BaseURL + "/chat/completions". A URL that already
	// ends in /chat/completions is used as it is. Required, unless
	// BaseURLs is given.
	BaseURL string
	// BaseURLs are more replicas of the same model (vLLM or SGLang
	// servers, say): the requests spread over BaseURL, when not empty, and
	// these (see pool.go). Each is written as BaseURL is; none may repeat.
	BaseURLs []string
	// PerEndpoint is the most requests in flight at one endpoint; 0 means
	// Concurrency divided over the endpoints, rounded up, so that the
	// replicas left when one drops out are not loaded past the share they
	// were sized for. It is Concurrency when there is one endpoint.
	PerEndpoint int
	// Model is the "model" field of every request. Required: OpenAI,
	// vLLM and Ollama route by it; llama.cpp's server accepts any name.
	Model string
	// APIKey is sent as "Authorization: Bearer KEY" when not empty; it
	// appears in no record or error.
	APIKey string

	// Timeout bounds one attempt (connect, wait, read the whole body);
	// 0 means DefaultTimeout. Local models on a CPU are slow: raise it
	// rather than retrying answers that are merely long.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt; nil
	// means DefaultMaxRetries. A pointer so that 0 (no retry) can be asked
	// for: new(0).
	MaxRetries *int
	// Backoff spaces the retries.
	Backoff Backoff
	// MaxRetryAfter caps how long a server's Retry-After may make the
	// client wait before a retry; 0 means DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// Concurrency is the most requests in flight at once from this client;
	// 0 means DefaultConcurrency.
	Concurrency int

	// Temperature is the sampling temperature; nil leaves it to the
	// server. A pointer so that 0 (greedy) can be asked for.
	Temperature *float64
	// MaxTokens bounds each completion ("max_tokens"); 0 leaves it to the
	// server.
	MaxTokens int

	// MaxReplyBytes caps one reply (content and reasoning): a longer one
	// is an error (ErrReplyTooLong), not retried; 0 means
	// DefaultMaxReplyBytes. Replies go into the peers' prompts and the
	// episode, so the cap bounds what an episode holds.
	MaxReplyBytes int
	// Cache, when set, answers a request it holds without sending it,
	// and keeps every answer the server gives (see Cache).
	Cache *Cache

	// HTTPClient sends the requests; nil means a client of the package's
	// own with keep-alive connections for Concurrency requests. Its own
	// Timeout, if any, applies on top of Timeout.
	HTTPClient *http.Client
}

// Backoff is the retry schedule: retry k ≥ 1 waits
//
//	d_k = min(Max, Initial·2^(k−1)) · (1 − Jitter·u),  u uniform in [0,1)
//
// or the server's Retry-After when that is longer. u comes from a PCG
// stream seeded with Seed, so that the same seed gives the same waits.
type Backoff struct {
	Initial time.Duration // 0 means DefaultBackoffInitial
	Max     time.Duration // 0 means DefaultBackoffMax
	// Jitter is the fraction of d_k drawn away at random, in [0,1]; 0
	// means none. Spreading retries (0.2 to 0.5) helps when many clients
	// share a server that has just failed them all at once.
	Jitter float64
	Seed   uint64
}

// Defaults of Config's zero fields.
const (
	DefaultTimeout        = 5 * time.Minute
	DefaultMaxRetries     = 3
	DefaultBackoffInitial = 500 * time.Millisecond
	DefaultBackoffMax     = 30 * time.Second
	DefaultMaxRetryAfter  = 60 * time.Second
	DefaultConcurrency    = 4
	// DefaultMaxReplyBytes is 256 KiB, some 64k tokens of text: room for
	// a reasoning model's longest answers, while a 3-agent, 3-round
	// episode stays under 32 MB (docs/operations.md).
	DefaultMaxReplyBytes = 256 << 10
)

// Environment variables read by ConfigFromEnv, first found wins.
var (
	EnvBaseURL = []string{"MPDF_OPENAI_BASE_URL", "OPENAI_BASE_URL"}
	EnvModel   = []string{"MPDF_OPENAI_MODEL"}
	EnvAPIKey  = []string{"MPDF_OPENAI_API_KEY", "OPENAI_API_KEY"}
)

// ConfigFromEnv returns a Config with BaseURL, Model and APIKey taken from
// the environment (EnvBaseURL, EnvModel, EnvAPIKey) and every other field
// zero. Command-line flags take precedence: a caller overwrites a field
// with a flag's value when the flag was given.
func ConfigFromEnv() Config {
	return Config{
		BaseURL: firstEnv(EnvBaseURL),
		Model:   firstEnv(EnvModel),
		APIKey:  firstEnv(EnvAPIKey),
	}
}

// WithEnv is c with the environment's server (ConfigFromEnv's BaseURL),
// and its model and key unless c's own are given (a command line's flags,
// even empty).
func (c Config) WithEnv(modelGiven, keyGiven bool) Config {
	env := ConfigFromEnv()
	c.BaseURL = env.BaseURL
	if !modelGiven {
		c.Model = env.Model
	}
	if !keyGiven {
		c.APIKey = env.APIKey
	}
	return c
}

func firstEnv(names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// configScope is the scope of Config's settings out of range
// (*errmark.Setting, keyed timeout, concurrency, per_endpoint, max_tokens,
// max_retries); 0 is each one's default.
const configScope = "llm: config"

// withDefaults checks c and fills its zero fields. It returns the
// endpoint URLs, BaseURL's first.
func (c *Config) withDefaults() ([]string, error) {
	var endpoints []string
	seen := map[string]string{}
	bases := c.BaseURLs // BaseURL may be left empty when BaseURLs names the servers
	if c.BaseURL != "" || len(bases) == 0 {
		bases = append([]string{c.BaseURL}, bases...)
	}
	for _, base := range bases {
		ep, err := endpointURL(base)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[ep]; dup {
			return nil, fmt.Errorf("llm: config: base URL %q: the same server as %q", base, prev)
		}
		seen[ep] = base
		endpoints = append(endpoints, ep)
	}
	if c.Model == "" {
		return nil, errmark.Mark(errors.New("llm: config: model: empty"), ErrNoModel)
	}
	switch {
	case c.Timeout < 0:
		return nil, errmark.Bad(configScope, "timeout", c.Timeout, "negative; want ≥ 0 (0: "+DefaultTimeout.String()+")")
	case c.Concurrency < 0:
		return nil, errmark.Bad(configScope, "concurrency", c.Concurrency, fmt.Sprintf("negative; want ≥ 0 (0: %d)", DefaultConcurrency))
	case c.PerEndpoint < 0:
		return nil, errmark.Bad(configScope, "per_endpoint", c.PerEndpoint, "negative; want ≥ 0 (0: the concurrency over the endpoints)")
	case c.MaxTokens < 0:
		return nil, errmark.Bad(configScope, "max_tokens", c.MaxTokens, "negative; want ≥ 0 (0: the server's)")
	case c.MaxReplyBytes < 0 || c.MaxReplyBytes > maxBody:
		return nil, errmark.Bad(configScope, "max_reply_bytes", c.MaxReplyBytes, fmt.Sprintf("want 0 ≤ bytes ≤ %d, what one answer's body may hold (0: %d)", maxBody, DefaultMaxReplyBytes))
	case c.Backoff.Initial < 0 || c.Backoff.Max < 0 || c.MaxRetryAfter < 0:
		return nil, fmt.Errorf("llm: config: backoff: negative duration")
	case !(c.Backoff.Jitter >= 0 && c.Backoff.Jitter <= 1):
		return nil, fmt.Errorf("llm: config: backoff jitter %v: outside [0,1]", c.Backoff.Jitter)
	case c.MaxRetries != nil && *c.MaxRetries < 0:
		return nil, errmark.Bad(configScope, "max_retries", *c.MaxRetries, "negative; want ≥ 0 (0: none)")
	case c.Temperature != nil && !(*c.Temperature >= 0 && !math.IsInf(*c.Temperature, 1)):
		return nil, fmt.Errorf("llm: config: temperature %v: want a finite value ≥ 0", *c.Temperature)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRetries == nil {
		c.MaxRetries = new(DefaultMaxRetries)
	} else {
		c.MaxRetries = new(*c.MaxRetries) // the caller's variable may change
	}
	if c.Backoff.Initial == 0 {
		c.Backoff.Initial = DefaultBackoffInitial
	}
	if c.Backoff.Max == 0 {
		c.Backoff.Max = DefaultBackoffMax
	}
	if c.Backoff.Max < c.Backoff.Initial {
		c.Backoff.Max = c.Backoff.Initial
	}
	if c.MaxRetryAfter == 0 {
		c.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxReplyBytes == 0 {
		c.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if c.PerEndpoint == 0 {
		c.PerEndpoint = (c.Concurrency + len(endpoints) - 1) / len(endpoints)
	}
	c.BaseURLs = append([]string(nil), c.BaseURLs...) // the caller's slice may change
	return endpoints, nil
}

// endpointURL checks a base URL and returns the URL requests are posted to.
func endpointURL(base string) (string, error) {
	if base == "" {
		return "", errmark.Mark(errors.New("llm: config: base URL: empty"), ErrNoBaseURL)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("llm: config: base URL %q: %w (want http://HOST[:PORT]/PATH)", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("llm: config: base URL %q: want http:// or https://HOST[:PORT]/PATH", base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("llm: config: base URL %q: has a query or fragment", base)
	}
	trimmed := strings.TrimRight(base, "/")
	if strings.HasSuffix(trimmed, "/chat/completions") {
		return trimmed, nil
	}
	return trimmed + "/chat/completions", nil
}

// SetBaseURLs sets the servers given on a command line: the base URLs
// given, then those of file (ReadBaseURLs) when file is not "". When there
// are any they replace c's (the environment's); otherwise c is unchanged.
func (c *Config) SetBaseURLs(given []string, file string) error {
	urls := append([]string(nil), given...)
	if file != "" {
		more, err := ReadBaseURLs(file)
		if err != nil {
			return err
		}
		urls = append(urls, more...)
	}
	if len(urls) > 0 {
		c.BaseURL, c.BaseURLs = "", urls
	}
	return nil
}

// Bounds of a file of base URLs (ReadBaseURLs).
const (
	MaxBaseURLs       = 1024 // endpoints in one file
	maxBaseURLLineLen = 4096 // bytes in one line
)

// ReadBaseURLs reads a file of base URLs, one a line, for Config.BaseURLs.
// Blank lines and lines starting with # are skipped, as are spaces around
// a URL. A bad line is an error naming the file and the line.
func ReadBaseURLs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 256), maxBaseURLLineLen)
	var urls []string
	seen := map[string]int{} // endpoint → line
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		ep, err := endpointURL(s)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s", path, line, strings.TrimPrefix(err.Error(), "llm: config: "))
		}
		if prev, dup := seen[ep]; dup {
			return nil, fmt.Errorf("%s:%d: %s: the same server as line %d", path, line, s, prev)
		}
		seen[ep] = line
		if len(urls) == MaxBaseURLs {
			return nil, fmt.Errorf("%s:%d: more than %d base URLs", path, line, MaxBaseURLs)
		}
		urls = append(urls, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", path, line+1, maxBaseURLLineLen)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(urls) == 0 {
		return nil, fmt.Errorf("%s: no base URL in it (one a line; # starts a comment)", path)
	}
	return urls, nil
}
