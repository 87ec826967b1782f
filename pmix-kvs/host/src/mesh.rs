//! The hosts' full mesh of TCP connections on the loopback: node i listens, publishes its
//! port in the run folder (`port.i`), connects to every node below it and accepts every
//! node above it; each connection starts with the connecting node's number. One thread per
//! connection reads frames into the node's event queue; writes are made by the node's loop.

use std::fs;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::mpsc::Sender;
use std::thread;
use std::time::{Duration, Instant};

use crate::node::Event;
use crate::wire::{Frame, MAX_FRAME};

/// The write ends of a node's connections, by peer node (`None` for itself and lost peers).
#[derive(Debug)]
pub struct Mesh {
    peers: Vec<Option<TcpStream>>,
}

impl Mesh {
    /// Connects node `me` of `n` to every other node through the ports published in `dir`,
    /// before `deadline`, and starts the reader threads.
    pub fn connect(
        dir: &Path,
        me: usize,
        n: usize,
        deadline: Instant,
        events: &Sender<Event>,
    ) -> Result<Self, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let tmp = dir.join(format!("port.{me}.tmp"));
        fs::write(&tmp, port.to_string()).map_err(|e| e.to_string())?;
        fs::rename(&tmp, dir.join(format!("port.{me}"))).map_err(|e| e.to_string())?;

        let mut peers: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
        for (j, slot) in peers.iter_mut().enumerate().take(me) {
            let port = loop {
                if let Ok(s) = fs::read_to_string(dir.join(format!("port.{j}")))
                    && let Ok(p) = s.trim().parse::<u16>()
                {
                    break p;
                }
                if Instant::now() > deadline {
                    return Err(format!("node {j} never published its port"));
                }
                thread::sleep(Duration::from_millis(5));
            };
            let mut s = TcpStream::connect(("127.0.0.1", port))
                .map_err(|e| format!("connect to node {j}: {e}"))?;
            s.write_all(&u32::try_from(me).unwrap_or(u32::MAX).to_le_bytes())
                .map_err(|e| e.to_string())?;
            *slot = Some(s);
        }
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let mut accepted = 0;
        while accepted < n - 1 - me {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).map_err(|e| e.to_string())?;
                    s.set_read_timeout(Some(Duration::from_secs(10)))
                        .map_err(|e| e.to_string())?;
                    let mut id = [0; 4];
                    s.read_exact(&mut id).map_err(|e| format!("hello: {e}"))?;
                    s.set_read_timeout(None).map_err(|e| e.to_string())?;
                    let j = u32::from_le_bytes(id) as usize;
                    if j <= me || j >= n || peers[j].is_some() {
                        return Err(format!("unexpected hello from node {j}"));
                    }
                    peers[j] = Some(s);
                    accepted += 1;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err(format!("{} node(s) never connected", n - 1 - me - accepted));
                    }
                    thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(format!("accept: {e}")),
            }
        }
        for (j, p) in peers.iter().enumerate() {
            if let Some(s) = p {
                s.set_nodelay(true).map_err(|e| e.to_string())?;
                let r = s.try_clone().map_err(|e| e.to_string())?;
                let tx = events.clone();
                thread::spawn(move || read_frames(j, r, &tx));
            }
        }
        Ok(Self { peers })
    }

    /// Sends `frame` to node `to`; a failed write drops the connection and is reported.
    pub fn send(&mut self, to: usize, frame: &Frame) -> Result<(), String> {
        let Some(s) = self.peers.get_mut(to).and_then(Option::as_mut) else {
            return Err(format!("node {to} is not connected"));
        };
        let bytes = frame.encode()?;
        if let Err(e) = s.write_all(&bytes) {
            self.peers[to] = None;
            return Err(format!("write to node {to}: {e}"));
        }
        Ok(())
    }

    /// Forgets a lost peer.
    pub fn drop_peer(&mut self, j: usize) {
        if let Some(p) = self.peers.get_mut(j) {
            *p = None;
        }
    }
}

fn read_frames(from: usize, mut s: TcpStream, tx: &Sender<Event>) {
    let reason = loop {
        let mut len = [0; 4];
        if let Err(e) = s.read_exact(&mut len) {
            break format!("connection closed: {e}");
        }
        let len = u32::from_le_bytes(len) as usize;
        if len > MAX_FRAME {
            break format!("frame of {len} bytes is over the limit");
        }
        let mut body = vec![0; len];
        if let Err(e) = s.read_exact(&mut body) {
            break format!("connection closed inside a frame: {e}");
        }
        match Frame::decode(&body) {
            Ok(frame) => {
                if tx.send(Event::Peer { from, frame }).is_err() {
                    return;
                }
            }
            Err(e) => break format!("bad frame: {e}"),
        }
    };
    let _ = tx.send(Event::PeerLost { from, reason });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// What a reader thread reports for `bytes` sent on a connection that then closes.
    fn read_back(bytes: &[u8]) -> Vec<Event> {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut tx_side = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (rx_side, _) = listener.accept().unwrap();
        let (tx, rx) = mpsc::channel();
        let reader = thread::spawn(move || read_frames(3, rx_side, &tx));
        tx_side.write_all(bytes).unwrap();
        drop(tx_side);
        reader.join().unwrap();
        rx.try_iter().collect()
    }

    #[test]
    fn a_frame_then_the_close_are_reported() {
        let frame = Frame::Direct {
            seq: 2,
            data: vec![1, 2],
        };
        let ev = read_back(&frame.encode().unwrap());
        assert!(matches!(&ev[0], Event::Peer { from: 3, frame: f } if *f == frame));
        assert!(
            matches!(&ev[1], Event::PeerLost { from: 3, reason } if reason.starts_with("connection closed"))
        );
        assert_eq!(ev.len(), 2);
    }

    #[test]
    fn an_oversized_length_is_refused_before_allocating() {
        let len = u32::try_from(MAX_FRAME + 1).unwrap().to_le_bytes();
        let ev = read_back(&len);
        assert!(
            matches!(&ev[..], [Event::PeerLost { reason, .. }] if reason == &format!("frame of {} bytes is over the limit", MAX_FRAME + 1)),
            "{ev:?}"
        );
    }

    #[test]
    fn a_malformed_or_truncated_frame_drops_the_peer() {
        let ev = read_back(&[1, 0, 0, 0, 9]);
        assert!(
            matches!(&ev[..], [Event::PeerLost { reason, .. }] if reason == "bad frame: unknown frame kind 9"),
            "{ev:?}"
        );
        let ev = read_back(&[10, 0, 0, 0, 2, 0]);
        assert!(
            matches!(&ev[..], [Event::PeerLost { reason, .. }] if reason.starts_with("connection closed inside a frame")),
            "{ev:?}"
        );
    }
}
