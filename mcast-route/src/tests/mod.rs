//! Tests through the public API that check the router's state after every step with the
//! crate's invariant check (compiled for tests only, hence unit tests rather than
//! integration tests): the paper's worked example, scenarios walking every branch of Alg. 4
//! and Alg. 7, and properties of the paper's invariants.

mod fig2;
mod membership;
mod properties;
mod scenarios;
mod topology;
