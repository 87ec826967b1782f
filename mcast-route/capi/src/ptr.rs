//! Reading C's pointers: each helper turns a pointer the caller vouches for into a reference,
//! or a null into `MCR_ERR_NULL`. Their callers' safety contracts (the header's) say what
//! the pointers must be.

use std::ffi::c_char;

use mcast_route::Gid;

use crate::Error;

/// Bytes in an MGID.
pub(crate) const GID_BYTES: usize = 16;

/// `*p` for writing, or [`Error::Null`].
///
/// # Safety
/// `p` is null or valid for writes of a `T` and not aliased for the call's length.
pub(crate) unsafe fn out<'a, T>(p: *mut T, name: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: the caller guarantees `p` is null or valid and unaliased; null is checked.
    unsafe { p.as_mut() }.ok_or(Error::Null(name))
}

/// `&mut *p` for a handle, or [`Error::Null`].
///
/// # Safety
/// `p` is null or a live handle this library returned, used by no other thread meanwhile.
pub(crate) unsafe fn handle<'a, T>(p: *mut T, name: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: as `out`: the caller passes null or a live, unaliased handle.
    unsafe { p.as_mut() }.ok_or(Error::Null(name))
}

/// The 16 bytes at `p` as an MGID, in network byte order (as an MCMemberRecord carries it).
///
/// # Safety
/// `p` is null or valid for reads of 16 bytes.
pub(crate) unsafe fn mgid(p: *const u8) -> Result<Gid, Error> {
    if p.is_null() {
        return Err(Error::Null("mgid"));
    }
    let mut bytes = [0u8; GID_BYTES];
    // SAFETY: `p` is not null and the caller guarantees 16 readable bytes; `bytes` is a
    // distinct local array of 16 bytes.
    unsafe { std::ptr::copy_nonoverlapping(p, bytes.as_mut_ptr(), GID_BYTES) };
    Ok(Gid(u128::from_be_bytes(bytes)))
}

/// `len` bytes at `p` as UTF-8 text.
///
/// # Safety
/// `p` is null or valid for reads of `len` bytes, unchanged during the call.
pub(crate) unsafe fn text<'a>(p: *const c_char, len: usize) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::Null("text"));
    }
    if len > isize::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "length {len} exceeds isize::MAX"
        )));
    }
    // SAFETY: `p` is not null, `len` fits an isize, and the caller guarantees `len` readable
    // bytes that do not change during the call.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
    std::str::from_utf8(bytes)
        .map_err(|e| Error::InvalidArgument(format!("the text is not UTF-8: {e}")))
}
