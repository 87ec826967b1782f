//! Integration tests of mcast-route through its public API: bad input and outputs. The tests
//! that check the router's state after every step with the crate's invariant check (the
//! paper's worked example, the scenarios, the properties) are unit tests in `src/tests/`.

mod bridge;
mod delta;
mod errors;
mod outputs;
