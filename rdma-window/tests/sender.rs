//! The sender: request and back-off, the window, re-reads on `RDMA_RESEND`, probes,
//! completion, zombies and bad answers.

use fabric_model::{Bytes, Nanos};
use rdma_window::packet::RspStatus;
use rdma_window::sender::{SendEvent, SendTransmit};
use rdma_window::{Cid, Error, Packet, Sender, SenderConfig, Transfer};

const MTU: u32 = 1000;

fn transfer(len: u64, first_psn: u32) -> Transfer {
    Transfer::new(4, Bytes::new(len), MTU)
        .with_src_addr(0x5000)
        .with_dst_addr(0x9000)
        .with_first_psn(first_psn)
}

fn cfg() -> SenderConfig {
    SenderConfig::default()
        .with_capacity(2)
        .with_window(4)
        .with_req_timeout(Nanos::new(100))
        .with_busy_backoff(Nanos::new(10))
        .with_max_backoff(Nanos::new(25))
        .with_probe_timeout(Nanos::new(1_000))
        .with_max_probes(2)
        .with_speculate(0)
        .with_speculate_delay(Nanos::new(0))
}

fn dcid() -> Cid {
    Cid::new(7, 3)
}

fn drain(tx: &mut Sender) -> Vec<SendTransmit> {
    std::iter::from_fn(|| tx.poll_transmit()).collect()
}

fn connected(len: u64, first: u32) -> (Sender, Cid) {
    connected_with(cfg(), len, first)
}

fn connected_with(cfg: SenderConfig, len: u64, first: u32) -> (Sender, Cid) {
    let mut tx = Sender::new(1, cfg).unwrap();
    let id = tx.start(transfer(len, first), Nanos::new(0)).unwrap();
    let req = drain(&mut tx);
    assert!(
        matches!(req.as_slice(), [SendTransmit { to: 4, packet: Packet::Req { scid, src_node: 1, len: l, mtu: MTU, first_psn, .. }, source: None, .. }]
        if *scid == id && *l == len && *first_psn == first)
    );
    tx.handle(
        Packet::Rsp {
            scid: id,
            status: RspStatus::Granted(dcid()),
        },
        Nanos::new(5),
    )
    .unwrap();
    assert_eq!(
        tx.poll_event(),
        Some(SendEvent::Connected {
            cid: id,
            dcid: dcid()
        })
    );
    (tx, id)
}

fn psns(out: &[SendTransmit]) -> Vec<u32> {
    out.iter()
        .map(|t| match t.packet {
            Packet::Data { psn, .. } => psn,
            other => panic!("not data: {other:?}"),
        })
        .collect()
}

#[test]
fn sends_at_most_w_plus_one_past_the_acknowledged_wbase() {
    let (mut tx, id) = connected(10 * u64::from(MTU) - 1, u32::MAX - 1);
    let out = drain(&mut tx);
    // W = 4: WBASE .. WBASE + 4 may be in flight.
    assert_eq!(psns(&out), [u32::MAX - 1, u32::MAX, 0, 1, 2]);
    assert_eq!(out[2].source, Some((0x5000 + 2 * u64::from(MTU), MTU)));
    tx.handle(Packet::Ack { scid: id, wbase: 1 }, Nanos::new(6))
        .unwrap();
    assert_eq!(psns(&drain(&mut tx)), [3, 4, 5]);
    tx.handle(Packet::Ack { scid: id, wbase: 4 }, Nanos::new(7))
        .unwrap();
    let out = drain(&mut tx);
    assert_eq!(psns(&out), [6, 7]);
    // The last packet is short.
    assert_eq!(out[1].source, Some((0x5000 + 9 * u64::from(MTU), MTU - 1)));
}

