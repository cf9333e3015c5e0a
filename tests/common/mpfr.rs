//! The exact treefix summed in MPFR, independently of the fixed-point walk (vectorial-exact's
//! twin) and of the exact reference, and rounded once to nearest f32.

use analysis::Op;
use generators::Tree;
use rug::Float;
use rug::float::Round;

/// Enough bits for any sum of up to 2^31 f32 values exactly (2^-149 … 2^159).
pub const PREC: u32 = 320;

/// The exact rootfix or leaffix of every vertex, in MPFR, rounded once to nearest f32.
pub fn mpfr_treefix(tree: &Tree, w: &[f32], op: Op) -> Vec<f32> {
    let n = tree.len();
    let mut exact: Vec<Float> = w.iter().map(|&x| Float::with_val(PREC, x)).collect();
    match op {
        // Preorder: the parent's path sum is final before its children's.
        Op::Rootfix => {
            for &v in tree.preorder() {
                let p = tree.parents()[v as usize];
                if p != generators::NO_PARENT {
                    let above = exact[p as usize].clone();
                    exact[v as usize] += above;
                }
            }
        }
        // Postorder: every child's subtree sum is final before its parent's.
        Op::Leaffix => {
            for &v in tree.postorder() {
                let p = tree.parents()[v as usize];
                if p != generators::NO_PARENT {
                    let below = exact[v as usize].clone();
                    exact[p as usize] += below;
                }
            }
        }
    }
    assert_eq!(exact.len(), n);
    exact
        .iter()
        .map(|x| x.to_f32_round(Round::Nearest))
        .collect()
}

/// Same bits, except that an exact zero is +0 here and may be −0 in MPFR (a sum of −0 terms).
pub fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a == 0.0 && b == 0.0)
}
