// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Float32
/// @notice IEEE-754 binary32 arithmetic on bit patterns held in uint32 (the same bits a Float32Array holds),
///         rounding to nearest, ties to even, with subnormals, infinities and signed zeros exactly as the
///         standard (and WebAssembly's f32.add / f32.sub / f32.mul, which tfjs-backend-wasm runs) defines them.
///         The one deliberate difference: every NaN result is the canonical quiet NaN 0x7fc00000, because the
///         operator trace (docs/disputes.md) writes every float32 NaN that way, whatever payload the hardware
///         produced.
/// @dev Every finite operand is read as an integer significand m and a "unit exponent" k in [1, 254]:
///      value = m * 2^(k - 150), with m = fraction | 2^23 for normal numbers (exponent field e = k) and
///      m = fraction, k = 1 for subnormals (e = 0). A result is computed exactly as M * 2^(F - 149) with a
///      wide integer M and then rounded once by `_round`, so there is a single rounding step to get right.
library Float32 {
    /// @notice The canonical quiet NaN every NaN result is written as.
    uint32 internal constant NAN = 0x7fc00000;
    /// @notice +infinity; -infinity is 0xff800000.
    uint32 internal constant POSITIVE_INFINITY = 0x7f800000;
    uint32 internal constant SIGN_BIT = 0x80000000;
    uint32 internal constant ONE = 0x3f800000;

    /// @notice True for every NaN bit pattern (exponent all ones, fraction non-zero), whatever its sign.
    function isNaN(uint32 x) internal pure returns (bool) {
        return x & 0x7fffffff > POSITIVE_INFINITY;
    }

    /// @notice `x` with any NaN replaced by the canonical 0x7fc00000.
    function canonical(uint32 x) internal pure returns (uint32) {
        return x & 0x7fffffff > POSITIVE_INFINITY ? NAN : x;
    }

    /// @notice -x: flips the sign bit (so -(+0) = -0 and -(-0) = +0, as wasm's f32.neg); NaN stays NaN.
    function neg(uint32 x) internal pure returns (uint32) {
        return x & 0x7fffffff > POSITIVE_INFINITY ? NAN : x ^ SIGN_BIT;
    }

    /// @notice a - b, correctly rounded: a + (-b).
    function sub(uint32 a, uint32 b) internal pure returns (uint32) {
        // Flipping b's sign never turns a NaN into a non-NaN, and add canonicalises NaN results.
        return add(a, b ^ SIGN_BIT);
    }

    /// @notice a + b, correctly rounded (nearest, ties to even).
    function add(uint32 a, uint32 b) internal pure returns (uint32 r) {
        uint256 m;
        int256 f;
        uint256 n;
        assembly ("memory-safe") {
            // Bits above a uint32 are not guaranteed clean inside assembly.
            a := and(a, 0xffffffff)
            b := and(b, 0xffffffff)
            let absA := and(a, 0x7fffffff)
            let absB := and(b, 0x7fffffff)
            // Order by magnitude (the bit patterns of non-negative floats sort like the values): |a| >= |b|,
            // so the result takes a's sign unless the two cancel exactly.
            if lt(absA, absB) {
                let t := a
                a := b
                b := t
                t := absA
                absA := absB
                absB := t
            }
            switch gt(absA, 0x7f7fffff)
            case 1 {
                // a (the larger magnitude) is infinite or NaN.
                r := a
                // NaN in, or inf + (-inf), is NaN (b cannot be NaN unless a is: |b| <= |a|).
                if or(gt(absA, 0x7f800000), and(eq(absB, 0x7f800000), iszero(eq(a, b)))) { r := 0x7fc00000 }
            }
            default {
                switch absB
                case 0 {
                    // x + 0 = x for x != 0; +0 + -0 = +0 and -0 + -0 = -0 (the sign survives only if both agree).
                    r := a
                    if iszero(absA) { r := and(a, b) }
                }
                default {
                    let ea := shr(23, absA)
                    let eb := shr(23, absB)
                    // Significands with the hidden bit for normal numbers; unit exponents k = max(e, 1).
                    let ma := or(and(absA, 0x7fffff), shl(23, gt(ea, 0)))
                    let mb := or(and(absB, 0x7fffff), shl(23, gt(eb, 0)))
                    let ka := add(ea, iszero(ea))
                    // Align b to a. Beyond 50 bits b only acts as a sticky bit: it is then below 2^-49 of a
                    // (a is normal there), far under a quarter ulp, so b scaled up to a 50-bit distance rounds
                    // identically to the true b while keeping m inside 76 bits.
                    let d := sub(ka, add(eb, iszero(eb)))
                    if gt(d, 50) { d := 50 }
                    m := shl(d, ma)
                    switch shr(31, xor(a, b))
                    case 0 {
                        m := add(m, mb)
                        // m's top bit is at 23 + d or 24 + d when a is normal. When a is subnormal (d = 0, m < 2^24)
                        // any n <= 24 rounds alike (exactly), so 24 stands in for it.
                        n := add(add(24, d), gt(shr(add(24, d), m), 0))
                    }
                    default {
                        m := sub(m, mb)
                        // d >= 2: m > 2^(23+d) - 2^24 >= 2^(22+d), so its top bit is at 22 + d or 23 + d. d <= 1 can
                        // cancel any number of bits: n = 0 asks _round to find the length.
                        if gt(d, 1) { n := add(add(23, d), gt(shr(add(23, d), m), 0)) }
                    }
                    // Exact cancellation gives +0 (r is still 0); else m * 2^(ka - d - 150) = m * 2^(f - 149),
                    // f = ka - d - 1 >= 0, rounded below with a's sign.
                    if m {
                        f := sub(sub(ka, d), 1)
                        r := and(a, 0x80000000)
                    }
                }
            }
        }
        if (m != 0) r |= _round(m, f, n);
    }

    /// @notice a * b, correctly rounded (nearest, ties to even).
    function mul(uint32 a, uint32 b) internal pure returns (uint32 r) {
        uint256 m;
        int256 f;
        uint256 n;
        assembly ("memory-safe") {
            let absA := and(a, 0x7fffffff)
            let absB := and(b, 0x7fffffff)
            let sign := and(xor(a, b), 0x80000000)
            switch or(gt(absA, 0x7f7fffff), gt(absB, 0x7f7fffff))
            case 1 {
                // An infinite or NaN operand: NaN in, or inf * 0, gives NaN; else a signed infinity.
                r := or(sign, 0x7f800000)
                if or(or(gt(absA, 0x7f800000), gt(absB, 0x7f800000)), or(iszero(absA), iszero(absB))) {
                    r := 0x7fc00000
                }
            }
            default {
                r := sign // a zero operand gives this signed zero
                if iszero(or(iszero(absA), iszero(absB))) {
                    let ea := shr(23, absA)
                    let eb := shr(23, absB)
                    // value = ma * mb * 2^(ka + kb - 300) = m * 2^(f - 149) with f = ka + kb - 151 (may be < 0)
                    m := mul(or(and(absA, 0x7fffff), shl(23, gt(ea, 0))), or(and(absB, 0x7fffff), shl(23, gt(eb, 0))))
                    f := sub(add(add(ea, iszero(ea)), add(eb, iszero(eb))), 151)
                    // Two normal significands (each in [2^23, 2^24)) multiply to [2^46, 2^48): the top bit is at 46
                    // or 47. A subnormal operand leaves n = 0: _round finds the length.
                    if and(gt(ea, 0), gt(eb, 0)) { n := add(47, shr(47, m)) }
                }
            }
        }
        if (m != 0) r |= _round(m, f, n);
    }

    /// @dev Rounds m * 2^(f - 149) (0 < m < 2^128) to the nearest binary32 magnitude, ties to even; values
    ///      beyond the largest finite float give +infinity. `n` is m's bit length, or 0 to compute it here.
    ///      The caller ors in the sign.
    function _round(uint256 m, int256 f, uint256 n) private pure returns (uint32 bits) {
        assembly ("memory-safe") {
            if iszero(n) {
                // Binary search (m < 2^128: sums stay below 2^76, products below 2^48).
                let x := m
                if gt(x, 0xffffffffffffffff) {
                    x := shr(64, x)
                    n := 64
                }
                if gt(x, 0xffffffff) {
                    x := shr(32, x)
                    n := add(n, 32)
                }
                if gt(x, 0xffff) {
                    x := shr(16, x)
                    n := add(n, 16)
                }
                if gt(x, 0xff) {
                    x := shr(8, x)
                    n := add(n, 8)
                }
                if gt(x, 0xf) {
                    x := shr(4, x)
                    n := add(n, 4)
                }
                if gt(x, 0x3) {
                    x := shr(2, x)
                    n := add(n, 2)
                }
                if gt(x, 0x1) {
                    x := shr(1, x)
                    n := add(n, 1)
                }
                n := add(n, x)
            }
            // The result's quantum is 2^(q - 149): 24 significant bits, but never below 2^-149 (the subnormal
            // quantum), so q = max(f + n - 24, 0).
            let q := sub(add(f, n), 24)
            if slt(q, 0) { q := 0 }
            let s := sub(q, f) // how far m shifts right to reach the quantum (<= 0: exact, shift left)
            let kept := 0
            switch sgt(s, 0)
            case 1 {
                kept := shr(s, m)
                // Round up when the remainder is above half, or exactly half and kept is odd (ties to even):
                // both are remainder + (kept & 1) > half.
                kept := add(kept, gt(add(and(m, sub(shl(s, 1), 1)), and(kept, 1)), shl(sub(s, 1), 1)))
            }
            default { kept := shl(sub(0, s), m) }
            // kept <= 2^24. Adding it to q << 23 lets its hidden bit 2^23 raise the exponent field from q to
            // q + 1 (a normal number), leaves a subnormal (kept < 2^23, q = 0) as it is, and moves a rounding
            // carry (kept = 2^24) into the next binade: no special cases.
            bits := add(shl(23, q), kept)
            if gt(bits, 0x7f7fffff) { bits := 0x7f800000 }
        }
    }
}
