package serve

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// TestPythonActionsAreTheList holds the Python client's action names
// (python/mpdf/policy.py's ACTIONS, which it reads serve's Probs by and
// orders a policy's outputs by) to metapolicy's list.
func TestPythonActionsAreTheList(t *testing.T) {
	src, err := os.ReadFile("../python/mpdf/policy.py")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ACTIONS = \(([^)]*)\)`).FindSubmatch(src)
	if m == nil {
		t.Fatal("python/mpdf/policy.py: no ACTIONS = (...) line")
	}
	var got []string
	for _, q := range strings.Split(string(m[1]), ",") {
		if q = strings.TrimSpace(q); q == "" {
			continue
		}
		s, err := strconv.Unquote(strings.ReplaceAll(q, `'`, `"`))
		if err != nil {
			t.Fatalf("python/mpdf/policy.py: ACTIONS entry %s: %v", q, err)
		}
		got = append(got, s)
	}
	names := metapolicy.Names()
	if strings.Join(got, ",") != strings.Join(names[:], ",") {
		t.Fatalf("python/mpdf/policy.py: ACTIONS %q, metapolicy's list %q", got, names)
	}
}
