//! The methods the paper's is compared with, as simulator-only models on the same link and
//! the same packet fates:
//!
//! - **go-back-N**, InfiniBand RC as Linux rxe does it: the receiver takes only the expected
//!   packet, NAKs the first gap once (`sent_psn_nak`), re-ACKs duplicates; the sender rewinds
//!   to the NAKed packet, or to the oldest unacknowledged one when its timer expires;
//! - **IRN-style selective repeat** (Mittal et al., SIGCOMM 2018): the receiver keeps a bitmap
//!   and answers every out-of-order arrival with a NACK carrying the cumulative ACK and the
//!   packet that arrived; the sender re-sends every unacknowledged packet below the highest
//!   selectively acknowledged one, each at most once per round trip, and re-sends the oldest
//!   on a timeout;
//! - **whole-transfer retransmission**, the paper's "traditional" method: any loss restarts
//!   the whole transfer once a timeout after its last packet passes.
//!
//! All start sending one round trip (plus the mean jitter of its two ways) after time 0, as if
//! they had set up a connection as the paper's method does with `RDMA_REQ`/`RDMA_RSP`.

use std::collections::VecDeque;

use fabric_model::Nanos;

use super::engine::{Node, Wire};
use super::{Report, SimConfig, Tally};

#[derive(Debug, Clone, Copy)]
pub(crate) enum BPkt {
    Data { t: u32, i: u32, round: u32 },
    Ack { t: u32, cum: u32 },
    Nack { t: u32, cum: u32, sack: u32 },
    Done { t: u32, round: u32 },
}

const HDR: u32 = 14;
const CTL: u32 = 14;

/// Which baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    GoBackN,
    Irn,
    Whole,
}

struct TxFlow {
    n: u32,
    last_len: u32,
    acked: u32,
    next: u32,
    hi_sent: u32,
    last_progress: u64,
    // IRN
    sacked: Vec<bool>,
    hi_sack: u32,
    last_tx: Vec<u64>,
    queued: Vec<bool>,
    retx: VecDeque<u32>,
    // whole-transfer
    round: u32,
    round_end: Option<u64>,
    done_at: Option<u64>,
}

pub(crate) struct Tx {
    kind: Kind,
    flows: Vec<TxFlow>,
    window: u32,
    mtu: u32,
    start_at: u64,
    rto: u64,
    rtt: u64,
    round_wait: u64,
    max_rounds: u32,
    cursor: usize,
    data_sent: u64,
    retransmits: u64,
    timeouts: u64,
    gave_up: bool,
}

struct RxFlow {
    n: u32,
    base: u32,
    got: Vec<bool>,
    nak_sent: bool,
    round: u32,
    count: u32,
}

pub(crate) struct Rx {
    kind: Kind,
    flows: Vec<RxFlow>,
    window: u32,
    out: VecDeque<BPkt>,
    requests: u64,
    tally: Tally,
}

impl Node for Tx {
    type Pkt = BPkt;

    fn handle(&mut self, pkt: BPkt, now: u64) {
        match pkt {
            BPkt::Ack { t, cum } | BPkt::Nack { t, cum, .. } => {
                let rtt = self.rtt;
                let f = &mut self.flows[t as usize];
                if cum > f.acked {
                    f.acked = cum;
                    f.last_progress = now;
                    if f.next < f.acked {
                        f.next = f.acked;
                    }
                }
                if f.acked == f.n && f.done_at.is_none() {
                    f.done_at = Some(now);
                }
                if let BPkt::Nack { cum, sack, .. } = pkt {
                    match self.kind {
                        Kind::GoBackN => {
                            // Rewind to the NAKed packet.
                            if cum < f.next {
                                f.next = cum;
                            }
                        }
                        Kind::Irn => {
                            if let Some(s) = f.sacked.get_mut(sack as usize) {
                                *s = true;
                            }
                            f.hi_sack = f.hi_sack.max(sack);
                            for q in f.acked..f.hi_sack {
                                let qi = q as usize;
                                if !f.sacked[qi]
                                    && !f.queued[qi]
                                    && q < f.hi_sent
                                    && now.saturating_sub(f.last_tx[qi]) > rtt
                                {
                                    f.queued[qi] = true;
                                    f.retx.push_back(q);
                                }
                            }
                        }
                        Kind::Whole => {}
                    }
                }
            }
            BPkt::Done { t, round } => {
                let f = &mut self.flows[t as usize];
                if round == f.round && f.done_at.is_none() {
                    f.done_at = Some(now);
                }
            }
            BPkt::Data { .. } => {}
        }
    }

