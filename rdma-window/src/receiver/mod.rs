//! The receiving side: context allocation, the WBASE/WVEC data path, the per-context timer
//! and completion (paper §2.3).
//!
//! Sans-IO: feed packets with [`Receiver::handle`] and expired timers with
//! [`Receiver::handle_timeout`]; drain [`Receiver::poll_transmit`] (packets to send) and
//! [`Receiver::poll_event`] (payload writes, completions) after each call, and arm one timer
//! for [`Receiver::poll_timeout`]. The data path allocates nothing as long as the queues are
//! drained after each call (they are created with room for the most one call can produce).
//!
//! A data packet already decoded into its fields can go straight to [`Receiver::handle_data`],
//! the receive fast path: one indexed load and a generation compare find the context, the
//! window update is a few word operations, the timer is re-armed only when `WBASE` moves (or,
//! in improved mode, when a hole is first seen), and the verdict — write this payload there,
//! or drop it — comes back as the return value ([`DataVerdict`]), the way quinn-proto's
//! `Endpoint::handle` returns its event, so that the caller writes the payload at once as a
//! NIC would. [`Receiver::handle`] runs the same path and queues the write as a
//! [`RecvEvent::Write`] for users who prefer polling.
//!
//! Its common case, an in-order packet, is tested first: the packet is `WBASE`, it has the
//! full size, and moving `WBASE` on by one does not reach the context's `until` — the next
//! ACK falling due, the transfer's end, or (while a packet is held above `WBASE`, or
//! improved mode has hole evidence or requests pending) `WBASE + 1`, kept up to date off
//! this path so that the test is one compare. Then the packet is known to be inside the
//! transfer and not its last, and all that is left is to move `WBASE` (to the packet's
//! sequence number plus one, an input, so that packets do not chain through memory),
//! and restart the paper's timer (a stored time): about 19 instructions with the lookup.
//! Nothing is counted per packet: the writes are summed from the windows when
//! [`Receiver::stats`] is asked, and the idle-timeout count is reset lazily (from the
//! `WBASE` of the last expiry) rather than by each arrival. When the bound it reached is
//! only the next ACK falling due (nothing held or pending, not the last packet), a second
//! test does the same plus the ACK (marked, or queued) without the general path's other
//! tests. Anything else takes the general path, which a proptest checks the fast path
//! against.
//!
//! ACKs can be lazy ([`ReceiverConfig::coalesce_acks`], off by default): a data packet that
//! moves `WBASE` far enough then only marks its context in a fixed bitmap, and
//! [`Receiver::poll_transmit`] builds one ACK per marked context from its state when polled,
//! carrying the `WBASE` of that moment. Polled after every call this is exactly the eager
//! receiver's ACKs (a proptest checks it); polled less often, the ACKs of one context
//! coalesce into one carrying the newest `WBASE`, which tells the sender everything the
//! skipped ones would have (an ACK is cumulative). The paper itself sends no ACK (the sender
//! learns progress only from `RDMA_RESEND` and completion); ours only feeds the sender's
//! window (see the crate docs). The simulator keeps eager ACKs: its engine polls the
//! receiver only when the reverse link is idle, where coalescing would change the sender's
//! pacing and the `reproduce rdma` tables. `RDMA_RESEND`s (rare) are still queued.
//!
//! The code is split by concern: this file holds the types and the entry points; `setup`
//! the request and completion (§2.3.1), `data` the data path (Fig. 3), `acks` the ACKs,
//! `timers` the `WBASE` timer and giving up (§2.3.4), and `improved` everything of
//! [`Mode::Improved`], so that the paper's mode reads without it.

use std::collections::VecDeque;

use fabric_model::Nanos;

use crate::Error;
use crate::cid::{Cid, ContextTable};
use crate::config::{Mode, ReceiverConfig};
use crate::packet::Packet;
use crate::psn::after;
use crate::ring::Ring;
use crate::window::Window;

mod acks;
mod data;
mod improved;
mod setup;
mod timers;

pub use setup::MAX_PACKETS;
pub(crate) use setup::{check_range, packet_count};

/// A packet the receiver sends, with the node it goes to (the sender's counterpart is
/// [`crate::SendTransmit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvTransmit {
    /// Destination node.
    pub to: u32,
    /// The packet.
    pub packet: Packet,
}

