package compare

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Ceilings parse as --by does, a bad one refused; a results file that
// does not open is named, the pair's too.
func TestFilesInputs(t *testing.T) {
	if got, err := ParseCeilings([]string{"model", "kind"}); err != nil || !slices.Equal(got, []By{ByModel, ByKind}) {
		t.Errorf("ParseCeilings: %v, %v", got, err)
	}
	if _, err := ParseCeilings([]string{"model", "colour"}); err == nil {
		t.Error("ParseCeilings: a bad scope is taken")
	}
	missing := filepath.Join(t.TempDir(), "results.json")
	if _, err := Files([]string{missing}, "", Config{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Files: %v, want an error naming %s", err, missing)
	}
}
