package data

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Writer writes records as JSON Lines. It validates every record first,
// so that it never writes a line the Reader would reject, and its output
// is deterministic: fields in struct order, floats in Go's shortest form
// that reads back to the same float64, HTML characters unescaped. A Writer
// is not safe for concurrent use.
type Writer struct {
	bw     *bufio.Writer
	enc    *json.Encoder
	comp   io.WriteCloser // gzip or zstd stream, nil when plain
	f      *os.File       // owned file, nil for NewWriter
	width  int
	n      int64
	err    error
	closed bool
}

// NewWriter returns a Writer of plain JSON Lines to w. Close flushes it
// but does not close w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
}

// Create creates the file path and returns a Writer to it, compressed by
// its extension: .gz (gzip, default level) or .zst (zstd, default level,
// one goroutine, so that the bytes are deterministic); anything else is
// plain. Close closes the file.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var comp io.WriteCloser
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz":
		comp = gzip.NewWriter(f)
	case ".zst":
		comp, err = zstd.NewWriter(f, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("data: %s: %w", path, err)
		}
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
	return w.encode(&c)
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
	if err := w.encode(&c); err != nil {
		return err
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
	if err := w.enc.Encode(v); err != nil {
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

// Close flushes the Writer, ends the compressed stream and closes the file
// it created. It is safe to call twice.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.Flush()
	if w.comp != nil {
		if cerr := w.comp.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("data: write: %w", cerr)
		}
		w.comp = nil
	}
	if w.f != nil {
		if cerr := w.f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("data: %w", cerr)
		}
		w.f = nil
	}
	if w.err == nil {
		w.err = errors.New("data: write after Close")
	}
	return err
}
