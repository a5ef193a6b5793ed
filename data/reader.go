package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// DefaultMaxLineBytes is the default limit on one JSON Lines record, the
// same for the Writer and the Reader. Live episodes record every LLM call
// (prompts hold the peers' answers): a 4-agent, 6-round episode of a
// reasoning model reaches 1.2 MB, 8 agents and 10 rounds of long answers
// some 30 MB. The Reader holds one line at a time, so the limit bounds its
// memory; lower it to reject runaway lines early.
const DefaultMaxLineBytes = 64 << 20

// DefaultZstdWindow is the default bound on the window of a .zst stream,
// the memory its decoder may allocate (zstd --long=27 fits).
const DefaultZstdWindow = 1 << 27

const defaultKeepErrors = 100

// ReaderOptions configures a Reader. The zero value reads with the
// documented defaults and stops at the first rejected record.
type ReaderOptions struct {
	// MaxLineBytes bounds one line, newline excluded. A longer line is
	// rejected (field "line") and skipped without being buffered.
	// 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// FeatureWidth is the width every decision record's features must
	// have; 0 takes the width of the first accepted decision.
	FeatureWidth int
	// Skip counts and reports rejected records and reads on. Without it,
	// Next returns each rejected record's *RecordError (and the caller
	// usually stops; calling Next again reads on).
	Skip bool
	// OnReject, when set, is called with every rejected record, in both
	// modes. When nil, the first KeepErrors rejections are kept for Errors.
	OnReject func(*RecordError)
	// KeepErrors is how many rejections Errors keeps: 0 means 100, a
	// negative value none. The counts are complete either way.
	KeepErrors int
	// Hash computes the SHA-256 of every input as stored, for provenance
	// (WritePack needs it).
	Hash bool
	// ZstdWindow bounds the window of .zst inputs; 0 means
	// DefaultZstdWindow. A stream asking for more is an error.
	ZstdWindow uint64
	// SkipUnreadable goes on with the next input after one that cannot be
	// read (missing, unreadable, a corrupt compressed stream, a pattern
	// matching nothing): the error is recorded in its FileStats.Error and
	// counted (Counts.Unreadable), its records read before it stay
	// counted. Without it such an error ends the read (and Open fails on a
	// pattern matching nothing).
	SkipUnreadable bool
}

// Counts are the record counts of a read. Read = Accepted + Rejected
// always holds; blank lines are not records and are not counted.
type Counts struct {
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"` // decompressed bytes read
	Read      int64 `json:"read"`
	Accepted  int64 `json:"accepted"`
	Rejected  int64 `json:"rejected"`
	Episodes  int64 `json:"episodes"`  // accepted episode records
	Decisions int64 `json:"decisions"` // accepted decision records
	// DuplicateIDs counts accepted episodes whose id an earlier episode
	// of the read already had (Reader.Duplicates lists the first ones).
	// They are accepted: the count is a warning.
	DuplicateIDs int64 `json:"duplicate_ids,omitempty"`
	// Unreadable counts the inputs that could not be read to their end
	// (ReaderOptions.SkipUnreadable).
	Unreadable int `json:"unreadable_files,omitempty"`
}

func (c Counts) String() string {
	s := fmt.Sprintf("read %d records from %d files: %d accepted (%d episodes, %d decisions), %d rejected",
		c.Read, c.Files, c.Accepted, c.Episodes, c.Decisions, c.Rejected)
	if c.DuplicateIDs > 0 {
		s += fmt.Sprintf("; %d episodes repeat an earlier id", c.DuplicateIDs)
	}
	return s
}

// DuplicateID is an accepted episode whose id an earlier one had.
type DuplicateID struct {
	ID  string `json:"id"`
	Pos Pos    `json:"pos"`
}

// FileStats describes one input read to its end: its provenance (name,
// stored size, SHA-256 when ReaderOptions.Hash) and its record counts.
type FileStats struct {
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"` // as stored, compressed or not
	SHA256   string `json:"sha256,omitempty"`
	Read     int64  `json:"read"`
	Accepted int64  `json:"accepted"`
	Rejected int64  `json:"rejected"`
	// Error is why the input could not be read to its end
	// (ReaderOptions.SkipUnreadable); its counts cover what was read.
	Error string `json:"error,omitempty"`
}

