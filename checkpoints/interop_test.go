package checkpoints

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// The reference's own read_safetensors reads our export, and its
// write_safetensors, given what it read, writes back exactly our bytes,
// which we import again. Runs the reference code under real PyTorch when
// /usr/bin/python3 has it, and under testdata/st_interop.py's stand-in for
// the handful of torch calls otherwise.
func TestSafetensorsReferenceInterop(t *testing.T) {
	py, ref := testenv.Script(t)
	for _, mode := range []string{"torch", "stand-in"} {
		t.Run("mode="+mode, func(t *testing.T) { interop(t, py, ref, mode) })
	}
}

func interop(t *testing.T, py, ref, mode string) {
	dir := t.TempDir()
	sizes := []int{metapolicy.FeatureWidth, 9, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 3} // 12 layers: "10" sorts before "2"
	m := sampleMLP(t, sizes, nn.ReLU)
	ours := exportBytes(t, m, map[string]string{"note": "λ=0 <ok> \"quoted\" \U0001F600"})
	in, out := filepath.Join(dir, "ours.safetensors"), filepath.Join(dir, "theirs.safetensors")
	if err := os.WriteFile(in, ours, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join("testdata", "st_interop.py"), ref, in, out}
	if mode == "stand-in" {
		args = append(args, mode)
	}
	cmd := exec.Command(py, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Torch   string
		Tensors map[string]struct {
			Shape  []int
			Values []float64
		}
		Meta   map[string]string
		Logits []float64
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatal(err)
	}
	t.Logf("reference ran with torch: %s", got.Torch)
	if len(got.Tensors) != 2*m.Layers() {
		t.Fatalf("reference read %d tensors, want %d", len(got.Tensors), 2*m.Layers())
	}
	for i := range m.Layers() {
		for name, want := range map[string][]float32{
			"layers." + itoa(int64(i)) + ".weight": m.Weight(i),
			"layers." + itoa(int64(i)) + ".bias":   m.Bias(i),
		} {
			tn, ok := got.Tensors[name]
			if !ok || len(tn.Values) != len(want) {
				t.Fatalf("%s: reference read %d values, want %d", name, len(tn.Values), len(want))
			}
			for j, v := range tn.Values {
				if float32(v) != want[j] {
					t.Fatalf("%s[%d]: reference read %v, want %v", name, j, v, want[j])
				}
			}
		}
		if d := cmp.Diff([]int{sizes[i+1], sizes[i]}, got.Tensors["layers."+itoa(int64(i))+".weight"].Shape); d != "" {
			t.Fatalf("layer %d weight shape, want [out, in] (-want +got):\n%s", i, d)
		}
	}
	if got.Meta["activation"] != "relu" || got.Meta["feature_version"] != metapolicy.FeatureVersion {
		t.Fatalf("reference read metadata %v", got.Meta)
	}
	if got.Torch == "real" {
		// PyTorch's own nn.Linear stack computes what our MLP computes.
		x := make([]float32, m.In())
		for j := range x {
			x[j] = float32(j%7)/7 - 0.5
		}
		want := make([]float32, m.Out())
		m.Logits(want, x)
		if len(got.Logits) != len(want) {
			t.Fatalf("torch logits %v, want %v", got.Logits, want)
		}
		for j, v := range got.Logits {
			if math.Abs(v-float64(want[j])) > 1e-5*(1+math.Abs(v)) {
				t.Fatalf("torch logits %v, ours %v", got.Logits, want)
			}
		}
	}
	theirs, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(theirs, ours) {
		t.Fatalf("the reference writer's file differs from ours:\n%q\n%q", theirs[:min(len(theirs), 300)], ours[:min(len(ours), 300)])
	}
	back, _, err := LoadSafetensors(out)
	if err != nil {
		t.Fatalf("importing the reference's file: %v", err)
	}
	if d := cmp.Diff(m, back); d != "" {
		t.Fatalf("importing the reference's file (-want +got):\n%s", d)
	}
}
