//! A PMIx host for several simulated nodes on one machine, with pmix-kvs as its fence and
//! direct-modex engine.
//!
//! Slurm's mpi/pmix plugin is the model: each node's resource-manager daemon runs the PMIx
//! server library and serves its `fence_nb` and `direct_modex` upcalls with its own
//! collectives between the nodes. Here each node is a host process ([`node::run`]) with its
//! own OpenPMIx server instance (Debian's libpmix, through `c/shim.c`), connected to the
//! other hosts by TCP on the loopback (module `mesh`); the fence is one of pmix-kvs's tree, ring
//! or Bruck state machines carrying the servers' opaque contributions, direct modex is
//! pmix-kvs's request/answer exchange with the owner node's server answering. Each host forks
//! real PMIx clients (`c/client.c`, or any program such as an MPI one). [`launch`] starts a
//! job of several nodes; [`script`] runs the clients' scripted sequence through pmix-kvs's
//! own store for the differential test.

pub mod bench;
mod ffi;
pub mod launch;
mod mesh;
pub mod node;
pub mod script;
pub mod wire;

pub use ffi::error_string;

/// The real PMIx client built with this crate (`c/client.c`).
pub const CLIENT: &str = env!("PMIX_KVS_CLIENT");
