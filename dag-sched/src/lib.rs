//! # dag-sched
//!
//! JIT: DAG-aware network scheduling by latest arrival time, the LP model, a flow-level simulator and the TensorFlow, TicTac and Sincronia baselines.
//!
//! Follows the paper `004_b41a277a99ffb983.txt` in `shared/seeds/`; the contract is the "dag-sched" section of
//! `shared/DESIGN.md`. This crate is being built: it has no public API yet.
#![forbid(unsafe_code)]
