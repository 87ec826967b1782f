//! The receiver as a whole: set-up, the window cases with their outputs, the one timer,
//! completion, zombies, bad packets, and a model-based test of the context table.

use std::collections::HashSet;

use fabric_model::Nanos;
use proptest::prelude::*;
use rdma_window::packet::RspStatus;
use rdma_window::receiver::{RecvContext, RecvEvent, RecvTransmit};
use rdma_window::{Cid, Error, Mode, Packet, Receiver, ReceiverConfig};

const MTU: u32 = 4096;

fn cfg(capacity: usize, mode: Mode) -> ReceiverConfig {
    ReceiverConfig::default()
        .with_capacity(capacity)
        .with_mode(mode)
}

fn scid(i: u16) -> Cid {
    Cid::new(i, 0)
}

fn open(rx: &mut Receiver, s: Cid, packets: u32, first_psn: u32, now: u64) -> Option<Cid> {
    rx.handle(
        Packet::Req {
            scid: s,
            src_node: 1,
            dst_addr: 0x10_0000,
            len: u64::from(packets) * u64::from(MTU),
            mtu: MTU,
            first_psn,
        },
        Nanos::new(now),
    )
    .unwrap();
    let out: Vec<RecvTransmit> = std::iter::from_fn(|| rx.poll_transmit()).collect();
    match out.as_slice() {
        [
            RecvTransmit {
                to: 1,
                packet: Packet::Rsp { scid: got, status },
            },
        ] if *got == s => match status {
            RspStatus::Granted(c) => Some(*c),
            RspStatus::Busy => None,
        },
        other => panic!("unexpected answer {other:?}"),
    }
}

fn data(rx: &mut Receiver, dcid: Cid, psn: u32, now: u64) -> (Vec<RecvEvent>, Vec<Packet>) {
    rx.handle(
        Packet::Data {
            dcid,
            psn,
            len: MTU,
        },
        Nanos::new(now),
    )
    .unwrap();
    (
        std::iter::from_fn(|| rx.poll_event()).collect(),
        std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect(),
    )
}

#[test]
fn receive_context_fits_in_32_bytes() {
    assert!(size_of::<RecvContext<2>>() <= 32);
}

#[test]
fn window_boundaries_through_the_receiver() {
    let mut rx: Receiver = Receiver::new(cfg(4, Mode::Paper)).unwrap();
    let first = 1_000;
    let c = open(&mut rx, scid(0), 1_000, first, 0).unwrap();
    // WBASE + 1 and WBASE + W are written; WBASE + W + 1 is refused with RDMA_RESEND(PIDX).
    for off in [1, 127, 128] {
        let (ev, out) = data(&mut rx, c, first + off, 1);
        assert!(matches!(ev.as_slice(), [RecvEvent::Write { psn, addr, .. }]
            if *psn == first + off && *addr == 0x10_0000 + u64::from(off * MTU)));
        assert!(out.is_empty());
    }
    let (ev, out) = data(&mut rx, c, first + 129, 2);
    assert!(ev.is_empty());
    assert_eq!(
        out,
        [Packet::Resend {
            scid: scid(0),
            wbase: first,
            psn: first + 129,
            more: 0
        }]
    );
    // A duplicate in the window is not written again.
    let (ev, out) = data(&mut rx, c, first + 1, 3);
    assert!(ev.is_empty() && out.is_empty());
    // WBASE itself: written, advance by 2, ACK of the new WBASE.
    let (ev, out) = data(&mut rx, c, first, 4);
    assert_eq!(ev.len(), 1);
    assert_eq!(
        out,
        [Packet::Ack {
            scid: scid(0),
            wbase: first + 2
        }]
    );
    // WBASE − 1 (now below): duplicate.
    let (ev, out) = data(&mut rx, c, first + 1, 5);
    assert!(ev.is_empty() && out.is_empty());
    assert_eq!(rx.stats().duplicates, 2);
    assert_eq!(rx.context(c).unwrap().window().wbase(), first + 2);
}

