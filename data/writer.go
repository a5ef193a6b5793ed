package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/mpdf/mpdf/outfile"
)

// Writer writes records as JSON Lines. It validates every record first,
// so that it never writes a line the Reader would reject (a line over
// MaxLineBytes included), and its output is deterministic: fields in
// struct order, floats in Go's shortest form that reads back to the same
// float64, HTML characters unescaped. A Writer is not safe for concurrent
// use.
type Writer struct {
	bw      *bufio.Writer
	enc     *json.Encoder
	line    bytes.Buffer // one encoded record, checked before it is written
	comp    compressor   // gzip or zstd stream, nil when plain
	ended   bool         // comp's member is ended; the next record starts one
	f       *outfile.File
	maxLine int
	width   int
	n       int64
	err     error
	closed  bool
}

// compressor is a gzip.Writer or a zstd.Encoder: both end a member
// (frame) with Close and start a new one on the same output with Reset.
type compressor interface {
	io.WriteCloser
	Reset(io.Writer)
}

type zstdCompressor struct{ *zstd.Encoder }

func (z zstdCompressor) Reset(w io.Writer) { z.Encoder.Reset(w) }

// NewWriter returns a Writer of plain JSON Lines to w. Close flushes it
// but does not close w.
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{bw: bufio.NewWriterSize(w, 64<<10), maxLine: DefaultMaxLineBytes}
	wr.enc = json.NewEncoder(&wr.line)
	wr.enc.SetEscapeHTML(false)
	return wr
}

// Create returns a Writer to the file path, compressed by its extension:
// .gz (gzip, default level) or .zst (zstd, default level, one goroutine,
// so that the bytes are deterministic); the extension of another
// compression (.bz2, .xz, ...) is refused (CheckOutputName), anything else
// is plain. The
// records go to a temporary file beside path (package outfile): Close
// renames it over path, Abort removes it, and path is never left
// half-written. path must be missing or a regular file; a symbolic link, a
// device or a directory is refused.
//
// Commit makes the records written so far durable at path while writing
// goes on, for a writer that must keep them through a crash.
func Create(path string) (*Writer, error) {
	return CreateFrom(path)
}

// CreateFrom is Create for an output made from the files inputs: an output
// that is one of them (the same file, outfile.NotAnInput) is refused before
// anything is written.
func CreateFrom(path string, inputs ...string) (*Writer, error) {
	if err := outfile.NotAnInput(path, inputs...); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if err := CheckOutputName(path); err != nil {
		return nil, err
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var comp compressor
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz":
		comp = gzip.NewWriter(f)
	case ".zst":
		enc, err := zstd.NewWriter(f, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("data: %s: %w", path, err)
		}
		comp = zstdCompressor{enc}
	}
	var w *Writer
	if comp != nil {
		w = NewWriter(comp)
	} else {
		w = NewWriter(f)
	}
	w.comp, w.f = comp, f
	return w, nil
}

// SetMaxLineBytes sets the longest line the Writer writes, newline
// excluded (0 means DefaultMaxLineBytes): a longer record is refused with
// an error, and nothing of it is written. Give readers of the output the
// same ReaderOptions.MaxLineBytes.
func (w *Writer) SetMaxLineBytes(n int) {
	if n <= 0 {
		n = DefaultMaxLineBytes
	}
	w.maxLine = n
}

// WriteEpisode validates ep and writes it as one line. An empty Kind is
// written as "episode"; ep itself is not modified.
func (w *Writer) WriteEpisode(ep *Episode) error {
	c := *ep
	if c.Kind == "" {
		c.Kind = KindEpisode
	}
	if err := validateEpisode(&c); err != nil {
		return fmt.Errorf("data: write episode %q: %w", ep.ID, err)
	}
	if err := episodeUTF8(&c); err != nil {
		return fmt.Errorf("data: write episode %q: %w", ep.ID, err)
	}
	if err := w.encode(&c); err != nil {
		return fmt.Errorf("data: write episode %q: %w", ep.ID, err)
	}
	return nil
}

// WriteDecision validates d and writes it as one line. An empty Kind is
// written as "decision". All decisions of one Writer must have the same
// feature width, as the Reader requires.
func (w *Writer) WriteDecision(d *Decision) error {
	c := *d
	if c.Kind == "" {
		c.Kind = KindDecision
	}
	if err := validateDecision(&c, w.width); err != nil {
		return fmt.Errorf("data: write decision: %w", err)
	}
	if !utf8.ValidString(c.Group) {
		return fmt.Errorf("data: write decision: %w", fieldErr("group", "invalid UTF-8 (the Reader refuses it)"))
	}
	if err := w.encode(&c); err != nil {
		return fmt.Errorf("data: write decision: %w", err)
	}
	w.width = len(c.Features)
	return nil
}

// Write writes rec's episode or decision.
func (w *Writer) Write(rec Record) error {
	switch {
	case rec.Episode != nil:
		return w.WriteEpisode(rec.Episode)
	case rec.Decision != nil:
		return w.WriteDecision(rec.Decision)
	}
	return errors.New("data: write: empty record")
}

// Records is the number of records written.
func (w *Writer) Records() int64 { return w.n }

func (w *Writer) encode(v any) error {
	if w.err != nil {
		return w.err
	}
	w.line.Reset()
	if err := w.enc.Encode(v); err != nil {
		return err // nothing written: the Writer goes on
	}
	if n := w.line.Len() - 1; n > w.maxLine {
		return fieldErr("line", "%d bytes, over the limit of %d (MaxLineBytes; readers refuse it too)", n, w.maxLine)
	} else if n > MaxTextBytes {
		// Only a line this long can hold a string over MaxTextBytes.
		if re := checkStrict(w.line.Bytes()); re != nil {
			re.Reason += "; readers refuse it too"
			return re
		}
	}
	if w.ended {
		w.comp.Reset(w.f)
		w.ended = false
	}
	if _, err := w.bw.Write(w.line.Bytes()); err != nil {
		w.err = fmt.Errorf("data: write: %w", err)
		return w.err
	}
	w.n++
	return nil
}