#[test]
fn resend_rereads_only_the_packets_named() {
    let (mut tx, id) = connected(10 * u64::from(MTU), 100);
    drain(&mut tx);
    tx.handle(
        Packet::Resend {
            scid: id,
            wbase: 101,
            psn: 101,
            more: 0b101,
        },
        Nanos::new(9),
    )
    .unwrap();
    let out = drain(&mut tx);
    // 101, then bit j names 101 + 1 + j: 102 and 104; then new data up to WBASE + W.
    assert_eq!(psns(&out), [101, 102, 104, 105]);
    assert!(out[0].retransmit && out[2].retransmit && !out[3].retransmit);
    let rereads: Vec<_> = std::iter::from_fn(|| tx.poll_event()).collect();
    assert_eq!(
        rereads,
        [
            SendEvent::Reread {
                cid: id,
                psn: 101,
                addr: 0x5000 + u64::from(MTU),
                len: MTU
            },
            SendEvent::Reread {
                cid: id,
                psn: 102,
                addr: 0x5000 + 2 * u64::from(MTU),
                len: MTU
            },
            SendEvent::Reread {
                cid: id,
                psn: 104,
                addr: 0x5000 + 4 * u64::from(MTU),
                len: MTU
            }
        ]
    );
    // A request for a packet not yet sent, or already below WBASE, re-reads nothing.
    tx.handle(
        Packet::Resend {
            scid: id,
            wbase: 102,
            psn: 109,
            more: 0,
        },
        Nanos::new(10),
    )
    .unwrap();
    tx.handle(
        Packet::Resend {
            scid: id,
            wbase: 102,
            psn: 100,
            more: 0,
        },
        Nanos::new(10),
    )
    .unwrap();
    assert_eq!(psns(&drain(&mut tx)), [106]);
    assert_eq!(tx.stats().retransmits, 3);
}

fn resend(tx: &mut Sender, id: Cid, wbase: u32, psn: u32, more: u64, now: u64) {
    tx.handle(
        Packet::Resend {
            scid: id,
            wbase,
            psn,
            more,
        },
        Nanos::new(now),
    )
    .unwrap();
}

#[test]
fn speculative_window_runs_past_wbase_after_the_delay_and_stops_on_a_repeat() {
    let spec = cfg().with_speculate(3).with_speculate_delay(Nanos::new(50));
    let (mut tx, id) = connected_with(spec, 20 * u64::from(MTU), 100);
    assert_eq!(psns(&drain(&mut tx)), [100, 101, 102, 103, 104]);
    // The WBASE packet is asked for: re-sent at once, the window waits for the delay.
    resend(&mut tx, id, 100, 100, 0, 10);
    assert_eq!(psns(&drain(&mut tx)), [100]);
    assert_eq!(tx.poll_timeout().map(Nanos::get), Some(60));
    tx.handle_timeout(Nanos::new(59));
    assert!(drain(&mut tx).is_empty());
    tx.handle_timeout(Nanos::new(60));
    // WBASE should be 103 once 100 lands (speculate = 3): 103 + W = 107.
    assert_eq!(psns(&drain(&mut tx)), [105, 106, 107]);
    // Asked again for the same WBASE: the retransmission was lost, the guess is off.
    resend(&mut tx, id, 100, 100, 0, 200);
    assert_eq!(psns(&drain(&mut tx)), [100]);
    tx.handle_timeout(Nanos::new(300));
    assert!(drain(&mut tx).is_empty());
    // WBASE moves: the ordinary window from the new WBASE.
    tx.handle(
        Packet::Ack {
            scid: id,
            wbase: 105,
        },
        Nanos::new(310),
    )
    .unwrap();
    assert_eq!(psns(&drain(&mut tx)), [108, 109]);
    // The failed guess halved the next one's reach: 3 -> 1, so WBASE 105 + 1 + W = 110.
    resend(&mut tx, id, 105, 105, 0, 400);
    tx.handle_timeout(Nanos::new(450));
    assert_eq!(psns(&drain(&mut tx)), [105, 110]);
    // This guess holds (WBASE passes 106): the reach grows back by an eighth of 3, to 2.
    tx.handle(
        Packet::Ack {
            scid: id,
            wbase: 107,
        },
        Nanos::new(500),
    )
    .unwrap();
    assert_eq!(psns(&drain(&mut tx)), [111]);
    resend(&mut tx, id, 107, 107, 0, 600);
    tx.handle_timeout(Nanos::new(650));
    assert_eq!(psns(&drain(&mut tx)), [107, 112, 113]);
}

#[test]
fn speculative_window_stops_at_the_next_hole_named_and_on_a_drop_past_the_window() {
    let spec = cfg().with_speculate(3).with_speculate_delay(Nanos::new(0));
    let (mut tx, id) = connected_with(spec, 20 * u64::from(MTU), 100);
    drain(&mut tx);
    // 100 and 101 are missing: WBASE can only reach 101 when 100 lands.
    resend(&mut tx, id, 100, 100, 0b1, 10);
    assert_eq!(psns(&drain(&mut tx)), [100, 101, 105]);
    let (mut tx, id) = connected_with(spec, 20 * u64::from(MTU), 100);
    drain(&mut tx);
    resend(&mut tx, id, 100, 100, 0, 10);
    assert_eq!(psns(&drain(&mut tx)), [100, 105, 106, 107]);
    // 107 fell outside the receiver's window (its RESEND(PIDX) is past WBASE + W): the guess
    // was wrong, so the window is the ordinary one again.
    resend(&mut tx, id, 100, 107, 0, 20);
    tx.handle(
        Packet::Ack {
            scid: id,
            wbase: 101,
        },
        Nanos::new(21),
    )
    .unwrap();
    assert_eq!(psns(&drain(&mut tx)), [107]);
    assert!(drain(&mut tx).is_empty());
}

