//! The router behind the C ABI: built over a fabric, driven by SA joins and leaves and by
//! topology events, read as MFT deltas and blocks.

use std::collections::HashMap;
use std::ffi::{c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use fabric_model::{Fabric, HopTable, NodeId, PortNo};
use mcast_route::{Algorithm, Config, Entries, Router};

use crate::fabric::McrFabric;
use crate::status::{
    MCR_ALGORITHM_MINIHOP_MC, MCR_ALGORITHM_MR4LMS, MCR_ALGORITHM_SSSP_MC, finish, guard,
    panic_text,
};
use crate::{Error, ptr};

/// A router (opaque to C) with the fabric it routes, its nodes by GUID and the last MFT
/// delta taken.
#[derive(Debug)]
pub struct McrRouter {
    router: Router<'static>,
    guids: HashMap<u64, NodeId>,
    delta: Vec<(u64, u16)>,
    poisoned: bool,
}

/// The router's statistics (paper §4): what `mcr_stats` fills in.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct McrStats {
    /// Live groups.
    pub groups: u64,
    /// Live trees (merged groups share one).
    pub trees: u64,
    /// Colors (MLIDs) in use.
    pub colors_used: u64,
    /// Groups routed on a tree shared with another group (merged, Alg. 4).
    pub merged_groups: u64,
    /// Largest edge forwarding index over switch-to-switch links.
    pub max_efi: u32,
    /// Largest number of MFT entries in use on one switch.
    pub max_entries_per_switch: u32,
}

/// What a topology event did (`mcr_link_down` and the others fill it in when given one).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct McrEventOutcome {
    /// Trees that crossed what went down and were routed again.
    pub rerouted: u32,
    /// Members cut off, which left their groups.
    pub members_left: u32,
    /// Groups that lost every member and were deleted.
    pub groups_deleted: u32,
    /// Groups whose tree could not keep its color: their MLID changed (the subnet manager
    /// must tell their members; `mcr_group_mlid` gives the new one).
    pub mlids_changed: u32,
}

impl McrEventOutcome {
    fn of(o: &mcast_route::TopologyOutcome) -> Self {
        let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Self {
            rerouted: n(o.rerouted),
            members_left: n(o.left.len()),
            groups_deleted: n(o.deleted.len()),
            mlids_changed: n(o.recolored.len()),
        }
    }
}

/// Writes `outcome` to `out` unless `out` is null.
///
/// # Safety
/// `out` is null or valid for a write of an `mcr_event_outcome`.
unsafe fn report(out: *mut McrEventOutcome, outcome: &mcast_route::TopologyOutcome) {
    // SAFETY: the caller's contract above; null is skipped.
    if let Some(slot) = unsafe { out.as_mut() } {
        *slot = McrEventOutcome::of(outcome);
    }
}

fn config(algorithm: u32, mft_limit: u32) -> Result<Config, Error> {
    let entries = if mft_limit == 0 {
        Entries::Unlimited
    } else {
        Entries::Limit(mft_limit)
    };
    let algorithm = match algorithm {
        MCR_ALGORITHM_MR4LMS => return Ok(Config::mr4lms(entries)),
        MCR_ALGORITHM_MINIHOP_MC => Algorithm::MinihopMc,
        MCR_ALGORITHM_SSSP_MC => Algorithm::SsspMc,
        other => {
            return Err(Error::InvalidArgument(format!(
                "algorithm {other} is none of MCR_ALGORITHM_MR4LMS, _MINIHOP_MC, _SSSP_MC"
            )));
        }
    };
    Ok(Config::baseline(algorithm, entries))
}

impl McrRouter {
    fn new(fabric: Fabric, algorithm: u32, mft_limit: u32) -> Result<Self, Error> {
        let config = config(algorithm, mft_limit)?;
        let guids = fabric
            .node_ids()
            .filter_map(|n| {
                let info = fabric.node(n);
                info.guid
                    .or_else(|| guid_of_name(&info.name))
                    .map(|g| (g, n))
            })
            .collect();
        let hops = HopTable::new(&fabric)?;
        let router = Router::new_shared(Arc::new(fabric), Arc::new(hops), config)?;
        Ok(Self {
            router,
            guids,
            delta: Vec::new(),
            poisoned: false,
        })
    }

