//! Incremental rate allocation at the size of real traces: flows kept in *route classes*
//! (every flow from one machine to another crosses the same resources), so that an event
//! costs work in the number of classes and resources, not in the number of flows.
//!
//! - [`FairClasses`]: max-min fairness. Flows of one class without a cap are
//!   indistinguishable to progressive filling (they grow together and freeze together), so
//!   the filling runs over classes weighted by their flow counts.
//! - [`PriorityClasses`]: strict priority. In the greedy walk a flow takes the smallest free
//!   capacity on its route, which leaves a resource of that route with none, so only the
//!   first flow of a class in priority order can move; each event repairs the last walk
//!   over class heads from what changed instead of walking again. Same rates, bit for bit, as
//!   [`priority_greedy`](super::priority_greedy) over all flows sorted by key.

mod fair;
mod priority;

pub(crate) use fair::FairClasses;
pub(crate) use priority::PriorityClasses;

use fabric_model::hash::FxHashMap;
use smallvec::SmallVec;

const NONE: u32 = u32::MAX;

/// The resources of one route, inline up to a three-level fat tree's six.
type Route = SmallVec<[u32; 6]>;

/// Finds or makes the class of route `src → dst` crossing `path`.
fn class_index<C>(
    of: &mut FxHashMap<(u32, u32), u32>,
    classes: &mut Vec<C>,
    src: u32,
    dst: u32,
    make: impl FnOnce() -> C,
) -> usize {
    *of.entry((src, dst)).or_insert_with(|| {
        classes.push(make());
        (classes.len() - 1) as u32
    }) as usize
}

/// Grows `v` so that index `i` exists, filling with `fill`.
fn ensure<T: Clone>(v: &mut Vec<T>, i: usize, fill: T) {
    if v.len() <= i {
        v.resize(i + 1, fill);
    }
}

/// The tests' big switch of `m` machines: egress `s` is resource `s`, ingress `d` is `m + d`.
#[cfg(test)]
fn big_switch_route(m: u32, s: u32, d: u32) -> [u32; 2] {
    [s, m + d]
}
