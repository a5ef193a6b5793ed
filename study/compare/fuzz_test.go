package compare

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/study"
)

var (
	// resultsWhere is how a ReadResults error starts: the file, then the
	// row and its offset, or the offset alone.
	resultsWhere = regexp.MustCompile(`^study: results: fuzz: (offset \d+|row \d+ \(offset \d+\)): `)
	// goNames matches what encoding/json's messages say of Go types.
	goNames = regexp.MustCompile(`Go (struct field|value)|study\.`)
)

// FuzzReadResults feeds arbitrary bytes as a results.json. It must never
// panic; an error must name the file and the row or offset, name no Go type
// and stay short; and the rows it accepts hold together (counts that add
// up, no repeated row) and written back by WriteResults read back the same,
// to the same bytes.
func FuzzReadResults(f *testing.F) {
	good := `{"seed":1,"fold":0,"task":"gsm8k:a","index":0,"model":"m","policy":"gate","episodes":1,"scored":1,"correct":1,"tokens":5,"persist":0,"refine":0,"concede":0}`
	learned := `{"seed":2,"fold":1,"task":"t","index":3,"model":"m","file":"x.json","policy":"learned","lambda":0.001,"episodes":2,"scored":1,"correct":0,"tokens":9,"persist":1,"refine":2,"concede":3}`
	for _, s := range []string{
		"[\n" + good + ",\n" + learned + "\n]\n", "[" + good + "]", `[]`, ``, `{"a":1}`, `[1]`, `["x"]`, `[null]`,
		`[` + good + `,{"seed":1,"bogus":2}]`, `[` + good + `,` + good + `]`, `[` + good + `,`, `[` + good + `] x`,
		`[` + strings.Replace(good, `"correct":1`, `"correct":2`, 1) + `]`,
		`[` + strings.Replace(good, `"seed":1`, `"seed":-1`, 1) + `]`,
		`[` + strings.Replace(good, `"tokens":5`, `"tokens":"5"`, 1) + `]`,
		`[` + strings.Replace(learned, `0.001`, `-0`, 1) + `]`,
		`[` + strings.Replace(learned, `0.001`, `1e999`, 1) + `]`,
		`[` + strings.Replace(good, `"index":0`, `"index":`+strings.Repeat("9", 3000), 1) + `]`,
		`[` + strings.Replace(good, `"bogus"`, `"`+strings.Repeat("b", 3000)+`"`, 1) + `]`,
		`[{"` + strings.Repeat("f", 3000) + `":1}]`,
	} {
		f.Add([]byte(s))
	}
	long := strings.Replace(good, `"policy":"gate"`, `"policy":"`+strings.Repeat("p", 3000)+`"`, 1)
	f.Add([]byte(`[` + long + `,` + long + `]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := ReadResults(bytes.NewReader(in), "fuzz")
		if err != nil {
			msg := err.Error()
			// The input may hold the Go words itself, or an escape that decodes to them.
			goWords := goNames.MatchString(msg) && !goNames.Match(in) && !bytes.ContainsRune(in, '\\')
			if !resultsWhere.MatchString(msg) || len(msg) > 1024 || goWords {
				t.Fatalf("error of %d bytes not of the form study: results: fuzz: row N (offset M): reason (short, no Go names):\n%.300s", len(msg), msg)
			}
			return
		}
		for i, r := range res.Rows {
			if r.Task == "" || r.Policy == "" || r.Episodes < 1 || r.Scored < 0 || r.Scored > r.Episodes ||
				r.Correct < 0 || r.Correct > r.Scored || r.Index < 0 {
				t.Fatalf("accepted row %d: %+v", i+1, r)
			}
		}
		var b1, b2 bytes.Buffer
		if err := (&study.Study{Rows: res.Rows}).WriteResults(&b1); err != nil {
			t.Fatalf("accepted rows WriteResults cannot write: %v", err)
		}
		back, err := ReadResults(bytes.NewReader(b1.Bytes()), "again")
		if err != nil {
			t.Fatalf("accepted rows, written back, are refused: %v\n%.300s", err, b1.Bytes())
		}
		if d := cmp.Diff(res.Rows, back.Rows); d != "" {
			t.Fatalf("read → write → read differs (-first +second):\n%s", d)
		}
		(&study.Study{Rows: back.Rows}).WriteResults(&b2)
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatalf("the same rows wrote different bytes")
		}
	})
}