/// What the receiver tells its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecvEvent {
    /// Write the payload of the packet just handled to `addr` (`len` bytes).
    Write {
        /// Receive context.
        cid: Cid,
        /// Sequence number of the packet.
        psn: u32,
        /// Destination address.
        addr: u64,
        /// Payload length.
        len: u32,
    },
    /// Every packet of the transfer has been written; the context is free again.
    Complete {
        /// The context that held the transfer.
        cid: Cid,
        /// Source node.
        src_node: u32,
        /// The sender's context id.
        scid: Cid,
    },
    /// The context was given up after too many timeouts without progress.
    Aborted {
        /// The context that held the transfer.
        cid: Cid,
    },
}

/// What the receive fast path ([`Receiver::handle_data`]) did with one data packet.
///
/// `Copy` and returned by value: nothing is queued for a data packet except, rarely, a
/// packet to send (`RDMA_RESEND` for [`DataVerdict::BeyondWindow`], DONE at completion) and
/// the [`RecvEvent::Complete`] of the last packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a `Write` verdict is the only notice that the payload must be written"]
pub enum DataVerdict {
    /// Write the payload now: `len` bytes to `addr` (paper Fig. 3, the first two cases).
    /// When it was the transfer's last missing packet, a [`RecvEvent::Complete`] and the
    /// DONE to the sender are queued as well.
    Write {
        /// Receive context.
        cid: Cid,
        /// Sequence number of the packet.
        psn: u32,
        /// Destination address.
        addr: u64,
        /// Payload length.
        len: u32,
    },
    /// Below `WBASE` or already received: dropped without writing (Fig. 3, third case).
    Duplicate,
    /// Beyond `WBASE + W`: dropped, nothing written, `RDMA_RESEND(PIDX)` queued (§2.3.3).
    BeyondWindow,
    /// For a freed or reused context (a zombie): dropped; if the transfer completed here
    /// recently its DONE is queued again.
    Stale,
}

/// The hot part of a receive context: what the per-packet path reads and writes.
///
/// With W = 128 it is 32 bytes: `WVEC` 16, `WBASE` 4 (plus 4 of padding) and the time the
/// `WBASE` timer was last started 8. The transfer's description (addresses, length, sender)
/// lives beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecvContext<const WORDS: usize = 2> {
    window: Window<WORDS>,
    /// When the paper's `WBASE` timer (§2.3.4) was last started: at the request, at each
    /// arrival that moved `WBASE`, at each of its expiries. It expires `resend_timeout`
    /// later, computed when asked for, so that an arrival only stores its time.
    armed_at: u64,
}

impl<const WORDS: usize> RecvContext<WORDS> {
    /// The window state.
    #[must_use]
    pub const fn window(&self) -> &Window<WORDS> {
        &self.window
    }
}

/// How far ahead of `WBASE` a context's `ack_at` is put while its ACK is owed: more than
/// any transfer's length ([`MAX_PACKETS`]), so that `WBASE` never reaches it.
const OWED: u32 = 1 << 30;

/// Improved mode's memory of when holes were asked for: a short queue of batches.
const BATCHES: usize = 8;

/// The transfer's description and the repair state, beside the hot part. `repr(C)` keeps
/// what every data packet reads next to the hot part (the in-order fast path: the first 32
/// bytes; the general path: the first 64), so that with the table's generation a data
/// packet touches two cache lines of its slot.
#[derive(Debug, Clone)]
#[repr(C)]
struct Meta {
    // Read or written by every data packet.
    first_psn: u32,
    /// Index of the last packet (`packets − 1`): the range check's bound.
    last: u32,
    mtu: u32,
    last_len: u32,
    /// The in-order fast path may move `WBASE` up to (not onto) this: the earlier of
    /// `ack_at` and `end_psn`, or `WBASE + 1` (no fast path) while a packet is held above
    /// `WBASE` (`WVEC` not empty) or improved mode has hole evidence or requests pending.
    /// Always after `WBASE` between calls, so that the fast path's bound is one compare for
    /// equality. Kept by [`Slot::refresh_until`] after every change off the fast path.
    until: u32,
    /// `WBASE` when the paper's timer last expired: `idle_timeouts` counts expiries at this
    /// `WBASE` (a different `WBASE` means progress since, and the count starts again), so
    /// that no arrival has to reset it.
    idle_wbase: u32,
    dst_addr: u64,
    src_node: u32,
    /// The next ACK falls due once `WBASE` reaches this (`OWED` ahead while one is owed).
    ack_at: u32,
    scid: Cid,
    idle_timeouts: u32,
    /// Improved mode's earliest loss or retry timer: the hole evidence's age limit and each
    /// batch's retry time (`u64::MAX` when none is pending, always in paper mode).
    loss_deadline: u64,
    // Improved mode.
    hi: u32,
    /// `first_psn + packets`: `WBASE` reaching it completes the transfer (in what was the
    /// padding after `hi`, so the slot keeps its size).
    end_psn: u32,
    hi_time: u64,
    ev: Option<(u32, u64)>,
    nbatches: usize,
    batches: [(u32, u64); BATCHES],
}

