package mpdf_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// owners lists, for each third-party import prefix, the directories of
// this module allowed to import it (a directory owns its subdirectories).
var owners = map[string][]string{
	"gorgonia.org/":                  {"autodiff"},
	"github.com/klauspost/compress":  {"data", "checkpoints"},
	"github.com/spf13/":              {"cmd"},
	"github.com/schollz/progressbar": {"cmd"},
	"gonum.org/v1/plot":              {"cmd"},
	"gonum.org/v1/gonum":             {"nn", "trainer", "env", "data"},
	"golang.org/x/sys/cpu":           {"nn"},
	"github.com/mmcloughlin/avo":     {"nn/_generate"}, // its own module: never a dependency of nn
}

// below lists module packages that must not import other module packages
// except those given: the one-way layering of the tree.
var below = map[string][]string{
	"nn":         {},
	"autodiff":   {"nn"},
	"metapolicy": {"nn"},
}

const module = "github.com/mpdf/mpdf"

// TestImportBoundaries fails when a package imports a library that another
// package owns, or when a lower layer imports a higher one.
func TestImportBoundaries(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for prefix, dirs := range owners {
				if strings.HasPrefix(p, prefix) && !within(dir, dirs) {
					t.Errorf("%s imports %s, which only %v may import", path, p, dirs)
				}
			}
			if strings.HasPrefix(p, module+"/") {
				target := strings.TrimPrefix(p, module+"/")
				if strings.HasPrefix(target, "cmd") {
					t.Errorf("%s imports the command package %s", path, p)
				}
				top := strings.SplitN(dir, "/", 2)[0]
				if allowed, ok := below[top]; ok && !within(target, allowed) && !within(target, []string{top}) {
					t.Errorf("%s (layer %s) imports %s; it may import only %v", path, top, p, allowed)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func within(dir string, roots []string) bool {
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+"/") {
			return true
		}
	}
	return false
}
