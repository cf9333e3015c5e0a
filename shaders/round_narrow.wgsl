// The f16 and bf16 roundings of an f32, to nearest with ties to even, in integer arithmetic (no 16-bit float needed on the device); CPU twin: generators::Precision::round_f32.
//
// Each returns the f32 that holds the rounded value: a kernel stores and adds f16 and bf16 as
// f32 words, each f32 sum rounded once more to the format, which is the format's own sum
// (f32 has at least 2p + 2 bits for both: docs/design.md §8). ±∞ and NaN pass through.

// Binary16: 11 bits, normal from 2^-14, subnormals in steps of 2^-24, beyond 65504 +
// half an ulp ±∞.
fn round_f16(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let sign = bits & 0x80000000u;
    let a = bits & 0x7fffffffu;
    if a >= 0x7f800000u {
        return x;
    }
    if a >= 0x38800000u {
        // Normal in f16: 13 of f32's 23 fraction bits go, ties to even; a carry may bump the
        // exponent, past f16's largest finite value to ∞.
        let r = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
        if r > 0x477fe000u {
            return bitcast<f32>(sign | 0x7f800000u);
        }
        return bitcast<f32>(sign | r);
    }
    // Below 2^-14: k·2^-24 with k the significand shifted right, to nearest, ties to even.
    let e = a >> 23u;
    var k = 0u;
    if e >= 102u {
        let m = (a & 0x7fffffu) | 0x800000u;
        let s = 126u - e;
        let rest = m & ((1u << s) - 1u);
        let half = 1u << (s - 1u);
        k = m >> s;
        if rest > half || (rest == half && (k & 1u) == 1u) {
            k = k + 1u;
        }
    }
    return bitcast<f32>(sign | bitcast<u32>(f32(k) * 5.9604644775390625e-8));
}

// bfloat16: f32's exponent range with 8 bits; 16 of the 23 fraction bits go, ties to even,
// subnormals included, a carry past the largest finite value giving ∞.
fn round_bf16(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    if (bits & 0x7fffffffu) >= 0x7f800000u {
        return x;
    }
    return bitcast<f32>((bits + 0x7fffu + ((bits >> 16u) & 1u)) & 0xffff0000u);
}