    fn handle_timeout(&mut self, now: u64) {
        for f in &mut self.flows {
            if f.done_at.is_some() || now < self.start_at {
                continue;
            }
            match self.kind {
                Kind::GoBackN | Kind::Irn => {
                    if f.acked < f.hi_sent && now >= f.last_progress + self.rto {
                        self.timeouts += 1;
                        f.last_progress = now;
                        if self.kind == Kind::GoBackN {
                            f.next = f.acked;
                        } else if !f.queued[f.acked as usize] {
                            f.queued[f.acked as usize] = true;
                            f.retx.push_front(f.acked);
                        }
                    }
                }
                Kind::Whole => {
                    if f.round_end.is_some_and(|e| now >= e) {
                        self.timeouts += 1;
                        if f.round + 1 >= self.max_rounds {
                            self.gave_up = true;
                        }
                        f.round += 1;
                        f.next = 0;
                        f.round_end = None;
                    }
                }
            }
        }
    }

    fn poll_timeout(&self) -> Option<u64> {
        let mut d: Option<u64> = None;
        let mut put = |x: u64| d = Some(d.map_or(x, |y: u64| y.min(x)));
        for f in &self.flows {
            if f.done_at.is_some() {
                continue;
            }
            match self.kind {
                Kind::GoBackN | Kind::Irn => {
                    if f.acked < f.hi_sent {
                        put(f.last_progress + self.rto);
                    }
                }
                Kind::Whole => {
                    if let Some(e) = f.round_end {
                        put(e);
                    }
                }
            }
        }
        if self.flows.iter().any(|f| f.next == 0 && f.hi_sent == 0) {
            put(self.start_at);
        }
        d
    }

    fn poll_transmit(&mut self, now: u64) -> Option<Wire<BPkt>> {
        if now < self.start_at || self.gave_up {
            return None;
        }
        let k = self.flows.len();
        for step in 0..k {
            let ti = (self.cursor + step) % k;
            let f = &mut self.flows[ti];
            if f.done_at.is_some() {
                continue;
            }
            let mut pick = None;
            while let Some(q) = f.retx.pop_front() {
                f.queued[q as usize] = false;
                if q >= f.acked && !f.sacked[q as usize] {
                    pick = Some(q);
                    break;
                }
            }
            if pick.is_none() {
                let limit = match self.kind {
                    Kind::Whole => f.n,
                    _ => f.acked.saturating_add(self.window + 1).min(f.n),
                };
                if f.next < limit {
                    pick = Some(f.next);
                    f.next += 1;
                }
            }
            let Some(i) = pick else { continue };
            self.cursor = (ti + 1) % k;
            self.data_sent += 1;
            let retransmit = i < f.hi_sent || f.round > 0;
            if retransmit {
                self.retransmits += 1;
            }
            if f.acked >= f.hi_sent {
                // Nothing was outstanding: the retransmission timer starts now.
                f.last_progress = now;
            }
            f.hi_sent = f.hi_sent.max(i + 1);
            f.last_tx[i as usize] = now;
            if self.kind == Kind::Whole && i + 1 == f.n {
                f.round_end = Some(now + self.round_wait);
            }
            let len = if i + 1 == f.n { f.last_len } else { self.mtu };
            #[expect(clippy::cast_possible_truncation, reason = "few transfers")]
            let t = ti as u32;
            return Some(Wire {
                pkt: BPkt::Data {
                    t,
                    i,
                    round: f.round,
                },
                bytes: HDR + len,
                data: Some((t, i)),
            });
        }
        None
    }
}

impl Node for Rx {
    type Pkt = BPkt;

