package jsonscan

import (
	"fmt"
	"io"
)

// Guard passes a JSON text through from R while it follows the text's
// strings and nesting byte by byte, and fails a Read as soon as a string
// grows longer than MaxString bytes or an element of the top-level array
// or object (a member, key and value, for an object), or a top-level
// scalar, longer than MaxElement. A decoder reading through a Guard never receives the bytes
// past a limit, so it never materialises an over-long value: memory stays
// bounded by the limits, whatever the input's size. Lengths are counted as
// written (escapes and quotes included); a zero limit is no limit. The
// Guard checks no syntax: that stays the decoder's job.
type Guard struct {
	R          io.Reader
	MaxString  int64
	MaxElement int64

	off       int64 // bytes passed
	depth     int
	inStr     bool
	esc       bool
	strStart  int64
	inElem    bool
	elemStart int64
	elem      int
	err       error
	// A \u escape being read: hex digits left, the value so far, where
	// its backslash is; a high surrogate waiting for its low one (wantLow,
	// its backslash at highAt).
	uLeft   int
	uVal    rune
	escAt   int64
	wantLow bool
	highAt  int64
	highVal rune
}

// LimitError is a Guard's failure: a string, or a top-level element,
// starting at byte Offset of the stream (0-based) is longer than Limit.
type LimitError struct {
	String  bool  // a string; else a top-level element
	Offset  int64 // where the string (its opening quote) or the element starts
	Element int   // index of the top-level element it is in (or is)
	Limit   int64
}

func (e *LimitError) Error() string {
	if e.String {
		return fmt.Sprintf("offset %d: a string longer than %d bytes (element %d)", e.Offset, e.Limit, e.Element)
	}
	return fmt.Sprintf("offset %d: element %d is longer than %d bytes", e.Offset, e.Element, e.Limit)
}

// SurrogateError is a Guard's failure on an escaped UTF-16 surrogate
// outside a pair ("\ud800", "\udfff"): no character, which a decoder
// turns into U+FFFD, so that different texts would read alike. Offset is
// its backslash in the stream.
type SurrogateError struct {
	Offset  int64
	Element int
	Escape  rune
}

func (e *SurrogateError) Error() string {
	return fmt.Sprintf("offset %d: a lone UTF-16 surrogate \\u%04x (element %d): not a character, and texts that differ would read alike", e.Offset, e.Escape, e.Element)
}

// Read reads from R and passes on the bytes before the first one over a
// limit; that Read and every later one return the *LimitError.
func (g *Guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.R.Read(p)
	for i := 0; i < n; i++ {
		if g.step(p[i]) {
			return i, g.err
		}
		g.off++
	}
	return n, err
}

// step takes the byte at g.off and reports whether it breaks a limit.
func (g *Guard) step(c byte) bool {
	switch {
	case g.inStr:
		if g.surrogate(c) {
			return true
		}
		switch {
		case g.esc:
			g.esc = false
			if c == 'u' {
				g.uLeft, g.uVal = 4, 0
			}
		case g.uLeft > 0:
		case c == '"':
			g.inStr = false
		case c == '\\':
			g.esc, g.escAt = true, g.off
		}
		if g.inStr && g.MaxString > 0 && g.off-g.strStart > g.MaxString {
			g.err = &LimitError{String: true, Offset: g.strStart, Element: g.elem, Limit: g.MaxString}
			return true
		}
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		return false
	case c == '"':
		g.inStr, g.strStart = true, g.off
	case c == '{' || c == '[':
		g.depth++
		if g.depth == 1 {
			return false // the top-level container itself
		}
	case c == '}' || c == ']':
		g.depth--
		if g.depth <= 0 {
			g.inElem = false
			return false
		}
	case c == ',' && g.depth == 1:
		g.inElem = false
		g.elem++
		return false
	}
	if !g.inElem { // at depth 0, a scalar top-level value counts as one
		g.inElem, g.elemStart = true, g.off
	}
	if g.inElem && g.MaxElement > 0 && g.off-g.elemStart >= g.MaxElement {
		g.err = &LimitError{Offset: g.elemStart, Element: g.elem, Limit: g.MaxElement}
		return true
	}
	return false
}

// surrogate follows \u escapes inside a string, at the byte c, and reports
// whether it completes a lone surrogate (setting g.err). A malformed escape
// is left to the decoder.
func (g *Guard) surrogate(c byte) bool {
	if g.uLeft > 0 {
		d, ok := hexDigit(c)
		if !ok {
			g.uLeft, g.wantLow = 0, false
			return false
		}
		g.uVal = g.uVal<<4 | d
		if g.uLeft--; g.uLeft > 0 {
			return false
		}
		r := g.uVal
		switch {
		case g.wantLow && r >= 0xdc00 && r <= 0xdfff:
			g.wantLow = false
		case g.wantLow:
			return g.lone(g.highAt, g.highVal)
		case r >= 0xd800 && r <= 0xdbff:
			g.wantLow, g.highAt, g.highVal = true, g.escAt, r
		case r >= 0xdc00 && r <= 0xdfff:
			return g.lone(g.escAt, r)
		}
		return false
	}
	// A high surrogate must be followed at once by "\u" and a low one.
	if g.wantLow && !(c == '\\' && !g.esc) && !(g.esc && c == 'u') {
		return g.lone(g.highAt, g.highVal)
	}
	return false
}

func (g *Guard) lone(at int64, r rune) bool {
	g.err = &SurrogateError{Offset: at, Element: g.elem, Escape: r}
	return true
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}
