//! Bad input, each with its precise error.

use fabric_model::{FabricBuilder, HopTable, NodeId, NodeInfo, PortNo, generators};
use mcast_route::{Algorithm, Color, Config, Entries, Error, GroupId, MAX_ENTRIES, Router};

#[test]
fn bad_members_are_refused() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::default()).unwrap();
    let t = f.terminals();
    assert_eq!(r.create_group(&[]), Err(Error::EmptyGroup));
    let s = f.switches()[0];
    assert!(
        matches!(r.create_group(&[t[0], s]), Err(Error::NotATerminal { node, .. }) if node == s)
    );
    let ghost = NodeId::new(f.node_count() as u32);
    assert_eq!(
        r.create_group(&[t[0], ghost]),
        Err(Error::UnknownNode { node: ghost })
    );
    assert!(
        matches!(r.create_group(&[t[0], t[1], t[0]]), Err(Error::DuplicateMember { node, .. }) if node == t[0])
    );
    // Nothing was created by the failures.
    assert_eq!(r.group_ids().count(), 0);
    assert_eq!(
        r.create_group(&[t[0], t[1]]).unwrap().group,
        GroupId::new(0)
    );
}

#[test]
fn unknown_and_deleted_groups_are_refused() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::default()).unwrap();
    let g = r.create_group(&f.terminals()[..3]).unwrap().group;
    assert_eq!(
        r.delete_group(GroupId::new(7)),
        Err(Error::UnknownGroup {
            group: GroupId::new(7)
        })
    );
    r.delete_group(g).unwrap();
    assert_eq!(r.delete_group(g), Err(Error::GroupDeleted { group: g }));
    assert_eq!(r.group(g), Err(Error::GroupDeleted { group: g }));
    assert_eq!(
        r.group(GroupId::new(9)).unwrap_err(),
        Error::UnknownGroup {
            group: GroupId::new(9)
        }
    );
}

#[test]
fn bad_configurations_are_refused() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    assert_eq!(
        Router::new(&f, &h, Config::mr4lms(Entries::Limit(0))).unwrap_err(),
        Error::ZeroEntries
    );
    assert!(matches!(
        Router::new(&f, &h, Config::mr4lms(Entries::Limit(MAX_ENTRIES + 1))),
        Err(Error::TooManyEntries { .. })
    ));
    let other = generators::fat_tree(6).unwrap();
    let h6 = HopTable::new(&other).unwrap();
    assert_eq!(
        Router::new(&f, &h6, Config::default()).unwrap_err(),
        Error::HopTableMismatch {
            table: 45,
            fabric: 20
        }
    );
    let r = Router::new(&f, &h, Config::default()).unwrap();
    let t = f.terminals()[0];
    assert_eq!(r.entries(t), Err(Error::NotASwitch { node: t }));
}

#[test]
fn members_the_fabric_cannot_connect_are_refused() {
    // Two islands: sw0 with a, b; sw1 with c.
    let mut b = FabricBuilder::new();
    let s0 = b.add_node(NodeInfo::switch("s0", 2)).unwrap();
    let s1 = b.add_node(NodeInfo::switch("s1", 2)).unwrap();
    let ta = b.add_node(NodeInfo::terminal("a", 1)).unwrap();
    let tb = b.add_node(NodeInfo::terminal("b", 1)).unwrap();
    let tc = b.add_node(NodeInfo::terminal("c", 1)).unwrap();
    b.link(s0, PortNo::new(1), ta, PortNo::new(1)).unwrap();
    b.link(s0, PortNo::new(2), tb, PortNo::new(1)).unwrap();
    b.link(s1, PortNo::new(1), tc, PortNo::new(1)).unwrap();
    let f = b.build().unwrap();
    let h = HopTable::new(&f).unwrap();
    for alg in [Algorithm::Mr4lms, Algorithm::MinihopMc, Algorithm::SsspMc] {
        let mut r = Router::new(&f, &h, Config::baseline(alg, Entries::Unlimited)).unwrap();
        assert_eq!(
            r.create_group(&[ta, tc]),
            Err(Error::Disconnected { a: ta, b: tc })
        );
        assert!(r.create_group(&[ta, tb]).is_ok());
    }
}

#[test]
fn baselines_run_out_of_entries() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let t = f.terminals();
    for alg in [Algorithm::MinihopMc, Algorithm::SsspMc] {
        let mut r = Router::new(&f, &h, Config::baseline(alg, Entries::Limit(2))).unwrap();
        r.create_group(&[t[0], t[1]]).unwrap();
        // Disjoint switches, but a baseline never shares an MLID.
        r.create_group(&[t[14], t[15]]).unwrap();
        assert_eq!(
            r.create_group(&[t[4], t[5]]),
            Err(Error::EntriesExhausted { limit: 2 })
        );
        r.delete_group(GroupId::new(0)).unwrap();
        assert_eq!(
            r.create_group(&[t[4], t[5]]).unwrap().color.get(),
            0,
            "lowest free MLID"
        );
    }
}

#[test]
fn colors_past_the_mlid_space_cannot_be_written() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Unlimited)).unwrap();
    let t = f.terminals();
    // Unlimited entries: one color per group on the shared leaf, past the last MLID.
    for _ in 0..=MAX_ENTRIES {
        r.create_group(&[t[0], t[1]]).unwrap();
    }
    let past = Color::new(MAX_ENTRIES);
    assert_eq!(past.mlid(), None);
    assert_eq!(Color::new(MAX_ENTRIES - 1).mlid(), Some(0xFFFE));
    let err = Error::MlidOutOfRange { color: past };
    assert_eq!(r.dump(), Err(err.clone()));
    let leaf = f.switch_of(t[0]).unwrap().0;
    assert_eq!(r.mft_blocks(leaf), Err(err.clone()));
    assert_eq!(
        err.to_string(),
        "color 16383 has no multicast LID (0xC000 + color passes 0xFFFE)"
    );
}

#[test]
fn a_color_displays_as_its_number() {
    assert_eq!(Color::new(7).to_string(), "7");
    assert_eq!(
        format!("MLID {:#x}", Color::new(7).mlid().unwrap()),
        "MLID 0xc007"
    );
}
