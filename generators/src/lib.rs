//! Inputs of every experiment: the tree model, seeded topologies, tree file readers and
//! weight models, including the Ogita–Rump–Oishi ill-conditioned sum generator.

pub mod exact_sum;
pub mod gensum;
pub mod topology;
pub mod tree;
pub mod weights;

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