#[test]
fn busy_backs_off_doubling_and_a_lost_answer_repeats_the_request() {
    let mut tx = Sender::new(1, cfg()).unwrap();
    let id = tx.start(transfer(5, 0), Nanos::new(0)).unwrap();
    drain(&mut tx);
    assert_eq!(
        tx.poll_timeout().map(Nanos::get),
        Some(100),
        "request timer"
    );
    for (k, wait) in [(0u64, 10u64), (1, 20), (2, 25)] {
        let now = 1_000 * (k + 1);
        tx.handle(
            Packet::Rsp {
                scid: id,
                status: RspStatus::Busy,
            },
            Nanos::new(now),
        )
        .unwrap();
        assert_eq!(tx.poll_timeout().map(Nanos::get), Some(now + wait));
        tx.handle_timeout(Nanos::new(now + wait));
        assert!(matches!(
            drain(&mut tx).as_slice(),
            [SendTransmit {
                packet: Packet::Req { .. },
                ..
            }]
        ));
    }
    assert_eq!(tx.stats().refusals, 3);
    assert_eq!(tx.stats().requests, 4);
}

#[test]
fn probes_after_silence_then_gives_up() {
    let (mut tx, id) = connected(3 * u64::from(MTU), 0);
    drain(&mut tx);
    assert_eq!(tx.poll_timeout().map(Nanos::get), Some(5 + 1_000));
    tx.handle_timeout(Nanos::new(1_005));
    assert_eq!(psns(&drain(&mut tx)), [0], "probe re-sends the oldest");
    tx.handle_timeout(Nanos::new(2_005));
    drain(&mut tx);
    tx.handle_timeout(Nanos::new(3_005));
    assert!(drain(&mut tx).is_empty());
    let evs: Vec<_> = std::iter::from_fn(|| tx.poll_event()).collect();
    assert!(evs.contains(&SendEvent::Failed { cid: id }));
    assert_eq!(tx.active(), 0);
}

#[test]
fn done_completes_once_and_later_packets_are_zombies() {
    let (mut tx, id) = connected(3 * u64::from(MTU), 0);
    drain(&mut tx);
    tx.handle(Packet::Done { scid: id }, Nanos::new(50))
        .unwrap();
    assert_eq!(tx.poll_event(), Some(SendEvent::Complete { cid: id }));
    assert_eq!(tx.active(), 0);
    tx.handle(Packet::Done { scid: id }, Nanos::new(51))
        .unwrap();
    tx.handle(
        Packet::Resend {
            scid: id,
            wbase: 0,
            psn: 0,
            more: 0,
        },
        Nanos::new(52),
    )
    .unwrap();
    assert!(tx.poll_event().is_none());
    assert!(tx.poll_transmit().is_none());
}

#[test]
fn bad_transfers_and_answers_get_their_precise_error() {
    let mut tx = Sender::new(1, cfg()).unwrap();
    assert_eq!(
        tx.start(transfer(0, 0), Nanos::new(0)),
        Err(Error::EmptyTransfer { len: 0, mtu: MTU })
    );
    tx.start(transfer(10, 0), Nanos::new(0)).unwrap();
    tx.start(transfer(10, 0), Nanos::new(0)).unwrap();
    assert_eq!(
        tx.start(transfer(10, 0), Nanos::new(0)),
        Err(Error::SenderFull { capacity: 2 })
    );
    let (mut tx, id) = connected(3 * u64::from(MTU), 10);
    assert_eq!(
        tx.handle(
            Packet::Ack {
                scid: id,
                wbase: 20
            },
            Nanos::new(9)
        ),
        Err(Error::PsnOutOfRange {
            cid: id,
            psn: 20,
            first: 10,
            packets: 3
        })
    );
    assert_eq!(
        Sender::new(1, cfg().with_window(0)).unwrap_err(),
        Error::Config {
            field: "window",
            reason: "must be 1 ..= MAX_WINDOW (4096)"
        }
    );
}

