package data

import (
	"errors"
	"fmt"
	"io"
	"os"
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

// ErrPackReward is the error of reward settings given for a pack, whose
// rewards were fixed when it was packed.
var ErrPackReward = errors.New("its rewards were fixed when packed")

// ReadStats summarises a data set: a pack directory given alone
// (PackStats), or rollout files under reward (CollectStats, rejected
// records skipped and counted), records of at most maxLine bytes. A
// reward given (rewardGiven) for a pack is ErrPackReward: the pack's
// manifest says how it was rewarded.
func ReadStats(paths []string, reward RewardConfig, rewardGiven bool, maxLine int) (*Stats, error) {
	if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() {
		if len(paths) > 1 {
			return nil, fmt.Errorf("%s is a pack directory: give it alone", paths[0])
		}
		if rewardGiven {
			return nil, fmt.Errorf("%s is a pack: %w (see its %s)", paths[0], ErrPackReward, ManifestName)
		}
		return PackStats(paths[0])
	}
	r, err := Open(paths, ReaderOptions{Skip: true, KeepErrors: -1, MaxLineBytes: maxLine})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return CollectStats(r, reward)
}
