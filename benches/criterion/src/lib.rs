//! # criterion-benches
//!
//! Criterion benchmarks of every fabric crate, one file per crate (`benches/<crate>.rs`) and
//! one per comparison a crate's design rests on (`benches/<crate>_<what>.rs`: bitvec against
//! the hand-written bit sets, LAT estimation on the shapes that decide its cost, the PMIx
//! client's local-peer lookups). They live in this package, apart from the crates they
//! measure, so that `cargo test --workspace` never builds criterion:
//!
//! ```sh
//! cargo bench -p criterion-benches                          # every benchmark
//! cargo bench -p criterion-benches --bench dag_sched_lat    # one file
//! cargo test --workspace --benches                          # each run once, as CI does
//! ```
//!
//! The library itself is empty.
