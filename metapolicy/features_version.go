package metapolicy

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/nn"
)

// Featurizer is one feature layout: its version string (what checkpoints
// record), its width and its function.
type Featurizer struct {
	Version   string
	Width     int
	Featurize func(dst []float64, obs *Observation) error
	// Team, when set, featurizes every agent of a deliberation at once, each
	// row bit for bit Featurize's (FeaturizeTeam); batches of whole teams use it.
	Team func(dst []float64, targets []string, obs *Observation) (string, error)
}

// Featurizers lists the known layouts, the build's default
// (FeatureVersion) first.
func Featurizers() []Featurizer {
	return []Featurizer{
		{Version: FeatureVersion, Width: FeatureWidth, Featurize: Featurize, Team: FeaturizeTeam},
		{Version: FeatureVersionV2, Width: FeatureWidthV2, Featurize: FeaturizeV2, Team: FeaturizeTeamV2},
		{Version: FeatureVersionPeers, Width: FeatureWidthPeers, Featurize: FeaturizePeers, Team: FeaturizeTeamPeers},
	}
}

// FeaturizerFor returns the layout called version; "" is the default.
func FeaturizerFor(version string) (Featurizer, error) {
	fs := Featurizers()
	if version == "" {
		return fs[0], nil
	}
	for _, f := range fs {
		if f.Version == version {
			return f, nil
		}
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Version
	}
	return Featurizer{}, fmt.Errorf("metapolicy: unknown feature version %q (want one of %v)", version, names)
}

// FeaturizedPolicy is a learned policy over any layout: softmax of an MLP
// over Features' vector. MLPPolicy is the same over the default layout.
type FeaturizedPolicy struct {
	Label    string
	Net      *nn.MLP[float32]
	Features Featurizer
}

// NewFeaturizedPolicy checks that net maps fz.Width features to NumActions
// logits.
func NewFeaturizedPolicy(name string, net *nn.MLP[float32], fz Featurizer) (*FeaturizedPolicy, error) {
	if net.In() != fz.Width || net.Out() != NumActions {
		return nil, fmt.Errorf("metapolicy: network maps %d → %d, want %d features (%s) → %d actions",
			net.In(), net.Out(), fz.Width, fz.Version, NumActions)
	}
	return &FeaturizedPolicy{Label: name, Net: net, Features: fz}, nil
}

func (p *FeaturizedPolicy) Name() string { return p.Label }

func (p *FeaturizedPolicy) Probs(pr *[NumActions]float64, obs *Observation) error {
	f := make([]float64, p.Features.Width)
	if err := p.Features.Featurize(f, obs); err != nil {
		return err
	}
	x := make([]float32, len(f))
	for i, v := range f {
		x[i] = float32(v)
	}
	var logits, logp [NumActions]float32
	p.Net.Logits(logits[:], x)
	nn.LogSoftmaxTo(logp[:], logits[:])
	for i, v := range logp {
		pr[i] = math.Exp(float64(v))
	}
	return nil
}
