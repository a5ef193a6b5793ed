package data

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/metapolicy"
)

// TestPackEpisodesInLayout: packing with a feature version featurizes the
// episodes in that layout (peers-v1, the attention network's): the
// manifest records it and its width, the rows are DecisionsIn's; an
// unknown layout is refused.
func TestPackEpisodesInLayout(t *testing.T) {
	src := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	path := filepath.Join(src, "e.jsonl")
	w, _ := Create(path)
	fz, _ := metapolicy.FeaturizerFor(metapolicy.FeatureVersionPeers)
	rc := RewardConfig{WLocal: 1, WGlobal: 1, GroupBy: GroupByEpisode}
	var want []Decision
	for i := range 30 {
		ep := randomEpisode(rng, i)
		if ep.Agents > metapolicy.MaxPeersTeam {
			continue
		}
		if err := w.WriteEpisode(ep); err != nil {
			t.Fatal(err)
		}
		ds, err := DecisionsIn(ep, rc, fz)
		if errors.Is(err, ErrNoGold) {
			continue
		}
		for _, d := range ds {
			if len(d.Features) != metapolicy.FeatureWidthPeers {
				t.Fatalf("DecisionsIn gave %d features", len(d.Features))
			}
			for k, v := range d.Features {
				d.Features[k] = float64(float32(v))
			}
			want = append(want, d)
		}
	}
	w.Close()
	dir := filepath.Join(t.TempDir(), "p")
	m := packDir(t, dir, PackOptions{Reward: rc, FeatureVersion: metapolicy.FeatureVersionPeers}, path)
	if m.FeatureVersion != metapolicy.FeatureVersionPeers || m.FeatureWidth != metapolicy.FeatureWidthPeers || len(want) == 0 {
		t.Fatalf("manifest: feature version %q width %d (%d decisions)", m.FeatureVersion, m.FeatureWidth, len(want))
	}
	if d := cmp.Diff(want, unpack(t, dir)); d != "" {
		t.Fatalf("unpacked decisions differ from DecisionsIn's (-want +got):\n%s", d)
	}
	r, err := Open([]string{path}, ReaderOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := WritePack(filepath.Join(t.TempDir(), "q"), r, PackOptions{Reward: rc, FeatureVersion: "mpdf-features/v9"}); err == nil {
		t.Error("an unknown layout is packed")
	}
}