#[derive(Debug, Clone)]
#[repr(C)]
struct Slot<const WORDS: usize> {
    hot: RecvContext<WORDS>,
    meta: Meta,
}

/// A recently completed transfer, remembered so that a late packet or a repeated request is
/// answered with DONE again (its first DONE may have been lost).
#[derive(Debug, Clone, Copy)]
struct Finished {
    cid: Cid,
    src_node: u32,
    scid: Cid,
}

/// Counters of what the receiver has seen and done; `Display` prints them on one line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecvStats {
    /// Data packets written.
    pub written: u64,
    /// Duplicates dropped without writing.
    pub duplicates: u64,
    /// Packets beyond `WBASE + W`, dropped and answered with `RDMA_RESEND`.
    pub beyond_window: u64,
    /// Packets for a freed or reused context, dropped.
    pub zombies: u64,
    /// `WBASE` timer expiries.
    pub timeouts: u64,
    /// `RDMA_RESEND` packets sent.
    pub resend_packets: u64,
    /// Sequence numbers asked for in all `RDMA_RESEND`s.
    pub resend_psns: u64,
    /// `RDMA_REQ`s refused because the table was full.
    pub refused: u64,
    /// Transfers completed.
    pub completed: u64,
}

impl core::fmt::Display for RecvStats {
    /// `written 256, duplicates 0, beyond window 0, zombies 0, timeouts 1, resends 3 (5
    /// psns), refused 0, completed 1`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "written {}, duplicates {}, beyond window {}, zombies {}, timeouts {}, resends {} ({} psns), refused {}, completed {}",
            self.written,
            self.duplicates,
            self.beyond_window,
            self.zombies,
            self.timeouts,
            self.resend_packets,
            self.resend_psns,
            self.refused,
            self.completed
        )
    }
}

/// The receiving endpoint of one node, with W = 64 × `WORDS` (128 by default).
#[derive(Debug, Clone)]
pub struct Receiver<const WORDS: usize = 2> {
    cfg: ReceiverConfig,
    table: ContextTable<Slot<WORDS>>,
    /// The last `completions_kept` completions.
    finished: VecDeque<Finished>,
    transmits: Ring<RecvTransmit>,
    events: Ring<RecvEvent>,
    /// Bit `i` set: context index `i` owes its sender an ACK (built when polled). Words by
    /// hand rather than a bitvec `BitBox`: marking 4096 packets' contexts among 64 and
    /// building the ACKs every 16 took 16.3 µs by hand against 36.6 µs with bitvec's
    /// `set`/`first_one` in one criterion run (`benches/criterion/benches/rdma_window_wvec_bitvec.rs`, group
    /// `rdma_window/ack_bitmap`).
    ack_due: Box<[u64]>,
    /// Bits set in `ack_due`.
    acks_due: usize,
    /// The counters, `written` holding only the writes of freed contexts (see
    /// [`Receiver::stats`]).
    stats: RecvStats,
}

impl<const WORDS: usize> Receiver<WORDS> {
    /// W, the window width in packets.
    pub const W: u32 = Window::<WORDS>::W;

    /// Bytes of the hot part of one receive context ([`RecvContext`]).
    pub const HOT_CONTEXT_BYTES: usize = size_of::<RecvContext<WORDS>>();

