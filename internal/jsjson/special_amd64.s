//go:build !purego

#include "textflag.h"

// UTF-8 validation tables of Keiser and Lemire, "Validating UTF-8 In Less
// Than One Instruction Per Byte" (2021), as simdjson's lookup4 algorithm
// has them: a byte pair (prev1, input) is looked up by prev1's high
// nibble, prev1's low nibble and input's high nibble; the three answers
// ANDed hold a bit for every rule the pair breaks. Error bits: TOO_SHORT
// 0x01, TOO_LONG 0x02, OVERLONG_3 0x04, TOO_LARGE 0x08, SURROGATE 0x10,
// OVERLONG_2 0x20, TOO_LARGE_1000 and OVERLONG_4 0x40, TWO_CONTS 0x80.
DATA utf8b1high<>+0(SB)/8, $0x0202020202020202 // 0_______: TOO_LONG
DATA utf8b1high<>+8(SB)/8, $0x4915012180808080 // 10______: TWO_CONTS; 1100: TOO_SHORT|OVERLONG_2; 1101; 1110; 1111
GLOBL utf8b1high<>(SB), RODATA|NOPTR, $16

DATA utf8b1low<>+0(SB)/8, $0xCBCBCB8B8383A3E7
DATA utf8b1low<>+8(SB)/8, $0xCBCBDBCBCBCBCBCB
GLOBL utf8b1low<>(SB), RODATA|NOPTR, $16

DATA utf8b2high<>+0(SB)/8, $0x0101010101010101 // ASCII second byte: TOO_SHORT
DATA utf8b2high<>+8(SB)/8, $0x01010101BABAAEE6
GLOBL utf8b2high<>(SB), RODATA|NOPTR, $16

// saturating subtrahends: x - 0x60 >= 0x80 iff x >= 0xE0 (a three or four
// byte lead two bytes back), x - 0x70 >= 0x80 iff x >= 0xF0 (a four byte
// lead three bytes back)
DATA utf8sub3<>+0(SB)/8, $0x6060606060606060
DATA utf8sub3<>+8(SB)/8, $0x6060606060606060
DATA utf8sub3<>+16(SB)/8, $0x6060606060606060
DATA utf8sub3<>+24(SB)/8, $0x6060606060606060
GLOBL utf8sub3<>(SB), RODATA|NOPTR, $32

DATA utf8sub4<>+0(SB)/8, $0x7070707070707070
DATA utf8sub4<>+8(SB)/8, $0x7070707070707070
DATA utf8sub4<>+16(SB)/8, $0x7070707070707070
DATA utf8sub4<>+24(SB)/8, $0x7070707070707070
GLOBL utf8sub4<>(SB), RODATA|NOPTR, $32

DATA utf8high<>+0(SB)/8, $0x8080808080808080
DATA utf8high<>+8(SB)/8, $0x8080808080808080
DATA utf8high<>+16(SB)/8, $0x8080808080808080
DATA utf8high<>+24(SB)/8, $0x8080808080808080
GLOBL utf8high<>(SB), RODATA|NOPTR, $32

