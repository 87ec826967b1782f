//! The writer's side: builds the store's image in process memory, then copies it into the
//! region's inactive half and flips the current-half word, under the region's write lock.

use crate::blob::{FenceBlob, ProcEntry};
use crate::codec::{self, CompactOptions, Layout};
use crate::error::{Error, Result};
use crate::ident::Rank;
use crate::region::{Buffering, Region, RegionLayout};
use crate::store::{ImageSink, NodeStore};
use crate::value::{Scope, Value};

use super::layout::{
    CONTROL, H_BUCKETS, H_BUCKTAB, H_EPOCH, H_NSPACES, H_NSTAB, H_RECORDS, H_SEQ, H_USED,
    HALF_HEADER, MOVED, NS_PRESENT, NS_REGISTERED, REC_ON_NODE, REC_OUTSIDE, STORE_MAGIC,
    W_CURRENT, W_MAGIC, W_SUCCESSOR, W_SUCCESSOR_LEN, descriptor, fixed_bits, half_base,
    half_words, name_hash, pack, proc_word, record_hash,
};

/// Where [`ShmWriter::publish_noting_lock`] stands when it calls back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockEvent {
    /// The image is built; the write lock is asked for next.
    Taking,
    /// The write lock is held (every reader is out); the copy comes next.
    Held,
}

/// What one [`ShmWriter::publish`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Published {
    /// The publish sequence now current in the region (1 for the first image).
    pub sequence: u64,
    /// Words the image takes (of the half's [`Published::capacity`]).
    pub words: usize,
    /// Words each half of the region holds.
    pub capacity: usize,
    /// Records in the image (pairs, reserved values and outside-scope markers).
    pub records: usize,
}

/// The server's side of the shared-memory store: publishes a [`NodeStore`] into a
/// [`Region`] after each commit or fence, for readers in other processes
/// ([`super::ShmReader`]).
///
/// Each publish writes a whole image (namespaces, records, a hash index) into the half of
/// the data area that readers are not using, then makes it current with one word, all under
/// the region's write lock: a reader sees the previous image or the new one. The writer
/// keeps its scratch image between publishes (no allocation once it has grown).
///
/// ```
/// use pmix_kvs::region::{Region, RegionLayout};
/// use pmix_kvs::shm::{ShmAnswer, ShmReader, ShmWriter};
/// use pmix_kvs::{Client, JobInfo, NodeStore, ProcId, Rank, Scope, Value};
///
/// let mut store = NodeStore::new();
/// let ns = store.register_job("job", &JobInfo::new(2, "n0"))?;
/// let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
/// p0.put(Scope::Local, "port", Value::U32(7000))?;
/// p0.commit(&mut store)?;
///
/// // Memory for the region: here an aligned buffer of this process; across processes a
/// // shared mapping (see the package's `shm_node` example).
/// #[repr(C, align(64))]
/// struct Mem([u8; 1 << 16]);
/// let mut mem = Box::new(Mem([0; 1 << 16]));
/// let region = Region::format(&mut mem.0, ShmWriter::layout(2, 4096))?;
/// let mut writer = ShmWriter::new();
/// writer.publish(&region, &store)?;
///
/// let mut reader = ShmReader::new(&region)?;
/// let job = reader.nspace("job")?.expect("published");
/// assert_eq!(
///     reader.get_fixed(job, Rank::new(0), "port", None)?,
///     ShmAnswer::Found(Value::U32(7000))
/// );
/// # Ok::<(), pmix_kvs::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct ShmWriter {
    image: Vec<u64>,
    nspaces: Vec<[u64; 3]>,
    index: Vec<(u64, u64)>,
}

/// The image under construction, as [`NodeStore::visit_image`] fills it.
struct Builder<'w> {
    image: &'w mut Vec<u64>,
    /// Namespace entries by index: size, name length and flags; name offset; name hash.
    nspaces: &'w mut Vec<[u64; 3]>,
    /// (hash, record offset) of every record.
    index: &'w mut Vec<(u64, u64)>,
    blob: Vec<u8>,
}

