use std::fmt::{self, Write};

use crate::{Fabric, NodeId, NodeKind, PortNo};

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
    let port0 = n.port_address(PortNo::new(0));
    if let Some(g) = n.guid {
        write!(out, "{guid_key}=0x{g:x}")?;
        if n.kind == NodeKind::Switch
            && let Some(p) = port0.guid
        {
            write!(out, "({p:x})")?;
        }
        out.write_char('\n')?;
    }
    write!(out, "{keyword}\t{} \"{}\"", n.ports, n.name)?;
    if n.kind == NodeKind::Switch {
        out.write_str("\t\t# ")?;
        if let Some(d) = &n.description {
            write!(out, "\"{d}\" ")?;
        }
        out.write_str("base port 0")?;
        if let Some(l) = n.lid {
            write!(out, " lid {l}")?;
        }
        if let Some(m) = port0.lmc {
            write!(out, " lmc {m}")?;
        }
    } else {
        // The node's LID goes in the header only where the first port line would not give it
        // back (that port has a LID of its own).
        let first = f.neighbors(id).next().map(|nb| nb.port);
        let header_lid = n
            .lid
            .filter(|&l| first.is_some_and(|p| n.port_lid(p) != Some(l)));
        match (&n.description, header_lid) {
            (Some(d), Some(l)) => write!(out, "\t\t# \"{d}\" lid {l}")?,
            (Some(d), None) => write!(out, "\t\t# \"{d}\"")?,
            (None, Some(l)) => write!(out, "\t\t# lid {l}")?,
            (None, None) => {}
        }
    }
    out.write_char('\n')?;
    for nb in f.neighbors(id) {
        let peer = f.node(nb.peer);
        let rate = f.link(nb.link).rate;
        let own = n.port_address(nb.port);
        write!(out, "[{}]", nb.port.get())?;
        if let Some(g) = own.guid {
            write!(out, "({g:x}) ")?;
        }
        write!(out, "\t\"{}\"[{}]", peer.name, nb.peer_port.get())?;
        if let Some(g) = peer.port_address(nb.peer_port).guid {
            write!(out, "({g:x}) ")?;
        }
        out.write_str("\t\t# ")?;
        if n.kind == NodeKind::Terminal
            && let Some(l) = n.port_lid(nb.port)
        {
            write!(out, "lid {l} ")?;
            if let Some(m) = own.lmc {
                write!(out, "lmc {m} ")?;
            }
        }
        match (&peer.description, n.kind) {
            (Some(d), _) => write!(out, "\"{d}\" ")?,
            // A CA's tail always quotes the peer's description, so that a peer LID can never
            // be read as the CA's own.
            (None, NodeKind::Terminal) => out.write_str("\"\" ")?,
            (None, NodeKind::Switch) => {}
        }
        if let Some(l) = peer.port_lid(nb.peer_port) {
            write!(out, "lid {l} ")?;
        }
        writeln!(out, "{rate}")?;
    }
    Ok(())
}
