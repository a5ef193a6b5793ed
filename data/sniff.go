package data

import (
	"bufio"
	"fmt"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// TranscriptError is an input that is a debate transcript (package
// data/transcript reads those), not rollout records. The Reader returns it,
// in place of the first line's rejection, for a file that begins in a
// transcript layout.
type TranscriptError struct {
	File   string
	Layout string // "debate" (LLM-Debate and its variants) or "agora" (LLM-Agora)
}

func (e *TranscriptError) Error() string {
	return e.What() + ": replay it (package env/replay), or import it into episodes (package data/transcript)"
}

// What says what the file is, without what to do with it: a caller adds
// that in its own words (mpdf: --env 'replay:FILE', or mpdf import).
func (e *TranscriptError) What() string {
	what := "LLM-Debate layout: question → [agent_contexts, gold]"
	if e.Layout == "agora" {
		what = "LLM-Agora layout: [{question, agent_response, answer}]"
	}
	return fmt.Sprintf("data: %s: this is a debate transcript (%s), not rollout records (episodes or decisions, one JSON object a line)", e.File, what)
}

// sniffTranscript tells from the first bytes of a decompressed input
// whether it is in one of data/transcript's layouts (it cannot import that
// package, which imports this one; data/transcript's tests hold the two to
// every shared transcript):
//
//   - debate: an object whose first member's value is
//     [agent_contexts, ...], agent_contexts an array of chats, each an
//     array of messages, objects or strings: no rollout record has an
//     array of arrays of arrays as its first value;
//   - agora: an array of objects whose first has a "question_id" or an
//     "agent_response" key (after scalar members only): a rollout line is
//     an object, never an array, and an array of rollout records has
//     "kind" and no such key.
//
// It peeks at what it needs, growing up to the buffer's size, and returns
// "" when the input is not a transcript or cannot be told.
func sniffTranscript(br *bufio.Reader) string {
	for n := 256; ; n *= 4 {
		n = min(n, br.Size())
		b, err := br.Peek(n)
		layout, decided := transcriptLayout(b)
		if decided || err != nil || n == br.Size() {
			return layout
		}
	}
}

// transcriptLayout reads the layout from prefix; decided is false when
// prefix is too short to tell.
func transcriptLayout(prefix []byte) (layout string, decided bool) {
	s := sniffer{b: jsonscan.TrimBOM(prefix)}
	switch s.next() {
	case '{':
		s.i++
		switch s.next() {
		case '"':
		case 0:
			return "", false
		default:
			return "", true
		}
		if !s.skipString() {
			return "", false
		}
		// question: [agent_contexts: [chat: [message: {...} or "..."
		for _, c := range []byte{':', '[', '[', '['} {
			switch s.next() {
			case c:
				s.i++
			case 0:
				return "", false
			default:
				return "", true
			}
		}
		switch s.next() {
		case '{', '"':
			return "debate", true
		case 0:
			return "", false
		}
		return "", true
	case '[':
		s.i++
		if c := s.next(); c != '{' {
			return "", c != 0
		}
		// The first object: look for LLM-Agora's keys at its top level (it
		// writes question_id, question, agent_response, ...).
		s.i++
		for {
			switch s.next() {
			case '"':
				start := s.i
				if !s.skipString() {
					return "", false
				}
				key := s.b[start+1 : s.i-1]
				if s.next() != ':' {
					return "", s.i >= len(s.b)
				}
				s.i++
				switch string(key) {
				case "question_id", "agent_response":
					return "agora", true
				case "kind":
					return "", true // an array of rollout records, say
				}
				if !s.skipValue() {
					return "", s.i < len(s.b) // stopped inside b: not a scalar
				}
			case ',':
				s.i++
			case 0:
				return "", false
			default:
				return "", true
			}
		}
	case 0:
		return "", false
	}
	return "", true
}

type sniffer struct {
	b []byte
	i int
}

// next skips white space and returns the next byte, 0 at the end.
func (s *sniffer) next() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// skipString moves past the string at s.i, reporting false when it does
// not end within b.
func (s *sniffer) skipString() bool {
	for i := s.i + 1; i < len(s.b); i++ {
		switch s.b[i] {
		case '\\':
			i++
		case '"':
			s.i = i + 1
			return true
		}
	}
	s.i = len(s.b)
	return false
}

// skipValue moves past a scalar value or a string (the members before
// "question" in LLM-Agora's items are such); it reports false for anything
// else or a value that does not end within b.
func (s *sniffer) skipValue() bool {
	if s.next() == '"' {
		return s.skipString()
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}':
			return true
		case '{', '[', '"':
			return false
		}
		s.i++
	}
	return false
}
