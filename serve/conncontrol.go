package serve

import (
	"net/http"
	"time"
)

// The connection under a ResponseWriter: its deadlines and flush.

// setReadDeadline sets the read deadline of w's connection, when w reaches
// one (http.ResponseController's way, without its error for a writer that
// does not, and without its allocation).
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	if c, ok := unwrapTo[interface{ SetReadDeadline(time.Time) error }](w); ok {
		_ = c.SetReadDeadline(t)
	}
}

// setWriteDeadline sets the write deadline of w's connection, as
// setReadDeadline does the read deadline.
func setWriteDeadline(w http.ResponseWriter, t time.Time) {
	if c, ok := unwrapTo[interface{ SetWriteDeadline(time.Time) error }](w); ok {
		_ = c.SetWriteDeadline(t)
	}
}

// flushConn sends what w has buffered, and says whether that failed.
func flushConn(w http.ResponseWriter) error {
	if c, ok := unwrapTo[interface{ FlushError() error }](w); ok {
		return c.FlushError()
	}
	return nil
}

// unwrapTo finds the writer under w (through Unwrap) that implements T.
func unwrapTo[T any](w http.ResponseWriter) (T, bool) {
	for {
		if v, ok := w.(T); ok {
			return v, true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			var zero T
			return zero, false
		}
		w = u.Unwrap()
	}
}
