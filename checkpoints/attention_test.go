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

func attentionNet(t *testing.T, seed uint64) *nn.MLP[float32] {
	t.Helper()
	m, err := nn.NewAttention[float32](8, []int{nn.AttnSelf + 8, 16, nn.NumActions}, nn.ReLU)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	return m
}

// An attention network's checkpoint holds every parameter, front first,
// its width, the reference and Adam over all of it, and reads back equal.
func TestAttentionCheckpointRoundTrip(t *testing.T) {
	m := attentionNet(t, 3)
	adam := nn.NewAdam[float32](nn.DefaultAdam(), len(m.Params))
	adam.Update(m.Params, slices.Repeat([]float32{0.5}, len(m.Params)), 1e-3)
	c := &Checkpoint{Header: Header{FeatureVersion: metapolicy.FeatureVersionPeers, Step: 1}, Policy: m, Reference: attentionNet(t, 3), Adam: adam}
	var buf bytes.Buffer
	if err := Encode(&buf, c); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(buf.Bytes()), WithFeatureVersion(metapolicy.FeatureVersionPeers))
	if err != nil {
		t.Fatal(err)
	}
	if got.Policy.Attn != 8 || got.Reference.Attn != 8 || !slices.Equal(got.Policy.Params, m.Params) ||
		!slices.Equal(got.Adam.V, adam.V) || got.Policy.In() != nn.AttnIn {
		t.Fatalf("read back: width %d/%d, params equal %v", got.Policy.Attn, got.Reference.Attn, slices.Equal(got.Policy.Params, m.Params))
	}
	// The reference must be of the policy's kind.
	c.Reference = &nn.MLP[float32]{Sizes: m.Sizes, Act: m.Act, Params: m.Params[nn.AttnParams(8):]}
	if err := Encode(&bytes.Buffer{}, c); err == nil {
		t.Error("an MLP reference for an attention policy is written")
	}
}

// The export names the front attn.{q,k,v}.{weight,bias} with nn.Linear's
// shapes and says arch and attn_dim; it reads back equal; a file whose
// tensors and metadata disagree is refused.
func TestAttentionSafetensors(t *testing.T) {
	m := attentionNet(t, 4)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.safetensors")
	if err := SaveSafetensors(path, m, map[string]string{MetaFeatureVersion: metapolicy.FeatureVersionPeers}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"attn.q.weight":{"dtype":"F32","shape":[8,26]`, `"attn.k.weight":{"dtype":"F32","shape":[8,12]`,
		`"attn.v.bias":{"dtype":"F32","shape":[8]`, `"layers.0.weight":{"dtype":"F32","shape":[16,34]`, `"arch":"attention"`, `"attn_dim":"8"`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("export lacks %s", want)
		}
	}
	got, meta, err := LoadSafetensors(path, WithFeatureVersion(metapolicy.FeatureVersionPeers))
	if err != nil {
		t.Fatal(err)
	}
	if got.Attn != 8 || !slices.Equal(got.Params, m.Params) || got.Act != nn.ReLU || meta[MetaArch] != ArchAttention {
		t.Fatalf("read back width %d, params equal %v, meta %v", got.Attn, slices.Equal(got.Params, m.Params), meta)
	}
	if err := SaveSafetensors(path, m, map[string]string{MetaArch: "mlp"}); err == nil {
		t.Error("metadata arch=mlp is written for an attention network")
	}
	// The same tensors with the metadata's arch removed, or another width.
	for _, c := range []struct{ from, to, says string }{
		{`"arch":"attention",`, `"arch":"mlpxxxxxx",`, "want \"attention\""},
		{`"attn_dim":"8"`, `"attn_dim":"9"`, "width 8"},
	} {
		bad := bytes.Replace(raw, []byte(c.from), []byte(c.to), 1)
		p := filepath.Join(dir, "bad.safetensors")
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadSafetensors(p); err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s → %s: %v", c.from, c.to, err)
		}
	}
	// An MLP's export says no arch, as before.
	mlp, _ := nn.NewMLP[float32]([]int{26, 4, 3}, nn.Tanh)
	var b bytes.Buffer
	if err := ExportSafetensors(&b, mlp, nil); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("arch")) || bytes.Contains(b.Bytes(), []byte("attn")) {
		t.Error("an MLP's export names an arch")
	}
}
