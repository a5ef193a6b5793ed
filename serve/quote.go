package serve

import (
	"strconv"
	"unicode/utf8"
)

// Errors quote a request's values, keys and literals at most maxQuote bytes
// each: a 1 MB number or key in a body must not come back as a 1 MB error
// (TestErrorsQuoteLittle). writeError also cuts a whole message, or field
// path, at maxErrorBytes, in case a quote was missed.
const (
	maxQuote      = 100
	maxErrorBytes = 1 << 10
)

// clip is s when it is at most maxQuote bytes, else its first bytes (cut
// at a character boundary) followed by "…" and its length.
func clip(s string) string { return clipAt(s, maxQuote) }

func clipAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

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
	eb.Error = clipAt(eb.Error, maxErrorBytes)
	eb.Field = clipAt(eb.Field, maxErrorBytes)
}
