package data

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Continued says what Continue found in the file it reopened.
type Continued struct {
	Existed bool  // the file was there
	Records int64 // records kept, now at the start of the new file
	// Torn is the torn end dropped (a record cut short by a writer killed
	// mid-write), nil when the file ended cleanly.
	Torn *RecordError
}

// Continue reopens the JSON Lines file path (plain, .gz or .zst, as
// Create) to write more records after the ones it holds, for a writer
// resuming an interrupted run. It reads every record (opts, without
// Skip), hands each to keep, which may refuse the file by returning an
// error, writes the kept records to a new file and commits it over path
// at once: the returned Writer appends after them. A torn end (see
// RecordError.Torn) is dropped and reported in Continued; any other
// rejected record is an error, since the file holds what the writer would
// not have written. A missing path is started empty. The original file is
// replaced only once its records are all rewritten and synced, so a crash
// during Continue leaves it as it was.
func Continue(path string, opts ReaderOptions, keep func(Record) error) (*Writer, Continued, error) {
	var c Continued
	if _, err := os.Lstat(path); err == nil {
		c.Existed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, c, fmt.Errorf("data: continue: %w", err)
	}
	w, err := Create(path)
	if err != nil {
		return nil, c, err
	}
	w.SetMaxLineBytes(opts.MaxLineBytes)
	if c.Existed {
		if err := c.copy(w, path, opts, keep); err != nil {
			w.Abort()
			return nil, c, err
		}
	}
	if err := w.Commit(); err != nil {
		w.Abort()
		return nil, c, err
	}
	return w, c, nil
}

func (c *Continued) copy(w *Writer, path string, opts ReaderOptions, keep func(Record) error) error {
	opts.Skip, opts.OnReject, opts.KeepErrors = false, nil, -1
	r, err := Open([]string{path}, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var re *RecordError
		if errors.As(err, &re) && re.Torn {
			c.Torn = re
			continue // the torn end is the input's last record
		}
		if err != nil {
			return fmt.Errorf("data: continue: %w (the file holds a record its writer would not write)", err)
		}
		if err := keep(rec); err != nil {
			return fmt.Errorf("data: continue: %s: %w", rec.Pos, err)
		}
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("data: continue: %s: %w", rec.Pos, err)
		}
		c.Records++
	}
}