    fn node(&self, guid: u64) -> Result<NodeId, Error> {
        self.guids
            .get(&guid)
            .copied()
            .ok_or(Error::UnknownGuid(guid))
    }

    fn switch(&self, guid: u64) -> Result<NodeId, Error> {
        let node = self.node(guid)?;
        if self.router.fabric().is_switch(node) {
            Ok(node)
        } else {
            Err(mcast_route::Error::NotASwitch { node }.into())
        }
    }

    fn link(&self, guid: u64, port: u16) -> Result<fabric_model::LinkId, Error> {
        let node = self.node(guid)?;
        self.router
            .fabric()
            .link_at(node, PortNo::new(port))
            .ok_or(Error::NoLink { guid, port })
    }

    fn mlid(color: mcast_route::Color) -> Result<u16, Error> {
        color
            .mlid()
            .ok_or_else(|| mcast_route::Error::MlidOutOfRange { color }.into())
    }
}

/// The GUID in an ibnetdiscover id such as `"S-0002c90000000001"` (`S`, `H` or `R`, a dash,
/// 16 hex digits), for files without `switchguid=`/`caguid=` lines.
fn guid_of_name(name: &str) -> Option<u64> {
    let hex = name
        .strip_prefix("S-")
        .or_else(|| name.strip_prefix("H-"))
        .or_else(|| name.strip_prefix("R-"))?;
    (hex.len() == 16)
        .then(|| u64::from_str_radix(hex, 16).ok())
        .flatten()
}

/// Runs `body` on a live router: a null handle is `MCR_ERR_NULL`, a poisoned one
/// `MCR_ERR_POISONED`, and a panic poisons it.
///
/// # Safety
/// `router` is null or a live router from this library, used by no other thread meanwhile.
unsafe fn with_router(
    router: *mut McrRouter,
    body: impl FnOnce(&mut McrRouter) -> Result<(), Error>,
) -> c_int {
    // SAFETY: the caller's contract above.
    let r = match unsafe { ptr::handle(router, "router") } {
        Ok(r) => r,
        Err(e) => return finish(Err(e)),
    };
    if r.poisoned {
        return finish(Err(Error::Poisoned));
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut *r)));
    finish(match outcome {
        Ok(result) => result,
        Err(payload) => {
            r.poisoned = true;
            Err(Error::Panic(panic_text(payload.as_ref())))
        }
    })
}

/// Stores a new router in `*out`.
///
/// # Safety
/// `out` is valid for a pointer write (checked for null).
unsafe fn store(out: *mut *mut McrRouter, router: McrRouter) -> Result<(), Error> {
    // SAFETY: the caller's contract above.
    let slot = unsafe { ptr::out(out, "out") }?;
    *slot = Box::into_raw(Box::new(router));
    Ok(())
}

/// Builds a router over `fabric`, which it consumes (frees) whether it succeeds or not.
/// `algorithm` is `MCR_ALGORITHM_MR4LMS`, `_MINIHOP_MC` or `_SSSP_MC`; `mft_limit` the MFT
/// entries per switch (1..=16383), or 0 for no limit. On success `*out` holds the router, to
/// free with `mcr_router_free`.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_INVALID_ARGUMENT` for another algorithm or a
/// limit past 16383; `MCR_ERR_FABRIC` for a fabric without switches or too large.
///
/// # Safety
/// `fabric` is null or a live fabric from `mcr_fabric_new`, not used after this call; `out`
/// is null or valid for a pointer write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_router_new(
    fabric: *mut McrFabric,
    algorithm: u32,
    mft_limit: u32,
    out: *mut *mut McrRouter,
) -> c_int {
    guard(|| {
        if fabric.is_null() {
            return Err(Error::Null("fabric"));
        }
        // SAFETY: a live fabric from `mcr_fabric_new` (`Box::into_raw`), given up by the
        // caller.
        let f = unsafe { Box::from_raw(fabric) };
        let router = McrRouter::new(f.builder.build()?, algorithm, mft_limit)?;
        // SAFETY: the caller's contract on `out`.
        unsafe { store(out, router) }
    })
}

