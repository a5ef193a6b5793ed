package serve

import (
	"encoding"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// apiTypes are the Go types of the schemas of api/openapi.json.
var apiTypes = map[string]reflect.Type{
	"DecideRequest":  reflect.TypeFor[DecideRequest](),
	"Deliberation":   reflect.TypeFor[Deliberation](),
	"Agent":          reflect.TypeFor[Agent](),
	"Profile":        reflect.TypeFor[Profile](),
	"DecideResponse": reflect.TypeFor[DecideResponse](),
	"Result":         reflect.TypeFor[Result](),
	"Decision":       reflect.TypeFor[Decision](),
	"Probs":          reflect.TypeFor[Probs](),
	"PolicyInfo":     reflect.TypeFor[PolicyInfo](),
	"PolicyVerdict":  reflect.TypeFor[PolicyVerdict](),
	"ErrorBody":      reflect.TypeFor[ErrorBody](),
	"Health":         reflect.TypeFor[Health](),
}

// responseTypes are always written whole: a field without omitempty is
// always present, so the spec must list it as required.
var responseTypes = []string{"DecideResponse", "Result", "Decision", "Probs", "PolicyInfo", "PolicyVerdict", "ErrorBody", "Health"}

type specSchema struct {
	Type       any                    `json:"type"`
	Ref        string                 `json:"$ref"`
	Required   []string               `json:"required"`
	Properties map[string]*specSchema `json:"properties"`
	Items      *specSchema            `json:"items"`
	Enum       []string               `json:"enum"`
}

type spec struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas map[string]*specSchema `json:"schemas"`
	} `json:"components"`
}

// goField is a JSON field of a Go type.
type goField struct {
	typ      reflect.Type
	optional bool // omitempty, or inside an embedded pointer
}

// jsonFields lists the JSON fields of struct t as encoding/json sees them,
// embedded structs flattened.
func jsonFields(t reflect.Type, optional bool, out map[string]goField) {
	if t.Kind() == reflect.Array { // metapolicy.ByName: keyed by the actions' names
		for _, n := range metapolicy.Names() {
			out[n] = goField{typ: t.Elem(), optional: optional}
		}
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				jsonFields(ft.Elem(), true, out)
			} else {
				jsonFields(ft, optional, out)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = goField{typ: f.Type, optional: optional || strings.Contains(opts, "omitempty")}
	}
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// checkType reports whether schema s describes values of Go type t.
func checkType(t *testing.T, where string, s *specSchema, gt reflect.Type) {
	t.Helper()
	nullable := false
	if gt.Kind() == reflect.Pointer {
		gt, nullable = gt.Elem(), true
	}
	var types []string
	switch v := s.Type.(type) {
	case string:
		types = []string{v}
	case []any:
		for _, x := range v {
			types = append(types, x.(string))
		}
	}
	if slices.Contains(types, "null") && !nullable {
		t.Errorf("%s: the spec allows null, the Go field %v cannot hold it", where, gt)
	}
	types = slices.DeleteFunc(types, func(x string) bool { return x == "null" })
	want := ""
	switch {
	case gt.Implements(textMarshaler):
		want = "string"
	case gt.Kind() == reflect.String:
		want = "string"
	case gt.Kind() >= reflect.Int && gt.Kind() <= reflect.Uint64:
		want = "integer"
	case gt.Kind() == reflect.Float32 || gt.Kind() == reflect.Float64:
		want = "number"
	case gt.Kind() == reflect.Bool:
		want = "boolean"
	case gt.Kind() == reflect.Map:
		want = "object"
	case gt.Kind() == reflect.Slice:
		want = "array"
		if s.Items == nil {
			t.Errorf("%s: array without items", where)
			return
		}
		checkType(t, where+"[]", s.Items, gt.Elem())
	case gt.Kind() == reflect.Struct || gt.Kind() == reflect.Array:
		name := gt.Name()
		for n, at := range apiTypes {
			if at == gt {
				name = n
			}
		}
		if ref := strings.TrimPrefix(s.Ref, "#/components/schemas/"); ref != name {
			t.Errorf("%s: $ref %q, the Go field is a %s", where, s.Ref, gt.Name())
		}
		return
	}
	if len(types) != 1 || types[0] != want {
		t.Errorf("%s: spec type %v, the Go field (%v) is JSON %s", where, s.Type, gt, want)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestOpenAPIMatchesTypes holds api/openapi.json to the server: the same
// routes and methods, a schema per API type with exactly its JSON fields
// and their types, the fields always written listed as required, and the
// error kinds the code writes listed in the enum.
func TestOpenAPIMatchesTypes(t *testing.T) {
	b, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var sp spec
	if err := json.Unmarshal(b, &sp); err != nil {
		t.Fatalf("api/openapi.json: %v", err)
	}

	var specRoutes, codeRoutes []string
	for path, ops := range sp.Paths {
		for m := range ops {
			specRoutes = append(specRoutes, strings.ToUpper(m)+" "+path)
		}
	}
	for _, r := range apiRoutes {
		codeRoutes = append(codeRoutes, r.method+" "+r.path)
	}
	sort.Strings(specRoutes)
	sort.Strings(codeRoutes)
	if !slices.Equal(specRoutes, codeRoutes) {
		t.Errorf("routes: spec %v, server %v", specRoutes, codeRoutes)
	}

	if got, want := keys(sp.Components.Schemas), keys(apiTypes); !slices.Equal(got, want) {
		t.Errorf("schemas: spec %v, Go types %v", got, want)
	}
	for name, gt := range apiTypes {
		s := sp.Components.Schemas[name]
		if s == nil {
			continue
		}
		fields := map[string]goField{}
		jsonFields(gt, false, fields)
		if got, want := keys(s.Properties), keys(fields); !slices.Equal(got, want) {
			t.Errorf("%s: spec properties %v, Go fields %v", name, got, want)
		}
		for fname, f := range fields {
			if ps := s.Properties[fname]; ps != nil {
				checkType(t, name+"."+fname, ps, f.typ)
			}
		}
		for _, r := range s.Required {
			if _, ok := fields[r]; !ok {
				t.Errorf("%s: required %q is no Go field", name, r)
			}
		}
		if slices.Contains(responseTypes, name) {
			var always []string
			for fname, f := range fields {
				if !f.optional {
					always = append(always, fname)
				}
			}
			sort.Strings(always)
			req := slices.Sorted(slices.Values(s.Required))
			if !slices.Equal(req, always) {
				t.Errorf("%s: spec requires %v, the server always writes %v", name, req, always)
			}
		}
	}

	// The error kinds: those the code writes are the enum.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`Kind: "([a-z_]+)"`).FindAllSubmatch(src, -1) {
			kinds[string(m[1])] = true
		}
	}
	kinds["internal"] = true // writeJSON's fallback
	enum := slices.Sorted(slices.Values(sp.Components.Schemas["ErrorBody"].Properties["kind"].Enum))
	if got := keys(kinds); !slices.Equal(got, enum) {
		t.Errorf("error kinds: the package writes %v, the spec lists %v", got, enum)
	}
}
