//! The router's configuration: entries per switch, algorithm, policy, merge and regraft.

use crate::Error;

/// The largest number of MFT entries: multicast LIDs run from 0xC000 to 0xFFFE.
pub const MAX_ENTRIES: u32 = 0x3FFF;

/// How many MFT entries (colors) every switch has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Entries {
    /// As many as needed (the paper's "N_color = ∞"): nothing is ever merged. Colors past
    /// [`MAX_ENTRIES`] are allowed in the router but have no MLID.
    #[default]
    Unlimited,
    /// At most this many per switch (1..=[`MAX_ENTRIES`]); the paper recommends 128 on fat
    /// trees and 256 elsewhere.
    Limit(u32),
}

impl Entries {
    /// The limit, or `None` when unlimited.
    #[must_use]
    pub const fn limit(self) -> Option<u32> {
        match self {
            Self::Unlimited => None,
            Self::Limit(n) => Some(n),
        }
    }
}

/// Which algorithm builds the trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Algorithm {
    /// The paper's MR4LMS: colors shared by trees on disjoint switches, merging when short.
    #[default]
    Mr4lms,
    /// OpenSM's default builder: root of least maximum hops, the first least-hop port at each
    /// switch, one MLID per group.
    MinihopMc,
    /// OpenSM's SSSP builder: Dijkstra over the whole fabric from the same root with
    /// weights = groups per link, one MLID per group.
    SsspMc,
}

/// The order in which the baselines walk the switches when several tie for the root (the
/// first switch of least largest hop distance to the members wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SwitchOrder {
    /// OpenSM's, the default since the baselines stand in for OpenSM: OpenSM keeps its
    /// switches in a `cl_qmap` keyed by the node GUID in network byte order
    /// (`sw_guid_tbl`, filled in `si_rcv_process_new`), compared as a host integer, so on the
    /// little-endian hosts OpenSM runs on the switches come in increasing order of the
    /// byte-reversed GUID. Switches without a GUID come last, in fabric order.
    #[default]
    OpenSm,
    /// The order of [`Fabric::switches`](fabric_model::Fabric::switches), that is the order of
    /// the records in the file the fabric was read from.
    Fabric,
}

/// The color (MLID) [`Router::join`](crate::Router::join) gives a group at its first member,
/// which it keeps for its whole life (MR4LMS only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum JoinColor {
    /// The paper's: the group of one member is created as any group is (Alg. 7), which for
    /// one member switch is FBTC's first fit, the lowest color free on it.
    #[default]
    FirstFit,
    /// Ours: the color free on the member's switch with the fewest trees on the fabric
    /// (ties to the lowest), so that groups joined one member at a time spread over the
    /// colors instead of crowding the low ones, whose later grafts then meet busy switches
    /// and merge.
    LeastUsed,
}

/// Which of FBTC and FCTB MR4LMS runs (paper §3.4, Alg. 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// Alg. 7: FBTC until it fails, then FCTB until `switch_back` consecutive FCTB successes
    /// without merging, then FBTC again.
    Adaptive {
        /// FCTB successes in a row before going back to FBTC (the paper uses 20).
        switch_back: u32,
    },
    /// FBTC (Alg. 1) always.
    FbtcOnly,
    /// FCTB (Alg. 3) always. Slower, but its trees avoid busy switches and loaded links: on
    /// `torus(&[30, 20, 20], 2)` with the 28×28×28 grid and unlimited entries it needs 197
    /// colors and max EFI 38 where the adaptive policy (FBTC throughout) needs 514 and 38
    /// with the default [`BottomUp::BestOfBoth`] and 557 and 64 with [`BottomUp::Greedy`]
    /// (SSSP-MC: 43), at about 5 times the time per group of the latter.
    FctbOnly,
}

impl Default for Policy {
    fn default() -> Self {
        Self::Adaptive { switch_back: 20 }
    }
}

