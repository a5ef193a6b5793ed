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
	Layout string // a TranscriptLayout's Name: "debate" (LLM-Debate and its variants) or "agora" (LLM-Agora)
}

func (e *TranscriptError) Error() string {
	return e.What() + ": replay it (package env/replay), or import it into episodes (package data/transcript)"
}

// What says what the file is, without what to do with it: a caller adds
// that in its own words (mpdf: --env 'replay:FILE', or mpdf import).
func (e *TranscriptError) What() string {
	l, _ := TranscriptLayoutNamed(e.Layout)
	if l.Name == "" {
		l = transcriptLayouts[0]
	}
	return fmt.Sprintf("data: %s: this is a debate transcript (%s), not rollout records (episodes or decisions, one JSON object a line)", e.File, l.What)
}

// sniffTranscript tells from the first bytes of a decompressed input
// whether it is in one of the transcript layouts (transcriptLayouts; it
// cannot import data/transcript, which imports this package;
// data/transcript's tests hold the two to every shared transcript). It
// peeks at what it needs, growing up to the buffer's size, and returns
// the layout's name, or "" when the input is not a transcript or cannot
// be told.
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

// transcriptLayout reads the layout from prefix by its first byte and its
// sniff; decided is false when prefix is too short to tell.
func transcriptLayout(prefix []byte) (layout string, decided bool) {
	s := sniffer{b: jsonscan.TrimBOM(prefix)}
	c := s.next()
	if c == 0 {
		return "", false
	}
	for _, l := range transcriptLayouts {
		if l.Opens == c {
			s.i++
			yes, decided := l.sniff(&s)
			if yes {
				return l.Name, true
			}
			return "", decided
		}
	}
	return "", true
}

// sniffDebate tells the debate layout after its '{': an object whose
// first member's value is [agent_contexts, ...], agent_contexts an array
// of chats, each an array of messages, objects or strings: no rollout
// record has an array of arrays of arrays as its first value.
func sniffDebate(s *sniffer) (yes, decided bool) {
	switch s.next() {
	case '"':
	case 0:
		return false, false
	default:
		return false, true
	}
	if !s.skipString() {
		return false, false
	}
	// question: [agent_contexts: [chat: [message: {...} or "..."
	for _, c := range []byte{':', '[', '[', '['} {
		switch s.next() {
		case c:
			s.i++
		case 0:
			return false, false
		default:
			return false, true
		}
	}
	switch s.next() {
	case '{', '"':
		return true, true
	case 0:
		return false, false
	}
	return false, true
}

// sniffAgora tells the agora layout after its '[': an array of objects
// whose first has a "question_id" or an "agent_response" key (after
// scalar members only): a rollout line is an object, never an array, and
// an array of rollout records has "kind" and no such key.
func sniffAgora(s *sniffer) (yes, decided bool) {
	if c := s.next(); c != '{' {
		return false, c != 0
	}
	// The first object: look for LLM-Agora's keys at its top level (it
	// writes question_id, question, agent_response, ...).
	s.i++
	for {
		switch s.next() {
		case '"':
			start := s.i
			if !s.skipString() {
				return false, false
			}
			key := s.b[start+1 : s.i-1]
			if s.next() != ':' {
				return false, s.i >= len(s.b)
			}
			s.i++
			switch string(key) {
			case "question_id", "agent_response":
				return true, true
			case "kind":
				return false, true // an array of rollout records, say
			}
			if !s.skipValue() {
				return false, s.i < len(s.b) // stopped inside b: not a scalar
			}
		case ',':
			s.i++
		case 0:
			return false, false
		default:
			return false, true
		}
	}
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
