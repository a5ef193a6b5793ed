package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictRecordFiles: a pack's manifest and a collect shard's record
// with a key twice or in another case are refused, naming file, line and
// key (issue 34, cause 5: one strict reader for every JSON input; the last
// value won).
func TestStrictRecordFiles(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	if err := os.MkdirAll(pack, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(pack, ManifestName)
	os.WriteFile(manifest, []byte("{\n\"format\":\"a\",\n\"format\":\"b\"}"), 0o644)
	if _, err := OpenPack(pack); err == nil || !strings.Contains(err.Error(), ManifestName+":3: format: given twice") {
		t.Errorf("manifest with a key twice: %v", err)
	}
	shard := filepath.Join(dir, "shard.json")
	os.WriteFile(shard, []byte(`{"Format":"a"}`), 0o644)
	if _, err := ReadCollectShard(shard); err == nil || !strings.Contains(err.Error(), `shard.json:1: Format: unknown field (want "format"`) {
		t.Errorf("shard record with a key in another case: %v", err)
	}
}
