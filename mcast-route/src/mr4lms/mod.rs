//! MR4LMS, the paper's algorithm, one step a file: candidate roots and Alg. 2's bottom-up
//! walks ([`roots`]), FBTC (Alg. 1, [`fbtc`]), FCTB (Alg. 3, [`fctb`]), merging (Alg. 4–5,
//! [`merge`]), and the distances they read ([`least_height`], [`far`]).

pub(crate) mod far;
pub(crate) mod fbtc;
pub(crate) mod fctb;
pub(crate) mod least_height;
pub(crate) mod merge;
pub(crate) mod roots;
