package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DecodeStrict is the one strict reader of a whole JSON document held in
// memory (a --config file, a line of a tasks file, simulator parameters):
// it decodes b into v, refusing, beyond a syntax error, what encoding/json
// accepts silently — a key given twice, a key that matches a field of v
// only regardless of case ("Seed" for "seed"), invalid UTF-8 and escaped
// lone surrogates (Check), an unknown field, and anything after the value.
// A leading UTF-8 byte order mark is skipped. The error is a *DecodeError:
// the line, the field and what is wrong, quoting at most MaxQuote bytes of
// any value.
func DecodeStrict(b []byte, v any) error {
	b = TrimBOM(b)
	if err := CheckStrict(b, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(b, dec, err)
	}
	end := dec.InputOffset()
	if tok, err := dec.Token(); err != io.EOF {
		_ = tok
		return &DecodeError{Line: lineAt(b, int(end)), Msg: fmt.Sprintf("more after the JSON value that ends at byte %d (want one value)", end)}
	}
	return nil
}

// CheckStrict is DecodeStrict's first step, for a reader that decodes b
// into v itself: Check's rules, with the JSON names of every struct field
// reachable from v as Fields. The error is a *DecodeError.
func CheckStrict(b []byte, v any) error {
	if _, o := Check(b, rulesFor(reflect.TypeOf(v))); o != nil {
		return offenceError(b, o)
	}
	return nil
}

// DecodeError is DecodeStrict's error.
type DecodeError struct {
	Line  int    // 1-based line of the document
	Field string // the field's path (a.b[2].c), "" for the document
	Msg   string
}

func (e *DecodeError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.what()) }

// In words the error in the file name: "NAME:LINE: field: what".
func (e *DecodeError) In(name string) error {
	return fmt.Errorf("%s:%d: %s", name, e.Line, e.what())
}

func (e *DecodeError) what() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// InFile is err worded in the file name when it is a *DecodeError
// ("NAME:LINE: field: what"), else "NAME: err".
func InFile(name string, err error) error {
	var de *DecodeError
	if errors.As(err, &de) {
		return de.In(name)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineAt is the 1-based line of byte offset off of b.
func lineAt(b []byte, off int) int {
	return 1 + bytes.Count(b[:min(max(off, 0), len(b))], []byte{'\n'})
}

func offenceError(b []byte, o *Offence) *DecodeError {
	var field string
	for _, s := range o.Path {
		if s.IsKey {
			if field != "" {
				field += "."
			}
			field += Clip(s.Key)
		} else {
			field += "[" + strconv.Itoa(s.Index) + "]"
		}
	}
	e := &DecodeError{Line: lineAt(b, o.Offset), Field: field}
	switch o.Problem {
	case DuplicateKey:
		e.Msg = "given twice: which value wins is up to the reader"
		if o.Key != o.Other {
			e.Msg = fmt.Sprintf("given twice (as %q and %q: names match regardless of case): which value wins is up to the reader", Clip(o.Other), Clip(o.Key))
		}
	case KeyCase:
		e.Msg = fmt.Sprintf("unknown field (want %q: keys are case-sensitive)", o.Other)
	case InvalidUTF8:
		e.Msg = fmt.Sprintf("invalid UTF-8 (byte %d is 0x%02x): text must be UTF-8", o.Offset+1, o.Byte)
	case LoneSurrogate:
		e.Msg = fmt.Sprintf("a lone UTF-16 surrogate %s (byte %d): not a character", o.Key, o.Offset+1)
	case NullContainer:
		e.Msg = "null where an object or array belongs"
	case TooDeep:
		e.Msg = "nested too deep"
	case TooLong:
		e.Msg = fmt.Sprintf("a string of %d bytes, over the limit", o.Len)
	}
	return e
}

func decodeError(b []byte, dec *json.Decoder, err error) *DecodeError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &DecodeError{Line: lineAt(b, int(se.Offset)), Msg: ClipWords(strings.TrimPrefix(se.Error(), "json: "))}
	case errors.As(err, &te):
		got := TypeMismatch(te.Value, te.Type)
		if got == "" {
			got = fmt.Sprintf("want %s, got JSON %s", Want(te.Type), Clip(te.Value))
		}
		return &DecodeError{Line: lineAt(b, int(te.Offset)), Field: Clip(te.Field), Msg: got}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &DecodeError{Line: lineAt(b, len(b)), Msg: "the document ends early (want one JSON value)"}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		f, _ = strconv.Unquote(f)
		return &DecodeError{Line: lineAt(b, int(dec.InputOffset())), Field: Clip(f), Msg: "unknown field"}
	}
	return &DecodeError{Line: lineAt(b, int(dec.InputOffset())), Msg: ClipWords(msg)}
}

// rulesFor are Check's rules for a document decoded into a value of type
// t: the JSON names of every struct field reachable from t are its Fields,
// so that a key matching one only regardless of case is refused. Built
// once per type.
func rulesFor(t reflect.Type) *Rules {
	if r, ok := rulesCache.Load(t); ok {
		return r.(*Rules)
	}
	names := map[string]bool{}
	fieldNames(t, names, map[reflect.Type]bool{})
	r := &Rules{}
	r.Fields = slices.Sorted(maps.Keys(names))
	rulesCache.Store(t, r)
	return r
}

var rulesCache sync.Map // reflect.Type → *Rules

func fieldNames(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && name == "" {
			fieldNames(f.Type, names, seen) // embedded: its fields are the parent's
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
		fieldNames(f.Type, names, seen)
	}
}