// Record is one accepted record: exactly one of Episode and Decision is
// set. The Reader allocates a new one each time; the caller may keep it.
type Record struct {
	Pos      Pos
	Episode  *Episode
	Decision *Decision
}

// Kind is KindEpisode or KindDecision.
func (r Record) Kind() string {
	if r.Episode != nil {
		return KindEpisode
	}
	return KindDecision
}

// Reader streams records from JSON Lines inputs, plain, gzip or zstd,
// one after the other. Its memory is bounded by MaxLineBytes, the zstd
// window and one record, whatever the size of the inputs. A Reader is not
// safe for concurrent use.
type Reader struct {
	opts   ReaderOptions
	inputs []input
	next   int

	cur   *input
	count countingReader
	raw   *bufio.Reader // stored bytes
	text  *bufio.Reader // decompressed bytes
	lines lineSource    // raw or text
	gz    *gzip.Reader
	zd    *zstd.Decoder
	sum   hash.Hash
	line  []byte
	scan  textScan // finds a string over MaxTextBytes in a long line
	// layout is the transcript layout the current input begins in, "" for
	// none: its first line's rejection is then a *TranscriptError.
	layout string

	width  int
	counts Counts
	files  []FileStats
	errs   []*RecordError
	ids    map[uint64]struct{} // FNV-1a hashes of the episode ids seen
	dups   []DuplicateID
	err    error // sticky: io.EOF or a fatal error
}

type input struct {
	name   string
	err    error     // known before opening: the pattern matched nothing
	r      io.Reader // nil: open the file name
	f      *os.File
	lineNo int
	stats  FileStats
}

// Open returns a Reader over the files matched by patterns, in order:
// each pattern is a path or a filepath.Match glob, whose matches are read
// in lexical order. A pattern that matches nothing or a directory is an
// error naming it; a file named twice is read once. Compression is told by
// content (gzip or zstd magic), and a .gz or .zst name must hold what it
// says.
func Open(patterns []string, opts ReaderOptions) (*Reader, error) {
	if len(patterns) == 0 {
		return nil, errors.New("data: open: no input files")
	}
	seen := map[string]bool{}
	var inputs []input
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("data: open: pattern %q: %w", p, err)
		}
		if len(matches) == 0 {
			err := fmt.Errorf("data: open: %q matches no file", p)
			if !opts.SkipUnreadable {
				return nil, err
			}
			inputs = append(inputs, input{name: p, err: err})
			continue
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err == nil && fi.IsDir() {
				err = fmt.Errorf("data: open: %s is a directory", m)
			} else if err != nil {
				err = fmt.Errorf("data: open: %w", err)
			}
			if err != nil {
				if !opts.SkipUnreadable {
					return nil, err
				}
				inputs = append(inputs, input{name: m, err: err})
				continue
			}
			if key := filepath.Clean(m); !seen[key] {
				seen[key] = true
				inputs = append(inputs, input{name: m})
			}
		}
	}
	return newReader(inputs, opts), nil
}

// NewReader returns a Reader over one stream, such as standard input;
// name is used in positions and provenance. Close does not close r.
func NewReader(r io.Reader, name string, opts ReaderOptions) *Reader {
	return newReader([]input{{name: name, r: r}}, opts)
}

func newReader(inputs []input, opts ReaderOptions) *Reader {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.KeepErrors == 0 {
		opts.KeepErrors = defaultKeepErrors
	}
	if opts.ZstdWindow == 0 {
		opts.ZstdWindow = DefaultZstdWindow
	}
	r := &Reader{opts: opts, inputs: inputs, width: max(opts.FeatureWidth, 0)}
	r.raw = bufio.NewReaderSize(&r.count, 64<<10)
	r.text = bufio.NewReaderSize(nil, 64<<10)
	if opts.Hash {
		r.sum = sha256.New()
	}
	return r
}