#[test]
fn one_timer_on_wbase_asks_for_wbase_only() {
    let mut rx: Receiver = Receiver::new(cfg(4, Mode::Paper)).unwrap();
    let to = rx.config().resend_timeout.get();
    let c = open(&mut rx, scid(3), 10, 0, 0).unwrap();
    assert_eq!(rx.poll_timeout().map(Nanos::get), Some(to));
    data(&mut rx, c, 0, 50);
    assert_eq!(
        rx.poll_timeout().map(Nanos::get),
        Some(50 + to),
        "WBASE advance restarts the timer"
    );
    data(&mut rx, c, 2, 60);
    data(&mut rx, c, 3, 70);
    assert_eq!(
        rx.poll_timeout().map(Nanos::get),
        Some(50 + to),
        "other packets do not"
    );
    rx.handle_timeout(Nanos::new(50 + to - 1));
    assert!(rx.poll_transmit().is_none());
    rx.handle_timeout(Nanos::new(50 + to));
    let out: Vec<_> = std::iter::from_fn(|| rx.poll_transmit()).collect();
    assert_eq!(
        out.iter().map(|t| t.packet).collect::<Vec<_>>(),
        [Packet::Resend {
            scid: scid(3),
            wbase: 1,
            psn: 1,
            more: 0
        }]
    );
    assert_eq!(rx.poll_timeout().map(Nanos::get), Some(50 + 2 * to));
    assert_eq!(rx.stats().timeouts, 1);
}

#[test]
fn completion_frees_the_context_and_late_packets_are_zombies() {
    let mut rx: Receiver = Receiver::new(cfg(1, Mode::Paper)).unwrap();
    let c = open(&mut rx, scid(0), 3, u32::MAX - 1, 0).unwrap();
    data(&mut rx, c, u32::MAX, 1);
    data(&mut rx, c, 0, 1);
    let (ev, out) = data(&mut rx, c, u32::MAX - 1, 2);
    assert!(
        matches!(ev.as_slice(), [RecvEvent::Write { .. }, RecvEvent::Complete { cid, scid: s, src_node: 1 }] if *cid == c && *s == scid(0))
    );
    assert_eq!(out, [Packet::Done { scid: scid(0) }]);
    assert_eq!(rx.active(), 0);
    assert_eq!(rx.poll_timeout().map(Nanos::get), None);
    // A late duplicate: nothing written, DONE repeated (the first may have been lost).
    let (ev, out) = data(&mut rx, c, 0, 3);
    assert!(ev.is_empty());
    assert_eq!(out, [Packet::Done { scid: scid(0) }]);
    // The slot is reused with a new generation; the old id stays dead.
    let c2 = open(&mut rx, scid(1), 2, 0, 4).unwrap();
    assert_eq!(c2.index(), c.index());
    assert_ne!(c2, c);
    let (ev, out) = data(&mut rx, c, 0, 5);
    assert!(ev.is_empty());
    assert_eq!(
        out,
        [Packet::Done { scid: scid(0) }],
        "completion is remembered past reuse"
    );
    assert_eq!(rx.stats().zombies, 2);
    // The new occupant is untouched by the zombie.
    assert_eq!(rx.context(c2).unwrap().window().wbase(), 0);
}

#[test]
fn full_table_answers_busy_and_repeated_requests_get_the_same_cid() {
    let mut rx: Receiver = Receiver::new(cfg(2, Mode::Paper)).unwrap();
    let a = open(&mut rx, scid(0), 5, 0, 0).unwrap();
    assert_eq!(open(&mut rx, scid(0), 5, 0, 1), Some(a));
    let _b = open(&mut rx, scid(1), 5, 0, 2).unwrap();
    assert_eq!(open(&mut rx, scid(2), 5, 0, 3), None);
    assert_eq!(rx.stats().refused, 1);
}

