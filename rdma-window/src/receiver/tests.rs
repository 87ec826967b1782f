//! Unit tests of the receiver's internals.

use proptest::prelude::*;

use super::improved::loss_deadline;
use super::*;
use crate::packet::RspStatus;

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
        packet: Packet::Rsp {
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