// Next returns the next accepted record, or io.EOF after the last one.
// A rejected record is counted and reported (OnReject or Errors); with
// Skip, Next reads on, without it Next returns its *RecordError. Any other
// error (a file that cannot be read, a corrupt compressed stream) ends the
// read and is returned by every later call.
func (r *Reader) Next() (Record, error) {
	for {
		if r.err != nil {
			return Record{}, r.err
		}
		if r.cur == nil {
			if err := r.openNext(); err != nil {
				r.fail(err)
				continue
			}
		}
		line, n, tooLong, unended, err := r.readLine()
		if err == io.EOF {
			if err := r.finish(); err != nil {
				r.fail(err)
			}
			continue
		}
		src := r.cur
		var re *RecordError
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) || r.lines == r.raw {
				r.fail(fmt.Errorf("data: %s:%d: %w", src.name, src.lineNo+1, err))
				continue
			}
			// A compressed stream cut mid-member: the writer was stopped
			// while writing. The records before are whole; report the
			// torn end as a rejected record and read on.
			re = &RecordError{Field: "line", Torn: true, Reason: fmt.Sprintf(
				"torn end of file: the compressed stream stops mid-record after %d bytes of it (was its writer killed?)", n)}
			if n == 0 {
				re.Reason = "torn end of file: the compressed stream stops before the end of its last member (was its writer killed?)"
			}
			r.endFile()
		}
		src.lineNo++
		if src.lineNo == 1 {
			line = jsonscan.TrimBOM(line)
		}
		if re == nil && !tooLong && len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r.counts.Read++
		src.stats.Read++
		var rec Record
		if re == nil {
			rec, re = r.decode(line, n, tooLong, unended)
		}
		if re != nil && src.lineNo == 1 && r.layout != "" {
			// Not a bad record: the wrong kind of file. It is not
			// counted as a record, and with SkipUnreadable the read goes
			// on with the next input.
			r.counts.Read--
			src.stats.Read--
			r.fail(&TranscriptError{File: src.name, Layout: r.layout})
			continue
		}
		if re != nil {
			re.File, re.Line = src.name, src.lineNo
			r.counts.Rejected++
			src.stats.Rejected++
			if r.opts.OnReject != nil {
				r.opts.OnReject(re)
			} else if len(r.errs) < r.opts.KeepErrors {
				r.errs = append(r.errs, re)
			}
			if !r.opts.Skip {
				return Record{}, re
			}
			continue
		}
		r.accept(src, &rec)
		return rec, nil
	}
}

// decode reads one line of n bytes (tooLong: over the limit, unread;
// unended: the file's last, without a newline) into a record, or says
// why it is rejected.
func (r *Reader) decode(line []byte, n int, tooLong, unended bool) (Record, *RecordError) {
	switch {
	case tooLong && r.scan.at >= 0:
		return Record{}, fieldErr("line", "a string of more than %d bytes, the limit per text, starts at byte %d of the line; the line (%d bytes) is skipped unread",
			MaxTextBytes, r.scan.at+1, n)
	case tooLong:
		return Record{}, fieldErr("line", "%d bytes, over the limit of %d (MaxLineBytes)", n, r.opts.MaxLineBytes)
	}
	rec, re := decodeLine(line, r.width)
	if re != nil && unended {
		// The last line has no newline and does not read: most
		// likely cut by a writer that was stopped mid-write.
		re.Torn = true
		re.Reason += "; the file ends here without a newline: a torn last record (was its writer killed?)"
	}
	return rec, re
}

// accept counts rec, read from src's current line, as accepted and sets
// its position.
func (r *Reader) accept(src *input, rec *Record) {
	r.counts.Accepted++
	src.stats.Accepted++
	if rec.Decision != nil {
		r.counts.Decisions++
		if r.width == 0 {
			r.width = len(rec.Decision.Features)
		}
	} else {
		r.counts.Episodes++
	}
	rec.Pos = Pos{src.name, src.lineNo}
	if rec.Episode != nil {
		r.checkID(rec.Episode.ID, rec.Pos)
	}
}

// checkID counts an episode id seen before. Ids are kept as 64-bit
// hashes, 8 bytes (and the map's overhead) per episode: a collision, with
// probability about n²/2⁶⁵ for n episodes, would count a false duplicate.
func (r *Reader) checkID(id string, pos Pos) {
	k := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(id); i++ {
		k ^= uint64(id[i])
		k *= 1099511628211
	}
	if r.ids == nil {
		r.ids = map[uint64]struct{}{}
	}
	if _, ok := r.ids[k]; !ok {
		r.ids[k] = struct{}{}
		return
	}
	r.counts.DuplicateIDs++
	if len(r.dups) < max(r.opts.KeepErrors, 0) {
		r.dups = append(r.dups, DuplicateID{id, pos})
	}
}

