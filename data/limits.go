package data

import (
	"io"
	"reflect"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// MaxTextBytes caps one string of a rollout record (a turn's text, a
// prompt, a question, an answer) and, in package transcript, one string of
// a transcript, as written in the JSON between its quotes (escapes
// counted, so that a reader can stop at the limit while streaming). The longest text
// of the shared real transcripts is 136 KB (a reasoning model's answer);
// 4 MiB is some 30 times that, about a million tokens, more than any
// model's context window holds. A longer string is rejected with its path
// and the limit: it is a runaway generation or hostile input, and every
// string read is later held, hashed or parsed.
const MaxTextBytes = 4 << 20

// LimitJSON returns r passed through a guard that fails the read at the
// first string longer than maxString bytes, or top-level element longer
// than maxElement, with a *LimitError (as written, escapes counted; 0 is no
// limit). A decoder reading through it never holds the over-long value.
// Package transcript reads its files so; the guard lives in this layer
// with the other JSON pieces the readers share.
func LimitJSON(r io.Reader, maxString, maxElement int64) io.Reader {
	return &jsonscan.Guard{R: r, MaxString: maxString, MaxElement: maxElement}
}

// LimitError is LimitJSON's error: a string (String) or top-level element
// starting at byte Offset, in top-level element Element, over Limit.
type LimitError = jsonscan.LimitError

// TrimBOM returns b without a leading UTF-8 byte order mark, which JSON
// forbids but Windows editors write: mpdf's JSON readers skip one.
func TrimBOM(b []byte) []byte { return jsonscan.TrimBOM(b) }

// NumberMismatch says in a user's words why the number lit does not fit a
// value of kind k: out of range ("1e400 overflows a 64-bit float"),
// negative where only non-negative integers go, or not an integer; "" when
// it fits. The command line words its numeric flags' errors with it.
func NumberMismatch(lit string, k reflect.Kind) string { return jsonscan.NumberMismatch(lit, k) }

// DecodeStrict is the one strict reader of a JSON document held in memory
// (internal/jsonscan.DecodeStrict), for packages outside data that read
// JSON inputs (a --config file, a tasks file, simulator parameters): a key
// twice or in another case, invalid UTF-8, a lone surrogate, an unknown
// field or more after the value are refused; the error names line and
// field and quotes at most 100 bytes of a value.
func DecodeStrict(b []byte, v any) error { return jsonscan.DecodeStrict(b, v) }

// CheckStrict is DecodeStrict's first step for a reader that decodes b
// into v itself: a key twice or in another case, invalid UTF-8 or a lone
// surrogate is a *DecodeError.
func CheckStrict(b []byte, v any) error { return jsonscan.CheckStrict(b, v) }

// DecodeError is DecodeStrict's error: Line, Field, Msg.
type DecodeError = jsonscan.DecodeError

// InFile words a DecodeStrict error in a file's name: "NAME:LINE: ...".
func InFile(name string, err error) error { return jsonscan.InFile(name, err) }

// Clip is s when at most 100 bytes, else its first 100 bytes and its
// length (internal/jsonscan.Clip): how much of a value an error quotes.
func Clip(s string) string { return jsonscan.Clip(s) }
