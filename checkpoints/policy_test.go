package checkpoints

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// LoadPolicyHeader gives the policy LoadPolicy gives and, for a checkpoint,
// the header Load reads; a safetensors export has no header.
func TestLoadPolicyHeader(t *testing.T) {
	dir := t.TempDir()
	s := newTrainState(t, []int{metapolicy.FeatureWidth, 8, 3}, nn.Tanh, 7)
	s.run(2)
	c := s.checkpoint(t)
	path := filepath.Join(dir, "ckpt.mpdf")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	p, h, err := LoadPolicyHeader(path, "mine")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "mine" || h == nil {
		t.Fatalf("policy %q, header %v", p.Name(), h)
	}
	if h.Step != c.Header.Step || h.Seed != c.Header.Seed || !bytes.Equal(h.DataPos, c.Header.DataPos) ||
		!bytes.Equal(h.Train, c.Header.Train) || h.Metrics["reward"] != 0.25 || h.FeatureVersion != metapolicy.FeatureVersion {
		t.Errorf("header %+v, want %+v", *h, c.Header)
	}
	if _, ok := p.(*metapolicy.MLPPolicy); !ok {
		t.Errorf("policy %T, want the default layout's MLPPolicy", p)
	}

	st := filepath.Join(dir, "policy.safetensors")
	if err := SaveSafetensors(st, c.Policy, map[string]string{MetaFeatureVersion: metapolicy.FeatureVersion}); err != nil {
		t.Fatal(err)
	}
	p, h, err = LoadPolicyHeader(st, "exported")
	if err != nil || p.Name() != "exported" || h != nil {
		t.Errorf("safetensors: policy %v, header %v, err %v; want a policy and no header", p, h, err)
	}

	// A network of the wrong width is refused, as by LoadPolicy.
	bad := newTrainState(t, []int{5, 4, 3}, nn.Tanh, 1).checkpoint(t)
	badPath := filepath.Join(dir, "bad.mpdf")
	if err := Save(badPath, bad); err != nil {
		t.Fatal(err)
	}
	if p, h, err := LoadPolicyHeader(badPath, "bad"); err == nil || p != nil || h != nil {
		t.Errorf("a 5-input network: %v %v %v, want an error and nothing else", p, h, err)
	}
}
