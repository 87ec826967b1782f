//! A busy peer is not a dead one, end to end: the crate's `Sender` and `Receiver` joined by a
//! channel model written apart from the crate's simulator (its own loss, duplication,
//! reordering and bit flips, each frame checked by the end-to-end CRC32C, payloads really
//! copied and compared at the end).
//!
//! - A receiver with room for one transfer, two transfers offered at once over a link that
//!   loses 30 % of the frames each way: the second transfer is answered "busy" for as long
//!   as the first one takes to recover, and must still complete.
//! - A receiver whose only context is held for many times the old request budget, then
//!   freed: the waiting transfer completes.
//! - A receiver that never answers, or stops answering after saying "busy": the transfer
//!   fails by its deadline.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fabric_model::rng::SplitMix64;
use fabric_model::{BitsPerSec, Bytes, Nanos};
use proptest::prelude::*;
use rdma_window::packet::RspStatus;
use rdma_window::{
    Cid, DataVerdict, Mode, Packet, Receiver, ReceiverConfig, RecvEvent, SendEvent, Sender,
    SenderConfig, Transfer,
};

const SENDER: u32 = 1;
const RECEIVER: u32 = 2;
/// A third node whose transfer holds the receiver's context (the long-busy receiver).
const HOG: u32 = 9;
const MTU: u32 = 4096;

/// What the channel does to frames, in each direction.
#[derive(Debug, Clone, Copy)]
struct Channel {
    rate: BitsPerSec,
    latency: Nanos,
    /// Extra delay drawn uniformly from `0 ..= jitter` per frame: it reorders them.
    jitter: Nanos,
    loss: f64,
    duplication: f64,
    /// Probability that a delivered frame has one bit flipped.
    corruption: f64,
}

impl Channel {
    /// The reviewer's hostile link: 30 % loss each way, control frames included, 5 %
    /// duplicated, up to 2 µs of jitter (reordering), 2 % of frames with a bit flipped.
    const HOSTILE: Self = Self {
        rate: BitsPerSec::from_gbps(100),
        latency: Nanos::from_micros(2),
        jitter: Nanos::from_micros(2),
        loss: 0.3,
        duplication: 0.05,
        corruption: 0.02,
    };

    const CLEAN: Self = Self {
        loss: 0.0,
        duplication: 0.0,
        corruption: 0.0,
        jitter: Nanos::ZERO,
        ..Self::HOSTILE
    };
}

/// One direction: a serialiser at the link rate, then latency, jitter, loss, duplication
/// and bit flips, from its own generator.
struct Direction {
    ch: Channel,
    free_at: Nanos,
    in_flight: BinaryHeap<Reverse<(Nanos, u64, Vec<u8>)>>,
    seq: u64,
    rng: SplitMix64,
}

impl Direction {
    fn new(ch: Channel, seed: u64) -> Self {
        Self {
            ch,
            free_at: Nanos::ZERO,
            in_flight: BinaryHeap::new(),
            seq: 0,
            rng: SplitMix64::new(seed),
        }
    }

    fn idle(&self, now: Nanos) -> bool {
        self.free_at <= now
    }

    fn send(&mut self, frame: Vec<u8>, now: Nanos) {
        let ser = self
            .ch
            .rate
            .transfer_time(Bytes::new(frame.len() as u64))
            .unwrap_or(Nanos::new(1));
        self.free_at = now + ser;
        if self.rng.next_f64() < self.ch.loss {
            return;
        }
        let copies = if self.rng.next_f64() < self.ch.duplication {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let mut f = frame.clone();
            if self.rng.next_f64() < self.ch.corruption {
                let bit = self.rng.below(f.len() as u64 * 8);
                f[usize::try_from(bit / 8).unwrap()] ^= 1 << (bit % 8);
            }
            let jitter = Nanos::new(self.rng.below(self.ch.jitter.get() + 1));
            self.seq += 1;
            let at = self.free_at + self.ch.latency + jitter;
            self.in_flight.push(Reverse((at, self.seq, f)));
        }
    }

