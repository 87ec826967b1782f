//! # rdma-window
//!
//! Reliable RDMA over a lossy, reordering network with a W-bit WBASE/WVEC receive window and on-demand partial retransmission, as a sans-IO state machine.
//!
//! Follows the paper `001_6578dbec100a9b76.txt` in `shared/seeds/`; the contract is the "rdma-window" section of
//! `shared/DESIGN.md`. This crate is being built: it has no public API yet.
#![forbid(unsafe_code)]
