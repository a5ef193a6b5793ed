package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// diagnose explains why a line failed to decode into wireRecord, with the
// JSON path of the first offending value in document order. It walks the
// line token by token against the wire types; it runs only on lines that
// already failed, so its speed does not matter. It returns nil when it
// finds nothing wrong (the caller then falls back to the decoder's message).
func diagnose(line []byte) *RecordError {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	w := &walker{dec: dec, line: line}
	if err := w.value(reflect.TypeFor[wireRecord](), ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return w.syntax("json", err)
		}
		return fieldErr("json", "more than one JSON value on the line (byte %d)", dec.InputOffset())
	}
	return nil
}

type walker struct {
	dec  *json.Decoder
	line []byte
}

var featureVecType = reflect.TypeFor[featureVec]()

func (w *walker) value(t reflect.Type, path string) *RecordError {
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(orJSON(path), err)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if tok == nil {
		return nil // null means absent; the checks after decoding say whether that is allowed
	}
	switch {
	case t == featureVecType:
		if tok != json.Delim('[') {
			return fieldErr(orJSON(path), "want an array of numbers, got %s", describeToken(tok))
		}
		for k := 0; w.dec.More(); k++ {
			tok, err := w.dec.Token()
			p := path + "[" + strconv.Itoa(k) + "]"
			if err != nil {
				return w.syntax(p, err)
			}
			n, ok := tok.(json.Number)
			if !ok {
				return fieldErr(p, "want a number, got %s", describeToken(tok))
			}
			if _, err := strconv.ParseFloat(string(n), 64); err != nil {
				return fieldErr(p, "%s is out of float64 range", n)
			}
		}
		return w.end(path)
	case t.Kind() == reflect.Struct:
		if tok != json.Delim('{') {
			return fieldErr(orJSON(path), "want an object, got %s", describeToken(tok))
		}
		fields := jsonFields(t)
		for w.dec.More() {
			tok, err := w.dec.Token()
			if err != nil {
				return w.syntax(orJSON(path), err)
			}
			key, _ := tok.(string)
			f, ok := fields[strings.ToLower(key)]
			if !ok {
				return fieldErr(join(path, key), "unknown field")
			}
			if err := w.value(f, join(path, key)); err != nil {
				return err
			}
		}
		return w.end(path)
	case t.Kind() == reflect.Slice:
		if tok != json.Delim('[') {
			return fieldErr(orJSON(path), "want an array, got %s", describeToken(tok))
		}
		for k := 0; w.dec.More(); k++ {
			if err := w.value(t.Elem(), path+"["+strconv.Itoa(k)+"]"); err != nil {
				return err
			}
		}
		return w.end(path)
	case t.Kind() == reflect.String:
		if _, ok := tok.(string); !ok {
			return fieldErr(orJSON(path), "want a string, got %s", describeToken(tok))
		}
	case t.Kind() == reflect.Int:
		n, ok := tok.(json.Number)
		if !ok {
			return fieldErr(orJSON(path), "want an integer, got %s", describeToken(tok))
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return fieldErr(orJSON(path), "%s is out of integer range", n)
			}
			return fieldErr(orJSON(path), "%s is not an integer", n)
		}
	case t.Kind() == reflect.Float64:
		n, ok := tok.(json.Number)
		if !ok {
			return fieldErr(orJSON(path), "want a number, got %s", describeToken(tok))
		}
		if _, err := strconv.ParseFloat(string(n), 64); err != nil {
			return fieldErr(orJSON(path), "%s is out of float64 range", n)
		}
	}
	return nil
}

// end consumes the closing delimiter of an object or array.
func (w *walker) end(path string) *RecordError {
	if _, err := w.dec.Token(); err != nil {
		return w.syntax(orJSON(path), err)
	}
	return nil
}

// syntax turns a tokenizer error into a reason with the 1-based byte
// where it happened, naming NaN and Infinity, which Python's json module
// writes by default, explicitly.
func (w *walker) syntax(field string, err error) *RecordError {
	// The decoder stopped after its last good token; the bad value starts
	// after the separators that follow it.
	at := int(w.dec.InputOffset())
	rest := bytes.TrimLeft(w.line[min(at, len(w.line)):], " \t\r\n,:")
	for _, bad := range []string{"NaN", "-NaN", "Infinity", "-Infinity", "+Infinity", "nan", "inf", "-inf"} {
		if bytes.HasPrefix(rest, []byte(bad)) {
			return fieldErr(field, "%s is not valid JSON: numbers must be finite", bad)
		}
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg := strings.TrimPrefix(se.Error(), "json: ")
		// The message quotes the offending character: find it.
		if _, q, ok := strings.Cut(msg, "invalid character '"); ok && len(q) > 0 {
			c, _, _ := strings.Cut(q, "'")
			if i := bytes.Index(w.line[min(at, len(w.line)):], []byte(c)); i >= 0 && c != "" {
				return fieldErr(field, "%s (byte %d)", msg, at+i+1)
			}
		}
		return fieldErr(field, "%s", msg)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fieldErr(field, "unexpected end of line: the JSON value is incomplete")
	}
	return fieldErr(field, "%s", strings.TrimPrefix(err.Error(), "json: "))
}

func describeToken(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return fmt.Sprintf("the number %s", v)
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// join appends key to a JSON path, quoting a key that would not read as
// one (empty, or with separators, spaces or control characters).
func join(path, key string) string {
	if key == "" || strings.ContainsFunc(key, func(r rune) bool {
		return r == '.' || r == '[' || r == ']' || r == '"' || !unicode.IsGraphic(r) || unicode.IsSpace(r)
	}) {
		key = strconv.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func orJSON(path string) string {
	if path == "" {
		return "json"
	}
	return path
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the lower-cased JSON names of t's fields to their types
// (encoding/json matches names case-insensitively).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[strings.ToLower(name)] = f.Type
	}
	fieldCache.Store(t, m)
	return m
}
