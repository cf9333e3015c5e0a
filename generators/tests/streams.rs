//! The same seed gives the same bytes, across versions of the rand crates too: the SHA-256 of
//! every weight model's and every topology's output for a fixed seed, pinned. The values were
//! recorded with rand 0.9 / rand_chacha 0.9 / rand_distr 0.5 and still hold with rand 0.10 /
//! rand_chacha 0.10 / rand_distr 0.6 (the move to 0.10 changed no byte of `accuracy gen`,
//! `run --dump` or `sweep`). A failure here means a dependency or the generator code changed
//! the streams: the committed reports/baseline.json and every published seed then describe
//! other instances.

use generators::{Topology, WeightModel};
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: impl IntoIterator<Item = u8>) -> String {
    let b: Vec<u8> = bytes.into_iter().collect();
    Sha256::digest(&b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// Covers `random::<f64>`, `random::<bool>` and `shuffle` (gensum), float and inclusive integer
/// `random_range` (uniform, integers) and rand_distr's Normal and LogNormal.
#[test]
fn weight_streams_are_pinned() {
    let pinned = [
        (
            "gensum",
            "a221b357d71de20377d6bef988d0d95c381f4bf613bc5ec669c03744601c7027",
        ),
        (
            "uniform",
            "b480acf021ff4571b34424afacf377e0406fb1e1e92d8d324fec2477d6bde077",
        ),
        (
            "normal",
            "3223ffb09daec5c09c28aa74c7284ea6ff85d25295d63723492dcfbbcd7c073b",
        ),
        (
            "lognormal",
            "ea118ae28ddf170fc873541204301a9a3b356fc531c68e552a69e3540e87c99f",
        ),
        (
            "integers",
            "cf83b40a70abc275cbd270edcf14ca741d8d4dbeb65a0f1e3833a26cea072c13",
        ),
        (
            "ones",
            "3035aac5fb87474c303702f9030301b4e6bb7aee93be3710b8ab8dcea201db70",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, want) in pinned {
        let m: WeightModel = name.parse().unwrap();
        let w = m.weights(4096, 1e8, &mut generators::rng(7)).unwrap();
        let got = sha256_hex(w.iter().flat_map(|x| x.to_bits().to_le_bytes()));
        if got != want {
            wrong.push(format!("{name}: {got} (pinned {want})"));
        }
    }
    assert!(wrong.is_empty(), "streams changed:\n{}", wrong.join("\n"));
}

/// Covers integer `random_range` over u32 and usize (the random topologies).
#[test]
fn topology_streams_are_pinned() {
    let pinned = [
        (
            "chain",
            "360c7f54ee6a2a0a353941f22575aee39dc067a8bcf75a85f0329e5094a0ee7b",
        ),
        (
            "star",
            "15dc73194ee5a3960ebbe12a302c4888ab2ae35190aa9f1df46af60130c2c81d",
        ),
        (
            "random-recursive",
            "50d7d52058fb934b2bfa801f1dfc53b89458eb8c446b0b07d1789520e29afc1c",
        ),
        (
            "prufer",
            "7e4aa251d4f2714dd71be10a0c6a7162802e0f419fe40c2d3189b182925fca17",
        ),
        (
            "kary:4",
            "9f7e71790266342bef38eba560b29c7af2a24e782d3fdda4660d620edc43930a",
        ),
        (
            "broom:0.5",
            "d1395881d414ba42b8fb74f35a0801a9be8f9064b64b5d1c351003f5dbec5124",
        ),
        (
            "caterpillar-legs",
            "4e9308b5fac2954cb6a25a48a65b08e5c92eb29088b11a8f1502fc60bb2a31e7",
        ),
        (
            "profile:20:2",
            "0a2298e1297877cdb901960c9634262b4d65005bd6d4bb6a38f5682a513d1b37",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, want) in pinned {
        let t: Topology = name.parse().unwrap();
        let p = t.parents(2000, &mut generators::rng(3));
        let got = sha256_hex(p.iter().flat_map(|x| x.to_le_bytes()));
        if got != want {
            wrong.push(format!("{name}: {got} (pinned {want})"));
        }
    }
    assert!(wrong.is_empty(), "streams changed:\n{}", wrong.join("\n"));
}
