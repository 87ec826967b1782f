#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| dag_sched::fuzz_harness::dag_builder(data));
