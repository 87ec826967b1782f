//! Integration tests of fabric-model: the papers' exact sizes, ibnetdiscover files in the real
//! format and their errors, properties on random small fabrics, and the fuzz corpus replay.

mod corpus;
mod ibnetdiscover;
mod paper_sizes;
mod properties;
