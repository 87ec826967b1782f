//! Direct modex's two messages, [`DmodexRequest`] and [`DmodexAnswer`], and their versioned
//! bytes on a wire, so that a host can carry them over its own transport.
//!
//! What the serving node answers, and what the requester's `get` then says, follows the PMIx
//! Standard v5.0, chapter "Data Access and Sharing", `PMIx_Get`'s precedence search for a
//! remote target: "the target PMIx server will check its cache for the specified key. If
//! the key is not present, the request shall be held until either the target process
//! provides the data or, if given, the `PMIX_TIMEOUT` is reached"; and among `PMIx_Get`'s
//! return codes, "`PMIX_ERR_EXISTS_OUTSIDE_SCOPE` The requested key exists, but was posted
//! in a scope that does not include the requester". A key the target put with
//! [`Scope::Local`](crate::Scope::Local) is "only available to processes on the local
//! node" (`PMIX_LOCAL`): it exists, and it will never reach a requester on another node, so
//! the serving node answers [`DmodexAnswer::OutsideScope`] at once instead of holding the
//! request for ever.

use crate::error::{Error, Result};
use crate::ident::{MAX_NSLEN, Rank};
use crate::keys::MAX_KEYLEN;
use crate::varint::{self, IntEncoding, Reader};

/// First byte of an encoded [`DmodexRequest`] (distinct from the blob codec's `b'P'` and
/// the fence messages' `b'F'`).
pub const REQUEST_MAGIC: u8 = b'Q';
/// First byte of an encoded [`DmodexAnswer`].
pub const ANSWER_MAGIC: u8 = b'A';
/// The layout version of both messages that this crate writes and reads.
pub const DMODEX_WIRE_VERSION: u8 = 1;

const ENC: IntEncoding = IntEncoding::Leb128;

/// Request flag: a node number follows the key.
const HAS_NODE: u8 = 1;

/// Answer status byte: the target's data follows.
const ANSWER_DATA: u8 = 0;
/// Answer status byte: the required key is not posted yet.
const ANSWER_NOT_YET: u8 = 1;
/// Answer status byte: the key exists only in a scope the requester is outside of.
const ANSWER_OUTSIDE_SCOPE: u8 = 2;

/// A direct-modex request: "send me the data of `rank` of `nspace`" (Slurm `pmixp_dmdx.c`;
/// PMIx `dmodex_req_fn`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DmodexRequest {
    /// The target's namespace name.
    pub nspace: String,
    /// The target's rank.
    pub rank: Rank,
    /// The key that was asked for (`PMIX_REQUIRED_KEY`): the target's node answers once that
    /// key is posted.
    pub key: String,
    /// The node to send it to, when the job's process map is known.
    pub node: Option<u32>,
}

/// A node's answer to a [`DmodexRequest`] (what
/// [`NodeStore::answer_dmodex`](crate::NodeStore::answer_dmodex) gives and
/// [`NodeStore::apply_dmodex`](crate::NodeStore::apply_dmodex) takes).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DmodexAnswer {
    /// The target's whole off-node data (not only the key asked for), as a compact blob.
    Data(Vec<u8>),
    /// The required key is not posted yet: ask again later (the serving node holds the request).
    NotYet,
    /// The target committed the required key, but only with
    /// [`Scope::Local`](crate::Scope::Local): it exists and will never be visible off its
    /// node. Applied, it makes the requester's `get` answer
    /// [`GetOutcome::ExistsOutsideScope`](crate::GetOutcome::ExistsOutsideScope)
    /// (`PMIX_ERR_EXISTS_OUTSIDE_SCOPE`) instead of waiting.
    OutsideScope,
}

impl DmodexRequest {
    /// The request's bytes on a wire.
    ///
    /// The layout (integers LEB128, shortest form):
    ///
    /// | field   | bytes  | value                                                    |
    /// |---------|--------|----------------------------------------------------------|
    /// | magic   | 1      | [`REQUEST_MAGIC`] (`b'Q'`)                               |
    /// | version | 1      | [`DMODEX_WIRE_VERSION`] (1)                              |
    /// | flags   | 1      | bit 0: a node follows the key; other bits are refused   |
    /// | nspace  |        | length (varint, 1..=255), that many bytes of UTF-8       |
    /// | rank    | varint | at most `u32::MAX`                                       |
    /// | key     |        | length (varint, 1..=511), that many bytes of UTF-8       |
    /// | node    | varint | only with flag bit 0; at most `u32::MAX`                 |
    ///
    /// Nothing follows. [`DmodexRequest::decode`] of these bytes gives the request back.
    ///
    /// # Errors
    /// [`Error::BadNspaceLength`] or [`Error::BadKeyLength`] for a name or key the layout
    /// cannot carry (what a `get` never forwards).
    pub fn encode(&self) -> Result<Vec<u8>> {
        if self.nspace.is_empty() || self.nspace.len() > MAX_NSLEN {
            return Err(Error::BadNspaceLength {
                len: self.nspace.len(),
            });
        }
        if self.key.is_empty() || self.key.len() > MAX_KEYLEN {
            return Err(Error::BadKeyLength {
                len: self.key.len(),
            });
        }
        let flags = if self.node.is_some() { HAS_NODE } else { 0 };
        let mut out = Vec::with_capacity(self.nspace.len() + self.key.len() + 16);
        out.extend_from_slice(&[REQUEST_MAGIC, DMODEX_WIRE_VERSION, flags]);
        varint::put(&mut out, self.nspace.len() as u64, ENC);
        out.extend_from_slice(self.nspace.as_bytes());
        varint::put(&mut out, u64::from(self.rank.get()), ENC);
        varint::put(&mut out, self.key.len() as u64, ENC);
        out.extend_from_slice(self.key.as_bytes());
        if let Some(node) = self.node {
            varint::put(&mut out, u64::from(node), ENC);
        }
        Ok(out)
    }

