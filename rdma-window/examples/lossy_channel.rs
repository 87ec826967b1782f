//! A `Sender` and a `Receiver` moving a 1 MiB buffer over an in-memory channel that loses,
//! delays and reorders packets, driven by their timers; the destination buffer is checked
//! against the source at the end.
//!
//! ```text
//! cargo run -p rdma-window --example lossy_channel
//! ```
//!
//! Packets travel as checked frames (`Sender::encode` / `Receiver::decode` and back, with
//! the end-to-end CRC32C on in both configurations) with the payload read from the source
//! buffer where the sender says, and written where the receiver's verdict says. The channel
//! serialises one packet at a time at 100 Gb/s in each direction, adds a one-way latency of
//! 2 µs plus up to 1 µs of jitter (which reorders packets), drops 2 % of the packets in each
//! direction, control packets included, and flips one bit of 1 % of the frames it delivers:
//! those fail the check, are dropped, and are repaired like the lost ones. Both receiver
//! modes run on the same channel.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fabric_model::rng::SplitMix64;
use fabric_model::{BitsPerSec, Bytes, Nanos};
use rdma_window::{
    DataVerdict, Mode, Packet, Receiver, ReceiverConfig, RecvEvent, SendEvent, Sender,
    SenderConfig, Transfer,
};

const SENDER_NODE: u32 = 1;
const RECEIVER_NODE: u32 = 2;
const LEN: usize = 1 << 20;
const MTU: u32 = 4096;
const LOSS: f64 = 0.02;
const LATENCY: Nanos = Nanos::from_micros(2);
const JITTER_NS: u64 = 1_000;
const CORRUPTION: f64 = 0.01;

/// One direction of the channel: a serialiser at the link rate, then latency, jitter and loss.
struct Direction {
    rate: BitsPerSec,
    /// When the serialiser is free again.
    free_at: Nanos,
    /// Frames in flight, by arrival time (then by send order, so that equal times keep it).
    in_flight: BinaryHeap<Reverse<(Nanos, u64, Vec<u8>)>>,
    sent: u64,
    dropped: u64,
    rng: SplitMix64,
}

impl Direction {
    fn new(rate: BitsPerSec, seed: u64) -> Self {
        Self {
            rate,
            free_at: Nanos::ZERO,
            in_flight: BinaryHeap::new(),
            sent: 0,
            dropped: 0,
            rng: SplitMix64::new(seed),
        }
    }

    fn idle(&self, now: Nanos) -> bool {
        self.free_at <= now
    }

    /// Puts a frame on the wire at `now`: it is lost, or arrives after its serialisation,
    /// the latency and a jitter.
    fn send(&mut self, frame: Vec<u8>, now: Nanos) {
        let wire = Bytes::new(frame.len() as u64);
        let ser = self.rate.transfer_time(wire).unwrap_or(Nanos::new(1));
        self.free_at = now.saturating_add(ser);
        self.sent += 1;
        if self.rng.next_f64() < LOSS {
            self.dropped += 1;
            return;
        }
        let mut frame = frame;
        if self.rng.next_f64() < CORRUPTION {
            let bit = self.rng.below(frame.len() as u64 * 8);
            frame[(bit / 8) as usize] ^= 1 << (bit % 8);
        }
        let jitter = Nanos::new(self.rng.below(JITTER_NS + 1));
        let at = self.free_at.saturating_add(LATENCY).saturating_add(jitter);
        self.in_flight.push(Reverse((at, self.sent, frame)));
    }

    /// The next frame that has arrived by `now`.
    fn arrived(&mut self, now: Nanos) -> Option<Vec<u8>> {
        if self.in_flight.peek()?.0.0 > now {
            return None;
        }
        self.in_flight.pop().map(|Reverse((_, _, frame))| frame)
    }

    /// The earliest time something happens on this direction after `now`.
    fn next_event(&self, now: Nanos) -> Option<Nanos> {
        let arrival = self.in_flight.peek().map(|f| f.0.0);
        let free = (self.free_at > now).then_some(self.free_at);
        arrival.into_iter().chain(free).min()
    }
}

/// A packet's checked frame: header, payload for data, CRC32C.
fn frame(packet: &Packet, payload: &[u8]) -> Result<Vec<u8>, rdma_window::Error> {
    let mut f = vec![0u8; packet.frame_len(payload.len(), true)];
    packet.encode_frame(payload, true, &mut f)?;
    Ok(f)
}

/// What one run measured.
struct Outcome {
    completed_at: Nanos,
    data_sent: u64,
    retransmits: u64,
    frames: [u64; 2],
    dropped: [u64; 2],
    corrupted: u64,
    intact: bool,
}

