//! The reader's side: a claimed slot of the region, and lookups that walk the current
//! image's hash index under the slot's lock, decoding fixed-size values without allocating.

use crate::codec;
use crate::error::{Error, Result};
use crate::ident::Rank;
use crate::keys;
use crate::region::{Region, RegionReader, Words};
use crate::store::covers;
use crate::value::{DataType, Scope, Value};

use super::layout::{
    H_BUCKETS, H_BUCKTAB, H_NSPACES, H_NSTAB, H_SEQ, H_USED, HALF_HEADER, MOVED, NS_ENTRY,
    NS_PRESENT, NS_REGISTERED, REC_HEAD, REC_ON_NODE, REC_OUTSIDE, STORE_MAGIC, W_CURRENT, W_MAGIC,
    W_SUCCESSOR, W_SUCCESSOR_LEN, byte_words, chunk, fixed_value, half_base, half_words, name_hash,
    per_rank_key, proc_word, record_hash, split_descriptor,
};

/// A namespace of the shared store, as [`ShmReader::nspace`] found it: an index into the
/// image's namespace table, valid in every image of the same region (the writer's store
/// never forgets a namespace) and for any reader of it. It carries the region's id
/// ([`Region::id`]) and the namespace name's hash: a lookup with a handle of another region
/// (another store's index, which may name another job there), or of an older region in the
/// same memory (formatted again), or whose table entry names another namespace, is refused
/// with [`Error::ForeignNspace`], never answered with another job's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShmNspace {
    index: u32,
    region: u64,
    name: u64,
}

impl ShmNspace {
    /// The namespace's index in the store that published it.
    #[must_use]
    pub fn index(self) -> usize {
        self.index as usize
    }
}

/// What a lookup in the shared store answers (the node store's part of a `get`: waiting,
/// the process's own data and its cache are the client's business).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShmAnswer<V> {
    /// The value, as the accessor gives it.
    Found(V),
    /// Not in the current image: the client waits for the next publish
    /// ([`ShmReader::sequence`]) or asks its server.
    Missing,
    /// The key exists, but in a scope this request cannot see
    /// (`PMIX_ERR_EXISTS_OUTSIDE_SCOPE`).
    OutsideScope,
    /// The value exists but is of a type this accessor does not decode (a string asked for
    /// with [`ShmReader::get_fixed`], an integer with [`ShmReader::get_bytes_into`]).
    OtherType(DataType),
}

/// A reader of the shared store: one claimed slot of the region (released on drop).
/// Every lookup takes the slot's side of the region's 2N-lock, so readers never block one
/// another and see a whole image.
#[derive(Debug)]
pub struct ShmReader<'r, 'a> {
    slot: RegionReader<'r, 'a>,
    words: usize,
    region: u64,
}

/// A record found in the current image.
#[derive(Debug, Clone, Copy)]
struct Hit {
    ty: DataType,
    /// The value word: the value of a fixed-size type, else its length in bytes.
    bits: u64,
    /// Absolute data word where the value's bytes start.
    bytes_at: usize,
}

/// The current image under a reader's lock.
struct View<'w, 'r, 'a> {
    words: &'w Words<'r, 'a>,
    base: usize,
    used: usize,
    data_base: usize,
}

fn bad(at: usize, reason: &'static str) -> Error {
    Error::BadRegion { offset: at, reason }
}

/// A record's descriptor fields: key length, type code, scope code, flags.
type Descriptor = (usize, u16, u8, u64);

