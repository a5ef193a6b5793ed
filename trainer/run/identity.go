package run

// A directory trusts only its own run. Every checkpoint carries the run's
// identity in its header: the run id, fixed at the start and derived from
// what defines the run (the configuration but for the total iterations,
// the feature layout, the data's hash or the environment and split, the
// initial weights), so that the same seed and data still give the same
// bytes; and the SHA-256 of the configuration it was trained with.
// run.json names the directory's run. Latest and a resume refuse, by
// name, any checkpoint there whose header names another run (one copied
// in from elsewhere), and the checkpoints.Manager of a run counts and
// prunes only its own step files and never replaces another run's
// best.mpdf. Checkpoints of builds before run ids (no run in the header)
// are taken as the directory's run's; in a directory without run.json
// they must agree among themselves, and the resume writes run.json.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/outfile"
)

// IdentityName is the file that says which run a directory belongs to
// (identity). A fresh run writes it before its first checkpoint; resume
// and retention act only on checkpoints whose header names that run.
const IdentityName = "run.json"

// identity is the content of run.json.
type identity struct {
	Run string `json:"run"`
	// ConfigSHA256 is the hash of the configuration the run started with.
	ConfigSHA256 string `json:"config_sha256"`
}

// runID names a run from what defines it, fixed at its start: the
// resolved training configuration (but the total iterations, which a
// resume may extend), the feature layout, the data's SHA-256 (offline) or
// the environment, its split and tasks (online), and the initial weights
// when given. Derived, not random, so that the same seed and data give
// byte-identical checkpoints; two runs that agree on all of it are the
// same run.
func (r *runner) runID() (string, error) {
	c := &r.cfg
	train := c.Train
	train.RL.Iterations = 0
	tj, err := json.Marshal(train)
	if err != nil {
		return "", fmt.Errorf("run: config: %w", err)
	}
	var what struct {
		Mode           string  `json:"mode"`
		FeatureVersion string  `json:"feature_version"`
		Width          int     `json:"width"`
		Data           string  `json:"data,omitempty"`
		Env            string  `json:"env,omitempty"`
		HeldOut        float64 `json:"held_out,omitempty"`
		SplitSeed      uint64  `json:"split_seed,omitempty"`
		EnvID          string  `json:"env_id,omitempty"`
		Init           string  `json:"init,omitempty"`
	}
	what.Mode, what.FeatureVersion, what.Width = r.mode(), c.featureVersion(), c.width()
	if c.DataID != nil {
		what.Data = c.DataID.SHA256
	}
	if c.Data == nil {
		what.Env, what.HeldOut, what.SplitSeed, what.EnvID = c.EnvName, c.HeldOut, c.SplitSeed, c.envID
	}
	if m := c.Init; m != nil {
		h := sha256.New()
		fmt.Fprintf(h, "%v %s\x00", m.Sizes, m.Act)
		var b [4]byte
		for _, v := range m.Params {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
		}
		what.Init = hex.EncodeToString(h.Sum(nil))
	}
	wj, err := json.Marshal(what)
	if err != nil {
		return "", fmt.Errorf("run: identity: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "mpdf run\x00%s\x00%s", tj, wj)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// configSHA256 is the hex SHA-256 of a stored (compact JSON) config.
func configSHA256(train []byte) string {
	s := sha256.Sum256(train)
	return hex.EncodeToString(s[:])
}

// readIdentity reads dir's run.json; ok is false when there is none (a
// directory of a build before run ids).
func readIdentity(dir string) (id identity, ok bool, err error) {
	path := filepath.Join(dir, IdentityName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return id, false, nil
	}
	if err != nil {
		return id, false, fmt.Errorf("run: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<16))
	if err != nil {
		return id, false, fmt.Errorf("run: %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &id); err != nil || id.Run == "" {
		return id, false, fmt.Errorf("run: %s: want {\"run\": ID, ...}: %v", path, err)
	}
	return id, true, nil
}

func writeIdentity(dir string, id identity) error {
	b, err := json.Marshal(id)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := outfile.WriteFile(filepath.Join(dir, IdentityName), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// dirRun is the run dir belongs to, checked against its checkpoints: the
// one run.json names, every checkpoint of another run refused by name; or,
// in a directory of an older build without run.json, the run its
// checkpoints agree on ("" when none names one). ok says whether run.json
// was there.
func dirRun(dir string) (run string, ok bool, err error) {
	id, ok, err := readIdentity(dir)
	if err != nil {
		return "", false, err
	}
	run, err = checkpoints.CheckRun(dir, id.Run)
	if err != nil {
		return "", false, fmt.Errorf("run: resume: %w", err)
	}
	return run, ok, nil
}

// claim makes the locked directory this run's: a fresh run checks that
// it is empty (or clears it, with Overwrite) and writes run.json; a
// resumed one checks that its checkpoint is still the latest and that
// every checkpoint there is the run's, and records the run in run.json
// when a directory of an older build had none.
func (r *runner) claim(lock *DirLock) error {
	cfg := &r.cfg
	rs := cfg.Resume
	if rs == nil {
		if err := prepareFresh(lock, cfg.Overwrite); err != nil {
			return err
		}
		id, err := r.runID()
		if err != nil {
			return err
		}
		r.id = id
		train, err := json.Marshal(cfg.Train)
		if err != nil {
			return fmt.Errorf("run: config: %w", err)
		}
		return writeIdentity(cfg.Dir, identity{Run: id, ConfigSHA256: configSHA256(train)})
	}
	// Read before the lock was ours: check again.
	run, recorded, err := dirRun(cfg.Dir)
	if err != nil {
		return err
	}
	if p, err := checkpoints.Latest(cfg.Dir); err != nil || p != rs.Path {
		return fmt.Errorf("run: resume: %s is no longer the latest checkpoint of %s (%v): read it again", rs.Path, cfg.Dir, err)
	}
	if recorded {
		r.id = run
		return nil
	}
	// A directory of a build before run ids: the run its checkpoints name,
	// or, when none does, one derived as a fresh run derives it.
	if r.id = run; r.id == "" {
		if r.id, err = r.runID(); err != nil {
			return err
		}
	}
	return writeIdentity(cfg.Dir, identity{Run: r.id, ConfigSHA256: configSHA256(rs.Checkpoint.Header.Train)})
}
