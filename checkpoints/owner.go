package checkpoints

// The header's "run" and "config_sha256" (Header.Run, ConfigSHA256) say
// which run wrote a checkpoint and with which configuration. A Manager with
// Run set keeps only that run's files: another run's step files are neither
// counted nor removed, and another run's best.mpdf is an error (ErrForeign),
// not replaced. CheckRun refuses, by name, a checkpoint of another run in a
// directory; ReadHeader reads a header without the arrays.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// ErrForeign is wrapped by the error for a checkpoint of another run found
// in a run's directory (ForeignError): its message asks to move it out, and
// a caller may add its own way to start the run elsewhere.
var ErrForeign = errors.New("checkpoint of another run")

// ForeignError names a checkpoint whose header says another run than the
// directory's.
type ForeignError struct {
	Path string // the checkpoint
	Run  string // the run its header names
	Want string // the directory's run
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s belongs to another run (run %s, this directory's is %s): move it out",
		e.Path, e.Run, e.Want)
}

// Unwrap makes errors.Is(err, ErrForeign) hold.
func (e *ForeignError) Unwrap() error { return ErrForeign }

// ReadHeader reads the header of the checkpoint at path without reading
// the arrays: the prefix is checked as Load checks it, then only the
// first bytes of the frame are decompressed. The CRC-32C is not checked
// (it covers the whole file); Load checks everything. Options apply as to
// Load, but the feature version is not checked.
func ReadHeader(path string, opts ...Option) (*Header, error) {
	h, err := readHeader(path, opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	return h, nil
}

func readHeader(path string, opts []Option) (*Header, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	var prefix [prefixLen]byte
	n, err := io.ReadFull(f, prefix[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("read: %w", err)
	}
	rawLen, frameLen, err := checkPrefix(prefix[:n], st.Size(), o.maxBytes)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(io.LimitReader(f, int64(frameLen)), zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(windowSize))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	defer dec.Close()
	var hl [4]byte
	if _, err := io.ReadFull(dec, hl[:]); err != nil {
		return nil, errf(ErrCorrupt, "offset %d: zstd: %v", prefixLen, err)
	}
	hlen := uint64(binary.LittleEndian.Uint32(hl[:]))
	if hlen > rawLen-4 {
		return nil, errf(ErrCorrupt, "body offset 0: header of %d bytes in a body of %d", hlen, rawLen)
	}
	// Grows with the bytes the frame really yields, not with hlen.
	js, err := io.ReadAll(io.LimitReader(dec, int64(hlen)))
	if err != nil || uint64(len(js)) != hlen {
		return nil, errf(ErrCorrupt, "body offset 4: header of %d bytes, the frame yields %d (%v)", hlen, len(js), err)
	}
	var h diskHeader
	if err := jsonscan.CheckStrict(js, &h); err != nil { // as parseHeader
		return nil, errf(ErrCorrupt, "body offset 4: header JSON: %v", err)
	}
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, errf(ErrCorrupt, "body offset 4: header JSON: %v", err)
	}
	return &h.Header, nil
}

// CheckRun makes sure every checkpoint in dir (the step files and
// best.mpdf) belongs to run: the first whose header names another run is
// returned as a *ForeignError. A checkpoint without a run (written before
// run ids) is taken as run's, and one whose header cannot be read is left
// to whoever loads it. With run empty (a directory that does not say whose
// it is), the checkpoints must agree among themselves: the run they name
// (or "") is returned, and two runs are an error naming a file of each.
func CheckRun(dir, run string) (string, error) {
	steps, err := list(dir)
	if err != nil {
		return "", err
	}
	paths := make([]string, 0, len(steps)+1)
	for _, s := range steps {
		paths = append(paths, s.path)
	}
	if best := filepath.Join(dir, BestName); regularFile(best) {
		paths = append(paths, best)
	}
	seen := map[string]string{} // run → first file naming it
	for _, p := range paths {
		h, err := ReadHeader(p)
		if err != nil || h.Run == "" {
			continue
		}
		if run != "" && h.Run != run {
			return "", &ForeignError{Path: p, Run: h.Run, Want: run}
		}
		if _, ok := seen[h.Run]; !ok {
			seen[h.Run] = p
		}
	}
	if run != "" || len(seen) == 0 {
		return run, nil
	}
	if len(seen) > 1 {
		var names []string
		for r, p := range seen {
			names = append(names, fmt.Sprintf("%s (run %s)", filepath.Base(p), r))
		}
		slices.Sort(names)
		return "", fmt.Errorf("checkpoints: %s: %w: checkpoints of %d runs: %s: move the other runs' out",
			dir, ErrForeign, len(seen), strings.Join(names, ", "))
	}
	for r := range seen {
		run = r
	}
	return run, nil
}

func regularFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// owns reports whether the step file at path belongs to m.Run: written by
// this Manager, or with a header naming m.Run or no run. A file whose
// header cannot be read is not m's: it is neither counted nor removed.
func (m *Manager) owns(path string) bool {
	if m.Run == "" || m.wrote[path] {
		return true
	}
	h, err := ReadHeader(path)
	if err != nil {
		return false
	}
	return h.Run == "" || h.Run == m.Run
}
