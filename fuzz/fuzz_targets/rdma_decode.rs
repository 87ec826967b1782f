#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| rdma_window::fuzz_harness::decode(data));
