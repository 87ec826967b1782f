//! Flow-level rate allocation over a non-blocking core: per-flow
//! max-min fairness by progressive filling (the TCP / TensorFlow baseline), the strict
//! priority greedy walk (TicTac, FIFO, work conservation) and MADD, the coflow allocation that
//! makes a coflow's flows finish together (Varys; Sincronia's coflows).

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
/// # Complexity
/// O(R · (F · h + L)) time for F flows of at most h resources, L resources and R rounds
/// (R ≤ L + F), O(L + F) space.
#[must_use]
pub(crate) fn max_min_fair(flows: &[FlowDemand<'_>], free: &mut [f64]) -> Vec<f64> {
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
        .map(|f| {
            let r = headroom(f, free).max(0.0);
            for &p in f.path {
                free[p as usize] -= r;
            }
            r
        })
        .collect()
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
