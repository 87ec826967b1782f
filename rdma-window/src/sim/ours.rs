//! The paper's protocol (either receiver mode) on the simulated link: the crate's own
//! [`Sender`] and [`Receiver`] driven by the engine.

use fabric_model::Nanos;
use fabric_model::rng::mix;

use super::engine::{Node, Wire};
use super::fates::Corrupt;
use super::{Report, SimConfig, Tally};
use crate::packet::Packet;
use crate::receiver::RecvEvent;
use crate::sender::SendEvent;
use crate::{Cid, Mode, Receiver, ReceiverConfig, Sender, SenderConfig, Transfer};

pub(crate) struct Tx {
    s: Sender,
    ids: Vec<Cid>,
    pub(crate) done_at: Vec<Option<u64>>,
    dcid_to_transfer: std::collections::HashMap<Cid, u32>,
    firsts: Vec<u32>,
    pub(crate) failed: bool,
    /// Frames are checked ([`SimConfig::checksum`]).
    checksum: bool,
    /// The network corrupts packets: a packet may be anything, so errors are dropped
    /// rather than treated as bugs.
    tolerant: bool,
}

pub(crate) struct Rx<const WORDS: usize> {
    r: Receiver<WORDS>,
    mtu: u32,
    pub(crate) tally: Tally,
    checksum: bool,
    tolerant: bool,
    /// While a corrupted packet is handled: the `(transfer, index)` of the payload it really
    /// carries (`None` for a control packet), and whether that payload was hit.
    truth: Option<(Option<(u32, u32)>, bool)>,
}

/// The frame of `pkt` as it arrives with bit `c` flipped (a data packet's payload is zeros:
/// its content is tracked by identity, see [`Rx`]), decoded as the receiving end decodes it:
/// `None` when the decode refuses it (a CRC mismatch when `checksum`), the packet it reads
/// as otherwise, and whether the payload was hit.
fn corrupted(pkt: Packet, c: Corrupt, checksum: bool) -> Option<(Packet, bool)> {
    let payload = match pkt {
        Packet::Data { len, .. } => len as usize,
        _ => 0,
    };
    let zeros = vec![0u8; payload];
    let mut frame = vec![0u8; pkt.frame_len(payload, checksum)];
    pkt.encode_frame(&zeros, checksum, &mut frame).ok()?;
    let header_bits = pkt.header_len() as u64 * 8;
    let (bit, in_payload) = match c {
        Corrupt::Payload(h) if payload > 0 => (header_bits + h % (payload as u64 * 8), true),
        Corrupt::Header(h) | Corrupt::Payload(h) => (h % header_bits, false),
    };
    #[expect(
        clippy::cast_possible_truncation,
        reason = "below the frame's bit count"
    )]
    let bit = bit as usize;
    frame[bit / 8] ^= 1 << (bit % 8);
    let (p, _) = Packet::decode_frame(&frame, checksum).ok()?;
    Some((p, in_payload))
}

/// Address space of transfer `i` at the receiver: `i << 40`.
const SHIFT: u32 = 40;

impl Node for Tx {
    type Pkt = Packet;
    fn handle(&mut self, pkt: Packet, now: u64) {
        let r = self.s.handle(pkt, Nanos::new(now));
        // Without corruption the simulator only carries well-formed packets; an error
        // would be a bug.
        assert!(
            self.tolerant || r.is_ok(),
            "sender rejected a packet the receiver built: {r:?}"
        );
        self.drain(now);
    }
    fn handle_corrupted(&mut self, pkt: Packet, _: Option<(u32, u32)>, c: Corrupt, now: u64) {
        if let Some((p, _)) = corrupted(pkt, c, self.checksum) {
            let _ = self.s.handle(p, Nanos::new(now));
            self.drain(now);
        }
    }
    fn handle_timeout(&mut self, now: u64) {
        self.s.handle_timeout(Nanos::new(now));
        self.drain(now);
    }
    fn poll_timeout(&self) -> Option<u64> {
        self.s.poll_timeout().map(Nanos::get)
    }
    fn poll_transmit(&mut self, now: u64) -> Option<Wire<Packet>> {
        let t = self.s.poll_transmit()?;
        self.drain(now);
        let data = match t.packet {
            Packet::Data { dcid, psn, .. } => self
                .dcid_to_transfer
                .get(&dcid)
                .map(|&i| (i, psn.wrapping_sub(self.firsts[i as usize]))),
            _ => None,
        };
        let bytes =
            u32::try_from(t.packet.header_len()).unwrap_or(u32::MAX) + t.source.map_or(0, |s| s.1);
        Some(Wire {
            pkt: t.packet,
            bytes,
            data,
        })
    }
}

impl Tx {
    fn drain(&mut self, now: u64) {
        while let Some(e) = self.s.poll_event() {
            match e {
                SendEvent::Connected { cid: id, dcid } => {
                    if let Some(i) = self.ids.iter().position(|x| *x == id) {
                        #[expect(clippy::cast_possible_truncation, reason = "few transfers")]
                        self.dcid_to_transfer.insert(dcid, i as u32);
                    }
                }
                SendEvent::Complete { cid: id } => {
                    if let Some(i) = self.ids.iter().position(|x| *x == id) {
                        self.done_at[i] = Some(now);
                    }
                }
                SendEvent::Failed { .. } => self.failed = true,
                SendEvent::Reread { .. } => {}
            }
        }
    }
}

