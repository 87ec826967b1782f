//! Fence messages on a wire: a versioned byte codec for [`Message`], so that a runtime can
//! send fence rounds over its own transport, and [`BlobFence`], a fence whose inputs and
//! outputs are [`FenceBlob`]s and whose messages are bytes.
//!
//! The byte layout is documented on [`Message::encode`].

use crate::blob::FenceBlob;
use crate::codec::{self, IntEncoding, Layout};
use crate::error::{Error, Result};
use crate::varint::{self, Reader};

use super::{Algorithm, Block, FenceNode, Message};

/// First byte of an encoded [`Message`] (distinct from the blob codec's
/// [`codec::MAGIC`]).
pub const WIRE_MAGIC: u8 = b'F';

/// The message layout version this crate writes and reads.
pub const WIRE_VERSION: u8 = 1;

const ENC: IntEncoding = IntEncoding::Leb128;

impl Message {
    /// The message's bytes on a wire.
    ///
    /// The layout (all integers LEB128, shortest form):
    ///
    /// | field   | bytes  | value                                                  |
    /// |---------|--------|--------------------------------------------------------|
    /// | magic   | 1      | [`WIRE_MAGIC`] (`b'F'`)                                |
    /// | version | 1      | [`WIRE_VERSION`] (1)                                   |
    /// | flags   | 1      | 0 (no flag is defined; others are refused)             |
    /// | round   | varint | [`Message::round`], at most `u32::MAX`                 |
    /// | count   | varint | number of blocks                                       |
    /// | blocks  |        | each: origin (varint, at most `u32::MAX`), length (varint), that many data bytes |
    ///
    /// Nothing follows the last block. Every integer is in its shortest form, so the encoding
    /// of a message is unique. [`Message::decode`] checks every field and never panics; its
    /// allocation is linear in the input's length (a block costs at least two bytes, so a
    /// count beyond half the remaining input is refused before anything is allocated).
    ///
    /// # Complexity
    /// O(blocks + data bytes).
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.wire_len() + 3);
        self.encode_into(&mut out);
        out
    }

    /// Appends the message's bytes to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[WIRE_MAGIC, WIRE_VERSION, 0]);
        varint::put(out, u64::from(self.round), ENC);
        varint::put(out, self.blocks.len() as u64, ENC);
        for b in &self.blocks {
            varint::put(out, u64::from(b.origin), ENC);
            varint::put(out, b.data.len() as u64, ENC);
            out.extend_from_slice(&b.data);
        }
    }

    /// Decodes one message made by [`Message::encode`] (the layout is on that method).
    ///
    /// # Errors
    /// [`Error::BadHeader`] for a wrong magic, an unknown version or a flag set;
    /// [`Error::Truncated`], [`Error::Overlong`], [`Error::OutOfRange`] (a round or origin
    /// beyond `u32`, a block count or length beyond what the input holds) and
    /// [`Error::Trailing`], each with the offset of the bad field; never a panic.
    ///
    /// # Complexity
    /// O(input length); allocation linear in the input length.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        if r.u8("message magic")? != WIRE_MAGIC {
            return Err(Error::BadHeader {
                offset: 0,
                reason: "not a fence message (bad magic)",
            });
        }
        if r.u8("message version")? != WIRE_VERSION {
            return Err(Error::BadHeader {
                offset: 1,
                reason: "unknown fence message version",
            });
        }
        if r.u8("message flags")? != 0 {
            return Err(Error::BadHeader {
                offset: 2,
                reason: "unknown fence message flags",
            });
        }
        let round = read_u32(&mut r, "round")?;
        let max_blocks = r.remaining() / 2;
        let count = r.length(ENC, max_blocks, "block count")?;
        let mut blocks = Vec::with_capacity(count);
        for _ in 0..count {
            let origin = read_u32(&mut r, "block origin")?;
            let len = r.length(ENC, r.remaining(), "block length")?;
            let data = r.bytes(len, "block data")?.to_vec();
            blocks.push(Block { origin, data });
        }
        r.finish()?;
        Ok(Self { round, blocks })
    }
}

fn read_u32(r: &mut Reader<'_>, what: &'static str) -> Result<u32> {
    let offset = r.pos();
    let v = r.varint(ENC, what)?;
    u32::try_from(v).map_err(|_| Error::OutOfRange { what, offset })
}

