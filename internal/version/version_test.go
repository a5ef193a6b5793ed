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

// A build without VCS stamping names the commit -ldflags gave it (make
// install); a stamped revision wins.
func TestDescribeNamesTheLinkedCommit(t *testing.T) {
	defer func(c string) { Commit = c }(Commit)
	Commit = "0123456789ab"
	d := Describe()
	if i, _ := Read(); i.Revision == "" && !strings.Contains(d, " (commit 0123456789ab) ") {
		t.Errorf("Describe %q: want the linked commit", d)
	} else if i.Revision != "" && strings.Contains(d, "0123456789ab") {
		t.Errorf("Describe %q: the stamped revision %s should win", d, i.Revision)
	}
}
