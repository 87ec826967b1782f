//! The sending side: `RDMA_REQ` with back-off, data within the receiver's window, re-reads on
//! `RDMA_RESEND`, and completion (paper §2.3).
//!
//! Sans-IO like [`crate::receiver::Receiver`]: [`Sender::start`] a transfer, feed packets with
//! [`Sender::handle`] and timers with [`Sender::handle_timeout`], pull packets with
//! [`Sender::poll_transmit`] whenever the link can take one, and drain
//! [`Sender::poll_event`].

use std::collections::VecDeque;

use fabric_model::{Bytes, Nanos};

use crate::Error;
use crate::cid::{Cid, ContextTable};
use crate::config::SenderConfig;
use crate::packet::{Packet, RspStatus};
use crate::receiver::{check_range, packet_count};

/// One RDMA transfer (paper Table 1). The source node is the sender's own.
///
/// Built with [`Transfer::new`] and the `with_*` setters (`#[non_exhaustive]`: a field added
/// later breaks no caller).
///
/// ```
/// use fabric_model::Bytes;
/// use rdma_window::Transfer;
///
/// let t = Transfer::new(2, Bytes::from_kib(64), 4096).with_dst_addr(0x9000);
/// assert_eq!((t.src_addr, t.first_psn), (0, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Transfer {
    /// Source address of the first byte.
    pub src_addr: u64,
    /// Destination node.
    pub dst_node: u32,
    /// Destination address of the first byte.
    pub dst_addr: u64,
    /// Length (> 0).
    pub len: Bytes,
    /// Payload bytes per packet (> 0): the wire field of `RDMA_REQ`.
    pub mtu: u32,
    /// Sequence number of the first packet (need not be zero).
    pub first_psn: u32,
}

impl Transfer {
    /// `len` bytes to node `dst_node` in packets of `mtu` payload bytes, from source address 0
    /// to destination address 0, first sequence number 0.
    #[must_use]
    pub const fn new(dst_node: u32, len: Bytes, mtu: u32) -> Self {
        Self {
            src_addr: 0,
            dst_node,
            dst_addr: 0,
            len,
            mtu,
            first_psn: 0,
        }
    }

    /// Sets [`Transfer::src_addr`].
    #[must_use]
    pub const fn with_src_addr(mut self, src_addr: u64) -> Self {
        self.src_addr = src_addr;
        self
    }

    /// Sets [`Transfer::dst_addr`].
    #[must_use]
    pub const fn with_dst_addr(mut self, dst_addr: u64) -> Self {
        self.dst_addr = dst_addr;
        self
    }

    /// Sets [`Transfer::first_psn`].
    #[must_use]
    pub const fn with_first_psn(mut self, first_psn: u32) -> Self {
        self.first_psn = first_psn;
        self
    }
}

/// A packet the sender sends; data packets say where to read their payload from (the
/// receiver's counterpart is [`crate::RecvTransmit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendTransmit {
    /// Destination node.
    pub to: u32,
    /// The packet (a data packet's payload follows its header).
    pub packet: Packet,
    /// For data: source address and length of the payload.
    pub source: Option<(u64, u32)>,
    /// The data packet is a retransmission.
    pub retransmit: bool,
}

/// What the sender tells its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendEvent {
    /// The receiver granted context `dcid` to transfer `cid`.
    Connected {
        /// The transfer.
        cid: Cid,
        /// The receiver's context.
        dcid: Cid,
    },
    /// A packet is being read again from source memory for retransmission.
    Reread {
        /// The transfer.
        cid: Cid,
        /// Sequence number re-sent.
        psn: u32,
        /// Source address.
        addr: u64,
        /// Length.
        len: u32,
    },
    /// The receiver has everything; the context is free.
    Complete {
        /// The transfer.
        cid: Cid,
    },
    /// The transfer was given up: the receiver stopped answering (probes ran out), it did
    /// not answer [`SenderConfig::max_requests`] requests in a row or for
    /// [`SenderConfig::request_deadline`], or it answered busy until
    /// [`SenderConfig::busy_deadline`].
    Failed {
        /// The transfer.
        cid: Cid,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Waiting for `RDMA_RSP`; send (again) `RDMA_REQ` at the deadline.
    Requesting,
    /// Sending data to `dcid`.
    Active(Cid),
}