/// An encoded message to send: the bytes of a [`Message`] for node `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireTransmit {
    /// The destination node.
    pub to: usize,
    /// The message's bytes ([`Message::encode`]).
    pub bytes: Vec<u8>,
}

/// One node of a fence over a namespace, in blobs and bytes: it takes this node's
/// [`FenceBlob`] (from [`NodeStore::fence_contribution`](crate::NodeStore::fence_contribution)),
/// sends and receives messages as bytes, and gives every node's [`FenceBlob`] back, ready for
/// [`NodeStore::apply_fence`](crate::NodeStore::apply_fence).
///
/// ```
/// use pmix_kvs::codec::{CompactOptions, Layout};
/// use pmix_kvs::fence::{Algorithm, BlobFence};
/// use pmix_kvs::{FenceBlob, ProcEntry, Rank, Value};
///
/// let layout = Layout::Compact(CompactOptions::default());
/// let mut nodes = (0..3)
///     .map(|i| {
///         let mut blob = FenceBlob::new("job", true);
///         blob.entries.push(ProcEntry { rank: Rank::new(i), kvs: vec![("k".into(), Value::U32(i))] });
///         BlobFence::new(Algorithm::Bruck, i as usize, 3, &blob, layout)
///     })
///     .collect::<Result<Vec<_>, _>>()?;
/// // The runtime's transport: here, a loop that hands every byte message to its node.
/// while !nodes.iter().all(BlobFence::is_complete) {
///     for from in 0..3 {
///         while let Some(t) = nodes[from].poll_transmit() {
///             nodes[t.to].handle(from, &t.bytes)?;
///         }
///     }
/// }
/// let blobs = nodes.pop().unwrap().into_blobs()?;
/// assert_eq!(blobs.len(), 3);
/// assert_eq!(blobs[1].entries[0].kvs[0].1, Value::U32(1));
/// # Ok::<(), pmix_kvs::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct BlobFence {
    node: FenceNode,
    nspace: String,
    collect: bool,
}

impl BlobFence {
    /// Node `me` of `n` contributing `blob` (encoded in `layout`; a barrier-only blob,
    /// `collect == false`, sends empty blocks).
    ///
    /// # Errors
    /// A codec error for an invalid blob; [`Error::BadFenceShape`] unless `me < n`;
    /// [`Error::BadRadix`].
    pub fn new(
        alg: Algorithm,
        me: usize,
        n: usize,
        blob: &FenceBlob,
        layout: Layout,
    ) -> Result<Self> {
        blob.validate()?;
        let bytes = if blob.collect {
            codec::encode(blob, layout)?
        } else {
            Vec::new()
        };
        Ok(Self {
            node: FenceNode::new(alg, me, n, bytes, blob.collect)?,
            nspace: blob.nspace.clone(),
            collect: blob.collect,
        })
    }

    /// Hands in the bytes of a message from node `from`.
    ///
    /// # Errors
    /// A [`Message::decode`] error for bytes that are not a message; the errors of
    /// [`FenceNode::handle`] for a message that does not belong here.
    pub fn handle(&mut self, from: usize, bytes: &[u8]) -> Result<()> {
        let message = Message::decode(bytes)?;
        self.node.handle(from, message)
    }

