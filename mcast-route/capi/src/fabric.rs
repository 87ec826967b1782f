//! The fabric a subnet manager discovered, built node by node and cable by cable.

use std::collections::HashMap;
use std::ffi::c_int;

use fabric_model::{FabricBuilder, NodeId, NodeInfo, PortNo};

use crate::status::{MCR_NODE_CA, MCR_NODE_SWITCH, guard};
use crate::{Error, ptr};

/// A fabric being built (opaque to C): nodes named by their GUID, cables by (GUID, port)
/// ends. `mcr_router_new` consumes it.
#[derive(Debug, Default)]
pub struct McrFabric {
    pub(crate) builder: FabricBuilder,
    pub(crate) guids: HashMap<u64, NodeId>,
}

impl McrFabric {
    fn add_node(&mut self, kind: u32, guid: u64, ports: u16) -> Result<(), Error> {
        let info = match kind {
            MCR_NODE_SWITCH => NodeInfo::switch(format!("S-{guid:016x}"), ports),
            MCR_NODE_CA => NodeInfo::terminal(format!("H-{guid:016x}"), ports),
            other => {
                return Err(Error::InvalidArgument(format!(
                    "node kind {other} is neither MCR_NODE_SWITCH nor MCR_NODE_CA"
                )));
            }
        };
        if self.guids.contains_key(&guid) {
            return Err(Error::InvalidArgument(format!(
                "GUID 0x{guid:016x} was added already"
            )));
        }
        let id = self.builder.add_node(info.with_guid(guid))?;
        self.guids.insert(guid, id);
        Ok(())
    }

    fn node(&self, guid: u64) -> Result<NodeId, Error> {
        self.guids
            .get(&guid)
            .copied()
            .ok_or(Error::UnknownGuid(guid))
    }

    fn add_link(&mut self, a: u64, pa: u16, b: u64, pb: u16) -> Result<(), Error> {
        let (na, nb) = (self.node(a)?, self.node(b)?);
        self.builder
            .link(na, PortNo::new(pa), nb, PortNo::new(pb))?;
        Ok(())
    }
}

/// A new, empty fabric. Free it with `mcr_fabric_free`, or hand it to `mcr_router_new`
/// (which frees it). Never null.
#[unsafe(no_mangle)]
pub extern "C" fn mcr_fabric_new() -> *mut McrFabric {
    Box::into_raw(Box::default())
}

/// Frees a fabric from `mcr_fabric_new` that was not handed to `mcr_router_new`. Null is
/// accepted and ignored.
///
/// # Safety
/// `fabric` is null or a fabric from `mcr_fabric_new` not freed or consumed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_fabric_free(fabric: *mut McrFabric) {
    if !fabric.is_null() {
        // SAFETY: the caller hands back a live fabric from `mcr_fabric_new`, which came from
        // `Box::into_raw`, and gives up its use.
        drop(unsafe { Box::from_raw(fabric) });
    }
}

/// Adds a node: `kind` is `MCR_NODE_SWITCH` or `MCR_NODE_CA`, `guid` its node GUID (unique),
/// `ports` its number of external ports (1..=65535; a switch's port 0 is implied).
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_INVALID_ARGUMENT` for another kind or a GUID
/// added already; `MCR_ERR_FABRIC` for zero ports.
///
/// # Safety
/// `fabric` is null or a live fabric from `mcr_fabric_new`, used by no other thread
/// meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_fabric_add_node(
    fabric: *mut McrFabric,
    kind: u32,
    guid: u64,
    ports: u16,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract above.
        let f = unsafe { ptr::handle(fabric, "fabric") }?;
        f.add_node(kind, guid, ports)
    })
}

/// Adds a cable between port `port_a` of the node `guid_a` and port `port_b` of `guid_b`
/// (ports from 1). Each cable once, whichever end first.
///
/// Returns `MCR_OK`; `MCR_ERR_NULL`; `MCR_ERR_UNKNOWN_GUID`; `MCR_ERR_FABRIC` for a port past
/// the node's radix or in use already, or both ends on one node.
///
/// # Safety
/// As `mcr_fabric_add_node`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcr_fabric_add_link(
    fabric: *mut McrFabric,
    guid_a: u64,
    port_a: u16,
    guid_b: u64,
    port_b: u16,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract above.
        let f = unsafe { ptr::handle(fabric, "fabric") }?;
        f.add_link(guid_a, port_a, guid_b, port_b)
    })
}
