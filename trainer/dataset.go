package trainer

import (
	"fmt"
	"io"
	"os"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Dataset is offline training data: rollout files (JSONL episodes or
// decisions, .gz/.zst, globs) or one packed directory. Each Pass streams it
// chunk by chunk — shards of a pack, DecisionStream reads of JSONL — so
// memory holds one chunk, whatever the size of the data set. A chunk is a
// rollout batch, and SoftRankPO ranks a group's rewards within it. So that
// a group is ranked whole, the rows of the group that ends a chunk are held
// back and delivered with the next chunk: a group whose decisions are
// contiguous in the data (as the simulator, the importer and packs of them
// write them: a task's episodes together) is never split. A group spread
// over the data is ranked in parts, one per contiguous run.
type Dataset struct {
	Paths []string
	// Skip reports and counts rejected records and reads on; otherwise
	// the first rejected record stops the pass with its error.
	Skip   bool
	Reward data.RewardConfig
	// Width is the features per decision (0: metapolicy.FeatureWidth,
	// or Layout's width); decision records of another encoding than the
	// built-in one set it.
	Width int
	// Layout is the feature version episodes are featurized in
	// (metapolicy.FeaturizerFor; "" the build's default): peers-v1 for the
	// attention network. A pack must carry it already.
	Layout string
	// ChunkRows bounds a JSONL chunk; 0 means data.DefaultBatchRows.
	ChunkRows int
	// Log receives every rejected record (file:line: field: reason),
	// every episode without gold, and the pass's counts, on the first
	// pass only: later passes read the same data and would repeat them;
	// nil discards them.
	Log io.Writer

	bufs   *passBuffers // reused from one pass to the next
	passes int          // passes ended, with or without an error
}

// passBuffers are a pass's chunk and the rows it holds back: kept between
// passes, so that a pass after the first allocates next to nothing.
type passBuffers struct {
	view, carry, spare Samples
	cols               data.Columns
}

// PassStats is what one pass read.
type PassStats struct {
	Rows   int64       `json:"rows"`
	Chunks int         `json:"chunks"`
	Counts data.Counts `json:"counts"` // JSONL only: records read, accepted, rejected
	NoGold int64       `json:"no_gold_episodes"`
}

func (d *Dataset) width() int {
	if d.Width > 0 {
		return d.Width
	}
	if fz, err := metapolicy.FeaturizerFor(d.Layout); err == nil {
		return fz.Width
	}
	return metapolicy.FeatureWidth
}

func (d *Dataset) log() io.Writer {
	if d.Log == nil || d.passes > 0 {
		return io.Discard
	}
	return d.Log
}

// Pass calls each with every chunk in order, as Samples that alias the
// chunk's columns (valid until each returns). Passes reuse their buffers:
// a Dataset runs one pass at a time.
func (d *Dataset) Pass(each func(*Samples) error) (PassStats, error) {
	var st PassStats
	if d.bufs == nil {
		d.bufs = new(passBuffers)
	}
	defer func() { d.passes++ }()
	view, carry, spare, cols := &d.bufs.view, &d.bufs.carry, &d.bufs.spare, &d.bufs.cols
	resetRows(carry)
	emit := func(b *Samples) error {
		if b.Len() == 0 {
			return nil
		}
		st.Rows += int64(b.Len())
		st.Chunks++
		return each(b)
	}
	src, err := d.open()
	if err != nil {
		return st, err
	}
	defer src.close()
	err = src.ReadColumns(cols)
	for err != io.EOF {
		if err != nil {
			return st, err
		}
		columnsToSamples(view, cols)
		b := view
		if carry.Len() > 0 {
			appendRows(carry, view, 0, view.Len())
			b = carry
		}
		// Once the chunk is copied, its storage is free: a pack's next
		// shard is read and decompressed into it while this one trains.
		var ahead chan error
		if b == carry && src.prefetch {
			ahead = make(chan error, 1)
			go func() { ahead <- src.ReadColumns(cols) }()
		}
		cut := lastGroupStart(b.Groups)
		if err := emit(sliceRows(b, 0, cut)); err != nil {
			if ahead != nil {
				<-ahead // the source closes once the read has ended
			}
			return st, err
		}
		resetRows(spare)
		appendRows(spare, b, cut, b.Len())
		*carry, *spare = *spare, *carry
		if ahead != nil {
			err = <-ahead
		} else {
			err = src.ReadColumns(cols)
		}
	}
	if err := emit(carry); err != nil {
		return st, err
	}
	src.counts(&st)
	return st, nil
}

// source is a data set opened for one pass: a pack's shards or the
// decisions of rollout files, as column chunks.
type source struct {
	data.ColumnReader
	close    func()
	counts   func(*PassStats) // fills in and logs what the pass read
	prefetch bool             // read the next chunk while the caller trains on this one (packs)
}

func (d *Dataset) open() (*source, error) {
	if len(d.Paths) == 1 {
		if fi, err := os.Stat(d.Paths[0]); err == nil && fi.IsDir() {
			p, err := data.OpenPack(d.Paths[0])
			if err != nil {
				return nil, err
			}
			if p.Width() != d.width() {
				p.Close()
				return nil, fmt.Errorf("%s: pack has %d features per decision, the policy takes %d", d.Paths[0], p.Width(), d.width())
			}
			// A pack's rewards were computed when it was packed: returns
			// with the manifest's gamma, which its rows (no episode
			// boundaries) cannot be turned into another's.
			if g := p.Manifest().Reward.Gamma; g != d.Reward.Gamma {
				p.Close()
				return nil, fmt.Errorf("%s: pack reward.gamma %v, the run asks for gamma %v: a pack's rows carry returns computed when it was packed; train on the rollout files instead", d.Paths[0], g, d.Reward.Gamma)
			}
			if v := p.Manifest().FeatureVersion; d.width() == metapolicy.FeatureWidth && v != "" && v != metapolicy.FeatureVersion {
				p.Close()
				return nil, fmt.Errorf("%s: pack feature_version %q, the policy takes %q", d.Paths[0], v, metapolicy.FeatureVersion)
			}
			if v := p.Manifest().FeatureVersion; d.Layout != "" && v != d.Layout {
				p.Close()
				return nil, fmt.Errorf("%s: pack feature_version %q, the policy reads %q (pack the rollouts with --features %s)", d.Paths[0], v, d.Layout, d.Layout)
			}
			return &source{ColumnReader: p.Scan(data.SelectAll), close: func() { p.Close() }, counts: func(*PassStats) {}, prefetch: true}, nil
		}
	}
	r, err := data.Open(d.Paths, data.ReaderOptions{Skip: d.Skip, FeatureWidth: d.width(),
		OnReject: func(e *data.RecordError) { fmt.Fprintln(d.log(), e) }})
	if err != nil {
		return nil, err
	}
	ds, err := data.NewDecisionStream(r, d.Reward)
	if err != nil {
		r.Close()
		return nil, err
	}
	ds.BatchRows = d.ChunkRows
	if d.Layout != "" {
		if ds.Layout, err = metapolicy.FeaturizerFor(d.Layout); err != nil {
			r.Close()
			return nil, err
		}
	}
	ds.OnNoGold = func(p data.Pos, ep *data.Episode) {
		fmt.Fprintf(d.log(), "%s: episode %q has no gold answer: no reward, not trained on\n", p, ep.ID)
	}
	counts := func(st *PassStats) {
		st.Counts, st.NoGold = r.Counts(), ds.Counts().NoGold
		fmt.Fprintf(d.log(), "read %v: %v; decisions from episodes %d, decision records %d, episodes without gold %d\n",
			d.Paths, st.Counts, ds.Counts().FromEpisodes, ds.Counts().FromRecords, st.NoGold)
	}
	return &source{ColumnReader: ds, close: func() { r.Close() }, counts: counts}, nil
}

// lastGroupStart is the index where the run of the last group key begins.
func lastGroupStart(groups []string) int {
	i := len(groups)
	for i > 0 && groups[i-1] == groups[len(groups)-1] {
		i--
	}
	return i
}

// sliceRows views rows [lo, hi) of s.
func sliceRows(s *Samples, lo, hi int) *Samples {
	f := len(s.Features) / max(1, s.Len())
	return &Samples{
		Features: s.Features[lo*f : hi*f], Actions: s.Actions[lo:hi], Rewards: s.Rewards[lo:hi],
		Groups: s.Groups[lo:hi], LogProb: s.LogProb[lo:hi],
	}
}

// resetRows empties s, keeping its storage.
func resetRows(s *Samples) {
	s.Features, s.Actions, s.Rewards = s.Features[:0], s.Actions[:0], s.Rewards[:0]
	s.Groups, s.LogProb = s.Groups[:0], s.LogProb[:0]
}

// appendRows copies rows [lo, hi) of src onto dst.
func appendRows(dst, src *Samples, lo, hi int) {
	v := sliceRows(src, lo, hi)
	dst.Features = append(dst.Features, v.Features...)
	dst.Actions = append(dst.Actions, v.Actions...)
	dst.Rewards = append(dst.Rewards, v.Rewards...)
	dst.Groups = append(dst.Groups, v.Groups...)
	dst.LogProb = append(dst.LogProb, v.LogProb...)
}

// columnsToSamples views a chunk as Samples (group ids become their keys).
func columnsToSamples(dst *Samples, c *data.Columns) {
	n := c.Len()
	dst.Features = c.Features[:n*c.Width]
	dst.Actions = c.Actions[:n]
	dst.Rewards = c.Rewards[:n]
	dst.LogProb = c.LogProbs[:n]
	dst.Groups = dst.Groups[:0]
	for _, g := range c.Groups[:n] {
		dst.Groups = append(dst.Groups, c.GroupNames[g])
	}
}