/// Builds a router over the fabric of an ibnetdiscover text (`len` bytes at `text`, UTF-8,
/// no terminating NUL needed): nodes are named by the GUIDs of their `S-`/`H-` ids, as
/// `mcr_fabric_add_node` names them. `algorithm`, `mft_limit` and `out` as in
/// `mcr_router_new`.
///
/// Returns as `mcr_router_new`, and `MCR_ERR_INVALID_ARGUMENT` for text that is not UTF-8,
/// `MCR_ERR_FABRIC` for text that does not read.
///
/// # Safety
/// `text` is null or valid for reads of `len` bytes; `out` as in `mcr_router_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_router_from_ibnetdiscover(
    text: *const c_char,
    len: usize,
    algorithm: u32,
    mft_limit: u32,
    out: *mut *mut McrRouter,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract on `text` and `len`.
        let text = unsafe { ptr::text(text, len) }?;
        let fabric = fabric_model::ibnet::read_ibnetdiscover(text)?;
        let router = McrRouter::new(fabric, algorithm, mft_limit)?;
        // SAFETY: the caller's contract on `out`.
        unsafe { store(out, router) }
    })
}

/// Frees a router. Null is accepted and ignored.
///
/// # Safety
/// `router` is null or a live router from `mcr_router_new` or
/// `mcr_router_from_ibnetdiscover`, not used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_router_free(router: *mut McrRouter) {
    if !router.is_null() {
        // SAFETY: a live router from `Box::into_raw` in `store`, given up by the caller.
        let r = unsafe { Box::from_raw(router) };
        // Dropping plain data cannot panic, but a panic must not unwind into C: caught.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(r)));
    }
}

