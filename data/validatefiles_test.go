package data

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// ValidateFiles lists the first MaxListed rejected records, counts the
// rest, names an unreadable file and goes on; its text and JSON agree.
func TestValidateFiles(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var good strings.Builder
	for i := range 3 {
		b, _ := json.Marshal(randomEpisode(rng, i))
		good.Write(append(b, '\n'))
	}
	a := writeFile(t, dir, "a.jsonl", good.String()+"{\"kind\":\"episode\"}\n{\"kind\":\"decision\"}\n{\"kind\":\"x\"}\n")
	gz := writeFile(t, dir, "b.jsonl.gz", "not gzip")
	v, err := ValidateFiles([]string{a, gz}, ValidateOptions{MaxListed: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := v.Counts
	if c.Accepted != 3 || c.Rejected != 3 || c.Unreadable != 1 || len(v.Rejected) != 2 || v.NotListed != 1 ||
		v.Rejected[0].File != a || v.Rejected[0].Line != 4 {
		t.Errorf("validation %+v", v)
	}
	var text strings.Builder
	if err := v.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{a + ":4: ", "... and 1 more rejected records", gz + ": unreadable: ",
		a + ": read 6 records, accepted 3, rejected 3", "2 files: read 6 records, accepted 3 (3 episodes, 0 decisions), rejected 3; 1 files unreadable\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	v, err = ValidateFiles([]string{filepath.Join(dir, "a.*")}, ValidateOptions{})
	if err != nil || len(v.Rejected) != 0 || v.NotListed != 3 {
		t.Errorf("MaxListed 0: %+v, %v", v, err)
	}
	if b, _ := json.Marshal(v); !strings.Contains(string(b), `"rejected":[]`) {
		t.Errorf("JSON without listed rejections: %s", b)
	}
}

// PackStats reads back from a pack what CollectStats read from its
// source: the decisions, their actions and rewards.
func TestPackStatsMatchesSource(t *testing.T) {
	src := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	path := filepath.Join(src, "e.jsonl")
	w, _ := Create(path)
	for i := range 20 {
		if err := w.WriteEpisode(randomEpisode(rng, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 0.5, GroupBy: GroupByEpisode}
	dir := filepath.Join(t.TempDir(), "p")
	m := packDir(t, dir, PackOptions{Reward: cfg}, path)
	var sum strings.Builder
	if err := m.WriteSummary(&sum, dir); err != nil || !strings.Contains(sum.String(), "pack "+dir+": ") {
		t.Errorf("summary %q, %v", sum.String(), err)
	}
	got, err := PackStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open([]string{path}, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want, err := CollectStats(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got.Decisions != want.Decisions || got.Decisions == 0 || got.Groups != want.Groups || got.FeatureWidth != want.FeatureWidth ||
		got.Reward.N != want.Reward.N || !maps.Equal(got.Actions, want.Actions) || got.Counts != m.Counts {
		t.Errorf("pack stats %+v, source's %+v", got, want)
	}
}
