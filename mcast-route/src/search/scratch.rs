//! The searches' reusable per-switch arrays.

#[cfg(test)]
use super::Pruning;
use super::least_farthest::BitSearch;
use super::{Marks, NO_SLOT, fold_rows};

/// Reusable per-switch arrays for the searches.
#[derive(Debug, Clone)]
pub(crate) struct Scratch {
    /// Dense switch → node numbers for building trees
    /// ([`Tree::from_parts_in`](crate::tree::Tree::from_parts_in)).
    pub(crate) index: crate::tree::SwitchIndex,
    /// The least-load build's depth-first search frames (switch, next adjacency slot, least
    /// cost so far, its slot), kept to build without allocating.
    pub(crate) dfs: Vec<(u32, u32, u64, u32)>,
    pub(crate) seen: Marks,
    pub(crate) done: Marks,
    pub(super) target: Marks,
    pub(super) collected: Marks,
    pub(crate) hops: Vec<u32>,
    pub(crate) cost: Vec<u64>,
    pub(super) parent: Vec<u32>,
    /// Per switch, its parent switch in the last search ([`dijkstra`](Self::dijkstra),
    /// layered or not).
    pub(super) via: Vec<u32>,
    /// Per switch, the adjacency index of its chosen next hop (least-load bottom-up build).
    pub(crate) choice: Vec<u32>,
    /// Nodes reached by the last BFS, in BFS order.
    pub(crate) queue: Vec<u32>,
    /// Per node of the tree a graft search reads, its depth plus one once known, else 0
    /// (as the tests' `Tree::depth_memo` keeps it).
    pub(crate) tree_depth: Vec<u32>,
    /// The walk up the tree while `tree_depth` is filled in.
    pub(crate) chain: Vec<u32>,
    /// Per switch, its depth in a tree under repair ([`Growing`](crate::live::grow::Growing)),
    /// `u32::MAX` between repairs (empty until the first).
    pub(crate) grow_depth: Vec<u32>,
    /// Per hop count, the (Σ EFI, switch) entries queued by [`dijkstra`](Self::dijkstra).
    pub(super) buckets: Vec<Vec<u32>>,
    /// The live (Σ EFI, switch) entries of one bucket, to sort.
    pub(super) entries: Vec<(u64, u32)>,
    /// Switches of the old trees of the last [`dijkstra`](Self::dijkstra), and their tree.
    pub(super) owned: Marks,
    pub(super) owner: Vec<u32>,
    /// Per old tree, whether it was adopted.
    pub(super) adopted: Vec<bool>,
    /// The switches settled or adopted at once.
    pub(super) adopt: Vec<u32>,
    /// Their node numbers in the tree being adopted.
    pub(super) adopt_node: Vec<u32>,
    /// A bucket's entries packed into one word each, to sort.
    pub(super) packed: Vec<u64>,
    /// Per switch, the largest hop distance to a member switch (candidate roots).
    pub(crate) maxd: Vec<u8>,
    /// Per switch, the least hop distance to a target switch
    /// ([`fill_near`](Self::fill_near)): searches with `prune` skip a switch `v` reached in
    /// `h` hops when `h + near[v]` exceeds their depth bound, since no path of at most that
    /// many hops to a target passes through it. `G_color` paths are no shorter than
    /// hop-table ones, so the pruning is exact.
    pub(crate) near: Vec<u8>,
    /// The busy colors of a tree being built, OR-ed as it grows (FBTC's cut-off).
    pub(crate) busy_or: Vec<u64>,
    /// The bit-parallel search's buffers.
    pub(super) bits: BitSearch,
    /// The merge's buffers (Alg. 4).
    pub(crate) merge: MergeScratch,
}

/// Reusable buffers of a merge (Alg. 4 and the merged tree's assembly).
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeScratch {
    /// Per member switch, the next of its entries (by color) to read.
    pub(crate) cursor: Vec<u32>,
    /// Per tree id, the last color whose trees counted it.
    pub(crate) stamp: Vec<u32>,
    /// The merged tree's switches, as found up the paths.
    pub(crate) path: Vec<u32>,
    /// Per switch, its node number in the merged tree.
    pub(crate) pos: Vec<u32>,
    /// Per node of the fabric, how many groups of the merged tree hold it as a member.
    pub(crate) count: Vec<u32>,
    /// A bit set, by switch or by node of the fabric.
    pub(crate) bits: Vec<u64>,
    /// vMcg's member switches, as a bit set over the switches.
    pub(crate) vm: Vec<u64>,
    /// A copy of the largest distances, to see whether more rows raise them.
    pub(crate) far: Vec<u8>,
    /// The merge root's candidates, as packed keys (the heap's storage between calls).
    pub(crate) keys: Vec<std::cmp::Reverse<u64>>,
}

