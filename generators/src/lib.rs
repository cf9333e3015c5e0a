//! Inputs of every experiment: the tree model, seeded topologies, tree file readers and
//! weight models, including the Ogita–Rump–Oishi ill-conditioned sum generator.

pub mod exact_sum;
pub mod fixed;
pub mod gensum;
pub mod io;
pub mod precision;
pub mod topology;
pub mod tree;
pub mod weights;

pub use io::{ReadError, ReadOptions, TreeFile, TreeStats, read_tree};
pub use precision::{Arithmetic, Precision};
pub use topology::Topology;
pub use tree::{ChildOrder, NO_PARENT, Tree, TreeError};
pub use weights::WeightModel;

/// The portable, seedable generator used for everything random: ChaCha20's stream is fixed by
/// its specification, so the same seed gives the same bytes on every platform and version.
pub type Rng = rand_chacha::ChaCha20Rng;

/// A generator seeded from a 64-bit seed.
pub fn rng(seed: u64) -> Rng {
    use rand::SeedableRng;
    Rng::seed_from_u64(seed)
}

/// The seed of the `index`-th instance of a run seeded with `base` (SplitMix64 of both):
/// every tree of a sweep can be regenerated alone from its own seed.
pub fn derive_seed(base: u64, index: u64) -> u64 {
    let mut z = base
        ^ index
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
