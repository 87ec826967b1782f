//! Flow-level rate allocation over a non-blocking core: per-flow
//! max-min fairness by progressive filling (the TCP / TensorFlow baseline), the strict
//! priority greedy walk (TicTac, FIFO, work conservation) and MADD, the coflow allocation that
//! makes a coflow's flows finish together (Varys; Sincronia's coflows).

mod classes;

pub(crate) use classes::{FairClasses, PriorityClasses};

/// One flow to allocate: the resources it crosses (indices into the free-capacity slice) and
/// an optional rate cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FlowDemand<'a> {
    /// Resources crossed (on the big switch: the sender's egress, the receiver's ingress).
    pub(crate) path: &'a [u32],
    /// Largest rate the flow may take (bits/s); `f64::INFINITY` for none.
    pub(crate) cap: f64,
}

/// Max-min fair rates by progressive filling: every unfrozen flow grows at the same rate until
/// a resource (or a flow's cap) saturates; its flows freeze and the rest continue. `free` holds
/// each resource's free capacity and is decreased by what is allocated.
///
/// Every unfrozen flow has received the same increments since 0, so they share one rate
/// (`level`, the same sum in the same order as a per-flow rate), the per-resource counts of
/// unfrozen flows are kept as flows freeze, and a round touches only the resources in use and
/// the flows of those that saturate. A round takes `count × increment` off a resource in one
/// subtraction, where the textbook per-flow loop subtracts the increment once per flow: the
/// rates agree to rounding, and past 10³ flows on a resource the per-flow loop's roundings
/// exceed the saturation tolerance.
///
/// # Complexity
/// O(F · h + R · (L + C) + Σ_r c_r) time for F flows of at most h resources, L resources, C
/// flows with a finite cap, R rounds (R ≤ L + F) and c_r unfrozen flows on resource r summed
/// over rounds; O(L + F · h) space.
#[must_use]
pub(crate) fn max_min_fair(flows: &[FlowDemand<'_>], free: &mut [f64]) -> Vec<f64> {
    let n = flows.len();
    let mut rate = vec![0.0; n];
    let mut frozen = vec![false; n];
    let mut left = n;
    let mut cnt = vec![0usize; free.len()];
    let mut on: Vec<Vec<u32>> = vec![Vec::new(); free.len()];
    for (f, fl) in flows.iter().enumerate() {
        for &r in fl.path {
            cnt[r as usize] += 1;
            on[r as usize].push(f as u32);
        }
    }
    let capped: Vec<usize> = (0..n).filter(|&f| flows[f].cap.is_finite()).collect();
    let freeze = |f: usize, frozen: &mut [bool], cnt: &mut [usize], left: &mut usize| {
        frozen[f] = true;
        *left -= 1;
        for &r in flows[f].path {
            cnt[r as usize] -= 1;
        }
    };
    let mut level = 0.0f64;
    let mut saturated: Vec<usize> = Vec::new();
    while left > 0 {
        // The smallest equal increment that saturates something.
        let mut inc = f64::INFINITY;
        for (r, &c) in cnt.iter().enumerate() {
            if c > 0 {
                inc = inc.min(free[r].max(0.0) / c as f64);
            }
        }
        for &f in &capped {
            if !frozen[f] {
                inc = inc.min((flows[f].cap - level).max(0.0));
            }
        }
        if !inc.is_finite() {
            break;
        }
        level += inc;
        for (r, &c) in cnt.iter().enumerate() {
            if c > 0 {
                // Once, not `c` times: `c` subtractions of the increment leave up to `c`
                // roundings on the resource, enough past 10³ flows to miss the saturation
                // test below and freeze every flow at a level too low
                // (`many_flows_on_a_port_fill_it`).
                free[r] -= inc * c as f64;
            }
        }
        let tol = 1e-12;
        saturated.clear();
        saturated.extend((0..free.len()).filter(|&r| cnt[r] > 0 && free[r] <= tol * (1.0 + level)));
        let mut froze_any = false;
        for &r in &saturated {
            for &f in &on[r] {
                let f = f as usize;
                if !frozen[f] {
                    rate[f] = level;
                    freeze(f, &mut frozen, &mut cnt, &mut left);
                    froze_any = true;
                }
            }
        }
        for &f in &capped {
            let cap = flows[f].cap;
            if !frozen[f] && level >= cap - tol * (1.0 + cap.abs().min(1e300)) {
                rate[f] = level;
                freeze(f, &mut frozen, &mut cnt, &mut left);
                froze_any = true;
            }
        }
        if !froze_any {
            // Numerical corner: freeze every flow left to guarantee progress.
            for f in 0..n {
                if !frozen[f] {
                    rate[f] = level;
                    freeze(f, &mut frozen, &mut cnt, &mut left);
                }
            }
        }
    }
    for (f, r) in rate.iter_mut().enumerate() {
        if !frozen[f] {
            *r = level;
        }
    }
    for e in free.iter_mut() {
        if *e < 0.0 {
            *e = 0.0;
        }
    }
    rate
}

/// The most a flow can take now: its cap and the free capacity of every resource it crosses.
fn headroom(f: &FlowDemand<'_>, free: &[f64]) -> f64 {
    f.path.iter().fold(f.cap, |x, &r| x.min(free[r as usize]))
}

/// Strict priority: walk `flows` in the given order; each takes
/// `min(cap, free capacity of every resource it crosses)`.
///
/// # Complexity
/// O(F · h) time.
#[must_use]
pub(crate) fn priority_greedy(flows: &[FlowDemand<'_>], free: &mut [f64]) -> Vec<f64> {
    flows
        .iter()
        .map(|f| greedy_take(f.path, f.cap, free))
        .collect()
}

/// One flow's step of [`priority_greedy`]: a flow crossing `path` capped at `cap` takes
/// `min(cap, free capacity of every resource it crosses)` (0 if that is negative) off each
/// resource it crosses; returns what it took. O(h).
pub(crate) fn greedy_take(path: &[u32], cap: f64, free: &mut [f64]) -> f64 {
    let r = headroom(&FlowDemand { path, cap }, free).max(0.0);
    for &p in path {
        free[p as usize] -= r;
    }
    r
}

/// MADD (minimum allocation for desired duration, Varys, SIGCOMM 2014) for one coflow: with
/// `Γ` the coflow's effective bottleneck, the largest over its resources of the bits it still
/// has to move there over the resource's free capacity, every flow gets `remaining / Γ`, so
/// that all finish together at `Γ`. Returns all zeros (the coflow is starved this round) when
/// a resource it needs has no free capacity. `remaining[f]` is flow `f`'s bits left.
///
/// # Complexity
/// O(F · h · log(F · h)) time and O(F · h) space for the coflow's F flows.
#[must_use]
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the coflow policies inline it; the tests' reference"
    )
)]
pub(crate) fn madd(flows: &[FlowDemand<'_>], remaining: &[f64], free: &mut [f64]) -> Vec<f64> {
    // Dense per-resource sums (a BTreeMap here was 37 % of a Sincronia run on the FB2010
    // trace); the maximum below does not depend on the order the resources are visited in.
    let mut load = vec![0.0f64; free.len()];
    let mut seen = vec![false; free.len()];
    let mut touched: Vec<u32> = Vec::new();
    for (f, &r) in flows.iter().zip(remaining) {
        for &p in f.path {
            if !seen[p as usize] {
                seen[p as usize] = true;
                touched.push(p);
            }
            load[p as usize] += r;
        }
    }
    let mut gamma: f64 = 0.0;
    for &p in &touched {
        let bits = load[p as usize];
        let free = free[p as usize];
        if bits <= 0.0 {
            continue;
        }
        if free <= 0.0 {
            return vec![0.0; flows.len()];
        }
        gamma = gamma.max(bits / free);
    }
    if gamma <= 0.0 {
        return vec![0.0; flows.len()];
    }
    flows
        .iter()
        .zip(remaining)
        .map(|(f, &r)| {
            let x = (r / gamma).min(headroom(f, free)).max(0.0);
            for &p in f.path {
                free[p as usize] -= x;
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-flow progressive filling [`max_min_fair`] replaced (every round passed over
    /// every flow), kept to check that the faster one does the same arithmetic.
    fn reference_max_min_fair(flows: &[FlowDemand<'_>], free: &mut [f64]) -> Vec<f64> {
        let n = flows.len();
        let mut rate = vec![0.0; n];
        let mut frozen = vec![false; n];
        let mut left = n;
        let mut cnt = vec![0usize; free.len()];
        while left > 0 {
            cnt.iter_mut().for_each(|c| *c = 0);
            for (f, fl) in flows.iter().enumerate() {
                if !frozen[f] {
                    for &r in fl.path {
                        cnt[r as usize] += 1;
                    }
                }
            }
            // The smallest equal increment that saturates something.
            let mut inc = f64::INFINITY;
            for (r, &c) in cnt.iter().enumerate() {
                if c > 0 {
                    inc = inc.min(free[r].max(0.0) / c as f64);
                }
            }
            for (f, fl) in flows.iter().enumerate() {
                if !frozen[f] {
                    inc = inc.min((fl.cap - rate[f]).max(0.0));
                }
            }
            if !inc.is_finite() {
                break;
            }
            for (f, fl) in flows.iter().enumerate() {
                if !frozen[f] {
                    rate[f] += inc;
                    for &r in fl.path {
                        free[r as usize] -= inc;
                    }
                }
            }
            let tol = 1e-12;
            let mut froze_any = false;
            for (f, fl) in flows.iter().enumerate() {
                if !frozen[f]
                    && (fl
                        .path
                        .iter()
                        .any(|&r| free[r as usize] <= tol * (1.0 + rate[f]))
                        || rate[f] >= fl.cap - tol * (1.0 + fl.cap.abs().min(1e300)))
                {
                    frozen[f] = true;
                    left -= 1;
                    froze_any = true;
                }
            }
            if !froze_any {
                // Numerical corner: freeze the flows on the tightest port to guarantee progress.
                for fr in frozen.iter_mut().filter(|fr| !**fr) {
                    *fr = true;
                    left -= 1;
                }
            }
        }
        for e in free.iter_mut() {
            if *e < 0.0 {
                *e = 0.0;
            }
        }
        rate
    }

    /// Whether `rate` is max-min fair for `flows` on capacities `cap`: within capacity, and
    /// every flow crosses a resource that is full (to `tol` of its capacity) on which no flow
    /// has a larger rate.
    fn is_max_min_fair(flows: &[FlowDemand<'_>], rate: &[f64], cap: &[f64], tol: f64) -> bool {
        let mut load = vec![0.0; cap.len()];
        let mut top = vec![0.0f64; cap.len()];
        for (f, &r) in flows.iter().zip(rate) {
            for &p in f.path {
                load[p as usize] += r;
                top[p as usize] = top[p as usize].max(r);
            }
        }
        let within = load.iter().zip(cap).all(|(l, c)| *l <= c * (1.0 + tol));
        within
            && flows.iter().zip(rate).all(|(f, &r)| {
                f.path.iter().any(|&p| {
                    let p = p as usize;
                    load[p] >= cap[p] * (1.0 - tol) && r >= top[p] * (1.0 - tol)
                })
            })
    }

    proptest::proptest! {
        /// After the uncapped greedy walk over some flows every one of them is blocked, and
        /// max-min fair sharing among them gives each 0 and leaves every free capacity as it
        /// was, bit for bit: JIT's LatPriority skips that sharing.
        #[test]
        fn after_the_greedy_walk_fair_sharing_gives_nothing(
            specs in proptest::collection::vec((0usize..3, 0usize..3, proptest::bool::ANY, 1u32..9), 0..30),
            caps in proptest::collection::vec(1u32..50, 6),
        ) {
            // First capped flows (JIT's planned passes), which need not end blocked.
            let mut free: Vec<f64> = caps.iter().map(|&c| f64::from(c) / 7.0).collect();
            for &(s, d, _, cap) in &specs {
                greedy_take(&PATHS[s * 3 + d], f64::from(cap) / 3.0, &mut free);
            }
            // Then some of them again, uncapped (LatPriority's pass), each blocked after it.
            let shared: Vec<FlowDemand<'_>> = specs
                .iter()
                .filter(|&&(_, _, share, _)| share)
                .map(|&(s, d, _, _)| fd(s, d))
                .collect();
            let mut walked = free.clone();
            for f in &shared {
                greedy_take(f.path, f.cap, &mut walked);
                proptest::prop_assert!(f.path.iter().any(|&p| walked[p as usize] <= 0.0));
            }
            let before: Vec<u64> = walked.iter().map(|x| x.to_bits()).collect();
            let r = max_min_fair(&shared, &mut walked);
            proptest::prop_assert!(r.iter().all(|&x| x.to_bits() == 0.0f64.to_bits()));
            proptest::prop_assert_eq!(walked.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), before);
        }

        /// The rates and free capacities of the per-flow loop, to rounding, and max-min fair.
        #[test]
        fn max_min_fair_is_the_per_flow_loop(
            specs in proptest::collection::vec((0u32..6, 0u32..6, proptest::option::of(1u32..40)), 0..40),
            caps in proptest::collection::vec(1u32..50, 6),
        ) {
            let paths: Vec<[u32; 2]> = specs.iter().map(|&(a, b, _)| [a, 6 + b]).collect();
            let flows: Vec<FlowDemand<'_>> = specs
                .iter()
                .zip(&paths)
                .map(|(&(_, _, cap), p)| FlowDemand {
                    path: p,
                    cap: cap.map_or(f64::INFINITY, |c| f64::from(c) / 7.0),
                })
                .collect();
            let free0: Vec<f64> = caps.iter().chain(&caps).map(|&c| f64::from(c) / 3.0).collect();
            let (mut fa, mut fb) = (free0.clone(), free0.clone());
            let a = max_min_fair(&flows, &mut fa);
            let b = reference_max_min_fair(&flows, &mut fb);
            for (x, y) in a.iter().zip(&b).chain(fa.iter().zip(&fb)) {
                proptest::prop_assert!((x - y).abs() <= 1e-12 * 50.0, "{} vs {}", x, y);
            }
            let uncapped: Vec<FlowDemand<'_>> = flows.iter().map(|f| FlowDemand { cap: f64::INFINITY, ..*f }).collect();
            let mut fc = free0.clone();
            let c = max_min_fair(&uncapped, &mut fc);
            proptest::prop_assert!(is_max_min_fair(&uncapped, &c, &free0, 1e-9));
        }
    }

    /// Regression: 1,111 flows into one 1 Gbit/s receiver, one of whose senders also sends
    /// elsewhere. The per-flow loop's 1,111 subtractions left the receiver above the
    /// saturation tolerance, the round froze nothing, and the fallback froze every flow at
    /// the level reached: the second flow of sender 0 got 0.9 Mbit/s instead of what its
    /// sender has left, 1/3 Gbit/s less its share of the receiver. (The reference loop above
    /// still does that; at this size the two part.)
    #[test]
    fn many_flows_on_a_port_fill_it() {
        let n = 1111u32;
        // Senders 0..n to receiver 3n (capacity 1e9); sender 0 also sends to resource 3n + 1.
        let mut paths: Vec<[u32; 2]> = (0..n).map(|s| [s, 3 * n]).collect();
        paths.push([0, 3 * n + 1]);
        let flows: Vec<FlowDemand<'_>> = paths
            .iter()
            .map(|p| FlowDemand {
                path: p,
                cap: f64::INFINITY,
            })
            .collect();
        let mut cap = vec![1e9 / 3.0; 3 * n as usize + 2];
        cap[3 * n as usize] = 1e9;
        let mut free = cap.clone();
        let r = max_min_fair(&flows, &mut free);
        assert!(is_max_min_fair(&flows, &r, &cap, 1e-9));
        let side = 1e9 / 3.0 - 1e9 / f64::from(n);
        assert!(
            (r[n as usize] - side).abs() < 1e-3 * side,
            "{}",
            r[n as usize]
        );
        let mut free = cap.clone();
        let old = reference_max_min_fair(&flows, &mut free);
        assert!(
            old[n as usize] < 1e-2 * side,
            "the per-flow loop's defect is gone"
        );
    }

    /// Big switch of three machines: egress `m` is resource `m`, ingress `m` is `3 + m`.
    const PATHS: [[u32; 2]; 9] = {
        let mut p = [[0; 2]; 9];
        let mut k = 0;
        while k < 9 {
            p[k] = [(k / 3) as u32, 3 + (k % 3) as u32];
            k += 1;
        }
        p
    };

    fn fd(src: usize, dst: usize) -> FlowDemand<'static> {
        FlowDemand {
            path: &PATHS[src * 3 + dst],
            cap: f64::INFINITY,
        }
    }

    #[test]
    fn max_min_classic() {
        // Three flows out of machine 0 (capacity 3); flow 2 also shares receiver 2 (capacity 0.5).
        let flows = [fd(0, 1), fd(0, 1), fd(0, 2)];
        let mut free = vec![3.0, 3.0, 3.0, 3.0, 3.0, 0.5];
        let r = max_min_fair(&flows, &mut free);
        assert!((r[2] - 0.5).abs() < 1e-12);
        assert!((r[0] - 1.25).abs() < 1e-12 && (r[1] - 1.25).abs() < 1e-12);
        assert!(free[0].abs() < 1e-12);
    }

    #[test]
    fn max_min_respects_caps() {
        let flows = [
            FlowDemand {
                cap: 0.2,
                ..fd(0, 1)
            },
            fd(0, 1),
        ];
        let r = max_min_fair(&flows, &mut [1.0; 6]);
        assert!((r[0] - 0.2).abs() < 1e-12 && (r[1] - 0.8).abs() < 1e-12);
    }

    #[test]
    fn max_min_over_a_shared_core_link() {
        // Two flows on disjoint ports that share one core link (resource 6, capacity 1): each
        // gets half of it; a third flow that avoids it takes its ports' full capacity.
        let a = [0, 6, 4];
        let b = [1, 6, 5];
        let c = [2, 3];
        let ab = [a, b];
        let flows = ab
            .iter()
            .map(|p| FlowDemand {
                path: p,
                cap: f64::INFINITY,
            })
            .chain([FlowDemand {
                path: &c,
                cap: f64::INFINITY,
            }])
            .collect::<Vec<_>>();
        let mut free = vec![2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 1.0];
        let r = max_min_fair(&flows, &mut free);
        assert_eq!(r, vec![0.5, 0.5, 2.0]);
    }

    #[test]
    fn madd_finishes_a_coflow_together() {
        // 3 and 1 bits into receiver 2 (capacity 2), 2 bits out of sender 1 (capacity 1):
        // Γ = max(4/2, 2/1, 3/1) = 3 (sender 0 holds 3 bits at capacity 1).
        let flows = [fd(0, 2), fd(1, 2), fd(1, 0)];
        let mut free = vec![1.0, 1.0, 1.0, 1.0, 1.0, 2.0];
        let r = madd(&flows, &[3.0, 1.0, 1.0], &mut free);
        let g = 3.0;
        assert!((r[0] - 3.0 / g).abs() < 1e-12);
        assert!((r[1] - 1.0 / g).abs() < 1e-12 && (r[2] - 1.0 / g).abs() < 1e-12);
        assert!(free[0].abs() < 1e-12 && (free[5] - (2.0 - 4.0 / g)).abs() < 1e-12);
        // A port without free capacity starves the coflow.
        let r = madd(&flows, &[3.0, 1.0, 1.0], &mut free);
        assert_eq!(r, vec![0.0; 3]);
    }

    #[test]
    fn greedy_is_strict_priority() {
        let flows = [fd(0, 1), fd(0, 2), fd(1, 2)];
        let r = priority_greedy(&flows, &mut [1.0; 6]);
        assert_eq!(r, vec![1.0, 0.0, 1.0]);
    }
}
