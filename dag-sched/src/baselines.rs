//! The baselines' ordering rules: TicTac's TIC and TAC priorities inside one job, and
//! Sincronia's BSSI order over coflows.
//!
//! - TicTac: Hashemi, Abdu Jyothi and Campbell, "TicTac: Accelerating Distributed Deep
//!   Learning with Communication Scheduling", MLSys 2019.
//! - Sincronia: Agarwal, Rajakrishnan, Narayan, Agarwal, Shmoys and Vahdat, "Sincronia:
//!   Near-Optimal Network Design for Coflows", SIGCOMM 2018.

use crate::cluster::Cluster;
use crate::job::{Job, NodeKind};
use crate::lat::trans_of;

/// Priority of every transfer of `job` by TicTac (lower = sent first), indexed like
/// [`Job::transfers`].
///
/// With `timing_aware = false` this is TIC (transfer time 1, compute time 0: the order of the
/// impending communication load `M⁺`); with `true` it is TAC: transfer time `S/C`, compute time
/// its load, and the greedy loop that picks, among outstanding transfers, the best under
/// Johnson's rule `A ≺ B ⇔ min(P_B, M_A) < min(P_A, M_B)`, ties by smaller `M⁺`, then by
/// topological position.
///
/// Dependencies stop at transfers: a transfer's `dep` is itself, a compute task's is the union
/// of its inputs' (TicTac's `op.dep`).
///
/// # Complexity
/// O(T · D) time for T transfers and D = Σ over compute tasks of |dep| (kept incrementally:
/// removing a transfer updates only the tasks that depend on it), O(D) space.
#[must_use]
pub fn tictac_order(job: &Job, cluster: &Cluster, timing_aware: bool) -> Vec<u32> {
    let transfers = job.transfers();
    let t_count = transfers.len();
    let mut tindex = vec![usize::MAX; job.len()];
    for (k, &t) in transfers.iter().enumerate() {
        tindex[t.index()] = k;
    }
    // Hand-written u64 words, not bitvec: `cargo bench -p criterion-benches --bench dag_sched_bits --
    // dag_dep_sets` (one run, 2-core VM) gave for the pulls-and-pushes iterations VGG16
    // 17.9 µs here against 29.5 µs with `BitVec` (`|=`, `iter_ones`) and 21.6 µs with `BitVec`
    // OR-ed through its raw words; Inception-v3 127 µs against 908 and 570; ResNet-152 547 µs
    // against 3,643 and 2,629.
    let words = t_count.div_ceil(64).max(1);
    let mut dep = vec![vec![0u64; words]; job.len()];
    for &v in job.topo_order() {
        if let Some(&k) = tindex.get(v.index()).filter(|&&k| k != usize::MAX) {
            dep[v.index()][k / 64] |= 1 << (k % 64);
        } else {
            let mut acc = vec![0u64; words];
            for p in job.preds(v) {
                for (a, b) in acc.iter_mut().zip(&dep[p.index()]) {
                    *a |= *b;
                }
            }
            dep[v.index()] = acc;
        }
    }
    let time_t: Vec<f64> = transfers
        .iter()
        .map(|&t| {
            if timing_aware {
                trans_of(job.node(t), cluster)
            } else {
                1.0
            }
        })
        .collect();
    struct Op {
        time: f64,
        deps: Vec<usize>,
        cnt: usize,
        sum: f64,
        xor: usize,
    }
    let mut ops: Vec<Op> = Vec::new();
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); t_count];
    for &v in job.topo_order() {
        if let NodeKind::Compute { load } = job.node(v) {
            let deps: Vec<usize> = (0..t_count)
                .filter(|&k| dep[v.index()][k / 64] >> (k % 64) & 1 == 1)
                .collect();
            if deps.is_empty() {
                continue;
            }
            let o = ops.len();
            for &k in &deps {
                users[k].push(o);
            }
            ops.push(Op {
                time: if timing_aware { load } else { 0.0 },
                cnt: deps.len(),
                sum: deps.iter().map(|&k| time_t[k]).sum(),
                xor: deps.iter().fold(0, |a, &k| a ^ k),
                deps,
            });
        }
    }
    let mut outstanding = vec![true; t_count];
    let mut prio = vec![0u32; t_count];
    let mut p = vec![0.0; t_count];
    let mut mp = vec![f64::INFINITY; t_count];
    for k in 0..t_count {
        p.iter_mut().for_each(|x| *x = 0.0);
        mp.iter_mut().for_each(|x| *x = f64::INFINITY);
        for op in &ops {
            if op.cnt == 1 {
                p[op.xor] += op.time;
            } else if op.cnt > 1 {
                for &r in &op.deps {
                    if outstanding[r] && op.sum < mp[r] {
                        mp[r] = op.sum;
                    }
                }
            }
        }
        let m = &time_t;
        let better = |a: usize, b: usize| {
            let l = p[b].min(m[a]);
            let r = p[a].min(m[b]);
            if l < r {
                true
            } else if l > r {
                false
            } else {
                mp[a] < mp[b]
            }
        };
        let mut best = usize::MAX;
        for (r, &out) in outstanding.iter().enumerate() {
            if out && (best == usize::MAX || better(r, best)) {
                best = r;
            }
        }
        prio[best] = k as u32;
        outstanding[best] = false;
        for &o in &users[best] {
            let op = &mut ops[o];
            op.cnt -= 1;
            op.sum -= time_t[best];
            op.xor ^= best;
        }
    }
    prio
}

