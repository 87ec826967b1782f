//! ACKs of `WBASE` (ours; the paper sends none): queued at once, or owed and built when
//! polled.

use crate::ReceiverConfig;
use crate::cid::Cid;
use crate::packet::Packet;

use super::{Meta, OWED, Receiver, RecvTransmit};

impl<const WORDS: usize> Receiver<WORDS> {
    /// Sends the ACK of `WBASE` that falls due for `cid` (to its sender `to`, context
    /// `scid`): queued now, or, with [`ReceiverConfig::coalesce_acks`], marked as owed and
    /// built by `poll_transmit`.
    #[inline(always)]
    pub(super) fn send_ack(&mut self, cid: Cid, to: u32, scid: Cid, wbase: u32) {
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
    pub(super) fn clear_ack(&mut self, index: u16) {
        let (word, bit) = (usize::from(index) / 64, 1u64 << (index % 64));
        if let Some(w) = self.ack_due.get_mut(word)
            && *w & bit != 0
        {
            *w &= !bit;
            self.acks_due -= 1;
        }
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
}

/// An ACK of `wbase` falls due for the context of `m`: moves its `ack_at` on (to the next
/// stride, or `OWED` ahead while a coalesced ACK waits to be built, so that `WBASE` cannot
/// reach it meanwhile: a transfer is shorter than `OWED`) and returns what the ACK needs.
#[inline(always)]
pub(super) fn ack_due(cfg: &ReceiverConfig, m: &mut Meta, wbase: u32) -> (u32, Cid, u32) {
    let ahead = if cfg.coalesce_acks {
        OWED
    } else {
        cfg.ack_stride
    };
    m.ack_at = wbase.wrapping_add(ahead);
    (m.src_node, m.scid, wbase)
}
