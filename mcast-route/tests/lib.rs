//! Integration tests of mcast-route: the paper's worked example, bad input, outputs, and
//! the properties of the paper's invariants.

mod errors;
mod fig2;
mod outputs;
mod properties;
mod scenarios;
