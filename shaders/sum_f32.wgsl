// Prelude of the scan shaders for f32 sums (vectorial, vectorial-chained): Sum = f32, one addition of the accumulation format each (acc_add); CPU twin: the f32 ScanValue of analysis::orders.

alias Sum = f32;

fn sum_zero() -> Sum {
    return 0.0;
}

fn sum_term(x: f32) -> Sum {
    return x;
}

fn sum_add(a: Sum, b: Sum) -> Sum {
    return acc_add(a, b);
}

// a - b is a + (-b) in IEEE arithmetic, bit for bit.
fn sum_neg(a: Sum) -> Sum {
    return -a;
}

fn sum_round(a: Sum) -> f32 {
    return a;
}
