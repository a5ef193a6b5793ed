//go:build !noasm && gc

#include "textflag.h"

// func scaleAVX2(x *float32, n int, k float32)
// x[i] *= k for i < n, n a positive multiple of 32: four vectors an
// iteration, each element rounded once, as the scalar multiply rounds it.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), AX
	MOVQ         n+8(FP), CX
	VBROADCASTSS k+16(FP), Y0

loop:
	VMULPS  (AX), Y0, Y1
	VMULPS  32(AX), Y0, Y2
	VMULPS  64(AX), Y0, Y3
	VMULPS  96(AX), Y0, Y4
	VMOVUPS Y1, (AX)
	VMOVUPS Y2, 32(AX)
	VMOVUPS Y3, 64(AX)
	VMOVUPS Y4, 96(AX)
	ADDQ    $128, AX
	SUBQ    $32, CX
	JNZ     loop
	VZEROUPPER
	RET
