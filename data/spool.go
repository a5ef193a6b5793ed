package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A spool keeps a writer's finished episodes in the order they finished,
// each durable as soon as it is added, until they are written in their
// own order (Spool.WriteOrdered): a collection whose episodes end out of
// order (one slow question among many) commits each at once instead of
// holding it behind the slow one. The spool is plain JSON Lines of
// episodes, as the Writer writes them; an index of ids to byte offsets,
// built as episodes are added or read back, restores the order, so a
// spool's memory is that index, not its episodes.

// SpoolPath is the spool of the output path: ".BASE.spool" beside it,
// hidden and without a .jsonl name, so that globs over outputs do not
// take it for one.
func SpoolPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".spool")
}

// Spool is an open spool. It is not safe for concurrent use.
type Spool struct {
	path    string
	f       *os.File
	w       *Writer
	cw      countWriter
	at      map[string]spoolEntry
	maxLine int
}

type spoolEntry struct{ off, n int64 }

// countWriter counts the bytes written through it, the offset of the
// next line.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// SpoolInfo says what OpenSpool found.
type SpoolInfo struct {
	Episodes int64 // whole episodes kept
	Torn     bool  // a torn last line (a writer killed mid-line) was cut off
}

// OpenSpool opens the spool at path for adding, creating it if missing.
// The episodes it holds are read back (each handed to keep, which may
// refuse the spool with an error) and indexed; a torn last line is cut
// off. Any other bad line, or an id that appears twice, is an error
// naming the line: the spool holds what its writer would not write. A
// path that is a symbolic link or not a regular file is refused.
func OpenSpool(path string, maxLine int, keep func(*Episode) error) (*Spool, SpoolInfo, error) {
	var info SpoolInfo
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	fi, lerr := os.Lstat(path)
	if lerr == nil && !fi.Mode().IsRegular() {
		return nil, info, fmt.Errorf("data: spool %s is not a regular file (a symbolic link?): refusing it", path)
	}
	if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
		return nil, info, fmt.Errorf("data: spool: %w", lerr)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, info, fmt.Errorf("data: spool: %w", err)
	}
	if lerr == nil { // the file opened is the one checked, not one swapped in since
		ofi, err := f.Stat()
		if err != nil || !os.SameFile(fi, ofi) {
			f.Close()
			return nil, info, fmt.Errorf("data: spool %s changed while being opened: refusing it", path)
		}
	}
	s := &Spool{path: path, f: f, at: map[string]spoolEntry{}, maxLine: maxLine}
	end, err := s.index(keep, &info)
	if err == nil && info.Torn {
		err = f.Truncate(end)
	}
	if err == nil {
		_, err = f.Seek(end, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, info, err
	}
	s.cw = countWriter{w: f, n: end}
	s.w = NewWriter(&s.cw)
	s.w.SetMaxLineBytes(maxLine)
	return s, info, nil
}

