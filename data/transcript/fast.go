package transcript

import (
	"bufio"
	"errors"
	"io"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/jsonscan"
)

// The fast path of Each for the debate layout: one pass over the bytes
// that reads each question's strings straight into the structures the
// reader builds, instead of encoding/json's scan, re-scan and reflection
// behind a Guard that follows every byte a third time. It reads a strict
// subset of JSON and of the layout — no null where a chat or message
// belongs, no key that matches "role" or "content" only regardless of
// case, valid UTF-8, strings and questions well inside their limits — and
// gives up (errFallback) on anything else: Each then reads the file again
// from its start by the encoding/json path, which stays the reference for
// what a file means and for every error and its wording, and hands fn only
// the questions the fast path did not. TestFastMatchesSlow holds the two
// to the same questions and reports.

// errFallback is the fast path giving up: the slow path reads the file.
var errFallback = errors.New("transcript: fast path: fall back")

// fastSlack keeps the fast path's limits below the Guard's, so that the
// fast path gives up before any input the Guard would stop.
const fastSlack = 64

// fastReader reads a decompressed stream through a buffer that grows to
// hold the longest string (≤ data.MaxTextBytes).
type fastReader struct {
	r    io.Reader
	buf  []byte
	i, n int    // unread bytes are buf[i:n]
	base int64  // stream offset of buf[0]
	eof  bool   // the stream ended (or failed)
	bad  bool   // it failed: the slow path reports how
	tmp  []byte // an escaped string's decoded bytes
	// limit is the stream offset the current question must end before
	// (MaxQuestionBytes from its start, less fastSlack): every string and
	// skipped value checks it, so a question's memory stays bounded.
	limit int64
	// strs counts the current question's strings, at most maxFastStrings.
	strs int
}

// maxFastStrings bounds the strings of a question the fast path builds:
// many short ones (8 M of them in 32 MiB) would take 40 times their bytes
// as decoded messages before the question limit is reached. The shared
// questions hold at most a few hundred; past the bound the encoding/json
// path reads the file (and buffers the question before decoding it).
const maxFastStrings = 1 << 14

// within starts a question at the next byte: its limit.
func (f *fastReader) within() int64 {
	elem := f.off()
	f.limit = elem + MaxQuestionBytes - fastSlack
	f.strs = 0
	return elem
}

// fill reads more, keeping buf[keep:n] (keep ≤ i); it reports false at the
// end of the stream or on an error.
func (f *fastReader) fill(keep int) bool {
	if f.eof {
		return false
	}
	if keep > 0 {
		copy(f.buf, f.buf[keep:f.n])
		f.i -= keep
		f.n -= keep
		f.base += int64(keep)
	}
	if f.n == len(f.buf) {
		f.buf = append(f.buf, make([]byte, len(f.buf))...)
	}
	m, err := f.r.Read(f.buf[f.n:])
	f.n += m
	if err != nil {
		f.eof = true
		f.bad = !errors.Is(err, io.EOF)
	}
	return m > 0 || !f.eof
}

// off is the stream offset of the next unread byte.
func (f *fastReader) off() int64 { return f.base + int64(f.i) }

// peek skips JSON white space and returns the next byte; ok is false at the
// end of the stream.
func (f *fastReader) peek() (byte, bool) {
	for {
		for f.i < f.n {
			switch c := f.buf[f.i]; c {
			case ' ', '\t', '\r', '\n':
				f.i++
			default:
				return c, true
			}
		}
		if !f.fill(f.i) {
			return 0, false
		}
	}
}

// byte_ skips white space and c, reporting whether c was there.
func (f *fastReader) byte_(c byte) bool {
	if b, ok := f.peek(); ok && b == c {
		f.i++
		return true
	}
	return false
}

// stringEnd marks the bytes a plain string's scan stops at.
var stringEnd = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str reads a string: valid UTF-8, escapes decoded, at most
// data.MaxTextBytes - fastSlack bytes as written.
func (f *fastReader) str() (string, bool) {
	if f.strs++; f.strs > maxFastStrings || !f.byte_('"') {
		return "", false
	}
	start := f.i
	j := start
	for {
		for j < f.n && !stringEnd[f.buf[j]] {
			j++
		}
		if j-start >= data.MaxTextBytes-fastSlack {
			return "", false
		}
		if j < f.n {
			break
		}
		keep := start
		if !f.fill(keep) {
			return "", false
		}
		j -= keep
		start -= keep
	}
	if f.buf[j] == '"' {
		b := f.buf[start:j]
		if !utf8.Valid(b) {
			return "", false // encoding/json writes U+FFFD for each bad byte
		}
		f.i = j + 1
		return string(b), f.off() < f.limit
	}
	if f.buf[j] != '\\' {
		return "", false // a control character
	}
	return f.escaped(start)
}

