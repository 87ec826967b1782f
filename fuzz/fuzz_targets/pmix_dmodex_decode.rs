#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| pmix_kvs::fuzz_harness::dmodex_decode(data));