impl<const WORDS: usize> Node for Rx<WORDS> {
    type Pkt = Packet;
    fn handle(&mut self, pkt: Packet, now: u64) {
        let r = self.r.handle(pkt, Nanos::new(now));
        assert!(
            self.tolerant || r.is_ok(),
            "receiver rejected a packet the sender built: {r:?}"
        );
        self.drain();
    }
    fn handle_corrupted(&mut self, pkt: Packet, data: Option<(u32, u32)>, c: Corrupt, now: u64) {
        if let Some((p, payload_hit)) = corrupted(pkt, c, self.checksum) {
            self.truth = Some((data, payload_hit));
            let _ = self.r.handle(p, Nanos::new(now));
            self.drain();
            self.truth = None;
        }
    }
    fn handle_timeout(&mut self, now: u64) {
        self.r.handle_timeout(Nanos::new(now));
        self.drain();
    }
    fn poll_timeout(&self) -> Option<u64> {
        self.r.poll_timeout().map(Nanos::get)
    }
    fn poll_transmit(&mut self, _now: u64) -> Option<Wire<Packet>> {
        let t = self.r.poll_transmit()?;
        Some(Wire {
            pkt: t.packet,
            bytes: u32::try_from(t.packet.header_len()).unwrap_or(u32::MAX),
            data: None,
        })
    }
}

impl<const WORDS: usize> Rx<WORDS> {
    fn drain(&mut self) {
        while let Some(e) = self.r.poll_event() {
            if let RecvEvent::Write { addr, .. } = e {
                let t = addr >> SHIFT;
                let i = (addr & ((1 << SHIFT) - 1)) / u64::from(self.mtu);
                #[expect(clippy::cast_possible_truncation, reason = "built from u32s")]
                let (t, i) = (t as u32, i as u32);
                self.tally.write(t, i);
                // A corrupted packet that was written: right only if it carried this very
                // packet's payload, untouched.
                if let Some((data, payload_hit)) = self.truth
                    && (payload_hit || data != Some((t, i)))
                {
                    self.tally.spoil(t, i);
                }
            }
        }
    }
}

/// Runs the crate's protocol with window W = 64 × `WORDS` in `mode`, the sender's speculative
/// window one W deep (delayed by the reorder tolerance) when `speculate`.
pub(crate) fn run<const WORDS: usize>(
    mode: Mode,
    speculate: bool,
    cfg: &SimConfig,
) -> Result<Report, crate::Error> {
    let w = Receiver::<WORDS>::W;
    let n = cfg.transfers.len();
    let timeout = cfg.timeout.get();
    let rcfg = ReceiverConfig {
        capacity: cfg.receive_contexts,
        mode,
        resend_timeout: cfg.timeout,
        reorder_tolerance: cfg.reorder_tolerance,
        retry_interval: cfg.retry,
        ack_stride: 1,
        // The engine polls the receiver only when the reverse link is idle, so coalesced
        // ACKs would merge there; the tables are for the eager ACK of every packet.
        coalesce_acks: false,
        max_idle_timeouts: 1_000,
        completions_kept: 256,
        checksum: cfg.checksum,
    };
    let scfg = SenderConfig {
        capacity: n.max(1),
        window: w,
        req_timeout: Nanos::new(2 * timeout),
        busy_backoff: Nanos::new(timeout / 2),
        max_backoff: Nanos::new(4 * timeout),
        probe_timeout: Nanos::new(4 * timeout),
        max_probes: 1_000,
        // The simulated transfers queue for receive contexts: they wait for a grant as long
        // as the run lasts (as the paper's sender does), so that no table changes.
        max_requests: u32::MAX,
        request_deadline: crate::config::MAX_INTERVAL,
        busy_deadline: crate::config::MAX_INTERVAL,
        speculate: if speculate { w } else { 0 },
        speculate_delay: cfg.reorder_tolerance,
        checksum: cfg.checksum,
    };
    let corrupting = cfg.net.header_corruption > 0.0 || cfg.net.payload_corruption > 0.0;
    let mut s = Sender::new(0, scfg)?;
    let mut ids = Vec::new();
    let mut firsts = Vec::new();
    for (i, &len) in cfg.transfers.iter().enumerate() {
        #[expect(clippy::cast_possible_truncation, reason = "hash bits")]
        let first = mix(cfg.net.seed ^ i as u64) as u32;
        firsts.push(first);
        let t = Transfer::new(1, len, cfg.mtu)
            .with_dst_addr((i as u64) << SHIFT)
            .with_first_psn(first);
        ids.push(s.start(t, Nanos::ZERO)?);
    }
    let mut tx = Tx {
        s,
        ids,
        done_at: vec![None; n],
        dcid_to_transfer: std::collections::HashMap::new(),
        firsts,
        failed: false,
        checksum: cfg.checksum,
        tolerant: corrupting,
    };
    let mut rx = Rx::<WORDS> {
        r: Receiver::new(rcfg)?,
        mtu: cfg.mtu,
        tally: Tally::new(cfg),
        checksum: cfg.checksum,
        tolerant: corrupting,
        truth: None,
    };
    let mut fates = super::fates::Fates::new(cfg.net);
    let (end, finished) = super::engine::run(
        &mut tx,
        &mut rx,
        &mut fates,
        cfg.limit.get(),
        super::max_events(cfg),
        |t| t.done_at.iter().all(Option::is_some) || t.failed,
    );
    let st = tx.s.stats();
    let rs = rx.r.stats();
    Ok(Report {
        finished: finished && !tx.failed,
        completion: Nanos::new(end),
        per_transfer: tx.done_at.into_iter().map(|t| t.map(Nanos::new)).collect(),
        data_sent: st.data_sent,
        retransmits: st.retransmits,
        timeouts: rs.timeouts + st.probes,
        requests: rs.resend_packets,
        refusals: rs.refused,
        tally: rx.tally,
    })
}
