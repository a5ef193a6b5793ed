package trainer

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// The network choice: omitted from an MLP config's JSON (old bytes), the
// attention network's layout and width resolved, every bad combination
// refused by its field's name.
func TestConfigArch(t *testing.T) {
	c := DefaultConfig()
	if b, _ := json.Marshal(c); strings.Contains(string(b), "arch") || strings.Contains(string(b), "attn") {
		t.Errorf("default config JSON names the arch: %s", b)
	}
	if c.Attention() != 0 || c.FeatureLayout() != "" {
		t.Errorf("MLP: attention %d, layout %q", c.Attention(), c.FeatureLayout())
	}
	c.Arch = ArchAttention
	if err := c.Validate(); err != nil || c.Attention() != DefaultAttnDim || c.FeatureLayout() != metapolicy.FeatureVersionPeers {
		t.Fatalf("attention: %v, width %d, layout %q", err, c.Attention(), c.FeatureLayout())
	}
	m, err := NewPolicy(&c, metapolicy.FeatureWidthPeers)
	if err != nil || m.Attn != DefaultAttnDim || m.In() != nn.AttnIn || m.Sizes[0] != nn.AttnSelf+DefaultAttnDim {
		t.Fatalf("NewPolicy: %v", err)
	}
	if _, err := NewPolicy(&c, metapolicy.FeatureWidth); err == nil {
		t.Error("an attention network over 26 features is built")
	}
	for _, bad := range []struct {
		set   func(*Config)
		field string
	}{
		{func(c *Config) { c.Features = metapolicy.FeatureVersionV2 }, "features"},
		{func(c *Config) { c.AttnDim = -1 }, "attn_dim"},
		{func(c *Config) { c.Arch, c.AttnDim = "", 8 }, "attn_dim"},
		{func(c *Config) { c.Arch = "mlp" }, "arch"}, // stored as "" (ArchValue)
		{func(c *Config) { c.Arch = "transformer" }, "arch"},
	} {
		b := c
		bad.set(&b)
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), bad.field) {
			t.Errorf("%s: %v", bad.field, err)
		}
	}
	// Decoupled attention networks, with either loss, are valid (design §4).
	for _, loss := range []string{"", nn.LossRankMatch} {
		d := c
		d.AgentPolicy, d.Loss.Kind = "slot", loss
		if err := d.Validate(); err != nil {
			t.Errorf("slot attention networks, loss %q: %v", loss, err)
		}
	}
	// A recipe's layout gives way unless the features were given.
	r := c
	r.Features = metapolicy.FeatureVersionV2
	r.SettleFeatures(false)
	if r.Validate() != nil || r.FeatureLayout() != metapolicy.FeatureVersionPeers {
		t.Errorf("settled: features %q", r.Features)
	}
	r.Features = metapolicy.FeatureVersionV2
	r.SettleFeatures(true)
	if r.Validate() == nil {
		t.Error("an explicit --features v2 with the attention network is accepted")
	}
	// The flag values: mlp is "", the default width is 0.
	var arch string
	var d int
	if err := (ArchValue{&arch}).Set("mlp"); err != nil || arch != "" || (ArchValue{&arch}).String() != "mlp" {
		t.Errorf("--arch mlp: %q %v", arch, err)
	}
	if err := (AttnDimValue{&d}).Set("16"); err != nil || d != 0 || (AttnDimValue{&d}).String() != "16" {
		t.Errorf("--attn-dim 16: %d %v", d, err)
	}
	if err := (AttnDimValue{&d}).Set("0"); err == nil {
		t.Error("--attn-dim 0 accepted")
	}
}
