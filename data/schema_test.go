package data

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// The schemas and the rollout page live at the repository root.
var docsDir = filepath.Join("..", "docs")

type schemaObj = map[string]any

func loadSchema(t *testing.T, name string) schemaObj {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsDir, "schema", name))
	if err != nil {
		t.Fatal(err)
	}
	var s schemaObj
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("%s: $schema %v, want draft 2020-12", name, s["$schema"])
	}
	return s
}

// TestSchemaMatchesStructs checks that each schema object has exactly the
// properties of its Go struct's json tags, requires exactly the fields
// without omitempty, allows nothing else, and gives each property the
// JSON type the Go field encodes to.
func TestSchemaMatchesStructs(t *testing.T) {
	ep, dec := loadSchema(t, "episode.schema.json"), loadSchema(t, "decision.schema.json")
	defs := ep["$defs"].(schemaObj)
	structs := map[reflect.Type]string{ // Go type → $defs name
		reflect.TypeFor[Round](): "round", reflect.TypeFor[Turn](): "turn",
		reflect.TypeFor[Profile](): "profile", reflect.TypeFor[Exchange](): "exchange",
	}
	resolve := func(root, s schemaObj) schemaObj {
		if ref, ok := s["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			if !ok {
				t.Fatalf("unsupported $ref %q", ref)
			}
			return root["$defs"].(schemaObj)[name].(schemaObj)
		}
		return s
	}
	check := func(root, obj schemaObj, typ reflect.Type, where string) {
		if obj["type"] != "object" || obj["additionalProperties"] != false {
			t.Errorf("%s: want type object with additionalProperties false", where)
		}
		props := obj["properties"].(schemaObj)
		var names, required []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			names = append(names, name)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
			p, ok := props[name].(schemaObj)
			if !ok {
				t.Errorf("%s: property %q of %s is not in the schema", where, name, typ)
				continue
			}
			p = resolve(root, p)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			want := map[reflect.Kind]string{reflect.String: "string", reflect.Int: "integer", reflect.Float64: "number",
				reflect.Slice: "array", reflect.Struct: "object"}[ft.Kind()]
			if ft == reflect.TypeFor[metapolicy.Action]() {
				want = "string"
				enum, _ := json.Marshal(p["enum"])
				if string(enum) != `["persist","refine","concede"]` {
					t.Errorf("%s.%s: enum %s", where, name, enum)
				}
			}
			if p["type"] != want {
				t.Errorf("%s.%s: schema type %v, Go %s encodes as %s", where, name, p["type"], ft, want)
			}
			if def, ok := structs[ft]; ok {
				if ref, _ := props[name].(schemaObj)["$ref"].(string); ref != "#/$defs/"+def {
					t.Errorf("%s.%s: $ref %q, want #/$defs/%s", where, name, ref, def)
				}
			}
			if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
				elems := []any{p["items"]}
				if pre, ok := p["prefixItems"].([]any); ok {
					elems = append(elems, pre...)
				}
				for _, e := range elems {
					if !refersTo(root, e.(schemaObj), structs[ft.Elem()]) {
						t.Errorf("%s.%s: items %v do not refer to #/$defs/%s", where, name, e, structs[ft.Elem()])
					}
				}
			}
		}
		if got := slices.Sorted(mapsKeys(props)); !slices.Equal(got, slices.Sorted(slices.Values(names))) {
			t.Errorf("%s: schema properties %v, Go fields %v", where, got, names)
		}
		var req []string
		for _, r := range obj["required"].([]any) {
			req = append(req, r.(string))
		}
		if !slices.Equal(slices.Sorted(slices.Values(req)), slices.Sorted(slices.Values(required))) {
			t.Errorf("%s: schema requires %v, Go requires (no omitempty) %v", where, req, required)
		}
	}
	check(ep, ep, reflect.TypeFor[Episode](), "episode")
	for typ, name := range structs {
		check(ep, defs[name].(schemaObj), typ, "episode $defs."+name)
	}
	check(dec, dec, reflect.TypeFor[Decision](), "decision")
	for s, kind := range map[*schemaObj]string{&ep: KindEpisode, &dec: KindDecision} {
		if c := (*s)["properties"].(schemaObj)["kind"].(schemaObj)["const"]; c != kind {
			t.Errorf("kind const %v, want %q", c, kind)
		}
	}
}

// refersTo reports whether s is a $ref to the definition def, or to a
// definition that refines def with allOf (as round0 and roundN refine round).
func refersTo(root, s schemaObj, def string) bool {
	ref, _ := s["$ref"].(string)
	if ref == "#/$defs/"+def {
		return true
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		return false
	}
	target, _ := root["$defs"].(schemaObj)[name].(schemaObj)
	all, _ := target["allOf"].([]any)
	for _, a := range all {
		if r, _ := a.(schemaObj)["$ref"].(string); r == "#/$defs/"+def {
			return true
		}
	}
	return false
}

func mapsKeys(m schemaObj) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestDocsExamples reads every ```json example of docs/rollouts.md as a
// record (all must be accepted) and checks that every sample rejection
// has the file:line: field: reason shape.
func TestDocsExamples(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docsDir, "rollouts.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(json|text)\n(.*?)```").FindAllSubmatch(b, -1)
	kinds := map[string]int{}
	for _, m := range blocks {
		if string(m[1]) == "text" {
			shape := regexp.MustCompile(`^\S+:\d+: \S+: \S.*$`)
			for _, line := range strings.Split(strings.TrimSpace(string(m[2])), "\n") {
				if !shape.MatchString(line) {
					t.Errorf("sample rejection %q is not file:line: field: reason", line)
				}
			}
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, m[2]); err != nil {
			t.Fatalf("example is not JSON: %v\n%s", err, m[2])
		}
		rec, err := NewReader(&compact, "rollouts.md", ReaderOptions{}).Next()
		if err != nil {
			t.Errorf("example rejected: %v\n%s", err, m[2])
			continue
		}
		kinds[rec.Kind()]++
	}
	if kinds[KindEpisode] == 0 || kinds[KindDecision] == 0 {
		t.Errorf("examples of each kind: %v", kinds)
	}
}
