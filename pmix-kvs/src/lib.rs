//! # pmix-kvs
//!
//! The PMIx key-value store as an embeddable, I/O-free Rust library: Put/Commit/Fence/Get
//! with scopes and typed values, the 2N-lock that lets a node's processes read the store
//! without contending, the compact modex codec, fence collectives as sans-IO state machines
//! and direct modex.
//!
//! It implements what the survey
//!
//! > Zhang Kun, Zhang Wei, Lu Kai, Dong Yong, Dai Yiqin (National University of Defense
//! > Technology), "百亿亿次级系统进程管理接口综述" (*A survey on the process management
//! > interface for exascale computing systems*), Computer Engineering & Science
//! > (计算机工程与科学), vol. 42, no. 10, pp. 1774–1783, 2020
//!
//! describes in its §4: the 2N-lock (§4.1), which it credits to Polyakov et al.
//! (A. Polyakov, B. Karasev, J. Hursey, J. Ladd, M. Brinskii, E. Shipunova, "A performance
//! analysis and optimization of PMIx-based HPC software stacks", EuroMPI 2019), the
//! data-representation optimisations (§4.2) and the modified Bruck fence (§4.3), with the
//! semantics of the PMIx Standard, version 5.0 (the PMIx Administrative Steering Committee).
//!
//! * [`NodeStore`] (what a node's server keeps) and [`Client`] (one process): `put` stages,
//!   `commit` publishes, `get` answers found, not found, exists outside scope, pending until
//!   a deadline, or forward to the target's node (direct modex). [`Client::get_with`] reads
//!   a hit in place instead of cloning it. [`JobInfo`] is what the resource manager
//!   registers; [`JobInfo::from_placement`] builds it from a placement of ranks on a
//!   `fabric_model` fabric.
//! * [`lock`]: the 2N-lock ([`lock::TwoNLock`]) and how its waiters wait ([`WaitStrategy`]:
//!   spin, spin then yield, or spin then sleep until woken, for more threads than cores).
//! * [`fence`]: tree, ring and Bruck allgatherv as state machines, and their α–β cost model;
//!   their messages on a wire and a fence of [`FenceBlob`]s over bytes ([`fence::BlobFence`]).
//! * [`region`]: the base of a shared-memory node store: a position-independent, versioned
//!   layout in a byte region the caller provides, with a 2N-lock of plain atomics inside it,
//!   robust against dead readers and writers (owner tokens with the embedder's liveness
//!   check, double-buffered words), and, behind the `futex` feature (Linux), a
//!   process-shared futex wait and a liveness check by pid.
//! * [`shm`]: the node store in such a region: the server publishes its [`NodeStore`]
//!   ([`shm::ShmWriter`]), processes attached to the region look values up through its
//!   2N-lock ([`shm::ShmReader`]), fixed-size values without allocating.
//! * [`dmodex`]: direct modex's request and answer and their bytes on a wire; a key the
//!   target committed only for its own node answers "exists outside scope", never a wait.
//! * [`codec`]: naive and compact fence-blob layouts (LEB128 or flex128 integers).
//! * [`keys`]: the reserved keys a resource manager registers; [`workload`]: synthetic modex
//!   data of a chosen shape.
//!
//! Times are [`fabric_model::Nanos`] on the caller's clock: nothing here reads a clock.
//!
//! ```
//! use fabric_model::Nanos;
//! use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};
//!
//! let mut store = NodeStore::new();
//! // Ranks 0 and 1 of a 4-process job live on this node (node 0 of 2).
//! let info = JobInfo::new(4, "n0")
//!     .with_local_peers([Rank::new(0), Rank::new(1)])
//!     .with_num_nodes(2)
//!     .with_proc_nodes(vec![0, 0, 1, 1]);
//! let ns = store.register_job("job1", &info)?;
//! let mut p0 = Client::new(ProcId::new(ns, Rank::new(0)));
//! let mut p1 = Client::new(ProcId::new(ns, Rank::new(1)));
//! p0.put(Scope::Global, "addr", Value::Bytes(vec![1, 2, 3]))?;
//! let deadline = Nanos::new(1_000);
//! let wait = GetOptions::default().with_deadline(deadline);
//! // Not committed yet: rank 1 would wait.
//! assert_eq!(
//!     p1.get(&store, p0.id(), "addr", &wait, Nanos::ZERO)?,
//!     GetOutcome::Pending { deadline: Some(deadline) }
//! );
//! p0.commit(&mut store)?;
//! assert_eq!(
//!     p1.get(&store, p0.id(), "addr", &wait, Nanos::new(10))?,
//!     GetOutcome::Found(Value::Bytes(vec![1, 2, 3]))
//! );
//! // Job-level data under WILDCARD.
//! let job = ProcId::new(ns, Rank::WILDCARD);
//! assert_eq!(
//!     p1.get(&store, job, "pmix.job.size", &GetOptions::default(), Nanos::new(10))?,
//!     GetOutcome::Found(Value::U32(4))
//! );
//! # Ok::<(), pmix_kvs::Error>(())
//! ```
#![deny(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod blob;
pub mod codec;
pub mod dmodex;
mod error;
pub mod fence;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_harness;
mod ident;
mod keyhash;
mod keymap;
pub mod keys;
#[allow(unsafe_code)]
pub mod lock;
#[allow(unsafe_code)]
pub mod region;
pub mod shm;
mod store;
mod value;
mod varint;
pub mod workload;

pub use blob::{FenceBlob, ProcEntry};
pub use dmodex::{DmodexAnswer, DmodexRequest};
pub use error::{Error, Result, status};
pub use ident::{MAX_NSLEN, Nspace, ProcId, Rank};
pub use lock::WaitStrategy;
pub use store::{Client, GetOptions, GetOutcome, JobInfo, NodeStore};
pub use value::{DataType, Scope, Value};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
