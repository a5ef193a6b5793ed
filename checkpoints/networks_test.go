package checkpoints

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// netsSample is sample() with three networks by model (one a model whose
// name holds dots and a comma), the Adam moments covering all three.
func netsSample(t *testing.T) *Checkpoint {
	s := newTrainState(t, []int{metapolicy.FeatureWidth, 8, 3}, nn.Tanh, 1)
	s.run(3)
	c := s.checkpoint(t)
	c.NetKeys = []string{"model:a", "model:b.13B,x", "model:"}
	c.Nets = []*nn.MLP[float32]{c.Policy}
	for k := 1; k < 3; k++ {
		m := c.Policy.Clone()
		for i := range m.Params {
			m.Params[i] += float32(k) * 0.01 * float32(i%7)
		}
		c.Nets = append(c.Nets, m)
	}
	n := len(c.Policy.Params)
	for range 2 {
		c.Adam.M = append(c.Adam.M, c.Adam.M[:n]...)
		c.Adam.V = append(c.Adam.V, c.Adam.V[:n]...)
	}
	return c
}

// A checkpoint of several networks reads back as written, bit for bit,
// and writes the same bytes again; one of them missing its reference or
// with keys that do not pair up is refused at write.
func TestCheckpointNetworksRoundTrip(t *testing.T) {
	c := netsSample(t)
	b := mustMarshal(t, c)
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.NetKeys, c.NetKeys) || len(got.Nets) != 3 || got.Nets[0] != got.Policy {
		t.Fatalf("networks %q (%d), policy first: %v", got.NetKeys, len(got.Nets), got.Nets[0] == got.Policy)
	}
	for k := range c.Nets {
		if !slices.Equal(got.Nets[k].Params, c.Nets[k].Params) {
			t.Errorf("network %d differs", k)
		}
	}
	if !slices.Equal(got.Adam.M, c.Adam.M) || !slices.Equal(got.Adam.V, c.Adam.V) {
		t.Error("Adam moments differ")
	}
	if again := mustMarshal(t, got); !bytes.Equal(again, b) {
		t.Error("re-encoding changed the bytes")
	}
	n, err := got.Networks()
	if err != nil || n.By != metapolicy.AgentModel || n.Fallback != got.Reference {
		t.Fatalf("Networks() = %+v, %v", n, err)
	}
	for name, spoil := range map[string]func(*Checkpoint){
		"no reference":    func(c *Checkpoint) { c.Reference = nil },
		"keys ≠ networks": func(c *Checkpoint) { c.NetKeys = c.NetKeys[:2] },
		"repeated key":    func(c *Checkpoint) { c.NetKeys[1] = "model:a" },
		"mixed keys":      func(c *Checkpoint) { c.NetKeys[1] = "slot:1" },
		"short moments":   func(c *Checkpoint) { c.Adam.M = c.Adam.M[:len(c.Policy.Params)] },
		"policy not first": func(c *Checkpoint) {
			c.Nets[0] = c.Policy.Clone()
		},
	} {
		c := netsSample(t)
		spoil(c)
		if _, err := Marshal(c); err == nil {
			t.Errorf("%s: written", name)
		}
	}
}

// The export of several networks reads back as them, through
// LoadSafetensorsAny and LoadPolicy; LoadSafetensors, which wants one
// network, says what the file holds instead.
func TestSafetensorsNetworks(t *testing.T) {
	c := netsSample(t)
	n, err := c.Networks()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.safetensors")
	if err := SaveSafetensorsNets(path, n, map[string]string{"mpdf.step": "3"}); err != nil {
		t.Fatal(err)
	}
	m, got, meta, err := LoadSafetensorsAny(path)
	if err != nil || m != nil || got == nil {
		t.Fatalf("LoadSafetensorsAny: %v, %v, %v", m, got, err)
	}
	if !slices.Equal(got.Keys, n.Keys) || got.By != n.By || meta["mpdf.step"] != "3" {
		t.Errorf("keys %q by %s meta %v", got.Keys, got.By, meta)
	}
	for k := range n.Nets {
		if !slices.Equal(got.Nets[k].Params, n.Nets[k].Params) {
			t.Errorf("network %d differs", k)
		}
	}
	if !slices.Equal(got.Fallback.Params, n.Fallback.Params) {
		t.Error("fallback differs")
	}
	_, _, err = LoadSafetensors(path)
	if err == nil || !strings.Contains(err.Error(), "3 networks") {
		t.Errorf("LoadSafetensors of several networks: %v", err)
	}
	p, err := LoadPolicy(path, "x")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := p.(*metapolicy.DecoupledPolicy); !ok || len(d.Nets) != 3 {
		t.Errorf("LoadPolicy: %T", p)
	}
	// Metadata that does not name the networks in the file is refused.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"two keys for three": {`model:b.13B,x\",\"model:\"]`, `model:b.13B,x\"]        `},
		"agent policy":       {`"mpdf.agent_policy":"model"`, `"mpdf.agent_policy":"slot "`},
	} {
		bad := bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(bad, b) {
			t.Fatalf("%s: %q not in the header", name, edit[0])
		}
		p := filepath.Join(t.TempDir(), "bad.safetensors")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := LoadSafetensorsAny(p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want corrupt", name, err)
		}
	}
}
