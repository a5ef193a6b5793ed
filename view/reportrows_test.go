package view_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/view"
)

// WriteReportRows writes, byte for byte, the page WriteReport writes from
// the same rows encoded as JSON — HTML in the strings, a file name that is
// not valid UTF-8, wins and losses listed — and leaves the rows given as
// they were.
func TestWriteReportRowsIsWriteReport(t *testing.T) {
	others := []string{"majority", "gate"}
	sum := `{"env":"replay:a.json","models":["m<1>","m\ufffd2"],"scopes":[{"name":"all","level":0.95,` +
		`"policies":[{"policy":"mpdf λ=0","lambda":0,"rows":40,"accuracy":{"estimate":0.5,"low":0.4,"high":0.6}}],` +
		`"diffs":[{"learned":"mpdf λ=0","other":"majority"},{"learned":"mpdf λ=0","other":"gate"}]}]}`
	var rows []view.StudyRow
	for task := range 40 {
		model, file := "m<1>", "gsm_m<1>_agents3_rounds3.json"
		if task%2 == 1 {
			model, file = "m\xff2", "gsm_m\xff2_&_agents3_rounds3.json" // not UTF-8: JSON reads back U+FFFD
		}
		for k, pol := range append([]string{"mpdf λ=0"}, others...) {
			rows = append(rows, view.StudyRow{Seed: uint64(1 + task%3), Task: fmt.Sprintf("gsm8k:%012d<&>", task), Index: task,
				Model: model, File: file, Policy: pol, Scored: 1, Correct: (task + k) % 2})
		}
	}
	given := append([]view.StudyRow(nil), rows...)
	js, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := view.WriteReport(&want, []byte(sum), js); err != nil {
		t.Fatal(err)
	}
	if err := view.WriteReportRows(&got, []byte(sum), rows); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("WriteReportRows wrote %d bytes, WriteReport of the JSON %d: the pages differ", got.Len(), want.Len())
	}
	if !bytes.Contains(want.Bytes(), []byte("\ufffd")) || !bytes.Contains(want.Bytes(), []byte("won on")) {
		t.Error("the page shows no replaced byte or no list of questions: the test compares too little")
	}
	for i := range rows {
		if rows[i] != given[i] {
			t.Fatalf("row %d changed: %+v, was %+v", i, rows[i], given[i])
		}
	}
	if err := view.WriteReportRows(&got, []byte(`{"scopes":`), rows); err == nil {
		t.Error("a summary that does not parse was accepted")
	}
}
