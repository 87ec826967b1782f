//! The frames hosts send each other over TCP: `[u32 length][u8 kind][body]`, little-endian.
//!
//! A fence message is pmix-kvs's own wire layout ([`pmix_kvs::fence::Message::encode`]) with
//! the fence's sequence number in front; a direct-modex request and answer are pmix-kvs's
//! [`DmodexRequest`] and [`DmodexAnswer`] in their own wire layout
//! ([`DmodexRequest::encode`], [`DmodexAnswer::encode`]) with an id and the PMIx status in
//! front, the answer's data being the owner server's opaque blob. Every length is checked
//! against what is left and against [`MAX_FRAME`].

use pmix_kvs::{DmodexAnswer, DmodexRequest};

/// The largest frame accepted (64 MiB): a length above it is refused before allocating.
pub const MAX_FRAME: usize = 64 << 20;

/// One frame between hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A message of fence `seq` run by pmix-kvs (tree, ring or Bruck).
    Fence {
        /// The fence's number (every host counts its server's fence upcalls).
        seq: u64,
        /// A [`pmix_kvs::fence::Message`], encoded.
        message: Vec<u8>,
    },
    /// The baseline: one node's whole contribution to fence `seq`, sent to every other node.
    Direct {
        /// The fence's number.
        seq: u64,
        /// The contribution.
        data: Vec<u8>,
    },
    /// "Send me this process's data" (direct modex).
    DmodexRequest {
        /// The requester's id for the answer.
        id: u64,
        /// The requesting get's timeout in seconds (0: none).
        timeout_s: u32,
        /// What is asked.
        request: DmodexRequest,
    },
    /// The owner's answer to a [`Frame::DmodexRequest`].
    DmodexAnswer {
        /// The request's id.
        id: u64,
        /// The owner server's PMIx status.
        status: i32,
        /// Its data (empty unless `status` is success).
        answer: DmodexAnswer,
    },
}

const FENCE: u8 = 1;
const DIRECT: u8 = 2;
const DMODEX_REQ: u8 = 3;
const DMODEX_ANS: u8 = 4;

impl Frame {
    /// The frame with its length prefix.
    ///
    /// # Errors
    /// A direct-modex request pmix-kvs cannot encode (a namespace or key over its limits),
    /// or a frame over [`MAX_FRAME`].
    pub fn encode(&self) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        match self {
            Self::Fence { seq, message } => {
                body.push(FENCE);
                body.extend_from_slice(&seq.to_le_bytes());
                body.extend_from_slice(message);
            }
            Self::Direct { seq, data } => {
                body.push(DIRECT);
                body.extend_from_slice(&seq.to_le_bytes());
                body.extend_from_slice(data);
            }
            Self::DmodexRequest {
                id,
                timeout_s,
                request,
            } => {
                body.push(DMODEX_REQ);
                body.extend_from_slice(&id.to_le_bytes());
                body.extend_from_slice(&timeout_s.to_le_bytes());
                body.extend_from_slice(&request.encode().map_err(|e| e.to_string())?);
            }
            Self::DmodexAnswer { id, status, answer } => {
                body.push(DMODEX_ANS);
                body.extend_from_slice(&id.to_le_bytes());
                body.extend_from_slice(&status.to_le_bytes());
                body.extend_from_slice(&answer.encode());
            }
        }
        let len = u32::try_from(body.len())
            .ok()
            .filter(|&l| l as usize <= MAX_FRAME)
            .ok_or_else(|| format!("a frame of {} bytes is over the limit", body.len()))?;
        let mut out = Vec::with_capacity(body.len() + 4);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Decodes a frame's body (without its length prefix).
    ///
    /// # Errors
    /// A description of what is malformed.
    pub fn decode(body: &[u8]) -> Result<Self, String> {
        let mut r = Reader { b: body, at: 0 };
        let kind = r.u8()?;
        let frame = match kind {
            FENCE => Self::Fence {
                seq: r.u64()?,
                message: r.rest().to_vec(),
            },
            DIRECT => Self::Direct {
                seq: r.u64()?,
                data: r.rest().to_vec(),
            },
            DMODEX_REQ => Self::DmodexRequest {
                id: r.u64()?,
                timeout_s: r.u32()?,
                request: DmodexRequest::decode(r.rest()).map_err(|e| e.to_string())?,
            },
            DMODEX_ANS => Self::DmodexAnswer {
                id: r.u64()?,
                status: i32::from_le_bytes(r.array()?),
                answer: DmodexAnswer::decode(r.rest()).map_err(|e| e.to_string())?,
            },
            k => return Err(format!("unknown frame kind {k}")),
        };
        if r.at != body.len() {
            return Err(format!("{} trailing bytes", body.len() - r.at));
        }
        Ok(frame)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| format!("truncated at byte {} (needed {n})", self.at))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let s = self.take(N)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn rest(&mut self) -> &'a [u8] {
        let s = &self.b[self.at..];
        self.at = self.b.len();
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_kvs::Rank;

    #[test]
    fn frames_round_trip() {
        let frames = [
            Frame::Fence {
                seq: 7,
                message: vec![1, 2, 3],
            },
            Frame::Direct {
                seq: 1,
                data: vec![],
            },
            Frame::DmodexRequest {
                id: 3,
                timeout_s: 2,
                request: DmodexRequest {
                    nspace: "job".into(),
                    rank: Rank::new(5),
                    key: "k".into(),
                    node: Some(1),
                },
            },
            Frame::DmodexAnswer {
                id: 3,
                status: -46,
                answer: DmodexAnswer::NotYet,
            },
            Frame::DmodexAnswer {
                id: 4,
                status: 0,
                answer: DmodexAnswer::Data(vec![9; 10]),
            },
        ];
        for f in frames {
            let bytes = f.encode().unwrap();
            let len = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
            assert_eq!(len, bytes.len() - 4);
            assert_eq!(Frame::decode(&bytes[4..]).unwrap(), f);
        }
    }

    #[test]
    fn every_truncation_is_refused() {
        let f = Frame::DmodexRequest {
            id: 3,
            timeout_s: 2,
            request: DmodexRequest {
                nspace: "job".into(),
                rank: Rank::new(5),
                key: "key".into(),
                node: None,
            },
        };
        let bytes = f.encode().unwrap();
        for cut in 0..bytes.len() - 4 {
            assert!(Frame::decode(&bytes[4..4 + cut]).is_err(), "cut {cut}");
        }
        assert_eq!(
            Frame::decode(&[9]).unwrap_err(),
            "unknown frame kind 9".to_owned()
        );
    }
}