    fn arrived(&mut self, now: Nanos) -> Option<Vec<u8>> {
        if self.in_flight.peek()?.0.0 > now {
            return None;
        }
        self.in_flight.pop().map(|Reverse((_, _, f))| f)
    }

    fn next_event(&self, now: Nanos) -> Option<Nanos> {
        let arrival = self.in_flight.peek().map(|f| f.0.0);
        let free = (self.free_at > now).then_some(self.free_at);
        arrival.into_iter().chain(free).min()
    }
}

/// How one transfer ended at its sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Complete(Nanos),
    Failed(Nanos),
    /// Still going when the run stopped.
    Open,
}

/// A run: the transfers offered at time 0 from one sender to a receiver with `contexts`
/// contexts.
#[derive(Debug, Clone)]
struct Run {
    seed: u64,
    channel: Channel,
    lens: Vec<u64>,
    contexts: usize,
    mode: Mode,
    sender: SenderConfig,
    receiver: ReceiverConfig,
    /// The receiver's only context is held by a transfer of node `HOG` (which sends nothing)
    /// until this time, when all its packets arrive at once: a long-busy receiver.
    hog_until: Option<Nanos>,
    /// From this time on the receiver hears nothing (a dead peer).
    dead_from: Option<Nanos>,
    limit: Nanos,
}

impl Run {
    fn hostile(seed: u64, lens: Vec<u64>, mode: Mode) -> Self {
        Self {
            seed,
            channel: Channel::HOSTILE,
            lens,
            contexts: 1,
            mode,
            sender: SenderConfig::default().with_checksum(true),
            receiver: ReceiverConfig::default().with_checksum(true),
            hog_until: None,
            dead_from: None,
            limit: Nanos::from_secs(20),
        }
    }
}

#[derive(Debug)]
struct Outcome {
    ends: Vec<End>,
    /// Every completed transfer's destination holds exactly its source bytes.
    intact: bool,
    /// Requests, refusals (busy answers) the sender counted.
    requests: u64,
    refusals: u64,
    /// Frames that passed the CRC and were still refused by an endpoint (a bug if any).
    errors: Vec<String>,
}

fn frame(p: &Packet, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; p.frame_len(payload.len(), true)];
    p.encode_frame(payload, true, &mut f).unwrap();
    f
}

/// Byte `i` of transfer `t`'s source.
fn pattern(t: usize, i: u64) -> u8 {
    fabric_model::rng::mix((t as u64) << 40 ^ i).to_le_bytes()[0]
}

/// Destination address of transfer `t` (and of the hog at `HOG_ADDR`).
const SPACING: u64 = 1 << 32;
const HOG_ADDR: u64 = 0xF000_0000_0000;

