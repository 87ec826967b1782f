//! fabric-model (being written)
#![forbid(unsafe_code)]
