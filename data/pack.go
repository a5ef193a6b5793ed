package data

// Packs.
//
// WritePack writes a pack directory: zstd-compressed columnar shards of at
// most RowsPerShard rows and a manifest.json with the provenance (source
// files with sizes and SHA-256, counts, reward configuration, feature
// version, tool version). OpenPack and ReadShard read it back shard by
// shard into reused Columns, optionally only some columns; every header
// field is checked against the manifest and the file size before anything
// is allocated, and every value is checked. Bytes are deterministic.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/mpdf/mpdf/internal/version"
	"github.com/mpdf/mpdf/metapolicy"
)

// Pack format constants.
const (
	PackFormat          = "mpdf-pack"
	PackVersion         = 1
	ManifestName        = "manifest.json"
	DefaultRowsPerShard = 1 << 18
)

// PackOptions configures WritePack. The zero value packs with the
// defaults.
type PackOptions struct {
	// RowsPerShard bounds the rows of one shard file (and the memory of
	// packing, which holds one shard). 0 means DefaultRowsPerShard. A
	// reader's memory follows BlockRows, not this.
	RowsPerShard int
	// BlockRows is the rows of a shard's blocks, what a reader decodes at
	// a time. 0 means PackBlockRows.
	BlockRows int
	// Reward is the reward and grouping of decisions made from episodes.
	Reward RewardConfig
	// FeatureVersion names the feature encoding, a layout this build
	// knows (metapolicy.FeaturizerFor), in which the episodes' decisions
	// are featurized. Empty: the metapolicy.FeatureVersion when every
	// decision comes from an episode, else unknown ("").
	FeatureVersion string
	// Tool names the program that packs, recorded in the manifest. Empty:
	// "mpdf" and the module version of this build.
	Tool string
}

// Manifest is the manifest.json of a pack: what it holds and where its
// data came from. It has no timestamp, so that packing the same inputs
// with the same build gives the same bytes.
type Manifest struct {
	Format         string       `json:"format"`
	Version        int          `json:"version"`
	Tool           string       `json:"tool"`
	FeatureWidth   int          `json:"feature_width"`
	FeatureVersion string       `json:"feature_version"`
	Rows           int64        `json:"rows"`
	RowsPerShard   int          `json:"rows_per_shard"`
	Reward         RewardConfig `json:"reward"`
	Counts         Counts       `json:"counts"`
	Stream         StreamCounts `json:"decisions"`
	Sources        []FileStats  `json:"sources"`
	Shards         []ShardInfo  `json:"shards"`
	Groups         []string     `json:"groups"`
}

