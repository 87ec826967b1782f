//! Entry points for the cargo-fuzz targets in `fuzz/`, kept in the library so that a stable
//! test replays the committed corpus (`tests/corpus/<target>/` of this package) through the
//! same code. Compiled only for tests and under `cfg(fuzzing)` (cargo-fuzz sets it); not part
//! of the public API.
//!
//! - [`decode`]: arbitrary bytes to [`Packet::decode`]; what decodes must encode back to the
//!   same bytes.
//! - [`receiver`]: arbitrary bytes read as a script of packets (raw wire bytes or structured
//!   data packets near the window edges) and clock advances, fed to a small [`Receiver`] in
//!   both modes; no payload may be written twice and the window must never move back.

use std::collections::HashSet;

use fabric_model::Nanos;

use crate::cid::Cid;
use crate::config::{Mode, ReceiverConfig};
use crate::packet::Packet;
use crate::psn::distance;
use crate::receiver::{Receiver, RecvEvent};

/// Decodes `data`; when it decodes, checks that encoding gives the same bytes back.
///
/// # Panics
/// When a decoded packet does not encode back to its input (a codec bug).
pub fn decode(data: &[u8]) {
    if let Ok((p, payload)) = Packet::decode(data) {
        let mut buf = [0u8; crate::packet::MAX_HEADER_LEN];
        let n = p.encode(&mut buf).expect("header fits MAX_HEADER_LEN");
        assert_eq!(&buf[..n], &data[..n], "re-encoding differs");
        assert_eq!(payload, &data[n..]);
    }
}

/// Runs `data` as a script against a receiver with W = 64, then with W = 128 in the
/// improved mode.
///
/// # Panics
/// When the receiver writes one packet twice or moves `WBASE` backwards.
pub fn receiver(data: &[u8]) {
    script::<1>(data, Mode::Paper);
    script::<2>(data, Mode::Improved);
}

fn script<const WORDS: usize>(data: &[u8], mode: Mode) {
    let cfg = ReceiverConfig {
        capacity: 2,
        mode,
        resend_timeout: Nanos::new(1_000),
        reorder_tolerance: Nanos::new(100),
        retry_interval: Nanos::new(500),
        ack_stride: 1,
        // Half of the inputs run with lazy, coalesced ACKs.
        coalesce_acks: data.first().is_some_and(|b| b & 0x80 != 0),
        max_idle_timeouts: 4,
        completions_kept: 4,
        checksum: false,
    };
    let Ok(mut rx) = Receiver::<WORDS>::new(cfg) else {
        return;
    };
    let mut now = 0u64;
    let mut written: HashSet<(Cid, u32)> = HashSet::new();
    let mut bases: Vec<(Cid, u32)> = Vec::new();
    let mut granted: Vec<(Cid, u32)> = Vec::new(); // (cid, first psn)
    let mut i = 0;
    while i < data.len() {
        let op = data[i];
        i += 1;
        let mut take = |k: usize| {
            let s = data.get(i..i + k).unwrap_or(&[]);
            i += k;
            s
        };
        match op % 4 {
            0 => {
                // Raw bytes: length byte then the packet.
                let len = take(1).first().copied().unwrap_or(0) as usize;
                if let Ok((p, _)) = Packet::decode(take(len)) {
                    let _ = rx.handle(p, Nanos::new(now));
                }
            }
            1 => {
                // A request for a small transfer starting near the wrap.
                let b = take(2);
                let packets = u64::from(b.first().copied().unwrap_or(1)) + 1;
                let first = u32::MAX - u32::from(b.get(1).copied().unwrap_or(0));
                let scid = Cid {
                    index: u16::from(op >> 2),
                    generation: 0,
                };
                let _ = rx.handle(
                    Packet::Req {
                        scid,
                        src_node: 9,
                        dst_addr: 0,
                        len: packets * 64,
                        mtu: 64,
                        first_psn: first,
                    },
                    Nanos::new(now),
                );
                while let Some(t) = rx.poll_transmit() {
                    if let Packet::Rsp {
                        status: crate::packet::RspStatus::Granted(c),
                        ..
                    } = t.packet
                    {
                        granted.push((c, first));
                    }
                }
            }
            2 => {
                // A data packet for a granted context (or a stale one).
                let b = take(2);
                if let Some(&(c, first)) = granted.get(usize::from(op >> 2) % granted.len().max(1))
                {
                    let off = u32::from(b.first().copied().unwrap_or(0));
                    let len = if b.get(1).copied().unwrap_or(0) & 1 == 0 {
                        64
                    } else {
                        u32::from(b.get(1).copied().unwrap_or(0))
                    };
                    let _ = rx.handle(
                        Packet::Data {
                            dcid: c,
                            psn: first.wrapping_add(off),
                            len,
                        },
                        Nanos::new(now),
                    );
                }
            }
            _ => {
                now += u64::from(op >> 2) * 50;
                rx.handle_timeout(Nanos::new(now));
            }
        }
        while let Some(e) = rx.poll_event() {
            if let RecvEvent::Write { cid, psn, .. } = e {
                assert!(
                    written.insert((cid, psn)),
                    "psn {psn} of {cid} written twice"
                );
            }
        }
        while rx.poll_transmit().is_some() {}
        for &(c, _) in &granted {
            if let Some(ctx) = rx.context(c) {
                let wb = ctx.window().wbase();
                if let Some(prev) = bases.iter_mut().find(|(x, _)| *x == c) {
                    assert!(distance(prev.1, wb) >= 0, "WBASE moved back");
                    prev.1 = wb;
                } else {
                    bases.push((c, wb));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Runs every file of the committed corpus of `target` through `harness`.
    fn replay(target: &str, dir: &str, harness: fn(&[u8])) {
        let mut n = 0;
        for entry in std::fs::read_dir(dir).expect("corpus folder exists") {
            let path = entry.expect("readable entry").path();
            harness(&std::fs::read(&path).expect("readable corpus file"));
            n += 1;
        }
        assert!(n >= 3, "corpus {target} at {dir} has {n} files");
    }

    #[test]
    fn rdma_decode_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/rdma_decode");
        replay("rdma_decode", dir, super::decode);
    }

    #[test]
    fn rdma_receiver_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/rdma_receiver");
        replay("rdma_receiver", dir, super::receiver);
    }

    #[test]
    fn harnesses_take_arbitrary_bytes() {
        // A deterministic sweep of short inputs, as a smoke test of the no-panic contract.
        let mut x = 0x1234_5678_9abc_def0u64;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x.to_le_bytes()[0]
                })
                .collect();
            super::decode(&bytes);
            super::receiver(&bytes);
        }
    }
}