    fn handle(&mut self, pkt: BPkt, _now: u64) {
        let BPkt::Data { t, i, round } = pkt else {
            return;
        };
        let f = &mut self.flows[t as usize];
        match self.kind {
            Kind::GoBackN => {
                if i == f.base {
                    f.base += 1;
                    f.nak_sent = false;
                    self.tally.write(t, i);
                    self.out.push_back(BPkt::Ack { t, cum: f.base });
                } else if i < f.base {
                    // C9-105: a duplicate is acknowledged again.
                    self.out.push_back(BPkt::Ack { t, cum: f.base });
                } else if !f.nak_sent {
                    f.nak_sent = true;
                    self.requests += 1;
                    self.out.push_back(BPkt::Nack {
                        t,
                        cum: f.base,
                        sack: f.base,
                    });
                }
            }
            Kind::Irn => {
                if i < f.base || f.got[i as usize] {
                    self.out.push_back(BPkt::Ack { t, cum: f.base });
                } else if i == f.base {
                    f.got[i as usize] = true;
                    self.tally.write(t, i);
                    while f.base < f.n && f.got[f.base as usize] {
                        f.base += 1;
                    }
                    self.out.push_back(BPkt::Ack { t, cum: f.base });
                } else if i - f.base <= self.window {
                    f.got[i as usize] = true;
                    self.tally.write(t, i);
                    self.requests += 1;
                    self.out.push_back(BPkt::Nack {
                        t,
                        cum: f.base,
                        sack: i,
                    });
                }
            }
            Kind::Whole => {
                if round > f.round {
                    // A new round: the old round's data is void.
                    f.round = round;
                    f.got.iter_mut().for_each(|g| *g = false);
                    f.count = 0;
                }
                if round == f.round && !f.got[i as usize] {
                    f.got[i as usize] = true;
                    f.count += 1;
                    if f.count == f.n {
                        for j in 0..f.n {
                            self.tally.write(t, j);
                        }
                        self.out.push_back(BPkt::Done { t, round });
                    }
                } else if round == f.round && f.count == f.n {
                    self.out.push_back(BPkt::Done { t, round });
                }
            }
        }
    }

    fn handle_timeout(&mut self, _now: u64) {}

    fn poll_timeout(&self) -> Option<u64> {
        None
    }

    fn poll_transmit(&mut self, _now: u64) -> Option<Wire<BPkt>> {
        self.out.pop_front().map(|pkt| Wire {
            pkt,
            bytes: CTL,
            data: None,
        })
    }
}

/// Runs one baseline.
pub(crate) fn run(kind: Kind, cfg: &SimConfig, window: u32) -> Result<Report, crate::Error> {
    let lat = cfg.net.latency.get();
    let flows: Vec<(u32, u32)> = cfg
        .transfers
        .iter()
        .map(|l| {
            let len = l.get();
            let n = crate::receiver::packet_count(len, cfg.mtu)?;
            let last = len - u64::from(n - 1) * u64::from(cfg.mtu);
            #[expect(clippy::cast_possible_truncation, reason = "≤ mtu")]
            Ok((n, last as u32))
        })
        .collect::<Result<_, crate::Error>>()?;
    let mut tx = Tx {
        kind,
        flows: flows
            .iter()
            .map(|&(n, last_len)| TxFlow {
                n,
                last_len,
                acked: 0,
                next: 0,
                hi_sent: 0,
                last_progress: 0,
                sacked: vec![false; n as usize],
                hi_sack: 0,
                last_tx: vec![0; n as usize],
                queued: vec![false; n as usize],
                retx: VecDeque::new(),
                round: 0,
                round_end: None,
                done_at: None,
            })
            .collect(),
        window,
        mtu: cfg.mtu,
        // The set-up round trip the paper's method spends on RDMA_REQ/RDMA_RSP, with the
        // mean jitter of its two ways.
        start_at: 2 * lat + cfg.net.jitter.get(),
        rto: cfg.timeout.get(),
        rtt: 2 * lat,
        round_wait: 2 * lat + cfg.timeout.get(),
        max_rounds: cfg.max_rounds,
        cursor: 0,
        data_sent: 0,
        retransmits: 0,
        timeouts: 0,
        gave_up: false,
    };
    let mut rx = Rx {
        kind,
        flows: flows
            .iter()
            .map(|&(n, _)| RxFlow {
                n,
                base: 0,
                got: vec![false; n as usize],
                nak_sent: false,
                round: 0,
                count: 0,
            })
            .collect(),
        window,
        out: VecDeque::new(),
        requests: 0,
        tally: Tally::new(cfg),
    };
    let mut fates = super::fates::Fates::new(cfg.net);
    let (end, finished) = super::engine::run(
        &mut tx,
        &mut rx,
        &mut fates,
        cfg.limit.get(),
        super::max_events(cfg),
        |t| t.gave_up || t.flows.iter().all(|f| f.done_at.is_some()),
    );
    Ok(Report {
        finished: finished && !tx.gave_up,
        completion: Nanos::new(end),
        per_transfer: tx.flows.iter().map(|f| f.done_at.map(Nanos::new)).collect(),
        data_sent: tx.data_sent,
        retransmits: tx.retransmits,
        timeouts: tx.timeouts,
        requests: rx.requests,
        refusals: 0,
        tally: rx.tally,
    })
}
