//! A C ABI over [`mcast_route`] for subnet managers written in C (OpenSM among them): a static
//! library (`libmcast_route_capi.a`) and its header `include/mcast_route.h`.
//!
//! What a subnet manager needs, and no more:
//! - build the fabric it discovered, node by node (`mcr_fabric_add_node`) and cable by cable
//!   (`mcr_fabric_add_link`), or read an ibnetdiscover text
//!   (`mcr_router_from_ibnetdiscover`);
//! - a router over it with an algorithm (MR4LMS, MINIHOP-MC or SSSP-MC) and an MFT entry
//!   limit (`mcr_router_new`);
//! - SA joins and leaves by MGID and port GUID (`mcr_join`, `mcr_leave`), each answering the
//!   group's MLID;
//! - topology events: links and switches down and up;
//! - the MFT delta (`mcr_take_mft_delta`, `mcr_delta_entry`) and the blocks to send
//!   (`mcr_mft_block`), at every port position;
//! - errors as status codes (`MCR_OK`, `MCR_ERR_*`) with a message per thread
//!   (`mcr_last_error`).
//!
//! No panic crosses the boundary: every entry point runs under
//! [`std::panic::catch_unwind`]; a router whose call panicked is poisoned and answers
//! `MCR_ERR_POISONED` from then on. Null pointers are `MCR_ERR_NULL`, bad enumerations and
//! lengths `MCR_ERR_INVALID_ARGUMENT`. The library does no I/O, reads no clock and starts no
//! thread, as mcast-route.
//!
//! The header is written by hand; the crate's tests check it against this crate (the status
//! codes and node kinds, and that every exported function is declared) and a C program
//! compiled against it with warnings denied calls every function.

// The crate is the foreign-function boundary: its exported functions take raw pointers from
// C, which only `unsafe` can read. Every unsafe block says why it holds (`// SAFETY:`); the
// pointer helpers live in `ptr.rs`, and the Rust tests (run under Miri too) call each entry
// point with null, dangling-free and short inputs.
#![allow(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod error;
mod fabric;
mod ptr;
mod router;
mod status;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use fabric::{
    McrFabric, mcr_fabric_add_link, mcr_fabric_add_node, mcr_fabric_free, mcr_fabric_new,
};
pub use router::{
    McrEventOutcome, McrRouter, McrStats, mcr_delta_entry, mcr_group_mlid, mcr_join, mcr_leave,
    mcr_link_down, mcr_link_up, mcr_mft_block, mcr_mft_positions, mcr_router_free,
    mcr_router_from_ibnetdiscover, mcr_router_new, mcr_router_stats, mcr_switch_down,
    mcr_switch_up, mcr_take_mft_delta,
};
pub use status::{
    MCR_ALGORITHM_MINIHOP_MC, MCR_ALGORITHM_MR4LMS, MCR_ALGORITHM_SSSP_MC, MCR_ERR_ENTRIES,
    MCR_ERR_FABRIC, MCR_ERR_INVALID_ARGUMENT, MCR_ERR_MEMBERSHIP, MCR_ERR_NO_LINK, MCR_ERR_NULL,
    MCR_ERR_OUT_OF_RANGE, MCR_ERR_PANIC, MCR_ERR_POISONED, MCR_ERR_ROUTE, MCR_ERR_TOPOLOGY,
    MCR_ERR_UNKNOWN_GUID, MCR_ERR_UNKNOWN_MGID, MCR_NODE_CA, MCR_NODE_SWITCH, MCR_OK,
    mcr_last_error, mcr_status_name,
};