fn run(r: &Run) -> Outcome {
    let mut tx = Sender::new(SENDER, r.sender).unwrap();
    let mut rx: Receiver = Receiver::new(
        r.receiver
            .with_capacity(r.contexts)
            .with_mode(r.mode)
            .with_reorder_tolerance(r.channel.jitter),
    )
    .unwrap();
    let mut fwd = Direction::new(r.channel, r.seed.wrapping_mul(2));
    let mut back = Direction::new(r.channel, r.seed.wrapping_mul(2) + 1);
    let mut dest: Vec<Vec<u8>> = r
        .lens
        .iter()
        .map(|&l| vec![0; usize::try_from(l).unwrap()])
        .collect();
    let ids: Vec<Cid> = r
        .lens
        .iter()
        .enumerate()
        .map(|(t, &l)| {
            let tr = Transfer::new(RECEIVER, Bytes::new(l), MTU)
                .with_src_addr(t as u64 * SPACING)
                .with_dst_addr(t as u64 * SPACING)
                .with_first_psn(u32::try_from(t).unwrap() * 1_000_003);
            tx.start(tr, Nanos::ZERO).unwrap()
        })
        .collect();
    let mut ends = vec![End::Open; r.lens.len()];
    let mut errors = Vec::new();
    // The hog takes the receiver's one context first.
    let hog_scid = Cid::new(0, 0);
    let mut hog: Option<Cid> = None;
    if r.hog_until.is_some() {
        rx.handle(
            Packet::Req {
                scid: hog_scid,
                src_node: HOG,
                dst_addr: HOG_ADDR,
                len: 4 * u64::from(MTU),
                mtu: MTU,
                first_psn: 0,
            },
            Nanos::ZERO,
        )
        .unwrap();
        while let Some(out) = rx.poll_transmit() {
            if let Packet::Rsp {
                status: RspStatus::Granted(c),
                ..
            } = out.packet
            {
                hog = Some(c);
            }
        }
        assert!(hog.is_some(), "the hog got the context");
    }
    let mut now = Nanos::ZERO;
    while now <= r.limit {
        if let (Some(t), Some(c)) = (r.hog_until, hog)
            && now >= t
        {
            for psn in 0..4 {
                let v = rx.handle_data(c, psn, MTU, now);
                assert!(matches!(v, Ok(DataVerdict::Write { .. })), "{v:?}");
            }
            hog = None;
        }
        if tx.poll_timeout().is_some_and(|t| t <= now) {
            tx.handle_timeout(now);
        }
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
        let dead = r.dead_from.is_some_and(|d| now >= d);
        while let Some(f) = fwd.arrived(now) {
            if dead {
                continue;
            }
            let Ok((p, payload)) = rx.decode(&f) else {
                continue; // a flipped bit: dropped like a lost frame
            };
            if let Packet::Data { dcid, psn, len } = p {
                match rx.handle_data(dcid, psn, len, now) {
                    Ok(DataVerdict::Write { addr, len, .. }) => {
                        let t = usize::try_from(addr / SPACING).unwrap();
                        let at = usize::try_from(addr % SPACING).unwrap();
                        let n = usize::try_from(len).unwrap();
                        dest[t][at..at + n].copy_from_slice(&payload[..n]);
                    }
                    Ok(_) => {}
                    Err(e) => errors.push(format!("receiver: {e}")),
                }
            } else if let Err(e) = rx.handle(p, now) {
                errors.push(format!("receiver: {e}"));
            }
        }
        while let Some(f) = back.arrived(now) {
            let Ok((p, _)) = tx.decode(&f) else {
                continue;
            };
            if let Err(e) = tx.handle(p, now) {
                errors.push(format!("sender: {e}"));
            }
        }
        while let Some(e) = rx.poll_event() {
            if let RecvEvent::Aborted { cid } = e
                && Some(cid) != hog
            {
                errors.push(format!("receiver gave context {cid} up"));
            }
        }
        while let Some(e) = tx.poll_event() {
            match e {
                SendEvent::Complete { cid } => {
                    let t = ids.iter().position(|&i| i == cid).unwrap();
                    ends[t] = End::Complete(now);
                }
                SendEvent::Failed { cid } => {
                    let t = ids.iter().position(|&i| i == cid).unwrap();
                    ends[t] = End::Failed(now);
                }
                SendEvent::Connected { .. } | SendEvent::Reread { .. } => {}
            }
        }
        if ends.iter().all(|e| *e != End::Open) {
            break;
        }
        if fwd.idle(now)
            && let Some(out) = tx.poll_transmit()
        {
            let payload: Vec<u8> = out.source.map_or_else(Vec::new, |(addr, len)| {
                let t = usize::try_from(addr / SPACING).unwrap();
                (addr % SPACING..addr % SPACING + u64::from(len))
                    .map(|i| pattern(t, i))
                    .collect()
            });
            fwd.send(frame(&out.packet, &payload), now);
        }
        // The receiver's packets to the hog, or sent while it is dead, go nowhere.
        if back.idle(now)
            && let Some(out) = rx.poll_transmit()
            && out.to == SENDER
            && !dead
        {
            back.send(frame(&out.packet, &[]), now);
        }
        let next = [
            fwd.next_event(now),
            back.next_event(now),
            tx.poll_timeout(),
            rx.poll_timeout(),
            r.hog_until.filter(|_| hog.is_some()),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.max(now + Nanos::new(1)))
        .min();
        let Some(next) = next else { break };
        now = next;
    }
    let intact = ends.iter().enumerate().all(|(t, e)| {
        !matches!(e, End::Complete(_))
            || dest[t]
                .iter()
                .enumerate()
                .all(|(i, &b)| b == pattern(t, i as u64))
    });
    let st = tx.stats();
    Outcome {
        ends,
        intact,
        requests: st.requests,
        refusals: st.refusals,
        errors,
    }
}

