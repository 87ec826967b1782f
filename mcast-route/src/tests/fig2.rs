//! The paper's Fig. 2: five switches, eight terminals, four groups on one color.

use crate::{Color, Config, Entries, Method, Router};
use fabric_model::{Fabric, FabricBuilder, HopTable, NodeId, NodeInfo, PortNo};

use crate::invariants::check_state;

/// sw0 joins sw1…sw4 (its ports 1–4, their port 3); A,B on sw1, C,D on sw2, E,F on sw3,
/// G,H on sw4 (ports 1 and 2).
fn fig2() -> (Fabric, Vec<NodeId>, Vec<NodeId>) {
    let mut b = FabricBuilder::new();
    let sw: Vec<NodeId> = (0..5)
        .map(|i| b.add_node(NodeInfo::switch(format!("sw{i}"), 4)).unwrap())
        .collect();
    let t: Vec<NodeId> = "ABCDEFGH"
        .chars()
        .map(|c| b.add_node(NodeInfo::terminal(c.to_string(), 1)).unwrap())
        .collect();
    for i in 1..5 {
        b.link(sw[0], PortNo::new(i as u16), sw[i], PortNo::new(3))
            .unwrap();
        b.link(sw[i], PortNo::new(1), t[2 * (i - 1)], PortNo::new(1))
            .unwrap();
        b.link(sw[i], PortNo::new(2), t[2 * (i - 1) + 1], PortNo::new(1))
            .unwrap();
    }
    (b.build().unwrap(), sw, t)
}

fn ports(v: &[u16]) -> crate::PortSet {
    v.iter().map(|&p| PortNo::new(p)).collect()
}

#[test]
fn four_groups_share_color_zero_as_in_fig2() {
    let (f, sw, t) = fig2();
    let (a, b, c, d, e, ff, g, h) = (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
    let hops = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &hops, Config::mr4lms(Entries::Limit(1))).unwrap();

    // 1) A,B: tree {sw1}, entry 0.
    let g1 = r.create_group(&[a, b]).unwrap();
    assert_eq!(
        (g1.color, g1.root, g1.height, g1.method),
        (Color::new(0), sw[1], 1, Method::Fbtc)
    );
    // 2) C,D: no switch in common with 1), so entry 0 again.
    let g2 = r.create_group(&[c, d]).unwrap();
    assert_eq!(
        (g2.color, g2.root, g2.method),
        (Color::new(0), sw[2], Method::Fbtc)
    );
    // 3) E,G: tree sw3–sw0–sw4, entry 0.
    let g3 = r.create_group(&[e, g]).unwrap();
    assert_eq!((g3.color, g3.root, g3.height), (Color::new(0), sw[0], 2));
    let t3 = r.tree(g3.tree).unwrap();
    let mut s3: Vec<NodeId> = t3.switches.iter().map(|x| x.0).collect();
    s3.sort();
    assert_eq!(s3, [sw[0], sw[3], sw[4]]);
    // 4) F,H: one entry only and sw0, sw3, sw4 hold it: merged onto the tree of 3).
    let g4 = r.create_group(&[ff, h]).unwrap();
    assert_eq!(g4.method, Method::Merge);
    assert_eq!(g4.color, Color::new(0));
    assert_eq!(g4.merged, [g3.group]);
    // The merged tree's root has the least largest BFS distance to E, F, G, H in G_color.
    assert_eq!((g4.root, g4.height), (sw[0], 2));
    let t4 = r.tree(g4.tree).unwrap();
    assert_eq!(t4.members, [e, ff, g, h]);
    assert_eq!(t4.groups, [g3.group, g4.group]);
    let mut s4: Vec<NodeId> = t4.switches.iter().map(|x| x.0).collect();
    s4.sort();
    assert_eq!(s4, s3, "the old tree is kept, leaves added");

    // The MFT entries of color 0.
    assert_eq!(
        r.port_set(sw[0], Color::new(0)).unwrap(),
        Some(ports(&[3, 4]))
    );
    assert_eq!(
        r.port_set(sw[1], Color::new(0)).unwrap(),
        Some(ports(&[1, 2]))
    );
    assert_eq!(
        r.port_set(sw[2], Color::new(0)).unwrap(),
        Some(ports(&[1, 2]))
    );
    assert_eq!(
        r.port_set(sw[3], Color::new(0)).unwrap(),
        Some(ports(&[1, 2, 3]))
    );
    assert_eq!(
        r.port_set(sw[4], Color::new(0)).unwrap(),
        Some(ports(&[1, 2, 3]))
    );

    let st = r.stats();
    assert_eq!((st.colors_used, st.max_tfi, st.merged_groups), (1, 2, 2));
    // sw0–sw3 carries groups 3 and 4.
    assert_eq!(st.max_efi, 2);
    check_state(&r).unwrap();

    // Deleting 3) keeps 4) working; deleting 4) frees sw0, sw3, sw4.
    r.delete_group(g3.group).unwrap();
    check_state(&r).unwrap();
    assert_eq!(r.tree(g4.tree).unwrap().members, [ff, h]);
    r.delete_group(g4.group).unwrap();
    for s in [sw[0], sw[3], sw[4]] {
        assert!(r.entries(s).unwrap().is_empty());
    }
}

#[test]
fn with_two_entries_fig2_needs_no_merge() {
    let (f, _sw, t) = fig2();
    let hops = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &hops, Config::mr4lms(Entries::Limit(2))).unwrap();
    for g in [[t[0], t[1]], [t[2], t[3]], [t[4], t[6]], [t[5], t[7]]] {
        let made = r.create_group(&g).unwrap();
        assert_ne!(made.method, Method::Merge);
        assert_eq!(made.height, made.min_height);
    }
    let st = r.stats();
    assert_eq!((st.colors_used, st.max_tfi, st.merged_groups), (2, 1, 0));
    check_state(&r).unwrap();
}
