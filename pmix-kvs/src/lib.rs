//! # pmix-kvs
//!
//! The PMIx key-value store: Put/Commit/Fence/Get with scopes and typed values, the 2N-lock, the compact modex codec, fence collectives and direct modex.
//!
//! Follows the paper `002_039e4d8c57973cf4.txt` in `shared/seeds/`; the contract is the "pmix-kvs" section of
//! `shared/DESIGN.md`. This crate is being built: it has no public API yet.

