package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A spool keeps episodes added out of order through a torn end (cut on
// reopen), refuses an id twice and a symbolic link, and writes them in the
// order asked, leaving out ids it lacks.
func TestSpoolOrdersAndSurvivesATornEnd(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "eps.jsonl.gz")
	path := SpoolPath(out)
	if filepath.Base(path) != ".eps.jsonl.gz.spool" {
		t.Fatalf("SpoolPath = %s", path)
	}
	sp, info, err := OpenSpool(path, 0, nil)
	if err != nil || info.Episodes != 0 {
		t.Fatal(err, info)
	}
	for _, id := range []string{"c", "a", "b"} {
		ep := *episodeOf("1", [][]string{{"1", "2"}, {"1", "1"}}, nil)
		ep.ID, ep.Task = id, id
		if err := sp.Add(&ep, true); err != nil {
			t.Fatal(err)
		}
	}
	ep := *episodeOf("1", [][]string{{"1", "2"}, {"1", "1"}}, nil)
	ep.ID = "a"
	if err := sp.Add(&ep, true); err == nil {
		t.Error("an id added twice was taken")
	}
	sp.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"kind":"episode","id":"d","ta`)
	f.Close()
	var kept []string
	sp, info, err = OpenSpool(path, 0, func(ep *Episode) error { kept = append(kept, ep.ID); return nil })
	if err != nil || info.Episodes != 3 || !info.Torn || strings.Join(kept, "") != "cab" {
		t.Fatalf("reopen: %v %+v %v", err, info, kept)
	}
	var order []string
	n, err := sp.WriteOrdered(out, []string{"a", "x", "b", "c"}, func(ep *Episode) error { order = append(order, ep.ID); return nil })
	if err != nil || n != 3 || strings.Join(order, "") != "abc" {
		t.Fatalf("WriteOrdered: %d %v %v", n, err, order)
	}
	if err := sp.Remove(); err != nil {
		t.Fatal(err)
	}
	r, err := Open([]string{out}, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, rec.Episode.ID)
	}
	if strings.Join(got, "") != "abc" {
		t.Errorf("%s holds %v, want a b c", out, got)
	}
	link := filepath.Join(dir, "link.spool")
	os.Symlink(out, link)
	if _, _, err := OpenSpool(link, 0, nil); err == nil {
		t.Error("a spool that is a symbolic link was opened")
	}
}
