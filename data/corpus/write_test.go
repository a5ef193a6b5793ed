package corpus

import (
	"strings"
	"testing"
)

// The table's team column counts answers per agent (round 0 and each
// deliberation round) and says so: a file of 2 deliberation rounds, which
// mpdf import reports as rounds 2, is 3×3 here under "agents×answers",
// not "agents×rounds" (issue 33).
func TestWriteSaysAnswers(t *testing.T) {
	row := FileRow{File: "f.json", Task: "gsm8k", Agents: 3, Rounds: 2, Questions: 1, Unreadable: []float64{0, 0, 0}}
	var b strings.Builder
	if err := Write(&b, &Table{Files: []FileRow{row}, Pooled: row}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "agents×answers") || strings.Contains(out, "agents×rounds") || !strings.Contains(out, " 3×3 ") {
		t.Errorf("table:\n%s", out)
	}
}
