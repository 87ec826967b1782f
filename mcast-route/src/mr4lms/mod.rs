//! MR4LMS, the paper's algorithm, one step a file: candidate roots and Alg. 2's bottom-up
//! walks ([`roots`]), FBTC (Alg. 1, [`fbtc`]), FCTB (Alg. 3, [`fctb`]), merging (Alg. 4–5,
//! [`merge`]), and the distances they read ([`least_height`], [`far`]). Alg. 7, which
//! chooses among them for each new group, is below.

pub(crate) mod far;
pub(crate) mod fbtc;
pub(crate) mod fctb;
pub(crate) mod least_height;
pub(crate) mod merge;
pub(crate) mod roots;

use crate::router::state::Current;
use crate::router::view::Members;
use crate::{GroupId, Method, Policy, Router, TreeId};

impl Router<'_> {
    /// Alg. 7: FBTC or FCTB by the policy, merging when the chosen one fails.
    pub(crate) fn mr4lms(
        &mut self,
        m: &Members,
        d: u8,
        gid: GroupId,
    ) -> (TreeId, Method, Vec<GroupId>) {
        let built = match (self.config.policy, self.state.current) {
            (Policy::FbtcOnly, _) | (Policy::Adaptive { .. }, Current::Fbtc) => {
                let t = self.fbtc(m, d);
                // Step ③: a failure switches to FCTB.
                if t.is_none() && matches!(self.config.policy, Policy::Adaptive { .. }) {
                    self.state.current = Current::Fctb { streak: 0 };
                }
                t.map(|t| (t, Method::Fbtc))
            }
            (Policy::FctbOnly, _) | (Policy::Adaptive { .. }, Current::Fctb { .. }) => {
                let t = self.fctb(m, d);
                // Step ⑥: enough successes in a row switch back to FBTC.
                if let (Policy::Adaptive { switch_back }, Current::Fctb { streak }) =
                    (self.config.policy, self.state.current)
                {
                    self.state.current = match t {
                        Some(_) if streak + 1 >= switch_back => Current::Fbtc,
                        Some(_) => Current::Fctb { streak: streak + 1 },
                        None => Current::Fctb { streak: 0 },
                    };
                }
                t.map(|t| (t, Method::Fctb))
            }
        };
        match built {
            Some((fctb::Built::New(tree), method)) => {
                (self.add_new_tree(tree, gid, m), method, Vec::new())
            }
            Some((fctb::Built::Existing(id), _)) => {
                self.join_tree(id, gid, m);
                (id, Method::ExistingTree, Vec::new())
            }
            // Step ⑧: merge (Alg. 4).
            None => {
                let (id, merged) = self.merge(m, gid);
                (id, Method::Merge, merged)
            }
        }
    }
}
