//! # rdma-window
//!
//! Reliable RDMA over a lossy, reordering network, after Wang Shaogang, Xu Weixia, Wu Dan,
//! Pang Zhengbin and Xia Jun, *A Fast RDMA Offload Method for Unreliable Interconnection
//! Networks* (一种面向不可靠网络的快速RDMA通信方法), College of Computer, National University of
//! Defense Technology, Changsha; a Chinese journal article of about 2014–2015 (the journal
//! and year are not confirmed here; the text circulates online dated March 2015). From it:
//! a receiver-allocated context table, the `WBASE`/`WVEC` receive window, one timer per context on the `WBASE`
//! packet and on-demand re-reads of single packets, written as a sans-IO state machine
//! (time passed in, outputs polled, in the manner of quinn-proto).
//!
//! - [`window`]: `WBASE`/`WVEC` and the four cases of paper Fig. 3.
//! - [`Cid`]: context ids with generations (a table index and how often the slot was reused).
//! - [`packet`]: the packets and their wire format.
//! - [`receiver`] and [`sender`]: the two endpoints; [`Mode::Paper`] is the paper as written,
//!   [`Mode::Improved`] adds bitmap-driven repair.
//! - `sim` (feature `sim`, on by default): a deterministic lossy-network simulator and the
//!   baselines (go-back-N, IRN-style selective repeat, whole-transfer retransmission); its
//!   link can be taken from a fabric link of `fabric-model` (`NetConfig::from_link`).
//!
//! Section and figure numbers (§2.3.4, Fig. 3, Table 1) in these docs are the paper's.
//!
//! ## Using the endpoints
//!
//! Both endpoints are plain values: nothing happens unless a method is called, and time is
//! a [`fabric_model::Nanos`] passed in (a point on the caller's clock). After each `handle`/`handle_timeout`, drain
//! `poll_transmit` (packets to put on the wire) and `poll_event` (payload writes and
//! completions at the receiver, connections, re-reads and completions at the sender), then
//! arm one timer for `poll_timeout`. Draining after every call keeps the data path free of
//! allocation: the queues are created with room for what one call produces.
//!
//! The receiver's fast path [`Receiver::handle_data`] returns its verdict ([`DataVerdict`]:
//! write this payload there, or why it was dropped) instead of queueing it, and ACKs are
//! owed rather than queued: `poll_transmit` builds one per context from its state, so a
//! receiver polled after a batch of packets sends one ACK per context with the newest
//! `WBASE` (see [`receiver`]).
//!
//! ## Choices
//!
//! - W is 64 × `WORDS` with `WORDS` a const generic (2, W = 128, by default; 4 gives 256;
//!   at most 64, W = [`config::MAX_WINDOW`] = 4096, wider than any NIC keeps on chip):
//!   stable Rust cannot size `[u64; W / 64]` from a `W` parameter. For W = 128 the advance
//!   runs on one `u128`.
//! - Sequence numbers are 32-bit and compared in serial arithmetic; a transfer has at most
//!   2³⁰ − 1 packets, so old and future packets stay apart.
//! - The sender keeps packets within `WBASE + W` of the last `WBASE` it heard (ACKs carry
//!   it); the paper leaves sender pacing open, and without this the receiver would drop and
//!   re-request everything sent past a hole.
//! - The sender may run a speculative window ([`SenderConfig::speculate`], off by default,
//!   on for improved mode in the simulator at W = 128): a `RDMA_RESEND` for the `WBASE`
//!   packet says where `WBASE` will jump once that retransmission lands, so the sender need
//!   not wait for the ACK's way back. With W about one bandwidth-delay product this hides
//!   most of the stall each loss causes; the receiver is unchanged, so a wrong guess costs
//!   only packets dropped outside its window and asked for again.
//! - Context ids carry a 16-bit generation; the receiver remembers its last
//!   [`ReceiverConfig::completions_kept`] completions (256 by default) so that a late packet
//!   or repeated request is answered with DONE again.
//!
//! # Complexity
//!
//! A data packet costs O(W / 64) word operations at the receiver with no division and no
//! allocation; a request O(capacity); a timer pass O(capacity + holes asked for).
//!
//! ```
//! use fabric_model::{Bytes, Nanos};
//! use rdma_window::{Receiver, ReceiverConfig, RecvEvent, Sender, SenderConfig, Transfer};
//!
//! let mut tx = Sender::new(1, SenderConfig::default())?;
//! let mut rx: Receiver = Receiver::new(ReceiverConfig::default())?;
//! let t = Transfer::new(2, Bytes::new(10_000), 4096)
//!     .with_src_addr(0x1000)
//!     .with_dst_addr(0x9000)
//!     .with_first_psn(7);
//! tx.start(t, Nanos::ZERO)?;
//! let (mut now, mut written, mut done) = (Nanos::ZERO, 0, false);
//! while !done {
//!     now = now.saturating_add(Nanos::new(100));
//!     while let Some(out) = tx.poll_transmit() {
//!         rx.handle(out.packet, now)?;
//!     }
//!     while let Some(back) = rx.poll_transmit() {
//!         tx.handle(back.packet, now)?;
//!     }
//!     while let Some(ev) = rx.poll_event() {
//!         match ev {
//!             RecvEvent::Write { len, .. } => written += u64::from(len),
//!             RecvEvent::Complete { .. } => done = true,
//!             RecvEvent::Aborted { .. } => unreachable!(),
//!         }
//!     }
//! }
//! assert_eq!(written, 10_000);
//! # Ok::<(), rdma_window::Error>(())
//! ```
//!
//! `examples/lossy_channel.rs` does the same over a lossy, reordering channel with timers,
//! with checked frames ([`Packet::encode_frame`], [`Receiver::decode`]: the optional
//! end-to-end CRC32C of [`ReceiverConfig::checksum`]); `examples/udp_transfer.rs` over UDP
//! sockets between two processes.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod cid;
pub mod config;
mod error;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
pub mod packet;
mod psn;
pub mod receiver;
mod ring;
pub mod sender;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub mod sim;
pub mod window;

pub use cid::Cid;
pub use config::{Mode, ReceiverConfig, SenderConfig};
pub use error::Error;
pub use packet::Packet;
pub use receiver::{DataVerdict, Receiver, RecvEvent, RecvStats, RecvTransmit};
pub use sender::{SendEvent, SendStats, SendTransmit, Sender, Transfer};
pub use window::{Arrival, Window};

/// The README's examples, compiled and run as doctests (the second needs the simulator).
#[cfg(all(doctest, feature = "sim"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