    /// Bytes of one whole table slot in this implementation: the hot part, the transfer's
    /// description (addresses, length, sender) and the improved mode's repair state, with
    /// the table's generation tag and free-list entry.
    pub(crate) const SLOT_BYTES: usize = ContextTable::<Slot<WORDS>>::BYTES_PER_CONTEXT;

    /// A receiver with `cfg.capacity` free contexts.
    ///
    /// # Errors
    /// [`Error::Config`] naming the field at fault when [`ReceiverConfig::validate`]
    /// rejects `cfg`.
    pub fn new(cfg: ReceiverConfig) -> Result<Self, Error> {
        cfg.validate()?;
        let table = ContextTable::new(cfg.capacity, Slot::vacant())?;
        let room = 8 + 4 * Self::W as usize / 64;
        Ok(Self {
            cfg,
            table,
            finished: VecDeque::with_capacity(cfg.completions_kept),
            transmits: Ring::new(
                room.max(cfg.capacity),
                RecvTransmit {
                    to: 0,
                    packet: Packet::Done {
                        scid: Cid::from_bits(0),
                    },
                },
            ),
            events: Ring::new(
                room.max(cfg.capacity),
                RecvEvent::Aborted {
                    cid: Cid::from_bits(0),
                },
            ),
            ack_due: vec![0; cfg.capacity.div_ceil(64)].into_boxed_slice(),
            acks_due: 0,
            stats: RecvStats::default(),
        })
    }

    /// The configuration.
    #[must_use]
    pub const fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }

    /// Counters so far.
    ///
    /// `written` is not counted per packet (on the in-order fast path that would be a
    /// load-add-store on one address per packet, a chain through memory): it is summed when
    /// asked, from the writes of the freed contexts plus, for each live one, the packets below
    /// its `WBASE` and those held in its `WVEC` (each written exactly once); hence a copy,
    /// not a reference.
    ///
    /// # Complexity
    /// O(capacity × `WORDS`).
    #[must_use]
    pub fn stats(&self) -> RecvStats {
        let live: u64 = self.table.iter().map(|(_, s)| s.written()).sum();
        RecvStats {
            written: self.stats.written + live,
            ..self.stats
        }
    }

    /// Contexts in use.
    #[must_use]
    pub fn active(&self) -> usize {
        self.table.len()
    }

    /// Memory of the context table: capacity × the bytes of one slot in this implementation
    /// (the hot part of [`Receiver::HOT_CONTEXT_BYTES`], the transfer's description and the
    /// improved mode's repair state), for sizing a table. The layout of a slot is not part of
    /// the API and may change.
    #[must_use]
    pub fn table_bytes(&self) -> usize {
        self.table.capacity() * Self::SLOT_BYTES
    }

    /// The hot state of live context `cid`.
    #[must_use]
    pub fn context(&self, cid: Cid) -> Option<&RecvContext<WORDS>> {
        self.table.get(cid).map(|s| &s.hot)
    }

    /// Handles one packet arriving at time `now` (ns).
    ///
    /// Data packets follow paper Fig. 3 as in [`Receiver::handle_data`], and a payload to
    /// write is queued as a [`RecvEvent::Write`] for [`Receiver::poll_event`]; `RDMA_REQ`
    /// allocates a context (§2.3.1). Packets meant for a sender are ignored.
    ///
    /// # Errors
    /// [`Error::UnknownContext`] for a context index outside the table,
    /// [`Error::PsnOutOfRange`] for a sequence number outside the transfer,
    /// [`Error::BadPayloadSize`] for a payload of the wrong size, [`Error::EmptyTransfer`] /
    /// [`Error::TooManyPackets`] for a request that describes no valid transfer,
    /// [`Error::AddressWrap`] for a request whose destination range wraps past 2^64. The
    /// packet is dropped and nothing changes.
    ///
    /// # Complexity
    /// Data: O(`WORDS`), no allocation, no division. Request: O(capacity).
    #[inline(always)]
    pub fn handle(&mut self, packet: Packet, now: Nanos) -> Result<(), Error> {
        let now = now.get();
        match packet {
            Packet::Data { dcid, psn, len } => {
                // The verdict is queued as an event (a write) or counted in the stats.
                let _verdict = self.data::<true, true>(dcid, psn, len, now)?;
                Ok(())
            }
            Packet::Req {
                scid,
                src_node,
                dst_addr,
                len,
                mtu,
                first_psn,
            } => self.on_req(scid, src_node, dst_addr, len, mtu, first_psn, now),
            Packet::Rsp { .. }
            | Packet::Ack { .. }
            | Packet::Resend { .. }
            | Packet::Done { .. } => Ok(()),
        }
    }
    /// The next event for the user.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<RecvEvent> {
        self.events.pop()
    }

    /// Decodes a frame that arrived (a datagram), with the CRC32C check when
    /// [`ReceiverConfig::checksum`] is on: [`Packet::decode_frame`].
    ///
    /// # Errors
    /// [`Error::Checksum`] for a corrupted frame, or what [`Packet::decode`] finds: drop it.
    pub fn decode<'a>(&self, frame: &'a [u8]) -> Result<(Packet, &'a [u8]), Error> {
        Packet::decode_frame(frame, self.cfg.checksum)
    }

    /// Writes the frame of a packet to send (from [`Receiver::poll_transmit`]; none has a
    /// payload) into `out`, with the CRC32C trailer when [`ReceiverConfig::checksum`] is on.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`].
    pub fn encode(&self, packet: &Packet, out: &mut [u8]) -> Result<usize, Error> {
        packet.encode_frame(&[], self.cfg.checksum, out)
    }
    pub(super) fn transmit(&mut self, to: u32, packet: Packet) {
        self.transmits.push(RecvTransmit { to, packet });
    }

    #[cold]
    pub(super) fn resend(&mut self, to: u32, scid: Cid, wbase: u32, psn: u32, more: u64) {
        self.stats.resend_packets += 1;
        self.stats.resend_psns += 1 + u64::from(more.count_ones());
        self.transmits.push(RecvTransmit {
            to,
            packet: Packet::Resend {
                scid,
                wbase,
                psn,
                more,
            },
        });
    }
}