#[test]
fn bad_data_packets_get_their_precise_error() {
    let mut rx: Receiver = Receiver::new(cfg(2, Mode::Paper)).unwrap();
    let c = open(&mut rx, scid(0), 3, 10, 0).unwrap();
    let bad = Cid::new(7, 0);
    assert_eq!(
        rx.handle(
            Packet::Data {
                dcid: bad,
                psn: 10,
                len: MTU
            },
            Nanos::new(1)
        ),
        Err(Error::UnknownContext {
            cid: bad,
            capacity: 2
        })
    );
    assert_eq!(
        rx.handle(
            Packet::Data {
                dcid: c,
                psn: 13,
                len: MTU
            },
            Nanos::new(1)
        ),
        Err(Error::PsnOutOfRange {
            cid: c,
            psn: 13,
            first: 10,
            packets: 3
        })
    );
    assert_eq!(
        rx.handle(
            Packet::Data {
                dcid: c,
                psn: 11,
                len: 5
            },
            Nanos::new(1)
        ),
        Err(Error::BadPayloadSize {
            cid: c,
            psn: 11,
            got: 5,
            expected: MTU
        })
    );
    assert_eq!(
        rx.handle(
            Packet::Req {
                scid: scid(1),
                src_node: 1,
                dst_addr: 0,
                len: 1 << 50,
                mtu: 1,
                first_psn: 0
            },
            Nanos::new(1)
        ),
        Err(Error::TooManyPackets {
            packets: 1 << 50,
            limit: u64::from(rdma_window::receiver::MAX_PACKETS)
        })
    );
    assert!(rx.poll_event().is_none());
}

#[test]
fn improved_mode_names_several_holes_in_one_resend() {
    let mut c = cfg(1, Mode::Improved);
    c.reorder_tolerance = Nanos::new(100);
    let mut rx: Receiver = Receiver::new(c).unwrap();
    let d = open(&mut rx, scid(0), 400, 0, 0).unwrap();
    // Holes at 0, 2, 5 and 70; highest seen 80.
    for p in (1..=80).filter(|p| ![2, 5, 70].contains(p)) {
        data(&mut rx, d, p, 10);
    }
    assert_eq!(rx.poll_timeout().map(Nanos::get), Some(110));
    rx.handle_timeout(Nanos::new(109));
    assert!(
        rx.poll_transmit().is_none(),
        "no request before the tolerance"
    );
    rx.handle_timeout(Nanos::new(110));
    let out: Vec<_> = std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect();
    assert_eq!(
        out,
        [
            Packet::Resend {
                scid: scid(0),
                wbase: 0,
                psn: 0,
                more: (1 << 1) | (1 << 4)
            },
            Packet::Resend {
                scid: scid(0),
                wbase: 0,
                psn: 70,
                more: 0
            }
        ]
    );
    // Not asked again before the retry interval.
    rx.handle_timeout(Nanos::new(111));
    assert!(rx.poll_transmit().is_none());
}

#[test]
fn improved_mode_is_silent_when_reordering_resolves_in_time() {
    let mut c = cfg(1, Mode::Improved);
    c.reorder_tolerance = Nanos::new(100);
    let mut rx: Receiver = Receiver::new(c).unwrap();
    let d = open(&mut rx, scid(0), 10, 0, 0).unwrap();
    data(&mut rx, d, 1, 10);
    data(&mut rx, d, 3, 20);
    data(&mut rx, d, 0, 109);
    data(&mut rx, d, 2, 110);
    rx.handle_timeout(Nanos::new(200));
    assert!(rx.poll_transmit().is_none());
    assert_eq!(rx.stats().resend_packets, 0);
}

