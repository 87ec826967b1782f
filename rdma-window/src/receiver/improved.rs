//! Improved mode's repair (ours): hole evidence, batches of holes asked for, and their
//! timers. Paper mode never runs the code in this file.

use crate::ReceiverConfig;
use crate::packet::Packet;
use crate::psn::{after, distance};
use crate::ring::Ring;
use crate::window::Window;

use super::acks::ack_due;
use super::{BATCHES, Meta, Receiver, RecvStats, RecvTransmit};
use crate::cid::Cid;

impl<const WORDS: usize> Receiver<WORDS> {
    /// After a write that moved `WBASE` of context `dcid` (not to the end) while repair
    /// state is pending or arrivals past `WBASE` were seen: restart the paper's timer, send
    /// the ACK falling due, drop the evidence and requests `WBASE` has passed, note the
    /// arrival and recompute the loss timer.
    #[inline(always)]
    pub(super) fn repair_after_advance(&mut self, dcid: Cid, psn: u32, now: u64) {
        let Some(slot) = self.table.get_mut(dcid) else {
            return;
        };
        let m = &mut slot.meta;
        let wbase = slot.hot.window.wbase();
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
}

impl Meta {
    /// Improved mode has hole evidence or requests pending (the data path then leaves its
    /// common case).
    #[inline(always)]
    pub(super) const fn repairing(&self) -> bool {
        self.ev.is_some() || self.nbatches > 0
    }

    /// Holes below this sequence number have been asked for already.
    pub(super) fn batch_hi(&self, wbase: u32) -> u32 {
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
pub(super) fn note_arrival(m: &mut Meta, psn: u32, wbase: u32, now: u64) -> bool {
    note_newest(m, psn, now);
    if m.ev.is_none() && after(m.hi, wbase) && after(m.hi, m.batch_hi(wbase)) {
        m.ev = Some((m.hi, m.hi_time));
        true
    } else {
        false
    }
}
/// Improved mode: records data packet `psn` as the newest arrival when it is.
#[inline(always)]
pub(super) fn note_newest(m: &mut Meta, psn: u32, now: u64) {
    let next = psn.wrapping_add(1);
    if after(next, m.hi) {
        m.hi = next;
        m.hi_time = now;
    }
}
/// Improved mode's earliest loss or retry timer, recomputed from the hole evidence and the
/// batches asked for (`u64::MAX` when none is pending).
pub(super) fn loss_deadline(m: &Meta, cfg: &ReceiverConfig) -> u64 {
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
pub(super) fn improved_timeout<const WORDS: usize>(
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
