package checkpoints

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/nn"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	goldenCheckpoint  = "testdata/golden-v1.mpdf"
	goldenSafetensors = "testdata/golden-v1.safetensors"
)

// goldenState is what the golden files were made from (with -update).
func goldenState(t *testing.T) *Checkpoint {
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 7)
	s.run(3)
	return s.checkpoint(t)
}

func TestGoldenUpdate(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the golden files")
	}
	c := goldenState(t)
	if err := Save(goldenCheckpoint, c); err != nil {
		t.Fatal(err)
	}
	if err := SaveSafetensors(goldenSafetensors, c.Policy, map[string]string{"run": "golden"}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 7, 19, len(c.Policy.Params) - 1} {
		t.Logf("policy[%d] = %#08x, reference[%d] = %#08x, adam.v[%d] = %#08x", i, math.Float32bits(c.Policy.Params[i]),
			i, math.Float32bits(c.Reference.Params[i]), i, math.Float32bits(c.Adam.V[i]))
	}
	t.Logf("rng %x", c.RNG)
}

// Files written by format version 1 keep loading, with the same content.
func TestGoldenCheckpoint(t *testing.T) {
	c, err := Load(goldenCheckpoint, WithFeatureVersion("mpdf-features/v1"))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Header
	if h.Step != 3 || h.Seed != 7 || h.FeatureVersion != "mpdf-features/v1" ||
		string(h.Train) != `{"lr":0.01,"batch":64,"tau":0.8}` || string(h.DataPos) != `{"epoch":0,"offset":192}` {
		t.Fatalf("header %+v", h)
	}
	if d := cmp.Diff(map[string]float64{"kl": 0.001, "loss": 0.125, "reward": 0.25}, h.Metrics); d != "" {
		t.Fatalf("header metrics (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{4, 5, 3}, c.Policy.Sizes); d != "" {
		t.Fatalf("policy sizes (-want +got):\n%s", d)
	}
	if c.Policy.Act != nn.Tanh || len(c.Policy.Params) != 43 {
		t.Fatalf("policy %v with %d params", c.Policy.Act, len(c.Policy.Params))
	}
	if c.Adam == nil || c.Adam.Step != 3 || c.Adam.Config != nn.DefaultAdam() || c.Reference == nil {
		t.Fatalf("adam %+v, reference %v", c.Adam, c.Reference != nil)
	}
	for _, tc := range []struct {
		name string
		got  []float32
		i    int
		bits uint32
	}{
		{"policy", c.Policy.Params, 0, 0xbe861122},
		{"policy", c.Policy.Params, 7, 0x3e2204aa},
		{"policy", c.Policy.Params, 42, 0xbda1eaf3},
		{"reference", c.Reference.Params, 19, 0xbe879134},
		{"adam.v", c.Adam.V, 0, 0x3a357971},
		{"adam.v", c.Adam.V, 42, 0x3b8a4df2},
	} {
		if b := math.Float32bits(tc.got[tc.i]); b != tc.bits {
			t.Errorf("%s[%d] = %#08x (%v), golden %#08x", tc.name, tc.i, b, tc.got[tc.i], tc.bits)
		}
	}
	// The RNG state resumes the same stream.
	pcg := new(rand.PCG)
	if err := pcg.UnmarshalBinary(c.RNG); err != nil {
		t.Fatal(err)
	}
	if v := pcg.Uint64(); v != 0xc68cfd37be8191d6 {
		t.Errorf("next RNG value %#x", v)
	}

	// Writing what was read gives the golden body back byte for byte: the
	// encoding has not drifted. (The compressed bytes may change with the
	// zstd library; the body may not within a format version.)
	raw, err := os.ReadFile(goldenCheckpoint)
	if err != nil {
		t.Fatal(err)
	}
	again := mustMarshal(t, c)
	if !bytes.Equal(body(t, again), body(t, raw)) {
		t.Fatal("re-encoding the golden checkpoint changed its body")
	}
}

func TestGoldenSafetensors(t *testing.T) {
	m, meta, err := LoadSafetensors(goldenSafetensors, WithFeatureVersion("mpdf-features/v1"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(goldenCheckpoint, WithFeatureVersion(""))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c.Policy, m); d != "" {
		t.Fatalf("the golden safetensors does not hold the golden policy (-checkpoint +safetensors):\n%s", d)
	}
	if meta["run"] != "golden" || meta["activation"] != "tanh" || meta["format"] != "pt" {
		t.Fatalf("metadata %v", meta)
	}
	raw, err := os.ReadFile(goldenSafetensors)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(exportBytes(t, m, map[string]string{"run": "golden"}), raw) {
		t.Fatal("re-exporting the golden weights changed the bytes")
	}
}

// body returns the decompressed body of a checkpoint file.
func body(t *testing.T, file []byte) []byte {
	t.Helper()
	_, dec, err := codecs()
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(file[offRawLen:])
	b, err := dec.DecodeAll(file[prefixLen:len(file)-trailerLen], make([]byte, 0, n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
