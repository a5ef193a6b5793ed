package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// The constant tables: each value repeated over 64 bytes, so that a YMM or a
// ZMM operand can read it from memory.
var (
	tanhK Mem // tanhClamp, −tanhClamp, 2, then P13…P1, Q6…Q0
	oneK  Mem // 1.0
)

// tanh32's coefficients; nn/kernel_tanh.go holds the same values.
const (
	tanhClamp = 7.99881172180175781

	tanhP1  = 4.89352455891786e-03
	tanhP3  = 6.37261928875436e-04
	tanhP5  = 1.48572235717979e-05
	tanhP7  = 5.12229709037114e-08
	tanhP9  = -8.60467152213735e-11
	tanhP11 = 2.00018790482477e-13
	tanhP13 = -2.76076847742355e-16

	tanhQ0 = 4.89352518554385e-03
	tanhQ2 = 2.26843463243900e-03
	tanhQ4 = 1.18534705686654e-04
	tanhQ6 = 1.19825839466702e-06
)

// table emits a read-only table of float32 values, each repeated 16 times.
func table(name string, vals ...float32) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, v := range vals {
		for l := 0; l < 16; l++ {
			DATA(64*i+4*l, U32(math.Float32bits(v)))
		}
	}
	return m
}

func consts() {
	tanhK = table("tanhk", tanhClamp, -tanhClamp, 2,
		tanhP13, tanhP11, tanhP9, tanhP7, tanhP5, tanhP3, tanhP1,
		tanhQ6, tanhQ4, tanhQ2, tanhQ0)
	oneK = table("onek", 1)
}

// entry is entry i of a constant table.
func entry(t Mem, i int) Mem { return t.Offset(64 * i) }