impl View<'_, '_, '_> {
    /// Whether the words from `at` hold the bytes `kb` (packed as the writer packs them).
    fn key_is(&self, at: usize, kb: &[u8]) -> Result<bool> {
        for j in 0..byte_words(kb.len()) {
            if self.at(at + j)? != chunk(kb, j) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Word `i` of the image.
    fn at(&self, i: usize) -> Result<u64> {
        let off = self.data_base + 8 * (self.base + i);
        if i >= self.used {
            return Err(bad(off, "store image offset past the words it uses"));
        }
        self.words
            .get(self.base + i)
            .ok_or(bad(off, "store image past the data area"))
    }

    /// Word `i` of the image as an offset inside it.
    fn offset(&self, i: usize) -> Result<usize> {
        let v = self.at(i)?;
        usize::try_from(v)
            .ok()
            .filter(|&o| o < self.used)
            .ok_or(bad(
                self.data_base + 8 * (self.base + i),
                "store image offset out of range",
            ))
    }

    /// The namespace entry `ns`: job size and whether it is registered.
    fn nspace(&self, ns: ShmNspace) -> Result<(u32, bool)> {
        let count = self.at(H_NSPACES)?;
        let entry = if u64::from(ns.index) < count {
            Some(self.offset(H_NSTAB)? + NS_ENTRY * ns.index as usize)
        } else {
            None
        };
        let w0 = match entry {
            Some(e) => self.at(e)?,
            None => 0,
        };
        let Some(e) = entry.filter(|_| w0 & NS_PRESENT != 0) else {
            return Err(Error::UnknownNspace {
                nspace: format!("#{}", ns.index),
            });
        };
        if self.at(e + 2)? != ns.name {
            return Err(Error::ForeignNspace { index: ns.index() });
        }
        Ok(((w0 & 0xFFFF_FFFF) as u32, w0 & NS_REGISTERED != 0))
    }

    /// The record of (`ns`, `rank`, `key`): its offset and descriptor fields (key length,
    /// type code, scope code, flags); `None` if absent.
    fn probe(&self, ns: u32, rank: Rank, key: &str) -> Result<Option<(usize, Descriptor)>> {
        let buckets = self.at(H_BUCKETS)?;
        let tab = self.offset(H_BUCKTAB)?;
        let n = usize::try_from(buckets)
            .ok()
            .filter(|&n| n.is_power_of_two() && tab + n <= self.used)
            .ok_or(bad(
                self.data_base + 8 * (self.base + H_BUCKETS),
                "store index size not a power of two inside the image",
            ))?;
        let mask = n - 1;
        let want = proc_word(ns, rank);
        let kb = key.as_bytes();
        let mut i = (record_hash(ns, rank, key) as usize) & mask;
        for _ in 0..n {
            let off = self.offset(tab + i)?;
            if off == 0 {
                return Ok(None);
            }
            if self.at(off)? == want {
                let d = split_descriptor(self.at(off + 1)?);
                if d.0 == kb.len() && self.key_is(off + REC_HEAD, kb)? {
                    return Ok(Some((off, d)));
                }
            }
            i = (i + 1) & mask;
        }
        Ok(None)
    }
}

impl<'r, 'a> ShmReader<'r, 'a> {
    /// Claims a reader slot of `region` (attached with [`Region::attach`] in a reader's
    /// process).
    ///
    /// # Errors
    /// [`Error::NoFreeSlot`] when every slot is claimed.
    pub fn new(region: &'r Region<'a>) -> Result<Self> {
        Ok(Self {
            slot: region.reader()?,
            words: region.words(),
            region: region.id(),
        })
    }

    /// Runs `f` on the current image under the slot's lock; `Ok(None)` before the first
    /// publish.
    fn with_image<R>(
        &mut self,
        f: impl FnOnce(&View<'_, '_, '_>) -> Result<R>,
    ) -> Result<Option<R>> {
        let words = self.words;
        self.slot.read(|w| {
            // Where the copy being read starts (it moves under double buffering), for the
            // offsets that errors name.
            let data_base = w.byte_offset(0).unwrap_or(0);
            let magic = w.get(W_MAGIC).unwrap_or(0);
            let current = w.get(W_CURRENT).unwrap_or(0);
            if magic == 0 && current == 0 {
                return Ok(None);
            }
            if magic != STORE_MAGIC {
                return Err(bad(data_base, "no store image here (bad magic)"));
            }
            if current & 0xFF == MOVED {
                return Err(Error::StoreMoved {
                    successor: w.get(W_SUCCESSOR).unwrap_or(0),
                    len: usize::try_from(w.get(W_SUCCESSOR_LEN).unwrap_or(0)).unwrap_or(usize::MAX),
                });
            }
            let base = half_base(current & 0xFF, words)
                .ok_or(bad(data_base + 8 * W_CURRENT, "no such image half"))?;
            let used = w
                .get(base + H_USED)
                .and_then(|u| usize::try_from(u).ok())
                .filter(|&u| (HALF_HEADER..=half_words(words)).contains(&u))
                .ok_or(bad(
                    data_base + 8 * (base + H_USED),
                    "store image length out of range",
                ))?;
            f(&View {
                words: w,
                base,
                used,
                data_base,
            })
            .map(Some)
        })?
    }

    /// The publish sequence of the current image: 0 before the first publish, then one more
    /// per [`super::ShmWriter::publish`]. A client whose lookup answered
    /// [`ShmAnswer::Missing`] waits for it to change.
    ///
    /// # Errors
    /// [`Error::BadRegion`] for a malformed image; [`Error::StoreMoved`];
    /// the lock's errors ([`RegionReader::read`]): [`Error::LockWaitGaveUp`] once the region
    /// handle's [`Patience`](crate::region::Patience) ran out while a live writer held the
    /// lock, [`Error::CorruptLock`].
    pub fn sequence(&mut self) -> Result<u64> {
        Ok(self.with_image(|v| v.at(H_SEQ))?.unwrap_or(0))
    }

    /// The namespace called `name`, if the current image has it.
    ///
    /// # Errors
    /// As [`ShmReader::sequence`].
    ///
    /// # Complexity
    /// O(namespaces × |name|).
    pub fn nspace(&mut self, name: &str) -> Result<Option<ShmNspace>> {
        let nb = name.as_bytes();
        let region = self.region;
        Ok(self
            .with_image(|v| {
                let count = v.at(H_NSPACES)?;
                let tab = v.offset(H_NSTAB)?;
                for i in 0..count {
                    let e = tab + NS_ENTRY * usize::try_from(i).unwrap_or(usize::MAX);
                    let w0 = v.at(e)?;
                    let len = ((w0 >> 32) & 0xFFFF) as usize;
                    if w0 & NS_PRESENT == 0 || len != nb.len() {
                        continue;
                    }
                    let at = v.offset(e + 1)?;
                    let mut same = true;
                    for j in 0..byte_words(len) {
                        same &= v.at(at + j)? == chunk(nb, j);
                    }
                    if same {
                        return Ok(u32::try_from(i).ok().map(|index| ShmNspace {
                            index,
                            region,
                            name: name_hash(name),
                        }));
                    }
                }
                Ok(None)
            })?
            .flatten())
    }

    /// Looks `key` of (`ns`, `rank`) up as the node store answers a process of this node
    /// and hands a hit to `f`, under the lock.
    fn lookup<R>(
        &mut self,
        ns: ShmNspace,
        rank: Rank,
        key: &str,
        scope: Option<Scope>,
        f: impl FnOnce(&View<'_, '_, '_>, Hit) -> Result<ShmAnswer<R>>,
    ) -> Result<ShmAnswer<R>> {
        keys::check_key(key)?;
        if ns.region != self.region {
            return Err(Error::ForeignNspace { index: ns.index() });
        }
        if rank != Rank::WILDCARD && !rank.is_valid() {
            return Err(Error::BadRank {
                rank,
                reason: "the shared store answers WILDCARD or a process (UNDEF and groups: ask the server)",
            });
        }
        let reserved = keys::is_reserved(key);
        let probe_rank = if reserved && rank.is_valid() && !per_rank_key(key) {
            Rank::WILDCARD
        } else {
            rank
        };
        let answer = self.with_image(|v| {
            let (size, registered) = v.nspace(ns)?;
            if registered && rank.is_valid() && rank.get() >= size {
                return Err(Error::BadRank {
                    rank,
                    reason: "not below the job size",
                });
            }
            let Some((off, (len, code, stored_scope, flags))) =
                v.probe(ns.index, probe_rank, key)?
            else {
                return Ok(ShmAnswer::Missing);
            };
            if flags & REC_OUTSIDE != 0 {
                return Ok(ShmAnswer::OutsideScope);
            }
            if !reserved
                && let Some(want) = scope
                && let Ok(stored) = Scope::from_code(stored_scope)
                && !covers(want, stored, flags & REC_ON_NODE != 0)
            {
                return Ok(ShmAnswer::OutsideScope);
            }
            let at = v.data_base + 8 * (v.base + off + 1);
            let ty =
                DataType::from_code(code).map_err(|_| bad(at, "record of an unknown data type"))?;
            let hit = Hit {
                ty,
                bits: v.at(off + 2)?,
                bytes_at: off + REC_HEAD + byte_words(len),
            };
            f(v, hit)
        })?;
        Ok(answer.unwrap_or(ShmAnswer::Missing))
    }

    /// A fixed-size value (integers, sizes, pids, ranks, floats, booleans) of `key` of
    /// (`ns`, `rank`), restricted to `scope` when given (`PMIX_DATA_SCOPE`), without
    /// allocating; other types answer [`ShmAnswer::OtherType`].
    ///
    /// # Errors
    /// [`Error::BadKeyLength`]; [`Error::UnknownNspace`] for a namespace the image lacks;
    /// [`Error::ForeignNspace`] for a handle of another region, of an older region in the
    /// same memory, or of another namespace at the same index;
    /// [`Error::BadRank`] for a rank that holds no data (a group rank, `UNDEF`, not below the
    /// job size); [`Error::BadRegion`] for a malformed image; [`Error::StoreMoved`]; the
    /// lock's errors, as [`ShmReader::sequence`].
    ///
    /// # Complexity
    /// O(|key|) expected (one hash, a probe of the index), plus the wait for the lock,
    /// bounded by the region handle's [`Patience`](crate::region::Patience).
    pub fn get_fixed(
        &mut self,
        ns: ShmNspace,
        rank: Rank,
        key: &str,
        scope: Option<Scope>,
    ) -> Result<ShmAnswer<Value>> {
        self.lookup(ns, rank, key, scope, |v, hit| {
            let at = v.data_base + 8 * (v.base + hit.bytes_at);
            Ok(match fixed_value(hit.ty, hit.bits) {
                Some(x) => ShmAnswer::Found(x),
                None if fixed_type(hit.ty) => {
                    return Err(bad(at, "fixed-size value out of its type's range"));
                }
                None => ShmAnswer::OtherType(hit.ty),
            })
        })
    }

    /// A string or byte object of `key` of (`ns`, `rank`) copied into `buf` without
    /// allocating: answers its type and full length; when the length exceeds `buf`, only
    /// `buf.len()` bytes are copied (ask again with a larger buffer). Other types answer
    /// [`ShmAnswer::OtherType`].
    ///
    /// # Errors
    /// As [`ShmReader::get_fixed`].
    ///
    /// # Complexity
    /// O(|key| + length) expected.
    pub fn get_bytes_into(
        &mut self,
        ns: ShmNspace,
        rank: Rank,
        key: &str,
        scope: Option<Scope>,
        buf: &mut [u8],
    ) -> Result<ShmAnswer<(DataType, usize)>> {
        self.lookup(ns, rank, key, scope, |v, hit| {
            if !matches!(hit.ty, DataType::String | DataType::ByteObject) {
                return Ok(ShmAnswer::OtherType(hit.ty));
            }
            let len = value_len(v, hit)?;
            copy_bytes(v, hit.bytes_at, len.min(buf.len()), buf)?;
            Ok(ShmAnswer::Found((hit.ty, len)))
        })
    }

    /// The value of `key` of (`ns`, `rank`), of any type: fixed-size values without
    /// allocating, strings and byte objects in a new buffer, processes and arrays decoded.
    ///
    /// # Errors
    /// As [`ShmReader::get_fixed`].
    ///
    /// # Complexity
    /// O(|key| + size of the value) expected.
    pub fn get(
        &mut self,
        ns: ShmNspace,
        rank: Rank,
        key: &str,
        scope: Option<Scope>,
    ) -> Result<ShmAnswer<Value>> {
        self.lookup(ns, rank, key, scope, |v, hit| {
            let at = v.data_base + 8 * (v.base + hit.bytes_at);
            if let Some(x) = fixed_value(hit.ty, hit.bits) {
                return Ok(ShmAnswer::Found(x));
            }
            if fixed_type(hit.ty) {
                return Err(bad(at, "fixed-size value out of its type's range"));
            }
            let len = value_len(v, hit)?;
            let mut bytes = vec![0; len];
            copy_bytes(v, hit.bytes_at, len, &mut bytes)?;
            Ok(ShmAnswer::Found(match hit.ty {
                DataType::String => Value::String(
                    String::from_utf8(bytes).map_err(|_| bad(at, "string value not UTF-8"))?,
                ),
                DataType::ByteObject => Value::Bytes(bytes),
                _ => {
                    let blob = codec::decode(&bytes)?;
                    blob.entries
                        .into_iter()
                        .next()
                        .and_then(|e| e.kvs.into_iter().next())
                        .map(|(_, v)| v)
                        .filter(|v| v.data_type() == hit.ty)
                        .ok_or(bad(at, "compound value not a one-pair blob of its type"))?
                }
            }))
        })
    }
}

/// Whether values of `ty` are stored in their record's value word.
fn fixed_type(ty: DataType) -> bool {
    !matches!(
        ty,
        DataType::String | DataType::ByteObject | DataType::Proc | DataType::DataArray
    )
}

/// The byte length of a variable-size hit, checked against the image.
fn value_len(v: &View<'_, '_, '_>, hit: Hit) -> Result<usize> {
    let room = v.used.saturating_sub(hit.bytes_at).saturating_mul(8);
    usize::try_from(hit.bits)
        .ok()
        .filter(|&l| l <= room)
        .ok_or(bad(
            v.data_base + 8 * (v.base + hit.bytes_at),
            "value length past the image",
        ))
}

/// Copies `len` bytes of the image from word `from` into `out`.
fn copy_bytes(v: &View<'_, '_, '_>, from: usize, len: usize, out: &mut [u8]) -> Result<()> {
    for (j, dst) in out[..len].chunks_mut(8).enumerate() {
        let w = v.at(from + j)?.to_le_bytes();
        dst.copy_from_slice(&w[..dst.len()]);
    }
    Ok(())
}