// index reads the spool's lines, returning the offset after the last
// whole one.
func (s *Spool) index(keep func(*Episode) error, info *SpoolInfo) (int64, error) {
	br := bufio.NewReaderSize(s.f, 64<<10)
	var off int64
	var line []byte
	for lineNo := 1; ; lineNo++ {
		line = line[:0]
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if len(line)+len(chunk) > s.maxLine+1 {
				long = true
			} else {
				line = append(line, chunk...)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		switch {
		case err == io.EOF && len(line) == 0 && !long:
			return off, nil
		case err == io.EOF:
			info.Torn = true // a line without its newline: cut while written
			return off, nil
		case err != nil:
			return 0, fmt.Errorf("data: spool %s:%d: %w", s.path, lineNo, err)
		case long:
			return 0, fmt.Errorf("data: spool %s:%d: over %d bytes (MaxLineBytes)", s.path, lineNo, s.maxLine)
		}
		rec, re := decodeLine(bytes.TrimSuffix(line, []byte("\n")), 0)
		if re == nil && rec.Episode == nil {
			re = fieldErr("kind", "a decision: a spool holds episodes")
		}
		if re != nil {
			re.File, re.Line = s.path, lineNo
			return 0, fmt.Errorf("data: spool: %w", re)
		}
		id := rec.Episode.ID
		if _, dup := s.at[id]; dup {
			return 0, fmt.Errorf("data: spool %s:%d: episode %q appears twice", s.path, lineNo, id)
		}
		if keep != nil {
			if err := keep(rec.Episode); err != nil {
				return 0, fmt.Errorf("data: spool %s:%d: %w", s.path, lineNo, err)
			}
		}
		s.at[id] = spoolEntry{off, int64(len(line))}
		off += int64(len(line))
		info.Episodes++
	}
}

// Path is the spool's file.
func (s *Spool) Path() string { return s.path }

// Len is the number of episodes the spool holds.
func (s *Spool) Len() int { return len(s.at) }

// Has reports whether the spool holds the episode whose id is id.
func (s *Spool) Has(id string) bool {
	_, ok := s.at[id]
	return ok
}

// Add validates ep, appends it and, with sync, makes it durable (flushed
// and fsynced) before returning. An episode whose id the spool holds is
// an error. A failed write is cut off, so the spool holds whole lines.
func (s *Spool) Add(ep *Episode, sync bool) error {
	if s.Has(ep.ID) {
		return fmt.Errorf("data: spool %s: episode %q is there already", s.path, ep.ID)
	}
	off := s.cw.n
	err := s.w.WriteEpisode(ep)
	if err == nil {
		err = s.w.Flush()
	}
	if err != nil {
		if s.cw.n != off { // undo a part-written line
			if terr := s.f.Truncate(off); terr != nil {
				return errors.Join(err, terr)
			}
			s.cw.n = off
			if _, serr := s.f.Seek(off, io.SeekStart); serr != nil {
				return errors.Join(err, serr)
			}
			s.w = NewWriter(&s.cw)
			s.w.SetMaxLineBytes(s.maxLine)
		}
		return err
	}
	if sync {
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("data: spool %s: %w", s.path, err)
		}
	}
	s.at[ep.ID] = spoolEntry{off, s.cw.n - off}
	return nil
}

// Sync makes every episode added so far durable.
func (s *Spool) Sync() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("data: spool %s: %w", s.path, err)
	}
	return nil
}

// Episode reads back the episode whose id is id.
func (s *Spool) Episode(id string) (*Episode, error) {
	e, ok := s.at[id]
	if !ok {
		return nil, fmt.Errorf("data: spool %s: no episode %q", s.path, id)
	}
	b := make([]byte, e.n)
	if _, err := s.f.ReadAt(b, e.off); err != nil {
		return nil, fmt.Errorf("data: spool %s: %w", s.path, err)
	}
	rec, re := decodeLine(bytes.TrimSuffix(b, []byte("\n")), 0)
	if re != nil || rec.Episode == nil || rec.Episode.ID != id {
		return nil, fmt.Errorf("data: spool %s: the record at byte %d is not episode %q: the file changed under its writer", s.path, e.off, id)
	}
	return rec.Episode, nil
}

// WriteOrdered writes the spool's episodes of ids, in that order (ids
// the spool lacks are left out), to out: a new file (Create, compressed
// by its name), each episode its own compressed member as a collection
// commits them, renamed over out only once whole and synced. each, when
// set, is called with every episode written, in order. It returns the
// episodes written. On an error out is left as it was.
func (s *Spool) WriteOrdered(out string, ids []string, each func(*Episode) error) (int64, error) {
	w, err := Create(out)
	if err != nil {
		return 0, err
	}
	w.SetMaxLineBytes(s.maxLine)
	var n int64
	for _, id := range ids {
		if !s.Has(id) {
			continue
		}
		ep, err := s.Episode(id)
		if err == nil {
			err = w.WriteEpisode(ep)
		}
		if err == nil {
			err = w.endMember()
		}
		if err == nil && each != nil {
			err = each(ep)
		}
		if err != nil {
			w.Abort()
			return 0, err
		}
		n++
	}
	return n, w.Close()
}

// Close closes the spool, keeping its file.
func (s *Spool) Close() error { return s.f.Close() }

// Remove closes the spool and deletes its file: its episodes are in
// their ordered output.
func (s *Spool) Remove() error {
	s.f.Close()
	if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("data: spool: %w", err)
	}
	return nil
}
