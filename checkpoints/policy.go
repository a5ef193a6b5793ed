package checkpoints

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// LoadNetwork reads a policy network from a checkpoint (.mpdf) or a
// safetensors export (.safetensors) and returns it with the feature
// version its file records. opts apply to the read (WithFeatureVersion
// demands one version; without it, this build's default layout).
func LoadNetwork(path string, opts ...Option) (*nn.MLP[float32], string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mpdf":
		c, err := Load(path, opts...)
		if err != nil {
			return nil, "", err
		}
		return c.Policy, c.Header.FeatureVersion, nil
	case ".safetensors":
		m, meta, err := LoadSafetensors(path, opts...)
		if err != nil {
			return nil, "", err
		}
		v, ok := meta[MetaFeatureVersion]
		if !ok {
			return nil, "", errf(ErrFeatureSchema, "%s: %s.%s absent: the file does not say which features it reads", path, metadataKey, MetaFeatureVersion)
		}
		return m, v, nil
	}
	return nil, "", fmt.Errorf("checkpoints: %s: want a .mpdf checkpoint or a .safetensors export", path)
}

// LoadPolicy reads a learned policy named name from a checkpoint or a
// safetensors export, read through the feature layout its file records
// (metapolicy.FeaturizerFor): a MLPPolicy of the default layout, a
// FeaturizedPolicy of any other built-in one. A file trained on a layout
// this build does not know (custom-WIDTH features, say) is an
// ErrFeatureSchema error, as is a network whose input width is not its
// layout's.
func LoadPolicy(path, name string) (metapolicy.Policy, error) {
	m, version, err := LoadNetwork(path, WithFeatureVersion(""))
	if err != nil {
		return nil, err
	}
	fz, err := metapolicy.FeaturizerFor(version)
	if err != nil {
		return nil, errf(ErrFeatureSchema, "%s: %v", path, err)
	}
	if m.In() != fz.Width {
		return nil, errf(ErrFeatureSchema, "%s: network reads %d features, %s has %d", path, m.In(), fz.Version, fz.Width)
	}
	if fz.Version == metapolicy.FeatureVersion {
		return metapolicy.NewMLPPolicy(name, m)
	}
	return metapolicy.NewFeaturizedPolicy(name, m, fz)
}
