//! The layouts and plans on small forests: labels, positions and dispatch costs.

use super::levels::*;
use super::preorder::*;
use super::*;
use crate::gpu::shaders::Sizes;
use crate::gpu::types::NONE;
use analysis::scan_plan::TILE;
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
                assert!(bfs.level_start[d] as usize <= i && i < bfs.level_start[d + 1] as usize);
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
                        for win in &plan.windows[run.window_first as usize..run.window_end as usize]
                        {
                            assert!(win.stage_end - win.vertex_first <= cap - 2);
                            assert_eq!(win.vertex_first, bfs.level_start[win.level_first as usize]);
                            assert_eq!(win.vertex_end, bfs.level_start[win.level_end as usize]);
                            for step in &plan.steps[win.step_first as usize..win.step_end as usize]
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