// ShardInfo is one shard file of a pack.
type ShardInfo struct {
	File   string `json:"file"`
	Rows   int    `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func shardName(i int) string { return fmt.Sprintf("shard-%05d.mpdfs", i) }

// newShardEncoder is the one encoder configuration of packs: fixed level,
// one goroutine, checksums on, so that the bytes depend only on the data.
func newShardEncoder() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithEncoderCRC(true))
}

// WritePack reads every record of r, turns it into training decisions
// (DecisionStream under opts.Reward) and writes them to dir as a pack:
// shard files of at most RowsPerShard rows and manifest.json, written
// last. dir must be empty or not exist; on error the files written are
// removed. r must be opened with ReaderOptions.Hash, so that the manifest
// records the SHA-256 of every source. Rejected records stop the packing
// unless r skips them; their count is in the manifest either way.
func WritePack(dir string, r *Reader, opts PackOptions) (m *Manifest, err error) {
	stream, err := packStream(r, &opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data: pack: %w", err)
	}
	if ents, err := os.ReadDir(dir); err != nil {
		return nil, fmt.Errorf("data: pack: %w", err)
	} else if len(ents) > 0 {
		return nil, fmt.Errorf("data: pack: %s is not empty", dir)
	}
	var written []string
	defer func() {
		if err != nil {
			for _, f := range written {
				os.Remove(f)
			}
		}
	}()
	enc, err := newShardEncoder()
	if err != nil {
		return nil, fmt.Errorf("data: pack: %w", err)
	}
	defer enc.Close()

	m = &Manifest{Format: PackFormat, Version: PackVersion, Tool: opts.Tool, RowsPerShard: opts.RowsPerShard,
		Reward: stream.cfg}
	if m.Tool == "" {
		m.Tool = toolVersion()
	}
	var cols Columns
	var buf, raw []byte
	for i := 0; ; i++ {
		err := stream.ReadColumns(&cols)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if i == 0 {
			m.FeatureWidth = cols.Width
			if int64(opts.RowsPerShard)*int64(cols.Width)*4 > maxColumnBytes {
				return nil, fmt.Errorf("data: pack: %d rows of %d features exceed the %d-byte column limit; lower RowsPerShard",
					opts.RowsPerShard, cols.Width, int64(maxColumnBytes))
			}
		}
		buf, raw = encodeShardBlocks(buf[:0], enc, &cols, i, raw, opts.BlockRows)
		name := shardName(i)
		path := filepath.Join(dir, name)
		written = append(written, path)
		if err := os.WriteFile(path, buf, 0o644); err != nil {
			return nil, fmt.Errorf("data: pack: %w", err)
		}
		sum := sha256.Sum256(buf)
		m.Shards = append(m.Shards, ShardInfo{File: name, Rows: cols.Len(), Bytes: int64(len(buf)), SHA256: hex.EncodeToString(sum[:])})
		m.Rows += int64(cols.Len())
	}
	m.Counts, m.Stream, m.Sources, m.Groups = r.Counts(), stream.Counts(), r.Files(), stream.GroupNames()
	if m.Rows == 0 {
		return nil, fmt.Errorf("data: pack: no training decisions (%s; %d episodes without gold)", m.Counts, m.Stream.NoGold)
	}
	m.FeatureVersion = opts.FeatureVersion
	if m.FeatureVersion == "" && m.Stream.FromRecords == 0 {
		m.FeatureVersion = metapolicy.FeatureVersion
	}
	if err := writeManifest(dir, m, &written); err != nil {
		return nil, err
	}
	return m, nil
}

// packStream checks opts, sets its defaults, and opens the decision
// stream WritePack reads r through.
func packStream(r *Reader, opts *PackOptions) (*DecisionStream, error) {
	if !r.opts.Hash {
		return nil, errors.New("data: pack: the reader must be opened with ReaderOptions.Hash for provenance")
	}
	if opts.RowsPerShard < 0 {
		return nil, fmt.Errorf("data: pack: rows per shard %d, want ≥ 0", opts.RowsPerShard)
	}
	if opts.RowsPerShard == 0 {
		opts.RowsPerShard = DefaultRowsPerShard
	}
	if opts.BlockRows < 0 {
		return nil, fmt.Errorf("data: pack: block rows %d, want ≥ 0", opts.BlockRows)
	}
	if opts.BlockRows == 0 {
		opts.BlockRows = PackBlockRows
	}
	stream, err := NewDecisionStream(r, opts.Reward)
	if err != nil {
		return nil, err
	}
	stream.BatchRows = opts.RowsPerShard
	if opts.FeatureVersion != "" {
		// The layout the episodes are featurized in (peers-v1 for the
		// attention network, say), recorded in the manifest.
		fz, err := metapolicy.FeaturizerFor(opts.FeatureVersion)
		if err != nil {
			return nil, fmt.Errorf("data: pack: %w", err)
		}
		stream.Layout = fz
	}
	return stream, nil
}

// writeManifest writes m into dir, through a temporary file renamed over
// ManifestName, adding each path it creates to written (removed by
// WritePack when it fails).
func writeManifest(dir string, m *Manifest, written *[]string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("data: pack: %w", err)
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	*written = append(*written, tmp)
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("data: pack: %w", err)
	}
	final := filepath.Join(dir, ManifestName)
	*written = append(*written, final)
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("data: pack: %w", err)
	}
	return nil
}

// toolVersion is "mpdf" and the version of this module in the build.
func toolVersion() string {
	if i, ok := version.Read(); ok {
		return "mpdf " + i.Version
	}
	return "mpdf (unknown version)"
}

// WriteSummary prints what the pack in dir holds: the records read, the
// decisions, the shards and the reward.
func (m *Manifest) WriteSummary(w io.Writer, dir string) error {
	c, s := m.Counts, m.Stream
	fmt.Fprintf(w, "read %d records from %d files: accepted %d (%d episodes, %d decisions), rejected %d\n",
		c.Read, c.Files, c.Accepted, c.Episodes, c.Decisions, c.Rejected)
	fmt.Fprintf(w, "decisions: %d from episodes, %d decision records; %d episodes without gold skipped\n",
		s.FromEpisodes, s.FromRecords, s.NoGold)
	if c.DuplicateIDs > 0 {
		fmt.Fprintf(w, "warning: %d episodes repeat an earlier episode's id (mpdf data validate lists them)\n", c.DuplicateIDs)
	}
	var bytes int64
	for _, sh := range m.Shards {
		bytes += sh.Bytes
	}
	fv := m.FeatureVersion
	if fv == "" {
		fv = "unknown"
	}
	fmt.Fprintf(w, "pack %s: %d rows in %d shards (%d bytes), %d groups, feature width %d (%s)\n",
		dir, m.Rows, len(m.Shards), bytes, len(m.Groups), m.FeatureWidth, fv)
	r := m.Reward
	_, err := fmt.Fprintf(w, "reward: w_local %g, w_global %g, lambda %g, grouped by %s\n", r.WLocal, r.WGlobal, r.Lambda, r.GroupBy)
	return err
}
