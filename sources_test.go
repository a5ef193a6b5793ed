package mpdf_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf"
)

// SourcesSHA256 is the hash of the checkout's files as its doc says
// (recomputed here from the working tree): it names what a build runs,
// the same for every build of these sources, whatever their executables.
func TestSourcesSHA256IsOfTheSources(t *testing.T) {
	var files []string
	for _, pat := range []string{"env/*.go", "env/llm/*.go", "answer/*.go", "metapolicy/*.go", "data/*.go", "checkpoints/*.go", "nn/*.go", "nn/*.s"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, filepath.ToSlash(f))
			}
		}
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(f + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
	}
	if got, want := mpdf.SourcesSHA256(), hex.EncodeToString(h.Sum(nil)); got != want || len(files) < 50 {
		t.Errorf("SourcesSHA256 = %s, the %d files hash to %s", got, len(files), want)
	}
}
