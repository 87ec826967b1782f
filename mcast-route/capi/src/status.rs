//! Status codes, the per-thread last error message, and the guard every entry point runs
//! under (no panic crosses the C boundary).

use std::cell::RefCell;
use std::ffi::{CString, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::Error;

/// Success.
pub const MCR_OK: c_int = 0;
/// A pointer argument was null.
pub const MCR_ERR_NULL: c_int = 1;
/// An argument out of its domain: an unknown algorithm or node kind, a bad length, a zero or
/// too large MFT limit, text that is not UTF-8, a GUID added twice.
pub const MCR_ERR_INVALID_ARGUMENT: c_int = 2;
/// The fabric could not be built (a port past the radix or in use, a self-loop) or read.
pub const MCR_ERR_FABRIC: c_int = 3;
/// No node of the fabric has the GUID given.
pub const MCR_ERR_UNKNOWN_GUID: c_int = 4;
/// No cable at the port given.
pub const MCR_ERR_NO_LINK: c_int = 5;
/// An index past the end: a delta entry, an MFT block past the last MLID, a port position.
pub const MCR_ERR_OUT_OF_RANGE: c_int = 6;
/// The MFT entries are all in use (a baseline, one MLID per group).
pub const MCR_ERR_ENTRIES: c_int = 7;
/// No group has the MGID given.
pub const MCR_ERR_UNKNOWN_MGID: c_int = 8;
/// A join of a member, a leave of a non-member, or a switch joined as a terminal.
pub const MCR_ERR_MEMBERSHIP: c_int = 9;
/// A topology event that does not apply: down already, up already, a link up while a switch
/// at its end is down, a port to join whose cable or switch is down.
pub const MCR_ERR_TOPOLOGY: c_int = 10;
/// Any other refusal of the router (members that cannot be connected, for one).
pub const MCR_ERR_ROUTE: c_int = 11;
/// A call on this router panicked earlier; it refuses every call but `mcr_router_free`.
pub const MCR_ERR_POISONED: c_int = 12;
/// The call panicked (a defect of the library), caught at the boundary.
pub const MCR_ERR_PANIC: c_int = 13;

/// Node kind of `mcr_fabric_add_node`: a switch.
pub const MCR_NODE_SWITCH: u32 = 1;
/// Node kind of `mcr_fabric_add_node`: a channel adapter (or router), a terminal.
pub const MCR_NODE_CA: u32 = 2;

/// Algorithm of `mcr_router_new`: MR4LMS (colors shared by trees on disjoint switches).
pub const MCR_ALGORITHM_MR4LMS: u32 = 0;
/// Algorithm of `mcr_router_new`: OpenSM's default MINIHOP-MC, one MLID per group.
pub const MCR_ALGORITHM_MINIHOP_MC: u32 = 1;
/// Algorithm of `mcr_router_new`: OpenSM's SSSP-MC, one MLID per group.
pub const MCR_ALGORITHM_SSSP_MC: u32 = 2;

/// Every status code with its name, in code order.
pub(crate) const NAMES: [(c_int, &std::ffi::CStr); 14] = [
    (MCR_OK, c"MCR_OK"),
    (MCR_ERR_NULL, c"MCR_ERR_NULL"),
    (MCR_ERR_INVALID_ARGUMENT, c"MCR_ERR_INVALID_ARGUMENT"),
    (MCR_ERR_FABRIC, c"MCR_ERR_FABRIC"),
    (MCR_ERR_UNKNOWN_GUID, c"MCR_ERR_UNKNOWN_GUID"),
    (MCR_ERR_NO_LINK, c"MCR_ERR_NO_LINK"),
    (MCR_ERR_OUT_OF_RANGE, c"MCR_ERR_OUT_OF_RANGE"),
    (MCR_ERR_ENTRIES, c"MCR_ERR_ENTRIES"),
    (MCR_ERR_UNKNOWN_MGID, c"MCR_ERR_UNKNOWN_MGID"),
    (MCR_ERR_MEMBERSHIP, c"MCR_ERR_MEMBERSHIP"),
    (MCR_ERR_TOPOLOGY, c"MCR_ERR_TOPOLOGY"),
    (MCR_ERR_ROUTE, c"MCR_ERR_ROUTE"),
    (MCR_ERR_POISONED, c"MCR_ERR_POISONED"),
    (MCR_ERR_PANIC, c"MCR_ERR_PANIC"),
];

thread_local! {
    /// The message of the last failed call on this thread (empty after a success).
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last(message: String) {
    // An interior NUL (from a node name, say) would cut the C string: shown as a space.
    let bytes: Vec<u8> = message
        .into_bytes()
        .into_iter()
        .map(|b| if b == 0 { b' ' } else { b })
        .collect();
    let text = CString::new(bytes).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = text);
}

/// The text of a caught panic's payload.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// Records the outcome of a call for `mcr_last_error` and turns it into its status code.
pub(crate) fn finish(outcome: Result<(), Error>) -> c_int {
    match outcome {
        Ok(()) => {
            set_last(String::new());
            MCR_OK
        }
        Err(e) => {
            let code = e.status();
            set_last(e.to_string());
            code
        }
    }
}

/// Runs one entry point's body: its error, or a panic caught, becomes a status code with the
/// message kept for `mcr_last_error`.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Error>) -> c_int {
    finish(match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => Err(Error::Panic(panic_text(payload.as_ref()))),
    })
}

/// The message of the last call on this thread that failed, or an empty string after a
/// success. The pointer stays valid until the next `mcr_*` call on the same thread; never
/// null.
#[unsafe(no_mangle)]
pub extern "C" fn mcr_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

/// The name of a status code (`"MCR_ERR_NULL"`), or `"MCR_UNKNOWN_STATUS"` for a number that
/// is none. A static string; never null.
#[unsafe(no_mangle)]
pub extern "C" fn mcr_status_name(code: c_int) -> *const c_char {
    NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(c"MCR_UNKNOWN_STATUS".as_ptr(), |(_, n)| n.as_ptr())
}
