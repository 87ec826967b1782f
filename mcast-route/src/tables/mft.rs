//! The tables as a subnet manager programs them: InfiniBand MFT blocks and a text dump.

use std::fmt::Write as _;

use fabric_model::{Fabric, NodeId, PortNo};

use crate::{Color, Error, GroupId, Router};

/// MLIDs per MFT block (`IB_MCAST_BLOCK_SIZE`).
pub const MLIDS_PER_BLOCK: u32 = 32;

/// One `MulticastForwardingTable` SMP payload: 32 MLIDs × one 16-port mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MftBlock {
    /// Block number: MLIDs `0xC000 + 32·block ..`.
    pub block: u16,
    /// Port position: mask bit i is port `16·position + i` (port 0 counted).
    pub position: u8,
    /// The masks, one per MLID of the block.
    pub masks: [u16; 32],
}

impl MftBlock {
    /// The SMP attribute modifier: `block + (position << 28)`.
    #[must_use]
    pub fn attribute_modifier(&self) -> u32 {
        u32::from(self.block) | u32::from(self.position) << 28
    }
}

impl Router<'_> {
    fn highest_color(&self) -> Option<u32> {
        self.state
            .colors
            .trees_per_color
            .iter()
            .rposition(|&t| t > 0)
            .map(|c| c as u32)
    }

    /// The MFT of `switch` as InfiniBand blocks: every block up to the highest MLID in use
    /// anywhere (so that cleared entries are written too), each at every port position of the
    /// switch (`⌈(radix + 1)/16⌉` of them, port 0 counted), block-major.
    ///
    /// # Errors
    /// [`Error::NotASwitch`]; [`Error::MlidOutOfRange`] when a color has no MLID (only with
    /// unlimited entries).
    ///
    /// # Complexity
    /// O(B·(P/16)·32) for B blocks and P ports.
    pub fn mft_blocks(&self, switch: NodeId) -> Result<Vec<MftBlock>, Error> {
        let entries = self.entries(switch)?;
        let Some(top) = self.highest_color() else {
            return Ok(Vec::new());
        };
        if Color(top).mlid().is_none() {
            return Err(Error::MlidOutOfRange { color: Color(top) });
        }
        let positions = (usize::from(self.view.fabric.radix(switch)) + 1).div_ceil(16) as u8;
        let blocks = (top / MLIDS_PER_BLOCK + 1) as u16;
        let mut out = Vec::with_capacity(usize::from(blocks) * usize::from(positions));
        for block in 0..blocks {
            for position in 0..positions {
                let mut masks = [0u16; 32];
                for (c, ports) in &entries {
                    if c.0 / MLIDS_PER_BLOCK == u32::from(block) {
                        masks[(c.0 % MLIDS_PER_BLOCK) as usize] = ports.mask16(position);
                    }
                }
                out.push(MftBlock {
                    block,
                    position,
                    masks,
                });
            }
        }
        Ok(out)
    }

    /// The tables as text, one line per switch entry then one per group:
    ///
    /// ```text
    /// switch <node-name> mlid 0x<hex> ports <p1>,<p2>,…
    /// group <id> mlid 0x<hex> members <terminal-name>,…
    /// ```
    ///
    /// Switches in fabric order, entries by MLID, groups by id; MLIDs as four lowercase hex
    /// digits. A node name holding whitespace or a comma (the fabric readers accept such
    /// names; a name never holds a `"`) is written between double quotes, as in
    /// `switch "leaf 1, row 2" mlid 0xc000 ports 1,3`. [`parse_dump`] reads it back.
    ///
    /// # Errors
    /// [`Error::MlidOutOfRange`] when a color has no MLID (only with unlimited entries).
    ///
    /// # Complexity
    /// O(entries · P + Σ members).
    pub fn dump(&self) -> Result<String, Error> {
        let mut out = String::new();
        let mlid = |c: Color| c.mlid().ok_or(Error::MlidOutOfRange { color: c });
        for &s in self.view.fabric.switches() {
            for (c, ports) in self.entries(s)? {
                let _ = write!(
                    out,
                    "switch {} mlid {:#06x} ports ",
                    quoted(&self.view.fabric.node(s).name),
                    mlid(c)?
                );
                join(&mut out, ports.iter().map(|p| p.get().to_string()));
            }
        }
        for id in self.group_ids() {
            let g = self.group(id)?;
            let _ = write!(out, "group {} mlid {:#06x} members ", id.0, mlid(g.color)?);
            join(
                &mut out,
                g.members
                    .iter()
                    .map(|&m| quoted(&self.view.fabric.node(m).name).into_owned()),
            );
        }
        Ok(out)
    }
}

/// `name`, between double quotes when it holds whitespace, a comma or a quote.
fn quoted(name: &str) -> std::borrow::Cow<'_, str> {
    if name.is_empty()
        || name
            .chars()
            .any(|c| c.is_whitespace() || c == ',' || c == '"')
    {
        format!("\"{name}\"").into()
    } else {
        name.into()
    }
}

