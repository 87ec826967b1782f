//! Deterministic synthetic modex data for tests, benchmarks and the `reproduce` experiments.

use fabric_model::rng::SplitMix64;

use crate::blob::{FenceBlob, ProcEntry};
use crate::ident::Rank;
use crate::value::Value;

/// The shape of a node's modex contribution. Build it from [`ModexShape::default`] (128
/// ranks × 8 keys of 16 bytes, values of 21–51 bytes whose last 21 bytes differ per rank: the
/// survey's UCX-address example) with the `with_*` setters.
///
/// ```
/// use pmix_kvs::workload::{ModexShape, modex_blob};
///
/// let blob = modex_blob(&ModexShape::default().with_ranks(4).with_keys_per_rank(2));
/// assert_eq!(blob.pair_count(), 8);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

impl ModexShape {
    /// Sets the namespace name.
    #[must_use]
    pub fn with_nspace(mut self, nspace: impl Into<String>) -> Self {
        self.nspace = nspace.into();
        self
    }

    /// Sets the number of contributing processes.
    #[must_use]
    pub fn with_ranks(mut self, ranks: u32) -> Self {
        self.ranks = ranks;
        self
    }

    /// Sets the first rank.
    #[must_use]
    pub fn with_first_rank(mut self, first_rank: u32) -> Self {
        self.first_rank = first_rank;
        self
    }

    /// Sets the number of keys per process.
    #[must_use]
    pub fn with_keys_per_rank(mut self, keys_per_rank: usize) -> Self {
        self.keys_per_rank = keys_per_rank;
        self
    }

    /// Sets the key length in bytes.
    #[must_use]
    pub fn with_key_len(mut self, key_len: usize) -> Self {
        self.key_len = key_len;
        self
    }

    /// Sets the range of value lengths in bytes (`min`, `max`).
    #[must_use]
    pub fn with_value_len(mut self, min: usize, max: usize) -> Self {
        self.value_len = (min, max);
        self
    }

    /// Sets how many bytes at the end of each value differ between processes.
    #[must_use]
    pub fn with_unique_tail(mut self, unique_tail: usize) -> Self {
        self.unique_tail = unique_tail;
        self
    }

    /// Sets the generator's seed.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// A blob of `shape`: every process puts the same keys (as MPI runtimes do) with byte values.
///
/// # Complexity
/// O(ranks × keys × value length).
#[must_use]
pub fn modex_blob(shape: &ModexShape) -> FenceBlob {
    let mut g = SplitMix64::new(shape.seed);
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
            (0..common).map(|_| g.next_u64() as u8).collect::<Vec<u8>>(),
            len,
        ));
    }
    let entries = (0..shape.ranks)
        .map(|i| ProcEntry {
            rank: Rank(shape.first_rank.saturating_add(i)),
            kvs: keys
                .iter()
                .zip(&shared)
                .map(|(k, (prefix, len))| {
                    let mut v = prefix.clone();
                    while v.len() < *len {
                        v.push(g.next_u64() as u8);
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

    #[test]
    fn the_stream_is_splitmix64_from_the_seed() {
        // The first key's random letters come from the generator's first outputs (`below(26)`,
        // i.e. `next % 26`), so a change of generator or stream shows here.
        let blob = modex_blob(&ModexShape::default().with_ranks(1).with_keys_per_rank(1));
        let mut g = SplitMix64::new(1);
        let mut name = String::from("k0.");
        while name.len() < 16 {
            name.push(char::from(b'a' + (g.next_u64() % 26) as u8));
        }
        assert_eq!(blob.entries[0].kvs[0].0, name);
    }

    #[test]
    fn setters_set_and_defaults_are_the_papers_shape() {
        let d = ModexShape::default();
        assert_eq!((d.ranks, d.keys_per_rank, d.key_len), (128, 8, 16));
        assert_eq!((d.value_len, d.unique_tail, d.seed), ((21, 51), 21, 1));
        let s = d
            .with_nspace("x")
            .with_ranks(3)
            .with_first_rank(5)
            .with_keys_per_rank(2)
            .with_key_len(4)
            .with_value_len(1, 2)
            .with_unique_tail(1)
            .with_seed(9);
        let blob = modex_blob(&s);
        assert_eq!(blob.nspace, "x");
        assert_eq!(blob.entries.len(), 3);
        assert_eq!(blob.entries[0].rank, Rank(5));
        assert_eq!(blob.pair_count(), 6);
    }
}