#[derive(Debug, Clone)]
struct Ctx {
    t: Transfer,
    packets: u32,
    last_len: u32,
    state: State,
    deadline: u64,
    /// When [`Sender::start`] took the context (for [`SenderConfig::busy_deadline`]).
    started: u64,
    /// When the receiver last answered a request of this transfer (busy), or the start:
    /// the silence [`SenderConfig::request_deadline`] bounds.
    answered: u64,
    /// `RDMA_REQ`s sent since the last answer (for [`SenderConfig::max_requests`]).
    unanswered: u32,
    /// Busy answers so far: the back-off's exponent.
    refusals: u32,
    probes: u32,
    /// Packets below this index are at the receiver (its `WBASE`).
    acked: u32,
    /// Next never-sent index.
    next: u32,
    resend: VecDeque<u32>,
    /// Speculative window base (see [`SenderConfig::speculate`]): where the receiver's
    /// `WBASE` should be once the retransmission of its `WBASE` packet has arrived; the
    /// window runs from the later of this and `acked`.
    spec: u32,
    /// A speculative base waiting for `spec_at` (`u64::MAX` when none).
    spec_next: u32,
    spec_at: u64,
    /// One more than the `WBASE` index last asked for (0: none), to tell a repeated request.
    spec_asked: u32,
    /// How far the next guess may reach: halved when a guess fails, grown back by an eighth
    /// of [`SenderConfig::speculate`] when one holds.
    spec_depth: u32,
}

/// Counters of what the sender has done; `Display` prints them on one line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SendStats {
    /// Data packets sent, first transmissions and retransmissions.
    pub data_sent: u64,
    /// Data packets re-sent.
    pub retransmits: u64,
    /// `RDMA_REQ`s sent.
    pub requests: u64,
    /// Busy answers received.
    pub refusals: u64,
    /// Probes sent after silence.
    pub probes: u64,
}

/// The sending endpoint of one node.
#[derive(Debug, Clone)]
pub struct Sender {
    node: u32,
    cfg: SenderConfig,
    table: ContextTable<Ctx>,
    control: VecDeque<SendTransmit>,
    events: VecDeque<SendEvent>,
    cursor: usize,
    stats: SendStats,
}

