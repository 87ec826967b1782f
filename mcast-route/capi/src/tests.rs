//! The entry points called from Rust as C calls them: raw pointers, nulls and bad values.
//! Small enough for Miri (`cargo +nightly miri test -p mcast-route-capi --lib`), which checks
//! the unsafe pointer handling of every entry point these tests reach.

use std::ffi::CStr;
use std::ptr;

use crate::*;

fn last_error() -> String {
    // SAFETY: mcr_last_error returns a NUL-terminated string valid until the next call.
    unsafe { CStr::from_ptr(mcr_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Leaf switches 0x10 and 0x11 under spine 0x20; hosts 1, 2 on 0x10 and 3 on 0x11.
fn router(algorithm: u32) -> *mut McrRouter {
    let f = mcr_fabric_new();
    // SAFETY: `f` is a live fabric from mcr_fabric_new; `out` a local pointer slot.
    unsafe {
        for (kind, guid, ports) in [
            (MCR_NODE_SWITCH, 0x10, 3),
            (MCR_NODE_SWITCH, 0x11, 3),
            (MCR_NODE_SWITCH, 0x20, 2),
            (MCR_NODE_CA, 1, 1),
            (MCR_NODE_CA, 2, 1),
            (MCR_NODE_CA, 3, 1),
        ] {
            assert_eq!(mcr_fabric_add_node(f, kind, guid, ports), MCR_OK);
        }
        for (a, pa, b, pb) in [
            (0x10, 1, 1, 1),
            (0x10, 2, 2, 1),
            (0x11, 1, 3, 1),
            (0x10, 3, 0x20, 1),
            (0x11, 3, 0x20, 2),
        ] {
            assert_eq!(mcr_fabric_add_link(f, a, pa, b, pb), MCR_OK);
        }
        let mut out = ptr::null_mut();
        assert_eq!(mcr_router_new(f, algorithm, 4, &raw mut out), MCR_OK);
        assert!(!out.is_null());
        out
    }
}

fn mgid(n: u8) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[0] = 0xff;
    g[1] = 0x15;
    g[15] = n;
    g
}

#[test]
fn nulls_are_refused_with_their_code() {
    let mut mlid = 0u16;
    let g = mgid(1);
    // SAFETY: every pointer is null or a valid local.
    unsafe {
        assert_eq!(
            mcr_fabric_add_node(ptr::null_mut(), MCR_NODE_CA, 1, 1),
            MCR_ERR_NULL
        );
        assert!(last_error().contains("fabric"));
        assert_eq!(
            mcr_fabric_add_link(ptr::null_mut(), 1, 1, 2, 1),
            MCR_ERR_NULL
        );
        assert_eq!(
            mcr_router_new(ptr::null_mut(), 0, 0, ptr::null_mut()),
            MCR_ERR_NULL
        );
        assert_eq!(
            mcr_join(ptr::null_mut(), g.as_ptr(), 1, &raw mut mlid),
            MCR_ERR_NULL
        );
        let r = router(MCR_ALGORITHM_MR4LMS);
        assert_eq!(mcr_join(r, ptr::null(), 1, &raw mut mlid), MCR_ERR_NULL);
        assert_eq!(mcr_join(r, g.as_ptr(), 1, ptr::null_mut()), MCR_ERR_NULL);
        assert_eq!(mcr_take_mft_delta(r, ptr::null_mut()), MCR_ERR_NULL);
        assert_eq!(mcr_mft_block(r, 0x10, 0, 0, ptr::null_mut()), MCR_ERR_NULL);
        assert_eq!(mcr_router_stats(r, ptr::null_mut()), MCR_ERR_NULL);
        assert_eq!(
            mcr_router_from_ibnetdiscover(ptr::null(), 5, 0, 0, ptr::null_mut()),
            MCR_ERR_NULL
        );
        mcr_router_free(r);
        mcr_router_free(ptr::null_mut());
        mcr_fabric_free(ptr::null_mut());
    }
}

#[test]
fn a_join_reaches_the_blocks_and_the_delta() {
    let r = router(MCR_ALGORITHM_MR4LMS);
    let g = mgid(7);
    let (mut mlid, mut again, mut n) = (0u16, 0u16, 0usize);
    let mut masks = [0u16; 32];
    // SAFETY: `r` is a live router; every other pointer a valid local of the right size.
    unsafe {
        assert_eq!(mcr_join(r, g.as_ptr(), 1, &raw mut mlid), MCR_OK);
        assert_eq!(mcr_join(r, g.as_ptr(), 3, &raw mut again), MCR_OK);
        assert_eq!((mlid, again), (0xC000, 0xC000));
        assert_eq!(mcr_take_mft_delta(r, &raw mut n), MCR_OK);
        assert_eq!(n, 3);
        assert_eq!(mcr_mft_block(r, 0x10, 0, 0, masks.as_mut_ptr()), MCR_OK);
        assert_eq!(masks[0], 1 << 1 | 1 << 3);
        assert_eq!(mcr_mft_block(r, 0x20, 0, 0, masks.as_mut_ptr()), MCR_OK);
        assert_eq!(masks[0], 1 << 1 | 1 << 2);
        let (mut sw, mut block) = (0u64, 9u16);
        assert_eq!(mcr_delta_entry(r, 2, &raw mut sw, &raw mut block), MCR_OK);
        assert_eq!(block, 0);
        assert_eq!(
            mcr_delta_entry(r, 3, &raw mut sw, &raw mut block),
            MCR_ERR_OUT_OF_RANGE
        );
        let mut o = McrEventOutcome::default();
        assert_eq!(mcr_link_down(r, 0x11, 3, &raw mut o), MCR_OK);
        assert_eq!((o.members_left, o.groups_deleted), (1, 0));
        let mut deleted = -1;
        assert_eq!(mcr_leave(r, g.as_ptr(), 1, &raw mut deleted), MCR_OK);
        assert_eq!(deleted, 1);
        mcr_router_free(r);
    }
}

#[test]
fn bad_values_are_refused_with_their_code() {
    let f = mcr_fabric_new();
    let mut out = ptr::null_mut();
    let bad_utf8 = [0xffu8, 0xfe];
    // SAFETY: `f` is live until mcr_router_new consumes it; the text is 2 readable bytes.
    unsafe {
        assert_eq!(mcr_fabric_add_node(f, 3, 1, 1), MCR_ERR_INVALID_ARGUMENT);
        assert_eq!(
            mcr_router_new(f, 3, 0, &raw mut out),
            MCR_ERR_INVALID_ARGUMENT
        );
        assert!(out.is_null());
        assert_eq!(
            mcr_router_from_ibnetdiscover(bad_utf8.as_ptr().cast(), 2, 0, 0, &raw mut out),
            MCR_ERR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("UTF-8"));
    }
    let name = |c| {
        // SAFETY: mcr_status_name returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(mcr_status_name(c)) }
            .to_str()
            .unwrap_or("")
    };
    assert_eq!(name(MCR_ERR_MEMBERSHIP), "MCR_ERR_MEMBERSHIP");
    assert_eq!(name(99), "MCR_UNKNOWN_STATUS");
}
