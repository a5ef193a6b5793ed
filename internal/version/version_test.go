package version

import (
	"runtime"
	"strings"
	"testing"
)

// A test binary is a build of mpdf, its main module: Read finds it, and
// Describe ends with the Go version and the platform.
func TestReadAndDescribe(t *testing.T) {
	i, ok := Read()
	if !ok || i.Version == "" {
		t.Fatalf("Read: %+v, %v; want this module's build", i, ok)
	}
	d := Describe()
	if !strings.HasPrefix(d, i.Version) || !strings.HasSuffix(d, " "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("Describe %q: want %q first, the Go version and platform last", d, i.Version)
	}
	if i.Revision != "" && !strings.Contains(d, "(revision "+i.Revision+", ") {
		t.Errorf("Describe %q: want the revision %s", d, i.Revision)
	}
}
