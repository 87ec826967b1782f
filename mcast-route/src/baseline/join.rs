//! A baseline's join ([`Router::join`]): OpenSM routes the group again for its new members,
//! in its MLID.

use fabric_model::NodeId;

use crate::live::membership::JoinMethod;
use crate::mr4lms::least_height::Least;
use crate::router::view::Members;
use crate::{Error, GroupId, Router, TreeId};

impl Router<'_> {
    /// A baseline's join: the tree of `tid` routed again by OpenSM's engine for its members
    /// and `port` (on switch `x`), in its color (the group's MLID).
    ///
    /// While every tree holds a color of its own (OpenSM's one MLID per group) that color
    /// is free on every switch once the tree is out. After a recoloring (ours:
    /// [`recolor`](Self::recolor), [`recolor_rerouting`](Self::recolor_rerouting)) trees on
    /// disjoint switches share colors, and the new route may cross a switch where another
    /// tree holds the group's: the route is then dropped, the tree put back, and the member
    /// joins in the color as MR4LMS's join does ([`Router::graft`]: a leaf, a graft, a
    /// rebuild by FCTB, a higher graft or a merge with the trees of the color in the way),
    /// so that the MLID stays and no entry is shared.
    ///
    /// # Errors
    /// As [`baseline_tree`](Self::baseline_tree), the tree put back unchanged.
    pub(crate) fn reroute_baseline(
        &mut self,
        tid: TreeId,
        port: NodeId,
        x: u32,
        sw: &[u32],
        least: &mut Option<Least>,
    ) -> Result<(JoinMethod, TreeId, Vec<GroupId>), Error> {
        let d = match *least {
            Some(l) => l.d,
            None => {
                let l = self.least(sw);
                *least = Some(l);
                l.d
            }
        };
        let old = self.state.uninstall(tid);
        let mut terminals: Vec<NodeId> = old.members().collect();
        terminals.push(port);
        let member_sw = self.view.member_switches(terminals.iter().copied());
        let m = Members {
            terminals,
            sw: member_sw,
        };
        // The route in the group's own color: no new MLID is picked.
        let mut tree = match self.baseline_tree(&m, d, old.color) {
            Ok(t) => t,
            Err(e) => {
                self.state.install(tid, old);
                return Err(e);
            }
        };
        tree.add_members(old.member_counts().iter().copied());
        tree.add_members([(port, 1)]);
        tree.add_groups(old.groups().iter().copied());
        match self.state.try_install(tid, tree) {
            Ok(()) => Ok((JoinMethod::Rerouted, tid, Vec::new())),
            Err(_) => {
                // The color is shared (since a recoloring) on the new route.
                self.state.install(tid, old);
                Ok(self.graft(tid, port, x, sw, least))
            }
        }
    }
}
