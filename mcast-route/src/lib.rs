//! # mcast-route
//!
//! MR4LMS multicast routing for a limited multicast forwarding table (build, color, merge and delete trees), with OpenSM's MINIHOP-MC and SSSP-MC as baselines.
//!
//! Follows the paper `000_4f4eea72dd223ee8.txt` in `shared/seeds/`; the contract is the "mcast-route" section of
//! `shared/DESIGN.md`. This crate is being built: it has no public API yet.
#![forbid(unsafe_code)]
