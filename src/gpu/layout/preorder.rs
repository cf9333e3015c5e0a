//! Preorder labels of a forest for the Euler-tour kernels, each tree's tour segment aligned to
//! a scan tile, and the scan plan's tiles per level (see the module above).

use super::Forest;
use crate::gpu::types::{NONE, TileInfo};
use analysis::scan_plan::{TILE, level_sizes};

/// Bit 31 of a preorder vertex's open position: the vertex is its tree's root (S[open − 1]
/// is then 0, not the previous segment's padding).
pub(crate) const ROOT_BIT: u32 = 1 << 31;

/// Preorder labels of a forest and its scan plan.
pub(crate) struct PreorderLayout {
    /// Label → global vertex.
    pub orig: Vec<u32>,
    /// Label → [open | ROOT_BIT at roots, close]: global positions in level 0.
    pub pos: Vec<[u32; 2]>,
    /// Level-0 position → 2 × label (+ 1 at a close); positions between segments hold 0 and
    /// are never read (past their tile's valid count).
    pub tour: Vec<u32>,
    /// The scan levels: elements held (level 0 = the Euler-tour vectors E) and their tiles.
    pub levels: Vec<ScanLevelLayout>,
    /// The chained plan's level 1: (first element, length) of each tree's tile totals, for
    /// the trees with more than one tile.
    pub chain_segments: Vec<[u32; 2]>,
}

pub(crate) struct ScanLevelLayout {
    pub len: usize,
    pub tiles: Vec<TileInfo>,
}

impl PreorderLayout {
    pub fn new(forest: &Forest) -> PreorderLayout {
        let tile = TILE;
        let plans: Vec<Vec<usize>> = forest
            .trees
            .iter()
            .map(|t| level_sizes(2 * t.len()))
            .collect();
        let depth = plans.iter().map(Vec::len).max().unwrap_or(0);
        // First tile of each tree's segment at each level (trees with that level).
        let mut base = vec![vec![NONE as usize; plans.len()]; depth];
        let mut levels: Vec<ScanLevelLayout> = Vec::with_capacity(depth);
        for (k, bases) in base.iter_mut().enumerate() {
            let mut tiles = 0;
            let mut len = 0;
            for (j, plan) in plans.iter().enumerate() {
                if let Some(&l) = plan.get(k) {
                    bases[j] = tiles;
                    len = tiles * tile + l;
                    tiles += l.div_ceil(tile);
                }
            }
            levels.push(ScanLevelLayout {
                len,
                tiles: Vec::with_capacity(tiles),
            });
        }
        for k in 0..depth {
            for (j, plan) in plans.iter().enumerate() {
                let Some(&l) = plan.get(k) else { continue };
                let up = plan.get(k + 1).map(|_| base[k + 1][j] * tile);
                for t in 0..l.div_ceil(tile) {
                    let dst = up.map(|u| u + t);
                    levels[k].tiles.push(TileInfo {
                        valid: (l - t * tile).min(tile) as u32,
                        total_dst: dst.map_or(NONE, |x| x as u32),
                        prefix_src: dst.filter(|_| t > 0).map_or(NONE, |x| x as u32 - 1),
                        pad0: 0,
                    });
                }
            }
        }
        let chain_segments = plans
            .iter()
            .enumerate()
            .filter_map(|(j, plan)| Some([(base.get(1)?[j] * tile) as u32, *plan.get(1)? as u32]))
            .collect();
        let n = forest.len();
        let mut orig = Vec::with_capacity(n);
        let mut pos = Vec::with_capacity(n);
        let mut tour = vec![0u32; levels.first().map_or(0, |l| l.len)];
        for (j, t) in forest.trees.iter().enumerate() {
            let e = (base[0][j] * tile) as u32;
            for &v in t.preorder() {
                let label = orig.len() as u32;
                orig.push((forest.offsets[j] + v as usize) as u32);
                let (open, close) = (e + t.open()[v as usize], e + t.close()[v as usize]);
                tour[open as usize] = 2 * label;
                tour[close as usize] = 2 * label + 1;
                let root = if v == t.root() { ROOT_BIT } else { 0 };
                pos.push([open | root, close]);
            }
        }
        PreorderLayout {
            orig,
            pos,
            tour,
            levels,
            chain_segments,
        }
    }
}
