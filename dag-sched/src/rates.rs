//! Flow-level rate allocation over a non-blocking core (reference `dag.md` §1.4): per-flow
//! max-min fairness by progressive filling (the TCP / TensorFlow baseline), the strict
//! priority greedy walk (TicTac, FIFO, work conservation) and MADD, the coflow allocation that
//! makes a coflow's flows finish together (Varys; Sincronia's coflows, reference §1.3).

/// One flow to allocate: sender and receiver (machine indices) and an optional rate cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowDemand {
    /// Sending machine index.
    pub src: usize,
    /// Receiving machine index.
    pub dst: usize,
    /// Largest rate the flow may take (bits/s); `f64::INFINITY` for none.
    pub cap: f64,
}

/// Max-min fair rates by progressive filling: every unfrozen flow grows at the same rate until
/// a port (or a flow's cap) saturates; its flows freeze and the rest continue. `egress` and
/// `ingress` hold each machine's free capacity and are decreased by what is allocated.
///
/// # Complexity
/// O(R · F) time for F flows and R rounds (R ≤ ports + flows), O(M + F) space.
#[must_use]
pub fn max_min_fair(flows: &[FlowDemand], egress: &mut [f64], ingress: &mut [f64]) -> Vec<f64> {
    let n = flows.len();
    let mut rate = vec![0.0; n];
    let mut frozen = vec![false; n];
    let mut left = n;
    let mut cnt_e = vec![0usize; egress.len()];
    let mut cnt_i = vec![0usize; ingress.len()];
    while left > 0 {
        cnt_e.iter_mut().for_each(|c| *c = 0);
        cnt_i.iter_mut().for_each(|c| *c = 0);
        for (f, fl) in flows.iter().enumerate() {
            if !frozen[f] {
                cnt_e[fl.src] += 1;
                cnt_i[fl.dst] += 1;
            }
        }
        // The smallest equal increment that saturates something.
        let mut inc = f64::INFINITY;
        for (m, &c) in cnt_e.iter().enumerate() {
            if c > 0 {
                inc = inc.min(egress[m].max(0.0) / c as f64);
            }
        }
        for (m, &c) in cnt_i.iter().enumerate() {
            if c > 0 {
                inc = inc.min(ingress[m].max(0.0) / c as f64);
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
                egress[fl.src] -= inc;
                ingress[fl.dst] -= inc;
            }
        }
        let tol = 1e-12;
        let mut froze_any = false;
        for (f, fl) in flows.iter().enumerate() {
            if !frozen[f]
                && (egress[fl.src] <= tol * (1.0 + rate[f])
                    || ingress[fl.dst] <= tol * (1.0 + rate[f])
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
    for e in egress.iter_mut().chain(ingress.iter_mut()) {
        if *e < 0.0 {
            *e = 0.0;
        }
    }
    rate
}

/// Strict priority: walk `flows` in the given order; each takes
/// `min(cap, free egress of its sender, free ingress of its receiver)`.
///
/// # Complexity
/// O(F) time.
#[must_use]
pub fn priority_greedy(flows: &[FlowDemand], egress: &mut [f64], ingress: &mut [f64]) -> Vec<f64> {
    flows
        .iter()
        .map(|f| {
            let r = f.cap.min(egress[f.src]).min(ingress[f.dst]).max(0.0);
            egress[f.src] -= r;
            ingress[f.dst] -= r;
            r
        })
        .collect()
}

/// MADD (minimum allocation for desired duration, reference `dag.md` §1.3) for one coflow:
/// with `Γ` the coflow's effective bottleneck, the largest over its ports of the bits it still
/// has to move there over the port's free capacity, every flow gets `remaining / Γ`, so that
/// all finish together at `Γ`. Returns all zeros (the coflow is starved this round) when a
/// port it needs has no free capacity. `remaining[f]` is flow `f`'s bits left.
///
/// # Complexity
/// O(F log F) time and O(F) space for the coflow's F flows.
#[must_use]
pub fn madd(
    flows: &[FlowDemand],
    remaining: &[f64],
    egress: &mut [f64],
    ingress: &mut [f64],
) -> Vec<f64> {
    // Port key: egress ports as 2m, ingress as 2m + 1.
    let mut load: std::collections::BTreeMap<usize, f64> = std::collections::BTreeMap::new();
    for (f, &r) in flows.iter().zip(remaining) {
        *load.entry(2 * f.src).or_default() += r;
        *load.entry(2 * f.dst + 1).or_default() += r;
    }
    let mut gamma: f64 = 0.0;
    for (&p, &bits) in &load {
        let free = if p % 2 == 0 {
            egress[p / 2]
        } else {
            ingress[p / 2]
        };
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
            let x = (r / gamma)
                .min(f.cap)
                .min(egress[f.src])
                .min(ingress[f.dst])
                .max(0.0);
            egress[f.src] -= x;
            ingress[f.dst] -= x;
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd(src: usize, dst: usize) -> FlowDemand {
        FlowDemand {
            src,
            dst,
            cap: f64::INFINITY,
        }
    }

    #[test]
    fn max_min_classic() {
        // Three flows out of machine 0 (capacity 3); flow 2 also shares receiver 2 (capacity 0.5).
        let flows = [fd(0, 1), fd(0, 1), fd(0, 2)];
        let mut e = vec![3.0, 3.0, 3.0];
        let mut i = vec![3.0, 3.0, 0.5];
        let r = max_min_fair(&flows, &mut e, &mut i);
        assert!((r[2] - 0.5).abs() < 1e-12);
        assert!((r[0] - 1.25).abs() < 1e-12 && (r[1] - 1.25).abs() < 1e-12);
        assert!(e[0].abs() < 1e-12);
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
        let r = max_min_fair(&flows, &mut [1.0, 1.0], &mut [1.0, 1.0]);
        assert!((r[0] - 0.2).abs() < 1e-12 && (r[1] - 0.8).abs() < 1e-12);
    }

    #[test]
    fn madd_finishes_a_coflow_together() {
        // 3 and 1 bits into receiver 2 (capacity 2), 2 bits out of sender 1 (capacity 1):
        // Γ = max(4/2, 2/1, 3/1) = 3 (sender 0 holds 3 bits at capacity 1).
        let flows = [fd(0, 2), fd(1, 2), fd(1, 0)];
        let mut e = vec![1.0, 1.0, 1.0];
        let mut i = vec![1.0, 1.0, 2.0];
        let r = madd(&flows, &[3.0, 1.0, 1.0], &mut e, &mut i);
        let g = 3.0;
        assert!((r[0] - 3.0 / g).abs() < 1e-12);
        assert!((r[1] - 1.0 / g).abs() < 1e-12 && (r[2] - 1.0 / g).abs() < 1e-12);
        assert!(e[0].abs() < 1e-12 && (i[2] - (2.0 - 4.0 / g)).abs() < 1e-12);
        // A port without free capacity starves the coflow.
        let r = madd(&flows, &[3.0, 1.0, 1.0], &mut e, &mut i);
        assert_eq!(r, vec![0.0; 3]);
    }

    #[test]
    fn greedy_is_strict_priority() {
        let flows = [fd(0, 1), fd(0, 2), fd(1, 2)];
        let r = priority_greedy(&flows, &mut [1.0, 1.0, 1.0], &mut [1.0, 1.0, 1.0]);
        assert_eq!(r, vec![1.0, 0.0, 1.0]);
    }
}
