package mpdf

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"strconv"
	"strings"
	"sync"
)

// sources are the files of the packages whose code shapes a collection's
// episodes: the runner (env), the live game, prompts and client
// (env/llm), the answer readers, the policies (metapolicy, checkpoints,
// nn with its assembly) and the record format (data). Embedded so that a
// build without VCS information (a tarball, an image built from a copy)
// is named by what it runs, not by its executable's bytes, which differ
// between two builds of one commit (paths, build IDs, linker).
//
//go:embed env/*.go env/llm/*.go answer/*.go metapolicy/*.go data/*.go checkpoints/*.go nn/*.go nn/*.s
var sources embed.FS

var sourcesOnce = sync.OnceValue(func() string {
	h := sha256.New()
	// fs.WalkDir visits in lexical order: the hash does not depend on the
	// file system's.
	fs.WalkDir(sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := sources.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
})

// SourcesSHA256 is the SHA-256 of the non-test sources that shape
// episodes, as this binary was built from them: for each file in path
// order, its path, a NUL, its length in decimal, a NUL, then its bytes.
// The same checkout gives the same hash on any machine and toolchain.
func SourcesSHA256() string { return sourcesOnce() }
