//! Set-up and completion: a request takes a context (paper §2.3.1), the last packet frees it
//! (DONE, and a memory of recent completions).

use crate::Error;
use crate::cid::Cid;
use crate::packet::{Packet, RspStatus};
use crate::window::Window;

use super::{BATCHES, Finished, Meta, Receiver, RecvContext, RecvEvent, Slot};

impl<const WORDS: usize> Receiver<WORDS> {
    #[expect(clippy::too_many_arguments, reason = "the fields of RDMA_REQ")]
    #[inline(never)]
    pub(super) fn on_req(
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
    #[cold]
    pub(super) fn complete(&mut self, cid: Cid) {
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
