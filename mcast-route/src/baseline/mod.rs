//! The OpenSM baselines MINIHOP-MC and SSSP-MC, one MLID per group: the root, the MLID
//! and the tree of a new group here, a join in [`join`].

mod join;

use fabric_model::Fabric;

use crate::router::view::Members;
use crate::search::{Extent, Pruning};
use crate::tree::{Edge, Tree};
use crate::{Algorithm, Error, Method, Router};

/// The switch indices in OpenSM's order (increasing byte-reversed node GUID, switches without
/// a GUID last in fabric order), or empty for [`SwitchOrder::Fabric`](crate::SwitchOrder::Fabric).
pub(crate) fn opensm_order(fabric: &Fabric, order: crate::SwitchOrder) -> Vec<u32> {
    if order == crate::SwitchOrder::Fabric {
        return Vec::new();
    }
    let mut idx: Vec<u32> = (0..fabric.switch_count() as u32).collect();
    // Stable: switches without a GUID keep their fabric order after the others.
    idx.sort_by_key(|&i| {
        let guid = fabric.node(fabric.switches()[i as usize]).guid;
        (guid.is_none(), guid.map_or(0, u64::swap_bytes))
    });
    idx
}

impl Router<'_> {
    pub(crate) fn baseline_method(&self) -> Method {
        if self.config.algorithm == Algorithm::SsspMc {
            Method::SsspMc
        } else {
            Method::MinihopMc
        }
    }

    /// OpenSM's root (`osm_mcast_mgr_find_root_switch`): the first switch, in the configured
    /// [`SwitchOrder`](crate::SwitchOrder), of strictly least maximum hop distance to the
    /// members.
    fn opensm_root(&self, d: u8) -> u32 {
        let found = if self.view.switch_order.is_empty() {
            self.s.maxd.iter().position(|&m| m == d).map(|i| i as u32)
        } else {
            self.view
                .switch_order
                .iter()
                .copied()
                .find(|&i| self.s.maxd[i as usize] == d)
        };
        // `d` is the least of `maxd`, which `least` (or `max_dist`) has just filled for
        // these members: some switch is at distance `d`.
        found.expect("max_dist found a switch at distance d")
    }

    /// OpenSM's MLID for a new group (`get_new_mlid`): the lowest color no tree uses.
    ///
    /// # Errors
    /// [`Error::EntriesExhausted`] when every entry is in use.
    pub(crate) fn baseline_color(&self) -> Result<u32, Error> {
        self.state
            .colors
            .lowest_unused()
            .ok_or(Error::EntriesExhausted {
                limit: self.config.entries.limit().unwrap_or(u32::MAX),
            })
    }

    /// Builds the baseline tree in `color`: MINIHOP-MC walks from the root toward each
    /// member switch along the lowest-numbered least-hop port
    /// (`osm_switch_recommend_mcast_path`); a switch reached again keeps its first parent, so
    /// every switch has exactly one (OpenSM's own recursion can give it two). SSSP-MC runs
    /// Dijkstra over the whole fabric from the same root, weights (hops, groups per link) as
    /// OpenSM's P² + load, and keeps the paths to the member switches. The route ignores
    /// the color table: a new group's color ([`baseline_color`](Self::baseline_color)) is
    /// free everywhere, while a join's is checked when the tree is installed.
    ///
    /// # Errors
    /// [`Error::Disconnected`] when SSSP-MC's search misses a member switch (members are
    /// checked connected before: not reached).
    ///
    /// Complexity: MINIHOP-MC O(M·D·P); SSSP-MC O((S + L) log S).
    pub(crate) fn baseline_tree(&mut self, m: &Members, d: u8, color: u32) -> Result<Tree, Error> {
        let root = self.opensm_root(d);
        let parents = if self.config.algorithm == Algorithm::SsspMc {
            let all = |_: u32| true;
            let reached = self.s.dijkstra(
                &self.view.g,
                &self.state.efi,
                root,
                all,
                &m.sw,
                u32::MAX,
                Extent::Whole,
                None,
                Pruning::Off,
            );
            if !reached {
                // (A partial set of paths would leave members off the tree.) The first
                // member whose switch the search did not reach.
                let missed =
                    m.terminals.iter().copied().find(|t| {
                        self.view.attach[t.index()].is_none_or(|a| !self.s.seen.get(a.sw))
                    });
                return Err(Error::Disconnected {
                    a: m.terminals[0],
                    b: missed.unwrap_or(m.terminals[0]),
                });
            }
            self.s.collect_paths(&self.view.g, m.sw.iter().copied())
        } else {
            self.minihop(root, &m.sw)
        };
        let leaves: Vec<_> = self.view.leaves_of(m.terminals.iter()).collect();
        Ok(Tree::from_parts(color, root, &parents, &leaves))
    }

    fn minihop(&mut self, root: u32, member_sw: &[u32]) -> Vec<(u32, Edge)> {
        let in_tree = &mut self.s.seen;
        in_tree.begin();
        in_tree.set(root);
        let mut parents = Vec::new();
        for &t in member_sw {
            let row = self.view.hops.row(t as usize);
            let mut x = root;
            while x != t {
                let need = row[x as usize] - 1;
                let a = *self
                    .view
                    .g
                    .adj(x)
                    .iter()
                    .filter(|a| row[a.peer as usize] == need)
                    .min_by_key(|a| a.port)
                    // The hop table is exact over `g` (rebuilt edge by edge on every topology
                    // event) and `x` reaches `t` (the members are connected): one of its
                    // neighbours is one hop nearer.
                    .expect("a switch off the target has a neighbour one hop nearer");
                if !in_tree.get(a.peer) {
                    in_tree.set(a.peer);
                    parents.push((
                        a.peer,
                        Edge {
                            parent: x,
                            up_port: a.peer_port,
                            down_port: a.port,
                            link: a.link,
                        },
                    ));
                }
                x = a.peer;
            }
        }
        parents
    }
}
