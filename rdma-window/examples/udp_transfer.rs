//! A real transport: a `Sender` and a `Receiver` in two processes moving a buffer over UDP on
//! the loopback interface, with loss and reordering injected at each sending socket.
//!
//! ```text
//! cargo run --release -p rdma-window --example udp_transfer
//! cargo run --release -p rdma-window --example udp_transfer -- --mode improved --loss 0.01 --size 8388608
//! ```
//!
//! The process started is the receiver: it binds a `std::net::UdpSocket` on 127.0.0.1,
//! spawns itself as the sender (`--sender SPEC`, the child binds its own socket), writes
//! every payload where the receiver's verdict says, and at the end compares the destination
//! buffer with the pattern both sides generate from the seed. Every frame carries the
//! end-to-end CRC32C (`with_checksum(true)` on both ends). Each sending socket drops a
//! datagram with probability `--loss` and holds one back behind the next with probability
//! `--reorder` (1 % by default). Everything is bounded in time (`--deadline-ms`, 20 s by
//! default): a run that has not finished by then fails.
//!
//! With no `--mode` it runs both receiver modes at injected loss 1e-3 and 1e-2 and prints,
//! for each, the goodput (payload bits over the sender's time from start to completion)
//! and, per process, datagrams handled (sent and received) per second of its own CPU time
//! (the loop's thread, from `/proc/thread-self/schedstat`, Linux; wall time elsewhere): packets per second per
//! core.

use std::error::Error;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fabric_model::rng::SplitMix64;
use fabric_model::{Bytes, Nanos};
use rdma_window::{
    DataVerdict, Mode, Packet, Receiver, ReceiverConfig, RecvEvent, SendEvent, Sender,
    SenderConfig, Transfer,
};

/// Payload bytes per datagram.
const MTU: u32 = 1400;
/// The sender's window (the receiver's W is 128): 64 datagrams in flight fit a default
/// Linux socket receive buffer (212,992 bytes at about 2.3 KiB of kernel memory each), so
/// that the kernel does not drop what the injection did not.
const WINDOW: u32 = 64;
const SENDER_NODE: u32 = 1;
const RECEIVER_NODE: u32 = 2;
/// Room for the largest frame: header, payload, CRC.
const FRAME_MAX: usize = 2048;
/// Datagrams sent per turn of a loop before it looks at its socket again.
const BURST: usize = 32;

/// What to run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub(crate) size: usize,
    pub(crate) loss: f64,
    pub(crate) reorder: f64,
    pub(crate) mode: Mode,
    pub(crate) seed: u64,
    pub(crate) deadline: Duration,
}

impl Options {
    /// `size` bytes in `mode` at injected loss `loss`, 1 % reordering, 20 s deadline.
    pub(crate) const fn new(size: usize, mode: Mode, loss: f64) -> Self {
        Self {
            size,
            loss,
            reorder: 0.01,
            mode,
            seed: 7,
            deadline: Duration::from_secs(20),
        }
    }

    /// The child's argument: everything the sender needs, with the receiver's address.
    fn spec(&self, receiver: SocketAddr) -> String {
        let improved = u8::from(self.mode == Mode::Improved);
        format!(
            "{receiver},{},{},{},{},{improved},{}",
            self.size,
            self.loss,
            self.reorder,
            self.seed,
            self.deadline.as_millis()
        )
    }

    fn parse_spec(spec: &str) -> Result<(SocketAddr, Self), Box<dyn Error>> {
        let f: Vec<&str> = spec.split(',').collect();
        let [addr, size, loss, reorder, seed, improved, deadline] = f.as_slice() else {
            return Err(format!("bad sender spec {spec:?}").into());
        };
        let mode = if *improved == "1" {
            Mode::Improved
        } else {
            Mode::Paper
        };
        Ok((
            addr.parse()?,
            Self {
                size: size.parse()?,
                loss: loss.parse()?,
                reorder: reorder.parse()?,
                mode,
                seed: seed.parse()?,
                deadline: Duration::from_millis(deadline.parse()?),
            },
        ))
    }
}

/// What one transfer measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Outcome {
    /// The destination buffer equals the source.
    pub(crate) intact: bool,
    /// Sender's time from `start` to completion.
    pub(crate) elapsed: Duration,
    /// Datagrams sent and received by the sender, by the receiver.
    pub(crate) datagrams: [u64; 2],
    /// CPU time of the sender, of the receiver, during the transfer.
    pub(crate) cpu: [Duration; 2],
    /// Data packets the sender sent, and of those retransmitted.
    pub(crate) data_sent: u64,
    pub(crate) retransmits: u64,
    /// Datagrams the injected loss dropped (sender side, receiver side).
    pub(crate) injected: [u64; 2],
    /// Frames refused by the CRC check (both sides).
    pub(crate) corrupted: u64,
}

