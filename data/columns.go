package data

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/metapolicy"
)

// Columns is a batch of training decisions held column by column, the
// form the trainer consumes. Row r's features are
// Features[r*Width : (r+1)*Width]. The slices are owned by the Columns and
// reused by every read into it; GroupNames is shared with the source that
// filled it and is read-only.
type Columns struct {
	Width    int
	Features []float32 // Len()×Width, row-major
	Actions  []uint8   // metapolicy.Action values
	Rewards  []float64
	LogProbs []float64 // behaviour log-probability; NaN when absent
	Groups   []uint32  // index into GroupNames
	// GroupNames maps a group id to its key (the task id by default).
	GroupNames []string

	rows int
}

// Select chooses which columns a read fills; the others are left empty.
// Reading only rewards and groups lets a trainer rank a whole data set's
// rewards by group without decompressing its features.
type Select uint8

const (
	SelectFeatures Select = 1 << iota
	SelectActions
	SelectRewards
	SelectLogProbs
	SelectGroups

	SelectAll = SelectFeatures | SelectActions | SelectRewards | SelectLogProbs | SelectGroups
)

// Len is the number of rows.
func (c *Columns) Len() int { return c.rows }

// Reset empties c for rows of the given width, keeping its capacity.
func (c *Columns) Reset(width int) {
	c.Width, c.rows = width, 0
	c.Features, c.Actions = c.Features[:0], c.Actions[:0]
	c.Rewards, c.LogProbs, c.Groups = c.Rewards[:0], c.LogProbs[:0], c.Groups[:0]
}

// resize sets c to rows rows of the selected columns, reusing capacity;
// the other columns are emptied.
func (c *Columns) resize(width, rows int, sel Select) {
	c.Reset(width)
	c.rows = rows
	if sel&SelectFeatures != 0 {
		c.Features = grow(c.Features, rows*width)
	}
	if sel&SelectActions != 0 {
		c.Actions = grow(c.Actions, rows)
	}
	if sel&SelectRewards != 0 {
		c.Rewards = grow(c.Rewards, rows)
	}
	if sel&SelectLogProbs != 0 {
		c.LogProbs = grow(c.LogProbs, rows)
	}
	if sel&SelectGroups != 0 {
		c.Groups = grow(c.Groups, rows)
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Append adds d as a row with the given group id. d must be valid (as
// Decision.Validate); its features are rounded to float32.
func (c *Columns) Append(d *Decision, group uint32) error {
	if c.rows == 0 && c.Width == 0 {
		c.Width = len(d.Features)
	}
	if len(d.Features) != c.Width {
		return fmt.Errorf("data: columns: %d features, want %d", len(d.Features), c.Width)
	}
	for _, v := range d.Features {
		c.Features = append(c.Features, float32(v))
	}
	c.Actions = append(c.Actions, uint8(d.Action))
	c.Rewards = append(c.Rewards, d.Reward)
	lp := math.NaN()
	if d.LogProb != nil {
		lp = *d.LogProb
	}
	c.LogProbs = append(c.LogProbs, lp)
	c.Groups = append(c.Groups, group)
	c.rows++
	return nil
}

// Row returns row i's features (a view into Features).
func (c *Columns) Row(i int) []float32 { return c.Features[i*c.Width : (i+1)*c.Width] }

// Decision returns row i as a Decision record; c must hold every column.
func (c *Columns) Decision(i int) Decision {
	f := make([]float64, c.Width)
	for k, v := range c.Row(i) {
		f[k] = float64(v)
	}
	d := Decision{Kind: KindDecision, Group: c.GroupNames[c.Groups[i]], Features: f,
		Action: metapolicy.Action(c.Actions[i]), Reward: c.Rewards[i]}
	if lp := c.LogProbs[i]; !math.IsNaN(lp) {
		d.LogProb = &lp
	}
	return d
}

// A ColumnReader delivers training decisions batch by batch: each call
// refills dst and returns io.EOF once no row is left. Both a packed data
// set (Pack.Scan) and JSON Lines (DecisionStream) are ColumnReaders, so the
// trainer consumes either.
type ColumnReader interface {
	ReadColumns(dst *Columns) error
}

// view is rows [lo, hi) of c, sharing its storage: the columns c holds
// (the others, emptied by resize, stay empty).
func (c *Columns) view(lo, hi int) *Columns {
	v := &Columns{Width: c.Width, rows: hi - lo, GroupNames: c.GroupNames}
	if len(c.Features) >= hi*c.Width {
		v.Features = c.Features[lo*c.Width : hi*c.Width]
	}
	if len(c.Actions) >= hi {
		v.Actions = c.Actions[lo:hi]
	}
	if len(c.Rewards) >= hi {
		v.Rewards = c.Rewards[lo:hi]
	}
	if len(c.LogProbs) >= hi {
		v.LogProbs = c.LogProbs[lo:hi]
	}
	if len(c.Groups) >= hi {
		v.Groups = c.Groups[lo:hi]
	}
	return v
}
