//! The LP against an independent feasibility checker and brute force over integer schedules.

use dag_sched::lp::{self, Backend, LpTransfer, Objective, Reservations, Schedule};
use dag_sched::{Cluster, Error, MachineId};
use fabric_model::{BitsPerSec, Nanos};
use proptest::prelude::*;

const CAP: f64 = 2.0;
const CAP_BPS: BitsPerSec = BitsPerSec::new(2);
const SEC: Nanos = Nanos::from_secs(1);

/// Independent checker: sizes delivered inside the windows, rates non-negative, capacities kept.
fn check_feasible(cluster: &Cluster, transfers: &[LpTransfer], s: &Schedule) -> Result<(), String> {
    let tau = s.slot();
    let mut load: std::collections::HashMap<(u32, bool, i64), f64> = Default::default();
    for (f, t) in transfers.iter().enumerate() {
        let lo = (t.release / tau).floor() as i64;
        let hi = ((t.deadline / tau).ceil() as i64 - 1).max(lo);
        let mut sent = 0.0;
        for (k, r) in s.rates(f) {
            if r < -1e-9 {
                return Err(format!("transfer {f} has negative rate {r} in slot {k}"));
            }
            if r > 1e-9 && (k < lo || k > hi) {
                return Err(format!(
                    "transfer {f} sends in slot {k} outside [{lo}, {hi}]"
                ));
            }
            sent += r * tau;
            *load.entry((t.src.get(), true, k)).or_default() += r;
            *load.entry((t.dst.get(), false, k)).or_default() += r;
        }
        if (sent - t.size).abs() > 1e-6 * t.size.max(1.0) {
            return Err(format!("transfer {f} sends {sent} of {}", t.size));
        }
    }
    for ((m, egress, k), l) in load {
        let machine = cluster.machines()[m as usize];
        let cap = if egress {
            machine.egress()
        } else {
            machine.ingress()
        }
        .as_f64();
        if l > cap * (1.0 + 1e-6) + 1e-9 {
            return Err(format!(
                "machine {m} egress={egress} slot {k} carries {l} > {cap}"
            ));
        }
    }
    Ok(())
}

/// Every integer schedule: per transfer a composition of its size over its window.
fn integer_schedules(transfers: &[LpTransfer]) -> Vec<Vec<Vec<u32>>> {
    fn compositions(total: u32, parts: usize) -> Vec<Vec<u32>> {
        if parts == 1 {
            return vec![vec![total]];
        }
        let mut out = Vec::new();
        for first in 0..=total {
            for mut rest in compositions(total - first, parts - 1) {
                rest.insert(0, first);
                out.push(rest);
            }
        }
        out
    }
    let mut all: Vec<Vec<Vec<u32>>> = vec![Vec::new()];
    for t in transfers {
        let (a, b) = lp::window(t, 1.0);
        let comps = compositions(t.size as u32, (b - a + 1) as usize);
        let mut next = Vec::new();
        for partial in &all {
            for c in &comps {
                let mut p = partial.clone();
                p.push(c.clone());
                next.push(p);
            }
        }
        all = next;
    }
    all
}

/// Port-slot loads of an integer schedule (None if over capacity), over the touched port-slots.
fn loads(transfers: &[LpTransfer], alloc: &[Vec<u32>]) -> Option<Vec<f64>> {
    let mut map: std::collections::BTreeMap<(u32, bool, i64), f64> = Default::default();
    for (t, xs) in transfers.iter().zip(alloc) {
        let (a, _) = lp::window(t, 1.0);
        for (k, &x) in xs.iter().enumerate() {
            *map.entry((t.src.get(), true, a + k as i64)).or_default() += f64::from(x);
            *map.entry((t.dst.get(), false, a + k as i64)).or_default() += f64::from(x);
        }
    }
    let v: Vec<f64> = map.into_values().collect();
    v.iter().all(|&l| l <= CAP).then_some(v)
}

fn excess(loads: &[f64], thresholds: &[f64]) -> Vec<f64> {
    thresholds
        .iter()
        .map(|&th| loads.iter().map(|&l| (l - th).max(0.0)).sum())
        .collect()
}

fn lex_le(a: &[f64], b: &[f64], tol: f64) -> bool {
    for (x, y) in a.iter().zip(b) {
        if *x < y - tol {
            return true;
        }
        if *x > y + tol {
            return false;
        }
    }
    true
}