impl Outcome {
    /// Payload bits per second of the sender's time.
    pub(crate) fn goodput_bps(&self, size: usize) -> f64 {
        size as f64 * 8.0 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Datagrams per second of CPU time of side `k` (0 sender, 1 receiver).
    pub(crate) fn per_core(&self, k: usize) -> f64 {
        self.datagrams[k] as f64 / self.cpu[k].as_secs_f64().max(1e-9)
    }
}

/// CPU time the calling thread (the one running a side's loop) has run, from
/// `/proc/thread-self/schedstat`; `None` where that is not available.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The bytes both sides derive from the seed.
fn pattern(size: usize, seed: u64) -> Vec<u8> {
    let mut g = SplitMix64::new(seed);
    let mut v = Vec::with_capacity(size + 8);
    while v.len() < size {
        v.extend_from_slice(&g.next_u64().to_le_bytes());
    }
    v.truncate(size);
    v
}

/// A UDP socket whose sends are lost with probability `loss`, or held back behind the next
/// datagram with probability `reorder`.
#[derive(Debug)]
struct Lossy {
    sock: UdpSocket,
    peer: Option<SocketAddr>,
    loss: f64,
    reorder: f64,
    rng: SplitMix64,
    held: Option<Vec<u8>>,
    sent: u64,
    received: u64,
    injected: u64,
}

impl Lossy {
    fn new(
        sock: UdpSocket,
        peer: Option<SocketAddr>,
        o: &Options,
        seed: u64,
    ) -> std::io::Result<Self> {
        sock.set_nonblocking(true)?;
        Ok(Self {
            sock,
            peer,
            loss: o.loss,
            reorder: o.reorder,
            rng: SplitMix64::new(seed),
            held: None,
            sent: 0,
            received: 0,
            injected: 0,
        })
    }

    fn send(&mut self, frame: &[u8]) -> std::io::Result<()> {
        if self.rng.next_f64() < self.loss {
            self.injected += 1;
            return Ok(());
        }
        if self.held.is_none() && self.rng.next_f64() < self.reorder {
            self.held = Some(frame.to_vec());
            return Ok(());
        }
        self.put(frame)?;
        if let Some(h) = self.held.take() {
            self.put(&h)?;
        }
        Ok(())
    }

    /// Sends what is held back (before waiting: nothing may stay behind for ever).
    fn flush(&mut self) -> std::io::Result<()> {
        match self.held.take() {
            Some(h) => self.put(&h),
            None => Ok(()),
        }
    }

    fn put(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let Some(peer) = self.peer else {
            return Ok(());
        };
        self.sent += 1;
        match self.sock.send_to(frame, peer) {
            // A full socket buffer drops it, as a switch would: the protocol repairs it.
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(()),
            r => r.map(|_| ()),
        }
    }

