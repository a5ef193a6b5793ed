package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
)

// Issue 12.7: train checks a pack's feature_version against this build's.
func TestTrainChecksPackFeatureVersion(t *testing.T) {
	dir := t.TempDir()
	in := episodesFile(t, dir)
	pack := filepath.Join(dir, "pack")
	mustRun(t, "data", "pack", in, "--out", pack)
	train(t, filepath.Join(dir, "ok"), "--iterations", "1", pack)

	mf := filepath.Join(pack, "manifest.json")
	b := readFile(t, mf)
	if !strings.Contains(string(b), metapolicy.FeatureVersion) {
		t.Fatalf("manifest lacks the feature version %q", metapolicy.FeatureVersion)
	}
	os.WriteFile(mf, []byte(strings.Replace(string(b), metapolicy.FeatureVersion, "features-v0-older", 1)), 0o644)
	_, _, err := trainErr(t, filepath.Join(dir, "stale"), "--iterations", "1", pack)
	if err == nil || !strings.Contains(err.Error(), "feature_version") || !strings.Contains(err.Error(), "features-v0-older") {
		t.Fatalf("pack of other features: err = %v, want a refusal naming its feature_version", err)
	}
}

// Issue 12.7: decision records of the user's own encoding (another width
// than the built-in features) train with --feature-width; the checkpoint
// says which encoding it is not.
func TestTrainOwnFeatureWidth(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	for g := 0; g < 12; g++ {
		for i := 0; i < 6; i++ {
			a := []string{"persist", "refine", "concede"}[(g+i)%3]
			fmt.Fprintf(&sb, `{"kind":"decision","group":"g%d","features":[%d,0.5,-1,%g,2],"action":%q,"reward":%g}`+"\n",
				g, i, float64(g)/10, a, float64(i%3)-1)
		}
	}
	path := writeFile(t, dir, "mine.jsonl", sb.String())
	if _, _, err := trainErr(t, filepath.Join(dir, "builtin"), "--iterations", "1", path); err == nil {
		t.Fatal("5-feature records trained as built-in features")
	}
	out := filepath.Join(dir, "run")
	train(t, out, "--iterations", "2", "--feature-width", "5", path)
	c, err := checkpoints.Load(filepath.Join(out, "best.mpdf"), checkpoints.WithFeatureVersion(""))
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy.In() != 5 || c.Header.FeatureVersion == metapolicy.FeatureVersion {
		t.Errorf("policy takes %d features, checkpoint feature version %q; want 5 and not the built-in", c.Policy.In(), c.Header.FeatureVersion)
	}
	if _, err := resume(t, out, "--iterations", "3"); err != nil {
		t.Errorf("resume of a 5-feature run: %v", err)
	}
}
