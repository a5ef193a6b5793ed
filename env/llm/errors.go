package llm

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mpdf/mpdf/internal/errmark"
)

// ErrMalformed is wrapped by the errors of a 2xx answer the client cannot
// read: not JSON, no choices, no message, negative token counts. Such an
// answer is not retried: a server that sends one usually sends it again.
var ErrMalformed = errors.New("malformed answer")

// ErrTimeout is wrapped by the error of an attempt that ran past
// Config.Timeout. Timed-out attempts are retried.
var ErrTimeout = errors.New("attempt timed out")

// APIError is an error status from the server (or a 2xx body holding an
// "error" object), with the message the server gave.
type APIError struct {
	StatusCode int    // HTTP status
	Message    string // the server's error message, or the start of its body
	Type       string // the server's error type, when it gave one
	// RetryAfter is the wait the server asked for (Retry-After or
	// retry-after-ms); 0 when it asked for none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("llm: server answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Type != "" {
		s += " (" + e.Type + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Temporary reports whether the request may succeed when sent again:
// 408 Request Timeout, 409 Conflict, 425 Too Early, 429 Too Many
// Requests and every 5xx. Other statuses (400, 401, 403, 404, 422, ...)
// say the request itself is wrong and are not retried.
func (e *APIError) Temporary() bool {
	switch s := e.StatusCode; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict,
		s == http.StatusTooEarly, s == http.StatusTooManyRequests:
		return true
	case s >= 500 && s <= 599:
		return true
	}
	return false
}

// The errors of a collection's output, which a caller words in terms of
// its own settings (the command line's flags): errors.Is tells them.
var (
	// ErrExists: Out exists, and neither Resume nor Overwrite was asked.
	ErrExists = errors.New("exists")
	// ErrResume marks why Out cannot be resumed (its records, torn or
	// foreign).
	ErrResume = errmark.Of("resume", "cannot resume")
	// ErrForeign: Out holds an episode this collection does not play.
	ErrForeign = errors.New("not one of this collection's episodes")
	// ErrShardOutput: Out is a shard's, resumed without its shard.
	ErrShardOutput = errors.New("a shard's output")
	// ErrNotShard: Out was not collected as a shard, resumed as one.
	ErrNotShard = errors.New("not a shard's output")
	// ErrOtherShard: Out is another shard's.
	ErrOtherShard = errors.New("another shard's output")
	// ErrMidway: a killed collection left its finished episodes in Out's
	// spool (data.SpoolPath), neither Resume nor Overwrite was asked.
	ErrMidway = errors.New("left mid-way")
	// ErrReplyTooLong: a reply is longer than Config.MaxReplyBytes.
	ErrReplyTooLong = errors.New("reply too long")
)

// The settings a Config cannot go without, which a caller words in terms
// of where it takes them from (ConfigFromEnv's variables, flags).
var (
	// ErrNoModel: no model is named.
	ErrNoModel = errors.New("no model")
	// ErrNoBaseURL: no base URL is given.
	ErrNoBaseURL = errors.New("no base URL")
)