impl Sender {
    /// A sender on node `node`.
    ///
    /// # Errors
    /// [`Error::Config`] naming the field at fault when [`SenderConfig::validate`] rejects
    /// `cfg`.
    pub fn new(node: u32, cfg: SenderConfig) -> Result<Self, Error> {
        cfg.validate()?;
        Ok(Self {
            node,
            cfg,
            table: ContextTable::new(cfg.capacity, Ctx::vacant())?,
            control: VecDeque::with_capacity(cfg.capacity * 2),
            events: VecDeque::with_capacity(cfg.capacity * 2),
            cursor: 0,
            stats: SendStats::default(),
        })
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &SenderConfig {
        &self.cfg
    }

    /// Counters so far, as a copy (a small `Copy` struct, returned by value like
    /// [`crate::Receiver::stats`] and like quinn's `Connection::stats`).
    #[must_use]
    pub const fn stats(&self) -> SendStats {
        self.stats
    }

    /// Transfers in progress.
    #[must_use]
    pub fn active(&self) -> usize {
        self.table.len()
    }

    /// Starts a transfer: takes a send context and queues its `RDMA_REQ`.
    ///
    /// # Errors
    /// [`Error::EmptyTransfer`], [`Error::TooManyPackets`], [`Error::AddressWrap`] (a source
    /// or destination range past 2^64), or [`Error::SenderFull`].
    pub fn start(&mut self, t: Transfer, now: Nanos) -> Result<Cid, Error> {
        let now = now.get();
        let packets = packet_count(t.len.get(), t.mtu)?;
        check_range("source", t.src_addr, t.len.get())?;
        check_range("destination", t.dst_addr, t.len.get())?;
        let last = t.len.get() - u64::from(packets - 1) * u64::from(t.mtu);
        #[expect(clippy::cast_possible_truncation, reason = "last ≤ mtu")]
        let last_len = last as u32;
        let cap = self.cfg.window as usize + 1;
        let ctx = Ctx {
            t,
            packets,
            last_len,
            state: State::Requesting,
            deadline: now.saturating_add(self.cfg.req_timeout.get()),
            started: now,
            answered: now,
            unanswered: 0,
            refusals: 0,
            probes: 0,
            acked: 0,
            next: 0,
            resend: VecDeque::with_capacity(cap),
            spec: 0,
            spec_next: 0,
            spec_at: u64::MAX,
            spec_asked: 0,
            spec_depth: self.cfg.speculate,
        };
        let id = self.table.insert(ctx).map_err(|_| Error::SenderFull {
            capacity: self.table.capacity(),
        })?;
        self.request(id);
        Ok(id)
    }

    fn request(&mut self, id: Cid) {
        if let Some(c) = self.table.get_mut(id) {
            self.stats.requests += 1;
            c.unanswered = c.unanswered.saturating_add(1);
            self.control.push_back(SendTransmit {
                to: c.t.dst_node,
                packet: Packet::Req {
                    scid: id,
                    src_node: self.node,
                    dst_addr: c.t.dst_addr,
                    len: c.t.len.get(),
                    mtu: c.t.mtu,
                    first_psn: c.t.first_psn,
                },
                source: None,
                retransmit: false,
            });
        }
    }

    /// Handles a packet from a receiver at time `now`.
    ///
    /// Packets for a context that is free or reused are dropped (zombies); packets meant for a
    /// receiver are ignored.
    ///
    /// # Errors
    /// [`Error::PsnOutOfRange`] when an ACK or `RDMA_RESEND` names a sequence number outside
    /// the transfer. Nothing changes.
    pub fn handle(&mut self, packet: Packet, now: Nanos) -> Result<(), Error> {
        let now = now.get();
        let cfg = self.cfg;
        match packet {
            Packet::Rsp { scid, status } => {
                let Some(c) = self.table.get_mut(scid) else {
                    return Ok(());
                };
                if c.state != State::Requesting {
                    return Ok(());
                }
                match status {
                    RspStatus::Granted(dcid) => {
                        c.state = State::Active(dcid);
                        c.deadline = now.saturating_add(cfg.probe_timeout.get());
                        self.events
                            .push_back(SendEvent::Connected { cid: scid, dcid });
                    }
                    RspStatus::Busy => {
                        // Paper §2.3.1: retry after a delay; doubling, capped. The receiver
                        // is alive: the count and the time that detect a silent one start
                        // again, and only `busy_deadline` bounds the wait.
                        self.stats.refusals += 1;
                        c.unanswered = 0;
                        c.answered = now;
                        let shift = c.refusals.min(20);
                        c.refusals = c.refusals.saturating_add(1);
                        let wait = cfg
                            .busy_backoff
                            .get()
                            .saturating_mul(1 << shift)
                            .min(cfg.max_backoff.get());
                        c.deadline = now.saturating_add(wait);
                    }
                }
            }
            Packet::Ack { scid, wbase } => {
                if let Some(c) = self.table.get_mut(scid) {
                    c.heard(wbase, scid, now, cfg)?;
                }
            }
            Packet::Resend {
                scid,
                wbase,
                psn,
                more,
            } => {
                if let Some(c) = self.table.get_mut(scid) {
                    c.heard(wbase, scid, now, cfg)?;
                    let first = c.index_of(psn, scid)?;
                    if cfg.speculate > 0 {
                        let base = c.index_of(wbase, scid)?;
                        c.speculate(base, first, more, now, cfg);
                    }
                    c.ask(first);
                    let mut m = more;
                    while m != 0 {
                        let j = m.trailing_zeros();
                        m &= m - 1;
                        c.ask(first.saturating_add(1 + j));
                    }
                }
            }
            Packet::Done { scid } => {
                if let Some(c) = self.table.get(scid)
                    && matches!(c.state, State::Active(_))
                {
                    self.table.remove(scid);
                    self.events.push_back(SendEvent::Complete { cid: scid });
                }
            }
            Packet::Req { .. } | Packet::Data { .. } => {}
        }
        Ok(())
    }

    /// Handles every timer expired by `now`: `RDMA_REQ` retries (a transfer whose requests
    /// went unanswered [`SenderConfig::max_requests`] times in a row or for
    /// [`SenderConfig::request_deadline`], or which is still refused at
    /// [`SenderConfig::busy_deadline`], fails) and probes. Every transfer
    /// whose timer is due is served in this one call, and every transfer that fails is
    /// freed (with its [`SendEvent::Failed`]) in it, however many there are.
    ///
    /// # Complexity
    /// O(capacity); no allocation while the queues are drained after each call.
    pub fn handle_timeout(&mut self, now: Nanos) {
        let now = now.get();
        let cfg = self.cfg;
        for i in 0..self.table.capacity() {
            #[expect(clippy::cast_possible_truncation, reason = "capacity ≤ 65536")]
            let index = i as u16;
            let Some(generation) = self.table.generation(index) else {
                continue;
            };
            let id = Cid { index, generation };
            let Some(c) = self.table.get_mut(id) else {
                continue;
            };
            if c.spec_at <= now {
                c.spec = c.spec.max(c.spec_next);
                c.spec_at = u64::MAX;
            }
            if c.deadline > now {
                continue;
            }
            match c.state {
                State::Requesting => {
                    // A silent receiver (no answer to `max_requests` requests in a row, or
                    // for `request_deadline`) is given up as dead; a busy one is waited for
                    // until `busy_deadline`.
                    if c.unanswered >= cfg.max_requests
                        || now.saturating_sub(c.answered) >= cfg.request_deadline.get()
                        || now.saturating_sub(c.started) >= cfg.busy_deadline.get()
                    {
                        self.fail(id);
                        continue;
                    }
                    c.deadline = now.saturating_add(cfg.req_timeout.get());
                    self.request(id);
                }
                State::Active(_) => {
                    c.probes += 1;
                    if c.probes > cfg.max_probes {
                        self.fail(id);
                        continue;
                    }
                    if c.next > c.acked {
                        self.stats.probes += 1;
                        let idx = c.acked.min(c.packets - 1);
                        c.resend.retain(|&i| i != idx);
                        c.resend.push_front(idx);
                    }
                    c.deadline = now.saturating_add(cfg.probe_timeout.get());
                }
            }
        }
    }

    /// Frees transfer `id`, given up, and tells the user.
    #[cold]
    fn fail(&mut self, id: Cid) {
        if self.table.remove(id).is_some() {
            self.events.push_back(SendEvent::Failed { cid: id });
        }
    }

    /// The earliest timer deadline.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        self.table
            .iter()
            .map(|(_, c)| c.deadline.min(c.spec_at))
            .min()
            .map(Nanos::new)
    }

