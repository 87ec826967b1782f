//! MFT deltas: which (switch, MFT block) pairs a subnet manager must send again.

use fabric_model::NodeId;

use crate::mft::{MLIDS_PER_BLOCK, MftBlock};
use crate::{Color, Error, PortSet, Router};

/// One touch of an entry since the last delta: (switch, color, its content before).
pub(crate) type MftLogEntry = (u32, u32, Option<PortSet>);

impl Router<'_> {
    /// The (switch, MFT block) pairs whose content changed since the last call: the
    /// `MulticastForwardingTable` blocks a subnet manager must send again (each at every port
    /// position; [`mft_block`](Self::mft_block) gives them). The first call answers against
    /// the empty tables the router started from (every block holding an entry) and starts
    /// the tracking, which costs nothing before it. An entry changed and changed back between
    /// two calls is no change. Pairs in switch order (as [`Fabric::switches`]), then by
    /// block.
    ///
    /// [`Fabric::switches`]: fabric_model::Fabric::switches
    ///
    /// # Complexity
    /// First call O(entries); later O(k log k) for k entry changes since the last call.
    pub fn take_mft_delta(&mut self) -> Vec<(NodeId, u16)> {
        let block = |c: u32| (c / MLIDS_PER_BLOCK) as u16;
        let mut changed: Vec<(u32, u16)> = Vec::new();
        match self.state.mft_log.replace(Vec::new()) {
            None => {
                for sw in 0..self.view.g.len() as u32 {
                    changed.extend(
                        self.state
                            .colors
                            .entries(sw)
                            .iter()
                            .map(|&(c, _)| (sw, block(c))),
                    );
                }
            }
            Some(mut log) => {
                // Stable: the first touch of each entry holds its content at the last call.
                log.sort_by_key(|e| (e.0, e.1));
                log.dedup_by_key(|e| (e.0, e.1));
                for (sw, c, before) in log {
                    let now = self
                        .state
                        .colors
                        .tree_at(sw, c)
                        .and_then(|t| self.state.tree_ref(t).port_set(sw));
                    if now != before {
                        changed.push((sw, block(c)));
                    }
                }
            }
        }
        changed.sort_unstable();
        changed.dedup();
        changed
            .into_iter()
            .map(|(sw, b)| (self.view.sw_node(sw), b))
            .collect()
    }

    /// Block `block` of `switch`'s MFT at every port position (`⌈(radix + 1)/16⌉` of them,
    /// port 0 counted), as [`mft_blocks`](Self::mft_blocks) gives it; the full table of a
    /// switch that rebooted is [`mft_blocks`](Self::mft_blocks).
    ///
    /// # Errors
    /// [`Error::NotASwitch`]; [`Error::MlidOutOfRange`] when the block is past the last MLID.
    pub fn mft_block(&self, switch: NodeId, block: u16) -> Result<Vec<MftBlock>, Error> {
        let entries = self.entries(switch)?;
        let first = u32::from(block) * MLIDS_PER_BLOCK;
        if Color(first).mlid().is_none() {
            return Err(Error::MlidOutOfRange {
                color: Color(first),
            });
        }
        let positions = (usize::from(self.view.fabric.radix(switch)) + 1).div_ceil(16) as u8;
        Ok((0..positions)
            .map(|position| {
                let mut masks = [0u16; 32];
                for (c, ports) in &entries {
                    if c.0 / MLIDS_PER_BLOCK == u32::from(block) {
                        masks[(c.0 % MLIDS_PER_BLOCK) as usize] = ports.mask16(position);
                    }
                }
                MftBlock {
                    block,
                    position,
                    masks,
                }
            })
            .collect())
    }
}
