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

use std::collections::VecDeque;

use fabric_model::Nanos;

use crate::Error;
use crate::cid::{Cid, ContextTable};
use crate::config::{Mode, ReceiverConfig};
use crate::packet::{Packet, RspStatus};
use crate::psn::{after, distance};
use crate::ring::Ring;
use crate::window::{Arrival, Window};

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
    /// `set`/`first_one` in one criterion run (`benches/wvec_bitvec.rs`, group
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
    /// description (addresses, length, sender) and the improved mode's repair state.
    pub(crate) const SLOT_BYTES: usize = size_of::<Slot<WORDS>>() + size_of::<u16>();

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

    #[expect(clippy::too_many_arguments, reason = "the fields of RDMA_REQ")]
    #[inline(never)]
    fn on_req(
        &mut self,
        scid: Cid,
        src_node: u32,
        dst_addr: u64,
        len: u64,
        mtu: u32,
        first_psn: u32,
        now: u64,
    ) -> Result<(), Error> {
        let packets = packet_count(len, mtu)?;
        check_range("destination", dst_addr, len)?;
        // A repeated request (its RDMA_RSP was lost) gets the same answer.
        let existing = self
            .table
            .iter()
            .find(|(_, s)| s.meta.scid == scid && s.meta.src_node == src_node)
            .map(|(cid, _)| cid);
        if let Some(cid) = existing {
            self.transmit(
                src_node,
                Packet::Rsp {
                    scid,
                    status: RspStatus::Granted(cid),
                },
            );
            return Ok(());
        }
        if self
            .finished
            .iter()
            .any(|f| f.scid == scid && f.src_node == src_node)
        {
            self.transmit(src_node, Packet::Done { scid });
            return Ok(());
        }
        let last_len64 = len - u64::from(packets - 1) * u64::from(mtu);
        #[expect(clippy::cast_possible_truncation, reason = "last_len ≤ mtu")]
        let last_len = last_len64 as u32;
        let mut slot = Slot {
            hot: RecvContext {
                window: Window::new(first_psn),
                armed_at: now,
            },
            meta: Meta {
                src_node,
                scid,
                dst_addr,
                first_psn,
                last: packets - 1,
                end_psn: first_psn.wrapping_add(packets),
                mtu,
                last_len,
                ack_at: first_psn.wrapping_add(self.cfg.ack_stride),
                until: first_psn,
                idle_wbase: first_psn,
                idle_timeouts: 0,
                loss_deadline: u64::MAX,
                hi: first_psn,
                hi_time: now,
                ev: None,
                batches: [(0, 0); BATCHES],
                nbatches: 0,
            },
        };
        slot.refresh_until(self.cfg.mode);
        let status = match self.table.insert(slot) {
            Ok(cid) => RspStatus::Granted(cid),
            Err(_) => {
                self.stats.refused += 1;
                RspStatus::Busy
            }
        };
        self.transmit(src_node, Packet::Rsp { scid, status });
        Ok(())
    }

    /// Handles one data packet already decoded into its fields, arriving at time `now`: the
    /// receive fast path (paper Fig. 3), returning its verdict instead of queueing it.
    ///
    /// One indexed load and a generation compare find the context; the window update is a
    /// few word operations; the timer is re-armed only when `WBASE` moves (paper mode) or a
    /// new hole is first seen (improved mode); an ACK is only marked as owed (built by
    /// [`Receiver::poll_transmit`]). On [`DataVerdict::Write`] the caller writes the payload
    /// at once; no [`RecvEvent::Write`] is queued (that is what [`Receiver::handle`] adds).
    ///
    /// # Errors
    /// As [`Receiver::handle`] for a data packet: [`Error::UnknownContext`],
    /// [`Error::PsnOutOfRange`], [`Error::BadPayloadSize`]. The packet is dropped and nothing
    /// changes.
    ///
    /// # Complexity
    /// O(`WORDS`), no allocation (when `poll_transmit` and `poll_event` are drained after
    /// each call that queues), no division.
    #[inline]
    pub fn handle_data(
        &mut self,
        dcid: Cid,
        psn: u32,
        len: u32,
        now: Nanos,
    ) -> Result<DataVerdict, Error> {
        self.data::<false, true>(dcid, psn, len, now.get())
    }

    /// The data path; `QUEUE` also queues the write as an event (for `handle`), before the
    /// completion it may cause; `FAST` takes the in-order fast path when it applies (off
    /// only in the test that checks it against the general path). Always inlined: it is
    /// small (the rest is out of line), and inlined the verdict stays in registers.
    #[inline(always)]
    fn data<const QUEUE: bool, const FAST: bool>(
        &mut self,
        dcid: Cid,
        psn: u32,
        len: u32,
        now: u64,
    ) -> Result<DataVerdict, Error> {
        let Some(slot) = self.table.get_mut(dcid) else {
            // Errors are built here from scalars, and the cold helpers return nothing, so
            // that the result never has to live in memory.
            if usize::from(dcid.index) >= self.table.capacity() {
                return Err(Error::UnknownContext {
                    cid: dcid,
                    capacity: self.table.capacity(),
                });
            }
            self.zombie(dcid);
            return Ok(DataVerdict::Stale);
        };
        // The in-order fast path: the packet is WBASE, nothing is held above it, and moving
        // WBASE on by one neither completes the transfer nor makes an ACK due (nor, in
        // improved mode, is any hole evidence or request pending: `until` says all four).
        // Then the packet is within the transfer and not its last, so a full-size payload
        // is the only valid one, and what the general path does below reduces to: WBASE
        // moves and the paper's timer restarts (the write is counted from the window when
        // the stats are asked for). Improved mode's newest arrival is not noted here: with
        // nothing held above WBASE it is only read after an arrival above WBASE has
        // replaced it (see `note_newest`).
        let next = psn.wrapping_add(1);
        let improved = self.cfg.mode == Mode::Improved;
        'fast: {
            if !(FAST && psn == slot.hot.window.wbase() && len == slot.meta.mtu) {
                break 'fast;
            }
            let m = &mut slot.meta;
            // With `psn` = WBASE, `until` is at or after `next`: unequal means after.
            let ack = if next != m.until {
                None
            } else if next == m.ack_at
                && next != m.end_psn
                && slot.hot.window.is_empty()
                && (!improved || (m.ev.is_none() && m.nbatches == 0))
            {
                // Only the ACK falls due (nothing held or pending, not the last packet):
                // the general path's common case below, without its other tests.
                ack_falls_due();
                let ack = ack_due(&self.cfg, m, next);
                m.set_until_unblocked();
                Some(ack)
            } else {
                break 'fast;
            };
            // `until` is `WBASE + 1` while anything is held above `WBASE`: `LOC` is 0 here
            // and the (empty) `WVEC` stays as it is.
            slot.hot.window.advance_in_order(next);
            slot.hot.armed_at = now;
            let addr = m
                .dst_addr
                .wrapping_add(u64::from(psn.wrapping_sub(m.first_psn)) * u64::from(len));
            if QUEUE {
                self.events.push(RecvEvent::Write {
                    cid: dcid,
                    psn,
                    addr,
                    len,
                });
            }
            if let Some((to, scid, wbase)) = ack {
                self.send_ack(dcid, to, scid, wbase);
            }
            return Ok(DataVerdict::Write {
                cid: dcid,
                psn,
                addr,
                len,
            });
        }
        general_path();
        let m = &mut slot.meta;
        let idx = psn.wrapping_sub(m.first_psn);
        // A full-size packet before the last (the common case) needs two compares.
        let last = m.last;
        if (idx >= last || len != m.mtu) && (idx != last || len != m.last_len) {
            return Err(bad_data(dcid, psn, len, m));
        }
        // `WBASE` before the arrival (unchanged when the packet is stored above it), kept in
        // a register rather than reloaded after the `WVEC` store.
        let wbase0 = slot.hot.window.wbase();
        let advanced = match slot.hot.window.on_data(psn) {
            Arrival::Stored => false,
            Arrival::Advanced { .. } => true,
            Arrival::Duplicate => {
                self.stats.duplicates += 1;
                return Ok(DataVerdict::Duplicate);
            }
            Arrival::BeyondWindow => {
                // Paper §2.3.3: drop, nothing written, RDMA_RESEND(PIDX).
                let (to, scid, wbase) = (m.src_node, m.scid, slot.hot.window.wbase());
                self.stats.beyond_window += 1;
                self.resend(to, scid, wbase, psn, 0);
                return Ok(DataVerdict::BeyondWindow);
            }
        };
        let (cid, addr) = (
            dcid,
            m.dst_addr.wrapping_add(u64::from(idx) * u64::from(m.mtu)),
        );
        let write = DataVerdict::Write {
            cid,
            psn,
            addr,
            len,
        };
        // The context first, then the receiver's own fields (stats, queues): the context
        // lives behind a pointer the compiler cannot tell apart from them.
        let mut ack = None;
        let done = if advanced {
            // The common case, inline: WBASE moved, the transfer goes on and (improved
            // mode) nothing pending and nothing seen past WBASE. Anything else is
            // `after_data`'s.
            let wbase = slot.hot.window.wbase();
            let common = wbase != m.end_psn
                && (!improved || (m.ev.is_none() && m.nbatches == 0 && !after(m.hi, wbase)));
            if common {
                // The paper's timer restarts (its deadline is derived when asked for);
                // no loss timer is pending in the common case.
                slot.hot.armed_at = now;
                if improved {
                    note_newest(m, psn, now);
                }
                if !after(m.ack_at, wbase) {
                    ack = Some(ack_due(&self.cfg, m, wbase));
                }
                // Nothing is pending here (the common case): `until` is the next ACK or the
                // end, or `WBASE + 1` while packets are still held above `WBASE`.
                if slot.hot.window.is_empty() {
                    m.set_until_unblocked();
                } else {
                    m.until = wbase.wrapping_add(1);
                }
            }
            common
        } else {
            // Stored above WBASE: the paper's timer stays as it is; improved mode notes the
            // newest arrival and, when it first shows a hole, arms the loss timer.
            if improved && note_arrival(m, psn, wbase0, now) {
                let d = m.hi_time.saturating_add(self.cfg.reorder_tolerance.get());
                m.loss_deadline = m.loss_deadline.min(d);
            }
            // A packet is held above WBASE: no fast path until WBASE has passed it.
            m.until = wbase0.wrapping_add(1);
            true
        };
        if QUEUE {
            self.events.push(RecvEvent::Write {
                cid,
                psn,
                addr,
                len,
            });
        }
        if let Some((to, scid, wbase)) = ack {
            self.send_ack(dcid, to, scid, wbase);
        }
        if !done {
            self.after_data(dcid, psn, now);
        }
        Ok(write)
    }

    /// The rest of the data path after a write that moved `WBASE` outside `data`'s inline
    /// common case, out of line: completion, or (improved mode, with hole evidence or
    /// requests pending or arrivals past `WBASE`) the timer, the ACK falling due and the
    /// hole evidence.
    #[inline(never)]
    fn after_data(&mut self, dcid: Cid, psn: u32, now: u64) {
        let Some(slot) = self.table.get_mut(dcid) else {
            return;
        };
        let m = &mut slot.meta;
        let wbase = slot.hot.window.wbase();
        if wbase == m.end_psn {
            self.complete(dcid);
            return;
        }
        // `data` handles paper mode and improved mode's in-order case inline.
        debug_assert!(self.cfg.mode == Mode::Improved);
        slot.hot.armed_at = now;
        let ack = (!after(m.ack_at, wbase)).then(|| ack_due(&self.cfg, m, wbase));
        // Evidence and requests for holes WBASE has passed are stale.
        if let Some((ev_hi, _)) = m.ev
            && !after(ev_hi, wbase)
        {
            m.ev = None;
        }
        while m.nbatches > 0 && !after(m.batches[0].0, wbase) {
            m.batches.copy_within(1..m.nbatches, 0);
            m.nbatches -= 1;
        }
        note_arrival(m, psn, wbase, now);
        m.loss_deadline = loss_deadline(m, &self.cfg);
        slot.refresh_until(self.cfg.mode);
        if let Some((to, scid, wbase)) = ack {
            self.send_ack(dcid, to, scid, wbase);
        }
    }

    #[cold]
    fn zombie(&mut self, dcid: Cid) {
        self.stats.zombies += 1;
        // A late packet of a transfer that completed here: its DONE may have been lost.
        if let Some(f) = self.finished.iter().find(|f| f.cid == dcid).copied() {
            self.transmit(f.src_node, Packet::Done { scid: f.scid });
        }
    }

    /// Sends the ACK of `WBASE` that falls due for `cid` (to its sender `to`, context
    /// `scid`): queued now, or, with [`ReceiverConfig::coalesce_acks`], marked as owed and
    /// built by `poll_transmit`.
    #[inline(always)]
    fn send_ack(&mut self, cid: Cid, to: u32, scid: Cid, wbase: u32) {
        if self.cfg.coalesce_acks {
            let (word, bit) = (usize::from(cid.index) / 64, 1u64 << (cid.index % 64));
            if let Some(w) = self.ack_due.get_mut(word)
                && *w & bit == 0
            {
                *w |= bit;
                self.acks_due += 1;
            }
        } else {
            self.transmits.push(RecvTransmit {
                to,
                packet: Packet::Ack { scid, wbase },
            });
        }
    }

    /// Forgets an ACK owed by context index `index` (freed: its DONE or abort supersedes it).
    fn clear_ack(&mut self, index: u16) {
        let (word, bit) = (usize::from(index) / 64, 1u64 << (index % 64));
        if let Some(w) = self.ack_due.get_mut(word)
            && *w & bit != 0
        {
            *w &= !bit;
            self.acks_due -= 1;
        }
    }

    #[cold]
    fn complete(&mut self, cid: Cid) {
        if let Some(slot) = self.table.remove(cid) {
            self.clear_ack(cid.index);
            self.stats.written += slot.written();
            let m = slot.meta;
            if self.finished.len() >= self.cfg.completions_kept {
                self.finished.pop_front();
            }
            if self.cfg.completions_kept > 0 {
                self.finished.push_back(Finished {
                    cid,
                    src_node: m.src_node,
                    scid: m.scid,
                });
            }
            self.stats.completed += 1;
            self.transmit(m.src_node, Packet::Done { scid: m.scid });
            self.events.push(RecvEvent::Complete {
                cid,
                src_node: m.src_node,
                scid: m.scid,
            });
        }
    }

    /// Handles every timer that has expired by `now` (paper §2.3.4 1)): every context whose
    /// deadline is at or before `now` is served in this one call, and every context that
    /// gives up is freed (with its [`RecvEvent::Aborted`]) in it, however many there are.
    ///
    /// # Complexity
    /// O(capacity + holes asked for); no allocation while the queues are drained after
    /// each call.
    pub fn handle_timeout(&mut self, now: Nanos) {
        let now = now.get();
        let cfg = self.cfg;
        for i in 0..self.table.capacity() {
            #[expect(clippy::cast_possible_truncation, reason = "capacity ≤ 65536")]
            let index = i as u16;
            let Some(generation) = self.table.generation(index) else {
                continue;
            };
            let cid = Cid { index, generation };
            let Some(slot) = self.table.get_mut(cid) else {
                continue;
            };
            if slot.deadline(&cfg) > now {
                continue;
            }
            let wbase = slot.hot.window.wbase();
            let m = &mut slot.meta;
            if slot.hot.armed_at.saturating_add(cfg.resend_timeout.get()) <= now {
                self.stats.timeouts += 1;
                if m.idle_wbase != wbase {
                    // WBASE has moved since the last expiry: progress, count again.
                    m.idle_wbase = wbase;
                    m.idle_timeouts = 0;
                }
                m.idle_timeouts += 1;
                if m.idle_timeouts > cfg.max_idle_timeouts {
                    // Given up: freed now, so that no later packet can revive it.
                    self.abort(cid);
                    continue;
                }
                // RDMA_RESEND(WBASE), and the timer starts again.
                self.stats.resend_packets += 1;
                self.stats.resend_psns += 1;
                self.transmits.push(RecvTransmit {
                    to: m.src_node,
                    packet: Packet::Resend {
                        scid: m.scid,
                        wbase,
                        psn: wbase,
                        more: 0,
                    },
                });
                slot.hot.armed_at = now;
            }
            if cfg.mode == Mode::Improved {
                improved_timeout(
                    &slot.hot.window,
                    m,
                    cfg,
                    now,
                    &mut self.transmits,
                    &mut self.stats,
                );
                m.loss_deadline = loss_deadline(m, &cfg);
                slot.refresh_until(cfg.mode);
            }
        }
    }

    /// Frees context `cid`, given up, and tells the user.
    #[cold]
    fn abort(&mut self, cid: Cid) {
        if let Some(slot) = self.table.remove(cid) {
            self.stats.written += slot.written();
            self.clear_ack(cid.index);
            self.events.push(RecvEvent::Aborted { cid });
        }
    }

    /// The earliest deadline of any context, when one is armed.
    ///
    /// # Complexity
    /// O(capacity).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Nanos> {
        self.table
            .iter()
            .map(|(_, s)| s.deadline(&self.cfg))
            .min()
            .map(Nanos::new)
    }

    /// The next packet to send: first those queued (answers to requests, `RDMA_RESEND`s,
    /// DONEs), then one ACK per context that owes one, built now from its state (so it
    /// carries the current `WBASE`, however many packets moved it since the last poll).
    ///
    /// # Complexity
    /// O(1) with nothing owed; O(capacity / 64) per ACK.
    #[must_use]
    #[inline]
    pub fn poll_transmit(&mut self) -> Option<RecvTransmit> {
        if let Some(t) = self.transmits.pop() {
            return Some(t);
        }
        if self.acks_due == 0 {
            return None;
        }
        self.next_ack()
    }

    /// Builds the ACK of the lowest context index that owes one.
    fn next_ack(&mut self) -> Option<RecvTransmit> {
        let (k, word) = self
            .ack_due
            .iter_mut()
            .enumerate()
            .find(|(_, w)| **w != 0)?;
        let bit = word.trailing_zeros();
        *word &= *word - 1;
        self.acks_due -= 1;
        // Bits are cleared when a context is freed, so the index names a live context.
        let index = u16::try_from(k * 64 + bit as usize).ok()?;
        let generation = self.table.generation(index)?;
        let slot = self.table.get_mut(Cid { index, generation })?;
        let wbase = slot.hot.window.wbase();
        slot.meta.ack_at = wbase.wrapping_add(self.cfg.ack_stride);
        slot.refresh_until(self.cfg.mode);
        Some(RecvTransmit {
            to: slot.meta.src_node,
            packet: Packet::Ack {
                scid: slot.meta.scid,
                wbase,
            },
        })
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

    fn transmit(&mut self, to: u32, packet: Packet) {
        self.transmits.push(RecvTransmit { to, packet });
    }

    #[cold]
    fn resend(&mut self, to: u32, scid: Cid, wbase: u32, psn: u32, more: u64) {
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

    /// Holes below this sequence number have been asked for already.
    fn batch_hi(&self, wbase: u32) -> u32 {
        if self.nbatches == 0 {
            wbase
        } else {
            self.batches[self.nbatches - 1].0
        }
    }
}

/// Improved mode: records data packet `psn` as the newest arrival when it is, and, when no
/// hole evidence is pending and it shows holes not yet asked for, starts the evidence clock.
/// Returns whether it did (the caller arms the loss timer).
#[inline(always)]
fn note_arrival(m: &mut Meta, psn: u32, wbase: u32, now: u64) -> bool {
    note_newest(m, psn, now);
    if m.ev.is_none() && after(m.hi, wbase) && after(m.hi, m.batch_hi(wbase)) {
        m.ev = Some((m.hi, m.hi_time));
        true
    } else {
        false
    }
}

/// An ACK of `wbase` falls due for the context of `m`: moves its `ack_at` on (to the next
/// stride, or `OWED` ahead while a coalesced ACK waits to be built, so that `WBASE` cannot
/// reach it meanwhile: a transfer is shorter than `OWED`) and returns what the ACK needs.
#[inline(always)]
fn ack_due(cfg: &ReceiverConfig, m: &mut Meta, wbase: u32) -> (u32, Cid, u32) {
    let ahead = if cfg.coalesce_acks {
        OWED
    } else {
        cfg.ack_stride
    };
    m.ack_at = wbase.wrapping_add(ahead);
    (m.src_node, m.scid, wbase)
}

/// Marks the data path's general case as the less likely one (for the code layout).
#[cold]
#[inline]
const fn general_path() {}

/// Marks the in-order path's ACK case as the less likely one (for the code layout).
#[cold]
#[inline]
const fn ack_falls_due() {}

/// Improved mode: records data packet `psn` as the newest arrival when it is.
#[inline(always)]
fn note_newest(m: &mut Meta, psn: u32, now: u64) {
    let next = psn.wrapping_add(1);
    if after(next, m.hi) {
        m.hi = next;
        m.hi_time = now;
    }
}

/// The precise error for a data packet outside its transfer or of the wrong size (inline:
/// built from scalars where it is returned).
#[inline]
fn bad_data(cid: Cid, psn: u32, len: u32, m: &Meta) -> Error {
    let idx = psn.wrapping_sub(m.first_psn);
    if idx > m.last {
        return Error::PsnOutOfRange {
            cid,
            psn,
            first: m.first_psn,
            packets: m.last + 1,
        };
    }
    Error::BadPayloadSize {
        cid,
        psn,
        got: len,
        expected: if idx == m.last { m.last_len } else { m.mtu },
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

/// Improved mode's earliest loss or retry timer, recomputed from the hole evidence and the
/// batches asked for (`u64::MAX` when none is pending).
fn loss_deadline(m: &Meta, cfg: &ReceiverConfig) -> u64 {
    let mut d = u64::MAX;
    if let Some((_, t)) = m.ev {
        d = d.min(t.saturating_add(cfg.reorder_tolerance.get()));
    }
    for b in &m.batches[..m.nbatches] {
        d = d.min(b.1.saturating_add(cfg.retry_interval.get()));
    }
    d
}

/// Improved mode's timer work: declare holes lost once the evidence is old enough, and ask
/// again for holes whose earlier request went unanswered.
fn improved_timeout<const WORDS: usize>(
    win: &Window<WORDS>,
    m: &mut Meta,
    cfg: ReceiverConfig,
    now: u64,
    out: &mut Ring<RecvTransmit>,
    stats: &mut RecvStats,
) {
    let wbase = win.wbase();
    // Ask again for the holes of every batch whose request has gone unanswered too long.
    for k in 0..m.nbatches {
        if m.batches[k].1.saturating_add(cfg.retry_interval.get()) <= now {
            let lower = if k == 0 { wbase } else { m.batches[k - 1].0 };
            ask_holes(win, m, lower, m.batches[k].0, out, stats);
            m.batches[k].1 = now;
        }
    }
    if let Some((ev_hi, t)) = m.ev
        && t.saturating_add(cfg.reorder_tolerance.get()) <= now
    {
        // When the newest arrival is itself old enough, it vouches for every hole below it.
        let upto = if m.hi_time.saturating_add(cfg.reorder_tolerance.get()) <= now {
            m.hi
        } else {
            ev_hi
        };
        let from = crate::psn::max(wbase, m.batch_hi(wbase));
        if after(upto, from) {
            ask_holes(win, m, from, upto, out, stats);
            if m.nbatches == BATCHES {
                // Full: the newest batch absorbs these holes and restarts its retry clock
                // (a later retry, never an early, spurious one).
                m.batches[BATCHES - 1] = (upto, now);
            } else {
                m.batches[m.nbatches] = (upto, now);
                m.nbatches += 1;
            }
        }
        // Later arrivals already show further holes: they are the next evidence.
        m.ev = if after(m.hi, crate::psn::max(wbase, upto)) {
            Some((m.hi, m.hi_time))
        } else {
            None
        };
    }
}

/// Sends `RDMA_RESEND`s naming every hole in `[from, upto)`, up to 65 per packet.
fn ask_holes<const WORDS: usize>(
    win: &Window<WORDS>,
    m: &Meta,
    from: u32,
    upto: u32,
    out: &mut Ring<RecvTransmit>,
    stats: &mut RecvStats,
) {
    let wbase = win.wbase();
    let Ok(mut o) = u32::try_from(distance(wbase, from)) else {
        return;
    };
    let Ok(end) = u32::try_from(distance(wbase, upto)) else {
        return;
    };
    let end = end.min(Window::<WORDS>::W + 1);
    while o < end {
        // Find the next hole at offset ≥ o (offset 0, WBASE itself, is always one).
        if o > 0 {
            let holes = !win.bits_after(o - 1);
            if holes == 0 {
                o += 64;
                continue;
            }
            o += holes.trailing_zeros();
            if o >= end {
                break;
            }
        }
        let span = (end - o - 1).min(64);
        let mask = if span == 64 {
            u64::MAX
        } else {
            (1u64 << span) - 1
        };
        let more = !win.bits_after(o) & mask;
        stats.resend_packets += 1;
        stats.resend_psns += 1 + u64::from(more.count_ones());
        out.push(RecvTransmit {
            to: m.src_node,
            packet: Packet::Resend {
                scid: m.scid,
                wbase,
                psn: wbase.wrapping_add(o),
                more,
            },
        });
        o += 65;
    }
}

/// Checks that the `len` bytes from `addr` (`len` > 0) end at or below 2^64 − 1.
///
/// # Errors
/// [`Error::AddressWrap`] when the last byte's address would wrap.
pub(crate) fn check_range(side: &'static str, addr: u64, len: u64) -> Result<(), Error> {
    match addr.checked_add(len.saturating_sub(1)) {
        Some(_) => Ok(()),
        None => Err(Error::AddressWrap { side, addr, len }),
    }
}

/// Number of packets of a transfer: `ceil(len / mtu)`, checked.
///
/// # Errors
/// [`Error::EmptyTransfer`] or [`Error::TooManyPackets`].
pub(crate) fn packet_count(len: u64, mtu: u32) -> Result<u32, Error> {
    if len == 0 || mtu == 0 {
        return Err(Error::EmptyTransfer { len, mtu });
    }
    let packets = len.div_ceil(u64::from(mtu));
    let limit = u64::from(MAX_PACKETS);
    u32::try_from(packets)
        .ok()
        .filter(|p| *p <= MAX_PACKETS)
        .ok_or(Error::TooManyPackets { packets, limit })
}

/// The most packets one transfer may have: half the sequence space, less a window, so that
/// serial comparisons stay unambiguous.
pub const MAX_PACKETS: u32 = (1 << 30) - 1;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The data fast path keeps improved mode's loss timer incrementally (lowered when a
    /// hole is first seen, recomputed only off the fast path); it must always be the one a
    /// full recomputation from the evidence and the batches gives. (The paper's timer is
    /// derived from its start time; the proptest checks it against a model.)
    fn deadlines_consistent<const WORDS: usize>(rx: &Receiver<WORDS>) -> bool {
        rx.table
            .iter()
            .all(|(_, s)| s.meta.loss_deadline == loss_deadline(&s.meta, &rx.cfg))
    }

    /// A receiver with one transfer of `packets` packets from `first` open at time 0.
    fn open_one(cfg: ReceiverConfig, packets: u32, first: u32) -> (Receiver, Cid) {
        let mut rx: Receiver = Receiver::new(cfg).unwrap();
        rx.handle(
            Packet::Req {
                scid: Cid::from_bits(7),
                src_node: 1,
                dst_addr: 0x1000,
                len: u64::from(packets) * 4096,
                mtu: 4096,
                first_psn: first,
            },
            Nanos::new(0),
        )
        .unwrap();
        let Some(RecvTransmit {
            packet:
                Packet::Rsp {
                    status: RspStatus::Granted(cid),
                    ..
                },
            ..
        }) = rx.poll_transmit()
        else {
            panic!("an empty table grants");
        };
        (rx, cid)
    }

    /// Everything a user can observe of a receiver after one call: what it queued, its
    /// counters, its timer and the hot state of `cid`.
    fn observe(
        rx: &mut Receiver,
        cid: Cid,
    ) -> (
        Vec<RecvEvent>,
        Vec<RecvTransmit>,
        RecvStats,
        Option<u64>,
        Option<RecvContext>,
    ) {
        (
            std::iter::from_fn(|| rx.poll_event()).collect(),
            std::iter::from_fn(|| rx.poll_transmit()).collect(),
            rx.stats(),
            rx.poll_timeout().map(Nanos::get),
            rx.context(cid).copied(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// `written`, summed from the windows when asked rather than counted per packet, is
        /// always the number of writes the receiver has told its user about (verdicts and
        /// events), through duplicates, packets beyond the window, completion and aborts.
        #[test]
        fn derived_written_counts_every_write(
            improved in any::<bool>(),
            whole in any::<bool>(),
            steps in proptest::collection::vec((0u32..48, 0u64..3_000, 0u8..20), 1..300),
        ) {
            let cfg = ReceiverConfig::default().with_mode(if improved { Mode::Improved } else { Mode::Paper }).with_resend_timeout(Nanos::new(4_000)).with_max_idle_timeouts(2);
            let first = u32::MAX - 30;
            let (mut rx, cid) = open_one(cfg, 40, first);
            let (mut now, mut writes, mut next) = (0, 0u64, 0u32);
            for (jump, dt, kind) in steps {
                now += dt;
                // Mostly in order (so that transfers complete), with jumps back and ahead.
                let off = if kind > 2 { next } else { jump };
                next = off + 1;
                if kind == 0 {
                    rx.handle_timeout(Nanos::new(now));
                } else if whole {
                    let data = Packet::Data { dcid: cid, psn: first.wrapping_add(off), len: 4096 };
                    let _ = rx.handle(data, Nanos::new(now));
                } else if let Ok(DataVerdict::Write { .. }) =
                    rx.handle_data(cid, first.wrapping_add(off.min(39)), 4096, Nanos::new(now))
                {
                    writes += 1;
                }
                while let Some(e) = rx.poll_event() {
                    writes += u64::from(matches!(e, RecvEvent::Write { .. }));
                }
                while rx.poll_transmit().is_some() {}
                prop_assert_eq!(rx.stats().written, writes);
            }
        }
    }

    #[test]
    fn idle_timeouts_count_only_expiries_without_progress() {
        let cfg = ReceiverConfig::default()
            .with_max_idle_timeouts(2)
            .with_resend_timeout(Nanos::new(100));
        let (mut rx, cid) = open_one(cfg, 10, 5);
        rx.handle_timeout(Nanos::new(100));
        rx.handle_timeout(Nanos::new(200));
        // Two expiries without progress, then WBASE moves (through the fast path).
        assert!(matches!(
            rx.handle_data(cid, 5, 4096, Nanos::new(250)),
            Ok(DataVerdict::Write { .. })
        ));
        rx.handle_timeout(Nanos::new(350));
        rx.handle_timeout(Nanos::new(450));
        assert_eq!(
            rx.active(),
            1,
            "two expiries since the progress are allowed"
        );
        while rx.poll_event().is_some() {}
        rx.handle_timeout(Nanos::new(550));
        assert_eq!(rx.active(), 0, "the third without progress aborts");
        assert_eq!(rx.poll_event(), Some(RecvEvent::Aborted { cid }));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The in-order fast path is an exact shortcut: a receiver taking it and one that
        /// always runs the general path give the same verdicts, outputs, counters, timer and
        /// window after every call, in both modes, with eager or lazy ACKs, under
        /// reordering, duplication, loss, timeouts and polls at random points; and the fast
        /// path's bound is always the one its definition gives.
        #[test]
        fn fast_path_equals_general_path(
            improved in any::<bool>(),
            coalesce_acks in any::<bool>(),
            ack_stride in 1u32..6,
            steps in proptest::collection::vec(
                (0u32..70, 0u64..2_000, 0u8..8, any::<bool>()),
                1..300,
            ),
        ) {
            let cfg = ReceiverConfig::default().with_mode(if improved { Mode::Improved } else { Mode::Paper }).with_reorder_tolerance(Nanos::new(300)).with_retry_interval(Nanos::new(2_000)).with_resend_timeout(Nanos::new(5_000)).with_max_idle_timeouts(3).with_ack_stride(ack_stride).with_coalesce_acks(coalesce_acks);
            let first = u32::MAX - 20;
            let (mut fast, cid) = open_one(cfg, 64, first);
            let (mut general, _) = open_one(cfg, 64, first);
            let mut now = 0;
            // Mostly in order (what the fast path is for), with jumps back and ahead.
            let mut next = 0u32;
            for (jump, dt, kind, poll) in steps {
                now += dt / 4;
                match kind {
                    0 => {
                        fast.handle_timeout(Nanos::new(now));
                        general.handle_timeout(Nanos::new(now));
                    }
                    1 => next = jump,
                    _ => {
                        let off = if kind == 2 { jump } else { next };
                        next = off + 1;
                        let psn = first.wrapping_add(off);
                        let a = fast.data::<true, true>(cid, psn, 4096, now);
                        let b = general.data::<true, false>(cid, psn, 4096, now);
                        prop_assert_eq!(a, b);
                    }
                }
                if !poll {
                    // Not polled now: lazy ACKs and queued outputs wait.
                    continue;
                }
                prop_assert_eq!(observe(&mut fast, cid), observe(&mut general, cid));
                for rx in [&fast, &general] {
                    for (_, s) in rx.table.iter() {
                        let mut again = s.clone();
                        again.refresh_until(rx.cfg.mode);
                        prop_assert_eq!(s.meta.until, again.meta.until);
                        prop_assert!(after(s.meta.until, s.hot.window.wbase()));
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn incremental_deadline_equals_recomputed(
            improved in any::<bool>(),
            steps in proptest::collection::vec((0u32..200, 0u64..3_000, any::<bool>()), 1..300),
        ) {
            let cfg = ReceiverConfig::default().with_mode(if improved { Mode::Improved } else { Mode::Paper }).with_reorder_tolerance(Nanos::new(500)).with_retry_interval(Nanos::new(4_000)).with_resend_timeout(Nanos::new(9_000));
            let mut rx: Receiver = Receiver::new(cfg).unwrap();
            let first = u32::MAX - 50;
            rx.handle(
                Packet::Req {
                    scid: Cid::from_bits(7),
                    src_node: 1,
                    dst_addr: 0,
                    len: 180 * 4096,
                    mtu: 4096,
                    first_psn: first,
                },
                Nanos::new(0),
            )
            .unwrap();
            let Some(RecvTransmit { packet: Packet::Rsp { status: RspStatus::Granted(cid), .. }, .. }) =
                rx.poll_transmit()
            else {
                panic!("an empty table grants");
            };
            let mut now = 0;
            // The paper's timer, modelled: started at the request, again whenever WBASE
            // moves or the timer itself expires.
            let mut armed = 0u64;
            let wbase = |rx: &Receiver| rx.context(cid).map(|c| c.window().wbase());
            for (off, dt, tick) in steps {
                now += dt;
                let (before, timeouts) = (wbase(&rx), rx.stats().timeouts);
                if tick {
                    rx.handle_timeout(Nanos::new(now));
                } else if off < 180 {
                    let _ = rx.handle_data(cid, first.wrapping_add(off), 4096, Nanos::new(now)).unwrap();
                }
                while rx.poll_event().is_some() {}
                while rx.poll_transmit().is_some() {}
                prop_assert!(deadlines_consistent(&rx));
                if wbase(&rx) != before || rx.stats().timeouts != timeouts {
                    armed = now;
                }
                let expected = rx
                    .table
                    .iter()
                    .map(|(_, s)| (armed + 9_000).min(loss_deadline(&s.meta, &rx.cfg)))
                    .min();
                prop_assert_eq!(rx.poll_timeout().map(Nanos::get), expected);
            }
        }
    }
}
