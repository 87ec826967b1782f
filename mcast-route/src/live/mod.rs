//! A live subnet manager: groups joined and left one port at a time by MGID
//! ([`membership`], its grafts in [`graft`]), and links and switches going down and up
//! ([`topology`], the trees repaired by [`grow`] over the hop table [`distances`] keeps up
//! to date edge by edge).

pub(crate) mod distances;
pub(crate) mod graft;
pub(crate) mod grow;
pub(crate) mod membership;
pub(crate) mod topology;
