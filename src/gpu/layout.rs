//! Host-side preparation of an uploaded tree, or of a forest of trees computed in one go:
//! the relabelings that make the kernels' memory accesses coalesced, and the plans (which
//! dispatch does what) the kernels follow. Relabeling changes where values live, never which
//! f32 additions are performed nor their order.
//!
//! - [`BfsLayout`]: breadth-first labels for the level-synchronous kernels. Level d of the
//!   forest (level d of every tree, trees in job order) is a contiguous range of labels, and
//!   the children of a vertex are a contiguous range of the level below, in child order.
//! - [`LevelPlan`]: the dispatches of parallel rootfix (top-down) or leaffix (bottom-up):
//!   runs of narrow levels (at most a workgroup's width) walked by one workgroup in windows
//!   that fit in workgroup memory, wider levels one dispatch each (one SM alone would take
//!   longer than a dispatch), high-degree vertices gathered by a workgroup.
//! - [`PreorderLayout`]: preorder labels for the vectorial kernel, each tree's Euler-tour
//!   segment aligned to a scan tile, and the scan plan's tiles per level (a tree's prefixes
//!   never cross into another tree's segment).

use super::shaders::Sizes;
use super::types::{GatherTask, LevelDispatch, NONE, Step, TileInfo, Window, WindowDispatch};
use analysis::scan_plan::{TILE, level_sizes};
use generators::Tree;

/// Bit 31 of a preorder vertex's open position: the vertex is its tree's root (S[open − 1]
/// is then 0, not the previous segment's padding).
pub(crate) const ROOT_BIT: u32 = 1 << 31;

/// A level is processed by one invocation without barriers (a serial step) when its vertices
/// plus, for leaffix, their children are at most this many.
const SERIAL_WORK: u32 = 8;

/// Trees laid end to end: vertex v of tree j is global vertex `offsets[j] + v`, its index in
/// the weight and result buffers.
pub(crate) struct Forest<'a> {
    pub trees: Vec<&'a Tree>,
    pub offsets: Vec<usize>,
}

impl<'a> Forest<'a> {
    pub fn new(trees: Vec<&'a Tree>) -> Forest<'a> {
        let mut offsets = Vec::with_capacity(trees.len() + 1);
        offsets.push(0);
        for t in &trees {
            offsets.push(offsets.last().unwrap() + t.len());
        }
        Forest { trees, offsets }
    }

    /// Vertices in all.
    pub fn len(&self) -> usize {
        *self.offsets.last().unwrap()
    }
}

/// Breadth-first labels of a forest.
pub(crate) struct BfsLayout {
    /// Label → global vertex.
    pub orig: Vec<u32>,
    /// Label → the parent's label (`NONE` at roots).
    pub parent: Vec<u32>,
    /// The children of label i are labels `child_start[i] .. child_start[i + 1]` (n + 1 entries).
    pub child_start: Vec<u32>,
    /// Level d is labels `level_start[d] .. level_start[d + 1]` (levels + 1 entries).
    pub level_start: Vec<u32>,
}

impl BfsLayout {
    pub fn new(forest: &Forest) -> BfsLayout {
        let n = forest.len();
        let levels = forest
            .trees
            .iter()
            .map(|t| t.num_levels())
            .max()
            .unwrap_or(0);
        let mut orig = Vec::with_capacity(n);
        let mut level_start = Vec::with_capacity(levels + 1);
        let mut label = vec![0u32; n];
        for d in 0..levels {
            level_start.push(orig.len() as u32);
            for (j, t) in forest.trees.iter().enumerate() {
                if d < t.num_levels() {
                    for &v in t.level(d) {
                        let g = forest.offsets[j] + v as usize;
                        label[g] = orig.len() as u32;
                        orig.push(g as u32);
                    }
                }
            }
        }
        level_start.push(n as u32);
        let mut parent = vec![NONE; n];
        let mut degree = vec![0u32; n];
        for (j, t) in forest.trees.iter().enumerate() {
            let off = forest.offsets[j];
            for v in 0..t.len() as u32 {
                let i = label[off + v as usize] as usize;
                if let Some(p) = t.parent(v) {
                    parent[i] = label[off + p as usize];
                }
                degree[i] = t.children(v).len() as u32;
            }
        }
        // The level below lists the children of each level's vertices in order (frontier
        // order, then child order): running sums of the degrees from the end of level 0.
        let mut child_start = Vec::with_capacity(n + 1);
        let mut next = level_start.get(1).copied().unwrap_or(n as u32);
        for &d in &degree {
            child_start.push(next);
            next += d;
        }
        child_start.push(next);
        debug_assert_eq!(next as usize, n);
        BfsLayout {
            orig,
            parent,
            child_start,
            level_start,
        }
    }

