package trainer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadConfigFile overlays the file's fields on the base and refuses an
// unknown field and a second object.
func TestReadConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := DefaultConfig()
	c, err := ReadConfigFile(base, write("ok.json", `{"seed": 42}`))
	if err != nil || c.Seed != 42 || c.Tau != base.Tau {
		t.Errorf("overlay: seed %d, tau %v, %v", c.Seed, c.Tau, err)
	}
	for name, body := range map[string]string{"unknown.json": `{"sede": 1}`, "two.json": `{"seed": 1} {"seed": 2}`} {
		if _, err := ReadConfigFile(base, write(name, body)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
	if _, err := ReadConfigFile(base, filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file: no error")
	}
}
