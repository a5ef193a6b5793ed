//go:build !goexperiment.simd || !amd64

package nn

import "sync"

// Without GOEXPERIMENT=simd on amd64 only the portable kernels exist.

var (
	kernelSets32 = sync.OnceValue(func() []*kernelSet[float32] { return []*kernelSet[float32]{portableSet[float32]()} })
	kernelSets64 = sync.OnceValue(func() []*kernelSet[float64] { return []*kernelSet[float64]{portableSet[float64]()} })
)
