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
	m, version, _, _, err := loadNetwork(path, opts)
	return m, version, err
}

// loadNetwork is LoadNetwork that also returns a checkpoint's header (nil
// for a safetensors export) and a safetensors export's metadata (nil for a
// checkpoint), from the one read of the file. A file of several networks
// (a decoupled policy) is refused: one network is asked for.
func loadNetwork(path string, opts []Option) (*nn.MLP[float32], string, *Header, map[string]string, error) {
	m, nets, version, h, meta, err := loadNetworks(path, opts)
	if err == nil && nets != nil {
		err = fmt.Errorf("checkpoints: %s: %d networks of a decoupled policy (agent policy %s), not one", path, len(nets.Nets), nets.By)
	}
	if err != nil {
		return nil, "", nil, nil, err
	}
	return m, version, h, meta, nil
}

// loadNetworks reads a checkpoint or an export: its one network, or
// (nets non-nil) its several, with the feature version, a checkpoint's
// header and an export's metadata.
func loadNetworks(path string, opts []Option) (m *nn.MLP[float32], nets *Networks, version string, h *Header, meta map[string]string, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mpdf":
		c, err := Load(path, opts...)
		if err != nil {
			return nil, nil, "", nil, nil, err
		}
		nets, err := c.Networks()
		if err != nil {
			return nil, nil, "", nil, nil, fmt.Errorf("checkpoints: %s: %w", path, err)
		}
		return c.Policy, nets, c.Header.FeatureVersion, &c.Header, nil, nil
	case ".safetensors":
		m, nets, meta, err := LoadSafetensorsAny(path, opts...)
		if err != nil {
			return nil, nil, "", nil, nil, err
		}
		v, ok := meta[MetaFeatureVersion]
		if !ok {
			return nil, nil, "", nil, nil, errf(ErrFeatureSchema, "%s: %s.%s absent: the file does not say which features it reads", path, metadataKey, MetaFeatureVersion)
		}
		return m, nets, v, nil, meta, nil
	}
	return nil, nil, "", nil, nil, fmt.Errorf("checkpoints: %s: want a .mpdf checkpoint or a .safetensors export", path)
}

// LoadNetworkFor reads a policy network trained on the feature layout
// version ("" is this build's default; metapolicy.FeaturizerFor) from a
// checkpoint or a safetensors export: a network to train on from there
// (mpdf train --init).
func LoadNetworkFor(path, version string) (*nn.MLP[float32], error) {
	fz, err := metapolicy.FeaturizerFor(version)
	if err != nil {
		return nil, err
	}
	m, _, err := LoadNetwork(path, WithFeatureVersion(fz.Version))
	return m, err
}

// LoadPolicy reads a learned policy named name from a checkpoint or a
// safetensors export, read through the feature layout its file records
// (metapolicy.FeaturizerFor): a MLPPolicy of the default layout, a
// FeaturizedPolicy of any other built-in one. A file trained on a layout
// this build does not know (custom-WIDTH features, say) is an
// ErrFeatureSchema error, as is a network whose input width is not its
// layout's.
func LoadPolicy(path, name string) (metapolicy.Policy, error) {
	p, _, err := LoadPolicyHeader(path, name)
	return p, err
}

// LoadPolicyHeader is LoadPolicy that also returns what a checkpoint's
// header says of its run (step, metrics, configuration, data position),
// from the same read of the file; the header is nil for a safetensors
// export, which has none.
func LoadPolicyHeader(path, name string) (metapolicy.Policy, *Header, error) {
	p, h, _, err := loadPolicy(path, name)
	return p, h, err
}

// loadPolicy is LoadPolicyHeader that also returns a safetensors export's
// metadata.
func loadPolicy(path, name string) (metapolicy.Policy, *Header, map[string]string, error) {
	m, nets, version, h, meta, err := loadNetworks(path, []Option{WithFeatureVersion("")})
	if err != nil {
		return nil, nil, nil, err
	}
	fz, err := metapolicy.FeaturizerFor(version)
	if err != nil {
		return nil, nil, nil, errf(ErrFeatureSchema, "%s: %v", path, err)
	}
	if nets != nil {
		m = nets.Fallback // every network has its shape
	}
	if m.In() != fz.Width {
		return nil, nil, nil, errf(ErrFeatureSchema, "%s: network reads %d features, %s has %d", path, m.In(), fz.Version, fz.Width)
	}
	var p metapolicy.Policy
	if nets != nil {
		p, err = nets.Policy(name, fz)
	} else if fz.Version == metapolicy.FeatureVersion {
		p, err = metapolicy.NewMLPPolicy(name, m)
	} else {
		p, err = metapolicy.NewFeaturizedPolicy(name, m, fz)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return p, h, meta, nil
}
