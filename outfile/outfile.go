package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// TempPattern is the os.CreateTemp pattern of the temporary files of the
// target named base: hidden, beside the target, recognisable for clean-up.
func TempPattern(base string) string { return "." + base + ".tmp-*" }

// Check reports whether path may be replaced by an output file: it must be
// missing or a regular file. Anything else is an error naming what it is.
func Check(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("outfile: %w", err)
	}
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("outfile: %s is %s, not a regular file: refusing to replace it (give a new file name)", path, describe(fi.Mode()))
}

func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// File is an output file being written. It is an *os.File open on a
// temporary file beside the target until the first Commit, and on the
// target after it.
type File struct {
	*os.File
	target    string
	tmp       string // "" once renamed
	committed int64  // size at the last Commit
	closed    bool
}

// Create checks path (Check) and creates a temporary file beside it,
// mode 0644 (as os.Create under the usual umask).
func Create(path string) (*File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, TempPattern(base))
	if err != nil {
		return nil, fmt.Errorf("outfile: %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("outfile: %s: %w", path, err)
	}
	return &File{File: f, target: path, tmp: f.Name(), committed: -1}, nil
}

// Target is the path the file is committed to.
func (f *File) Target() string { return f.target }

// Committed reports whether the file has been committed to its target.
func (f *File) Committed() bool { return f.tmp == "" }

// Commit makes what was written so far durable at the target: it syncs
// the file and, the first time, checks the target again and renames the
// temporary file over it (then syncs the directory). The file stays open:
// later writes go to the target, and a later Commit syncs them.
func (f *File) Commit() error {
	if f.closed {
		return fmt.Errorf("outfile: %s: commit after Close", f.target)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("outfile: %s: %w", f.target, err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("outfile: %s: %w", f.target, err)
	}
	if f.tmp != "" {
		// The target may have changed since Create: check it again just
		// before the rename.
		if err := Check(f.target); err != nil {
			return err
		}
		if err := os.Rename(f.tmp, f.target); err != nil {
			return fmt.Errorf("outfile: %w", err)
		}
		f.tmp = ""
		if err := syncDir(filepath.Dir(f.target)); err != nil {
			return fmt.Errorf("outfile: %s: %w", f.target, err)
		}
	}
	f.committed = size
	return nil
}

// Truncate cuts the file back to its size at the last Commit (to nothing
// before the first), so that bytes of a record whose writing failed do not
// stay behind, and places the offset there.
func (f *File) Truncate() error {
	size := max(f.committed, 0)
	if err := f.File.Truncate(size); err != nil {
		return fmt.Errorf("outfile: %s: %w", f.target, err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return fmt.Errorf("outfile: %s: %w", f.target, err)
	}
	return nil
}

// Close closes the file. Before any Commit it also removes the temporary
// file, leaving the target untouched; after one, the target keeps what was
// written (Commit first to make the last writes durable). It is safe to
// call twice.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.File.Close()
	if f.tmp != "" {
		if rerr := os.Remove(f.tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	if err != nil {
		return fmt.Errorf("outfile: %s: %w", f.target, err)
	}
	return nil
}

// WriteFile writes the bytes write produces to path atomically: a crash
// or an error at any point leaves the old file or the new one at path,
// never a mix, and no temporary file (unless the process dies mid-write).
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := write(f); err != nil {
		return fmt.Errorf("outfile: %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return f.Close()
}

// WriteLine writes b and a newline to path atomically (WriteFile): a JSON
// record, say.
func WriteLine(path string, b []byte) error {
	return WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b[:len(b):len(b)], '\n'))
		return err
	})
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
