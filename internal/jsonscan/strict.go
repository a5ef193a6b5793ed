package jsonscan

import (
	"bytes"
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// Strict readers (data's records, serve's requests) refuse what
// encoding/json accepts silently: a key given twice (encoding/json keeps
// the last value, other readers the first; keys compare as encoding/json
// matches them, regardless of case), a string of invalid UTF-8
// (encoding/json turns each bad byte into U+FFFD, so that "560\xff" and
// "560\xfe" would read as one answer) and, as the Rules ask, a key that
// matches a field only regardless of case ("ROUND" for "round"), null
// where an object or array belongs (encoding/json leaves the field as it
// was) and nesting past a depth. Check walks a document once for all of
// them, without decoding it, and measures it on the way.

// Rules are what Check refuses beyond the duplicate keys and invalid UTF-8
// it always refuses. The zero Rules refuse nothing more.
type Rules struct {
	// Fields lists the exact names of the document's keys: a key that
	// differs from one only in case (as encoding/json folds it) is refused.
	// Keys in no such relation are left to the decoder (unknown fields).
	Fields []string
	// Containers lists the keys whose value is an object or an array:
	// null there is refused, as is null as an array element, when
	// NoNullContainers is set.
	Containers       []string
	NoNullContainers bool
	// MaxDepth, when > 0, is the deepest nesting of objects and arrays.
	MaxDepth int
	// MaxString, when > 0, is the longest string (its bytes between the
	// quotes, as written) Check accepts.
	MaxString int
	// Measured names the keys whose string values Stats.MeasuredBytes sums.
	Measured []string
	// TopKeysOnly limits the key rules (twice, case) to the top-level
	// object's keys: for a document whose inner objects' keys are data
	// that may repeat (LLM-Agora's agent_response, one key per agent's
	// model). Strings are checked everywhere.
	TopKeysOnly bool

	once  sync.Once
	names map[string]nameFlags // the lists above by name, built once
}

// nameFlags say which of a Rules' lists name a key.
type nameFlags uint8

const (
	isField nameFlags = 1 << iota
	isContainer
	isMeasured
)

// compile builds r.names, so that a key costs one map lookup.
func (r *Rules) compile() {
	r.once.Do(func() {
		if len(r.Fields)+len(r.Containers)+len(r.Measured) == 0 {
			return // a nil map: every key has no flags
		}
		r.names = map[string]nameFlags{}
		for _, l := range []struct {
			names []string
			flag  nameFlags
		}{{r.Fields, isField}, {r.Containers, isContainer}, {r.Measured, isMeasured}} {
			for _, n := range l.names {
				r.names[n] |= l.flag
			}
		}
	})
}

// Problem classifies an Offence.
type Problem int

const (
	DuplicateKey  Problem = iota + 1
	KeyCase               // a key matching a field only regardless of case
	NullContainer         // null where an object or array belongs
	InvalidUTF8
	TooDeep
	TooLong // a string over Rules.MaxString
	// LoneSurrogate is an escaped UTF-16 surrogate not in a pair ("\ud800",
	// "\udfff"): no character, which encoding/json turns into U+FFFD, so
	// that two different escapes would read as one text. Offset is its
	// backslash, Key the escape as written.
	LoneSurrogate
)

// Offence is the first thing Check refused, in document order.
type Offence struct {
	Problem Problem
	Path    []PathSeg // where: the offending member or element
	Offset  int       // byte offset of the offending token in the document
	Key     string    // the key as written (DuplicateKey, KeyCase); the escape (LoneSurrogate)
	Other   string    // the earlier key (DuplicateKey) or the field (KeyCase)
	Byte    byte      // the first invalid byte (InvalidUTF8)
	Len     int       // the string's length as written (TooLong)
}

// PathSeg is one step of a JSON path: an object key, or an array index
// when IsKey is false.
type PathSeg struct {
	Key   string
	IsKey bool
	Index int
}

// Stats measure a document as Check walked it.
type Stats struct {
	Values        int // every value: objects, arrays, strings, numbers, literals
	StringBytes   int // bytes between the quotes of every string, keys included
	MeasuredBytes int // bytes of the string values of Rules.Measured keys
}

// Check walks b, one JSON value of valid syntax or not (a syntax error
// stops the walk without an offence: the decoder reports it), and returns
// its Stats and the first offence, or nil.
func Check(b []byte, r *Rules) (Stats, *Offence) {
	c := checkers.Get().(*checker)
	defer func() {
		clear(c.keys[:cap(c.keys)]) // views of b
		c.path, c.keys = c.path[:0], c.keys[:0]
		c.B = nil
		checkers.Put(c)
	}()
	r.compile()
	c.Scanner, c.r, c.st, c.depth, c.track = Scanner{B: b}, r, Stats{}, 0, false
	o := c.value(true, false) // null is no document
	if o == nil {
		return c.st, nil
	}
	// The walk keeps no path, which cost as much as the rest of it: the
	// first offence is found again by a walk that does.
	st := c.st
	c.Scanner, c.st, c.depth, c.track = Scanner{B: b}, Stats{}, 0, true
	c.keys = c.keys[:0]
	return st, c.value(true, false)
}

// checkers are pooled: a walk then allocates nothing.
var checkers = sync.Pool{New: func() any { return new(checker) }}

type checker struct {
	Scanner
	r     *Rules
	st    Stats
	depth int
	// The path and the keys of the objects open, as stacks: keys are views
	// of B (escaped ones, rare, are decoded).
	path  []seg
	keys  [][]byte
	track bool // keep path (the walk that names an offence's place)
}

type seg struct {
	key   []byte
	isKey bool
	index int
}

func (c *checker) offence(p Problem, off int) *Offence {
	o := &Offence{Problem: p, Offset: off}
	for _, s := range c.path {
		o.Path = append(o.Path, PathSeg{Key: string(s.key), IsKey: s.isKey, Index: s.index})
	}
	return o
}

// value walks one value; container says whether an object or array
// belongs there, measured whether its string counts into MeasuredBytes.
func (c *checker) value(container, measured bool) *Offence {
	c.Space()
	if c.I >= len(c.B) {
		return nil
	}
	c.st.Values++
	switch c.B[c.I] {
	case '{', '[':
		if c.r.MaxDepth > 0 && c.depth >= c.r.MaxDepth {
			return c.offence(TooDeep, c.I)
		}
		c.depth++
		var o *Offence
		if c.B[c.I] == '{' {
			o = c.object()
		} else {
			o = c.array()
		}
		c.depth--
		return o
	case '"':
		start := c.I
		raw, o := c.str()
		if measured {
			c.st.MeasuredBytes += len(raw)
		}
		if o != nil {
			o.Offset += start
		}
		return o
	case 'n':
		if container && c.r.NoNullContainers {
			return c.offence(NullContainer, c.I)
		}
	}
	for c.I < len(c.B) && !isEnd(c.B[c.I]) {
		c.I++
	}
	return nil
}

func isEnd(b byte) bool {
	switch b {
	case ',', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func (c *checker) array() *Offence {
	c.I++ // '['
	if c.Byte(']') {
		return nil
	}
	if c.track {
		c.path = append(c.path, seg{})
	}
	for k := 0; ; k++ {
		if c.track {
			c.path[len(c.path)-1].index = k
		}
		if o := c.value(true, false); o != nil {
			return o
		}
		if !c.Byte(',') {
			break
		}
	}
	if c.track {
		c.path = c.path[:len(c.path)-1]
	}
	c.Byte(']')
	return nil
}

func (c *checker) object() *Offence {
	c.I++ // '{'
	if c.Byte('}') {
		return nil
	}
	first := len(c.keys) // this object's keys are c.keys[first:]
	o := c.members(first)
	c.keys = c.keys[:first]
	return o
}

// members walks an object's members, its keys pushed on c.keys from first.
func (c *checker) members(first int) *Offence {
	for {
		c.Space()
		if c.I >= len(c.B) || c.B[c.I] != '"' {
			return nil // a syntax error: the decoder's to report
		}
		at := c.I
		key, o := c.str()
		if o != nil {
			o.Offset += at
			return o
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(c.B[at:c.I], &k) == nil {
				key = []byte(k)
			}
		}
		if c.track {
			c.path = append(c.path, seg{key: key, isKey: true})
		}
		shallow := c.r.TopKeysOnly && c.depth > 1
		for _, k := range c.keys[first:] {
			if !shallow && bytes.EqualFold(k, key) {
				o := c.offence(DuplicateKey, at)
				o.Key, o.Other = string(key), string(k)
				return o
			}
		}
		flags := c.r.names[string(key)]
		if f, ok := c.folded(key, flags); ok && !shallow {
			o := c.offence(KeyCase, at)
			o.Key, o.Other = string(key), f
			return o
		}
		c.keys = append(c.keys, key)
		if !c.Byte(':') {
			return nil
		}
		if o := c.value(flags&isContainer != 0, flags&isMeasured != 0); o != nil {
			return o
		}
		if c.track {
			c.path = c.path[:len(c.path)-1]
		}
		if !c.Byte(',') {
			break
		}
	}
	c.Byte('}')
	return nil
}

// folded returns the field key matches only regardless of case.
func (c *checker) folded(key []byte, flags nameFlags) (string, bool) {
	if flags&isField != 0 || len(c.r.Fields) == 0 {
		return "", false
	}
	for _, f := range c.r.Fields {
		if bytes.EqualFold([]byte(f), key) {
			return f, true
		}
	}
	return "", false
}

// str reads a string at c.I and returns its raw bytes between the quotes,
// or an offence (its Offset relative to the string's start) when they are
// not valid UTF-8.
func (c *checker) str() ([]byte, *Offence) {
	start := c.I + 1
	c.I = start
	for c.I < len(c.B) {
		// Jump to the next quote, or the backslash before it: strings are
		// most of a body, and IndexByte is the fast scan.
		// One scan for whichever comes first: searching for the quote and
		// then for a backslash before it would rescan the rest of the
		// string at every escape (quadratic in a string of escapes).
		k := bytes.IndexAny(c.B[c.I:], "\"\\")
		if k < 0 {
			break
		}
		c.I += k
		switch c.B[c.I] {
		case '\\':
			if c.I+1 < len(c.B) && c.B[c.I+1] == 'u' {
				if n, ok := surrogatePair(c.B[c.I:]); !ok {
					o := c.offence(LoneSurrogate, c.I-start+1)
					o.Key = string(c.B[c.I:min(c.I+6, len(c.B))])
					return nil, o
				} else if n > 0 {
					c.I += n
					continue
				}
			}
			c.I += 2
			continue
		case '"':
			raw := c.B[start:c.I]
			c.I++
			c.st.StringBytes += len(raw)
			if c.r.MaxString > 0 && len(raw) > c.r.MaxString {
				o := c.offence(TooLong, 0)
				o.Len = len(raw)
				return nil, o
			}
			if !utf8.Valid(raw) {
				bad := 0
				for r := raw; len(r) > 0; {
					ch, n := utf8.DecodeRune(r)
					if ch == utf8.RuneError && n == 1 {
						break
					}
					r, bad = r[n:], bad+n
				}
				o := c.offence(InvalidUTF8, 1+bad)
				o.Byte = raw[bad]
				return nil, o
			}
			return raw, nil
		}
		c.I++
	}
	c.I = len(c.B)
	return c.B[start:], nil
}

// surrogatePair looks at a \u escape at the start of b: one of a UTF-16
// surrogate that is part of a pair (a high one followed by an escaped low
// one) gives the pair's length, 12; a lone surrogate gives ok false; any
// other escape (malformed ones are the decoder's to report) gives 0.
func surrogatePair(b []byte) (n int, ok bool) {
	r, valid := hex4u(b)
	switch {
	case !valid || r < 0xd800 || r > 0xdfff:
		return 0, true
	case r >= 0xdc00: // a low surrogate first
		return 0, false
	}
	if r2, valid := hex4u(b[min(6, len(b)):]); valid && r2 >= 0xdc00 && r2 <= 0xdfff {
		return 12, true
	}
	return 0, false
}

// hex4u reads the escape \uXXXX at the start of b.
func hex4u(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