    /// The next packet to put on the link: control first, then, round-robin over transfers,
    /// a requested retransmission or the next new packet inside the window.
    pub fn poll_transmit(&mut self) -> Option<SendTransmit> {
        if let Some(t) = self.control.pop_front() {
            return Some(t);
        }
        let cap = self.table.capacity();
        let w = self.cfg.window;
        for step in 0..cap {
            let slot = (self.cursor + step) % cap;
            #[expect(clippy::cast_possible_truncation, reason = "capacity ≤ 65536")]
            let index = slot as u16;
            let Some(generation) = self.table.generation(index) else {
                continue;
            };
            let id = Cid { index, generation };
            let Some(c) = self.table.get_mut(id) else {
                continue;
            };
            let State::Active(dcid) = c.state else {
                continue;
            };
            let mut pick = None;
            while let Some(i) = c.resend.pop_front() {
                if i >= c.acked && i < c.next {
                    pick = Some((i, true));
                    break;
                }
            }
            if pick.is_none() && c.next < c.packets && c.next - c.acked.max(c.spec) <= w {
                pick = Some((c.next, false));
                c.next += 1;
            }
            let Some((i, retransmit)) = pick else {
                continue;
            };
            self.cursor = (slot + 1) % cap;
            let len = if i + 1 == c.packets {
                c.last_len
            } else {
                c.t.mtu
            };
            let addr = c.t.src_addr.wrapping_add(u64::from(i) * u64::from(c.t.mtu));
            let psn = c.t.first_psn.wrapping_add(i);
            self.stats.data_sent += 1;
            if retransmit {
                self.stats.retransmits += 1;
                self.events.push_back(SendEvent::Reread {
                    cid: id,
                    psn,
                    addr,
                    len,
                });
            }
            return Some(SendTransmit {
                to: c.t.dst_node,
                packet: Packet::Data { dcid, psn, len },
                source: Some((addr, len)),
                retransmit,
            });
        }
        None
    }

    /// The next event for the user.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<SendEvent> {
        self.events.pop_front()
    }

    /// Decodes a frame from a receiver, with the CRC32C check when
    /// [`SenderConfig::checksum`] is on: [`Packet::decode_frame`].
    ///
    /// # Errors
    /// [`Error::Checksum`] for a corrupted frame, or what [`Packet::decode`] finds: drop it.
    pub fn decode<'a>(&self, frame: &'a [u8]) -> Result<(Packet, &'a [u8]), Error> {
        Packet::decode_frame(frame, self.cfg.checksum)
    }

    /// Writes the frame of `t` (from [`Sender::poll_transmit`]) into `out`: its header, the
    /// `payload` read from [`SendTransmit::source`] (empty for control packets), and the
    /// CRC32C trailer when [`SenderConfig::checksum`] is on.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`], or [`Error::PayloadLength`] for a payload of the wrong
    /// length.
    pub fn encode(&self, t: &SendTransmit, payload: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        t.packet.encode_frame(payload, self.cfg.checksum, out)
    }
}

