package compare

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Ceilings parse as --by does, a bad one refused; a results file that
// does not open is named, the pair's too.
func TestCompareFilesInputs(t *testing.T) {
	if got, err := ParseCeilings([]string{"model", "kind"}); err != nil || !slices.Equal(got, []CompareBy{CompareModel, CompareKind}) {
		t.Errorf("ParseCeilings: %v, %v", got, err)
	}
	if _, err := ParseCeilings([]string{"model", "colour"}); err == nil {
		t.Error("ParseCeilings: a bad scope is taken")
	}
	missing := filepath.Join(t.TempDir(), "results.json")
	if _, err := CompareFiles([]string{missing}, "", CompareConfig{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("CompareFiles: %v, want an error naming %s", err, missing)
	}
}
