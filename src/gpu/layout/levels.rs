//! Breadth-first labels of a forest and the level plan of the parallel kernels: which
//! dispatch walks which levels (see the module above).

use super::Forest;
use crate::gpu::shaders::Sizes;
use crate::gpu::types::{GatherTask, LevelDispatch, NONE, Step, Window, WindowDispatch};

/// A level is processed by one invocation without barriers (a serial step) when its vertices
/// plus, for leaffix, their children are at most this many.
const SERIAL_WORK: u32 = 8;

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