/// Joins the port `port_guid` (a CA's node GUID, or a switch's for its port 0) to the group
/// of the 16-byte MGID at `mgid` (network byte order), creating the group on its first
/// member; `*mlid` receives the group's MLID (0xC000 + its color), the same from its first
/// join to its last leave.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_MEMBERSHIP` for a port that is a member already; `MCR_ERR_TOPOLOGY` for a port
/// whose cable or switch is down; `MCR_ERR_ENTRIES` when a baseline has no MLID left;
/// `MCR_ERR_ROUTE` for a port that cannot reach the group.
///
/// # Safety
/// `router` is null or a live router used by no other thread meanwhile; `mgid` null or valid
/// for reads of 16 bytes; `mlid` null or valid for a `uint16_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_join(
    router: *mut McrRouter,
    mgid: *const u8,
    port_guid: u64,
    mlid: *mut u16,
) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `mgid` and `mlid`.
        let (gid, out) = unsafe { (ptr::mgid(mgid)?, ptr::out(mlid, "mlid")?) };
        let port = r.node(port_guid)?;
        let joined = r.router.join(gid, port)?;
        *out = McrRouter::mlid(joined.color)?;
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// Takes the port `port_guid` out of the group of the MGID at `mgid`; `*deleted` receives 1
/// when it was the last member (the group is gone and its MLID free), else 0.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_UNKNOWN_MGID`; `MCR_ERR_MEMBERSHIP` for a port that is no member.
///
/// # Safety
/// As `mcr_join`, with `deleted` null or valid for an `int` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_leave(
    router: *mut McrRouter,
    mgid: *const u8,
    port_guid: u64,
    deleted: *mut c_int,
) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `mgid` and `deleted`.
        let (gid, out) = unsafe { (ptr::mgid(mgid)?, ptr::out(deleted, "deleted")?) };
        let port = r.node(port_guid)?;
        let left = r.router.leave(gid, port)?;
        *out = c_int::from(left.deleted);
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// The MLID of the group of the MGID at `mgid`, in `*mlid`.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_MGID`.
///
/// # Safety
/// As `mcr_join`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_group_mlid(
    router: *mut McrRouter,
    mgid: *const u8,
    mlid: *mut u16,
) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `mgid` and `mlid`.
        let (gid, out) = unsafe { (ptr::mgid(mgid)?, ptr::out(mlid, "mlid")?) };
        let group = r
            .router
            .group_of(gid)
            .ok_or(mcast_route::Error::UnknownMgid { mgid: gid })?;
        *out = McrRouter::mlid(r.router.group(group)?.color)?;
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// Applies one topology event on the cable at port `port` of node `guid`.
///
/// # Safety
/// As `mcr_link_down`.
unsafe fn link_event(
    router: *mut McrRouter,
    guid: u64,
    port: u16,
    up: bool,
    outcome: *mut McrEventOutcome,
) -> c_int {
    let body = |r: &mut McrRouter| {
        let link = r.link(guid, port)?;
        let done = if up {
            r.router.link_up(link)?
        } else {
            r.router.link_down(link)?
        };
        // SAFETY: the caller's contract on `outcome`.
        unsafe { report(outcome, &done) };
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// The cable at port `port` of node `guid` went down: the trees across it are repaired
/// (members it cut off leave their groups).
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_NO_LINK`; `MCR_ERR_TOPOLOGY` when it is down already.
///
/// `outcome`, when not null, receives what the event did.
///
/// # Safety
/// `router` is null or a live router used by no other thread meanwhile; `outcome` null or
/// valid for a write of an `mcr_event_outcome`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_link_down(
    router: *mut McrRouter,
    guid: u64,
    port: u16,
    outcome: *mut McrEventOutcome,
) -> c_int {
    // SAFETY: the caller's contract on `router` and `outcome`.
    unsafe { link_event(router, guid, port, false, outcome) }
}

/// The cable at port `port` of node `guid` came back up.
///
/// Returns as `mcr_link_down`; `MCR_ERR_TOPOLOGY` when it is up already or a switch at its
/// end is down.
///
/// # Safety
/// As `mcr_link_down`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_link_up(
    router: *mut McrRouter,
    guid: u64,
    port: u16,
    outcome: *mut McrEventOutcome,
) -> c_int {
    // SAFETY: the caller's contract on `router` and `outcome`.
    unsafe { link_event(router, guid, port, true, outcome) }
}

/// Applies a switch event on the switch `guid`.
///
/// # Safety
/// As `mcr_link_down`.
unsafe fn switch_event(
    router: *mut McrRouter,
    guid: u64,
    up: bool,
    outcome: *mut McrEventOutcome,
) -> c_int {
    let body = |r: &mut McrRouter| {
        let sw = r.switch(guid)?;
        let done = if up {
            r.router.switch_up(sw)?
        } else {
            r.router.switch_down(sw)?
        };
        // SAFETY: the caller's contract on `outcome`.
        unsafe { report(outcome, &done) };
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// The switch `guid` went down with its cables: the trees through it are repaired.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_ROUTE` when `guid` is no switch; `MCR_ERR_TOPOLOGY` when it is down already.
///
/// # Safety
/// As `mcr_link_down`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_switch_down(
    router: *mut McrRouter,
    guid: u64,
    outcome: *mut McrEventOutcome,
) -> c_int {
    // SAFETY: the caller's contract on `router` and `outcome`.
    unsafe { switch_event(router, guid, false, outcome) }
}

/// The switch `guid` came back up with its cables (those not down by themselves).
///
/// Returns as `mcr_switch_down`; `MCR_ERR_TOPOLOGY` when it is up already.
///
/// # Safety
/// As `mcr_link_down`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_switch_up(
    router: *mut McrRouter,
    guid: u64,
    outcome: *mut McrEventOutcome,
) -> c_int {
    // SAFETY: the caller's contract on `router` and `outcome`.
    unsafe { switch_event(router, guid, true, outcome) }
}