/// The reviewer's failing case, found again by this harness's sweeps: the waiting transfer
/// was answered busy while the first recovered from 30 % loss, spent its 64 requests and
/// failed, though the receiver was alive and no byte was wrong. Seed 571 (from the sweep
/// below, 272 of 600 seeds failing, in 9.4 to 36.4 ms) failed at 22.9 ms; seed 958 (from
/// a sweep of 1,501 runs with transfers up to 4 MiB in both modes by turns, the one
/// failure, as the reviewer saw 3 in 1,501) at 15.2 ms. Busy answers no longer spend that
/// count.
#[test]
fn a_transfer_waiting_behind_a_recovering_one_completes() {
    for (seed, lens) in [(571, [572_009, 6_623_206]), (958, [3_030_512, 3_769_997])] {
        let o = run(&Run::hostile(seed, lens.to_vec(), Mode::Paper));
        assert!(o.errors.is_empty(), "seed {seed}: {o:?}");
        assert!(
            o.ends.iter().all(|e| matches!(e, End::Complete(_))),
            "seed {seed}: {o:?}"
        );
        assert!(o.intact, "seed {seed}: {o:?}");
        // Its requests went past the old budget of 64.
        assert!(o.refusals > 15 && o.requests > 64, "seed {seed}: {o:?}");
    }
}

/// The receiver's only context is held by another node's slow transfer for 600 ms, ten
/// times the 57 ms the old request budget lasted against busy answers: the waiting transfer
/// backs off (to one request a millisecond), and completes once the context is free.
#[test]
fn a_long_busy_receiver_is_waited_for_and_the_transfer_completes() {
    for mode in [Mode::Paper, Mode::Improved] {
        let hold = Nanos::from_millis(600);
        let mut r = Run::hostile(7, vec![300_000], mode);
        r.hog_until = Some(hold);
        r.receiver = r.receiver.with_max_idle_timeouts(u32::MAX);
        let o = run(&r);
        assert!(o.errors.is_empty(), "{mode:?}: {o:?}");
        let [End::Complete(at)] = o.ends[..] else {
            panic!("{mode:?}: {o:?}");
        };
        assert!(at > hold && o.intact, "{mode:?}: {o:?}");
        // About one busy answer a millisecond after the back-off's cap, 30 % lost each way.
        assert!(o.refusals > 200, "{mode:?}: {o:?}");
        // Not a request more than the back-off allows: at most one per millisecond after
        // the first 1.27 ms, and the requests whose answer was lost.
        assert!(o.requests < 2 * 600 + 64, "{mode:?}: {o:?}");
    }
}

/// A dead receiver still fails the transfer by the silence bounds: 64 unanswered requests
/// (2.56 ms with the defaults), or 100 ms with the count lifted, over a clean or a hostile
/// link.
#[test]
fn a_dead_receiver_fails_the_transfer_by_its_deadline() {
    for channel in [Channel::CLEAN, Channel::HOSTILE] {
        let mut r = Run::hostile(3, vec![100_000], Mode::Paper);
        r.channel = channel;
        r.dead_from = Some(Nanos::ZERO);
        let o = run(&r);
        assert_eq!(o.ends, [End::Failed(Nanos::new(64 * 40_000))], "{o:?}");
        assert_eq!((o.requests, o.refusals), (64, 0));
        r.sender = r.sender.with_max_requests(u32::MAX);
        let o = run(&r);
        assert_eq!(o.ends, [End::Failed(Nanos::from_millis(100))], "{o:?}");
    }
}

