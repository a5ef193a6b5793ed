package data

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/mpdf/mpdf/metapolicy"
)

// PackStats summarises the pack in dir from its actions, rewards and
// groups (the features are not decompressed), with the reward it was
// packed with.
func PackStats(dir string) (*Stats, error) {
	p, err := OpenPack(dir)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	m := p.Manifest()
	st, err := NewStats(m.Reward)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	st.Counts = m.Counts
	names := p.GroupNames()
	features := make([]float64, p.Width()) // Stats reads only the width
	var cols Columns
	sc := p.Scan(SelectActions | SelectRewards | SelectGroups)
	for {
		err := sc.ReadColumns(&cols)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for i := range cols.Len() {
			d := Decision{Kind: KindDecision, Group: names[cols.Groups[i]], Features: features,
				Action: metapolicy.Action(cols.Actions[i]), Reward: cols.Rewards[i]}
			if err := st.Add(Record{Decision: &d}); err != nil {
				return nil, err
			}
		}
	}
	return st, nil
}
