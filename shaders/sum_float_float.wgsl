// Prelude of the scan shaders for float-float sums (vectorial-compensated): Sum = (hi, lo) of f32, added with the accurate double-word addition of Joldes, Muller and Popescu (2017, Algorithm 6); CPU twin: analysis::float_float.
//
// Every line is one IEEE f32 operation the twin performs in the same order: no FMA can
// form (there are no products) and WGSL does not reassociate. (hi, lo) is normalized
// (hi = RN(hi + lo)), so rounding to f32 is taking hi.

alias Sum = vec2<f32>;

fn sum_zero() -> Sum {
    return vec2<f32>(0.0, 0.0);
}

fn sum_term(x: f32) -> Sum {
    return vec2<f32>(x, 0.0);
}

// Knuth's TwoSum: s + e = a + b exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = a + b;
    let a1 = s - b;
    let b1 = s - a1;
    let da = a - a1;
    let db = b - b1;
    return vec2<f32>(s, da + db);
}

// Dekker's Fast2Sum (|a| >= |b| or a = 0, as the callers guarantee).
fn fast_two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = a + b;
    let z = s - a;
    return vec2<f32>(s, b - z);
}

// AccurateDWPlusDW: relative error <= 3u^2 / (1 - 4u).
fn sum_add(x: Sum, y: Sum) -> Sum {
    let s = two_sum(x.x, y.x);
    let t = two_sum(x.y, y.y);
    let c = s.y + t.x;
    let v = fast_two_sum(s.x, c);
    let w = t.y + v.y;
    return fast_two_sum(v.x, w);
}

fn sum_neg(a: Sum) -> Sum {
    return -a;
}

fn sum_round(a: Sum) -> f32 {
    return a.x;
}
