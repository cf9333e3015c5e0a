// Scan plan stage 1 (tile scan, every level), level 0 fused with the vectorial write (E built from the Euler tour as it is loaded): inclusive scan of each tile in the Sum of the prelude (f32, or float-float for vectorial-compensated), WG invocations x ITEMS items, Kogge-Stone over the invocation totals, tile totals one level up; CPU twins: analysis::orders::euler::write and analysis::scan_plan::scan_tile (on f32 or FloatFloat).
//
// The order of every addition is the plan's: serial scan of each invocation's ITEMS
// consecutive items, log2(WG) Kogge-Stone steps s[t] = s[t-d] + s[t] for t >= d, then
// invocation t > 0 adds the inclusive total of invocation t-1 to its items. Elements past the
// tile's `valid` count are the plan's exact zero padding (sum_zero). The tile goes through workgroup
// memory so that global loads and stores are coalesced.
//
// Level 0 is never written as E: tour[p] = 2v + 1 if position p closes vertex v (preorder
// label), 2v if it opens it, and E[p] is w[v] at an open, -w[v] (rootfix) or 0 (leaffix) at a
// close, exactly the write stage's values (negation is exact: w = +0 gives -0 as in the twin).

override WG: u32;
override ITEMS: u32;
// WG * ITEMS.
override TILE: u32;

@group(0) @binding(0) var<uniform> scan: ScanLevel;
@group(0) @binding(1) var<storage, read> tiles: array<TileInfo>;
@group(0) @binding(2) var<storage, read_write> data: array<Sum>;
@group(0) @binding(3) var<storage, read_write> totals: array<Sum>;
@group(0) @binding(4) var<storage, read> tour: array<u32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;

var<workgroup> items: array<Sum, TILE>;
var<workgroup> s: array<Sum, WG>;

// The tile's inclusive scan from `items` (loaded, padding zeroed) into data; its total up.
fn scan_items(g: u32, t: u32, info: TileInfo) {
    // Serial scan of this invocation's items.
    let mine = t * ITEMS;
    var acc = items[mine];
    for (var j = 1u; j < ITEMS; j = j + 1u) {
        acc = sum_add(acc, items[mine + j]);
        items[mine + j] = acc;
    }
    // Kogge-Stone over the invocation totals.
    s[t] = acc;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d << 1u) {
        var v = s[t];
        if t >= d {
            v = sum_add(s[t - d], v);
        }
        workgroupBarrier();
        s[t] = v;
        workgroupBarrier();
    }
    // Invocation t > 0 adds the inclusive total of invocation t - 1.
    if t > 0u {
        let p = s[t - 1u];
        for (var j = 0u; j < ITEMS; j = j + 1u) {
            items[mine + j] = sum_add(p, items[mine + j]);
        }
    }
    workgroupBarrier();
    let base = g * TILE;
    for (var j = t; j < info.valid; j = j + WG) {
        data[base + j] = items[j];
    }
    if t == 0u && info.total_dst != NONE {
        totals[info.total_dst] = s[WG - 1u];
    }
}

// A zero the compiler cannot know (the float-float prelude's `opaque`).
fn opaque_zero() -> u32 {
    return scan.zero;
}

// The unit of the fixed-point prelude's sums; unused by the float ones.
fn exact_unit() -> i32 {
    return bitcast<i32>(scan.unit);
}

// Where a tile's elements come from: the tile totals of the level below (levels k >= 1), or
// the Euler tour (level 0 of rootfix, level 0 of leaffix).
const FROM_TOTALS: u32 = 0u;
const ROOTFIX_TOUR: u32 = 1u;
const LEAFFIX_TOUR: u32 = 2u;

// E at tour position p: w[v] at open v; at close v, -w[v] (rootfix) or 0 (leaffix).
fn tour_term(p: u32, source: u32) -> f32 {
    let k = tour[p];
    let open = (k & 1u) == 0u;
    if source == ROOTFIX_TOUR {
        // One load at every position, negated at a close.
        let x = w[k >> 1u];
        return select(-x, x, open);
    }
    // Leaffix loads at opens only.
    if open {
        return w[k >> 1u];
    }
    return 0.0;
}

// Loads tile g of this level into workgroup memory (padding: the exact zero) and scans it.
fn load_and_scan(g: u32, t: u32, source: u32) {
    let info = tiles[g];
    let base = g * TILE;
    for (var j = t; j < TILE; j = j + WG) {
        var x = sum_zero();
        if j < info.valid {
            if source == FROM_TOTALS {
                x = data[base + j];
            } else {
                x = sum_term(tour_term(base + j, source));
            }
        }
        items[j] = x;
    }
    workgroupBarrier();
    scan_items(g, t, info);
}

// The entry points (levels >= 1, and level 0 from the tour of each op).
// @include scan_tile_entries.wgsl
