package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// probeChains is the independent multiply-add chains of fmaProbe: enough
// to cover an FMA latency of 4–6 cycles on two units (8–12 in flight),
// within the 16 YMM registers with the two operands.
const probeChains = 12

// fmaProbe emits fma<ISA>, the FMA-throughput probe of internal/peak: n
// times, probeChains independent VFMADD231PS on full vectors of registers
// (acc = x·y + acc, no memory operand), and it returns the FLOPs it ran,
// n · probeChains · lanes · 2. The operands are 1: the sums count up and
// stay normal (past 2²⁴ they stop changing, which costs the unit nothing).
func fmaProbe(k isa) {
	name := "fma" + k.Suf
	TEXT(name, NOSPLIT, "func(n int) (flops int)")
	Doc(fmt.Sprintf("%s runs n×%d independent %d-lane multiply-adds and returns their FLOPs.", name, probeChains, k.Lanes))
	n := Load(Param("n"), GP64())
	flops := GP64()
	IMUL3Q(U32(probeChains*k.Lanes*2), n, flops)
	one := GP32()
	MOVL(U32(math.Float32bits(1)), one)
	x := k.Vec()
	VMOVD(one, x.AsX())
	VBROADCASTSS(x.AsX(), x)
	acc := make([]VecVirtual, probeChains)
	for i := range acc {
		acc[i] = k.Vec()
		VXORPS(acc[i], acc[i], acc[i])
	}
	TESTQ(n, n)
	JLE(LabelRef(name + "_done"))
	Label(name + "_loop")
	for _, a := range acc {
		VFMADD231PS(x, x, a)
	}
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	Store(flops, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
