package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version describes this build from its build info: the module version
// (a tag when installed with go install ...@vX, else "(devel)") and the
// VCS revision, time and dirty state when built from a checkout.
func version() string {
	v, rev := "(unknown)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		var commit, when, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
		if commit != "" {
			rev = fmt.Sprintf(" (revision %s, %s%s)", commit, when, dirty)
		}
	}
	return fmt.Sprintf("%s%s %s %s/%s", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
