//! Context ids and the fixed-size context table (paper §2.2).
//!
//! A [`Cid`] is a table index plus a generation. Freeing a slot bumps its generation, so a
//! packet that still carries the old id (a "zombie", paper §2.3.4) no longer matches and is
//! dropped instead of landing in the next transfer that reuses the slot.

use core::fmt;

/// A context id: slot `index` of a context table, in its `generation`-th use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cid {
    /// Slot in the table.
    pub(crate) index: u16,
    /// How many times the slot had been freed when this id was handed out (wrapping).
    pub(crate) generation: u16,
}

impl Cid {
    /// The id of slot `index` in its `generation`-th use.
    #[must_use]
    pub const fn new(index: u16, generation: u16) -> Self {
        Self { index, generation }
    }

    /// Slot in the table.
    #[must_use]
    pub const fn index(self) -> u16 {
        self.index
    }

    /// How many times the slot had been freed when this id was handed out (wrapping).
    #[must_use]
    pub const fn generation(self) -> u16 {
        self.generation
    }

    /// Packs the id into the 32-bit wire field (index in the high half).
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        ((self.index as u32) << 16) | self.generation as u32
    }

    /// Unpacks the 32-bit wire field.
    #[must_use]
    pub const fn from_bits(bits: u32) -> Self {
        #[expect(clippy::cast_possible_truncation, reason = "each half is 16 bits")]
        Self {
            index: (bits >> 16) as u16,
            generation: bits as u16,
        }
    }
}

impl fmt::Display for Cid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.index, self.generation)
    }
}

/// A fixed-capacity table of contexts of type `T`, handing out [`Cid`]s.
///
/// All memory is allocated by [`ContextTable::new`]; allocation and freeing are O(1) (a free
/// list), lookup is O(1) (an index and one compare: a slot's tag is its generation while it
/// is live and has bit 16 set while it is free, so that the generation compare is also
/// the liveness check).
#[derive(Debug, Clone)]
pub(crate) struct ContextTable<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u16>,
    /// What a free slot holds (cloned into a slot as it is freed).
    vacant: T,
}

/// Added to a free slot's tag: no 16-bit generation equals it.
const FREE: u32 = 1 << 16;

/// `repr(C)`: the tag first, beside the start of the value, so that a lookup's compare and
/// the value's first bytes share a cache line.
#[derive(Debug, Clone)]
#[repr(C)]
struct Slot<T> {
    /// The generation, plus [`FREE`] while the slot is free.
    tag: u32,
    value: T,
}

impl<T: Clone> ContextTable<T> {
    /// A table of `capacity` free contexts (at most 65 536); a free slot holds a copy of
    /// `vacant`, never handed out.
    ///
    /// # Errors
    /// [`crate::Error::Config`] when `capacity` is 0 or above 65 536.
    pub(crate) fn new(capacity: usize, vacant: T) -> Result<Self, crate::Error> {
        if capacity == 0 || capacity > crate::config::MAX_CONTEXTS {
            return Err(crate::Error::Config {
                field: "capacity",
                reason: "must be 1 ..= MAX_CONTEXTS (65536)",
            });
        }
        let slots = (0..capacity)
            .map(|_| Slot {
                tag: FREE,
                value: vacant.clone(),
            })
            .collect();
        #[expect(clippy::cast_possible_truncation, reason = "capacity ≤ 65536")]
        let free = (0..capacity).rev().map(|i| i as u16).collect();
        Ok(Self {
            slots,
            free,
            vacant,
        })
    }

    /// Frees `cid`'s slot and bumps its generation; returns the context it held.
    pub(crate) fn remove(&mut self, cid: Cid) -> Option<T> {
        let slot = self.slots.get_mut(usize::from(cid.index))?;
        if slot.tag != u32::from(cid.generation) {
            return None;
        }
        let value = core::mem::replace(&mut slot.value, self.vacant.clone());
        slot.tag = u32::from(cid.generation.wrapping_add(1)) | FREE;
        self.free.push(cid.index);
        Some(value)
    }
}

