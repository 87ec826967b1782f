//! # topo-cluster
//!
//! Logical homogeneous clusters from a latency matrix, SMP grouping, pLogP models and collective tree choice.
//!
//! Follows the paper `003_e288618ce88a0bfc.txt` in `shared/seeds/`; the contract is the "topo-cluster" section of
//! `shared/DESIGN.md`. This crate is being built: it has no public API yet.
#![forbid(unsafe_code)]