impl MergeScratch {
    pub(super) fn memory_bytes(&self) -> usize {
        (self.cursor.capacity()
            + self.stamp.capacity()
            + self.path.capacity()
            + self.pos.capacity()
            + self.count.capacity())
            * 4
            + (self.bits.capacity() + self.vm.capacity() + self.keys.capacity()) * 8
            + self.far.capacity()
    }
}

impl Scratch {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            index: crate::tree::SwitchIndex::new(n),
            dfs: Vec::new(),
            seen: Marks::new(n),
            done: Marks::new(n),
            target: Marks::new(n),
            collected: Marks::new(n),
            hops: vec![0; n],
            cost: vec![0; n],
            parent: vec![NO_SLOT; n],
            via: vec![0; n],
            choice: vec![0; n],
            queue: Vec::with_capacity(n),
            tree_depth: Vec::new(),
            chain: Vec::new(),
            grow_depth: Vec::new(),
            buckets: Vec::new(),
            entries: Vec::new(),
            owned: Marks::new(n),
            owner: vec![0; n],
            adopted: Vec::new(),
            adopt: Vec::new(),
            adopt_node: Vec::new(),
            packed: Vec::new(),
            maxd: vec![0; n],
            near: vec![0; n],
            busy_or: Vec::new(),
            bits: BitSearch::default(),
            merge: MergeScratch::default(),
        }
    }

    /// Fills [`near`](Self::near) with every switch's least hop distance to `targets`
    /// (255 for no target).
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn fill_near(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) {
        self.near.fill(u8::MAX);
        fold_rows(hops, targets, &mut self.near, u8::min);
    }

    /// Fills [`maxd`](Self::maxd) with every switch's largest hop distance to `targets`
    /// (as `Router::max_dist` does; 0 for no target).
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn fill_far(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) {
        self.maxd.fill(0);
        fold_rows(hops, targets, &mut self.maxd, u8::max);
    }

    /// Raises [`maxd`](Self::maxd) to the largest hop distance to `targets` where that is
    /// larger; returns whether it raised any.
    ///
    /// Complexity: O(S·|targets|) byte operations.
    pub(crate) fn raise_far(&mut self, hops: &fabric_model::HopTable, targets: &[u32]) -> bool {
        let before = &mut self.merge.far;
        before.clear();
        before.extend_from_slice(&self.maxd);
        fold_rows(hops, targets, &mut self.maxd, u8::max);
        *before != self.maxd
    }

    /// Whether a switch `v` reached in `h` hops is beyond `bound` by [`near`](Self::near)
    /// (the searches test it inline; the heap reference of the tests calls it).
    #[cfg(test)]
    pub(super) fn pruned(&self, pruning: Pruning, h: u32, v: u32, bound: u32) -> bool {
        pruning == Pruning::Near && h.saturating_add(u32::from(self.near[v as usize])) > bound
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        (self.seen.v.capacity()
            + self.done.v.capacity()
            + self.target.v.capacity()
            + self.collected.v.capacity()
            + self.hops.capacity()
            + self.parent.capacity()
            + self.via.capacity()
            + self.choice.capacity()
            + self.queue.capacity()
            + self.grow_depth.capacity())
            * 4
            + self.index.memory_bytes()
            + self.dfs.capacity() * size_of::<(u32, u32, u64, u32)>()
            + (self.cost.capacity() + self.busy_or.capacity()) * 8
            + self.buckets.capacity() * size_of::<Vec<u32>>()
            + self.entries.capacity() * size_of::<(u64, u32)>()
            + self.buckets.iter().map(|b| b.capacity() * 4).sum::<usize>()
            + (self.owned.v.capacity()
                + self.owner.capacity()
                + self.adopt.capacity()
                + self.adopt_node.capacity())
                * 4
            + self.packed.capacity() * 8
            + self.adopted.capacity()
            + self.maxd.capacity()
            + self.near.capacity()
            + self.bits.memory_bytes()
            + self.merge.memory_bytes()
    }
}
