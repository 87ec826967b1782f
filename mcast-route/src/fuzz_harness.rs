//! Entry points for the cargo-fuzz targets in `fuzz/`, kept in the library so that a stable
//! test replays the committed corpus through the same code.

use std::sync::OnceLock;

use fabric_model::{Fabric, HopTable, NodeId, generators};

use crate::{Config, Entries, GroupId, Router, mft};

fn fabric() -> &'static (Fabric, HopTable) {
    static F: OnceLock<(Fabric, HopTable)> = OnceLock::new();
    F.get_or_init(|| {
        let f = generators::fat_tree(4).expect("fat_tree(4) is valid");
        let h = HopTable::new(&f).expect("a small fabric has a hop table");
        (f, h)
    })
}

/// Reads `data` as a dump over `fat_tree(4)`; when it parses, nothing else is checked (the
/// parser must just not panic).
pub fn dump(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = mft::parse_dump(text, &fabric().0);
    }
}

/// Runs `data` as a sequence of operations on a router over `fat_tree(4)` with two entries
/// per switch: byte `b` with the high bit clear creates a group of the terminals whose bits
/// are set in the next two bytes; with the high bit set it deletes group `b & 0x7f`. Bad
/// input must give errors, and the dump must always read back.
///
/// # Panics
/// When the dump of a state does not parse: that is the bug the fuzzer hunts.
pub fn router_ops(data: &[u8]) {
    let (f, h) = fabric();
    let Ok(mut r) = Router::new(f, h, Config::mr4lms(Entries::Limit(2))) else {
        return;
    };
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        i += 1;
        if b & 0x80 != 0 {
            let _ = r.delete_group(GroupId(u32::from(b & 0x7f)));
            continue;
        }
        let mask = u16::from_le_bytes([
            data.get(i).copied().unwrap_or(0),
            data.get(i + 1).copied().unwrap_or(0),
        ]);
        i += 2;
        let members: Vec<NodeId> = (0..16)
            .filter(|k| mask >> k & 1 == 1)
            .map(|k| f.terminals()[k])
            .collect();
        let _ = r.create_group(&members);
    }
    let text = r.dump().expect("two entries always have MLIDs");
    let parsed = mft::parse_dump(&text, f).expect("a dump reads back");
    assert_eq!(parsed.groups.len(), r.group_ids().count());
}