/// Sincronia's Bottleneck–Select–Scale–Iterate order. `demand[j]` lists coflow `j`'s
/// `(port, demand)` pairs (demand in seconds or bits, any consistent unit); `weights[j]` is its
/// weight. Returns the coflows from highest to lowest priority. Coflows with no demand come
/// first. Ties go to the lowest port index and then the lowest coflow index.
///
/// # Complexity
/// O(n · (n·k + P)) time for n coflows of at most k ports each and P ports, O(n + P) space.
#[must_use]
pub fn bssi_order(demand: &[Vec<(usize, f64)>], weights: &[f64], ports: usize) -> Vec<usize> {
    let n = demand.len();
    let mut w: Vec<f64> = (0..n)
        .map(|j| weights.get(j).copied().unwrap_or(1.0))
        .collect();
    let mut unordered: Vec<usize> = Vec::new();
    let mut front: Vec<usize> = Vec::new();
    for (j, d) in demand.iter().enumerate() {
        if d.iter().any(|&(_, x)| x > 0.0) {
            unordered.push(j);
        } else {
            front.push(j);
        }
    }
    let mut back: Vec<usize> = Vec::with_capacity(unordered.len());
    let mut load = vec![0.0; ports];
    let d_at = |j: usize, b: usize| -> f64 {
        demand[j]
            .iter()
            .filter(|&&(p, _)| p == b)
            .map(|&(_, x)| x)
            .sum()
    };
    while !unordered.is_empty() {
        // Bottleneck.
        load.iter_mut().for_each(|x| *x = 0.0);
        for &j in &unordered {
            for &(p, x) in &demand[j] {
                if p < ports {
                    load[p] += x;
                }
            }
        }
        let mut b = 0;
        for p in 1..ports {
            if load[p] > load[b] {
                b = p;
            }
        }
        // Select: the smallest w/d at b goes last.
        let mut sigma = usize::MAX;
        let mut best = f64::INFINITY;
        for &j in &unordered {
            let d = d_at(j, b);
            if d > 0.0 && w[j] / d < best {
                best = w[j] / d;
                sigma = j;
            }
        }
        if sigma == usize::MAX {
            // Only demands on ports ≥ `ports`: keep the given order.
            back.extend(unordered.iter().rev());
            break;
        }
        // Scale.
        let ds = d_at(sigma, b);
        for &j in &unordered {
            if j != sigma {
                w[j] -= w[sigma] * d_at(j, b) / ds;
            }
        }
        back.push(sigma);
        unordered.retain(|&j| j != sigma);
    }
    back.reverse();
    front.extend(back);
    front
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::MachineId;
    use crate::job::JobBuilder;
    use fabric_model::BitsPerSec;

    #[test]
    fn bssi_four_ports() {
        // Ports 0, 1 ingress, 2, 3 egress. A = {0:3, 2:3}, B = {0:1, 2:1}, C = {1:2, 3:2}.
        // Step 3: bottleneck port 0 (load 4); w/d: A 1/3, B 1 → A last; B's weight 1 − 1/3.
        // Step 2: loads 1, 2, 1, 2 → port 1; only C there → C. Step 1: B. Order B, C, A.
        let d = vec![
            vec![(0, 3.0), (2, 3.0)],
            vec![(0, 1.0), (2, 1.0)],
            vec![(1, 2.0), (3, 2.0)],
        ];
        assert_eq!(bssi_order(&d, &[1.0, 1.0, 1.0], 4), vec![1, 2, 0]);
        // Weight 10 on A: step 3 at port 0 has w/d A 10/3, B 1 → B last, A's weight 10 − 3 = 7;
        // step 2: port 0 (load 3) holds only A → A; step 1: C. Order C, A, B.
        assert_eq!(bssi_order(&d, &[10.0, 1.0, 1.0], 4), vec![2, 0, 1]);
        // An empty coflow comes first.
        let mut d2 = d.clone();
        d2.push(Vec::new());
        assert_eq!(bssi_order(&d2, &[1.0; 4], 4), vec![3, 1, 2, 0]);
    }

    /// Fig. 1 shape: T1 → C1 → C2 ← T2. Both TIC and TAC send T1 first (C2 needs both).
    #[test]
    fn tictac_small() {
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let t2 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let t1 = b.transfer_bits(1.0, MachineId::new(0), MachineId::new(1));
        let c1 = b.compute_secs(3.0);
        let c2 = b.compute_secs(1.0);
        b.edge(t1, c1).edge(c1, c2).edge(t2, c2);
        let job = b.build(&cluster).unwrap();
        let pos = |n| job.transfers().iter().position(|&x| x == n).unwrap();
        let tac = tictac_order(&job, &cluster, true);
        // TAC: P(T1) = 3 (C1 depends on T1 only), P(T2) = 0; M = 1 each.
        // T1 ≺ T2 ⇔ min(P2, M1) = 0 < min(P1, M2) = 1: T1 first.
        assert_eq!(tac[pos(t1)], 0);
        assert_eq!(tac[pos(t2)], 1);
        // TIC: both have M⁺ = 2 (C2 needs both), so ties fall to topological position.
        let tic = tictac_order(&job, &cluster, false);
        assert_eq!(tic[pos(t2)], 0);
    }

    #[test]
    fn tac_prefers_larger_compute_unlock() {
        // T_a unlocks 5 s of compute, T_b 1 s; equal sizes: Johnson's rule sends T_a first.
        let cluster = Cluster::uniform(2, BitsPerSec::new(1)).unwrap();
        let mut b = JobBuilder::new();
        let tb = b.transfer_bits(2.0, MachineId::new(0), MachineId::new(1));
        let ta = b.transfer_bits(2.0, MachineId::new(0), MachineId::new(1));
        let ca = b.compute_secs(5.0);
        let cb = b.compute_secs(1.0);
        b.edge(ta, ca).edge(tb, cb);
        let job = b.build(&cluster).unwrap();
        let pos = |n| job.transfers().iter().position(|&x| x == n).unwrap();
        let tac = tictac_order(&job, &cluster, true);
        assert_eq!(tac[pos(ta)], 0);
        assert_eq!(tac[pos(tb)], 1);
    }
}