/// How MR4LMS chooses what to merge when no color is free (paper §3.3.1, Alg. 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum MergeStrategy {
    /// The paper's (Alg. 4): optimistic first (the nearest tree by formula (1)), pessimistic
    /// when the union is not connected in `G_color`.
    OptimisticThenPessimistic,
    /// The paper's faster variant: take the color with the fewest groups and go straight to the
    /// pessimistic step.
    FewestGroupsColor,
    /// Beyond the paper: the color whose merge adds the least load. The trees of a color on
    /// the new group's member switches must join the virtual group whatever happens (a
    /// member switch has one entry per color); merging them with the group puts all G of
    /// their groups and the new one on every switch of each, so the load added is estimated
    /// as Σ over those trees of (G + 1 − its groups) × its switches, plus (G + 1) × the
    /// group's member switches. The color of least estimate wins (ties: fewest groups, then
    /// lowest color); its trees are merged before step ④ and the pessimistic step runs only
    /// if they are not connected. It keeps formula (1) from choosing a tree whose color drags
    /// in unrelated trees on the other member switches, which on fabrics whose leaf switches
    /// are full lets one tree swallow most groups.
    #[default]
    LeastAddedLoad,
}

/// What happens to the trees being merged (paper §3.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Regraft {
    /// Alg. 5: Dijkstra adopts every link of the old trees, so their groups are undisturbed.
    #[default]
    KeepOldTree,
    /// Destroy the old trees and build one new tree for the virtual group.
    Rebuild,
}

/// How the root of a merged tree is chosen (paper §3.3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum MergeRoot {
    /// The paper's: one BFS in `G_color` from every member switch of the virtual group; the
    /// switch of least largest distance wins (ties: fewest entries in use, then index).
    #[default]
    Bfs,
    /// Faster: the switch of the virtual group's component of least largest hop-table
    /// distance (a lower bound of the `G_color` distance), one BFS in all.
    HopTable,
}

/// How Alg. 2 chooses each switch's parent among the neighbours one hop nearer the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum BottomUp {
    /// The paper's step ⑧: the neighbour over the least loaded link.
    Greedy,
    /// Beyond the paper: the neighbour with the least summed EFI over a whole least-hop path
    /// to the root (as SSSP-MC's Dijkstra weighs paths), found by one pass over the switches
    /// on least-hop paths. Same height; lower max EFI where many least-hop paths exist: on
    /// `torus(&[30, 20, 20], 2)` with the 28×28×28 grid and unlimited entries, max EFI 38
    /// instead of 64 (SSSP-MC 43), at about 2.5 times the time per group.
    LeastLoadPath,
    /// Beyond the paper, the default: FBTC builds its candidate roots' trees with
    /// [`Greedy`](Self::Greedy) (Alg. 1 steps ②–⑦ choose the root as the paper does), then
    /// builds the chosen root's tree once more with [`LeastLoadPath`](Self::LeastLoadPath) and
    /// keeps whichever of the two trees is least by (first-fit color, largest EFI over its
    /// links, summed EFI over its links; ties to the least-load tree). The second build is
    /// skipped when no switch of the greedy walk had a choice of parent (both builds would
    /// give the same tree, as on fat trees), and when every link of the greedy tree has an
    /// EFI at least 2 below the fabric's largest (adding the group then cannot raise the
    /// largest EFI). Both trees have the least height, so the kept one does too. Other builds
    /// (the pessimistic merge's temporary tree) use [`Greedy`](Self::Greedy). On
    /// `torus(&[30, 20, 20], 2)` with the 28×28×28 grid and unlimited entries: max EFI 38 and
    /// 514 colors instead of 64 and 557 (SSSP-MC 43, MINIHOP-MC 94); without the gate (a
    /// least-load build for every group) 32 and 481 at 1.6 times the instructions;
    /// taking the least-load tree whenever its color is no higher gives 36 there but raises
    /// the 240×100 grid's max EFI from 5 to 9 (MINIHOP-MC's), hence the EFI comparison.
    #[default]
    BestOfBoth,
}

