// Prelude of the scan shaders for float-float sums (vectorial-compensated): Sum = (hi, lo) of f32, added with the accurate double-word addition of Joldes, Muller and Popescu (2017, Algorithm 6); CPU twin: analysis::float_float.
//
// Every line is one IEEE f32 operation the twin performs in the same order: no FMA can
// form (there are no products). WGSL has no `precise`, and shader compilers do rewrite
// (a + b) - b into a (Mesa's NIR did, silently turning TwoSum into nonsense), so each sum a
// later subtraction undoes goes through `opaque`: its bits XORed with a uniform zero
// (`opaque_zero()`, defined by each stage file), which no compiler can see through. (hi, lo)
// is normalized (hi = RN(hi + lo)), so rounding to f32 is taking hi.

alias Sum = vec2<f32>;

fn sum_zero() -> Sum {
    return vec2<f32>(0.0, 0.0);
}

fn sum_term(x: f32) -> Sum {
    return vec2<f32>(x, 0.0);
}

// x, bit for bit, where the compiler cannot prove it.
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ opaque_zero());
}

// Knuth's TwoSum: s + e = a + b exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let sum = opaque(a + b);
    let a1 = opaque(sum - b);
    let b1 = sum - a1;
    let da = a - a1;
    let db = b - b1;
    return vec2<f32>(sum, da + db);
}

// Dekker's Fast2Sum (|a| >= |b| or a = 0, as the callers guarantee).
fn fast_two_sum(a: f32, b: f32) -> vec2<f32> {
    let sum = opaque(a + b);
    let z = opaque(sum - a);
    return vec2<f32>(sum, b - z);
}

// AccurateDWPlusDW: relative error <= 3u^2 / (1 - 4u).
fn sum_add(x: Sum, y: Sum) -> Sum {
    // Names unlike the stage files' module-scope ones (s, t, w).
    let hi = two_sum(x.x, y.x);
    let lo = two_sum(x.y, y.y);
    let c = hi.y + lo.x;
    let v = fast_two_sum(hi.x, c);
    let e = lo.y + v.y;
    return fast_two_sum(v.x, e);
}

fn sum_neg(a: Sum) -> Sum {
    return -a;
}

fn sum_round(a: Sum) -> f32 {
    return a.x;
}
