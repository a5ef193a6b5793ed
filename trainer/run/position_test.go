package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIdentifyData(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a/x.jsonl", "one\n")
	a2 := write("b/x.jsonl", "one\n")
	b := write("c/x.jsonl", "two\n")
	id := func(paths ...string) *DataID {
		d, err := IdentifyData(paths)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if !id(a).Same(id(a2)) {
		t.Error("the same bytes under another directory are other data")
	}
	if id(a).Same(id(b)) || id(a).Same(id(a, b)) {
		t.Error("other bytes, or more files, are the same data")
	}
	if g := id(filepath.Join(dir, "[ab]", "*.jsonl")); !g.Same(id(a, a2)) || g.Paths[0] != filepath.Join(dir, "[ab]", "*.jsonl") {
		t.Errorf("a glob: %+v", g)
	}
	// A pack is its manifest: the shards' hashes are in it.
	write("pack/manifest.json", `{"shards":[{"sha256":"00"}]}`)
	shard := write("pack/shard-00000.mpdfs", "rows")
	p1 := id(filepath.Join(dir, "pack"))
	os.WriteFile(shard, []byte("other rows"), 0o644)
	if !p1.Same(id(filepath.Join(dir, "pack"))) {
		t.Error("a pack was hashed beyond its manifest")
	}
	write("pack/manifest.json", `{"shards":[{"sha256":"01"}]}`)
	if p1.Same(id(filepath.Join(dir, "pack"))) {
		t.Error("a pack with another manifest is the same data")
	}
	if _, err := IdentifyData([]string{filepath.Join(dir, "typo.jsonl")}); err == nil || !strings.Contains(err.Error(), "typo.jsonl") {
		t.Errorf("a missing file: err = %v", err)
	}
}
