//! Criterion benchmarks of `mcast-route`: time per group creation for MR4LMS (unlimited and
//! with the paper's recommended entries) against MINIHOP-MC and SSSP-MC in the same run, on
//! `fat_tree(40)`, the 30×20×20 torus and the random regular fabric; a whole pattern of
//! 5,000 groups on `fat_tree(40)`; and the hand-written bit sets and per-switch lists of the
//! hot paths against bitvec and smallvec (`bitvec`, `smallvec` groups); offline recoloring
//! (`recolor` group); in a live subnet manager (`join_leave`, `link_failure`): a join and a
//! leave on a router holding 5,000 random groups of 16, and a link going down and up again,
//! with the hop table updated edge by edge beside `HopTable::new` over the fabric less that
//! link (OpenSM's rebuild).

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::{Fabric, FabricBuilder, HopTable, LinkId, NodeId, generators};
use mcast_route::coloring::Tabu;
use mcast_route::{Algorithm, Config, Entries, Gid, Router, patterns};

fn configs(n_colors: u32) -> [(&'static str, Config); 4] {
    [
        ("mr4lms-unlimited", Config::mr4lms(Entries::Unlimited)),
        ("mr4lms-limited", Config::mr4lms(Entries::Limit(n_colors))),
        (
            "minihop-mc",
            Config::baseline(Algorithm::MinihopMc, Entries::Unlimited),
        ),
        (
            "sssp-mc",
            Config::baseline(Algorithm::SsspMc, Entries::Unlimited),
        ),
    ]
}

/// Time per `create_group`, measured over a batch of `groups` created on a fresh router per
/// batch (routers start empty, as a subnet manager's do).
fn per_group(c: &mut Criterion, name: &str, f: &Fabric, groups: &[Vec<NodeId>], n_colors: u32) {
    let hops = HopTable::new(f).expect("hop table");
    let mut g = c.benchmark_group(format!("create_group/{name}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(groups.len() as u64));
    for (label, cfg) in configs(n_colors) {
        g.bench_function(label, |b| {
            b.iter_batched(
                || Router::new(f, &hops, cfg).expect("valid config"),
                |mut r| {
                    for m in groups {
                        black_box(r.create_group(black_box(m)).expect("routable"));
                    }
                    r
                },
                BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

fn fat_tree(c: &mut Criterion) {
    let f = generators::fat_tree(40).expect("valid");
    // 40×20×20: 2,000 groups of 20–40 members.
    let groups = patterns::grid(&f, &[40, 20, 20], 1).expect("fits");
    per_group(c, "fat_tree(40)/3d-40x20x20", &f, &groups[..500], 128);
}

fn pattern_5000(c: &mut Criterion) {
    let f = generators::fat_tree(40).expect("valid");
    let hops = HopTable::new(&f).expect("hop table");
    // 25×25×25 gives 1,875 groups; 40×40×40 with 4 per terminal 4,800; random fills to 5,000.
    let mut groups = patterns::grid(&f, &[40, 40, 40], 4).expect("fits");
    groups.extend(patterns::random_groups(&f, 5000 - groups.len(), 16, 3).expect("fits"));
    let mut g = c.benchmark_group("pattern_5000/fat_tree(40)");
    g.sample_size(10);
    for (label, cfg) in configs(128) {
        g.bench_function(label, |b| {
            b.iter_batched(
                || Router::new(&f, &hops, cfg).expect("valid config"),
                |mut r| {
                    for m in &groups {
                        black_box(r.create_group(m).expect("routable"));
                    }
                    r
                },
                BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

fn torus_and_random(c: &mut Criterion) {
    let t = generators::torus(&[30, 20, 20], 2).expect("valid");
    let groups = patterns::grid(&t, &[60, 20, 20], 1).expect("fits");
    per_group(c, "torus(30x20x20)/3d-60x20x20", &t, &groups[..200], 256);
    drop(t);
    let r = generators::random_regular(2048, 40, 20, 1).expect("valid");
    let groups = patterns::grid(&r, &[32, 32, 40], 1).expect("fits");
    per_group(
        c,
        "random_regular(2048)/3d-32x32x40",
        &r,
        &groups[..300],
        256,
    );
}

/// Switches of the largest benchmarked fabric (`random_regular(2048, ..)`): the length of the
/// switch bit sets of a merge, the tree index and FCTB's reached roots.
const SWITCHES: usize = 2048;

/// mcast-route's `bits` module, verbatim (set, get, ones over `u64` words, bit `x % 64` of
/// word `x / 64`): the code bitvec would replace.
mod hand {
    #[inline]
    pub(crate) fn set(words: &mut [u64], x: usize) {
        words[x / 64] |= 1 << (x % 64);
    }

    #[inline]
    pub(crate) fn get(words: &[u64], x: usize) -> bool {
        words[x / 64] >> (x % 64) & 1 == 1
    }

    pub(crate) fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
        let mut word = 0;
        let mut bits = words.first().copied().unwrap_or(0);
        std::iter::from_fn(move || {
            while bits == 0 {
                word += 1;
                bits = *words.get(word)?;
            }
            let x = word * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(x)
        })
    }

    /// graph.rs's `or_row`: switch `x`'s row of `rows` OR-ed into `row`.
    #[inline]
    pub(crate) fn or_row(row: &mut [u64], rows: &[u64], x: usize) {
        let w = row.len();
        for (r, s) in row.iter_mut().zip(&rows[x * w..(x + 1) * w]) {
            *r |= s;
        }
    }
}

/// 300 scattered switches (a merge's virtual group, a large tree) of [`SWITCHES`].
fn scattered() -> Vec<usize> {
    (0..300).map(|i| i * 977 % SWITCHES).collect()
}

/// The operations of the hot paths on dense switch bit sets, hand-written words against
/// `bitvec::BitVec<u64, Lsb0>` / `BitSlice` in one group: set 300 bits and test all 2,048
/// (the merge's `FreeBits`, `vm_bits`), list the set bits in order and clear them (the tree
/// index), and OR rows of 4 words (least_farthest's pulls, 256 sources a row) along 8,192
/// pulls.
fn bitvec_ops(c: &mut Criterion) {
    use bitvec::prelude::*;
    let xs = scattered();
    let mut g = c.benchmark_group("bitvec");
    g.bench_function("set+get/hand-written", |b| {
        let mut words = vec![0u64; SWITCHES / 64];
        b.iter(|| {
            words.fill(0);
            for &x in black_box(&xs) {
                hand::set(&mut words, x);
            }
            (0..SWITCHES).filter(|&x| hand::get(&words, x)).count()
        });
    });
    g.bench_function("set+get/bitvec", |b| {
        let mut bv: BitVec<u64, Lsb0> = bitvec![u64, Lsb0; 0; SWITCHES];
        b.iter(|| {
            bv.fill(false);
            for &x in black_box(&xs) {
                bv.set(x, true);
            }
            (0..SWITCHES).filter(|&x| bv[x]).count()
        });
    });
    g.bench_function("ones+clear/hand-written", |b| {
        let mut words = vec![0u64; SWITCHES / 64];
        let mut out: Vec<u32> = Vec::with_capacity(xs.len());
        b.iter(|| {
            for &x in black_box(&xs) {
                hand::set(&mut words, x);
            }
            out.clear();
            out.extend(hand::ones(&words).map(|x| x as u32));
            words.fill(0);
            out.len()
        });
    });
    g.bench_function("ones+clear/bitvec", |b| {
        let mut bv: BitVec<u64, Lsb0> = bitvec![u64, Lsb0; 0; SWITCHES];
        let mut out: Vec<u32> = Vec::with_capacity(xs.len());
        b.iter(|| {
            for &x in black_box(&xs) {
                bv.set(x, true);
            }
            out.clear();
            out.extend(bv.iter_ones().map(|x| x as u32));
            bv.fill(false);
            out.len()
        });
    });
    const W: usize = 4;
    let pulls: Vec<usize> = (0..8192).map(|i| i * 7919 % SWITCHES).collect();
    let rows: Vec<u64> = (0..SWITCHES * W)
        .map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) & 0x0101_0101_0101_0101)
        .collect();
    g.bench_function("or_rows/hand-written", |b| {
        let mut row = [0u64; W];
        b.iter(|| {
            row = [0; W];
            for &x in black_box(&pulls) {
                hand::or_row(&mut row, &rows, x);
            }
            row
        });
    });
    g.bench_function("or_rows/bitvec", |b| {
        let rows = rows.view_bits::<Lsb0>();
        let mut row: BitArray<[u64; W], Lsb0> = BitArray::ZERO;
        b.iter(|| {
            row = BitArray::ZERO;
            for &x in black_box(&pulls) {
                *row.as_mut_bitslice() |= &rows[x * W * 64..(x + 1) * W * 64];
            }
            row
        });
    });
    g.finish();
}

/// The per-switch lists of the color table, `Vec` (today's) against `SmallVec` inline in one
/// group: the busy bitmap of every switch read for one color (`FreeBits::of`, at the start of
/// every merge and FCTB color), with 256 colors (4 words a switch, the paper's entries
/// outside fat trees); and filling the `(color, tree)` entry lists of every switch in sorted
/// order, 8 entries a switch (inline) and 40 (spilled; fat trees hold 41 to 122 at the
/// paper's sizes), then looking one up on each (`set`, `tree_at`).
fn smallvec_lists(c: &mut Criterion) {
    use smallvec::SmallVec;
    let mut g = c.benchmark_group("smallvec");
    let busy_vec: Vec<Vec<u64>> = (0..SWITCHES)
        .map(|s| {
            (0..4)
                .map(|w| (s as u64 * 31 + w).wrapping_mul(0x9E37_79B9))
                .collect()
        })
        .collect();
    let busy_small: Vec<SmallVec<[u64; 4]>> = busy_vec
        .iter()
        .map(|v| v.iter().copied().collect())
        .collect();
    fn is_busy(words: &[u64], color: u32) -> bool {
        words
            .get(color as usize / 64)
            .is_some_and(|x| x >> (color % 64) & 1 == 1)
    }
    g.bench_function("busy_column/vec", |b| {
        b.iter(|| {
            (0..256u32)
                .step_by(37)
                .map(|c| busy_vec.iter().filter(|w| is_busy(w, black_box(c))).count())
                .sum::<usize>()
        });
    });
    g.bench_function("busy_column/smallvec[4]", |b| {
        b.iter(|| {
            (0..256u32)
                .step_by(37)
                .map(|c| {
                    busy_small
                        .iter()
                        .filter(|w| is_busy(w, black_box(c)))
                        .count()
                })
                .sum::<usize>()
        });
    });
    /// The tree on color 7 of every switch.
    fn lookup<L: std::ops::Deref<Target = [(u32, u32)]>>(lists: &[L]) -> u32 {
        lists
            .iter()
            .map(|e| e.binary_search_by_key(&7, |x| x.0).map_or(0, |i| e[i].1))
            .sum()
    }
    /// Fresh lists for every switch, then each color inserted on each.
    fn fill<L: Default>(lists: &mut Vec<L>, colors: &[u32], mut insert: impl FnMut(&mut L, u32)) {
        lists.clear();
        lists.resize_with(SWITCHES, L::default);
        for &c in colors {
            for l in lists.iter_mut() {
                insert(l, c);
            }
        }
    }
    for entries in [8u32, 40] {
        let colors: Vec<u32> = (0..entries).map(|i| i * 11 % entries).collect();
        g.bench_function(format!("entries{entries}/vec"), |b| {
            let mut lists: Vec<Vec<(u32, u32)>> = Vec::new();
            b.iter(|| {
                fill(&mut lists, black_box(&colors), |e, c| {
                    if e.len() == e.capacity() {
                        e.reserve(e.len().max(16));
                    }
                    let i = e.partition_point(|x| x.0 < c);
                    e.insert(i, (c, c + 1));
                });
                lookup(&lists)
            });
        });
        g.bench_function(format!("entries{entries}/smallvec[16]"), |b| {
            let mut lists: Vec<SmallVec<[(u32, u32); 16]>> = Vec::new();
            b.iter(|| {
                fill(&mut lists, black_box(&colors), |e, c| {
                    let i = e.partition_point(|x| x.0 < c);
                    e.insert(i, (c, c + 1));
                });
                lookup(&lists)
            });
        });
    }
    g.finish();
}

/// `Router::recolor` (ours) on MR4LMS's trees of two `fat_tree(40)` patterns of
/// `reproduce mcast-colors`: the conflict graph, DSatur, TabuCol and the reinstall, on a
/// router routed afresh per batch (not timed).
fn recolor(c: &mut Criterion) {
    let (k, grid, random) = if quick() {
        (8, [16, 8], 50)
    } else {
        (40, [128, 125], 1000)
    };
    let f = generators::fat_tree(k).expect("valid");
    let hops = HopTable::new(&f).expect("hop table");
    let mut g = c.benchmark_group(format!("recolor/fat_tree({k})"));
    g.sample_size(10);
    let cases = [
        (
            format!("2d-{}x{}", grid[0], grid[1]),
            patterns::grid(&f, &grid, 1).expect("fits"),
            Tabu::default(),
        ),
        (
            format!("random-{random}x16-tabu20k"),
            patterns::random_groups(&f, random, 16, 7).expect("fits"),
            Tabu::default().with_moves(20_000),
        ),
    ];
    for (name, groups, tabu) in &cases {
        g.bench_function(name.as_str(), |b| {
            b.iter_batched(
                || {
                    let mut r = Router::new(&f, &hops, Config::mr4lms(Entries::Unlimited))
                        .expect("valid config");
                    for m in groups {
                        r.create_group(m).expect("routable");
                    }
                    r
                },
                |mut r| {
                    black_box(r.recolor_with(tabu));
                    r
                },
                BatchSize::LargeInput,
            );
        });
    }
    g.finish();
}

/// Whether this run only checks that the benches work (`cargo test --benches`, which runs
/// each once without `--bench`): the groups below then set up small fabrics, since their
/// setup at the papers' sizes (5,000 groups joined member by member on the torus) takes
/// minutes in a test build.
fn quick() -> bool {
    !std::env::args().any(|a| a == "--bench")
}

/// The groups a live router holds: 5,000 of 16 (100 of 8 in a quick run).
fn live_groups(f: &Fabric) -> Vec<Vec<NodeId>> {
    let (n, size) = if quick() { (100, 8) } else { (5000, 16) };
    patterns::random_groups(f, n, size, 7).expect("fits")
}

/// The live fabrics: name, fabric, entries (the paper's recommended `N_color`).
fn live_fabrics() -> Vec<(&'static str, Fabric, u32)> {
    if quick() {
        return vec![
            ("fat_tree(8)", generators::fat_tree(8).expect("valid"), 16),
            (
                "torus(4x4x4,2)",
                generators::torus(&[4, 4, 4], 2).expect("valid"),
                32,
            ),
        ];
    }
    vec![
        (
            "fat_tree(40)",
            generators::fat_tree(40).expect("valid"),
            128,
        ),
        (
            "torus(30x20x20,2)",
            generators::torus(&[30, 20, 20], 2).expect("valid"),
            256,
        ),
    ]
}

fn mgid(k: usize) -> Gid {
    Gid::new(0xff12_401b_ffff_0000, k as u64)
}

/// A router holding 5,000 random groups of 16, each joined member by member.
fn joined<'f>(f: &'f Fabric, hops: &'f HopTable, n_colors: u32) -> (Router<'f>, Vec<Vec<NodeId>>) {
    let mut r = Router::new(f, hops, Config::mr4lms(Entries::Limit(n_colors))).expect("valid");
    let groups = live_groups(f);
    for (k, g) in groups.iter().enumerate() {
        for &m in g {
            r.join(mgid(k), m).expect("joins");
        }
    }
    (r, groups)
}

/// One join then the same port's leave (the router ends as it began), over a cycle of
/// groups: time a pair, on each live fabric.
fn join_leave(c: &mut Criterion) {
    for (name, f, n_colors) in live_fabrics() {
        let hops = HopTable::new(&f).expect("hop table");
        let (mut r, groups) = joined(&f, &hops, n_colors);
        let t = f.terminals();
        let mut g = c.benchmark_group(format!("join_leave/{name}"));
        g.sample_size(20);
        let mut k = 0usize;
        g.bench_function("join+leave", |b| {
            b.iter(|| {
                // A terminal not in the group: the next after its first member.
                k = (k + 1) % groups.len();
                let mut port = t[(groups[k][0].index() * 7919 + k) % t.len()];
                while groups[k].contains(&port) {
                    port = t[(port.index() + 1) % t.len()];
                }
                black_box(r.join(mgid(k), port).expect("joins"));
                black_box(r.leave(mgid(k), port).expect("leaves"));
            });
        });
        g.finish();
    }
}

/// The fabric without link `l` (node ids kept): what OpenSM's sweep discovers.
fn without(f: &Fabric, l: LinkId) -> Fabric {
    let mut b = FabricBuilder::with_capacity(f.node_count(), 0, f.link_count());
    for n in f.node_ids() {
        b.add_node(f.node(n).clone()).expect("valid");
    }
    for (i, link) in f.links().iter().enumerate() {
        if i != l.index() {
            let [(a, pa), (z, pz)] = link.ends;
            b.link_with(a, pa, z, pz, link.rate, link.latency)
                .expect("valid");
        }
    }
    b.build().expect("valid")
}

/// A switch–switch link going down then up again: on an empty router (the hop table and
/// switch graph only) beside `HopTable::new` over the fabric without it, and on the router
/// of 5,000 groups (the trees crossing it repaired too).
fn link_failure(c: &mut Criterion) {
    for (name, f, n_colors) in live_fabrics() {
        let hops = HopTable::new(&f).expect("hop table");
        let links: Vec<LinkId> = (0..f.link_count() as u32)
            .map(LinkId::new)
            .filter(|&l| f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)))
            .collect();
        let mut g = c.benchmark_group(format!("link_failure/{name}"));
        g.sample_size(10);
        let mut empty = Router::new(&f, &hops, Config::default()).expect("valid");
        empty.keep_own_hops();
        let mut k = 0usize;
        g.bench_function("hops-incremental-down+up", |b| {
            b.iter(|| {
                k = (k + 7) % links.len();
                black_box(empty.link_down(links[k]).expect("down"));
                black_box(empty.link_up(links[k]).expect("up"));
            });
        });
        let reduced = without(&f, links[0]);
        g.bench_function("hops-rebuild", |b| {
            b.iter(|| black_box(HopTable::new(black_box(&reduced)).expect("table")));
        });
        let (mut r, _) = joined(&f, &hops, n_colors);
        r.keep_own_hops();
        g.bench_function("router-5000-groups-down+up", |b| {
            b.iter(|| {
                k = (k + 7) % links.len();
                black_box(r.link_down(links[k]).expect("down"));
                black_box(r.link_up(links[k]).expect("up"));
            });
        });
        g.finish();
    }
}

criterion_group!(
    benches,
    fat_tree,
    pattern_5000,
    torus_and_random,
    bitvec_ops,
    smallvec_lists,
    recolor,
    join_leave,
    link_failure
);
criterion_main!(benches);