impl Meta {
    /// `until` with nothing pending: the earlier of `ack_at` and `end_psn`.
    #[inline(always)]
    fn set_until_unblocked(&mut self) {
        self.until = if after(self.end_psn, self.ack_at) {
            self.ack_at
        } else {
            self.end_psn
        };
    }
}

impl<const WORDS: usize> Slot<WORDS> {
    /// What a free table slot holds (never read as a context).
    fn vacant() -> Self {
        Self {
            hot: RecvContext {
                window: Window::new(0),
                armed_at: u64::MAX,
            },
            meta: Meta {
                first_psn: 0,
                last: 0,
                mtu: 0,
                last_len: 0,
                dst_addr: 0,
                src_node: 0,
                ack_at: 0,
                until: 0,
                idle_wbase: 0,
                scid: Cid::from_bits(0),
                idle_timeouts: 0,
                loss_deadline: u64::MAX,
                hi: 0,
                end_psn: 0,
                hi_time: 0,
                ev: None,
                nbatches: 0,
                batches: [(0, 0); BATCHES],
            },
        }
    }

    /// Payloads written to this context: every packet below `WBASE` and every one held in
    /// `WVEC`, each written exactly once.
    fn written(&self) -> u64 {
        let below = self.hot.window.wbase().wrapping_sub(self.meta.first_psn);
        u64::from(below) + u64::from(self.hot.window.held())
    }

    /// Recomputes `until`, the bound of the in-order fast path (see [`Meta::until`]), after
    /// `WBASE`, `WVEC`, `ack_at` or improved mode's evidence or requests changed.
    #[inline]
    fn refresh_until(&mut self, mode: Mode) {
        let m = &mut self.meta;
        if !self.hot.window.is_empty()
            || (mode == Mode::Improved && (m.ev.is_some() || m.nbatches > 0))
        {
            m.until = self.hot.window.wbase().wrapping_add(1);
        } else {
            m.set_until_unblocked();
        }
    }

    /// The context's one timer: the earlier of the paper's `WBASE` timer and improved
    /// mode's loss timers.
    fn deadline(&self, cfg: &ReceiverConfig) -> u64 {
        self.hot
            .armed_at
            .saturating_add(cfg.resend_timeout.get())
            .min(self.meta.loss_deadline)
    }
}

#[cfg(test)]
mod tests;
