//go:build !noasm && gc

package peak

//go:generate go run -C ../../nn/_generate . -probe -out ../../internal/peak/fma_amd64.s -stubs ../../internal/peak/fma_amd64.go -pkg peak

// probe returns the probe of isa. It trusts the CPU to run isa: the name
// comes from nn.KernelName, which nn chose from the CPU's features (so
// this package needs no feature detection of its own).
func probe(isa string) func(n int) int {
	switch isa {
	case "avx512":
		return fmaAVX512
	case "avx2":
		return fmaAVX2
	}
	return nil
}
