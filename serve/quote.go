package serve

import (
	"strconv"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// Errors quote a request's values, keys and literals at most maxQuote bytes
// each: a 1 MB number or key in a body must not come back as a 1 MB error
// (TestErrorsQuoteLittle). writeError also cuts a whole message, or field
// path, at maxErrorBytes, in case a quote was missed.
const (
	maxQuote      = jsonscan.MaxQuote
	maxErrorBytes = 1 << 10
)

// clip is s when it is at most maxQuote bytes, else its first bytes (cut
// at a character boundary) followed by "…" and its length: the one rule
// every error of the project quotes by (jsonscan.Clip).
func clip(s string) string { return jsonscan.Clip(s) }

// quote is strconv.Quote of s clipped.
func quote(s string) string {
	if len(s) <= maxQuote {
		return strconv.Quote(s)
	}
	return strconv.Quote(clip(s))
}

// clipLiteral rewrites msg, which starts with the literal lit (as
// jsonscan.NumberMismatch's messages do), with lit clipped.
func clipLiteral(msg, lit string) string {
	if len(lit) <= maxQuote || len(msg) < len(lit) || msg[:len(lit)] != lit {
		return msg
	}
	return clip(lit) + msg[len(lit):]
}

// clipErrorBody bounds what an error body quotes.
func clipErrorBody(eb *ErrorBody) {
	eb.Error = jsonscan.ClipAt(eb.Error, maxErrorBytes)
	eb.Field = jsonscan.ClipAt(eb.Field, maxErrorBytes)
}
