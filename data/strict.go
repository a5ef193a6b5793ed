package data

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// checkStrict finds what encoding/json accepts silently but a record must
// not hold: an object key given twice (encoding/json keeps the last value,
// other readers the first; keys are compared as encoding/json matches
// them, case-insensitively), a string with invalid UTF-8 (encoding/json
// turns each bad byte into U+FFFD, so that "560\xff" and "560\xfe" would
// read as one answer) and a string over MaxTextBytes. line is one JSON
// value of valid syntax (the decoder has accepted it). It returns the
// first offence in document order, with its JSON path, or nil.
func checkStrict(line []byte) *RecordError {
	s := strictScanner{Scanner: jsonscan.Scanner{B: line}}
	return s.value()
}

type strictScanner struct {
	jsonscan.Scanner
	path []pathSeg
}

// pathSeg is one step of a JSON path: an object key, or an array index
// when key is not set.
type pathSeg struct {
	key   string
	isKey bool
	index int
}

func (s *strictScanner) pathString() string {
	var p string
	for _, seg := range s.path {
		if seg.isKey {
			p = join(p, seg.key)
		} else {
			p += "[" + strconv.Itoa(seg.index) + "]"
		}
	}
	return orJSON(p)
}

func (s *strictScanner) value() *RecordError {
	s.Space()
	if s.I >= len(s.B) {
		return nil
	}
	switch s.B[s.I] {
	case '{':
		return s.object()
	case '[':
		s.I++
		s.Space()
		if s.I < len(s.B) && s.B[s.I] == ']' {
			s.I++
			return nil
		}
		s.path = append(s.path, pathSeg{})
		for k := 0; ; k++ {
			s.path[len(s.path)-1].index = k
			if err := s.value(); err != nil {
				return err
			}
			s.Space()
			if s.I >= len(s.B) || s.B[s.I] != ',' {
				break
			}
			s.I++
		}
		s.path = s.path[:len(s.path)-1]
		s.I++ // ']'
		return nil
	case '"':
		_, err := s.str()
		return err
	}
	for s.I < len(s.B) && !strings.ContainsRune(",]} \t\r\n", rune(s.B[s.I])) {
		s.I++
	}
	return nil
}

func (s *strictScanner) object() *RecordError {
	s.I++ // '{'
	s.Space()
	if s.I < len(s.B) && s.B[s.I] == '}' {
		s.I++
		return nil
	}
	var keys []string
	for {
		s.Space()
		raw, err := s.str()
		if err != nil {
			return err
		}
		key := string(raw)
		if strings.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal([]byte(`"`+key+`"`), &k) == nil {
				key = k
			}
		}
		for _, k := range keys {
			if strings.EqualFold(k, key) {
				s.path = append(s.path, pathSeg{key: key, isKey: true})
				what := "twice"
				if k != key {
					what = "twice (as " + strconv.Quote(k) + " and " + strconv.Quote(key) + ": names match regardless of case)"
				}
				return fieldErr(s.pathString(), "duplicate key: the object has it %s; which value wins is up to the reader", what)
			}
		}
		keys = append(keys, key)
		s.Space()
		s.I++ // ':'
		s.path = append(s.path, pathSeg{key: key, isKey: true})
		if err := s.value(); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.Space()
		if s.I >= len(s.B) || s.B[s.I] != ',' {
			break
		}
		s.I++
	}
	s.I++ // '}'
	return nil
}

// str reads a string and returns its raw bytes between the quotes, or an
// error when they are not valid UTF-8.
func (s *strictScanner) str() ([]byte, *RecordError) {
	start := s.I + 1
	s.I = start
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case '\\':
			s.I += 2
			continue
		case '"':
			raw := s.B[start:s.I]
			s.I++
			if len(raw) > MaxTextBytes {
				return nil, fieldErr(s.pathString(), "a string of %d bytes, over the limit of %d per text", len(raw), MaxTextBytes)
			}
			if !utf8.Valid(raw) {
				bad := start
				for r := raw; len(r) > 0; {
					c, n := utf8.DecodeRune(r)
					if c == utf8.RuneError && n == 1 {
						break
					}
					r, bad = r[n:], bad+n
				}
				return nil, fieldErr(s.pathString(), "invalid UTF-8 (byte %d of the line is 0x%02x): text must be UTF-8, or bytes that differ would read alike",
					bad+1, s.B[bad])
			}
			return raw, nil
		}
		s.I++
	}
	return s.B[start:], nil
}
