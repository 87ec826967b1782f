//! MFT blocks and the text dump.

use fabric_model::{HopTable, PortNo, generators};
use mcast_route::{Color, Config, Entries, Error, Router, mft};

#[test]
fn blocks_lay_out_mlids_and_port_positions() {
    // fat_tree(40) switches have 40 ports: 41 with port 0, three 16-port positions.
    let f = generators::fat_tree(8).unwrap(); // 8-port switches: one position
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(64))).unwrap();
    let t = f.terminals();
    // 40 groups on the same first leaf: colors 0..40, two blocks.
    let leaf = f.switch_of(t[0]).unwrap().0;
    for _ in 0..40 {
        r.create_group(&[t[0], t[1]]).unwrap();
    }
    let blocks = r.mft_blocks(leaf).unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!((blocks[1].block, blocks[1].position), (1, 0));
    assert_eq!(blocks[1].attribute_modifier(), 1);
    let (_, p0) = f.switch_of(t[0]).unwrap();
    let (_, p1) = f.switch_of(t[1]).unwrap();
    let want = (1u16 << p0.get()) | (1u16 << p1.get());
    assert!(blocks[0].masks.iter().all(|&m| m == want));
    assert!(blocks[1].masks[..8].iter().all(|&m| m == want));
    assert!(blocks[1].masks[8..].iter().all(|&m| m == 0));
    let big = generators::fat_tree(40).unwrap();
    let bh_needed = big.radix(big.switches()[0]);
    assert_eq!((usize::from(bh_needed) + 1).div_ceil(16), 3);
}

#[test]
fn dump_reads_back_and_names_every_entry() {
    let f = generators::fat_tree(4).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(4))).unwrap();
    let t = f.terminals();
    r.create_group(&[t[0], t[5], t[15]]).unwrap();
    r.create_group(&[t[1], t[2]]).unwrap();
    let text = r.dump().unwrap();
    let d = mft::parse_dump(&text, &f).unwrap();
    let n_entries: usize = f
        .switches()
        .iter()
        .map(|&s| r.entries(s).unwrap().len())
        .sum();
    assert_eq!(d.entries.len(), n_entries);
    for (s, mlid, ports) in &d.entries {
        let got = r
            .port_set(*s, Color::new(u32::from(*mlid - 0xC000)))
            .unwrap()
            .unwrap();
        assert_eq!(got.iter().collect::<Vec<_>>(), *ports);
    }
    assert_eq!(d.groups.len(), 2);
    assert_eq!(d.groups[0].2, [t[0], t[5], t[15]]);
    assert!(text.lines().next().unwrap().starts_with("switch "));
    assert!(text.contains(" mlid 0xc000 "));
    // Errors name the line.
    let bad = format!("{text}switch nowhere mlid 0xc000 ports 1\n");
    assert!(
        matches!(mft::parse_dump(&bad, &f), Err(Error::Parse { line, .. }) if line == text.lines().count() + 1)
    );
    assert!(mft::parse_dump("group 0 mlid 0x0001 members x", &f).is_err());
    let _ = PortNo::new(0);
}

#[test]
fn dump_quotes_names_with_spaces_and_commas() {
    let text = include_str!("data/spaced-names.topo");
    let f = fabric_model::ibnet::read_ibnetdiscover(text).unwrap();
    let h = HopTable::new(&f).unwrap();
    let mut r = Router::new(&f, &h, Config::mr4lms(Entries::Limit(4))).unwrap();
    let t: Vec<_> = ["host a", "host,b", "host c"]
        .iter()
        .map(|n| f.node_by_name(n).unwrap())
        .collect();
    r.create_group(&t).unwrap();
    let dump = r.dump().unwrap();
    assert!(
        dump.contains("switch \"leaf 1, row A\" mlid 0xc000 ports "),
        "{dump}"
    );
    assert!(dump.contains("switch spine mlid 0xc000 ports "), "{dump}");
    assert!(
        dump.contains("members \"host a\",\"host,b\",\"host c\"\n"),
        "{dump}"
    );
    let d = mft::parse_dump(&dump, &f).unwrap();
    assert_eq!(d.groups[0].2, t);
    assert_eq!(d.entries.len(), 2);
    // The reader stays strict: unclosed quotes, quotes inside a word, empty items.
    for bad in [
        "switch \"leaf 1, row A mlid 0xc000 ports 1",
        "switch leaf\"1\" mlid 0xc000 ports 1",
        "switch \"spine\"x mlid 0xc000 ports 1",
        "group 0 mlid 0xc000 members \"host a\",,\"host c\"",
        "group 0 mlid 0xc000 members \"host a\",",
        "group 0 mlid 0xc000 members \"\"",
        "group 0 mlid 0xc000 members host a",
    ] {
        assert!(
            matches!(mft::parse_dump(bad, &f), Err(Error::Parse { line: 1, .. })),
            "{bad}"
        );
    }
}

#[test]
fn baselines_break_root_ties_in_opensm_switch_order() {
    use mcast_route::{Algorithm, SwitchOrder};
    let f = fabric_model::ibnet::read_ibnetdiscover(include_str!("data/root-tie.topo")).unwrap();
    let h = HopTable::new(&f).unwrap();
    let name = |n: &str| f.node_by_name(n).unwrap();
    let members = [name("H-a"), name("H-b")];
    for alg in [Algorithm::MinihopMc, Algorithm::SsspMc] {
        let cfg = Config::baseline(alg, Entries::Unlimited);
        assert_eq!(cfg.switch_order(), SwitchOrder::OpenSm);
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let g = r.create_group(&members).unwrap().group;
        assert_eq!(r.group(g).unwrap().root, name("S-b"), "{alg:?}");
        let cfg = cfg.with_switch_order(SwitchOrder::Fabric);
        let mut r = Router::new(&f, &h, cfg).unwrap();
        let g = r.create_group(&members).unwrap().group;
        assert_eq!(r.group(g).unwrap().root, name("S-a"), "{alg:?}");
    }
}

#[test]
fn a_shared_router_owns_its_fabric_and_routes_as_a_borrowing_one() {
    use std::sync::Arc;
    let f = Arc::new(generators::fat_tree(4).unwrap());
    let h = Arc::new(HopTable::new(&f).unwrap());
    let cfg = Config::mr4lms(Entries::Limit(4));
    let t = f.terminals().to_vec();
    let groups = [vec![t[0], t[5], t[15]], vec![t[1], t[2]], vec![t[3], t[12]]];
    let mut borrowed = Router::new(&f, &h, cfg).unwrap();
    for g in &groups {
        borrowed.create_group(g).unwrap();
    }
    let expected = borrowed.dump().unwrap();
    drop(borrowed);
    // Owned, 'static and Send: it can move to a daemon's thread with its fabric.
    let mut shared = Router::new_shared(Arc::clone(&f), Arc::clone(&h), cfg).unwrap();
    let dump = std::thread::spawn(move || {
        for g in &groups {
            shared.create_group(g).unwrap();
        }
        assert_eq!(shared.fabric().node_count(), 36);
        assert_eq!(shared.hops().map(|h| h.switch_count()), Some(20));
        shared.dump().unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(dump, expected);
    assert_eq!(
        Arc::strong_count(&f),
        1,
        "the router's share was dropped with it"
    );
}
