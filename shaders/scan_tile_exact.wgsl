// Scan plan stage 1 for fixed-point sums (vectorial-exact), every level, level 0 fused with the vectorial write: the tile scan of scan_tile.wgsl with each invocation's THREAD_ITEMS items kept in registers instead of staged through workgroup memory (a tile of L-limb sums would not fit it); CPU twin: analysis::orders::euler::write_with and analysis::scan_plan::scan_tile on generators::fixed::Fixed.
//
// The pairing is the plan's (serial scan of each invocation's consecutive items, log2(WG)
// Kogge-Stone steps, invocation t > 0 adds the total of invocation t - 1), though integer
// additions are associative and any pairing gives the same bits. Loads and stores are per
// invocation, THREAD_ITEMS * LIMBS consecutive words each: a warp still covers whole sectors.

override WG: u32;
// Elements per tile (analysis::scan_plan::TILE = WG * THREAD_ITEMS).
override TILE: u32;

@group(0) @binding(0) var<uniform> scan: ScanLevel;
@group(0) @binding(1) var<storage, read> tiles: array<TileInfo>;
@group(0) @binding(2) var<storage, read_write> data: array<Sum>;
@group(0) @binding(3) var<storage, read_write> totals: array<Sum>;
@group(0) @binding(4) var<storage, read> tour: array<u32>;
@group(0) @binding(5) var<storage, read> w: array<f32>;

var<workgroup> s: array<Sum, WG>;

// The unit of the fixed-point prelude's sums.
fn exact_unit() -> i32 {
    return bitcast<i32>(scan.unit);
}

// A zero the compiler cannot know (the float-float prelude's `opaque`); unused by the others.
fn opaque_zero() -> u32 {
    return scan.zero;
}

const FROM_TOTALS: u32 = 0u;
const ROOTFIX_TOUR: u32 = 1u;
const LEAFFIX_TOUR: u32 = 2u;

// E at tour position p as an integer: w[v] at open v; at close v, -w[v] (rootfix: the
// integer negated, as the twin's term(-w)) or 0 (leaffix).
fn tour_term(p: u32, source: u32) -> Sum {
    let k = tour[p];
    if (k & 1u) == 0u {
        return sum_term(w[k >> 1u]);
    }
    if source == ROOTFIX_TOUR {
        return sum_neg(sum_term(w[k >> 1u]));
    }
    return sum_zero();
}

fn load_and_scan(g: u32, t: u32, source: u32) {
    let info = tiles[g];
    let base = g * TILE;
    let mine = t * THREAD_ITEMS;
    // Serial scan of this invocation's items; past `valid`, the plan's exact zero padding.
    var items: array<Sum, THREAD_ITEMS>;
    var acc = sum_zero();
    for (var j = 0u; j < THREAD_ITEMS; j = j + 1u) {
        var x = sum_zero();
        if mine + j < info.valid {
            if source == FROM_TOTALS {
                x = data[base + mine + j];
            } else {
                x = tour_term(base + mine + j, source);
            }
        }
        if j == 0u {
            acc = x;
        } else {
            acc = sum_add(acc, x);
        }
        items[j] = acc;
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
    var p = sum_zero();
    if t > 0u {
        p = s[t - 1u];
    }
    for (var j = 0u; j < THREAD_ITEMS; j = j + 1u) {
        if mine + j < info.valid {
            if t > 0u {
                data[base + mine + j] = sum_add(p, items[j]);
            } else {
                data[base + mine + j] = items[j];
            }
        }
    }
    if t == 0u && info.total_dst != NONE {
        totals[info.total_dst] = s[WG - 1u];
    }
}

// The entry points (levels >= 1, and level 0 from the tour of each op).
// @include scan_tile_entries.wgsl
