package checkpoints

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// Save writes c to path atomically: the bytes go to a temporary file in the
// same directory, which is synced, closed and renamed over path, and the
// directory is synced. A crash or error at any point leaves either the old
// file or the new one at path, never a mix, and no temporary file behind
// (unless the process dies mid-write; Manager removes such leftovers).
func Save(path string, c *Checkpoint) error {
	b, err := Marshal(c)
	if err != nil {
		return fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	return writeFileAtomic(path, bytesWriter(b))
}

// Load reads the checkpoint at path. The prefix is checked against the file
// size and the limits before anything is allocated from it; see the package
// doc for the errors.
func Load(path string, opts ...Option) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("checkpoints: %s: not a regular file", path)
	}
	c, err := decode(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	return c, nil
}

func bytesWriter(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// tempPattern names the temporary files of writeFileAtomic: hidden, next to
// the target, recognisable for clean-up.
func tempPattern(base string) string { return "." + base + ".tmp-*" }

// writeFileAtomic creates path with the bytes write produces, atomically
// (see Save). The file is made readable by all (0644), as os.Create would
// under the usual umask.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tempPattern(base))
	if err != nil {
		return fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("checkpoints: %s: %w", path, err)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Windows cannot sync a directory
// (and its renames are durable without it).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
