//! Integration tests of fabric-model: the papers' exact sizes, ibnetdiscover files in the real
//! format and their errors, properties on random small fabrics.

mod ibnetdiscover;
mod paper_sizes;
mod properties;
