package view_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/view"
)

// TestBudgetMessageUnits: the sizes in an over-budget error are in the unit
// that shows them, and a page one byte over its budget does not read as
// equal to it (issue 34, cause 16: --max-bytes 1000 said "0.0 MB, over its
// budget of 0.0 MB").
func TestBudgetMessageUnits(t *testing.T) {
	eps := []*data.Episode{episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, strings.Repeat("w", 3000))}
	var page bytes.Buffer
	if err := view.Write(&page, view.Group(eps), view.Options{}); err != nil {
		t.Fatal(err)
	}
	full := page.Len()
	for _, c := range []struct {
		budget int
		want   []string
	}{
		{1000, []string{"over its budget of 1000 bytes"}},
		{full - 1, []string{"over its budget of"}},
	} {
		err := view.Write(&bytes.Buffer{}, view.Group(eps), view.Options{MaxBytes: c.budget})
		if err == nil {
			t.Fatalf("budget %d: a %d-byte page accepted", c.budget, full)
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("budget %d: %q, want %q", c.budget, msg, w)
			}
		}
		if strings.Contains(msg, " 0.0 ") {
			t.Errorf("budget %d: %q shows a size as 0.0", c.budget, msg)
		}
		_, rest, _ := strings.Cut(msg, "would be ")
		size, limit, _ := strings.Cut(rest, ", over its budget of ")
		limit, _, _ = strings.Cut(limit, ":")
		if size == limit {
			t.Errorf("budget %d: %q reads the page as its budget", c.budget, msg)
		}
	}
}