// Duplicates returns the first episodes (KeepErrors of them) whose id an
// earlier episode of the read had; Counts.DuplicateIDs has their number.
func (r *Reader) Duplicates() []DuplicateID { return r.dups }

// Counts returns the counts so far; after io.EOF they cover every input.
func (r *Reader) Counts() Counts { return r.counts }

// Files returns the provenance and counts of the inputs read to their end.
func (r *Reader) Files() []FileStats { return r.files }

// Errors returns the rejections kept when OnReject is nil (at most
// KeepErrors of them; Counts has the total).
func (r *Reader) Errors() []*RecordError { return r.errs }

// FeatureWidth is the width decision records must have: the option, or
// the width of the first accepted decision (0 before it).
func (r *Reader) FeatureWidth() int { return r.width }

// Close releases the open file and the decoders. It is safe to call twice.
func (r *Reader) Close() error {
	var err error
	if r.cur != nil && r.cur.f != nil {
		err = r.cur.f.Close()
	}
	r.cur = nil
	if r.zd != nil {
		r.zd.Close()
		r.zd = nil
	}
	if r.err == nil {
		r.err = errors.New("data: read after Close")
	}
	return err
}

func (r *Reader) openNext() error {
	if r.next >= len(r.inputs) {
		return io.EOF
	}
	in := &r.inputs[r.next]
	r.next++
	in.stats.Path = in.name
	r.cur, r.layout = in, ""
	r.counts.Files++
	if in.err != nil {
		return in.err
	}
	src := in.r
	if src == nil {
		f, err := os.Open(in.name)
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		in.f, src = f, f
	}
	r.count = countingReader{r: src, h: r.sum}
	if r.sum != nil {
		r.sum.Reset()
	}
	r.raw.Reset(&r.count)
	magic, _ := r.raw.Peek(4)
	ext := strings.ToLower(filepath.Ext(in.name))
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		var err error
		if r.gz == nil {
			r.gz, err = gzip.NewReader(r.raw)
		} else {
			err = r.gz.Reset(r.raw)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			r.lines = tornSource{} // cut within the first header
			return nil
		}
		if err != nil {
			return fmt.Errorf("data: %s: gzip: %w", in.name, err)
		}
		r.text.Reset(r.gz)
		r.lines, r.layout = r.text, sniffTranscript(r.text)
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		var err error
		if r.zd == nil {
			r.zd, err = zstd.NewReader(r.raw, zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderMaxMemory(r.opts.ZstdWindow), zstd.WithDecoderLowmem(true))
		} else {
			err = r.zd.Reset(r.raw)
		}
		if err != nil {
			return fmt.Errorf("data: %s: zstd: %w", in.name, err)
		}
		r.text.Reset(r.zd)
		r.lines, r.layout = r.text, sniffTranscript(r.text)
	case (ext == ".gz" && bytes.HasPrefix([]byte{0x1f, 0x8b}, magic)) ||
		(ext == ".zst" && bytes.HasPrefix([]byte{0x28, 0xb5, 0x2f, 0xfd}, magic)):
		// Shorter than its magic bytes, and a prefix of them: a stream
		// cut in its first header, reported as a torn end.
		r.lines = tornSource{}
	case ext == ".gz" || ext == ".zst":
		return fmt.Errorf("data: %s: not a %s stream (bad magic bytes %x)", in.name, ext[1:], magic)
	default:
		r.lines, r.layout = r.raw, sniffTranscript(r.raw)
	}
	return nil
}

// endFile makes the current input end here: its next read is io.EOF.
func (r *Reader) endFile() { r.lines = eofReader{} }

type eofReader struct{}

// tornSource is a compressed input cut within its first header.
type tornSource struct{}

func (tornSource) ReadSlice(byte) ([]byte, error) { return nil, io.ErrUnexpectedEOF }

func (eofReader) ReadSlice(byte) ([]byte, error) { return nil, io.EOF }