    /// Decodes a request made by [`DmodexRequest::encode`] (the layout is on that method).
    ///
    /// # Errors
    /// [`Error::BadHeader`] for a wrong magic, an unknown version or an unknown flag;
    /// [`Error::Truncated`], [`Error::Overlong`], [`Error::OutOfRange`] (a rank or node
    /// beyond `u32`, a name or key length outside its bounds), [`Error::BadUtf8`] and
    /// [`Error::Trailing`], each with the offset of the bad field; never a panic.
    ///
    /// # Complexity
    /// O(input length); at most 766 bytes are allocated.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let flags = header(
            &mut r,
            REQUEST_MAGIC,
            "not a direct-modex request (bad magic)",
        )?;
        if flags & !HAS_NODE != 0 {
            return Err(Error::BadHeader {
                offset: 2,
                reason: "unknown direct-modex request flags",
            });
        }
        let nspace = string(&mut r, MAX_NSLEN, "request namespace")?;
        let rank = Rank::new(read_u32(&mut r, "request rank")?);
        let key = string(&mut r, MAX_KEYLEN, "request key")?;
        let node = if flags & HAS_NODE != 0 {
            Some(read_u32(&mut r, "request node")?)
        } else {
            None
        };
        r.finish()?;
        Ok(Self {
            nspace,
            rank,
            key,
            node,
        })
    }
}

impl DmodexAnswer {
    /// The answer's bytes on a wire.
    ///
    /// | field   | bytes | value                                                          |
    /// |---------|-------|----------------------------------------------------------------|
    /// | magic   | 1     | [`ANSWER_MAGIC`] (`b'A'`)                                      |
    /// | version | 1     | [`DMODEX_WIRE_VERSION`] (1)                                    |
    /// | status  | 1     | 0 [`DmodexAnswer::Data`], 1 [`DmodexAnswer::NotYet`], 2 [`DmodexAnswer::OutsideScope`]; others are refused |
    /// | data    | rest  | with status 0 only: the compact blob, to the end of the input  |
    ///
    /// The blob is carried as it is; [`NodeStore::apply_dmodex`](crate::NodeStore::apply_dmodex)
    /// decodes and checks it.
    #[must_use]
    pub fn encode(&self) -> Vec<u8> {
        let (status, data): (u8, &[u8]) = match self {
            Self::Data(bytes) => (ANSWER_DATA, bytes),
            Self::NotYet => (ANSWER_NOT_YET, &[]),
            Self::OutsideScope => (ANSWER_OUTSIDE_SCOPE, &[]),
        };
        let mut out = Vec::with_capacity(3 + data.len());
        out.extend_from_slice(&[ANSWER_MAGIC, DMODEX_WIRE_VERSION, status]);
        out.extend_from_slice(data);
        out
    }

    /// Decodes an answer made by [`DmodexAnswer::encode`].
    ///
    /// # Errors
    /// [`Error::BadHeader`] for a wrong magic or an unknown version; [`Error::Truncated`]
    /// for fewer than three bytes; [`Error::OutOfRange`] (offset 2) for an unknown status;
    /// [`Error::Trailing`] for bytes after a status that carries none; never a panic.
    ///
    /// # Complexity
    /// O(input length).
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let status = header(
            &mut r,
            ANSWER_MAGIC,
            "not a direct-modex answer (bad magic)",
        )?;
        let answer = match status {
            ANSWER_DATA => return Ok(Self::Data(r.bytes(r.remaining(), "answer data")?.to_vec())),
            ANSWER_NOT_YET => Self::NotYet,
            ANSWER_OUTSIDE_SCOPE => Self::OutsideScope,
            _ => {
                return Err(Error::OutOfRange {
                    what: "direct-modex answer status",
                    offset: 2,
                });
            }
        };
        r.finish()?;
        Ok(answer)
    }
}

/// Reads magic and version, and returns the third byte (flags or status).
fn header(r: &mut Reader<'_>, magic: u8, bad_magic: &'static str) -> Result<u8> {
    if r.u8("direct-modex magic")? != magic {
        return Err(Error::BadHeader {
            offset: 0,
            reason: bad_magic,
        });
    }
    if r.u8("direct-modex version")? != DMODEX_WIRE_VERSION {
        return Err(Error::BadHeader {
            offset: 1,
            reason: "unknown direct-modex wire version",
        });
    }
    r.u8("direct-modex flags or status")
}

fn read_u32(r: &mut Reader<'_>, what: &'static str) -> Result<u32> {
    let offset = r.pos();
    let v = r.varint(ENC, what)?;
    u32::try_from(v).map_err(|_| Error::OutOfRange { what, offset })
}

/// A length-prefixed UTF-8 string of 1..=`max` bytes.
fn string(r: &mut Reader<'_>, max: usize, what: &'static str) -> Result<String> {
    let offset = r.pos();
    let len = r.length(ENC, max.min(r.remaining()), what)?;
    if len == 0 {
        return Err(Error::OutOfRange { what, offset });
    }
    let at = r.pos();
    let b = r.bytes(len, what)?;
    std::str::from_utf8(b)
        .map(str::to_owned)
        .map_err(|_| Error::BadUtf8 { what, offset: at })
}

#[cfg(test)]
mod tests;
