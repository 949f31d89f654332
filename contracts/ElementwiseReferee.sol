// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Float32} from "./Float32.sol";

// File-level errors: a contract that uses ElementwiseReferee (PinpointGame) gets them in its ABI.

/// @notice `kernel` is not one the referee re-executes (see ElementwiseReferee.isSupported).
error UnsupportedKernel(string kernel);
/// @notice `kernel` takes `expected` inputs; the call passed `inputs` tensors and `inputShapes` shapes.
error WrongInputCount(string kernel, uint256 expected, uint256 inputs, uint256 inputShapes);
/// @notice Input `input` holds `actualBytes` bytes; its shape needs `expectedBytes` (4 per float32 element).
error TensorDataLength(uint256 input, uint256 expectedBytes, uint256 actualBytes);
/// @notice The two input shapes do not broadcast (numpy rules) to exactly `outputShape`.
error NotBroadcastable(uint32[] shapeA, uint32[] shapeB, uint32[] outputShape);
/// @notice `outputShape` does not follow from the input's shape: a unary kernel keeps the shape exactly,
///         Reshape and Identity keep the element count.
error ShapeMismatch(string kernel, uint32[] inputShape, uint32[] outputShape);
/// @notice Step's attrs are not `abi.encode(uint32 alphaBits)` (one 32-byte word holding a uint32).
error InvalidAttrs(string kernel, bytes attrs);

