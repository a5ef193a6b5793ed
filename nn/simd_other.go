//go:build !amd64 || noasm || !gc

package nn

import "sync"

// Without the amd64 assembly (other architectures, or the noasm build tag)
// only the portable kernels exist.

var (
	kernelSets32 = sync.OnceValue(func() []*kernelSet[float32] { return []*kernelSet[float32]{portableSet[float32]()} })
	kernelSets64 = sync.OnceValue(func() []*kernelSet[float64] { return []*kernelSet[float64]{portableSet[float64]()} })
)

// allFinite32 is the vector shortcut of FirstNonFinite; without one it
// reports false, and FirstNonFinite's own loop decides.
func allFinite32([]float32) bool { return false }

// sumSquares32 is the vector part of GradNorm; without one it sums nothing.
func sumSquares32([]float32) (float64, int) { return 0, 0 }