    pub fn levels(&self) -> usize {
        self.level_start.len() - 1
    }

    fn size(&self, d: usize) -> u32 {
        if d < self.levels() {
            self.level_start[d + 1] - self.level_start[d]
        } else {
            0
        }
    }
}

/// One dispatch of a level plan, in execution order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Planned {
    /// `narrow[index]`, one workgroup.
    Narrow(usize),
    /// `wide[index]` with `groups` workgroups.
    Wide { index: usize, groups: u32 },
}

/// The dispatches of one parallel op on one forest.
#[derive(Debug, Default)]
pub(crate) struct LevelPlan {
    pub windows: Vec<Window>,
    pub steps: Vec<Step>,
    pub tasks: Vec<GatherTask>,
    pub narrow: Vec<WindowDispatch>,
    pub wide: Vec<LevelDispatch>,
    pub order: Vec<Planned>,
}

impl LevelPlan {
    /// Rootfix, top-down.
    pub fn rootfix(bfs: &BfsLayout, sizes: &Sizes) -> LevelPlan {
        let mut plan = LevelPlan::default();
        let ls = &bfs.level_start;
        let levels = bfs.levels();
        let cap = sizes.narrow_cap - 2;
        let narrow = |d: usize| bfs.size(d) <= sizes.narrow_level.min(cap);
        let mut d = 0;
        while d < levels {
            if !narrow(d) {
                plan.push_wide(
                    LevelDispatch {
                        vertex_first: ls[d],
                        vertex_end: ls[d + 1],
                        task_first: 0,
                        task_end: 0,
                    },
                    bfs.size(d).div_ceil(sizes.wg),
                );
                d += 1;
                continue;
            }
            let mut run = Run::new(&plan, sizes.loop_budget);
            while d < levels && narrow(d) {
                let d0 = d;
                while d < levels && narrow(d) && ls[d + 1] - ls[d0] <= cap {
                    d += 1;
                }
                let step_first = plan.steps.len() as u32;
                let mut cost = window_cost(ls[d] - ls[d0], d - d0, sizes.wg);
                for level in d0..d {
                    let serial = bfs.size(level) <= SERIAL_WORK;
                    plan.push_level_step(level, serial, step_first);
                    cost += 2 + bfs.size(level) as u64;
                }
                let window = Window {
                    level_first: d0 as u32,
                    level_end: d as u32,
                    vertex_first: ls[d0],
                    vertex_end: ls[d],
                    stage_end: ls[d],
                    step_first,
                    step_end: plan.steps.len() as u32,
                    pad0: 0,
                };
                run.push(&mut plan, window, cost);
            }
            run.finish(&mut plan);
        }
        plan
    }

    /// Leaffix, bottom-up.
    pub fn leaffix(bfs: &BfsLayout, sizes: &Sizes) -> LevelPlan {
        let mut plan = LevelPlan::default();
        let ls = &bfs.level_start;
        let levels = bfs.levels();
        let cap = sizes.narrow_cap - 2;
        // A narrow level's vertices and their children fit in one window.
        let narrow =
            |d: usize| bfs.size(d) <= sizes.narrow_level && bfs.size(d) + bfs.size(d + 1) <= cap;
        let mut d = levels;
        while d > 0 {
            let deepest = d - 1;
            if !narrow(deepest) {
                plan.push_wide_gathers(bfs, deepest, sizes);
                d -= 1;
                continue;
            }
            let mut run = Run::new(&plan, sizes.loop_budget);
            while d > 0 && narrow(d - 1) {
                // Levels [d0, d1) and the values of level d1 (their children).
                let d1 = d;
                let stage_end = ls[(d1 + 1).min(levels)];
                let mut d0 = d1 - 1;
                while d0 > 0 && narrow(d0 - 1) && stage_end - ls[d0 - 1] <= cap {
                    d0 -= 1;
                }
                let step_first = plan.steps.len() as u32;
                let mut cost = window_cost(stage_end - ls[d0], d1 - d0, sizes.wg);
                for level in (d0..d1).rev() {
                    let (size, below) = (bfs.size(level), bfs.size(level + 1));
                    plan.push_level_step(level, size + below <= SERIAL_WORK, step_first);
                    cost += leaffix_level_cost(size, below);
                }
                let window = Window {
                    level_first: d0 as u32,
                    level_end: d1 as u32,
                    vertex_first: ls[d0],
                    vertex_end: ls[d1],
                    stage_end,
                    step_first,
                    step_end: plan.steps.len() as u32,
                    pad0: 0,
                };
                run.push(&mut plan, window, cost);
                d = d0;
            }
            run.finish(&mut plan);
        }
        plan
    }