/// Everything a [`Router`](crate::Router) is configured with: [`Config::default`],
/// [`Config::mr4lms`] or [`Config::baseline`], then the `with_*` setters; each option is read
/// back by the method of its name.
///
/// ```
/// use mcast_route::{BottomUp, Config, Entries, Policy};
///
/// let cfg = Config::mr4lms(Entries::Limit(128))
///     .with_policy(Policy::FbtcOnly)
///     .with_bottom_up(BottomUp::Greedy);
/// assert_eq!(cfg.entries(), Entries::Limit(128));
/// assert_eq!(cfg.fbtc_root_tries(), mcast_route::DEFAULT_FBTC_ROOT_TRIES);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Config {
    /// MFT entries per switch.
    pub(crate) entries: Entries,
    /// Which algorithm builds the trees.
    pub(crate) algorithm: Algorithm,
    /// FBTC/FCTB selection (MR4LMS only).
    pub(crate) policy: Policy,
    /// Merge strategy (MR4LMS only).
    pub(crate) merge: MergeStrategy,
    /// Regraft strategy (MR4LMS only).
    pub(crate) regraft: Regraft,
    /// Root of merged trees (MR4LMS only).
    pub(crate) merge_root: MergeRoot,
    /// FBTC roots to color before choosing (see [`Config::with_fbtc_root_tries`]).
    pub(crate) fbtc_root_tries: u32,
    /// Alg. 2's parent choice (MR4LMS only).
    pub(crate) bottom_up: BottomUp,
    /// The baselines' switch order for root ties (MINIHOP-MC and SSSP-MC only).
    pub(crate) switch_order: SwitchOrder,
    /// The color of a group created by its first join (MR4LMS only).
    pub(crate) join_color: JoinColor,
}

/// The default [`Config::fbtc_root_tries`].
pub const DEFAULT_FBTC_ROOT_TRIES: u32 = 16;

impl Default for Config {
    /// MR4LMS with unlimited entries, the adaptive policy, [`MergeStrategy::LeastAddedLoad`],
    /// the old trees kept, the BFS merge root, [`DEFAULT_FBTC_ROOT_TRIES`],
    /// [`BottomUp::BestOfBoth`], [`JoinColor::FirstFit`] and, for the baselines,
    /// [`SwitchOrder::OpenSm`].
    fn default() -> Self {
        Self {
            entries: Entries::default(),
            algorithm: Algorithm::default(),
            policy: Policy::default(),
            merge: MergeStrategy::default(),
            regraft: Regraft::default(),
            merge_root: MergeRoot::default(),
            fbtc_root_tries: DEFAULT_FBTC_ROOT_TRIES,
            bottom_up: BottomUp::default(),
            switch_order: SwitchOrder::default(),
            join_color: JoinColor::default(),
        }
    }
}

impl Config {
    /// MR4LMS with `entries` and the rest as [`Config::default`].
    #[must_use]
    pub fn mr4lms(entries: Entries) -> Self {
        Self::default().with_entries(entries)
    }

    /// The baseline `algorithm` with `entries` (one MLID per group).
    #[must_use]
    pub fn baseline(algorithm: Algorithm, entries: Entries) -> Self {
        Self::default()
            .with_algorithm(algorithm)
            .with_entries(entries)
    }

    /// Sets the MFT entries per switch.
    #[must_use]
    pub const fn with_entries(mut self, entries: Entries) -> Self {
        self.entries = entries;
        self
    }

    /// Sets the algorithm that builds the trees.
    #[must_use]
    pub const fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Sets the FBTC/FCTB selection (MR4LMS only).
    #[must_use]
    pub const fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the merge strategy (MR4LMS only).
    #[must_use]
    pub const fn with_merge(mut self, merge: MergeStrategy) -> Self {
        self.merge = merge;
        self
    }