/// A receiver that is busy and then dies: the transfer fails within the silence bounds of
/// the last busy answer, not at the 10 s a busy receiver is waited for.
#[test]
fn a_receiver_that_dies_while_busy_fails_the_transfer_soon_after() {
    let death = Nanos::from_millis(50);
    for channel in [Channel::CLEAN, Channel::HOSTILE] {
        let mut r = Run::hostile(11, vec![100_000], Mode::Paper);
        r.channel = channel;
        r.hog_until = Some(Nanos::from_secs(1));
        r.receiver = r.receiver.with_max_idle_timeouts(u32::MAX);
        r.dead_from = Some(death);
        let o = run(&r);
        let [End::Failed(at)] = o.ends[..] else {
            panic!("{o:?}");
        };
        // The last answer came before the death; then at most a 1 ms back-off and 64
        // requests 40 µs apart.
        let bound = death + Nanos::from_millis(1) + Nanos::new(64 * 40_000);
        assert!(
            at > death && at <= bound,
            "failed at {at}, after {bound}: {o:?}"
        );
        assert!(o.refusals > 20, "{o:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Whatever the seed: with room for one transfer at the receiver and two offered at
    /// once over the hostile link (30 % loss, duplication, reordering, bit flips), and,
    /// at times, the receiver's one context held by another node for up to 300 ms, every
    /// transfer completes intact. Before busy answers stopped spending the request budget,
    /// about half of such runs in paper mode failed a transfer.
    #[test]
    fn every_transfer_completes_behind_a_busy_receiver(
        seed in any::<u64>(),
        a in 1..12_000_000u64,
        b in 1..12_000_000u64,
        paper in any::<bool>(),
        hold_ms in prop_oneof![Just(0u64), 1..300u64],
    ) {
        let mode = if paper { Mode::Paper } else { Mode::Improved };
        let mut r = Run::hostile(seed, vec![a, b], mode);
        if hold_ms > 0 {
            r.hog_until = Some(Nanos::from_millis(hold_ms));
            r.receiver = r.receiver.with_max_idle_timeouts(u32::MAX);
        }
        let o = run(&r);
        prop_assert!(o.errors.is_empty(), "{:?}", o);
        prop_assert!(o.ends.iter().all(|e| matches!(e, End::Complete(_))), "{:?}", o);
        prop_assert!(o.intact, "{:?}", o);
    }
}

/// The sweep that found the case above, at full size: 600 seeds (or `SWEEP`), two
/// transfers of up to 12 MiB (or `MAXLEN`) each, paper mode (`MODE` 0; 1 improved, 2 both
/// by turns); prints each failing seed. Before the fix 272 of 600 failed; now none may.
/// About 75 s: `cargo test -p rdma-window --test busy_peer -- --ignored --nocapture`.
#[test]
#[ignore = "long: 600 runs of up to 90 simulated ms"]
fn sweep() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let (n, max_len, mode) = (env("SWEEP", 600), env("MAXLEN", 12 << 20), env("MODE", 0));
    let (mut failed, mut worst) = (0, Nanos::ZERO);
    for seed in 0..n {
        let mut g = SplitMix64::new(seed ^ 0xB5);
        let lens = vec![1 + g.below(max_len), 1 + g.below(max_len)];
        let mode = match (mode, seed % 2) {
            (0, _) | (2, 0) => Mode::Paper,
            _ => Mode::Improved,
        };
        let o = run(&Run::hostile(seed, lens.clone(), mode));
        for e in &o.ends {
            if let End::Complete(t) = e {
                worst = worst.max(*t);
            }
        }
        let bad = o.ends.iter().any(|e| !matches!(e, End::Complete(_)));
        if bad || !o.intact || !o.errors.is_empty() {
            failed += 1;
            println!(
                "seed {seed} {mode:?} {lens:?}: {:?} intact {} requests {} refusals {} {:?}",
                o.ends, o.intact, o.requests, o.refusals, o.errors
            );
        }
    }
    println!("{failed} of {n} failed; latest completion {worst}");
    assert_eq!(failed, 0, "{failed} of {n} runs failed");
}