    fn push_wide(&mut self, params: LevelDispatch, groups: u32) {
        self.order.push(Planned::Wide {
            index: self.wide.len(),
            groups,
        });
        self.wide.push(params);
    }

    /// Adds `level` to the window's steps (those from `step_first`): merged with the previous
    /// step when both are serial or both parallel (steps are built in processing order).
    fn push_level_step(&mut self, level: usize, serial: bool, step_first: u32) {
        let level = level as u32;
        let serial = serial as u32;
        if self.steps.len() > step_first as usize
            && let Some(last) = self.steps.last_mut()
            && last.serial == serial
            && (last.level_end == level || last.level_first == level + 1)
        {
            last.level_first = last.level_first.min(level);
            last.level_end = last.level_end.max(level + 1);
            return;
        }
        self.steps.push(Step {
            level_first: level,
            level_end: level + 1,
            serial,
            pad0: 0,
        });
    }

    /// One wide leaffix level: a thread per vertex of degree below `gather_min_degree`, a
    /// workgroup per vertex above, in chunks of `gather_chunk` children (chunk k ≥ 1 in the
    /// k-th following dispatch, resuming the running sum).
    fn push_wide_gathers(&mut self, bfs: &BfsLayout, d: usize, sizes: &Sizes) {
        let (first, end) = (bfs.level_start[d], bfs.level_start[d + 1]);
        let cs = &bfs.child_start;
        let big: Vec<u32> = (first..end)
            .filter(|&i| cs[i as usize + 1] - cs[i as usize] >= sizes.gather_min_degree)
            .collect();
        let chunk = sizes.gather_chunk;
        let chunks = big
            .iter()
            .map(|&i| (cs[i as usize + 1] - cs[i as usize]).div_ceil(chunk))
            .max()
            .unwrap_or(1)
            .max(1);
        for k in 0..chunks {
            let task_first = self.tasks.len() as u32;
            for &i in &big {
                let (c0, c1) = (cs[i as usize], cs[i as usize + 1]);
                if c1 - c0 > k * chunk {
                    self.tasks.push(GatherTask {
                        vertex: i,
                        child_first: c0 + k * chunk,
                        child_end: c1.min(c0 + (k + 1) * chunk),
                        resume: (k > 0) as u32,
                    });
                }
            }
            let tasks = self.tasks.len() as u32 - task_first;
            let (vertex_first, vertex_end) = if k == 0 { (first, end) } else { (0, 0) };
            self.push_wide(
                LevelDispatch {
                    vertex_first,
                    vertex_end,
                    task_first,
                    task_end: task_first + tasks,
                },
                tasks + (vertex_end - vertex_first).div_ceil(sizes.wg),
            );
        }
    }
}

// Loop costs count what llvmpipe's loop limiter can count: every pass through a loop's back
// edge, one more than the iterations (the pass that finds the condition false still runs
// the body, masked off), so a loop that runs k times costs k + 1, one that never runs 1.

/// An upper bound on the loop iterations one invocation runs for a window's staging and
/// write-back of `words` values over `levels` levels (the steps add their own): the window
/// loop, level starts, staging (outer loop and its two inner loops of four), write-back.
fn window_cost(words: u32, levels: usize, wg: u32) -> u64 {
    20 + 4 * (words as u64 + levels as u64).div_ceil(wg as u64)
}

/// An upper bound on the loop iterations one invocation runs for one leaffix level of
/// `size` vertices (at most a workgroup) whose children are the `below` vertices of the next
/// level, serial or parallel, its step's loops included. Serial: the walk over the vertices
/// (size + 1) and each vertex's children (its children + 1), 2 size + below + 1 in all.
/// Parallel: the level loop, this invocation's vertices (at most 2) and their children (at
/// most below + 1). The former charge, 2 + size + below (10 for a level of four chains), let
/// a dispatch of 5 611 such levels be planned within the budget; lavapipe cut it short after
/// 5 161 levels (about 12.7 iterations each with the windows' own): a silently wrong leaffix.
fn leaffix_level_cost(size: u32, below: u32) -> u64 {
    4 + 2 * size as u64 + below as u64
}