impl Ctx {
    /// What a free table slot holds (never read as a context; allocates nothing).
    fn vacant() -> Self {
        Self {
            t: Transfer::new(0, Bytes::new(0), 0),
            packets: 0,
            last_len: 0,
            state: State::Requesting,
            deadline: u64::MAX,
            started: 0,
            answered: 0,
            unanswered: 0,
            refusals: 0,
            probes: 0,
            acked: 0,
            next: 0,
            resend: VecDeque::new(),
            spec: 0,
            spec_next: 0,
            spec_at: u64::MAX,
            spec_asked: 0,
            spec_depth: 0,
        }
    }

    fn index_of(&self, psn: u32, scid: Cid) -> Result<u32, Error> {
        let i = psn.wrapping_sub(self.t.first_psn);
        if i > self.packets {
            return Err(Error::PsnOutOfRange {
                cid: scid,
                psn,
                first: self.t.first_psn,
                packets: self.packets,
            });
        }
        Ok(i)
    }

    /// The receiver spoke: its `WBASE` moves our window; silence counters restart.
    fn heard(&mut self, wbase: u32, scid: Cid, now: u64, cfg: SenderConfig) -> Result<(), Error> {
        let i = self.index_of(wbase, scid)?;
        if i > self.acked {
            self.acked = i.min(self.next);
            if self.spec != 0 && self.acked >= self.spec {
                // The guess held: WBASE reached it.
                self.spec = 0;
                self.spec_depth = self
                    .spec_depth
                    .saturating_add(cfg.speculate.div_ceil(8))
                    .min(cfg.speculate);
            }
        }
        self.probes = 0;
        if matches!(self.state, State::Active(_)) {
            self.deadline = now.saturating_add(cfg.probe_timeout.get());
        }
        Ok(())
    }

    /// A `RDMA_RESEND` naming `first` (and the holes in `more` after it) arrived with the
    /// receiver's `WBASE` at index `base`. When it asks for the `WBASE` packet itself, the
    /// receiver's `WBASE` will jump, once that retransmission arrives, to the next hole it
    /// named, or past the packets in flight: the window may run from there, at most
    /// [`SenderConfig::speculate`] packets on, after [`SenderConfig::speculate_delay`] (so
    /// that the retransmission is ahead of what it lets through even when the network
    /// reorders). A second request for the same `WBASE` means the retransmission was lost:
    /// speculation stops until `WBASE` moves.
    fn speculate(&mut self, base: u32, first: u32, more: u64, now: u64, cfg: SenderConfig) {
        if first != base {
            if first.saturating_sub(base) > cfg.window {
                // A packet sent on the guess fell outside the window: the guess failed.
                self.guess_failed();
            }
            return;
        }
        if self.spec_asked == base.wrapping_add(1) {
            self.guess_failed();
            return;
        }
        self.spec_asked = base.wrapping_add(1);
        let gap = if more == 0 {
            self.spec_depth
        } else {
            (1 + more.trailing_zeros()).min(self.spec_depth)
        };
        let target = base.saturating_add(gap).min(self.next);
        if cfg.speculate_delay.get() == 0 {
            self.spec = self.spec.max(target);
        } else {
            self.spec_next = target;
            self.spec_at = now.saturating_add(cfg.speculate_delay.get());
        }
    }

    /// Stops the current guess; the first notice of its failure halves the next one's reach.
    fn guess_failed(&mut self) {
        if self.spec != 0 || self.spec_at != u64::MAX {
            self.spec_depth = (self.spec_depth / 2).max(1);
        }
        self.spec = 0;
        self.spec_at = u64::MAX;
    }

    /// Queues index `i` for retransmission if it was sent and is not known received.
    fn ask(&mut self, i: u32) {
        if i >= self.acked
            && i < self.next
            && !self.resend.contains(&i)
            && self.resend.len() < self.resend.capacity()
        {
            self.resend.push_back(i);
        }
    }
}

impl core::fmt::Display for SendStats {
    /// `data 260 (retransmitted 4), requests 1, refusals 0, probes 0`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "data {} (retransmitted {}), requests {}, refusals {}, probes {}",
            self.data_sent, self.retransmits, self.requests, self.refusals, self.probes
        )
    }
}
