//! A string-keyed map for the store's per-process data: a `hashbrown` table of `(key, value)`
//! pairs hashed with [`crate::keyhash`] in line and compared with [`bytes_eq`] (short keys as
//! words, no `memcmp` call), looked up by `&str` without allocating.

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use crate::keyhash::{bytes_eq, hash_pair};

/// Keys to values.
#[derive(Debug, Clone)]
pub(crate) struct KeyMap<V> {
    table: HashTable<(Box<str>, V)>,
}

impl<V> Default for KeyMap<V> {
    fn default() -> Self {
        Self {
            table: HashTable::new(),
        }
    }
}

#[inline]
fn hash(key: &str) -> u64 {
    hash_pair(0, key)
}

impl<V> KeyMap<V> {
    /// The value of `key`.
    #[inline]
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.table
            .find(hash(key), |(k, _)| bytes_eq(k.as_bytes(), key.as_bytes()))
            .map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, replacing what it had.
    pub(crate) fn insert(&mut self, key: &str, value: V) {
        match self.table.entry(
            hash(key),
            |(k, _)| bytes_eq(k.as_bytes(), key.as_bytes()),
            |(k, _)| hash(k),
        ) {
            Entry::Occupied(mut e) => e.get_mut().1 = value,
            Entry::Vacant(e) => {
                e.insert((key.into(), value));
            }
        }
    }

    /// Whether the map is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Every pair, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.table.iter().map(|(k, v)| (&**k, v))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// Inserts and lookups agree with a `BTreeMap` (short and long keys, replacements).
        #[test]
        fn behaves_as_a_map(ops in proptest::collection::vec(("[a-d.]{0,20}", any::<u8>()), 0..64)) {
            let mut ours = KeyMap::default();
            let mut model = BTreeMap::new();
            for (k, v) in &ops {
                ours.insert(k, *v);
                model.insert(k.clone(), *v);
                prop_assert_eq!(ours.get(k), Some(v));
            }
            for (k, _) in &ops {
                let probe = format!("{k}x");
                prop_assert_eq!(ours.get(&probe), model.get(&probe));
                prop_assert_eq!(ours.contains_key(k), true);
            }
            let mut all: Vec<(String, u8)> = ours.iter().map(|(k, v)| (k.to_owned(), *v)).collect();
            all.sort();
            prop_assert_eq!(all, model.into_iter().collect::<Vec<_>>());
            prop_assert_eq!(ours.is_empty(), ops.is_empty());
        }
    }
}