/// Consecutive windows of one run of narrow levels, cut into dispatches whose loop
/// iterations stay within the budget.
struct Run {
    budget: u64,
    first: usize,
    cost: u64,
}

impl Run {
    fn new(plan: &LevelPlan, budget: u64) -> Run {
        Run {
            budget,
            first: plan.windows.len(),
            cost: 0,
        }
    }

    fn push(&mut self, plan: &mut LevelPlan, window: Window, cost: u64) {
        if self.cost > 0 && self.cost.saturating_add(cost) > self.budget {
            self.finish(plan);
        }
        plan.windows.push(window);
        self.cost = self.cost.saturating_add(cost);
    }

    fn finish(&mut self, plan: &mut LevelPlan) {
        let end = plan.windows.len();
        if end > self.first {
            plan.order.push(Planned::Narrow(plan.narrow.len()));
            plan.narrow.push(WindowDispatch {
                window_first: self.first as u32,
                window_end: end as u32,
                pad0: 0,
                pad1: 0,
            });
        }
        self.first = end;
        self.cost = 0;
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use generators::{ChildOrder, Topology};

    fn sizes(cap: u32, budget: u64) -> Sizes {
        Sizes {
            wg: 4,
            items: 4,
            tile: 16,
            narrow_cap: cap,
            narrow_level: 5,
            gather_min_degree: 3,
            gather_chunk: 5,
            loop_budget: budget,
        }
    }

    fn trees() -> Vec<Tree> {
        let mut all = Vec::new();
        for (i, topology) in Topology::all_defaults().into_iter().enumerate() {
            for order in ChildOrder::ALL {
                for n in [1, 2, 7, 60] {
                    let t = topology
                        .generate(n, order, &mut generators::rng(i as u64 + n as u64))
                        .unwrap();
                    all.push(t);
                }
            }
        }
        all
    }

    /// Breadth-first labels: levels contiguous, children contiguous and in child order,
    /// parents consistent, for single trees and for a forest of all of them.
    #[test]
    fn bfs_labels_keep_levels_and_child_order() {
        let all = trees();
        let mut forests: Vec<Vec<&Tree>> = all.iter().map(|t| vec![t]).collect();
        forests.push(all.iter().collect());
        for trees in forests {
            let forest = Forest::new(trees);
            let bfs = BfsLayout::new(&forest);
            let n = forest.len();
            let mut label = vec![0u32; n];
            for (i, &g) in bfs.orig.iter().enumerate() {
                label[g as usize] = i as u32;
            }
            for (j, t) in forest.trees.iter().enumerate() {
                let off = forest.offsets[j];
                for v in 0..t.len() as u32 {
                    let i = label[off + v as usize] as usize;
                    let d = t.depth(v) as usize;
                    assert!(
                        bfs.level_start[d] as usize <= i && i < bfs.level_start[d + 1] as usize
                    );
                    let kids: Vec<u32> = t
                        .children(v)
                        .iter()
                        .map(|&c| label[off + c as usize])
                        .collect();
                    let range: Vec<u32> = (bfs.child_start[i]..bfs.child_start[i + 1]).collect();
                    assert_eq!(kids, range);
                    for &c in &kids {
                        assert_eq!(bfs.parent[c as usize], i as u32);
                    }
                }
            }
        }
    }

    /// Every level of the forest is covered once by the plan, in the op's order, every
    /// window fits the capacity, every high-degree vertex's children are gathered once in
    /// order, and runs respect the loop budget.
    #[test]
    fn plans_cover_every_level_in_order() {
        let all = trees();
        let forest = Forest::new(all.iter().collect());
        let bfs = BfsLayout::new(&forest);
        for (cap, budget) in [(6, u64::MAX), (12, 40), (64, 200), (4096, u64::MAX)] {
            let s = sizes(cap, budget);
            for leaffix in [false, true] {
                let plan = if leaffix {
                    LevelPlan::leaffix(&bfs, &s)
                } else {
                    LevelPlan::rootfix(&bfs, &s)
                };
                let mut seen = Vec::new();
                let mut gathered = vec![Vec::new(); forest.len()];
                for p in &plan.order {
                    match *p {
                        Planned::Narrow(k) => {
                            let run = plan.narrow[k];
                            assert!(run.window_end > run.window_first);
                            for win in
                                &plan.windows[run.window_first as usize..run.window_end as usize]
                            {
                                assert!(win.stage_end - win.vertex_first <= cap - 2);
                                assert_eq!(
                                    win.vertex_first,
                                    bfs.level_start[win.level_first as usize]
                                );
                                assert_eq!(win.vertex_end, bfs.level_start[win.level_end as usize]);
                                for step in
                                    &plan.steps[win.step_first as usize..win.step_end as usize]
                                {
                                    assert!(
                                        win.level_first <= step.level_first
                                            && step.level_end <= win.level_end
                                    );
                                    let mut levels: Vec<u32> =
                                        (step.level_first..step.level_end).collect();
                                    if leaffix {
                                        levels.reverse();
                                    }
                                    seen.extend(levels);
                                }
                            }
                        }
                        Planned::Wide { index, groups } => {
                            let w = plan.wide[index];
                            let tasks = &plan.tasks[w.task_first as usize..w.task_end as usize];
                            assert_eq!(
                                groups,
                                tasks.len() as u32 + (w.vertex_end - w.vertex_first).div_ceil(s.wg)
                            );
                            if w.vertex_end > w.vertex_first {
                                let d = bfs
                                    .level_start
                                    .iter()
                                    .position(|&x| x == w.vertex_first)
                                    .unwrap();
                                assert_eq!(bfs.level_start[d + 1], w.vertex_end);
                                seen.push(d as u32);
                            }
                            for t in tasks {
                                assert!(t.child_end - t.child_first <= s.gather_chunk);
                                let g = &mut gathered[t.vertex as usize];
                                assert_eq!(t.resume != 0, !g.is_empty());
                                g.extend(t.child_first..t.child_end);
                            }
                        }
                    }
                }
                let mut expected: Vec<u32> = (0..bfs.levels() as u32).collect();
                if leaffix {
                    expected.reverse();
                }
                assert_eq!(seen, expected, "cap {cap} leaffix {leaffix}");
                for (i, g) in gathered.iter().enumerate() {
                    if !g.is_empty() {
                        let all: Vec<u32> = (bfs.child_start[i]..bfs.child_start[i + 1]).collect();
                        assert_eq!(*g, all);
                    }
                }
            }
        }
    }

    /// The preorder layout is each tree's Euler tour at a tile-aligned offset, and its tiles
    /// follow analysis::scan_plan level by level.
    #[test]
    fn preorder_segments_follow_the_scan_plan() {
        let all = trees();
        let big = [
            Topology::Chain
                .generate(3000, ChildOrder::Natural, &mut generators::rng(1))
                .unwrap(),
            Topology::Star
                .generate(700, ChildOrder::Natural, &mut generators::rng(1))
                .unwrap(),
        ];
        let forest = Forest::new(all.iter().chain(&big).chain(&all[..3]).collect());
        let tile = TILE;
        let pre = PreorderLayout::new(&forest);
        let mut i = 0;
        for t in forest.trees.iter() {
            let e = pre.pos[i][0] & !ROOT_BIT;
            assert_eq!(e as usize % tile, 0);
            for (k, &v) in t.preorder().iter().enumerate() {
                let [open, close] = pre.pos[i + k];
                assert_eq!((open & ROOT_BIT != 0), v == t.root());
                assert_eq!(open & !ROOT_BIT, e + t.open()[v as usize]);
                assert_eq!(close, e + t.close()[v as usize]);
            }
            i += t.len();
        }
        assert_eq!(i, forest.len());
        for (label, &[open, close]) in pre.pos.iter().enumerate() {
            assert_eq!(pre.tour[(open & !ROOT_BIT) as usize], 2 * label as u32);
            assert_eq!(pre.tour[close as usize], 2 * label as u32 + 1);
        }
        let total: usize = pre.levels[0].tiles.iter().map(|t| t.valid as usize).sum();
        assert_eq!(total, 2 * forest.len());
        for k in 1..pre.levels.len() {
            let feeding = pre.levels[k - 1]
                .tiles
                .iter()
                .filter(|t| t.total_dst != NONE)
                .count();
            let valid: usize = pre.levels[k].tiles.iter().map(|t| t.valid as usize).sum();
            assert_eq!(feeding, valid);
        }
    }
}
