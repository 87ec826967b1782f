//! Groups' least heights ([`GroupView::min_height`](crate::GroupView::min_height): one more
//! than the least, over all roots, of the largest hop distance to a member switch), kept
//! only as far as something needs them (ours: the paper computes it for every group it
//! routes). Computing one reads a hop-table row per member switch, O(S·M); a join or a leave
//! on a large fabric spent most of its time there.
//!
//! - A join keeps the value when the new member's switch is no farther than it from the
//!   *center* kept with it (a switch where the largest distance is least): the least
//!   height cannot fall by a join, and the center still reaches every member within it.
//! - Otherwise a join computes it only when its graft needs it, and a leave never does:
//!   the value is then marked unknown ([`UNKNOWN`]) and computed when asked for
//!   ([`Router::min_height_of`]), over the same hop table, since every unknown value is
//!   computed before the hop table changes ([`Router::settle_min_heights`]). The values
//!   reported are those the eager computation gave.
//! - A value kept from before a topology change is what was reported then (the eager
//!   computation kept it too), but its center may no longer be one: it is used again only
//!   in the epoch of the hop table it was computed over.

use crate::Router;
use crate::router::state::Group;

/// [`Group::min_height`] when it is not computed (a least height is at least 1).
pub(crate) const UNKNOWN: u32 = 0;

/// A group's least height as computed: the least largest distance `d` (the height is
/// `d + 1`) and a switch where it is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Least {
    pub(crate) d: u8,
    pub(crate) center: u32,
}

impl Least {
    /// Records it as group `g`'s least height, computed in the hop table's epoch `epoch`.
    pub(crate) fn keep_in(self, g: &mut Group, epoch: u32) {
        g.min_height = u32::from(self.d) + 1;
        g.center = self.center;
        g.epoch = epoch;
    }
}

impl Router<'_> {
    /// [`max_dist`](Self::max_dist) of `member_sw` with the first switch reaching it.
    ///
    /// Complexity: O(S·M) for M member switches.
    pub(crate) fn least(&mut self, member_sw: &[u32]) -> Least {
        let d = self.max_dist(member_sw);
        let center = self.s.maxd.iter().position(|&m| m == d).unwrap_or(0) as u32;
        Least { d, center }
    }

    /// Group `g`'s least height after a join adds switch `x` to its member switches, when
    /// known without computing it: its kept value of this epoch, when `x` is within it
    /// from the kept center.
    ///
    /// Complexity: O(1).
    pub(crate) fn least_after_join(&self, g: &Group, x: u32) -> Option<Least> {
        if g.min_height == UNKNOWN || g.epoch != self.hops_epoch {
            return None;
        }
        let d = (g.min_height - 1) as u8;
        let h = self.view.hops.hops(g.center as usize, x as usize)?;
        (h <= d).then_some(Least {
            d,
            center: g.center,
        })
    }

    /// Group `g`'s least height, computed when it is [`UNKNOWN`].
    ///
    /// Complexity: O(1) when kept, O(S·M) otherwise.
    pub(crate) fn min_height_of(&self, g: &Group) -> u32 {
        if g.min_height != UNKNOWN {
            return g.min_height;
        }
        let mut far = vec![0u8; self.view.g.len()];
        crate::live::distances::fold_rows(&self.view.hops, &g.member_sw, &mut far, u8::max);
        u32::from(far.iter().copied().min().unwrap_or(0)) + 1
    }

    /// Computes every [`UNKNOWN`] least height over the hop table as it is, then starts a
    /// new epoch: called before the hop table changes.
    ///
    /// Complexity: O(G) for G groups, and O(S·M) for each unknown one.
    pub(crate) fn settle_min_heights(&mut self) {
        for i in 0..self.state.groups.len() {
            let Some(g) = self.state.groups[i].as_ref() else {
                continue;
            };
            if g.min_height != UNKNOWN {
                continue;
            }
            let sw = std::mem::take(&mut self.state.groups[i].as_mut().expect("live").member_sw);
            let least = self.least(&sw);
            let g = self.state.groups[i].as_mut().expect("live");
            g.member_sw = sw;
            least.keep_in(g, self.hops_epoch);
        }
        self.hops_epoch = self.hops_epoch.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use fabric_model::{HopTable, LinkId, generators};

    use crate::{Config, Entries, Gid, Router};

    /// Joins, leaves and link failures at random: every group's least height, as
    /// reported, is the one the eager computation gave (computed afresh at its last join or
    /// leave, or when a link failure took members from it, over the hop table of then),
    /// whether kept, kept through a join, or computed when asked for.
    #[test]
    fn least_heights_are_those_computed_at_each_change() {
        use rand::Rng;
        let f = generators::torus(&[6, 5, 4], 1).unwrap();
        let h = HopTable::new(&f).unwrap();
        let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(16))).unwrap();
        let t = f.terminals().to_vec();
        let links: Vec<LinkId> = (0..f.link_count() as u32)
            .map(LinkId::new)
            .filter(|&l| f.link(l).ends.iter().all(|&(n, _)| f.is_switch(n)))
            .collect();
        let mut rng = fabric_model::rng::seeded(23);
        let mgid = |k: u64| Gid::new(0xff12_401b_ffff_0000, k);
        let fresh = |r: &mut Router<'_>, k: u64| {
            let id = r.group_of(mgid(k))?;
            let sw = r.state.groups[id.0 as usize].as_ref()?.member_sw.clone();
            Some(u32::from(r.max_dist(&sw)) + 1)
        };
        // Per group key, the least height the eager computation would report.
        let mut want: std::collections::HashMap<u64, u32> = Default::default();
        let mut down: Vec<LinkId> = Vec::new();
        let (mut kept, mut asked) = (0, 0);
        for step in 0..1500 {
            let k = rng.random_range(0..10u64);
            let port = t[rng.random_range(0..t.len())];
            let mut changed: Vec<u64> = Vec::new();
            match rng.random_range(0..20) {
                0 if down.len() < 3 => {
                    let l = links[rng.random_range(0..links.len())];
                    if let Ok(out) = r.link_down(l) {
                        down.push(l);
                        changed.extend((0..10).filter(|&k| {
                            r.group_of(mgid(k))
                                .is_some_and(|id| out.left.iter().any(|&(g, _)| g == id))
                        }));
                    }
                }
                1 if !down.is_empty() => {
                    let l = down.swap_remove(rng.random_range(0..down.len()));
                    r.link_up(l).unwrap();
                }
                2..=12 => {
                    if r.join(mgid(k), port).is_ok() {
                        changed.push(k);
                    }
                }
                _ => {
                    if let Ok(m) = r.members_of(mgid(k)) {
                        let m = m[rng.random_range(0..m.len())];
                        r.leave(mgid(k), m).unwrap();
                        changed.push(k);
                    }
                }
            }
            for k in changed {
                match fresh(&mut r, k) {
                    Some(v) => want.insert(k, v),
                    None => want.remove(&k),
                };
            }
            for k in 0..10u64 {
                let Some(id) = r.group_of(mgid(k)) else {
                    assert!(!want.contains_key(&k) || r.group_of(mgid(k)).is_none());
                    want.remove(&k);
                    continue;
                };
                let g = r.state.groups[id.0 as usize].as_ref().unwrap();
                if g.min_height == super::UNKNOWN {
                    asked += 1;
                } else {
                    kept += 1;
                }
                assert_eq!(
                    Some(&r.group(id).unwrap().min_height),
                    want.get(&k),
                    "step {step} group {k}"
                );
            }
        }
        assert!(kept > 100 && asked > 100, "{kept} kept, {asked} unknown");
    }
}
