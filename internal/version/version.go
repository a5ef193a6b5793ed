// Package version says which build of mpdf runs, from the binary's build
// information: the mpdf module's version and, when mpdf is the main module
// built from a checkout, its VCS revision.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/mpdf/mpdf"
)

// Module is mpdf's module path.
const Module = "github.com/mpdf/mpdf"

// Commit is the commit the binary was built from, when the build said so
// with -ldflags "-X github.com/mpdf/mpdf/internal/version.Commit=…" (make
// install does): a build without VCS stamping (-buildvcs=false, or GOFLAGS
// saying so) then still names its commit. A VCS revision, when stamped,
// wins.
var Commit string

// Info is a build of mpdf.
type Info struct {
	// Version is the module's: a tag when installed with go install
	// ...@vX, "(devel)" from a checkout.
	Version string
	// Revision, Time and Modified are the VCS revision, its time and
	// whether the checkout had changes; set only when mpdf is the main
	// module built from a checkout.
	Revision, Time string
	Modified       bool
}

// Read reads this binary's build of mpdf: as its main module, or as a
// dependency of another program (no VCS then). ok is false when the
// binary has no build information or does not hold mpdf.
func Read() (i Info, ok bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return i, false
	}
	if bi.Main.Path != Module {
		for _, d := range bi.Deps {
			if d.Path == Module {
				return Info{Version: d.Version}, true
			}
		}
		return i, false
	}
	i.Version = bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i, true
}

// Describe is this build for a person (mpdf --version): the version, the
// revision when known, the Go version and the platform, as in
// "(devel) (revision 0123abc, 2026-12-01T10:00:00Z, modified) go1.26 linux/amd64".
func Describe() string {
	v, rev := "(unknown)", ""
	if i, ok := Read(); ok {
		if i.Version != "" {
			v = i.Version
		}
		if i.Revision != "" {
			dirty := ""
			if i.Modified {
				dirty = ", modified"
			}
			rev = fmt.Sprintf(" (revision %s, %s%s)", i.Revision, i.Time, dirty)
		}
	}
	if rev == "" && Commit != "" {
		rev = fmt.Sprintf(" (commit %s)", Commit)
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Build names the running build for records that must only be combined
// with records of the same build (study and collection shards): what it
// runs, not its executable's bytes, which differ between two builds of
// one commit. That is the module version and VCS revision where known,
// else (a build without VCS information, or from a modified checkout) the
// SHA-256 of the sources that shape episodes as they were embedded at
// build (mpdf.SourcesSHA256); then the toolchain, Go version and GOARCH
// (arm64 fuses multiply-adds, amd64 does not).
func Build() string {
	v, rev, dirty := "(unknown)", "", false
	if i, ok := Read(); ok {
		if i.Version != "" {
			v = i.Version
		}
		if i.Revision != "" {
			rev = " " + i.Revision
		}
		dirty = i.Modified
	}
	id := "mpdf " + v + rev
	if (v == "(devel)" || v == "(unknown)") && rev == "" || dirty {
		id += " sources " + mpdf.SourcesSHA256()[:16]
	}
	return id + " " + runtime.Version() + " " + runtime.GOARCH
}