// a chunk whose last three bytes start a character longer than what is
// left of the chunk (x - max > 0): the next chunk must go on with it
DATA utf8incomplete<>+0(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8incomplete<>+8(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8incomplete<>+16(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8incomplete<>+24(SB)/8, $0xBFDFEFFFFFFFFFFF
GLOBL utf8incomplete<>(SB), RODATA|NOPTR, $32

// 32 bytes 0xFF, then 32 bytes 0: the 32 bytes at +32-k keep a chunk's
// first k bytes and clear the rest
DATA utf8keep<>+0(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8keep<>+8(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8keep<>+16(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8keep<>+24(SB)/8, $0xFFFFFFFFFFFFFFFF
DATA utf8keep<>+32(SB)/8, $0
DATA utf8keep<>+40(SB)/8, $0
DATA utf8keep<>+48(SB)/8, $0
DATA utf8keep<>+56(SB)/8, $0
GLOBL utf8keep<>(SB), RODATA|NOPTR, $64

// UTF8CHECK ORs into Y11 the errors of the chunk in Y0, the chunk before
// it in Y10 (Y7-Y9: the tables, Y13: 0x0f in every byte). Clobbers Y4,
// Y5, Y6, Y15. Y5 is the chunk before's high lane and this one's low, from
// which VPALIGNR takes each byte's predecessor (prev1), the byte two back
// (prev2) and three back (prev3); the pair (prev1, byte) is looked up by
// prev1's high and low nibble and the byte's high nibble; a byte two or
// three after a three or four byte lead must be a continuation (0x80 in
// the lookups: TWO_CONTS), which the XOR clears.
#define UTF8CHECK \
	VPERM2I128 $0x21, Y0, Y10, Y5; \
	VPALIGNR   $15, Y5, Y0, Y6; \
	VPSRLW     $4, Y6, Y4; \
	VPAND      Y13, Y4, Y4; \
	VPSHUFB    Y4, Y7, Y4; \
	VPAND      Y13, Y6, Y6; \
	VPSHUFB    Y6, Y8, Y6; \
	VPAND      Y6, Y4, Y4; \
	VPSRLW     $4, Y0, Y6; \
	VPAND      Y13, Y6, Y6; \
	VPSHUFB    Y6, Y9, Y6; \
	VPAND      Y6, Y4, Y4; \
	VPALIGNR   $14, Y5, Y0, Y6; \
	VPALIGNR   $13, Y5, Y0, Y15; \
	VPSUBUSB   utf8sub3<>(SB), Y6, Y6; \
	VPSUBUSB   utf8sub4<>(SB), Y15, Y15; \
	VPOR       Y6, Y15, Y6; \
	VPAND      utf8high<>(SB), Y6, Y6; \
	VPXOR      Y6, Y4, Y4; \
	VPOR       Y4, Y11, Y11

// func skipPlainAVX2(p *byte, n int) (j int, status int)
//
// Scans the n >= 32 bytes at p, 32 a round, for the first quote, backslash
// or control character (< 0x20), validating the UTF-8 of the bytes before
// it on the way. It stops at that byte (status bit 1; j is its index), or
// before the last n%32 bytes or fewer (j: where it stopped; a character
// the last round cut is not known to be complete, see skipPlain). Status
// bit 2: some byte before j is >= 0x80; bit 4: the bytes before j are not
// UTF-8 (a character cut at j is the caller's). Nothing past p+n is read.
TEXT ·skipPlainAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ SI, DI            // p
	LEAQ -32(SI)(CX*1), R8 // p+n-32: the last whole round
	XORL R10, R10          // status
	MOVL $0x22222222, AX
	VMOVD AX, X1
	VPBROADCASTD X1, Y1    // '"'
	MOVL $0x5c5c5c5c, AX
	VMOVD AX, X2
	VPBROADCASTD X2, Y2    // '\\'
	MOVL $0x1f1f1f1f, AX
	VMOVD AX, X3
	VPBROADCASTD X3, Y3    // 0x1f
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X13
	VPBROADCASTD X13, Y13  // low nibbles
	VBROADCASTI128 utf8b1high<>(SB), Y7
	VBROADCASTI128 utf8b1low<>(SB), Y8
	VBROADCASTI128 utf8b2high<>(SB), Y9
	VMOVDQU utf8incomplete<>(SB), Y14
	VPXOR Y10, Y10, Y10    // the round before (none: ASCII)
	VPXOR Y11, Y11, Y11    // errors
	VPXOR Y12, Y12, Y12    // the round before ended inside a character

// (VEX-encoded instructions only: a legacy SSE instruction after a 256-bit
// one pays an AVX-SSE transition, about 200 ns a call on the build machine)
loop:
	CMPQ SI, R8
	JA   stopped
	VMOVDQU  (SI), Y0
	VPCMPEQB Y0, Y1, Y4
	VPCMPEQB Y0, Y2, Y5
	VPOR     Y4, Y5, Y4
	VPMINUB  Y0, Y3, Y5    // min(x, 0x1f) == x: x <= 0x1f
	VPCMPEQB Y0, Y5, Y5
	VPOR     Y4, Y5, Y4
	VPMOVMSKB Y4, AX
	TESTL    AX, AX
	JNZ      found
	VPMOVMSKB Y0, BX       // the top bit of every byte: >= 0x80
	TESTL    BX, BX
	JNZ      multibyte
	VPOR     Y12, Y11, Y11 // ASCII after a cut character: an error
	VPXOR    Y12, Y12, Y12
	VMOVDQU  Y0, Y10
	ADDQ     $32, SI
	JMP      loop

multibyte:
	ORL      $2, R10
	UTF8CHECK
	VPSUBUSB Y14, Y0, Y12  // non-zero: the round ends inside a character
	VMOVDQU  Y0, Y10
	ADDQ     $32, SI
	JMP      loop

found:
	// the round holds a special byte: the bytes from it on are read as
	// zeros (ASCII), so that a character it cuts is an error
	BSFL     AX, AX
	LEAQ     utf8keep<>+32(SB), R9
	SUBQ     AX, R9
	VPAND    (R9), Y0, Y0
	ORL      $1, R10
	ADDQ     AX, SI
	VPMOVMSKB Y0, BX
	TESTL    BX, BX
	JNZ      foundmulti
	VPOR     Y12, Y11, Y11
	JMP      stopped
foundmulti:
	ORL      $2, R10
	UTF8CHECK

stopped:
	VPTEST   Y11, Y11
	JZ       ret
	ORL      $4, R10
ret:
	SUBQ     DI, SI
	VZEROUPPER
	MOVQ     SI, j+16(FP)
	MOVQ     R10, status+24(FP)
	RET
