//! Helpers shared by the tests: the library's invariant check (flooding along the MFTs and
//! tree checks), which the fuzz targets run too.

pub(crate) use mcast_route::fuzz_harness::check_state;
