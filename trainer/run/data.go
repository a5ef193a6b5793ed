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
	// Layout is the feature version the episodes of rollout files are
	// featurized in (trainer.Dataset.Layout); "" the default.
	Layout string
}

// CheckDataIn is CheckData for a policy that reads the feature layout
// layout (trainer.Config.FeatureLayout; "" or metapolicy.FeatureVersion:
// CheckData): the episodes of rollout files are featurized in it, and a
// pack must have been packed in it (mpdf data pack --features).
func CheckDataIn(paths []string, width int, layout string) (*Data, error) {
	if layout == "" || layout == metapolicy.FeatureVersion {
		return CheckData(paths, width)
	}
	fz, err := metapolicy.FeaturizerFor(layout)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if width != 0 && width != fz.Width {
		return nil, fmt.Errorf("run: feature width %d: the layout %s has %d", width, layout, fz.Width)
	}
	d, err := CheckData(paths, width)
	if err != nil {
		return nil, err
	}
	if len(paths) == 1 {
		if fi, err := os.Stat(paths[0]); err == nil && fi.IsDir() && d.FeatureVersion != layout {
			v := d.FeatureVersion
			if d.Width == metapolicy.FeatureWidth {
				v = metapolicy.FeatureVersion
			}
			return nil, fmt.Errorf("run: %s: a pack of %s, the policy reads %s: pack the rollouts with --features %s", paths[0], v, layout, layout)
		}
	}
	d.Width, d.FeatureVersion, d.Layout = fz.Width, layout, layout
	return d, nil
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
	d, err := CheckDataIn(paths, c.FeatureWidth, c.Train.FeatureLayout())
	if err != nil {
		return err
	}
	c.Data = &trainer.Dataset{Paths: paths, Skip: c.SkipInvalid, Reward: c.Train.Reward, Log: log, Width: d.Width, Layout: d.Layout}
	c.DataID, c.FeatureWidth, c.FeatureVersion = d.ID, d.Width, d.FeatureVersion
	return nil
}
