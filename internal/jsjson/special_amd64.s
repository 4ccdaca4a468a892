#include "textflag.h"

// func indexSpecialAVX2(p *byte, n int) int
//
// The index of the first of the n >= 32 bytes at p that is a quote, a
// backslash, a control character (< 0x20) or >= 0x80; n if there is none.
// 32 bytes a round; the last round loads the last 32 bytes (overlapping
// the round before) so that nothing past p+n is read.
TEXT ·indexSpecialAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ SI, DI            // p
	LEAQ -32(SI)(CX*1), R8 // p+n-32: the last full round
	MOVL $0x22222222, AX
	VMOVD AX, X1
	VPBROADCASTD X1, Y1    // '"'
	MOVL $0x5c5c5c5c, AX
	VMOVD AX, X2
	VPBROADCASTD X2, Y2    // '\\'
	MOVL $0x1f1f1f1f, AX
	VMOVD AX, X3
	VPBROADCASTD X3, Y3    // 0x1f

// (VEX-encoded moves only: a legacy SSE instruction after a 256-bit one
// pays an AVX-SSE transition, about 200 ns a call on the build machine)
loop:
	CMPQ SI, R8
	JA   tail
	VMOVDQU  (SI), Y0
	VPCMPEQB Y0, Y1, Y4
	VPCMPEQB Y0, Y2, Y5
	VPOR     Y4, Y5, Y4
	VPMINUB  Y0, Y3, Y5    // min(x, 0x1f) == x: x <= 0x1f
	VPCMPEQB Y0, Y5, Y5
	VPOR     Y4, Y5, Y4
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y0, BX       // the top bit of every byte: >= 0x80
	ORL      BX, AX
	TESTL    AX, AX
	JNZ      found
	ADDQ     $32, SI
	JMP      loop

tail:
	// SI is in (p+n-32, p+n]: test the last 32 bytes and drop the bits of
	// the bytes before SI, tested already
	MOVQ SI, R9
	SUBQ R8, R9            // bytes of the last round tested already
	VMOVDQU  (R8), Y0
	VPCMPEQB Y0, Y1, Y4
	VPCMPEQB Y0, Y2, Y5
	VPOR     Y4, Y5, Y4
	VPMINUB  Y0, Y3, Y5
	VPCMPEQB Y0, Y5, Y5
	VPOR     Y4, Y5, Y4
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y0, BX
	ORL      BX, AX
	MOVQ     R9, CX
	SHRQ     CX, AX        // R9 <= 32: a shift by 32 of the 32-bit mask in AX leaves 0
	TESTQ    AX, AX
	JZ       none
	BSFQ     AX, AX
	ADDQ     R9, AX
	ADDQ     R8, AX
	SUBQ     DI, AX
	VZEROUPPER
	MOVQ     AX, ret+16(FP)
	RET

found:
	BSFL     AX, AX
	ADDQ     SI, AX
	SUBQ     DI, AX
	VZEROUPPER
	MOVQ     AX, ret+16(FP)
	RET

none:
	VZEROUPPER
	MOVQ     n+8(FP), AX
	MOVQ     AX, ret+16(FP)
	RET
