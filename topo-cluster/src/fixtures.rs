//! Generated inputs: the synthetic 20-machine, six-subnet fixture shaped like the paper's IDPOT
//! figure, a multi-site grid, and random inter-cluster broadcast instances. All are
//! deterministic given their seed (ChaCha8, [`fabric_model::rng::seeded`]).
//!
//! These are synthetic, made for this crate: the paper's measured latencies are not published.
//! Its Fig. 1 shows the IDPOT grid split into six subnets A–F and counts 21 pLogP measures;
//! the machine counts per subnet and every latency below are ours, chosen so that the six
//! groups are well separated under the 20 % bound.

use fabric_model::Nanos;
use fabric_model::rng::seeded;
use rand::Rng;

use crate::inter::InterInstance;
use crate::matrix::{LatencyMatrix, Symmetry};

/// A generated latency matrix with machine names and the clusters it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fixture {
    /// Pairwise latencies (ns); missing between monitoring domains.
    pub matrix: LatencyMatrix,
    /// One name per machine.
    pub names: Vec<String>,
    /// The group each machine was generated in (first-appearance order).
    pub truth: Vec<usize>,
}

/// Intra-group latencies (µs) of groups A–F of the fixture.
pub const IDPOT_INTRA_US: [u64; 6] = [60, 85, 120, 160, 220, 300];
/// Sizes of groups A–F of the fixture.
pub const IDPOT_SIZES: [usize; 6] = [5, 4, 3, 3, 3, 2];

/// The 20-machine IDPOT-shaped fixture: groups A(5) B(4) C(3) D(3) E(3) F(2), names
/// `A0..A4, B0..B3, …`, intra latency per group from [`IDPOT_INTRA_US`], inter-group latency
/// `1.6·max(intra) + 40 µs`; with `noise_seed`, every pair gets a factor drawn in [0.97, 1.03]
/// (per mille, same both directions).
#[must_use]
pub fn idpot(noise_seed: Option<u64>) -> Fixture {
    let mut truth = Vec::new();
    let mut names = Vec::new();
    for (g, &size) in IDPOT_SIZES.iter().enumerate() {
        for k in 0..size {
            truth.push(g);
            names.push(format!("{}{k}", char::from(b'A' + g as u8)));
        }
    }
    let base = |a: usize, b: usize| -> u64 {
        if a == b {
            IDPOT_INTRA_US[a] * 1000
        } else {
            IDPOT_INTRA_US[a].max(IDPOT_INTRA_US[b]) * 1600 + 40_000
        }
    };
    let lat = noisy(&truth, base, noise_seed, |_, _| true);
    Fixture {
        matrix: lat,
        names,
        truth,
    }
}

fn noisy(
    truth: &[usize],
    base: impl Fn(usize, usize) -> u64,
    seed: Option<u64>,
    measured: impl Fn(usize, usize) -> bool,
) -> LatencyMatrix {
    let n = truth.len();
    let mut rng = seed.map(seeded);
    // upper triangle, row by row (i < j); -1 = not measured
    let mut upper = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        for j in i + 1..n {
            if !measured(i, j) {
                upper.push(-1_i64);
                continue;
            }
            let b = base(truth[i], truth[j]);
            let x = match rng.as_mut() {
                Some(r) => b * r.random_range(970..=1030_u64) / 1000,
                None => b,
            };
            upper.push(i64::try_from(x).unwrap_or(i64::MAX));
        }
    }
    // index of (i, j), i < j, in the row-by-row upper triangle
    let at = |i: usize, j: usize| i * n - i * (i + 1) / 2 + (j - i - 1);
    let v = |i: usize, j: usize| -> Option<Nanos> {
        let x = match i.cmp(&j) {
            std::cmp::Ordering::Equal => return Some(Nanos::ZERO),
            std::cmp::Ordering::Less => upper[at(i, j)],
            std::cmp::Ordering::Greater => upper[at(j, i)],
        };
        (x >= 0).then(|| Nanos::new(x.unsigned_abs()))
    };
    LatencyMatrix::from_fn(n, v, Symmetry::Require).expect("generated matrices are valid")
}

/// A grid of `sites` sites of `machines_per_site` machines. Each site is split into 1 to 4
/// groups (at least 2 machines each) with intra latency 40 µs · 1.5^k for its k-th group and
/// `1.6·max + 40 µs` between groups; pairs in different sites are not measured (one
/// monitoring domain per site). Latencies carry ±3 % noise.
#[must_use]
pub fn grid(sites: usize, machines_per_site: usize, seed: u64) -> Fixture {
    let mut rng = seeded(seed);
    let mut truth = Vec::new();
    let mut site_of = Vec::new();
    let mut level = Vec::new();
    let mut names = Vec::new();
    for s in 0..sites {
        let max_groups = (machines_per_site / 2).clamp(1, 4);
        let groups = rng.random_range(1..=max_groups);
        // cut points: sizes >= 2 (the last group takes the remainder)
        let mut sizes = vec![2_usize; groups];
        for _ in 0..machines_per_site.saturating_sub(2 * groups) {
            let g = rng.random_range(0..groups);
            sizes[g] += 1;
        }
        if machines_per_site < 2 * groups {
            sizes = vec![machines_per_site];
        }
        for (k, &size) in sizes.iter().enumerate() {
            let label = truth.last().map_or(0, |l| l + 1);
            for _ in 0..size {
                names.push(format!("s{s}-m{}", names.len()));
                truth.push(label);
                site_of.push(s);
            }
            level.push(k);
        }
    }
    let intra = |k: usize| -> u64 { (40_000.0 * 1.5_f64.powi(k as i32)) as u64 };
    let base = |a: usize, b: usize| -> u64 {
        if a == b {
            intra(level[a])
        } else {
            intra(level[a]).max(intra(level[b])) * 16 / 10 + 40_000
        }
    };
    let matrix = noisy(&truth, base, Some(seed ^ 0x5eed), |i, j| {
        site_of[i] == site_of[j]
    });
    Fixture {
        matrix,
        names,
        truth,
    }
}
/// A random inter-cluster broadcast instance of grid-like scale (times in ns):
/// symmetric links with latency L ∈ [5, 30] ms and gap g either small (∈ [0.5, 2] ms) or large
/// (∈ [10, 30] ms) with equal chance, intra-cluster times T ∈ [5, 120] ms, root 0.
#[must_use]
pub fn random_inter_instance(clusters: usize, seed: u64) -> InterInstance {
    let mut rng = seeded(seed);
    let c = clusters;
    let mut latency = vec![0.0; c * c];
    let mut gap = vec![0.0; c * c];
    for i in 0..c {
        for j in i + 1..c {
            let l = rng.random_range(5_000_000.0..30_000_000.0_f64).round();
            let g = if rng.random_bool(0.5) {
                rng.random_range(500_000.0..2_000_000.0_f64).round()
            } else {
                rng.random_range(10_000_000.0..30_000_000.0_f64).round()
            };
            latency[i * c + j] = l;
            latency[j * c + i] = l;
            gap[i * c + j] = g;
            gap[j * c + i] = g;
        }
    }
    let intra = (0..c)
        .map(|_| rng.random_range(5_000_000.0..120_000_000.0_f64).round())
        .collect();
    InterInstance::new(0, latency, gap, intra).expect("generated instances are valid")
}