/// Splits `s` at every `sep` (a char, or whitespace when `None`) outside double quotes;
/// `None` when a quote is not closed or, in a list (`sep` given), when a quoted run is not a
/// whole item or an item is empty.
fn split_quoted(s: &str, sep: Option<char>) -> Option<Vec<&str>> {
    let is_sep = |c: char| sep.map_or(c.is_whitespace(), |x| c == x);
    let mut out = Vec::new();
    let mut start = None;
    let mut in_quote = false;
    for (i, c) in s.char_indices() {
        if in_quote {
            if c == '"' {
                in_quote = false;
                // In a list, a closing quote ends the item.
                let next = s[i + 1..].chars().next();
                if sep.is_some() && next.is_some_and(|n| !is_sep(n)) {
                    return None;
                }
            }
            continue;
        }
        if is_sep(c) {
            if let Some(b) = start.take() {
                out.push(&s[b..i]);
            } else if sep.is_some() {
                return None; // an empty item
            }
            continue;
        }
        if c == '"' {
            if sep.is_some() && start.is_some() {
                return None; // a quote inside a bare item
            }
            in_quote = true;
        }
        start.get_or_insert(i);
    }
    if in_quote {
        return None;
    }
    match start {
        Some(b) => out.push(&s[b..]),
        None if sep.is_some() => return None, // empty list or trailing separator
        None => {}
    }
    Some(out)
}

/// A name as [`Router::dump`] writes it: bare, or between quotes (never empty).
fn unquoted(item: &str) -> Option<&str> {
    match item.strip_prefix('"') {
        Some(rest) => rest.strip_suffix('"').filter(|n| !n.is_empty()),
        None => Some(item),
    }
}

fn join(out: &mut String, items: impl Iterator<Item = String>) {
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&x);
    }
    out.push('\n');
}

/// A text dump read back by [`parse_dump`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Dump {
    /// `(switch, MLID, ports)` per `switch` line.
    pub entries: Vec<(NodeId, u16, Vec<PortNo>)>,
    /// `(group, MLID, members)` per `group` line.
    pub groups: Vec<(GroupId, u16, Vec<NodeId>)>,
}

/// Reads the text of [`Router::dump`], naming nodes by their names in `fabric` (bare, or
/// between double quotes). Blank lines are skipped.
///
/// # Errors
/// [`Error::Parse`] with the 1-based line for a line of another shape (an unclosed quote, a
/// quote inside a word, an empty list item among them), an unknown node name,
/// an MLID outside 0xC000..=0xFFFE or a bad number.
///
/// # Complexity
/// O(length of the text).
pub fn parse_dump(text: &str, fabric: &Fabric) -> Result<Dump, Error> {
    let mut d = Dump::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let bad = |reason: String| Error::Parse {
            line: line_no,
            reason,
        };
        let words = split_quoted(line, None)
            .ok_or_else(|| bad("a quoted name is not closed or not a whole word".to_owned()))?;
        if words.is_empty() {
            continue;
        }
        let [kind, id, mlid_kw, mlid, list_kw, list] = words[..] else {
            return Err(bad(format!("expected 6 words, found {}", words.len())));
        };
        if mlid_kw != "mlid" {
            return Err(bad(format!("expected `mlid`, found {mlid_kw:?}")));
        }
        let mlid = mlid
            .strip_prefix("0x")
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .filter(|&m| (0xC000..=0xFFFE).contains(&m))
            .ok_or_else(|| bad(format!("{mlid:?} is not a multicast LID")))?;
        let node = |word: &str| {
            let name = unquoted(word).ok_or_else(|| bad(format!("{word:?} is not a node name")))?;
            fabric
                .node_by_name(name)
                .ok_or_else(|| bad(format!("no node is named {name:?}")))
        };
        match (kind, list_kw) {
            ("switch", "ports") => {
                let sw = node(id)?;
                if !fabric.is_switch(sw) {
                    return Err(bad(format!("{id:?} is not a switch")));
                }
                let ports = list
                    .split(',')
                    .map(|p| {
                        p.parse::<u16>()
                            .ok()
                            .filter(|&p| p <= fabric.radix(sw))
                            .map(PortNo::new)
                            .ok_or_else(|| bad(format!("{p:?} is not a port of {id}")))
                    })
                    .collect::<Result<_, _>>()?;
                d.entries.push((sw, mlid, ports));
            }
            ("group", "members") => {
                let g = id
                    .parse::<u32>()
                    .map_err(|_| bad(format!("{id:?} is not a group id")))?;
                let members = split_quoted(list, Some(','))
                    .ok_or_else(|| bad(format!("{list:?} is not a list of node names")))?
                    .into_iter()
                    .map(node)
                    .collect::<Result<_, _>>()?;
                d.groups.push((GroupId(g), mlid, members));
            }
            _ => return Err(bad(format!("unknown line kind {kind:?} … {list_kw:?}"))),
        }
    }
    Ok(d)
}
