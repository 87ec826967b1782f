//! What a router holds its fabric and hop table by: a borrow or a shared owner.

use std::ops::Deref;
use std::sync::Arc;

/// A `&'f T` or an `Arc<T>`: a [`Router`](crate::Router) borrows its fabric and hop table
/// ([`Router::new`](crate::Router::new)) or shares them ([`Router::new_shared`](crate::Router::new_shared)),
/// so that a daemon can keep the router beside them in one struct.
#[derive(Debug)]
pub(crate) enum Held<'f, T> {
    Borrowed(&'f T),
    Shared(Arc<T>),
}

impl<T> Deref for Held<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            Self::Borrowed(t) => t,
            Self::Shared(t) => t,
        }
    }
}