// fail handles an error that ends the current input: with
// SkipUnreadable it is recorded in the input's FileStats and the read goes
// on with the next input; else it ends the read (io.EOF among them).
func (r *Reader) fail(err error) {
	in := r.cur
	if err == io.EOF || !r.opts.SkipUnreadable || in == nil {
		r.err = err
		return
	}
	r.cur = nil
	if in.f != nil {
		in.f.Close()
		in.f = nil
	}
	in.stats.Error = err.Error()
	in.stats.Bytes = r.count.n
	r.counts.Unreadable++
	r.files = append(r.files, in.stats)
}

// finish reads the rest of the stored bytes (so that the hash covers the
// whole file), records the file's stats and closes it.
func (r *Reader) finish() error {
	in := r.cur
	r.cur = nil
	_, err := io.Copy(io.Discard, r.raw)
	if in.f != nil {
		if cerr := in.f.Close(); err == nil {
			err = cerr
		}
		in.f = nil
	}
	if err != nil {
		return fmt.Errorf("data: %s: %w", in.name, err)
	}
	in.stats.Bytes = r.count.n
	if r.sum != nil {
		in.stats.SHA256 = hex.EncodeToString(r.sum.Sum(nil))
	}
	r.files = append(r.files, in.stats)
	return nil
}

// readLine returns the next line without its newline and its length. A
// line over MaxLineBytes, or with a string over MaxTextBytes (r.scan.at is
// then where the string starts), is consumed but not kept: tooLong is set
// and line is empty. unended says the line ends at the end of the input, without a
// newline. It returns io.EOF only when no byte is left; with another error
// n is the count of the line's bytes read before it.
func (r *Reader) readLine() (line []byte, n int, tooLong, unended bool, err error) {
	limit := r.opts.MaxLineBytes
	r.line = r.line[:0]
	r.scan = textScan{at: -1}
	total := 0
	for {
		chunk, err := r.lines.ReadSlice('\n')
		total += len(chunk)
		r.counts.Bytes += int64(len(chunk))
		if !tooLong && total <= limit+1 {
			r.line = growLine(r.line, len(chunk))
			r.line = append(r.line, chunk...)
			// A string over MaxTextBytes ends the buffering at once: the
			// rest of the line is consumed, not kept.
			if len(r.line) > MaxTextBytes && r.scan.scan(r.line) {
				tooLong, r.line = true, r.line[:0]
			}
		} else {
			tooLong, r.line = true, r.line[:0]
		}
		switch err {
		case nil:
			n = total - 1
			return r.line[:len(r.line)-min(len(r.line), 1)], n, tooLong || n > limit, false, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if total == 0 {
				return nil, 0, false, false, io.EOF
			}
			return r.line, total, tooLong || total > limit, true, nil
		default:
			return nil, total, false, false, err
		}
	}
}

// lineSource is a *bufio.Reader, or eofReader once a torn input ended.
type lineSource interface {
	ReadSlice(delim byte) ([]byte, error)
}

// countingReader counts (and optionally hashes) the stored bytes.
type countingReader struct {
	r io.Reader
	n int64
	h hash.Hash
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.h != nil {
		c.h.Write(p[:n])
	}
	return n, err
}

// growLine makes room for n more bytes in b, doubling its capacity: append's
// gentler growth of large slices leaves several times the final size in
// garbage, and a long line's buffer would take that much more memory.
func growLine(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n, 4096))
	copy(nb, b)
	return nb
}

// textScan follows a line's strings from where it stopped, to find one
// longer than MaxTextBytes as written (between its quotes) without
// decoding the line. A newline cannot be inside a JSON string, so each
// line starts afresh.
type textScan struct {
	i     int  // bytes of the line scanned
	inStr bool // within a string that starts at start
	esc   bool
	start int
	at    int // where the over-long string starts; -1: none
}

// scan goes on over line and reports whether a string is over the limit.
func (s *textScan) scan(line []byte) bool {
	for ; s.i < len(line); s.i++ {
		c := line[s.i]
		switch {
		case !s.inStr:
			if c == '"' {
				s.inStr, s.start = true, s.i
			}
			continue
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			continue
		}
		if s.i-s.start > MaxTextBytes {
			s.at = s.start
			return true
		}
	}
	return false
}
