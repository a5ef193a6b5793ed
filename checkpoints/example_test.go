package checkpoints_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Load reads a checkpoint whole, verified: its checksum, shapes and the
// feature version the policy was trained on (by default this build's, so
// a policy of another feature layout is refused, not misread).
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "ckpt-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	net, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 8, nn.NumActions}, nn.Tanh)
	if err != nil {
		panic(err)
	}
	net.Init(1)
	path := filepath.Join(dir, checkpoints.StepName(40))
	err = checkpoints.Save(path, &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion, Step: 40, Seed: 1,
			Metrics: map[string]float64{"reward": 0.25}},
		Policy: net,
	})
	if err != nil {
		panic(err)
	}

	c, err := checkpoints.Load(path)
	if err != nil {
		panic(err)
	}
	fmt.Println(filepath.Base(path), "step", c.Header.Step, "reward", c.Header.Metrics["reward"])
	fmt.Println("policy", c.Policy.Sizes, c.Policy.Act, "reference", c.Reference != nil)
	// Output:
	// ckpt-00000040.mpdf step 40 reward 0.25
	// policy [26 8 3] tanh reference false
}

// Inspect describes a checkpoint or a safetensors export without running
// it: what mpdf inspect prints (WriteText) or encodes as JSON.
func ExampleInspect() {
	dir, err := os.MkdirTemp("", "inspect-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	net, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 8, nn.NumActions}, nn.Tanh)
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "best.mpdf")
	err = checkpoints.Save(path, &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion, Step: 40, Seed: 1},
		Policy: net,
	})
	if err != nil {
		panic(err)
	}

	d, err := checkpoints.Inspect(path)
	if err != nil {
		panic(err)
	}
	info := d.(*checkpoints.Info)
	fmt.Println("step", info.Step, "runs here:", info.Usable, "confidence:", info.ConfidenceSource)
	fmt.Println(info.Policy)
	// Output:
	// step 40 runs here: true confidence: unknown
	// MLP 26 → 8 → 3, tanh, 243 parameters
}