impl ImageSink for Builder<'_> {
    fn nspace(&mut self, index: u32, name: &str, size: u32, registered: bool) {
        let i = index as usize;
        if self.nspaces.len() <= i {
            self.nspaces.resize(i + 1, [0; 3]);
        }
        let mut w0 = u64::from(size) | (name.len() as u64) << 32 | NS_PRESENT;
        if registered {
            w0 |= NS_REGISTERED;
        }
        self.nspaces[i] = [w0, self.image.len() as u64, name_hash(name)];
        pack(name.as_bytes(), self.image);
    }

    fn pair(
        &mut self,
        index: u32,
        rank: Rank,
        key: &str,
        value: &Value,
        scope: Option<Scope>,
        on_node: bool,
        visible: bool,
    ) -> Result<()> {
        let offset = self.image.len() as u64;
        let mut flags = 0;
        if on_node {
            flags |= REC_ON_NODE;
        }
        if !visible {
            flags |= REC_OUTSIDE;
        }
        let code = value.data_type().code();
        let scope = scope.map_or(0, Scope::code);
        self.image.push(proc_word(index, rank));
        self.image.push(descriptor(key.len(), code, scope, flags));
        if let Some(bits) = fixed_bits(value) {
            self.image.push(bits);
            pack(key.as_bytes(), self.image);
        } else {
            let bytes: &[u8] = match value {
                Value::String(s) => s.as_bytes(),
                Value::Bytes(b) => b,
                _ => {
                    // Processes and arrays: a one-pair compact blob (the crate's codec).
                    let blob = FenceBlob {
                        nspace: "v".into(),
                        collect: true,
                        entries: vec![ProcEntry {
                            rank: Rank::new(0),
                            kvs: vec![("v".into(), value.clone())],
                        }],
                    };
                    self.blob = codec::encode(&blob, Layout::Compact(CompactOptions::default()))?;
                    &self.blob
                }
            };
            self.image.push(bytes.len() as u64);
            pack(key.as_bytes(), self.image);
            pack(bytes, self.image);
        }
        self.index.push((record_hash(index, rank, key), offset));
        Ok(())
    }
}

impl ShmWriter {
    /// A writer with an empty scratch image.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the image of `store` in this writer's scratch memory (what
    /// [`ShmWriter::publish`] copies); returns its length in words.
    ///
    /// # Errors
    /// [`Error::Encode`] for a value the codec cannot encode.
    ///
    /// # Complexity
    /// O(pairs + job sizes × jobs on the node) expected.
    pub fn build(&mut self, store: &NodeStore) -> Result<usize> {
        self.image.clear();
        self.nspaces.clear();
        self.index.clear();
        self.image.resize(HALF_HEADER, 0);
        let mut b = Builder {
            image: &mut self.image,
            nspaces: &mut self.nspaces,
            index: &mut self.index,
            blob: Vec::new(),
        };
        store.visit_image(&mut b)?;
        let nstab = self.image.len();
        for entry in &self.nspaces {
            self.image.extend_from_slice(entry);
        }
        let buckets = (self.index.len() * 2).next_power_of_two();
        let bucktab = self.image.len();
        self.image.resize(bucktab + buckets, 0);
        let mask = buckets - 1;
        for &(hash, offset) in &self.index {
            let mut i = (hash as usize) & mask;
            while self.image[bucktab + i] != 0 {
                i = (i + 1) & mask;
            }
            self.image[bucktab + i] = offset;
        }
        let used = self.image.len();
        let header = [
            (H_USED, used as u64),
            (H_EPOCH, store.fence_epoch()),
            (H_NSPACES, self.nspaces.len() as u64),
            (H_NSTAB, nstab as u64),
            (H_BUCKETS, buckets as u64),
            (H_BUCKTAB, bucktab as u64),
            (H_RECORDS, self.index.len() as u64),
        ];
        for (at, v) in header {
            self.image[at] = v;
        }
        Ok(used)
    }

    /// The data words a region needs to hold the image last built: two halves of it and
    /// the control words.
    #[must_use]
    pub fn words_needed(&self) -> usize {
        self.image.len().saturating_mul(2).saturating_add(CONTROL)
    }

    /// The bytes a region of `slots` reader slots ([`RegionLayout::new`]) needs to hold the
    /// image last built ([`ShmWriter::words_needed`] data words): what to map when
    /// [`ShmWriter::publish`] refuses with [`Error::RegionTooSmall`].
    #[must_use]
    pub fn region_len_needed(&self, slots: usize) -> Option<usize> {
        Self::layout(slots, self.words_needed()).region_len()
    }

    /// The layout to format a store's region with: `slots` reader slots and `words` data
    /// words, single-buffered ([`Buffering::Single`]), since the store keeps two halves of
    /// its own and publishes by flipping one word; the region's default double buffering
    /// would copy every data word again on each publish for nothing.
    #[must_use]
    pub fn layout(slots: usize, words: usize) -> RegionLayout {
        RegionLayout::new(slots, words).with_buffering(Buffering::Single)
    }