/// Operations of the context-table model test.
#[derive(Debug, Clone)]
enum Op {
    /// A new transfer asks for a context.
    Open,
    /// Deliver every packet of the `i`-th live transfer (mod live count), completing it.
    Finish(usize),
    /// Deliver one packet of the `i`-th live transfer.
    One(usize, u32),
    /// Replay a data packet of the `i`-th finished transfer (a zombie).
    Stale(usize, u32),
    /// Let time pass so that idle contexts time out.
    Tick(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Open),
        2 => any::<usize>().prop_map(Op::Finish),
        3 => (any::<usize>(), 0..4u32).prop_map(|(i, p)| Op::One(i, p)),
        3 => (any::<usize>(), 0..4u32).prop_map(|(i, p)| Op::Stale(i, p)),
        1 => (1..30_000u64).prop_map(Op::Tick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The table never hands one id to two live transfers, refuses exactly when full, and a
    /// packet for a finished or aborted transfer is never written.
    #[test]
    fn context_table_model(ops in proptest::collection::vec(op(), 1..120)) {
        let mut c = cfg(3, Mode::Paper);
        c.max_idle_timeouts = 2;
        let mut rx: Receiver = Receiver::new(c).unwrap();
        let mut live: Vec<(Cid, Cid)> = Vec::new(); // (scid, dcid)
        let mut dead: Vec<Cid> = Vec::new();
        let mut next_scid = 0u16;
        let mut now = 0u64;
        for op in ops {
            now += 1;
            match op {
                Op::Open => {
                    let s = Cid::new(next_scid, 0);
                    next_scid = next_scid.wrapping_add(1);
                    let got = open(&mut rx, s, 4, 0, now);
                    prop_assert_eq!(got.is_none(), live.len() == 3);
                    if let Some(d) = got {
                        prop_assert!(live.iter().all(|(_, x)| *x != d), "id handed out twice");
                        live.push((s, d));
                    }
                }
                Op::Finish(i) if !live.is_empty() => {
                    let (_, d) = live.remove(i % live.len());
                    let mut done = false;
                    for p in 0..4 {
                        let (ev, _) = data(&mut rx, d, p, now);
                        done |= ev.iter().any(|e| matches!(e, RecvEvent::Complete { .. }));
                    }
                    prop_assert!(done);
                    dead.push(d);
                }
                Op::One(i, p) if !live.is_empty() => {
                    let (_, d) = live[i % live.len()];
                    let (ev, _) = data(&mut rx, d, p, now);
                    if ev.iter().any(|e| matches!(e, RecvEvent::Complete { .. })) {
                        live.retain(|(_, x)| *x != d);
                        dead.push(d);
                    }
                }
                Op::Stale(i, p) if !dead.is_empty() => {
                    let d = dead[i % dead.len()];
                    let (ev, _) = data(&mut rx, d, p, now);
                    prop_assert!(ev.is_empty(), "stale packet delivered: {ev:?}");
                }
                Op::Tick(dt) => {
                    now += dt;
                    rx.handle_timeout(Nanos::new(now));
                    while let Some(e) = rx.poll_event() {
                        if let RecvEvent::Aborted { cid } = e {
                            prop_assert!(live.iter().any(|(_, x)| *x == cid));
                            live.retain(|(_, x)| *x != cid);
                            dead.push(cid);
                        }
                    }
                    while rx.poll_transmit().is_some() {}
                }
                _ => {}
            }
            prop_assert_eq!(rx.active(), live.len());
            let ids: HashSet<Cid> = live.iter().map(|l| l.1).collect();
            prop_assert_eq!(ids.len(), live.len());
        }
    }
}

#[test]
fn improved_mode_asks_again_only_for_holes_still_open_after_the_retry_interval() {
    let mut c = cfg(1, Mode::Improved);
    c.reorder_tolerance = Nanos::new(100);
    c.retry_interval = Nanos::new(1_000);
    c.resend_timeout = Nanos::new(1_000_000);
    let mut rx: Receiver = Receiver::new(c).unwrap();
    let d = open(&mut rx, scid(0), 400, 0, 0).unwrap();
    for p in [1, 3, 4] {
        data(&mut rx, d, p, 10);
    }
    rx.handle_timeout(Nanos::new(110));
    let first: Vec<_> = std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect();
    assert_eq!(
        first,
        [Packet::Resend {
            scid: scid(0),
            wbase: 0,
            psn: 0,
            more: 1 << 1
        }]
    );
    // Packet 0 comes back, 2 does not: only 2 is asked for again, once the interval is over.
    data(&mut rx, d, 0, 500);
    assert_eq!(rx.poll_timeout().map(Nanos::get), Some(110 + 1_000));
    rx.handle_timeout(Nanos::new(1_109));
    assert!(rx.poll_transmit().is_none());
    rx.handle_timeout(Nanos::new(1_110));
    let again: Vec<_> = std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect();
    assert_eq!(
        again,
        [Packet::Resend {
            scid: scid(0),
            wbase: 2,
            psn: 2,
            more: 0
        }]
    );
    assert_eq!(rx.stats().timeouts, 0, "the paper's timer did not fire");
}

/// Runs `steps` (data packet at offset, or a timer tick) on a fresh receiver with `cfg`,
/// polling everything after every call; `verdicts` feeds data through `handle_data` and turns
/// each `Write` verdict into the event `handle` would have queued.
fn run_polled(
    cfg: ReceiverConfig,
    steps: &[(u32, u64, bool)],
    verdicts: bool,
) -> (Vec<RecvEvent>, Vec<RecvTransmit>) {
    let mut rx: Receiver = Receiver::new(cfg).unwrap();
    let first = u32::MAX - 20;
    let cid = open(&mut rx, scid(3), 60, first, 0).unwrap();
    let (mut events, mut sent, mut now) = (Vec::new(), Vec::new(), 0);
    for &(off, dt, tick) in steps {
        now += dt;
        if tick {
            rx.handle_timeout(Nanos::new(now));
        } else if verdicts {
            let v = rx
                .handle_data(cid, first.wrapping_add(off), MTU, Nanos::new(now))
                .unwrap();
            if let rdma_window::DataVerdict::Write {
                cid,
                psn,
                addr,
                len,
            } = v
            {
                events.push(RecvEvent::Write {
                    cid,
                    psn,
                    addr,
                    len,
                });
            }
        } else {
            rx.handle(
                Packet::Data {
                    dcid: cid,
                    psn: first.wrapping_add(off),
                    len: MTU,
                },
                Nanos::new(now),
            )
            .unwrap();
        }
        // `handle_data` queues a completion after the write it returned: drain in order.
        events.extend(std::iter::from_fn(|| rx.poll_event()));
        sent.extend(std::iter::from_fn(|| rx.poll_transmit()));
    }
    (events, sent)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Polled after every call, the lazy ACKs are exactly the eager ones, and the verdicts of
    /// `handle_data` are exactly the write events of `handle`, in every mode.
    #[test]
    fn lazy_acks_and_verdicts_match_eager_events(
        improved in any::<bool>(),
        stride in 1u32..4,
        steps in proptest::collection::vec((0u32..70, 0u64..3_000, any::<bool>()), 1..200),
    ) {
        let base = ReceiverConfig::default().with_mode(if improved { Mode::Improved } else { Mode::Paper }).with_ack_stride(stride).with_reorder_tolerance(Nanos::new(500)).with_retry_interval(Nanos::new(4_000)).with_resend_timeout(Nanos::new(9_000));
        let lazy = base.with_coalesce_acks(true);
        let steps: Vec<_> = steps.into_iter().filter(|s| s.2 || s.0 < 60).collect();
        let eager = run_polled(base, &steps, false);
        prop_assert_eq!(&run_polled(lazy, &steps, true), &eager);
        prop_assert_eq!(&run_polled(lazy, &steps, false), &eager);
    }
}

#[test]
fn lazy_acks_coalesce_to_the_newest_wbase_and_vanish_at_completion() {
    let mut rx: Receiver = Receiver::new(cfg(4, Mode::Paper).with_coalesce_acks(true)).unwrap();
    let first = 77;
    let a = open(&mut rx, scid(1), 20, first, 0).unwrap();
    let b = open(&mut rx, scid(2), 4, first, 0).unwrap();
    for p in 0..10 {
        let v = rx.handle_data(a, first + p, MTU, Nanos::new(1)).unwrap();
        assert!(matches!(v, rdma_window::DataVerdict::Write { psn, .. } if psn == first + p));
    }
    for p in [2, 1, 0] {
        let _ = rx.handle_data(b, first + p, MTU, Nanos::new(1)).unwrap();
    }
    assert!(
        rx.poll_event().is_none(),
        "handle_data queues no write event"
    );
    // One ACK per context, with the WBASE of polling time.
    let _ = rx.handle_data(a, first + 10, MTU, Nanos::new(1)).unwrap();
    let acks: Vec<_> = std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect();
    assert_eq!(
        acks,
        [
            Packet::Ack {
                scid: scid(1),
                wbase: first + 11
            },
            Packet::Ack {
                scid: scid(2),
                wbase: first + 3
            },
        ]
    );
    // Progress then completion before any poll: DONE only, no ACK of a freed context.
    let _ = rx.handle_data(a, first + 11, MTU, Nanos::new(2)).unwrap();
    for p in 12..20 {
        let _ = rx.handle_data(a, first + p, MTU, Nanos::new(2)).unwrap();
    }
    assert_eq!(
        rx.poll_event(),
        Some(RecvEvent::Complete {
            cid: a,
            src_node: 1,
            scid: scid(1)
        })
    );
    let out: Vec<_> = std::iter::from_fn(|| rx.poll_transmit().map(|t| t.packet)).collect();
    assert_eq!(out, [Packet::Done { scid: scid(1) }]);
    // Verdicts for the dropped cases.
    assert_eq!(
        rx.handle_data(b, first + 1, MTU, Nanos::new(3)).unwrap(),
        rdma_window::DataVerdict::Duplicate
    );
    assert_eq!(
        rx.handle_data(b, first + 3 + Receiver::<2>::W + 1, MTU, Nanos::new(3)),
        Err(Error::PsnOutOfRange {
            cid: b,
            psn: first + 3 + Receiver::<2>::W + 1,
            first,
            packets: 4
        })
    );
    assert_eq!(
        rx.handle_data(a, first, MTU, Nanos::new(3)).unwrap(),
        rdma_window::DataVerdict::Stale
    );
    assert_eq!(
        rx.poll_transmit().map(|t| t.packet),
        Some(Packet::Done { scid: scid(1) }),
        "a late packet of a completed transfer gets its DONE again"
    );
    let c = open(&mut rx, scid(3), 300, first, 3).unwrap();
    assert_eq!(
        rx.handle_data(c, first + 200, MTU, Nanos::new(3)).unwrap(),
        rdma_window::DataVerdict::BeyondWindow
    );
    assert!(matches!(
        rx.poll_transmit().map(|t| t.packet),
        Some(Packet::Resend { psn, .. }) if psn == first + 200
    ));
}

/// The data path's length and range checks, exhaustively around both ends of transfers of
/// 1 to 3 packets (last packet full or short), across the wrap of the sequence space: a
/// packet is accepted exactly when it is inside the transfer with the size its place gives.
#[test]
fn data_checks_accept_exactly_the_valid_packets() {
    for packets in 1..=3u32 {
        for short in [0, 100] {
            for first in [5, u32::MAX - 1] {
                let len = u64::from(packets) * u64::from(MTU) - short;
                for off in -3i64..i64::from(packets) + 3 {
                    for got in [MTU, MTU - 100, 5] {
                        let mut rx: Receiver = Receiver::new(cfg(2, Mode::Paper)).unwrap();
                        rx.handle(
                            Packet::Req {
                                scid: scid(1),
                                src_node: 1,
                                dst_addr: 0,
                                len,
                                mtu: MTU,
                                first_psn: first,
                            },
                            Nanos::new(0),
                        )
                        .unwrap();
                        let Some(Packet::Rsp {
                            status: RspStatus::Granted(c),
                            ..
                        }) = rx.poll_transmit().map(|t| t.packet)
                        else {
                            panic!("an empty table grants");
                        };
                        #[expect(clippy::cast_possible_truncation, reason = "small offsets")]
                        let psn = first.wrapping_add(off as u32);
                        let inside = off >= 0 && off < i64::from(packets);
                        let want = if off == i64::from(packets) - 1 {
                            MTU - u32::try_from(short).unwrap()
                        } else {
                            MTU
                        };
                        let r = rx.handle_data(c, psn, got, Nanos::new(1));
                        assert_eq!(
                            r.is_ok(),
                            inside && got == want,
                            "packets {packets} short {short} first {first} off {off} len {got}: {r:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Regression: when several contexts give up at the same expiry, one
/// `handle_timeout` frees every one of them (the old code freed only the last), so that no
/// data packet arriving afterwards is written into a context that gave up.
#[test]
fn every_context_that_gives_up_in_one_call_is_freed() {
    for mode in [Mode::Paper, Mode::Improved] {
        let mut rx = Receiver::new(cfg(8, mode).with_max_idle_timeouts(0)).unwrap();
        let cids: Vec<Cid> = (0..5)
            .map(|i| open(&mut rx, scid(i), 10, 0, 0).unwrap())
            .collect();
        // A sixth context opened later is not yet due and must stay.
        let late = open(&mut rx, scid(9), 10, 0, 5_000).unwrap();
        let t = rx.poll_timeout().unwrap();
        assert_eq!(t, rx.config().resend_timeout);
        rx.handle_timeout(t);
        let aborted: HashSet<Cid> = std::iter::from_fn(|| rx.poll_event())
            .map(|e| match e {
                RecvEvent::Aborted { cid } => cid,
                other => panic!("{mode:?}: unexpected {other:?}"),
            })
            .collect();
        assert_eq!(aborted, cids.iter().copied().collect(), "{mode:?}");
        assert_eq!(rx.active(), 1, "{mode:?}");
        assert!(
            rx.poll_timeout().unwrap() > t,
            "{mode:?}: a due timer is left"
        );
        for &c in &cids {
            assert!(rx.context(c).is_none());
            let (ev, _) = data(&mut rx, c, 0, t.get() + 1);
            assert!(
                ev.is_empty(),
                "{mode:?}: a given-up context was written: {ev:?}"
            );
        }
        assert!(rx.context(late).is_some());
    }
}

/// Regression: several contexts expiring together (without giving up) each get
/// their `RDMA_RESEND(WBASE)` in one call.
#[test]
fn every_expired_context_is_served_in_one_call() {
    let mut rx = Receiver::new(cfg(8, Mode::Paper)).unwrap();
    for i in 0..6 {
        open(&mut rx, scid(i), 10, 100, 0).unwrap();
    }
    let t = rx.poll_timeout().unwrap();
    rx.handle_timeout(t);
    let asked: HashSet<Cid> = std::iter::from_fn(|| rx.poll_transmit())
        .map(|tx| match tx.packet {
            Packet::Resend { scid, psn: 100, .. } => scid,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(asked.len(), 6);
    assert!(rx.poll_timeout().unwrap() > t);
}

/// Regression: a request whose destination range wraps past 2^64 is refused (its
/// packet addresses would wrap), with nothing answered and no context taken; the range that
/// ends exactly at 2^64 − 1 is accepted.
#[test]
fn a_destination_range_past_2_64_is_refused() {
    let mut rx: Receiver = Receiver::new(cfg(4, Mode::Paper)).unwrap();
    let req = |dst_addr: u64, len: u64| Packet::Req {
        scid: scid(1),
        src_node: 1,
        dst_addr,
        len,
        mtu: MTU,
        first_psn: 0,
    };
    let len = 4 * u64::from(MTU);
    let wraps = u64::MAX - len + 2;
    assert_eq!(
        rx.handle(req(wraps, len), Nanos::new(0)),
        Err(Error::AddressWrap {
            side: "destination",
            addr: wraps,
            len
        })
    );
    assert!(rx.handle(req(u64::MAX, 2), Nanos::new(0)).is_err());
    assert_eq!((rx.active(), rx.poll_transmit()), (0, None));
    rx.handle(req(wraps - 1, len), Nanos::new(0)).unwrap();
    assert_eq!(rx.active(), 1);
}
