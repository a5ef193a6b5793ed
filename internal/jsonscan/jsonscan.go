// Package jsonscan holds the byte-level pieces shared by mpdf's two
// hand-written JSON fast paths: data's decision lines and serve's decide
// requests. A Scanner reads white space, punctuation, strings without
// escapes and numbers in JSON's grammar, without allocating. Each piece
// reports false on anything it does not handle, and the fast paths then
// fall back to encoding/json, which stays the reference for what a document
// means and for every error message: so a Scanner accepts a subset of
// JSON, never anything outside it.
//
// Beside the Scanner: Guard, a reader that stops a JSON stream at a string
// or top-level element over a limit before a decoder buffers it (untrusted
// files), and NumberMismatch, which words why a number does not fit its
// field (out of range, negative, not an integer) for error messages.
package jsonscan

import "unicode/utf8"

// Scanner reads B from offset I.
type Scanner struct {
	B []byte
	I int
}

// Space skips JSON white space.
func (s *Scanner) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Byte skips white space and then c, reporting whether c was there.
func (s *Scanner) Byte(c byte) bool {
	s.Space()
	if s.I < len(s.B) && s.B[s.I] == c {
		s.I++
		return true
	}
	return false
}

// End skips white space and reports whether nothing is left.
func (s *Scanner) End() bool {
	s.Space()
	return s.I == len(s.B)
}

// Null skips white space and then the literal null, reporting whether it
// was there.
func (s *Scanner) Null() bool {
	s.Space()
	if s.I+4 <= len(s.B) && string(s.B[s.I:s.I+4]) == "null" {
		s.I += 4
		return true
	}
	return false
}

// RawString reads a string without escapes or control characters, in
// valid UTF-8, and returns a view of the bytes between its quotes.
func (s *Scanner) RawString() ([]byte, bool) {
	if !s.Byte('"') {
		return nil, false
	}
	start, ascii := s.I, true
	for ; s.I < len(s.B); s.I++ {
		switch c := s.B[s.I]; {
		case c == '"':
			str := s.B[start:s.I]
			s.I++
			return str, ascii || utf8.Valid(str)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// Number skips white space and reads a number in JSON's grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, returning its literal
// (which strconv parses; strconv alone would also take "+1", ".5", "1.").
func (s *Scanner) Number() ([]byte, bool) {
	s.Space()
	i, ok := NumberEnd(s.B, s.I)
	if !ok {
		return nil, false
	}
	lit := s.B[s.I:i]
	s.I = i
	return lit, true
}

// NumberEnd returns the end of the number in JSON's grammar that starts at
// b[i] (see Number), or false when none starts there. A number that runs
// to the end of b may go on past it: a reader of a stream with more to
// come checks that end < len(b).
func NumberEnd(b []byte, i int) (end int, ok bool) {
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

// BOM is the UTF-8 byte order mark. JSON forbids it, but editors on
// Windows write it: mpdf's readers skip one at the start of an input.
const BOM = "\xef\xbb\xbf"

// TrimBOM returns b without a leading BOM.
func TrimBOM(b []byte) []byte {
	if len(b) >= 3 && string(b[:3]) == BOM {
		return b[3:]
	}
	return b
}