/// Regression: transfers whose probes run out at the same time all fail in one
/// `handle_timeout` (the old code failed only the last and left the others due).
#[test]
fn every_transfer_that_fails_in_one_call_is_freed() {
    let mut tx = Sender::new(1, cfg().with_capacity(6).with_max_probes(0)).unwrap();
    let ids: Vec<Cid> = (0..5)
        .map(|_| {
            tx.start(transfer(10 * u64::from(MTU), 0), Nanos::new(0))
                .unwrap()
        })
        .collect();
    let _ = drain(&mut tx);
    for (k, &id) in ids.iter().enumerate() {
        let dcid = Cid::new(u16::try_from(k).unwrap(), 0);
        tx.handle(
            Packet::Rsp {
                scid: id,
                status: RspStatus::Granted(dcid),
            },
            Nanos::new(0),
        )
        .unwrap();
    }
    let _ = drain(&mut tx);
    while tx.poll_event().is_some() {}
    let t = tx.poll_timeout().unwrap();
    tx.handle_timeout(t);
    let failed: Vec<Cid> = std::iter::from_fn(|| tx.poll_event())
        .map(|e| match e {
            SendEvent::Failed { cid } => cid,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(failed, ids);
    assert_eq!(tx.active(), 0);
    assert_eq!(tx.poll_timeout(), None);
}

/// Regression: transfers whose `RDMA_REQ` timers expire together are all asked
/// again in one call.
#[test]
fn every_unanswered_request_is_repeated_in_one_call() {
    let mut tx = Sender::new(1, cfg().with_capacity(4)).unwrap();
    for _ in 0..4 {
        tx.start(transfer(u64::from(MTU), 0), Nanos::new(0))
            .unwrap();
    }
    assert_eq!(drain(&mut tx).len(), 4);
    let t = tx.poll_timeout().unwrap();
    tx.handle_timeout(t);
    let again = drain(&mut tx);
    assert_eq!(again.len(), 4);
    assert!(again.iter().all(|s| matches!(s.packet, Packet::Req { .. })));
    assert!(tx.poll_timeout().unwrap() > t);
}

/// Drives `tx` alone until its transfer fails (or 20 simulated seconds pass), answering its
/// k-th `RDMA_REQ` (from 1) with `answer(k)` at once (`None`: no answer); returns the
/// requests sent and the time of the failure.
fn until_failed(
    tx: &mut Sender,
    mut answer: impl FnMut(u32) -> Option<RspStatus>,
) -> (u32, Option<u64>) {
    let mut requests = 0;
    let mut now = 0;
    for _ in 0..1_000_000 {
        for out in drain(tx) {
            if let Packet::Req { scid, .. } = out.packet {
                requests += 1;
                if let Some(status) = answer(requests) {
                    tx.handle(Packet::Rsp { scid, status }, Nanos::new(now))
                        .unwrap();
                }
            }
        }
        while let Some(e) = tx.poll_event() {
            if matches!(e, SendEvent::Failed { .. }) {
                return (requests, Some(now));
            }
        }
        let Some(t) = tx.poll_timeout() else {
            break;
        };
        now = t.get();
        if now > 20_000_000_000 {
            break;
        }
        tx.handle_timeout(t);
    }
    (requests, None)
}

const SILENT: fn(u32) -> Option<RspStatus> = |_| None;
const BUSY: fn(u32) -> Option<RspStatus> = |_| Some(RspStatus::Busy);

/// A request never answered (a dead node) ends in `Failed` after `max_requests` requests,
/// not after 250,001 in 10 simulated seconds.
#[test]
fn a_request_never_answered_fails_after_max_requests() {
    let mut tx = Sender::new(1, SenderConfig::default()).unwrap();
    tx.start(transfer(4000, 0), Nanos::new(0)).unwrap();
    let (requests, failed) = until_failed(&mut tx, SILENT);
    // 64 requests, 40 µs apart: the failure at the 64th timeout.
    assert_eq!((requests, failed), (64, Some(64 * 40_000)));
    assert_eq!(tx.active(), 0);
    assert_eq!(tx.poll_timeout(), None);
}

/// A busy receiver is alive: its answers do not spend the request count that detects a
/// dead one (the old sender failed this transfer after 10 requests, at 4.27 ms). It is
/// waited for, backing off, until `busy_deadline`.
#[test]
fn a_busy_receiver_is_waited_for_until_the_busy_deadline() {
    let cfg = SenderConfig::default()
        .with_max_requests(1)
        .with_busy_deadline(Nanos::from_millis(5));
    let mut tx = Sender::new(1, cfg).unwrap();
    tx.start(transfer(4000, 0), Nanos::new(0)).unwrap();
    let (requests, failed) = until_failed(&mut tx, BUSY);
    // One back-off per refusal: 10, 20, 40, ..., 640 µs (1.27 ms in all), then 1 ms steps at
    // the cap: the first request due at or past 5 ms is at 5.27 ms, after 11 requests.
    assert_eq!((requests, failed), (11, Some(5_270_000)));
    assert_eq!((tx.stats().refusals, tx.stats().requests), (11, 11));
    // The default waits 10 s: 1.27 ms of doubling, then one request a millisecond.
    let mut tx = Sender::new(1, SenderConfig::default()).unwrap();
    assert_eq!(tx.config().busy_deadline, Nanos::from_secs(10));
    tx.start(transfer(4000, 0), Nanos::new(0)).unwrap();
    let (requests, failed) = until_failed(&mut tx, BUSY);
    assert_eq!((requests, failed), (8 + 9_998, Some(10_000_270_000)));
}

/// With the count out of the way the deadline bounds a silent receiver's wait; busy answers
/// do not run it down.
#[test]
fn a_request_not_answered_by_the_deadline_fails() {
    let cfg = SenderConfig::default()
        .with_max_requests(u32::MAX)
        .with_request_deadline(Nanos::from_millis(5));
    let mut dead = Sender::new(1, cfg).unwrap();
    dead.start(transfer(4000, 1), Nanos::new(0)).unwrap();
    let (requests, failed) = until_failed(&mut dead, SILENT);
    assert_eq!((requests, failed), (125, Some(5_000_000)));
    let mut busy = Sender::new(1, cfg.with_busy_deadline(Nanos::from_millis(50))).unwrap();
    busy.start(transfer(4000, 1), Nanos::new(0)).unwrap();
    let (_, failed) = until_failed(&mut busy, BUSY);
    // 50 ms, not 5: 1.27 ms of doubling, then 1 ms steps to 50.27 ms.
    assert_eq!(failed, Some(50_270_000));
}

/// A receiver that answers busy and then dies: the count and the deadline of a silent
/// receiver start at its last answer, so the transfer fails that long after it.
#[test]
fn a_receiver_that_dies_while_busy_fails_by_its_silence_bounds() {
    let mut tx = Sender::new(1, SenderConfig::default()).unwrap();
    tx.start(transfer(4000, 0), Nanos::new(0)).unwrap();
    let (requests, failed) = until_failed(&mut tx, |k| (k <= 20).then_some(RspStatus::Busy));
    // 20 busy answers: the 8th at 1.27 ms, the 20th 12 × 1 ms later at 13.27 ms; then 64
    // requests without an answer, the first 1 ms later, 40 µs apart.
    assert_eq!(requests, 20 + 64);
    assert_eq!(failed, Some(13_270_000 + 1_000_000 + 64 * 40_000));
    // The same with the count lifted: the 100 ms deadline from the last answer.
    let cfg = SenderConfig::default().with_max_requests(u32::MAX);
    let mut tx = Sender::new(1, cfg).unwrap();
    tx.start(transfer(4000, 0), Nanos::new(0)).unwrap();
    let (_, failed) = until_failed(&mut tx, |k| (k <= 20).then_some(RspStatus::Busy));
    assert_eq!(failed, Some(13_270_000 + 100_000_000));
}

/// Regression: the sender refuses to start a transfer whose source or destination
/// range wraps past 2^64.
#[test]
fn a_range_past_2_64_is_not_started() {
    let mut tx = Sender::new(1, cfg()).unwrap();
    let len = 3 * u64::from(MTU);
    let t = Transfer::new(4, Bytes::new(len), MTU);
    let wraps = u64::MAX - len + 2;
    assert_eq!(
        tx.start(t.with_dst_addr(wraps), Nanos::new(0)),
        Err(Error::AddressWrap {
            side: "destination",
            addr: wraps,
            len
        })
    );
    assert_eq!(
        tx.start(t.with_src_addr(wraps), Nanos::new(0)),
        Err(Error::AddressWrap {
            side: "source",
            addr: wraps,
            len
        })
    );
    assert_eq!((tx.active(), tx.poll_transmit()), (0, None));
    assert!(tx.start(t.with_dst_addr(wraps - 1), Nanos::new(0)).is_ok());
}
