package jsonscan

import (
	"strconv"
	"unicode/utf8"
)

// MaxQuote is the most of one value an error message quotes: a
// million-digit number or a megabyte key in an input must not come back
// whole in the error (to a terminal, a log, a response body).
const MaxQuote = 100

// Clip returns s when it is at most MaxQuote bytes, else its first
// MaxQuote bytes (cut at a character boundary) and how long it was:
// "123…(1000000 bytes)".
func Clip(s string) string { return ClipAt(s, MaxQuote) }

// ClipAt is Clip with another limit of n bytes (a whole message's).
func ClipAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// ClipWords clips every run of s without white space longer than MaxQuote
// (Clip): for a message made by another package (encoding/json's, a
// parser's) that may hold a long value verbatim. One pass, linear in s.
func ClipWords(s string) string {
	long := false
	run := 0
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			run = 0
		} else if run++; run > MaxQuote {
			long = true
			break
		}
	}
	if !long {
		return s
	}
	out := make([]byte, 0, 4*MaxQuote)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		out = append(out, Clip(s[i:j])...)
		for j < len(s) && isSpace(s[j]) {
			out = append(out, s[j])
			j++
		}
		i = j
	}
	return string(out)
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