fn run(mode: Mode, source: &[u8]) -> Result<Outcome, Box<dyn std::error::Error>> {
    let jitter = Nanos::new(JITTER_NS);
    let mut tx = Sender::new(SENDER_NODE, SenderConfig::default().with_checksum(true))?;
    let mut rx: Receiver = Receiver::new(
        ReceiverConfig::default()
            .with_mode(mode)
            .with_reorder_tolerance(jitter)
            .with_checksum(true),
    )?;
    let mut refused = 0u64;
    let rate = BitsPerSec::from_gbps(100);
    let (mut forward, mut back) = (Direction::new(rate, 7), Direction::new(rate, 8));
    let mut dest = vec![0u8; source.len()];
    let transfer = Transfer::new(RECEIVER_NODE, Bytes::new(source.len() as u64), MTU);
    let id = tx.start(transfer, Nanos::ZERO)?;
    let mut now = Nanos::ZERO;
    let completed_at = loop {
        // Timers that have expired.
        if tx.poll_timeout().is_some_and(|t| t <= now) {
            tx.handle_timeout(now);
        }
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
        // Arrivals at the receiver: data straight to the fast path, the rest to `handle`.
        while let Some(f) = forward.arrived(now) {
            // A corrupted frame fails the check: dropped, like a lost one.
            let Ok((packet, payload)) = rx.decode(&f) else {
                refused += 1;
                continue;
            };
            if let Packet::Data { dcid, psn, len } = packet {
                if let DataVerdict::Write { addr, len, .. } = rx.handle_data(dcid, psn, len, now)? {
                    let at = usize::try_from(addr)?;
                    let n = usize::try_from(len)?;
                    let to = dest.get_mut(at..at + n).ok_or("write outside the buffer")?;
                    to.copy_from_slice(payload.get(..n).ok_or("short payload")?);
                }
            } else {
                rx.handle(packet, now)?;
            }
        }
        while let Some(f) = back.arrived(now) {
            let Ok((packet, _)) = tx.decode(&f) else {
                refused += 1;
                continue;
            };
            tx.handle(packet, now)?;
        }
        while let Some(ev) = rx.poll_event() {
            if let RecvEvent::Aborted { cid } = ev {
                return Err(format!("the receiver gave context {cid} up").into());
            }
        }
        let mut done = None;
        while let Some(ev) = tx.poll_event() {
            match ev {
                SendEvent::Complete { cid } if cid == id => done = Some(now),
                SendEvent::Failed { cid } => return Err(format!("transfer {cid} failed").into()),
                _ => {}
            }
        }
        if let Some(t) = done {
            break t;
        }
        // Each idle direction takes one packet.
        if forward.idle(now)
            && let Some(out) = tx.poll_transmit()
        {
            let payload = match out.source {
                Some((addr, len)) => {
                    let at = usize::try_from(addr)?;
                    let n = usize::try_from(len)?;
                    source.get(at..at + n).ok_or("read outside the buffer")?
                }
                None => &[][..],
            };
            forward.send(frame(&out.packet, payload)?, now);
        }
        if back.idle(now)
            && let Some(out) = rx.poll_transmit()
        {
            back.send(frame(&out.packet, &[])?, now);
        }
        // On to the next thing that happens: an arrival, a free link, a timer.
        let next = [
            forward.next_event(now),
            back.next_event(now),
            tx.poll_timeout(),
            rx.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.max(now.saturating_add(Nanos::new(1))))
        .min()
        .ok_or("nothing left to happen before completion")?;
        now = next;
    };
    let st = tx.stats();
    Ok(Outcome {
        completed_at,
        data_sent: st.data_sent,
        retransmits: st.retransmits,
        frames: [forward.sent, back.sent],
        dropped: [forward.dropped, back.dropped],
        corrupted: refused,
        intact: dest == source,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut pattern = SplitMix64::new(42);
    let source: Vec<u8> = (0..LEN)
        .map(|_| pattern.next_u64().to_le_bytes()[0])
        .collect();
    let packets = LEN.div_ceil(MTU as usize);
    println!(
        "moving {} ({packets} packets of {MTU} B) at 100 Gb/s, one way {LATENCY} + up to {JITTER_NS} ns jitter, {:.0} % loss each way, {:.0} % of frames with a bit flipped",
        Bytes::new(LEN as u64),
        LOSS * 100.0,
        CORRUPTION * 100.0
    );
    for mode in [Mode::Paper, Mode::Improved] {
        let o = run(mode, &source)?;
        println!(
            "{mode:?}: complete at {:.1} us; data packets sent {} ({} retransmissions); frames {} forward ({} lost), {} back ({} lost), {} failed the CRC; buffer {}",
            o.completed_at.as_f64() / 1e3,
            o.data_sent,
            o.retransmits,
            o.frames[0],
            o.dropped[0],
            o.frames[1],
            o.dropped[1],
            o.corrupted,
            if o.intact { "intact" } else { "CORRUPTED" }
        );
        if !o.intact {
            return Err("the destination buffer differs from the source".into());
        }
    }
    Ok(())
}