fn schedule_loads(transfers: &[LpTransfer], s: &Schedule) -> Vec<f64> {
    let mut map: std::collections::BTreeMap<(u32, bool, i64), f64> = Default::default();
    for (f, t) in transfers.iter().enumerate() {
        let (a, b) = lp::window(t, 1.0);
        for k in a..=b {
            let r = s.rate(f, k);
            *map.entry((t.src.get(), true, k)).or_default() += r;
            *map.entry((t.dst.get(), false, k)).or_default() += r;
        }
    }
    map.into_values().collect()
}

fn instance() -> impl Strategy<Value = Vec<LpTransfer>> {
    proptest::collection::vec((0u32..3, 1u32..3, 0u32..3, 0u32..2, 1u32..4), 1..4).prop_map(|v| {
        v.into_iter()
            .map(|(src, d, size, rel, w)| {
                LpTransfer::new(
                    MachineId::new(src),
                    MachineId::new((src + d) % 3),
                    f64::from(size),
                    f64::from(rel),
                    f64::from(rel + w),
                )
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn lp_matches_integer_brute_force(transfers in instance()) {
        let cluster = Cluster::uniform(3, CAP_BPS).unwrap();
        let res = Reservations::new();
        let allocs: Vec<Vec<f64>> = integer_schedules(&transfers)
            .iter()
            .filter_map(|a| loads(&transfers, a))
            .collect();
        let minmax = lp::solve(&cluster, &transfers, &res, SEC, Objective::MinMax, Backend::Microlp);
        if allocs.is_empty() {
            // Total unimodularity: no integer schedule means no fractional one either.
            prop_assert!(matches!(minmax, Err(Error::Infeasible { .. })), "{minmax:?}");
            return Ok(());
        }
        let minmax = minmax.unwrap();
        check_feasible(&cluster, &transfers, &minmax).map_err(TestCaseError::fail)?;
        let ilp = allocs.iter().map(|l| l.iter().copied().fold(0.0, f64::max)).fold(f64::INFINITY, f64::min);
        let u = minmax.min_max * CAP;
        prop_assert!(u <= ilp + 1e-6, "LP {u} above ILP {ilp}");
        prop_assert_eq!((u - 1e-6).ceil().max(0.0), ilp, "TU: ⌈U*⌉ is the ILP optimum");

        // Literal objective, 2 levels of 1 unit: the LP optimum equals the integer optimum (TU).
        let flutter = lp::solve(&cluster, &transfers, &res, SEC, Objective::Flutter { levels: 2 }, Backend::Microlp).unwrap();
        check_feasible(&cluster, &transfers, &flutter).map_err(TestCaseError::fail)?;
        let n = allocs[0].len() as f64;
        let g = allocs.iter().map(|l| l.iter().map(|&d| n.powf(d)).sum::<f64>()).fold(f64::INFINITY, f64::min);
        prop_assert!((flutter.objective - g).abs() <= 1e-6 * g, "λ-LP {} vs brute force {}", flutter.objective, g);

        // Levels form: lexicographically no worse than any integer schedule under U*.
        let lex = lp::solve(&cluster, &transfers, &res, SEC, Objective::LexLevels { levels: 4 }, Backend::Microlp).unwrap();
        check_feasible(&cluster, &transfers, &lex).map_err(TestCaseError::fail)?;
        prop_assert!((lex.min_max - minmax.min_max).abs() < 1e-7);
        let thresholds: Vec<f64> = (1..4).map(|j| u * f64::from(4 - j) / 4.0).collect();
        let e_lex = excess(&schedule_loads(&transfers, &lex), &thresholds);
        for (a, b) in e_lex.iter().zip(&lex.excess) {
            prop_assert!((a - b * CAP).abs() < 1e-5, "reported excess {b} vs recomputed {a}");
        }
        for l in &allocs {
            if l.iter().copied().fold(0.0, f64::max) <= u + 1e-9 {
                prop_assert!(lex_le(&e_lex, &excess(l, &thresholds), 1e-5), "{e_lex:?} vs {:?}", excess(l, &thresholds));
            }
        }
        let e_mm = excess(&schedule_loads(&transfers, &minmax), &thresholds);
        prop_assert!(lex_le(&e_lex, &e_mm, 1e-5));
    }
}

#[test]
fn lexicographic_levels_spread_load() {
    // Two transfers of 2 units to one receiver over 4 slots with capacity 2: min-max is 1 and
    // the levels form keeps every slot at exactly 1.
    let cluster = Cluster::uniform(3, CAP_BPS).unwrap();
    let t = |src| LpTransfer::new(MachineId::new(src), MachineId::new(2), 2.0, 0.0, 4.0);
    let transfers = [t(0), t(1)];
    let s = lp::solve(
        &cluster,
        &transfers,
        &Reservations::new(),
        SEC,
        Objective::LexLevels { levels: 4 },
        Backend::Microlp,
    )
    .unwrap();
    check_feasible(&cluster, &transfers, &s).unwrap();
    assert!((s.min_max - 0.5).abs() < 1e-9);
    let loads = schedule_loads(&transfers, &s);
    let ingress: Vec<f64> = (0..4).map(|k| s.rate(0, k) + s.rate(1, k)).collect();
    assert!(
        ingress.iter().all(|&l| (l - 1.0).abs() < 1e-6),
        "{ingress:?} {loads:?}"
    );
}

#[test]
fn reservations_are_background() {
    let cluster = Cluster::uniform(3, CAP_BPS).unwrap();
    let solve = |ts: &[LpTransfer], res: &Reservations| {
        lp::solve(&cluster, ts, res, SEC, Objective::MinMax, Backend::Microlp)
    };
    // A first plan fills machine 1's ingress in slot 0 (2 bits by time 1 at capacity 2).
    let mut res = Reservations::new();
    let blocker = [LpTransfer::new(
        MachineId::new(2),
        MachineId::new(1),
        2.0,
        0.0,
        1.0,
    )];
    res.add_schedule(&cluster, &blocker, &solve(&blocker, &res).unwrap());
    // So a transfer into machine 1 with the window [0, 2] sends all of it in slot 1.
    let transfers = [LpTransfer::new(
        MachineId::new(0),
        MachineId::new(1),
        2.0,
        0.0,
        2.0,
    )];
    let s = solve(&transfers, &res).unwrap();
    assert!(s.rate(0, 0).abs() < 1e-9 && (s.rate(0, 1) - 2.0).abs() < 1e-9);
    // Reserving that plan too leaves nothing for the same transfer again.
    let mut full = res.clone();
    full.add_schedule(&cluster, &transfers, &s);
    assert_eq!(
        solve(&transfers, &full).unwrap_err(),
        Error::Infeasible { transfers: 1 }
    );
    // Half of slot 1 reserved on machine 1's ingress: 1 bit fits, not 2.
    let half = [LpTransfer::new(
        MachineId::new(2),
        MachineId::new(1),
        1.0,
        1.0,
        2.0,
    )];
    let mut part = res.clone();
    part.add_schedule(&cluster, &half, &solve(&half, &res).unwrap());
    assert_eq!(
        solve(&transfers, &part).unwrap_err(),
        Error::Infeasible { transfers: 1 }
    );
    // Slots in the past are forgotten: after slot 1 nothing is reserved.
    full.forget_before(2);
    assert_eq!(full, Reservations::new());
}

#[test]
fn literal_objective_refused_beyond_floating_point() {
    let cluster = Cluster::uniform(10, BitsPerSec::new(1)).unwrap();
    let transfers: Vec<LpTransfer> = (0..5)
        .map(|i| LpTransfer::new(MachineId::new(i), MachineId::new(i + 5), 1.0, 0.0, 10.0))
        .collect();
    // 5 transfers × 10 slots × 2 ports = 100 port-slots: 100^10 = 1e20 > 1e9.
    match lp::solve(
        &cluster,
        &transfers,
        &Reservations::new(),
        SEC,
        Objective::Flutter { levels: 10 },
        Backend::Microlp,
    ) {
        Err(Error::ObjectiveNotRepresentable {
            base: 100,
            levels: 10,
            largest,
            ..
        }) => assert_eq!(largest, 1e20),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bad_inputs() {
    let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
    let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.0, 3.0, 2.0);
    let r = Reservations::new();
    assert_eq!(
        lp::solve(&cluster, &[t], &r, SEC, Objective::MinMax, Backend::Microlp).unwrap_err(),
        Error::EmptyWindow {
            index: 0,
            release: 3.0,
            deadline: 2.0
        }
    );
    assert!(matches!(
        lp::solve(
            &cluster,
            &[],
            &r,
            Nanos::ZERO,
            Objective::MinMax,
            Backend::Microlp
        ),
        Err(Error::InvalidParameter { name: "slot", .. })
    ));
    // With no transfer there is nothing to solve: an empty schedule.
    let empty = lp::solve(&cluster, &[], &r, SEC, Objective::MinMax, Backend::Microlp).unwrap();
    assert!(empty.is_empty() && empty.solves == 0);
    let mut ok = t;
    ok.deadline = 4.0;
    assert!(matches!(
        lp::solve(
            &cluster,
            &[ok],
            &r,
            SEC,
            Objective::LexLevels { levels: 0 },
            Backend::Microlp
        ),
        Err(Error::InvalidParameter { name: "levels", .. })
    ));
    assert!(matches!(
        lp::alpha_prefix(10, 1.5),
        Err(Error::InvalidParameter { name: "alpha", .. })
    ));
    assert_eq!(lp::alpha_prefix(10, 0.4).unwrap(), 4);
    assert_eq!(lp::alpha_prefix(32, 0.4).unwrap(), 13);
    assert_eq!(lp::alpha_prefix(5, 0.0).unwrap(), 0);
}

#[test]
fn level_and_widening_counts_are_bounded() {
    // Regression: `Flutter { levels: u32::MAX }` passed the coefficient guard (`levels as i32`
    // is -1, so `|δ|^levels` was below 1) and asked for 2^32 λ variables per port-slot
    // (terabytes); `LexLevels { levels: u32::MAX }` asked for 2^32 thresholds (34 GB); and
    // `solve_relaxed` looped over every one of `u32::MAX` widenings.
    let cluster = Cluster::uniform(2, CAP_BPS).unwrap();
    let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 2.0, 0.0, 2.0);
    let r = Reservations::new();
    for objective in [
        Objective::Flutter { levels: u32::MAX },
        Objective::Flutter { levels: 1 << 31 },
        Objective::LexLevels { levels: u32::MAX },
        Objective::LexLevels {
            levels: lp::MAX_LEVELS + 1,
        },
    ] {
        assert_eq!(
            lp::solve(&cluster, &[t], &r, SEC, objective, Backend::Microlp),
            Err(Error::InvalidParameter {
                name: "levels",
                value: match objective {
                    Objective::Flutter { levels } | Objective::LexLevels { levels } =>
                        f64::from(levels),
                    _ => unreachable!(),
                },
                reason: "must lie in 1..=MAX_LEVELS (64)",
            }),
            "{objective:?}"
        );
    }
    // At the bound it is solved (three ports of one slot: |δ|^64 far beyond the Flutter
    // limit, refused for what it is).
    let lex = lp::solve(
        &cluster,
        &[t],
        &r,
        SEC,
        Objective::LexLevels {
            levels: lp::MAX_LEVELS,
        },
        Backend::Microlp,
    )
    .unwrap();
    assert_eq!(lex.solves, lp::MAX_LEVELS as usize);
    assert!(matches!(
        lp::solve(
            &cluster,
            &[t],
            &r,
            SEC,
            Objective::Flutter {
                levels: lp::MAX_LEVELS
            },
            Backend::Microlp
        ),
        Err(Error::ObjectiveNotRepresentable { .. })
    ));
    for max in [lp::MAX_WIDENINGS + 1, u32::MAX] {
        assert_eq!(
            lp::solve_relaxed(
                &cluster,
                &[t],
                &r,
                SEC,
                Objective::MinMax,
                Backend::Microlp,
                max
            ),
            Err(Error::InvalidParameter {
                name: "max_widenings",
                value: f64::from(max),
                reason: "must be at most MAX_WIDENINGS (16)",
            })
        );
    }
    // An infeasible transfer (4 bits in 1 s on a 2 bit/s port) needs one doubling; the
    // bound itself is accepted.
    let tight = LpTransfer::new(MachineId::new(0), MachineId::new(1), 4.0, 0.0, 1.0);
    let relaxed = lp::solve_relaxed(
        &cluster,
        &[tight],
        &r,
        SEC,
        Objective::MinMax,
        Backend::Microlp,
        lp::MAX_WIDENINGS,
    )
    .unwrap();
    assert_eq!(relaxed.widenings, 1);
}

#[test]
fn widening_stops_where_the_lp_would_outgrow_its_bound() {
    // Regression: every doubling of the windows doubled the LP, up to `max_widenings` of them
    // (a 1-slot window became 65,536 slots at 16). The port is reserved in full for 40 s; a
    // 1-bit transfer due within 1 s fits only once its window passes 40 s, the sixth doubling
    // (64 slots), which is more than MAX_RELAXED_GROWTH (32) times the one slot it had.
    assert_eq!(lp::MAX_RELAXED_GROWTH, 32);
    let cluster = Cluster::uniform(2, CAP_BPS).unwrap();
    let fill = LpTransfer::new(MachineId::new(0), MachineId::new(1), CAP * 40.0, 0.0, 40.0);
    let full = lp::solve(
        &cluster,
        &[fill],
        &Reservations::new(),
        SEC,
        Objective::MinMax,
        Backend::Microlp,
    )
    .unwrap();
    let mut r = Reservations::new();
    r.add_schedule(&cluster, &[fill], &full);
    let tiny = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.0, 0.0, 1.0);
    let relax = |max| {
        lp::solve_relaxed(
            &cluster,
            &[tiny],
            &r,
            SEC,
            Objective::MinMax,
            Backend::Microlp,
            max,
        )
    };
    assert_eq!(
        relax(lp::MAX_WIDENINGS),
        Err(Error::Infeasible { transfers: 1 })
    );
    // Five doublings (32 slots) stay within the bound and are tried, still infeasible.
    assert_eq!(relax(5), Err(Error::Infeasible { transfers: 1 }));
    // Without the reservation one slot is enough.
    let free = lp::solve_relaxed(
        &cluster,
        &[tiny],
        &Reservations::new(),
        SEC,
        Objective::MinMax,
        Backend::Microlp,
        lp::MAX_WIDENINGS,
    )
    .unwrap();
    assert_eq!(free.widenings, 0);
}

#[test]
fn oversized_models_are_refused_before_allocating() {
    let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
    let r = Reservations::new();
    // A window of 1e9 slots, and one whose slot count does not fit an i64.
    for (slot, deadline) in [(Nanos::new(1), 1.0), (Nanos::new(1), 1e300)] {
        let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.0, 0.0, deadline);
        assert!(matches!(
            lp::solve(
                &cluster,
                &[t],
                &r,
                slot,
                Objective::MinMax,
                Backend::Microlp
            ),
            Err(Error::InvalidParameter { name: "slot", .. })
        ));
    }
    // 21 transfers of 100,000-slot windows: each allowed, together past the 2,000,000 cap.
    let t = LpTransfer::new(MachineId::new(0), MachineId::new(1), 1.0, 0.0, 100_000.0);
    let many = vec![t; 21];
    assert!(matches!(
        lp::solve(
            &cluster,
            &many,
            &r,
            SEC,
            Objective::MinMax,
            Backend::Microlp
        ),
        Err(Error::InvalidParameter { name: "slot", .. })
    ));
}

/// Integer determinant by fraction-free Bareiss elimination.
fn det(mut a: Vec<Vec<i64>>) -> i64 {
    let n = a.len();
    let mut sign = 1;
    let mut prev = 1;
    for k in 0..n.saturating_sub(1) {
        if a[k][k] == 0 {
            match (k + 1..n).find(|&r| a[r][k] != 0) {
                Some(p) => {
                    a.swap(k, p);
                    sign = -sign;
                }
                None => return 0,
            }
        }
        for i in k + 1..n {
            for j in k + 1..n {
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) / prev;
            }
        }
        prev = a[k][k];
    }
    sign * a[n - 1][n - 1]
}

fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    if n < k {
        return Vec::new();
    }
    let mut out = subsets(n - 1, k);
    for mut s in subsets(n - 1, k - 1) {
        s.push(n - 1);
        out.push(s);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Lemma 3 (an exhaustive total-unimodularity check): on tiny instances every square
    /// submatrix of P1's constraint matrix (rows: per flow Σ_t x, egress(m,t), ingress(m,t);
    /// columns: x_{f,t} inside the window) has determinant in {−1, 0, 1}.
    #[test]
    fn p1_matrix_is_totally_unimodular(
        flows in proptest::collection::vec((0usize..3, 1usize..3, 0usize..3, 0usize..3), 2..4),
    ) {
        let flows: Vec<(usize, usize, usize, usize)> = flows
            .into_iter()
            .map(|(s, d, a, w)| (s, (s + d) % 3, a, (a + w).min(2)))
            .collect();
        let cols: Vec<(usize, usize)> = flows
            .iter()
            .enumerate()
            .flat_map(|(i, &(_, _, a, l))| (a..=l).map(move |t| (i, t)))
            .collect();
        let mut rows: Vec<Vec<i64>> = Vec::new();
        for i in 0..flows.len() {
            rows.push(cols.iter().map(|&(f, _)| i64::from(f == i)).collect());
        }
        for m in 0..3 {
            for t in 0..3 {
                rows.push(cols.iter().map(|&(f, tt)| i64::from(flows[f].0 == m && tt == t)).collect());
                rows.push(cols.iter().map(|&(f, tt)| i64::from(flows[f].1 == m && tt == t)).collect());
            }
        }
        rows.retain(|r| r.iter().any(|&x| x != 0));
        prop_assume!(rows.len() <= 9 && cols.len() <= 9);
        for k in 2..=rows.len().min(cols.len()) {
            for rs in subsets(rows.len(), k) {
                for cs in subsets(cols.len(), k) {
                    let sub: Vec<Vec<i64>> = rs.iter().map(|&r| cs.iter().map(|&c| rows[r][c]).collect()).collect();
                    let d = det(sub);
                    prop_assert!(d.abs() <= 1, "det {d} for rows {rs:?} cols {cs:?} of {flows:?}");
                }
            }
        }
    }
}

#[test]
fn determinant_helper_detects_non_unimodular() {
    // The odd-cycle incidence matrix has determinant 2: the check can fail.
    assert_eq!(
        det(vec![vec![1, 1, 0], vec![0, 1, 1], vec![1, 0, 1]]).abs(),
        2
    );
    assert_eq!(det(vec![vec![1, 0], vec![0, 1]]), 1);
}

/// Regression: slot indices were `floor(release / τ)` and `ceil(deadline / τ)` in `f64`, where
/// `0.3 / 0.1 = 2.999…96` started a transfer released at 0.3 s in slot 2, before its release, and
/// a deadline computed as `3 × 0.1 = 0.30000000000000004` s ended a window a slot late. Indices are now exact in integer nanoseconds.
#[test]
fn windows_are_exact_at_slot_boundaries() {
    let (a, b) = (MachineId::new(0), MachineId::new(1));
    let w = |release: f64, deadline: f64| {
        lp::window(&LpTransfer::new(a, b, 1.0, release, deadline), 0.1)
    };
    assert_eq!(w(0.3, 0.4), (3, 3));
    assert_eq!(w(0.7, 0.8), (7, 7));
    assert_eq!(w(0.0, 0.1), (0, 0));
    assert_eq!(w(0.2, 3.0 * 0.1), (2, 2));
    assert_eq!(w(0.25, 0.35), (2, 3));
    assert_eq!(w(0.3, 0.30000001), (3, 3));
    assert_eq!(w(0.29999999, 0.6), (2, 5));
    // The old float computation for comparison: slot 2 for the release, 4 for the ceiling.
    assert_eq!(
        ((0.3f64 / 0.1).floor(), (3.0f64 * 0.1 / 0.1).ceil()),
        (2.0, 4.0)
    );
    // Slot 3 alone must carry the whole transfer: the optimum is a full port, not a third.
    let cluster = Cluster::uniform(2, CAP_BPS).unwrap();
    let t = [LpTransfer::new(a, b, CAP * 0.1, 0.3, 0.4)];
    let s = lp::solve(
        &cluster,
        &t,
        &Reservations::new(),
        Nanos::from_millis(100),
        Objective::MinMax,
        Backend::Microlp,
    )
    .unwrap();
    assert!((s.min_max - 1.0).abs() < 1e-9, "optimum {}", s.min_max);
    assert_eq!(s.rates(0).map(|(k, _)| k).collect::<Vec<_>>(), vec![3]);
}
