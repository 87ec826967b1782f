//! Deterministic synthetic modex data for tests, benchmarks and the `reproduce` experiments.

use crate::blob::{FenceBlob, ProcEntry};
use crate::error::Result;
use crate::ident::{ProcId, Rank};
use crate::store::{Client, JobInfo, NodeStore};
use crate::value::{Scope, Value};

/// The key [`get_hit_store`] commits.
pub const HIT_KEY: &str = "btl.tcp.addr";

/// The `get`-hit benchmark's node: a two-process job (`slurm.pmix.1234567.0`, both ranks on
/// this node) where rank 0 committed [`HIT_KEY`] = `U64(0xdeadbeef)` with `Global` scope.
/// Returns the store, rank 0 (the target) and a client for rank 1 (the reader).
///
/// # Errors
/// None in practice (the job and key are valid); the store's errors otherwise.
pub fn get_hit_store() -> Result<(NodeStore, ProcId, Client)> {
    let mut store = NodeStore::new();
    let ns = store.register_job(
        "slurm.pmix.1234567.0",
        &JobInfo {
            size: 2,
            local_peers: vec![Rank(0), Rank(1)],
            node_id: 0,
            hostname: "n0".into(),
            num_nodes: 1,
            proc_nodes: None,
            extra: vec![],
        },
    )?;
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    p0.put(Scope::Global, HIT_KEY, Value::U64(0xdead_beef))?;
    p0.commit(&mut store)?;
    Ok((store, p0.id(), Client::new(ProcId::new(ns, Rank(1)))))
}

/// The shape of a node's modex contribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModexShape {
    /// Namespace name (Slurm's are at least 21 bytes, paper §4.2.2 (1)).
    pub nspace: String,
    /// Processes contributing (ranks `first_rank..first_rank + ranks`).
    pub ranks: u32,
    /// First rank.
    pub first_rank: u32,
    /// Keys per process.
    pub keys_per_rank: usize,
    /// Key length in bytes (longer only when needed to keep keys distinct: `k<i>.` prefix).
    pub key_len: usize,
    /// Value lengths: key `k` of `K` gets `min + (max − min)·k/(K − 1)` bytes, spreading the keys
    /// evenly over `min..=max`.
    pub value_len: (usize, usize),
    /// Bytes at the end of each value that differ between processes (a UCX worker address's
    /// own part: 21 B in the paper, §4.2.1); the rest is a per-key transport descriptor shared
    /// by all processes. `usize::MAX` makes every byte per-process.
    pub unique_tail: usize,
    /// Seed of the generator.
    pub seed: u64,
}

impl Default for ModexShape {
    fn default() -> Self {
        Self {
            nspace: "slurm.pmix.1234567.0".into(),
            ranks: 128,
            first_rank: 0,
            keys_per_rank: 8,
            key_len: 16,
            value_len: (21, 51),
            unique_tail: 21,
            seed: 1,
        }
    }
}

/// SplitMix64: a tiny portable generator (same output on every platform).
#[derive(Debug, Clone)]
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

/// A blob of `shape`: every process puts the same keys (as MPI runtimes do) with byte values.
///
/// # Complexity
/// O(ranks × keys × value length).
#[must_use]
pub fn modex_blob(shape: &ModexShape) -> FenceBlob {
    let mut g = SplitMix(shape.seed);
    let mut keys = Vec::with_capacity(shape.keys_per_rank);
    let mut shared = Vec::with_capacity(shape.keys_per_rank);
    for k in 0..shape.keys_per_rank {
        let mut name = format!("k{k}.");
        while name.len() < shape.key_len {
            name.push(char::from(b'a' + (g.below(26) as u8)));
        }
        keys.push(name);
        let (lo, hi) = shape.value_len;
        let span = hi.saturating_sub(lo);
        let len = lo + span * k / shape.keys_per_rank.saturating_sub(1).max(1);
        let common = len.saturating_sub(shape.unique_tail);
        shared.push((
            (0..common).map(|_| g.next() as u8).collect::<Vec<u8>>(),
            len,
        ));
    }
    let entries = (0..shape.ranks)
        .map(|i| ProcEntry {
            rank: Rank(shape.first_rank + i),
            kvs: keys
                .iter()
                .zip(&shared)
                .map(|(k, (prefix, len))| {
                    let mut v = prefix.clone();
                    while v.len() < *len {
                        v.push(g.next() as u8);
                    }
                    (k.clone(), Value::Bytes(v))
                })
                .collect(),
        })
        .collect();
    FenceBlob {
        nspace: shape.nspace.clone(),
        collect: true,
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{GetOptions, GetOutcome};

    #[test]
    fn get_hit_store_has_the_key_committed() {
        let (store, target, mut reader) = get_hit_store().unwrap();
        assert_eq!(
            reader
                .get(&store, target, HIT_KEY, &GetOptions::default(), 0)
                .unwrap(),
            GetOutcome::Found(Value::U64(0xdead_beef))
        );
        assert_ne!(reader.id(), target);
    }
}
