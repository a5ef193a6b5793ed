package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer"
)

// failingSource fails its pass number fail (1 is the check before the
// directory is touched).
type failingSource struct {
	memSource
	passes, fail int
}

func (f *failingSource) Pass(each func(*trainer.Samples) error) (trainer.PassStats, error) {
	if f.passes++; f.passes == f.fail {
		return trainer.PassStats{}, errors.New("disk read error")
	}
	return f.memSource.Pass(each)
}

// Issue 20.7: a fresh run that fails after the check but before its first
// checkpoint (a read error in the supervised stage) removes what it
// wrote — the log, run.json, the lock file and the directory it made — so
// the retry starts without --overwrite; in a directory that was there,
// the directory stays.
func TestRunFailedBeforeFirstCheckpointLeavesNothing(t *testing.T) {
	for _, existed := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "run")
		if existed {
			os.Mkdir(dir, 0o755)
		}
		src := &failingSource{memSource: memRows(), fail: 2}
		_, err := Train(context.Background(), Config{Train: tinyConfig(), Data: src, Dir: dir}, Hooks{})
		if err == nil || !strings.Contains(err.Error(), "disk read error") {
			t.Fatalf("err = %v, want the read error", err)
		}
		entries, err := os.ReadDir(dir)
		switch {
		case !existed && !os.IsNotExist(err):
			t.Errorf("the directory the run made survived it: %v (%d entries)", err, len(entries))
		case existed && (err != nil || len(entries) != 0):
			t.Errorf("existing directory after the failed run: %v, %d entries", err, len(entries))
		}
		src.fail = 0
		if _, err := Train(context.Background(), Config{Train: tinyConfig(), Data: src, Dir: dir}, Hooks{}); err != nil {
			t.Fatalf("retry: %v", err)
		}
	}
}

// foreignCheckpoint trains another run (another seed) and returns its
// latest checkpoint's bytes.
func foreignCheckpoint(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	src := memRows()
	c := tinyConfig()
	c.Seed = 99
	if _, err := Train(context.Background(), Config{Train: c, Data: &src, Dir: dir}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	p, err := checkpoints.Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshot is the bytes of every checkpoint in dir by name.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.mpdf"))
	out := map[string][]byte{}
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		out[filepath.Base(p)] = b
	}
	return out
}

// Issue 20.5: another run's checkpoint copied into a run directory under
// a step name above the run's is refused by name, by Latest (before the
// lock) and by Run (under it), and the run's own files stay as they were.
func TestResumeRefusesForeignCheckpoint(t *testing.T) {
	dir := t.TempDir()
	src := memRows()
	cfg := Config{Train: tinyConfig(), Data: &src, Dir: dir, Keep: 2}
	if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	rs, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Checkpoint.Header.Run == "" || len(rs.Checkpoint.Header.ConfigSHA256) != 64 {
		t.Fatalf("checkpoint header run %q, config_sha256 %q: want both", rs.Checkpoint.Header.Run, rs.Checkpoint.Header.ConfigSHA256)
	}
	before := snapshot(t, dir)
	foreign := filepath.Join(dir, "ckpt-00099999.mpdf")
	if err := os.WriteFile(foreign, foreignCheckpoint(t), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Latest(dir)
	if !errors.Is(err, checkpoints.ErrForeign) || !strings.Contains(err.Error(), "ckpt-00099999.mpdf belongs to another run") || strings.Contains(err.Error(), "--") {
		t.Fatalf("Latest with a foreign checkpoint: %v, want a refusal naming it", err)
	}
	// Read before the file arrived, refused under the lock.
	cfg.Resume, cfg.Train.RL.Iterations = rs, 4
	if _, err := Train(context.Background(), cfg, Hooks{}); !errors.Is(err, checkpoints.ErrForeign) {
		t.Fatalf("Run with a foreign checkpoint: %v, want a refusal", err)
	}
	os.Remove(foreign)
	for name, b := range before {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s changed or went (%v)", name, err)
		}
	}
	// The same for best.mpdf.
	best := filepath.Join(dir, checkpoints.BestName)
	os.WriteFile(best, foreignCheckpoint(t), 0o644)
	if _, err := Latest(dir); err == nil || !strings.Contains(err.Error(), "best.mpdf belongs to another run") {
		t.Fatalf("Latest with a foreign best.mpdf: %v", err)
	}
}

// A directory of a build before run ids (checkpoints without a run, no
// run.json) still resumes: its checkpoints are taken as the run's, and
// the resume records the run in run.json. Checkpoints of two runs there
// are refused.
func TestResumeOfOlderRunDirectory(t *testing.T) {
	dir := t.TempDir()
	src := memRows()
	cfg := Config{Train: tinyConfig(), Data: &src, Dir: dir}
	if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	// Make it an older build's directory.
	os.Remove(filepath.Join(dir, IdentityName))
	paths, _ := filepath.Glob(filepath.Join(dir, "*.mpdf"))
	for _, p := range paths {
		c, err := checkpoints.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		c.Header.Run, c.Header.ConfigSHA256 = "", ""
		if err := checkpoints.Save(p, c); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Latest(dir)
	if err != nil {
		t.Fatalf("older run directory: %v", err)
	}
	cfg.Resume, cfg.Train.RL.Iterations = rs, 3
	if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatalf("resume of an older run directory: %v", err)
	}
	id, ok, err := readIdentity(dir)
	if err != nil || !ok {
		t.Fatalf("run.json after the resume: %v %v", ok, err)
	}
	// Without run.json, checkpoints of two runs cannot both be the run's.
	os.Remove(filepath.Join(dir, IdentityName))
	os.WriteFile(filepath.Join(dir, "ckpt-00099999.mpdf"), foreignCheckpoint(t), 0o644)
	if _, err := Latest(dir); !errors.Is(err, checkpoints.ErrForeign) || !strings.Contains(err.Error(), id.Run) {
		t.Fatalf("two runs without run.json: %v, want a refusal naming both", err)
	}
}

// The run id is fixed at the start: a run resumed with more iterations
// writes the checkpoints of a straight run of that length, byte for byte.
func TestRunIDSurvivesLongerResume(t *testing.T) {
	long, straight := t.TempDir(), t.TempDir()
	src := memRows()
	c := tinyConfig()
	c.RL.Iterations = 1
	if _, err := Train(context.Background(), Config{Train: c, Data: &src, Dir: long}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	rs, err := Latest(long)
	if err != nil {
		t.Fatal(err)
	}
	c.RL.Iterations = 2
	if _, err := Train(context.Background(), Config{Train: c, Data: &src, Dir: long, Resume: rs}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), Config{Train: c, Data: &src, Dir: straight}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(long, checkpoints.StepName(rs.Checkpoint.Header.Step*2)))
	b, _ := os.ReadFile(filepath.Join(straight, checkpoints.StepName(rs.Checkpoint.Header.Step*2)))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("resumed to 2 iterations: %d bytes, straight: %d bytes; want the same bytes", len(a), len(b))
	}
}