impl<T> ContextTable<T> {
    /// Bytes the table takes per context: the slot (the tag and the value, padded) and its
    /// place in the free list.
    pub(crate) const BYTES_PER_CONTEXT: usize = size_of::<Slot<T>>() + size_of::<u16>();

    /// Number of slots.
    #[must_use]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Number of contexts in use.
    #[must_use]
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Takes a free slot for `value`; `Err(value)` when the table is full.
    ///
    /// # Errors
    /// Gives `value` back when no slot is free.
    pub(crate) fn insert(&mut self, value: T) -> Result<Cid, T> {
        let Some(index) = self.free.pop() else {
            return Err(value);
        };
        let slot = &mut self.slots[usize::from(index)];
        slot.value = value;
        slot.tag &= !FREE;
        Ok(Cid {
            index,
            generation: generation(slot.tag),
        })
    }

    /// The live context `cid` names, or `None` when the slot is free or reused.
    #[inline]
    #[must_use]
    pub(crate) fn get(&self, cid: Cid) -> Option<&T> {
        let slot = self.slots.get(usize::from(cid.index))?;
        (slot.tag == u32::from(cid.generation)).then_some(&slot.value)
    }

    /// Mutable access to the live context `cid` names.
    #[inline]
    pub(crate) fn get_mut(&mut self, cid: Cid) -> Option<&mut T> {
        let slot = self.slots.get_mut(usize::from(cid.index))?;
        (slot.tag == u32::from(cid.generation)).then_some(&mut slot.value)
    }

    /// The generation slot `index` is in now (the id it would hand out next if free).
    #[must_use]
    pub(crate) fn generation(&self, index: u16) -> Option<u16> {
        self.slots
            .get(usize::from(index))
            .map(|s| generation(s.tag))
    }

    /// Every live context with its id, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Cid, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            #[expect(clippy::cast_possible_truncation, reason = "capacity ≤ 65536")]
            let index = i as u16;
            (s.tag & FREE == 0).then(|| {
                (
                    Cid {
                        index,
                        generation: generation(s.tag),
                    },
                    &s.value,
                )
            })
        })
    }
}

/// The generation in a slot's tag.
#[expect(clippy::cast_possible_truncation, reason = "the low 16 bits")]
const fn generation(tag: u32) -> u16 {
    tag as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_reject_stale_ids() {
        let mut t = ContextTable::new(1, ' ').unwrap();
        let a = t.insert('a').unwrap();
        assert_eq!(t.insert('x'), Err('x'));
        assert_eq!(t.remove(a), Some('a'));
        // Free: neither the old id nor the one it will hand out next finds anything.
        let next = Cid {
            index: a.index,
            generation: t.generation(a.index).unwrap(),
        };
        assert_eq!(next.generation, a.generation.wrapping_add(1));
        assert_eq!((t.get(a), t.get(next), t.iter().count()), (None, None, 0));
        assert_eq!(t.get_mut(next), None);
        let b = t.insert('b').unwrap();
        assert_eq!(b, next);
        assert_eq!(a.index, b.index);
        assert_ne!(a, b);
        assert_eq!(t.get(a), None);
        assert_eq!(t.remove(a), None);
        assert_eq!(t.get(b), Some(&'b'));
    }

    #[test]
    fn bits_round_trip() {
        let c = Cid {
            index: 0xBEEF,
            generation: 0x1234,
        };
        assert_eq!(Cid::from_bits(c.to_bits()), c);
        assert_eq!(c.to_string(), "48879.4660");
    }

    #[test]
    fn capacity_limits() {
        assert!(ContextTable::<u8>::new(0, 0).is_err());
        assert!(ContextTable::<u8>::new(65_537, 0).is_err());
        assert_eq!(
            ContextTable::<u8>::new(65_536, 0).unwrap().capacity(),
            65_536
        );
    }
}