    /// Builds the image of `store` and publishes it into `region`: copies it into the half
    /// readers are not using and makes that half current, under the region's write lock
    /// (readers see the previous image or this one, and a writer killed mid-copy leaves the
    /// previous one current).
    ///
    /// # Errors
    /// [`Error::RegionTooSmall`] when the image does not fit half the data area: `needed` is
    /// the length of a region (of the same slots) that holds it, `len` this region's; nothing
    /// is written then and readers keep the previous image ([`ShmWriter::retire`] and a
    /// larger region move them on). [`Error::StoreMoved`] when the region was retired;
    /// [`Error::Encode`] as [`ShmWriter::build`]; the region's lock errors
    /// ([`Region::write`]): [`Error::LockWaitGaveUp`] once the region handle's
    /// [`Patience`](crate::region::Patience) ran out while a live process held a lock,
    /// [`Error::CorruptLock`]; nothing is published then.
    ///
    /// # Complexity
    /// O(image words) for the copy, under the lock, plus [`ShmWriter::build`].
    pub fn publish(&mut self, region: &Region<'_>, store: &NodeStore) -> Result<Published> {
        self.publish_noting_lock(region, store, |_| {})
    }

    /// As [`ShmWriter::publish`], calling `on_lock` with [`LockEvent::Taking`] just before
    /// asking for the write lock (the image is built) and with [`LockEvent::Held`] once it
    /// is held, before the copy: a caller timing the writer's wait for its readers reads its
    /// clock there (this crate reads none).
    ///
    /// # Errors
    /// As [`ShmWriter::publish`] (`on_lock` is not called when the image does not fit).
    pub fn publish_noting_lock(
        &mut self,
        region: &Region<'_>,
        store: &NodeStore,
        mut on_lock: impl FnMut(LockEvent),
    ) -> Result<Published> {
        let used = self.build(store)?;
        let capacity = half_words(region.words());
        if used > capacity {
            let len = region.byte_len();
            return Err(Error::RegionTooSmall {
                needed: self.region_len_needed(region.slots()).unwrap_or(usize::MAX),
                len,
            });
        }
        let records = self.index.len();
        let image = &mut self.image;
        let words = region.words();
        on_lock(LockEvent::Taking);
        region.write(|w| {
            on_lock(LockEvent::Held);
            let current = w.get(W_CURRENT).unwrap_or(0);
            if current & 0xFF == MOVED {
                return Err(Error::StoreMoved {
                    successor: w.get(W_SUCCESSOR).unwrap_or(0),
                    len: usize::try_from(w.get(W_SUCCESSOR_LEN).unwrap_or(0)).unwrap_or(usize::MAX),
                });
            }
            let next = if current & 0xFF == 1 { 2 } else { 1 };
            let sequence = (current >> 8) + 1;
            image[H_SEQ] = sequence;
            let base = half_base(next, words).unwrap_or(CONTROL);
            for (i, &v) in image.iter().enumerate() {
                w.set(base + i, v);
            }
            w.set(W_MAGIC, STORE_MAGIC);
            // Last: the new image becomes current (a writer killed before this line leaves
            // the previous one).
            w.set(W_CURRENT, sequence << 8 | next);
            Ok(Published {
                sequence,
                words: used,
                capacity,
                records,
            })
        })?
    }

    /// Marks `region` as moved: the store now lives in another region of `len` bytes that
    /// the embedder names `successor` (a generation number, a file's inode: whatever its
    /// readers can find it by). Readers' lookups then answer [`Error::StoreMoved`] with both,
    /// and further publishes into `region` are refused. The last image stays in place.
    ///
    /// This is how the store grows: publish into a larger region (whose length
    /// [`Error::RegionTooSmall`] gave), then retire the old one.
    ///
    /// # Errors
    /// The region's lock errors ([`Region::write`]): [`Error::LockWaitGaveUp`] when its
    /// handle's patience ran out, [`Error::CorruptLock`]; nothing is marked then.
    pub fn retire(&self, region: &Region<'_>, successor: u64, len: usize) -> Result<()> {
        region.write(|w| {
            let current = w.get(W_CURRENT).unwrap_or(0);
            w.set(W_SUCCESSOR, successor);
            w.set(W_SUCCESSOR_LEN, len as u64);
            w.set(W_MAGIC, STORE_MAGIC);
            w.set(W_CURRENT, current & !0xFF | MOVED);
        })
    }
}
