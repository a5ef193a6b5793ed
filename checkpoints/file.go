package checkpoints

// Save writes to a temporary file ".NAME.tmp-*" in the target's directory,
// syncs it, closes it, renames it over the target and syncs the directory. A
// failure at any point removes the temporary file and leaves the previous file
// untouched; a crash leaves either the old or the new file, never a mix (at
// worst a stray temporary file, which Manager removes). Files are created
// with mode 0644.

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/outfile"
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
// size and the limits before anything is allocated from it. Load, Unmarshal
// and Decode trust no length in a file before checking it, allocate nothing
// from an unchecked length, and stop at the first damage: every error names
// the file, the byte offset and what was expected, and wraps exactly one of
// ErrNotCheckpoint, ErrVersion, ErrTruncated, ErrTooLarge, ErrCorrupt or
// ErrFeatureSchema, for errors.Is. A file larger than 1 GiB decompressed is
// refused unless WithMaxBytes says otherwise; a policy of another feature
// layout unless WithFeatureVersion says otherwise. Writers refuse a
// checkpoint a reader would reject, so every file written reads back.
func Load(path string, opts ...Option) (*Checkpoint, error) {
	f, err := openRegular(path)
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

// tempPattern names the temporary files of writeFileAtomic (outfile's):
// hidden, next to the target, recognisable for clean-up.
func tempPattern(base string) string { return outfile.TempPattern(base) }

// writeFileAtomic creates path with the bytes write produces, atomically
// (see Save), mode 0644. A target that is not a regular file (a symbolic
// link, a device, a directory) is refused, not replaced.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if err := outfile.WriteFile(path, write); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}