    /// The next datagram, if one is there.
    fn recv<'a>(&mut self, buf: &'a mut [u8]) -> std::io::Result<Option<&'a [u8]>> {
        match self.sock.recv_from(buf) {
            Ok((n, from)) => {
                self.received += 1;
                self.peer.get_or_insert(from);
                Ok(buf.get(..n))
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits up to `d` (at least 10 µs, at most 1 ms) for a datagram to arrive.
    fn wait(&mut self, d: Duration) -> std::io::Result<()> {
        self.flush()?;
        let d = d.clamp(Duration::from_micros(10), Duration::from_millis(1));
        self.sock.set_nonblocking(false)?;
        self.sock.set_read_timeout(Some(d))?;
        let mut probe = [0u8; 1];
        let r = self.sock.peek(&mut probe);
        self.sock.set_nonblocking(true)?;
        match r {
            Err(e) if !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Err(e),
            _ => Ok(()),
        }
    }
}

/// Times for loopback on a shared machine: a scheduling delay of a millisecond must not
/// look like a loss.
fn receiver_config(mode: Mode) -> ReceiverConfig {
    ReceiverConfig::default()
        .with_mode(mode)
        .with_resend_timeout(Nanos::from_millis(2))
        .with_reorder_tolerance(Nanos::from_micros(200))
        .with_retry_interval(Nanos::from_millis(2))
        .with_max_idle_timeouts(1_000)
        .with_checksum(true)
}

fn sender_config(mode: Mode) -> SenderConfig {
    let spec = if mode == Mode::Improved { 128 } else { 0 };
    SenderConfig::default()
        .with_window(WINDOW)
        .with_req_timeout(Nanos::from_millis(5))
        .with_probe_timeout(Nanos::from_millis(10))
        .with_max_probes(1_000)
        .with_speculate(spec)
        .with_speculate_delay(Nanos::from_micros(200))
        .with_checksum(true)
}

fn since(start: Instant) -> Nanos {
    Nanos::new(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX))
}

/// Time from `now` to `deadline`.
fn until(deadline: Option<Nanos>, now: Nanos) -> Duration {
    deadline.map_or(Duration::from_millis(1), |d| {
        Duration::from_nanos(d.get().saturating_sub(now.get()))
    })
}

/// The child: sends the pattern to `spec`'s receiver and prints one `SENDER` line.
pub(crate) fn sender_main(spec: &str) -> Result<(), Box<dyn Error>> {
    let (peer, o) = Options::parse_spec(spec)?;
    let source = pattern(o.size, o.seed);
    let mut net = Lossy::new(UdpSocket::bind("127.0.0.1:0")?, Some(peer), &o, o.seed ^ 1)?;
    let mut tx = Sender::new(SENDER_NODE, sender_config(o.mode))?;
    let (mut buf, mut out) = ([0u8; FRAME_MAX], [0u8; FRAME_MAX]);
    let cpu0 = cpu_time();
    let start = Instant::now();
    let len = Bytes::new(u64::try_from(o.size)?);
    let id = tx.start(Transfer::new(RECEIVER_NODE, len, MTU), since(start))?;
    let mut corrupted = 0u64;
    loop {
        if start.elapsed() > o.deadline {
            return Err("sender: deadline passed".into());
        }
        let now = since(start);
        if tx.poll_timeout().is_some_and(|t| t <= now) {
            tx.handle_timeout(now);
        }
        let mut busy = false;
        while let Some(frame) = net.recv(&mut buf)? {
            busy = true;
            match tx.decode(frame) {
                Ok((p, _)) => tx.handle(p, since(start))?,
                Err(_) => corrupted += 1,
            }
        }
        while let Some(ev) = tx.poll_event() {
            match ev {
                SendEvent::Complete { cid } if cid == id => {
                    net.flush()?;
                    let elapsed = start.elapsed();
                    let cpu = cpu0
                        .zip(cpu_time())
                        .map_or(elapsed, |(a, b)| b.saturating_sub(a));
                    let st = tx.stats();
                    println!(
                        "SENDER {} {} {} {} {} {} {}",
                        elapsed.as_nanos(),
                        cpu.as_nanos(),
                        net.sent + net.received,
                        st.data_sent,
                        st.retransmits,
                        net.injected,
                        corrupted
                    );
                    return Ok(());
                }
                SendEvent::Failed { .. } => return Err("sender: transfer failed".into()),
                _ => {}
            }
        }
        for _ in 0..BURST {
            let Some(t) = tx.poll_transmit() else { break };
            busy = true;
            let payload = match t.source {
                Some((addr, n)) => {
                    let at = usize::try_from(addr)?;
                    source
                        .get(at..at + n as usize)
                        .ok_or("read outside the source")?
                }
                None => &[][..],
            };
            let n = tx.encode(&t, payload, &mut out)?;
            net.send(&out[..n])?;
        }
        if !busy {
            net.wait(until(tx.poll_timeout(), since(start)))?;
        }
    }
}

/// The parent: receives into a buffer while the child `spawn` starts sends, then checks it.
pub(crate) fn transfer(
    o: &Options,
    spawn: impl FnOnce(&str) -> Command,
) -> Result<Outcome, Box<dyn Error>> {
    let sock = UdpSocket::bind("127.0.0.1:0")?;
    let me = sock.local_addr()?;
    let mut net = Lossy::new(sock, None, o, o.seed ^ 2)?;
    let mut rx: Receiver = Receiver::new(receiver_config(o.mode))?;
    let mut dest = vec![0u8; o.size];
    let mut child = spawn(&o.spec(me)).stdout(Stdio::piped()).spawn()?;
    let r = receive(o, &mut net, &mut rx, &mut dest, &mut child);
    if r.is_err() {
        let _ = child.kill();
    }
    let (cpu, corrupted) = r?;
    let output = child.wait_with_output()?;
    if !output.status.success() {
        return Err(format!("sender exited with {}", output.status).into());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find_map(|l| l.split_once("SENDER ").map(|(_, rest)| rest))
        .ok_or_else(|| format!("no SENDER line from the child in {text:?}"))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let [
        elapsed,
        s_cpu,
        s_dgrams,
        data_sent,
        retransmits,
        s_injected,
        s_corrupted,
    ] = v[..]
    else {
        return Err(format!("bad SENDER line {line:?}").into());
    };
    Ok(Outcome {
        intact: dest == pattern(o.size, o.seed),
        elapsed: Duration::from_nanos(elapsed),
        datagrams: [s_dgrams, net.sent + net.received],
        cpu: [Duration::from_nanos(s_cpu), cpu],
        data_sent,
        retransmits,
        injected: [s_injected, net.injected],
        corrupted: corrupted + s_corrupted,
    })
}

/// The receiver's loop, until the transfer is complete and the child has exited; returns
/// its CPU time and the frames the CRC refused.
fn receive(
    o: &Options,
    net: &mut Lossy,
    rx: &mut Receiver,
    dest: &mut [u8],
    child: &mut Child,
) -> Result<(Duration, u64), Box<dyn Error>> {
    let start = Instant::now();
    let cpu0 = cpu_time();
    let mut buf = [0u8; FRAME_MAX];
    let mut out = [0u8; FRAME_MAX];
    let mut cpu = None;
    let mut corrupted = 0;
    loop {
        if start.elapsed() > o.deadline {
            return Err("receiver: deadline passed".into());
        }
        let now = since(start);
        if rx.poll_timeout().is_some_and(|t| t <= now) {
            rx.handle_timeout(now);
        }
        let mut busy = false;
        while let Some(frame) = net.recv(&mut buf)? {
            busy = true;
            let Ok((packet, payload)) = rx.decode(frame) else {
                // Failed the CRC (or not one of ours): dropped, repaired like a loss.
                corrupted += 1;
                continue;
            };
            if let Packet::Data { dcid, psn, len } = packet {
                if let Ok(DataVerdict::Write { addr, len, .. }) =
                    rx.handle_data(dcid, psn, len, since(start))
                {
                    let at = usize::try_from(addr)?;
                    let to = dest
                        .get_mut(at..at + len as usize)
                        .ok_or("write outside the buffer")?;
                    to.copy_from_slice(payload);
                }
            } else {
                // A request the receiver refuses (none here) is dropped.
                let _ = rx.handle(packet, since(start));
            }
        }
        while let Some(ev) = rx.poll_event() {
            match ev {
                RecvEvent::Complete { .. } => {
                    cpu = Some(
                        cpu0.zip(cpu_time())
                            .map_or(start.elapsed(), |(a, b)| b.saturating_sub(a)),
                    );
                }
                RecvEvent::Aborted { .. } => return Err("receiver: context given up".into()),
                RecvEvent::Write { .. } => {}
            }
        }
        while let Some(t) = rx.poll_transmit() {
            busy = true;
            let n = rx.encode(&t.packet, &mut out)?;
            net.send(&out[..n])?;
        }
        // Complete here: keep answering (a lost DONE is asked for again) until the sender
        // has seen it and exited.
        if let Some(cpu) = cpu
            && child.try_wait()?.is_some()
        {
            return Ok((cpu, corrupted));
        }
        if !busy {
            net.wait(until(rx.poll_timeout(), since(start)))?;
        }
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Result<Option<T>, Box<dyn Error>> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => {
            let v = args.get(i + 1).ok_or(format!("{name} needs a value"))?;
            Ok(Some(
                v.parse()
                    .map_err(|_| format!("bad value for {name}: {v}"))?,
            ))
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(spec) = arg::<String>(&args, "--sender")? {
        return sender_main(&spec);
    }
    let size = arg(&args, "--size")?.unwrap_or(4 << 20);
    let modes = match arg::<String>(&args, "--mode")?.as_deref() {
        None => vec![Mode::Paper, Mode::Improved],
        Some("paper") => vec![Mode::Paper],
        Some("improved") => vec![Mode::Improved],
        Some(m) => return Err(format!("--mode paper|improved, not {m}").into()),
    };
    let losses = arg(&args, "--loss")?.map_or(vec![1e-3, 1e-2], |l| vec![l]);
    let exe = std::env::current_exe()?;
    println!(
        "{} over UDP on 127.0.0.1, {MTU}-byte payloads, CRC32C on, 1 % reordering injected",
        Bytes::new(size as u64)
    );
    for mode in modes {
        for &loss in &losses {
            let mut o = Options::new(size, mode, loss);
            if let Some(r) = arg(&args, "--reorder")? {
                o.reorder = r;
            }
            if let Some(ms) = arg(&args, "--deadline-ms")? {
                o.deadline = Duration::from_millis(ms);
            }
            let r = transfer(&o, |spec| {
                let mut c = Command::new(&exe);
                c.args(["--sender", spec]);
                c
            })?;
            println!(
                "{mode:?} loss {loss:.0e}: {:.1} ms, goodput {:.0} Mb/s; sender {} data packets ({} retransmitted), {:.2} M datagrams/s per core; receiver {:.2} M datagrams/s per core; {} + {} dropped by injection, {} failed the CRC; buffer {}",
                r.elapsed.as_secs_f64() * 1e3,
                r.goodput_bps(size) / 1e6,
                r.data_sent,
                r.retransmits,
                r.per_core(0) / 1e6,
                r.per_core(1) / 1e6,
                r.injected[0],
                r.injected[1],
                r.corrupted,
                if r.intact { "intact" } else { "CORRUPTED" }
            );
            if !r.intact {
                return Err("the destination buffer differs from the source".into());
            }
        }
    }
    Ok(())
}