/// @title ElementwiseReferee
/// @notice Re-executes one small elementwise tfjs operator on float32 tensors, bit for bit as
///         tfjs-backend-wasm 4.22 computes it, so that PinpointGame can arbitrate a disputed operator
///         (docs/disputes.md, "The operator trace of one step"). Tensors are little-endian float32, 4 bytes per
///         element; every NaN in an output is written as 0x7fc00000.
///
///         Semantics, as tfjs-backend-wasm 4.22 computes them (test/contracts/ElementwiseReferee.test.ts checks
///         each against real tfjs-wasm):
///         - Relu: XNNPACK's f32 relu micro-kernel, an integer max of the bit pattern with 0: every value with
///           the sign bit set (-0, negative numbers, -inf, negative-signed NaNs) becomes +0, everything else
///           (including +NaN) passes through unchanged.
///         - Step(alpha): `isnan(x) ? x : (x > 0 ? 1 : alpha)` (Step.cc): NaN stays NaN, -0 and +0 give alpha.
///         - Neg: sign flip (-(+0) = -0).
///         - Add, Sub, Mul: IEEE-754 binary32 (XNNPACK's vadd/vsub/vmul with no clamp), numpy broadcasting.
///         - Reshape, Identity: the input bytes unchanged.
/// @dev Gas (measured by test/contracts/ElementwiseReferee.test.ts): Add, Sub and Mul cost about 1,100-1,250 gas
///      per element, most of it the Float32 arithmetic, with or without broadcasting (a 4096-element Add: ~5.1M);
///      Relu, Step and Neg under 100 (eight lanes per 32-byte word; a 4096-element Relu: ~0.27M); Reshape and
///      Identity a memory copy.
library ElementwiseReferee {
    // Kernel codes (0 = unsupported).
    uint256 private constant RELU = 1;
    uint256 private constant STEP = 2;
    uint256 private constant NEG = 3;
    uint256 private constant ADD = 4;
    uint256 private constant SUB = 5;
    uint256 private constant MUL = 6;
    uint256 private constant RESHAPE = 7;
    uint256 private constant IDENTITY = 8;

    // Eight 32-bit lanes of a 256-bit word.
    uint256 private constant LANE_SIGN = 0x8000000080000000800000008000000080000000800000008000000080000000;
    uint256 private constant LANE_ABS = 0x7fffffff7fffffff7fffffff7fffffff7fffffff7fffffff7fffffff7fffffff;
    uint256 private constant LANE_LOW = 0x0000000100000001000000010000000100000001000000010000000100000001;
    uint256 private constant LANE_NAN_BIAS = 0x007fffff007fffff007fffff007fffff007fffff007fffff007fffff007fffff;

    /// @notice Element counts are capped here while multiplying dimensions: a shape this large can never match
    ///         its data, and the cap keeps the product from overflowing.
    uint256 private constant COUNT_CAP = 1 << 64;

    /// @notice True when `kernel` (a tfjs kernel name) is re-executed on-chain by `execute`.
    function isSupported(string memory kernel) internal pure returns (bool) {
        return _kernelCode(kernel) != 0;
    }

    /// @notice Re-executes `kernel` on `inputs` (little-endian float32 tensors with shapes `inputShapes`) and
    ///         returns the output tensor's bytes (little-endian float32, shape `outputShape`, NaN = 0x7fc00000).
    /// @param kernel the tfjs kernel name (`Mul` is accepted as another name for `Multiply`)
    /// @param attrs `abi.encode(uint32 alphaBits)` for Step (alpha's float32 bit pattern); ignored otherwise
    function execute(
        string memory kernel,
        bytes[] memory inputs,
        uint32[][] memory inputShapes,
        uint32[] memory outputShape,
        bytes memory attrs
    ) internal pure returns (bytes memory output) {
        uint256 code = _kernelCode(kernel);
        if (code == 0) revert UnsupportedKernel(kernel);
        uint256 arity = code >= ADD && code <= MUL ? 2 : 1;
        if (inputs.length != arity || inputShapes.length != arity) {
            revert WrongInputCount(kernel, arity, inputs.length, inputShapes.length);
        }
        for (uint256 i = 0; i < arity; ++i) {
            uint256 expected = _elementCount(inputShapes[i]) * 4;
            if (inputs[i].length != expected) revert TensorDataLength(i, expected, inputs[i].length);
        }

        uint32 alphaBits;
        if (code == STEP) {
            // abi.encode(uint32): one word whose value fits in 32 bits.
            if (attrs.length != 32) revert InvalidAttrs(kernel, attrs);
            uint256 word = abi.decode(attrs, (uint256));
            if (word > type(uint32).max) revert InvalidAttrs(kernel, attrs);
            alphaBits = uint32(word);
        }
        // Every other kernel here has no attribute that changes its output (docs/disputes.md gives them empty
        // attrs); whatever the agreed descriptor carries is ignored rather than made undecidable.

        if (arity == 2) {
            return _binary(code, inputs[0], inputs[1], inputShapes[0], inputShapes[1], outputShape);
        }
        if (code == RESHAPE || code == IDENTITY) {
            if (_elementCount(outputShape) != inputs[0].length / 4) {
                revert ShapeMismatch(kernel, inputShapes[0], outputShape);
            }
            return _copy(inputs[0]);
        }
        if (!_sameShape(inputShapes[0], outputShape)) revert ShapeMismatch(kernel, inputShapes[0], outputShape);
        return _unary(code, inputs[0], alphaBits);
    }

    // ------------------------------------------------------------------ kernels

    /// @dev Relu, Step and Neg on eight lanes at a time (SWAR): each 32-byte word holds eight elements.
    function _unary(uint256 code, bytes memory input, uint32 alphaBits) private pure returns (bytes memory output) {
        uint256 length = input.length;
        output = new bytes(length);
        // Step's two possible non-NaN outputs, replicated into every lane.
        uint256 ones = uint256(Float32.ONE) * LANE_LOW;
        uint256 alphas = uint256(Float32.canonical(alphaBits)) * LANE_LOW;
        assembly ("memory-safe") {
            let src := add(input, 32)
            let dst := add(output, 32)
            for { let offset := 0 } lt(offset, length) { offset := add(offset, 32) } {
                // Reading a final partial word reads past the tensor (harmless: those lanes are masked off below).
                let w := _swapLanes(mload(add(src, offset)))
                switch code // RELU = 1, STEP = 2, NEG = 3 (case labels must be literals)
                case 1 {
                    // Relu: integer max(bits, 0) per lane: lanes with the sign bit set become +0.
                    w := and(w, not(mul(shr(31, and(w, LANE_SIGN)), 0xffffffff)))
                }
                case 2 {
                    // Step: 1 where x > 0 (sign clear, not zero, not NaN), alpha elsewhere; NaN lanes are
                    // restored to NaN by the canonicalisation below.
                    let abs := and(w, LANE_ABS)
                    // abs + 0x7fffffff carries into the lane's bit 31 exactly when abs != 0 (never past it).
                    let nonZero := and(add(abs, LANE_ABS), LANE_SIGN)
                    let positive := and(nonZero, not(and(w, LANE_SIGN)))
                    let positiveMask := mul(shr(31, positive), 0xffffffff)
                    let nanMask := mul(shr(31, and(add(abs, LANE_NAN_BIAS), LANE_SIGN)), 0xffffffff)
                    // A NaN lane keeps its (NaN) input bits, which the canonicalisation below rewrites.
                    w := or(
                        and(w, nanMask),
                        and(not(nanMask), or(and(positiveMask, ones), and(not(positiveMask), alphas)))
                    )
                }
                default {
                    // Neg: flip every lane's sign bit.
                    w := xor(w, LANE_SIGN)
                }
                // Every NaN lane becomes 0x7fc00000: abs + 0x007fffff reaches the lane's bit 31 exactly when
                // abs > 0x7f800000 (and stays below 2^32, so no carry crosses into the next lane).
                let nanMask := mul(shr(31, and(add(and(w, LANE_ABS), LANE_NAN_BIAS), LANE_SIGN)), 0xffffffff)
                w := or(and(w, not(nanMask)), and(nanMask, 0x7fc000007fc000007fc000007fc000007fc000007fc000007fc000007fc00000))
                w := _swapLanes(w)
                // Zero the bytes past the tensor's end in a final partial word (they are the output's padding).
                let rest := sub(length, offset)
                if lt(rest, 32) { w := and(w, not(shr(shl(3, rest), not(0)))) }
                mstore(add(dst, offset), w)
            }

            /// Byte-reverses each 32-bit lane: little-endian tensor bytes <-> big-endian uint32 lanes.
            function _swapLanes(x) -> y {
                x := or(
                    shr(8, and(x, 0xff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00)),
                    shl(8, and(x, 0x00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff))
                )
                y := or(
                    shr(16, and(x, 0xffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000)),
                    shl(16, and(x, 0x0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff0000ffff))
                )
            }
        }
    }

    /// @dev Add, Sub, Mul with numpy broadcasting of `shapeA` and `shapeB` to `outputShape`.
    function _binary(
        uint256 code,
        bytes memory a,
        bytes memory b,
        uint32[] memory shapeA,
        uint32[] memory shapeB,
        uint32[] memory outputShape
    ) private pure returns (bytes memory output) {
        (uint256[] memory plan, uint256 dims) = _broadcastPlan(shapeA, shapeB, outputShape);
        output = new bytes(_elementCount(outputShape) * 4);
        if (output.length == 0) return output;
        if (dims == 0) {
            // Every dimension is 1: a single element.
            _row(code, _data(a), _data(b), _data(output), 1, 0, 0);
        } else {
            _rows(code, a, b, output, plan, dims);
        }
    }

    /// @dev Runs the output in rows along the innermost merged dimension, where each input advances by a fixed
    ///      stride (1, or 0 where it is broadcast): equal shapes and a single-element operand are one row, [B,H]+[H]
    ///      is B rows of H.
    function _rows(uint256 code, bytes memory a, bytes memory b, bytes memory output, uint256[] memory plan, uint256 dims)
        private
        pure
    {
        uint256 count = output.length / 4;
        uint256 rowLength = plan[0];
        unchecked {
            for (uint256 start = 0; start < count; start += rowLength) {
                (uint256 ia, uint256 ib) = _sourceIndices(plan, dims, start);
                _row(code, _data(a) + 4 * ia, _data(b) + 4 * ib, _data(output) + 4 * start, rowLength, plan[1], plan[2]);
            }
        }
    }

    /// @dev `length` output elements written from memory address `out` on, element t from the inputs' elements at
    ///      `pa + 4 * t * strideA` and `pb + 4 * t * strideB`.
    function _row(uint256 code, uint256 pa, uint256 pb, uint256 out, uint256 length, uint256 strideA, uint256 strideB)
        private
        pure
    {
        unchecked {
            strideA *= 4;
            strideB *= 4;
            for (uint256 end = out + 4 * length; out < end; out += 4) {
                uint32 x;
                uint32 y;
                assembly ("memory-safe") {
                    // Each element's four bytes land in the top of the loaded word; reverse them (little-endian).
                    x := shr(224, mload(pa))
                    x := or(shr(8, and(x, 0xff00ff00)), shl(8, and(x, 0x00ff00ff)))
                    x := or(shr(16, x), and(shl(16, x), 0xffff0000))
                    y := shr(224, mload(pb))
                    y := or(shr(8, and(y, 0xff00ff00)), shl(8, and(y, 0x00ff00ff)))
                    y := or(shr(16, y), and(shl(16, y), 0xffff0000))
                }
                uint32 r = code == ADD ? Float32.add(x, y) : code == SUB ? Float32.sub(x, y) : Float32.mul(x, y);
                assembly ("memory-safe") {
                    // Little-endian bytes of r in the top four bytes of the word. The store also zeroes the 28
                    // bytes after the element: they are later elements (written next, in order), the output's
                    // padding (which must be zero), or free memory past the output.
                    r := or(shr(8, and(r, 0xff00ff00)), shl(8, and(r, 0x00ff00ff)))
                    r := or(shr(16, r), and(shl(16, r), 0xffff0000))
                    mstore(out, shl(224, r))
                }
                pa += strideA;
                pb += strideB;
            }
        }
    }

    /// @dev A copy of `input` (Reshape and Identity: output bytes = input bytes).
    function _copy(bytes memory input) private pure returns (bytes memory output) {
        output = new bytes(input.length);
        assembly ("memory-safe") {
            mcopy(add(output, 32), add(input, 32), mload(input))
        }
    }

    // ------------------------------------------------------------------ broadcasting

    /**
     * @dev Maps output elements to input elements. Output dimensions of size 1 are dropped and adjacent
     *      dimensions that broadcast the same way (each input either spans the dimension or is broadcast along
     *      it) are merged, so [B,H]+[H] becomes two dimensions and equal shapes or a scalar operand one. `plan`
     *      holds, innermost dimension first, triples (size, strideA, strideB) where a stride is 0 along a
     *      broadcast dimension; `dims` is how many triples are used. Reverts NotBroadcastable unless the shapes
     *      broadcast (numpy rules: aligned from the right, each pair equal or one of them 1) to exactly
     *      `outputShape`.
     */
    function _broadcastPlan(uint32[] memory shapeA, uint32[] memory shapeB, uint32[] memory outputShape)
        private
        pure
        returns (uint256[] memory plan, uint256 dims)
    {
        uint256 rank = outputShape.length;
        uint256 rankA = shapeA.length;
        uint256 rankB = shapeB.length;
        if (rankA > rank || rankB > rank || (rankA != rank && rankB != rank)) {
            revert NotBroadcastable(shapeA, shapeB, outputShape);
        }
        plan = new uint256[](3 * (rank + 1));
        uint256 strideA = 1;
        uint256 strideB = 1;
        uint256 lastPattern = 4; // none yet
        unchecked {
            for (uint256 k = 0; k < rank; ++k) {
                uint256 out = outputShape[rank - 1 - k];
                uint256 da = k < rankA ? shapeA[rankA - 1 - k] : 1;
                uint256 db = k < rankB ? shapeB[rankB - 1 - k] : 1;
                // numpy: the output dimension is the inputs' common size, or the other one where one is 1.
                uint256 expected = da == 1 ? db : da;
                if ((da != db && da != 1 && db != 1) || expected != out) {
                    revert NotBroadcastable(shapeA, shapeB, outputShape);
                }
                if (out == 1) continue;
                // bit 0: A spans this dimension, bit 1: B spans it (else the input is broadcast along it).
                uint256 pattern = (da == out ? 1 : 0) | (db == out ? 2 : 0);
                if (pattern == lastPattern) {
                    plan[3 * (dims - 1)] *= out;
                } else {
                    plan[3 * dims] = out;
                    plan[3 * dims + 1] = pattern & 1 != 0 ? strideA : 0;
                    plan[3 * dims + 2] = pattern & 2 != 0 ? strideB : 0;
                    ++dims;
                    lastPattern = pattern;
                }
                if (pattern & 1 != 0) strideA *= out;
                if (pattern & 2 != 0) strideB *= out;
            }
        }
    }

    /// @dev The indices into A and B of output element `index` under `plan`.
    function _sourceIndices(uint256[] memory plan, uint256 dims, uint256 index)
        private
        pure
        returns (uint256 ia, uint256 ib)
    {
        assembly ("memory-safe") {
            let p := add(plan, 32)
            let rest := index
            // Every dimension but the outermost: coordinate = rest % size.
            for { let end := add(p, mul(sub(dims, 1), 96)) } lt(p, end) { p := add(p, 96) } {
                let size := mload(p)
                let c := mod(rest, size)
                rest := div(rest, size)
                ia := add(ia, mul(c, mload(add(p, 32))))
                ib := add(ib, mul(c, mload(add(p, 64))))
            }
            // The outermost dimension takes what is left (dims == 0: a single element, both indices 0).
            if dims {
                ia := add(ia, mul(rest, mload(add(p, 32))))
                ib := add(ib, mul(rest, mload(add(p, 64))))
            }
        }
    }

    // ------------------------------------------------------------------ memory helpers

    /// @dev The memory address of the first byte of `data`'s contents.
    function _data(bytes memory data) private pure returns (uint256 pointer) {
        assembly ("memory-safe") {
            pointer := add(data, 32)
        }
    }

    // ------------------------------------------------------------------ shapes and names

    /// @dev The product of the dimensions (1 for a scalar []), capped at COUNT_CAP; 0 if any dimension is 0.
    function _elementCount(uint32[] memory shape) private pure returns (uint256 count) {
        count = 1;
        unchecked {
            for (uint256 i = 0; i < shape.length; ++i) {
                uint256 d = shape[i];
                if (d == 0) return 0;
                count *= d; // < 2^64 * 2^32 before the cap below: no overflow
                if (count > COUNT_CAP) count = COUNT_CAP;
            }
        }
    }

    function _sameShape(uint32[] memory a, uint32[] memory b) private pure returns (bool) {
        if (a.length != b.length) return false;
        for (uint256 i = 0; i < a.length; ++i) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }

    function _kernelCode(string memory kernel) private pure returns (uint256) {
        bytes32 h = keccak256(bytes(kernel));
        if (h == keccak256("Relu")) return RELU;
        if (h == keccak256("Step")) return STEP;
        if (h == keccak256("Neg")) return NEG;
        if (h == keccak256("Add")) return ADD;
        if (h == keccak256("Sub")) return SUB;
        if (h == keccak256("Multiply") || h == keccak256("Mul")) return MUL;
        if (h == keccak256("Reshape")) return RESHAPE;
        if (h == keccak256("Identity")) return IDENTITY;
        return 0;
    }
}
