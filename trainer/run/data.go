package run

// Offline decision records of another width than the built-in features
// train with Config.FeatureWidth (CheckData takes a pack's); checkpoints
// then record the pack's feature version, or custom-WIDTH, so that such a
// policy is never taken for one of the built-in features.

import (
	"fmt"
	"io"
	"os"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// Data describes offline data checked before a run.
type Data struct {
	ID             *DataID
	Width          int    // features per decision
	FeatureVersion string // the encoding checkpoints record
}

// CheckData checks offline data before a run touches its directory:
// every path names something (IdentifyData hashes it), and a pack's
// feature width and version fit. width is the features per decision the
// caller expects; 0 takes a pack's, else metapolicy.FeatureWidth. A pack
// of the built-in width must carry the built-in feature version (or none,
// for decision records of the user's own encoding).
func CheckData(paths []string, width int) (*Data, error) {
	id, err := IdentifyData(paths)
	if err != nil {
		return nil, err
	}
	d := &Data{ID: id, Width: width}
	if len(paths) == 1 {
		if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() {
			p, err := data.OpenPack(paths[0])
			if err != nil {
				return nil, err
			}
			m := p.Manifest()
			p.Close()
			switch {
			case width != 0 && m.FeatureWidth != width:
				return nil, fmt.Errorf("run: %s: pack has %d features per decision, want %d", paths[0], m.FeatureWidth, width)
			case m.FeatureWidth == metapolicy.FeatureWidth && m.FeatureVersion != "" && m.FeatureVersion != metapolicy.FeatureVersion:
				return nil, fmt.Errorf("run: %s: pack feature_version %q, this build encodes %q: pack the episodes again with this build",
					paths[0], m.FeatureVersion, metapolicy.FeatureVersion)
			}
			d.Width = m.FeatureWidth
			if m.FeatureWidth != metapolicy.FeatureWidth {
				d.FeatureVersion = m.FeatureVersion
			}
		}
	}
	if d.Width == 0 {
		d.Width = metapolicy.FeatureWidth
	}
	return d, nil
}

// UseData sets c to train offline on the rollout files (or pack) paths,
// checked first (CheckData, at c.FeatureWidth): the data read as c says
// (skipping rejected records if c.SkipInvalid, rewarded by c.Train.Reward,
// their notes to log), what it is and its width and feature version.
func (c *Config) UseData(paths []string, log io.Writer) error {
	d, err := CheckData(paths, c.FeatureWidth)
	if err != nil {
		return err
	}
	c.Data = &trainer.Dataset{Paths: paths, Skip: c.SkipInvalid, Reward: c.Train.Reward, Log: log, Width: d.Width}
	c.DataID, c.FeatureWidth, c.FeatureVersion = d.ID, d.Width, d.FeatureVersion
	return nil
}
