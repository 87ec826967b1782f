//! # pmix-kvs
//!
//! The PMIx key-value store as an embeddable, I/O-free Rust library: Put/Commit/Fence/Get
//! with scopes and typed values, the 2N-lock that lets a node's processes read the store
//! without contending, the compact modex codec, fence collectives as sans-IO state machines
//! and direct modex.
//!
//! It follows the survey `002_039e4d8c57973cf4.txt` (PMI/PMIx process-management interfaces),
//! §4.1 (the 2N-lock of Polyakov et al., PMIx 2.1) and §4.2–4.3 (the data-representation
//! optimisations and the Bruck fence), and the PMIx Standard v5.0 for the semantics. The
//! contract is the "pmix-kvs" section of `shared/DESIGN.md`.
//!
//! * [`store`]: [`NodeStore`] (what a node's server keeps) and [`Client`] (one process):
//!   `put` stages, `commit` publishes, `get` answers found, not found, exists outside scope,
//!   pending until a deadline, or forward to the target's node (direct modex).
//!   [`Client::get_with`] reads a hit in place instead of cloning it.
//! * [`lock`]: the 2N-lock ([`lock::RawTwoNLock`], [`lock::TwoNLock`]) and how its waiters
//!   wait ([`WaitStrategy`]: spin, spin then yield, or spin then sleep until woken, for more
//!   threads than cores).
//! * [`fence`]: tree, ring and Bruck allgatherv as state machines, and their α–β cost model.
//! * [`codec`]: naive and compact fence-blob layouts ([`varint`] holds LEB128, flex128 and
//!   zig-zag).
//!
//! ```
//! use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};
//!
//! let mut store = NodeStore::new();
//! let ns = store.register_job("job1", &JobInfo {
//!     size: 4,
//!     local_peers: vec![Rank(0), Rank(1)],
//!     node_id: 0,
//!     hostname: "n0".into(),
//!     num_nodes: 2,
//!     proc_nodes: Some(vec![0, 0, 1, 1]),
//!     extra: vec![],
//! })?;
//! let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
//! let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
//! p0.put(Scope::Global, "addr", Value::Bytes(vec![1, 2, 3]))?;
//! let wait = GetOptions { deadline: Some(1_000), ..GetOptions::default() };
//! // Not committed yet: rank 1 would wait.
//! assert_eq!(p1.get(&store, p0.id(), "addr", &wait, 0)?, GetOutcome::Pending { deadline: Some(1_000) });
//! p0.commit(&mut store)?;
//! assert_eq!(p1.get(&store, p0.id(), "addr", &wait, 10)?, GetOutcome::Found(Value::Bytes(vec![1, 2, 3])));
//! // Job-level data under WILDCARD.
//! let job = ProcId::new(ns, Rank::WILDCARD);
//! assert_eq!(p1.get(&store, job, "pmix.job.size", &GetOptions::default(), 10)?, GetOutcome::Found(Value::U32(4)));
//! # Ok::<(), pmix_kvs::Error>(())
//! ```
#![deny(unsafe_code)]

pub mod blob;
pub mod codec;
pub mod error;
pub mod fence;
pub mod fuzz_harness;
mod fxhash;
pub mod ident;
mod keymap;
pub mod keys;
#[allow(unsafe_code)]
pub mod lock;
pub mod store;
pub mod value;
pub mod varint;
pub mod workload;

pub use blob::{FenceBlob, ProcEntry};
pub use error::{Error, Result};
pub use ident::{Nspace, NspaceTable, ProcId, Rank};
pub use lock::WaitStrategy;
pub use store::{Client, DmodexAnswer, DmodexRequest, GetOptions, GetOutcome, JobInfo, NodeStore};
pub use value::{DataType, Scope, Value};