    /// The next message to send, encoded, if any.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<WireTransmit> {
        self.node.poll_transmit().map(|t| WireTransmit {
            to: t.to,
            bytes: t.message.encode(),
        })
    }

    /// Whether this node holds every node's blob.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.node.is_complete()
    }

    /// Every node's blob, indexed by node, once complete (for a barrier-only fence, an
    /// empty blob of the namespace per node).
    ///
    /// # Errors
    /// [`Error::BadFenceShape`] if the fence is not complete; a codec error for a node's
    /// blob that does not decode; [`Error::BadFenceMessage`] for a blob of another
    /// namespace or with another `collect` flag.
    pub fn into_blobs(self) -> Result<Vec<FenceBlob>> {
        let (nspace, collect, me) = (self.nspace, self.collect, self.node.me);
        let raw = self.node.into_blobs()?;
        raw.iter()
            .enumerate()
            .map(|(from, bytes)| {
                if !collect {
                    return Ok(FenceBlob::new(nspace.clone(), false));
                }
                let blob = codec::decode(bytes)?;
                if blob.nspace != nspace || !blob.collect {
                    return Err(Error::BadFenceMessage {
                        node: me,
                        from,
                        reason: "a node's blob is for another namespace or not collecting",
                    });
                }
                Ok(blob)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ident::Rank;
    use crate::{ProcEntry, Value};
    use proptest::prelude::*;

    fn msg(round: u32, blocks: &[(u32, &[u8])]) -> Message {
        Message {
            round,
            blocks: blocks
                .iter()
                .map(|&(origin, data)| Block {
                    origin,
                    data: data.to_vec(),
                })
                .collect(),
        }
    }

    #[test]
    fn layout_is_the_documented_one() {
        let m = msg(300, &[(2, b"ab"), (0, b"")]);
        assert_eq!(
            m.encode(),
            [b'F', 1, 0, 0xac, 0x02, 2, 2, 2, b'a', b'b', 0, 0]
        );
        assert_eq!(Message::decode(&m.encode()), Ok(m));
        let empty = msg(0, &[]);
        assert_eq!(empty.encode(), [b'F', 1, 0, 0, 0]);
    }

    #[test]
    fn bad_input_gets_a_precise_error() {
        let d = Message::decode;
        assert_eq!(
            d(&[]),
            Err(Error::Truncated {
                what: "message magic",
                offset: 0,
                needed: 1
            })
        );
        assert!(matches!(
            d(b"P\x01\x00\x00\x00"),
            Err(Error::BadHeader { offset: 0, .. })
        ));
        assert!(matches!(
            d(b"F\x02\x00\x00\x00"),
            Err(Error::BadHeader { offset: 1, .. })
        ));
        assert!(matches!(
            d(b"F\x01\x01\x00\x00"),
            Err(Error::BadHeader { offset: 2, .. })
        ));
        // A round of 2^32 (LEB128 80 80 80 80 10).
        assert_eq!(
            d(&[b'F', 1, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0]),
            Err(Error::OutOfRange {
                what: "round",
                offset: 3
            })
        );
        // Overlong round (0 as 80 00).
        assert_eq!(
            d(&[b'F', 1, 0, 0x80, 0x00, 0]),
            Err(Error::Overlong { offset: 3 })
        );
        // A varint cut short.
        assert!(matches!(
            d(&[b'F', 1, 0, 0x80]),
            Err(Error::Truncated {
                what: "round",
                offset: 3,
                ..
            })
        ));
        // Three blocks claimed, room for at most one.
        assert_eq!(
            d(&[b'F', 1, 0, 0, 3, 0, 0]),
            Err(Error::OutOfRange {
                what: "block count",
                offset: 4
            })
        );
        // A block of 5 bytes with 1 left.
        assert_eq!(
            d(&[b'F', 1, 0, 0, 1, 7, 5, 9]),
            Err(Error::OutOfRange {
                what: "block length",
                offset: 6
            })
        );
        // An origin beyond u32.
        assert_eq!(
            d(&[b'F', 1, 0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 0]),
            Err(Error::OutOfRange {
                what: "block origin",
                offset: 5
            })
        );
        assert_eq!(
            d(&[b'F', 1, 0, 0, 0, 0xff]),
            Err(Error::Trailing {
                offset: 5,
                extra: 1
            })
        );
    }

    fn arb_message() -> impl Strategy<Value = Message> {
        (
            any::<u32>(),
            proptest::collection::vec(
                (any::<u32>(), proptest::collection::vec(any::<u8>(), 0..40)),
                0..6,
            ),
        )
            .prop_map(|(round, blocks)| Message {
                round,
                blocks: blocks
                    .into_iter()
                    .map(|(origin, data)| Block { origin, data })
                    .collect(),
            })
    }

    proptest! {
        /// Encoding round-trips, is canonical (decode then encode gives the same bytes) and
        /// no proper prefix of an encoding decodes.
        #[test]
        fn round_trip_and_prefixes(m in arb_message()) {
            let bytes = m.encode();
            prop_assert_eq!(Message::decode(&bytes), Ok(m));
            for cut in 0..bytes.len() {
                prop_assert!(Message::decode(&bytes[..cut]).is_err(), "prefix {}", cut);
            }
        }

        /// Arbitrary bytes never panic, and whatever decodes re-encodes to the same bytes.
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(m) = Message::decode(&bytes) {
                prop_assert_eq!(m.encode(), bytes);
            }
        }
    }

    fn blob(node: u32, per_node: u32, collect: bool) -> FenceBlob {
        let mut b = FenceBlob::new("job", collect);
        if collect {
            for r in node * per_node..(node + 1) * per_node {
                b.entries.push(ProcEntry {
                    rank: Rank(r),
                    kvs: vec![("addr".into(), Value::Bytes(vec![r as u8; 5]))],
                });
            }
        }
        b
    }

    /// Runs a fence of `n` nodes over bytes only; returns each node's blobs.
    fn run(alg: Algorithm, n: u32, collect: bool) -> Vec<Vec<FenceBlob>> {
        let layout = Layout::Compact(codec::CompactOptions::default());
        let mut nodes: Vec<BlobFence> = (0..n)
            .map(|i| BlobFence::new(alg, i as usize, n as usize, &blob(i, 2, collect), layout))
            .collect::<Result<_>>()
            .unwrap();
        let mut rounds = 0;
        while !nodes.iter().all(BlobFence::is_complete) {
            rounds += 1;
            assert!(rounds < 100, "{alg} stalls");
            let mut batch = Vec::new();
            for (from, node) in nodes.iter_mut().enumerate() {
                while let Some(t) = node.poll_transmit() {
                    batch.push((from, t));
                }
            }
            // Deliver in reverse: order must not matter.
            for (from, t) in batch.into_iter().rev() {
                nodes[t.to].handle(from, &t.bytes).unwrap();
            }
        }
        nodes.into_iter().map(|f| f.into_blobs().unwrap()).collect()
    }

    #[test]
    fn blob_fence_gives_every_node_every_blob() {
        for alg in [
            Algorithm::TREE,
            Algorithm::Tree { radix: 2 },
            Algorithm::Ring,
            Algorithm::Bruck,
        ] {
            for n in [1, 2, 5, 8] {
                let want: Vec<FenceBlob> = (0..n).map(|i| blob(i, 2, true)).collect();
                for got in run(alg, n, true) {
                    assert_eq!(got, want, "{alg} n={n}");
                }
                let empty = vec![FenceBlob::new("job", false); n as usize];
                for got in run(alg, n, false) {
                    assert_eq!(got, empty, "{alg} n={n} barrier");
                }
            }
        }
    }

    #[test]
    fn blob_fence_refuses_bad_bytes_and_early_results() {
        let layout = Layout::Compact(codec::CompactOptions::default());
        let mut f = BlobFence::new(Algorithm::Bruck, 0, 4, &blob(0, 1, true), layout).unwrap();
        assert!(matches!(f.handle(1, b"junk"), Err(Error::BadHeader { .. })));
        // A well-formed message from the wrong node.
        let m = msg(0, &[(3, b"x")]).encode();
        assert!(matches!(
            f.handle(3, &m),
            Err(Error::BadFenceMessage {
                node: 0,
                from: 3,
                ..
            })
        ));
        assert!(!f.is_complete());
        assert!(matches!(
            f.clone().into_blobs(),
            Err(Error::BadFenceShape { .. })
        ));
        // A blob of another namespace in the fence is caught when the blobs are decoded.
        let mut g = BlobFence::new(Algorithm::Ring, 1, 2, &blob(1, 1, true), layout).unwrap();
        let other = codec::encode(&FenceBlob::new("other", true), layout).unwrap();
        let m = Message {
            round: 0,
            blocks: vec![Block {
                origin: 0,
                data: other,
            }],
        };
        g.handle(0, &m.encode()).unwrap();
        while g.poll_transmit().is_some() {}
        assert!(g.is_complete());
        assert!(matches!(
            g.into_blobs(),
            Err(Error::BadFenceMessage {
                node: 1,
                from: 0,
                ..
            })
        ));
        // An invalid blob is refused up front.
        let mut bad = blob(0, 2, true);
        bad.entries.reverse();
        assert!(matches!(
            BlobFence::new(Algorithm::Ring, 0, 2, &bad, layout),
            Err(Error::Unordered { .. })
        ));
    }
}