// escaped reads the rest of a string with escapes, from buf[start].
func (f *fastReader) escaped(start int) (string, bool) {
	out := f.tmp[:0]
	j := start
	for {
		if j-start >= data.MaxTextBytes-fastSlack {
			return "", false
		}
		if j+12 > f.n && !f.eof { // room for an escape pair
			keep := start
			f.fill(keep)
			j -= keep
			start -= keep
			continue
		}
		if j >= f.n {
			return "", false
		}
		c := f.buf[j]
		switch {
		case c == '"':
			f.i = j + 1
			f.tmp = out
			if !utf8.Valid(out) || f.off() >= f.limit {
				return "", false
			}
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			k := j + 1 // copy the run of plain bytes at once
			for k < f.n && !stringEnd[f.buf[k]] {
				k++
			}
			out = append(out, f.buf[j:k]...)
			j = k
			continue
		}
		if j+1 >= f.n {
			return "", false
		}
		switch e := f.buf[j+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(f.buf[j+2 : min(j+6, f.n)])
			if !ok {
				return "", false
			}
			j += 4
			if utf16.IsSurrogate(r) {
				if j+8 > f.n || f.buf[j+2] != '\\' || f.buf[j+3] != 'u' {
					return "", false // a lone surrogate: encoding/json writes U+FFFD
				}
				r2, ok := hex4(f.buf[j+4 : j+8])
				if d := utf16.DecodeRune(r, r2); !ok || d == utf8.RuneError {
					return "", false
				} else {
					r = d
				}
				j += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
		j += 2
	}
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) != 4 {
		return 0, false
	}
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a JSON number and returns it as written.
func (f *fastReader) number() (string, bool) {
	if _, ok := f.peek(); !ok {
		return "", false
	}
	for f.n-f.i < 64 && f.fill(f.i) {
	}
	b := f.buf[:f.n]
	j, ok := jsonscan.NumberEnd(b, f.i)
	if !ok {
		return "", false
	}
	if j == len(b) || j-f.i > 48 {
		return "", false // too long to be sure it ended
	}
	lit := string(b[f.i:j])
	f.i = j
	return lit, true
}

// literal reads true, false or null.
func (f *fastReader) literal(w string) bool {
	if _, ok := f.peek(); !ok {
		return false
	}
	for f.n-f.i < len(w) && f.fill(f.i) {
	}
	if f.n-f.i >= len(w) && string(f.buf[f.i:f.i+len(w)]) == w {
		f.i += len(w)
		return true
	}
	return false
}

// skip reads any JSON value (an extra element of a question's value).
func (f *fastReader) skip(depth int) bool {
	c, ok := f.peek()
	if !ok || depth > 64 || f.off() >= f.limit {
		return false
	}
	switch {
	case c == '"':
		_, ok := f.str()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		_, ok := f.number()
		return ok
	case c == 't':
		return f.literal("true")
	case c == 'f':
		return f.literal("false")
	case c == 'n':
		return f.literal("null")
	case c == '[':
		f.i++
		if f.byte_(']') {
			return true
		}
		for {
			if !f.skip(depth + 1) {
				return false
			}
			if f.byte_(']') {
				return true
			}
			if !f.byte_(',') {
				return false
			}
		}
	case c == '{':
		f.i++
		if f.byte_('}') {
			return true
		}
		for {
			if _, ok := f.str(); !ok || !f.byte_(':') || !f.skip(depth+1) {
				return false
			}
			if f.byte_('}') {
				return true
			}
			if !f.byte_(',') {
				return false
			}
		}
	}
	return false
}

// eachLayoutFast reads the file in rep.Layout by its fast reader,
// calling fn with each question and counting them in delivered;
// errFallback when the layout has none, or it cannot be sure to read as
// the layout's reference reader would.
func eachLayoutFast(r io.Reader, meta Meta, critic bool, rep *Report, fn func(q *Question) error, delivered *int) error {
	l, ok := layoutNamed(rep.Layout)
	if !ok || l.fast == nil {
		return errFallback
	}
	f := &fastReader{r: r, buf: make([]byte, 64<<10), limit: math.MaxInt64}
	for f.n-f.i < 3 && f.fill(f.i) {
	}
	if f.n-f.i >= 3 && len(data.TrimBOM(f.buf[:3])) == 0 {
		f.i = 3
	}
	return l.fast(f, meta, critic, rep, fn, delivered)
}

// debate reads the debate layout as eachDebate does: an object mapping
// each question to [agent_contexts, gold, extra...].
func (f *fastReader) debate(meta Meta, critic bool, rep *Report, fn func(q *Question) error, delivered *int) error {
	if !f.byte_('{') {
		return errFallback
	}
	seen := questionSet{}
	var ctxs [][]message
	for index := 0; !f.byte_('}'); index++ {
		if index > 0 && !f.byte_(',') {
			return errFallback
		}
		f.peek()
		elem := f.within()
		text, ok := f.str()
		if !ok || !f.byte_(':') {
			return errFallback
		}
		if seen.check(meta.Task, text, index) != nil {
			return errFallback
		}
		gold, extra, ok := f.value(&ctxs, elem)
		if !ok || f.off()-elem >= MaxQuestionBytes-fastSlack {
			return errFallback
		}
		rep.noteValue(ctxs, extra)
		q, skip := buildQuestion(meta.Task, meta.File, index, text, ctxs, gold, critic)
		if err := rep.take(q, skip, index, fn); err != nil {
			return err
		}
		if skip == "" {
			*delivered++
		}
	}
	if _, ok := f.peek(); ok || f.bad {
		return errFallback // more after the object, or a read error
	}
	return nil
}

// eachFast is each by the fast path (eachLayoutFast); errFallback when
// the slow path must read the file, after delivered questions went to fn.
func eachFast(r io.Reader, name string, meta Meta, opts Options, fn func(q *Question) error, delivered *int) (*Report, error) {
	dr, err := data.Decompress(r, name)
	if err != nil {
		return nil, errFallback
	}
	defer dr.Close()
	layout := opts.Layout
	if layout == LayoutAuto {
		br := bufio.NewReader(dr) // to peek at the layout's first byte
		first, err := firstByte(br)
		if err != nil {
			return nil, errFallback
		}
		var ok bool
		if layout, ok = layoutOpening(first); !ok {
			return nil, errFallback
		}
		dr = struct {
			io.Reader
			io.Closer
		}{br, dr}
	}
	rep := &Report{File: meta.File, Task: meta.Task, Model: meta.Model, Layout: layout}
	if err := eachLayoutFast(dr, meta, !opts.SkipCritic, rep, fn, delivered); err != nil {
		if err == errFallback {
			return nil, err
		}
		return nil, explain(err, name, dr)
	}
	rep.finish(meta)
	return rep, nil
}

// skipFirst is fn that skips its first n calls: the questions the fast
// path delivered before it gave up.
func skipFirst(n int, fn func(q *Question) error) func(q *Question) error {
	return func(q *Question) error {
		if n > 0 {
			n--
			return nil
		}
		return fn(q)
	}
}

// value reads a question's value, [agent_contexts, gold, extra...], into
// *ctxs (reused), giving up past the question limit from elem.
func (f *fastReader) value(ctxs *[][]message, elem int64) (gold string, extra int, ok bool) {
	over := func() bool { return f.off()-elem >= MaxQuestionBytes-fastSlack }
	for range 2 { // "[[": the value's list, then the agents' contexts
		if !f.byte_('[') {
			return "", 0, false
		}
	}
	cs := (*ctxs)[:0]
	if !f.byte_(']') {
		for {
			if !f.byte_('[') {
				return "", 0, false // null or another value where a chat belongs
			}
			var chat []message
			if !f.byte_(']') {
				for {
					m, ok := f.message()
					if !ok || over() {
						return "", 0, false
					}
					chat = append(chat, m)
					if f.byte_(']') {
						break
					}
					if !f.byte_(',') {
						return "", 0, false
					}
				}
			}
			cs = append(cs, chat)
			if f.byte_(']') {
				break
			}
			if !f.byte_(',') {
				return "", 0, false
			}
		}
	}
	*ctxs = cs
	if !f.byte_(',') {
		return "", 0, false
	}
	if gold, ok = f.gold(); !ok {
		return "", 0, false
	}
	for f.byte_(',') {
		if !f.skip(0) || over() {
			return "", 0, false
		}
		extra++
	}
	return gold, extra, f.byte_(']')
}

// message reads a chat entry: a string, or an object whose "role" and
// "content" are strings; other keys are skipped. A key given twice gives
// up: the encoding/json path refuses it (strictMessage).
func (f *fastReader) message() (message, bool) {
	c, ok := f.peek()
	if !ok {
		return message{}, false
	}
	if c == '"' {
		s, ok := f.str()
		return message{Content: s, plain: true}, ok
	}
	if !f.byte_('{') {
		return message{}, false
	}
	var m message
	if f.byte_('}') {
		return m, true
	}
	var haveRole, haveContent bool
	for {
		k, ok := f.str()
		if !ok || !f.byte_(':') {
			return m, false
		}
		switch {
		case k == "role" && !haveRole:
			m.Role, ok = f.str()
			haveRole = true
		case k == "content" && !haveContent:
			m.Content, ok = f.str()
			haveContent = true
		case k == "role" || k == "content":
			return m, false // twice
		case strings.EqualFold(k, "role") || strings.EqualFold(k, "content"):
			return m, false // encoding/json would match it regardless of case
		default:
			ok = f.skip(0)
		}
		if !ok {
			return m, false
		}
		if f.byte_('}') {
			return m, true
		}
		if !f.byte_(',') {
			return m, false
		}
	}
}

// agora reads LLM-Agora's layout as eachAgora does: an array of
// {question_id, question, agent_response: {model: [answers]}, answer}.
func (f *fastReader) agora(meta Meta, critic bool, rep *Report, fn func(q *Question) error, delivered *int) error {
	if !f.byte_('[') {
		return errFallback
	}
	seen := questionSet{}
	for index := 0; !f.byte_(']'); index++ {
		if index > 0 && !f.byte_(',') {
			return errFallback
		}
		f.peek()
		elem := f.within()
		text, gold, models, answers, ok := f.agoraItem()
		if !ok || f.off()-elem >= MaxQuestionBytes-fastSlack || seen.check(meta.Task, text, index) != nil {
			return errFallback
		}
		q, skip := buildAgora(meta, critic, index, text, gold, models, answers)
		rep.Variants = addOnce(rep.Variants, "heterogeneous team")
		if err := rep.take(q, skip, index, fn); err != nil {
			return err
		}
		if skip == "" {
			*delivered++
		}
	}
	if _, ok := f.peek(); ok || f.bad {
		return errFallback
	}
	return nil
}

// agoraItem reads one question of the agora layout; it gives up on a
// question, agent_response or answer missing, null or given twice, a key
// that matches one only regardless of case, and an answer list holding
// anything but strings.
func (f *fastReader) agoraItem() (text, gold string, models []string, answers [][]string, ok bool) {
	if !f.byte_('{') {
		return
	}
	var haveQ, haveA, haveGold bool
	for first := true; !f.byte_('}'); first = false {
		if !first && !f.byte_(',') {
			return
		}
		k, kok := f.str()
		if !kok || !f.byte_(':') {
			return
		}
		switch k {
		case "question":
			if haveQ {
				return
			}
			text, haveQ = f.str()
			if !haveQ {
				return
			}
		case "agent_response":
			if haveA {
				return
			}
			if models, answers, haveA = f.agents(); !haveA {
				return
			}
		case "answer":
			if haveGold {
				return
			}
			if gold, haveGold = f.gold(); !haveGold {
				return
			}
		default:
			for _, name := range []string{"question", "agent_response", "answer", "question_id"} {
				if k != name && strings.EqualFold(k, name) {
					return // encoding/json would match it regardless of case
				}
			}
			if !f.skip(0) {
				return
			}
		}
	}
	return text, gold, models, answers, haveQ && haveA
}

// agents reads agent_response: {model: [answer strings]}, keys in order.
func (f *fastReader) agents() (models []string, answers [][]string, ok bool) {
	if !f.byte_('{') {
		return nil, nil, false
	}
	for first := true; !f.byte_('}'); first = false {
		if !first && !f.byte_(',') {
			return nil, nil, false
		}
		m, ok := f.str()
		if !ok || !f.byte_(':') || !f.byte_('[') {
			return nil, nil, false // null answers: the slow path
		}
		rs := []string{}
		for i := 0; !f.byte_(']'); i++ {
			if i > 0 && !f.byte_(',') {
				return nil, nil, false
			}
			r, ok := f.str()
			if !ok {
				return nil, nil, false
			}
			rs = append(rs, r)
		}
		models, answers = append(models, m), append(answers, rs)
	}
	return models, answers, true
}

// gold reads a gold answer as goldText does: a string, a number as
// written, or null ("").
func (f *fastReader) gold() (string, bool) {
	switch c, _ := f.peek(); {
	case c == '"':
		return f.str()
	case c == '-' || c >= '0' && c <= '9':
		return f.number()
	case c == 'n':
		return "", f.literal("null")
	}
	return "", false
}