/// Takes the MFT delta: the (switch, block) pairs whose content changed since the last call
/// (the first call: every block holding an entry), kept in the router for
/// `mcr_delta_entry`; `*count` receives their number. Each pair is to be sent at every port
/// position (`mcr_mft_positions`).
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`.
///
/// # Safety
/// As `mcr_join`, with `count` null or valid for a `size_t` write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_take_mft_delta(router: *mut McrRouter, count: *mut usize) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `count`.
        let out = unsafe { ptr::out(count, "count") }?;
        let taken = r.router.take_mft_delta();
        let fabric = r.router.fabric();
        let delta: Vec<(u64, u16)> = taken
            .into_iter()
            .map(|(sw, block)| (fabric.node(sw).guid.unwrap_or(0), block))
            .collect();
        r.delta = delta;
        *out = r.delta.len();
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// Entry `index` of the last delta taken: the switch's GUID in `*switch_guid`, the block
/// number (MLIDs `0xC000 + 32·block ..`) in `*block`.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_OUT_OF_RANGE` for an index
/// past the delta's count.
///
/// # Safety
/// As `mcr_join`, with `switch_guid` and `block` null or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_delta_entry(
    router: *mut McrRouter,
    index: usize,
    switch_guid: *mut u64,
    block: *mut u16,
) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `switch_guid` and `block`.
        let (g, b) = unsafe {
            (
                ptr::out(switch_guid, "switch_guid")?,
                ptr::out(block, "block")?,
            )
        };
        let &(guid, blk) = r.delta.get(index).ok_or(Error::OutOfRange {
            what: "delta entry",
            index,
            len: r.delta.len(),
        })?;
        (*g, *b) = (guid, blk);
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// The number of MFT port positions of the switch `switch_guid` (`⌈(ports + 1)/16⌉`, port 0
/// counted), in `*positions`.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_ROUTE` when `switch_guid` is no switch.
///
/// # Safety
/// As `mcr_join`, with `positions` null or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_mft_positions(
    router: *mut McrRouter,
    switch_guid: u64,
    positions: *mut u8,
) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `positions`.
        let out = unsafe { ptr::out(positions, "positions") }?;
        let sw = r.switch(switch_guid)?;
        let n = (usize::from(r.router.fabric().radix(sw)) + 1).div_ceil(16);
        *out = u8::try_from(n)
            .map_err(|_| Error::InvalidArgument(format!("{n} port positions exceed 255")))?;
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// Block `block` at port position `position` of the switch `switch_guid`'s MFT: 32 port
/// masks written to `masks[0..32]`, mask `i` for MLID `0xC000 + 32·block + i`, bit `j` for
/// port `16·position + j` (host byte order; an SMP carries them big-endian).
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`; `MCR_ERR_UNKNOWN_GUID`;
/// `MCR_ERR_ROUTE` when `switch_guid` is no switch; `MCR_ERR_OUT_OF_RANGE` for a block past
/// the last MLID (0xFFFE) or a position past the switch's.
///
/// # Safety
/// As `mcr_join`, with `masks` null or valid for writes of 32 `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_mft_block(
    router: *mut McrRouter,
    switch_guid: u64,
    block: u16,
    position: u8,
    masks: *mut u16,
) -> c_int {
    let body = |r: &mut McrRouter| {
        if masks.is_null() {
            return Err(Error::Null("masks"));
        }
        let sw = r.switch(switch_guid)?;
        let blocks = r.router.mft_block(sw, block).map_err(|e| match e {
            mcast_route::Error::MlidOutOfRange { .. } => Error::OutOfRange {
                what: "MFT block",
                index: usize::from(block),
                len: 512,
            },
            other => other.into(),
        })?;
        let len = blocks.len();
        let b = blocks.get(usize::from(position)).ok_or(Error::OutOfRange {
            what: "port position",
            index: usize::from(position),
            len,
        })?;
        // SAFETY: `masks` is not null and the caller guarantees 32 writable `uint16_t`;
        // `b.masks` is a distinct array of 32.
        unsafe { std::ptr::copy_nonoverlapping(b.masks.as_ptr(), masks, b.masks.len()) };
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}

/// The router's statistics, in `*stats`.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_POISONED`.
///
/// # Safety
/// As `mcr_join`, with `stats` null or valid for a write of an `mcr_stats`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_router_stats(router: *mut McrRouter, stats: *mut McrStats) -> c_int {
    let body = |r: &mut McrRouter| {
        // SAFETY: the caller's contract on `stats`.
        let out = unsafe { ptr::out(stats, "stats") }?;
        let s = r.router.stats();
        let fabric = r.router.fabric();
        let mut most = 0usize;
        for &sw in fabric.switches() {
            most = most.max(r.router.entries(sw)?.len());
        }
        *out = McrStats {
            groups: s.groups as u64,
            trees: s.trees as u64,
            colors_used: s.colors_used as u64,
            merged_groups: s.merged_groups as u64,
            max_efi: s.max_efi,
            max_entries_per_switch: u32::try_from(most).unwrap_or(u32::MAX),
        };
        Ok(())
    };
    // SAFETY: the caller's contract on `router`.
    unsafe { with_router(router, body) }
}
