// Prelude of the scan shaders for fixed-point sums (vectorial-exact): Sum = LIMBS u32 limbs (least significant first) of a two's-complement integer in units of 2^exact_unit(), added with carries found by comparison, rounded once to the nearest f32, ties to even; CPU twin: generators::fixed::Fixed (64-bit limbs: the same integers; its 32-bit words are these) and its round_f32_at.
//
// WGSL has no u64 and no add-with-carry: a carry out of a + b is (a + b) < a after the wrap.
// The host prepends LIMBS (the scale's limb count) and THREAD_ITEMS; each stage file defines
// exact_unit() from its uniform. Names unlike the stage files' module-scope ones (s, t, w).

alias Sum = array<u32, LIMBS>;

fn sum_zero() -> Sum {
    return Sum();
}

fn sum_add(a: Sum, b: Sum) -> Sum {
    var x = a;
    var y = b;
    var r = Sum();
    var carry = 0u;
    for (var i = 0u; i < LIMBS; i = i + 1u) {
        let part = x[i] + y[i];
        let c1 = select(0u, 1u, part < x[i]);
        let whole = part + carry;
        let c2 = select(0u, 1u, whole < part);
        r[i] = whole;
        carry = c1 | c2;
    }
    return r;
}

// Two's-complement negation: every bit flipped, one added.
fn sum_neg(a: Sum) -> Sum {
    var x = a;
    var r = Sum();
    var carry = 1u;
    for (var i = 0u; i < LIMBS; i = i + 1u) {
        let y = ~x[i] + carry;
        carry = select(0u, 1u, y < carry);
        r[i] = y;
    }
    return r;
}

// A finite weight as an integer multiple of the unit: its 24-bit significand shifted into
// place (two limbs at most), negated for a negative weight; +0 and -0 are 0.
fn sum_term(x: f32) -> Sum {
    var r = Sum();
    let bits = bitcast<u32>(x);
    if (bits & 0x7fffffffu) == 0u {
        return r;
    }
    let biased = (bits >> 23u) & 0xffu;
    var m = bits & 0x7fffffu;
    var low = -149;
    if biased != 0u {
        m = m | 0x800000u;
        low = i32(biased) - 150;
    }
    let shift = u32(low - exact_unit());
    let at = shift / 32u;
    let off = shift % 32u;
    r[at] = m << off;
    if off > 8u && at + 1u < LIMBS {
        r[at + 1u] = m >> (32u - off);
    }
    if (bits >> 31u) != 0u {
        return sum_neg(r);
    }
    return r;
}

// Bit i of the magnitude k.
fn limbs_bit(k: Sum, i: u32) -> u32 {
    var x = k;
    return (x[i / 32u] >> (i % 32u)) & 1u;
}

// Whether a bit of k below bit i is set.
fn limbs_any_below(k: Sum, i: u32) -> bool {
    var x = k;
    let at = i / 32u;
    let off = i % 32u;
    var any = false;
    for (var j = 0u; j < at; j = j + 1u) {
        any = any || x[j] != 0u;
    }
    if off > 0u {
        any = any || (x[at] & ((1u << off) - 1u)) != 0u;
    }
    return any;
}

// Bits i .. i + 32 of k.
fn limbs_window(k: Sum, i: u32) -> u32 {
    var x = k;
    let at = i / 32u;
    let off = i % 32u;
    var r = x[at] >> off;
    if off > 0u && at + 1u < LIMBS {
        r = r | (x[at + 1u] << (32u - off));
    }
    return r;
}

// k * 2^unit to the nearest f32, ties to even; +-inf beyond f32's range, subnormals as IEEE
// has them, +0 for 0 (the result of generators::fixed::Fixed::round_f32_at).
fn sum_round(a: Sum) -> f32 {
    return sum_round_to(a, false);
}

// k * 2^unit rounded to odd in f32 (kept bits, the last one set if any dropped bit is; past
// f32's range its largest finite value): rounded to nearest once more in a format of p bits,
// p + 2 <= 24 (f16, bf16, whose grids are coarser than f32's in their subnormal range too),
// it is k * 2^unit rounded to nearest in that format (Boldo and Melquiond, 2008).
fn sum_round_odd(a: Sum) -> f32 {
    return sum_round_to(a, true);
}

fn sum_round_to(a: Sum, odd: bool) -> f32 {
    var k = a;
    let negative = (k[LIMBS - 1u] >> 31u) != 0u;
    if negative {
        k = sum_neg(k);
    }
    var top = -1;
    for (var i = 0u; i < LIMBS; i = i + 1u) {
        if k[i] != 0u {
            top = i32(i);
        }
    }
    if top < 0 {
        return 0.0;
    }
    let sign = select(0u, 0x80000000u, negative);
    let length = 32u * u32(top) + 32u - countLeadingZeros(k[top]);
    // The exponents of the leading bit and of the result's last bit.
    let lead = i32(length) - 1 + exact_unit();
    if lead > 127 {
        return bitcast<f32>(sign | select(0x7f800000u, 0x7f7fffffu, odd));
    }
    let last = max(lead - 23, -149);
    let drop = last - exact_unit();
    var significand = 0u;
    if drop <= 0 {
        significand = k[0] << u32(-drop);
    } else {
        let d = u32(drop);
        let keep = limbs_window(k, d);
        let half = limbs_bit(k, d - 1u) == 1u;
        let sticky = limbs_any_below(k, d - 1u);
        if odd {
            significand = keep | select(0u, 1u, half || sticky);
        } else {
            significand = keep + select(0u, 1u, half && (sticky || (keep & 1u) == 1u));
        }
    }
    // The significand with its leading one carries into the exponent field one below.
    significand = (u32(last + 149) << 23u) + significand;
    return bitcast<f32>(sign | min(significand, 0x7f800000u));
}
