#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcast_route::fuzz_harness::dump(data));
