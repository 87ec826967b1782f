//! The data path (paper Fig. 3): the in-order fast path, the general path, and what follows
//! a write. Improved mode appears only as a test that sends its cases elsewhere.

use fabric_model::Nanos;

use crate::Error;
use crate::cid::Cid;
use crate::config::Mode;
use crate::packet::Packet;
use crate::psn::after;
use crate::window::Arrival;

use super::acks::ack_due;
use super::improved::{note_arrival, note_newest};
use super::{DataVerdict, Meta, Receiver, RecvEvent};

impl<const WORDS: usize> Receiver<WORDS> {
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
    pub(super) fn data<const QUEUE: bool, const FAST: bool>(
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
                && !(improved && m.repairing())
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
            let common = wbase != m.end_psn && !(improved && (m.repairing() || after(m.hi, wbase)));
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
        self.repair_after_advance(dcid, psn, now);
    }
    #[cold]
    fn zombie(&mut self, dcid: Cid) {
        self.stats.zombies += 1;
        // A late packet of a transfer that completed here: its DONE may have been lost.
        if let Some(f) = self.finished.iter().find(|f| f.cid == dcid).copied() {
            self.transmit(f.src_node, Packet::Done { scid: f.scid });
        }
    }
}

/// Marks the data path's general case as the less likely one (for the code layout).
#[cold]
#[inline]
const fn general_path() {}

/// Marks the in-order path's ACK case as the less likely one (for the code layout).
#[cold]
#[inline]
const fn ack_falls_due() {}
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
