//! The timers: the paper's `WBASE` timer per context (§2.3.4 1)), giving up, and the call
//! into improved mode's loss and retry timers.

use fabric_model::Nanos;

use crate::cid::Cid;
use crate::config::Mode;
use crate::packet::Packet;

use super::improved::{improved_timeout, loss_deadline};
use super::{Receiver, RecvEvent, RecvTransmit};

impl<const WORDS: usize> Receiver<WORDS> {
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
}
