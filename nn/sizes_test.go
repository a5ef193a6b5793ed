package nn

import (
	"fmt"
	"strings"
	"testing"
)

// Hidden sizes read what they write, and refuse what is not a positive
// integer, saying the whole value.
func TestParseHidden(t *testing.T) {
	got, err := ParseHidden("64, 32")
	if err != nil || FormatHidden(got) != "64,32" {
		t.Errorf("64, 32: %v %v", got, err)
	}
	for _, bad := range []string{"", "0", "64,-1", "6x"} {
		if _, err := ParseHidden(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
