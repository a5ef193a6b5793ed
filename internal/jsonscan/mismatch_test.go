package jsonscan

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNumberMismatch(t *testing.T) {
	cases := []struct {
		lit  string
		k    reflect.Kind
		want string // "" fits
	}{
		{"1e400", reflect.Float64, "1e400 overflows a 64-bit float: want a finite number within ±1.8e+308"},
		{"-1e400", reflect.Float64, "overflows"},
		{"1e300", reflect.Float64, ""},
		{"1e39", reflect.Float32, "overflows a 32-bit float"},
		{"-5", reflect.Uint64, "-5 is negative: want a non-negative integer"},
		{"-5", reflect.Int64, ""},
		{"1.5", reflect.Uint64, "1.5 is not an integer: want a non-negative integer"},
		{"1.5", reflect.Int, "1.5 is not an integer: want an integer"},
		{"18446744073709551616", reflect.Uint64, "is too large: want a non-negative integer up to 18446744073709551615"},
		{"9223372036854775808", reflect.Int, "is out of range: want an integer from -9223372036854775808 to 9223372036854775807"},
		{"300", reflect.Uint8, "up to 255"},
		{"abc", reflect.Uint64, "abc is not an integer"},
		{"7", reflect.Uint64, ""},
	}
	for _, c := range cases {
		got := NumberMismatch(c.lit, c.k)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("NumberMismatch(%s, %v) = %q, want %q", c.lit, c.k, got, c.want)
		}
	}
}

// TypeMismatch words encoding/json's own errors.
func TestTypeMismatch(t *testing.T) {
	var v struct {
		C    *float64 `json:"c"`
		Seed *uint64  `json:"seed"`
		N    int      `json:"n"`
		S    string   `json:"s"`
	}
	cases := map[string]string{
		`{"c": 1e400}`: "1e400 overflows a 64-bit float",
		`{"seed": -5}`: "-5 is negative: want a non-negative integer",
		`{"n": 1.5}`:   "1.5 is not an integer",
		`{"s": 5}`:     "",
	}
	for in, want := range cases {
		err := json.Unmarshal([]byte(in), &v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a type error", in, err)
		}
		if got := TypeMismatch(te.Value, te.Type); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// TestWant holds the wording of each JSON kind, and that it is what
// encoding/json's own mismatch reports as the type (pointers included).
func TestWant(t *testing.T) {
	type named string
	for _, c := range []struct {
		v    any
		want string
	}{
		{new(int), "an integer"}, {new(*uint64), "an integer"}, {new(int8), "an integer"},
		{new(float64), "a number"}, {new(*float32), "a number"},
		{new(string), "a string"}, {new(named), "a string"},
		{new(bool), "a boolean"},
		{new([]int), "an array"}, {new([2]string), "an array"},
		{new(struct{ A int }), "an object"}, {new(map[string]int), "an object"}, {new(*struct{}), "an object"},
	} {
		lit := `{}`
		if _, ok := c.v.(*struct{ A int }); ok {
			lit = `[]`
		}
		if _, ok := c.v.(*map[string]int); ok {
			lit = `[]`
		}
		if _, ok := c.v.(**struct{}); ok {
			lit = `1`
		}
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(lit), c.v); !errors.As(err, &te) {
			t.Fatalf("%T from %s: %v, want an UnmarshalTypeError", c.v, lit, err)
		}
		if got := Want(te.Type); got != c.want {
			t.Errorf("Want(%v) = %q, want %q", te.Type, got, c.want)
		}
	}
}
