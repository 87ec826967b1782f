#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| topo_cluster::fuzz_harness::open_mpi_rules(data));
