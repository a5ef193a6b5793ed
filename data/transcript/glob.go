package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Glob turns arguments into file paths: an argument naming an existing
// file is kept, any other is a filepath.Match glob whose matches are
// taken in lexical order. An argument that matches nothing, or names a
// directory, is an error; a file named twice is kept once.
func Glob(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%s: is a directory, want files", a)
			}
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
			continue
		}
		matches, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: bad pattern: %w", a, err)
		}
		var files []string
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				files = append(files, m)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no such file", a)
		}
		for _, m := range files { // Glob returns lexical order
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// Names lists the base names of paths, for a message.
func Names(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return strings.Join(out, ", ")
}