    /// Sets what happens to the trees being merged (MR4LMS only).
    #[must_use]
    pub const fn with_regraft(mut self, regraft: Regraft) -> Self {
        self.regraft = regraft;
        self
    }

    /// Sets how the root of a merged tree is chosen (MR4LMS only).
    #[must_use]
    pub const fn with_merge_root(mut self, merge_root: MergeRoot) -> Self {
        self.merge_root = merge_root;
        self
    }

    /// Sets the FBTC roots to color before choosing (MR4LMS only; beyond the paper). 0 or 1:
    /// the paper's first colorable root. n > 1: among the first n colorable candidate roots,
    /// the one whose tree takes the least color, stopping early at a tree colored with the
    /// first color free on every member switch (no tree can take less). This packs colors
    /// tighter: on `fat_tree(40)` with a 40×20×20 grid, 1 root needs 53 colors, 16 reach the
    /// lower bound of 41. Default [`DEFAULT_FBTC_ROOT_TRIES`].
    #[must_use]
    pub const fn with_fbtc_root_tries(mut self, tries: u32) -> Self {
        self.fbtc_root_tries = tries;
        self
    }

    /// Sets Alg. 2's parent choice (MR4LMS only).
    #[must_use]
    pub const fn with_bottom_up(mut self, bottom_up: BottomUp) -> Self {
        self.bottom_up = bottom_up;
        self
    }

    /// Sets the order in which the baselines break root ties (MINIHOP-MC and SSSP-MC only).
    #[must_use]
    pub const fn with_switch_order(mut self, switch_order: SwitchOrder) -> Self {
        self.switch_order = switch_order;
        self
    }

    /// Sets the color a group gets at its first join ([`JoinColor`]).
    #[must_use]
    pub const fn with_join_color(mut self, join_color: JoinColor) -> Self {
        self.join_color = join_color;
        self
    }

    /// MFT entries per switch.
    #[must_use]
    pub const fn entries(&self) -> Entries {
        self.entries
    }

    /// The algorithm that builds the trees.
    #[must_use]
    pub const fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The FBTC/FCTB selection (MR4LMS only).
    #[must_use]
    pub const fn policy(&self) -> Policy {
        self.policy
    }

    /// The merge strategy (MR4LMS only).
    #[must_use]
    pub const fn merge(&self) -> MergeStrategy {
        self.merge
    }

    /// What happens to the trees being merged (MR4LMS only).
    #[must_use]
    pub const fn regraft(&self) -> Regraft {
        self.regraft
    }

    /// How the root of a merged tree is chosen (MR4LMS only).
    #[must_use]
    pub const fn merge_root(&self) -> MergeRoot {
        self.merge_root
    }

    /// FBTC roots colored before choosing (see [`Config::with_fbtc_root_tries`]).
    #[must_use]
    pub const fn fbtc_root_tries(&self) -> u32 {
        self.fbtc_root_tries
    }

    /// Alg. 2's parent choice (MR4LMS only).
    #[must_use]
    pub const fn bottom_up(&self) -> BottomUp {
        self.bottom_up
    }

    /// The baselines' switch order for root ties (MINIHOP-MC and SSSP-MC only).
    #[must_use]
    pub const fn switch_order(&self) -> SwitchOrder {
        self.switch_order
    }

    /// The color a group gets at its first join.
    #[must_use]
    pub const fn join_color(&self) -> JoinColor {
        self.join_color
    }

    /// Checks the entry limit.
    ///
    /// # Errors
    /// [`Error::ZeroEntries`] for a limit of zero, [`Error::TooManyEntries`] past
    /// [`MAX_ENTRIES`].
    pub fn validate(&self) -> Result<(), Error> {
        match self.entries {
            Entries::Limit(0) => Err(Error::ZeroEntries),
            Entries::Limit(n) if n > MAX_ENTRIES => Err(Error::TooManyEntries {
                entries: n,
                max: MAX_ENTRIES,
            }),
            _ => Ok(()),
        }
    }
}
