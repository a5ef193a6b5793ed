package jsonscan

import (
	"math"
	"reflect"
	"strconv"
	"strings"
)

// NumberMismatch says in a user's words why the number literal lit does
// not fit a value of kind k (what an encoding/json UnmarshalTypeError or a
// strconv error on a flag reports as a bare "want a number"): it is out of
// the kind's range ("1e400 overflows a 64-bit float"), negative where
// only non-negative integers go, or not an integer. It returns "" when lit
// fits k.
func NumberMismatch(lit string, k reflect.Kind) string {
	if w := numberMismatch(lit, k); w != "" {
		return Clip(lit) + w
	}
	return ""
}

// numberMismatch is NumberMismatch's words after the literal, which
// NumberMismatch quotes at most MaxQuote bytes of (Clip).
func numberMismatch(lit string, k reflect.Kind) string {
	switch k {
	case reflect.Float32, reflect.Float64:
		bits := 64
		if k == reflect.Float32 {
			bits = 32
		}
		if _, err := strconv.ParseFloat(lit, bits); err == nil {
			return ""
		} else if isRange(err) {
			return " overflows a " + strconv.Itoa(bits) + "-bit float: want a finite number within ±" + strconv.FormatFloat(maxFloat(bits), 'g', 2, 64)
		}
		return " is not a number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits := bitSize(k)
		if _, err := strconv.ParseUint(lit, 10, bits); err == nil {
			return ""
		} else if isRange(err) {
			return " is too large: want a non-negative integer up to " + strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
		}
		if f, err := strconv.ParseFloat(lit, 64); err == nil && f < 0 {
			return " is negative: want a non-negative integer"
		}
		return " is not an integer: want a non-negative integer"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := bitSize(k)
		if _, err := strconv.ParseInt(lit, 10, bits); err == nil {
			return ""
		} else if isRange(err) {
			return " is out of range: want an integer from " + strconv.FormatInt(math.MinInt64>>(64-bits), 10) + " to " + strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
		}
		return " is not an integer: want an integer"
	}
	return ""
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func maxFloat(bits int) float64 {
	if bits == 32 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

func bitSize(k reflect.Kind) int {
	switch k {
	case reflect.Int8, reflect.Uint8:
		return 8
	case reflect.Int16, reflect.Uint16:
		return 16
	case reflect.Int32, reflect.Uint32:
		return 32
	}
	return 64 // int, uint and uintptr are 64 bits where mpdf runs
}

// TypeMismatch words an encoding/json UnmarshalTypeError whose value is a
// number (Value "number 1e400", Type float64 or a pointer to it) with
// NumberMismatch; it returns "" for any other mismatch, which the caller
// words as before ("string, want a number").
func TypeMismatch(value string, t reflect.Type) string {
	lit, ok := strings.CutPrefix(value, "number ")
	if !ok || t == nil {
		return ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return NumberMismatch(lit, t.Kind())
}

// Want names the JSON value a Go type decodes from, for the "want …" of
// an encoding/json UnmarshalTypeError in JSON's words rather than Go's:
// "an integer", "a number", "a string", "a boolean", "an array" or "an
// object" (a struct, map or interface). Pointers are looked through. It is
// the one wording serve, env/llm and study give a type mismatch.
func Want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
