use std::fmt::{self, Write};

use crate::{Fabric, NodeId, NodeKind};

/// Writes `fabric` as ibnetdiscover text into `out`.
///
/// # Errors
/// Only the errors of `out`.
///
/// # Complexity
/// O(nodes + ports).
pub fn write_ibnetdiscover_to(fabric: &Fabric, out: &mut impl Write) -> fmt::Result {
    out.write_str("#\n# Topology file: written by fabric-model\n#\n")?;
    for id in fabric.node_ids() {
        write_node(fabric, id, out)?;
    }
    Ok(())
}

/// Writes `fabric` as ibnetdiscover text into a new string.
#[must_use]
pub fn write_ibnetdiscover(fabric: &Fabric) -> String {
    let mut s = String::with_capacity(64 * (fabric.node_count() + 2 * fabric.link_count()));
    // Writing into a String cannot fail.
    let _ = write_ibnetdiscover_to(fabric, &mut s);
    s
}

fn write_node(f: &Fabric, id: NodeId, out: &mut impl Write) -> fmt::Result {
    let n = f.node(id);
    out.write_char('\n')?;
    let (keyword, guid_key) = match (n.kind, n.router) {
        (NodeKind::Switch, _) => ("Switch", "switchguid"),
        (NodeKind::Terminal, false) => ("Ca", "caguid"),
        (NodeKind::Terminal, true) => ("Rt", "rtguid"),
    };
    if let Some(g) = n.guid {
        if n.kind == NodeKind::Switch {
            writeln!(out, "{guid_key}=0x{g:x}({g:x})")?;
        } else {
            writeln!(out, "{guid_key}=0x{g:x}")?;
        }
    }
    write!(out, "{keyword}\t{} \"{}\"", n.ports, n.name)?;
    if n.kind == NodeKind::Switch {
        out.write_str("\t\t# ")?;
        if let Some(d) = &n.description {
            write!(out, "\"{d}\" ")?;
        }
        out.write_str("base port 0")?;
        if let Some(l) = n.lid {
            write!(out, " lid {l} lmc 0")?;
        }
    } else if let Some(d) = &n.description {
        write!(out, "\t\t# \"{d}\"")?;
    }
    out.write_char('\n')?;
    for nb in f.neighbors(id) {
        let peer = f.node(nb.peer);
        let rate = f.link(nb.link).rate;
        write!(out, "[{}]", nb.port.get())?;
        if n.kind == NodeKind::Terminal
            && let Some(g) = n.guid
        {
            write!(out, "({:x}) ", g.wrapping_add(u64::from(nb.port.get())))?;
        }
        write!(out, "\t\"{}\"[{}]", peer.name, nb.peer_port.get())?;
        if peer.kind == NodeKind::Terminal
            && let Some(g) = peer.guid
        {
            write!(
                out,
                "({:x}) ",
                g.wrapping_add(u64::from(nb.peer_port.get()))
            )?;
        }
        out.write_str("\t\t# ")?;
        if n.kind == NodeKind::Terminal
            && let Some(l) = n.lid
        {
            write!(out, "lid {l} lmc 0 ")?;
        }
        match (&peer.description, n.kind) {
            (Some(d), _) => write!(out, "\"{d}\" ")?,
            // A CA's tail always quotes the peer's description, so that a peer LID can never
            // be read as the CA's own.
            (None, NodeKind::Terminal) => out.write_str("\"\" ")?,
            (None, NodeKind::Switch) => {}
        }
        if let Some(l) = peer.lid {
            write!(out, "lid {l} ")?;
        }
        writeln!(out, "{rate}")?;
    }
    Ok(())
}