// Flush writes buffered lines to the underlying writer (through the
// compressor's buffer, when there is one).
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("data: write: %w", err)
	}
	return w.err
}

// endMember flushes and, when compressing, ends the current gzip member
// or zstd frame, so that the bytes written so far decompress on their own.
// The next record starts a new member; readers read concatenated members
// as one stream.
func (w *Writer) endMember() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.comp != nil && !w.ended {
		if err := w.comp.Close(); err != nil {
			w.err = fmt.Errorf("data: write: %w", err)
			return w.err
		}
		w.ended = true
	}
	return nil
}

// Commit makes every record written so far durable: it ends the current
// compressed member, flushes, syncs the file and, the first time, renames
// it over the path given to Create. Writing goes on into the same file. A
// crash after Commit keeps those records, whole; a crash mid-record leaves
// at most a torn last line, which the Reader reports as such. For a Writer
// from NewWriter it only ends the member and flushes.
func (w *Writer) Commit() error {
	if w.closed {
		return errors.New("data: commit after Close")
	}
	if err := w.endMember(); err != nil {
		return err
	}
	if w.f != nil {
		if err := w.f.Commit(); err != nil {
			w.err = fmt.Errorf("data: %w", err)
			return w.err
		}
	}
	return nil
}

// Close ends the stream, commits the file it created (renaming it over
// the target) and closes it. When the Writer has failed, Close does not
// commit: it aborts (see Abort) and returns the error. It is safe to call
// twice.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	if w.err != nil {
		err := w.err
		w.Abort()
		return err
	}
	// A Writer with no record still ends one (empty) member, so that an
	// empty .gz or .zst file reads as one.
	err := w.endMember()
	if err == nil && w.f != nil {
		err = w.f.Commit()
	}
	if err != nil {
		// Abort marks the Writer closed; the error to return is the real
		// one (a full disk's ENOSPC), not Abort's "write after Close".
		err = fmt.Errorf("data: %w", err)
		w.Abort()
		w.err = err
		return err
	}
	w.closed = true
	if w.f != nil {
		if cerr := w.f.Close(); cerr != nil {
			return fmt.Errorf("data: %w", cerr)
		}
	}
	w.err = errors.New("data: write after Close")
	return nil
}

// Abort ends the Writer without committing what was written since the
// last Commit: before any Commit the temporary file is removed and the
// target left as it was; after one the file is cut back to its size at the
// last Commit. A Writer from NewWriter is only marked closed. It is safe
// to call after Close (it then does nothing).
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.err = errors.New("data: write after Close")
	if w.f == nil {
		return nil
	}
	var err error
	if w.f.Committed() {
		err = w.f.Truncate()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}

// episodeUTF8 finds a string of e that is not valid UTF-8: encoding/json
// would write it with U+FFFD in place of the bad bytes, a silent change
// the Reader refuses in its input.
func episodeUTF8(e *Episode) *RecordError {
	for _, f := range []struct{ name, v string }{{"id", e.ID}, {"task", e.Task}, {"question", e.Question},
		{"gold", e.Gold}, {"source", e.Source}, {"policy", e.Policy}} {
		if !utf8.ValidString(f.v) {
			return fieldErr(f.name, "invalid UTF-8 (the Reader refuses it)")
		}
	}
	for t := range e.Rounds {
		for i := range e.Rounds[t].Turns {
			u := &e.Rounds[t].Turns[i]
			p := turnPath(t, i)
			if !utf8.ValidString(u.Answer) {
				return fieldErr(p+".answer", "invalid UTF-8 (the Reader refuses it)")
			}
			if !utf8.ValidString(u.Text) {
				return fieldErr(p+".text", "invalid UTF-8 (the Reader refuses it)")
			}
			if !utf8.ValidString(u.Model) {
				return fieldErr(p+".model", "invalid UTF-8 (the Reader refuses it)")
			}
			for k := range u.Exchanges {
				x := &u.Exchanges[k]
				if !utf8.ValidString(x.Role) || !utf8.ValidString(x.Prompt) || !utf8.ValidString(x.Response) || !utf8.ValidString(x.Error) {
					return fieldErr(fmt.Sprintf("%s.exchanges[%d]", p, k), "invalid UTF-8 (the Reader refuses it)")
				}
			}
		}
	}
	return nil
}

// otherCompressions are extensions of compressions this package does not
// write: a file so named would otherwise get plain JSON Lines under a name
// that promises something else.
var otherCompressions = map[string]string{
	".bz2": "bzip2", ".bzip2": "bzip2", ".xz": "xz", ".lzma": "lzma", ".lz": "lzip",
	".lz4": "lz4", ".br": "brotli", ".z": "compress", ".zip": "zip", ".7z": "7-zip",
	".sz": "snappy", ".snappy": "snappy", ".tgz": "gzip'd tar", ".zstd": "zstd", ".gzip": "gzip",
}

// CheckOutputName refuses an output name whose extension is a compression
// Create does not write (it writes .gz, .zst or plain), naming the ones it
// accepts.
func CheckOutputName(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if what, ok := otherCompressions[ext]; ok {
		return fmt.Errorf("data: %s: compression extension %s (%s) is not one written here: the accepted ones are .gz (gzip) and .zst (zstd), or none for plain JSON Lines (.jsonl)", path, ext, what)
	}
	return nil
}
