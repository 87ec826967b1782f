//! The exact sizes of each generator at the papers' scales: fat_tree(40) as in the MR4LMS paper
//! (2,000 switches, 16,000 terminals), and the torus, dragonfly, random regular and tapered fat trees
//! the experiments use.

use fabric_model::{HopTable, generators};

#[test]
fn fat_tree_40() {
    let f = generators::fat_tree(40).unwrap();
    assert_eq!(f.switch_count(), 2_000);
    assert_eq!(f.terminal_count(), 16_000);
    assert_eq!(f.switch_link_count(), 32_000);
    assert_eq!(f.max_radix(), 40);
    assert_eq!(HopTable::new(&f).unwrap().diameter(), Some(4));
}

#[test]
fn torus_30_20_20() {
    let f = generators::torus(&[30, 20, 20], 2).unwrap();
    assert_eq!(f.switch_count(), 12_000);
    assert_eq!(f.terminal_count(), 24_000);
    assert_eq!(f.switch_link_count(), 36_000);
    assert_eq!(f.max_radix(), 8);
    let hops = HopTable::new(&f).unwrap();
    assert_eq!(hops.memory_bytes().get(), 144_000_000);
    assert_eq!(hops.diameter(), Some(35));
}

#[test]
fn dragonfly_18_9_9() {
    let f = generators::dragonfly(18, 9, 9).unwrap();
    assert_eq!(f.switch_count(), 2_934);
    assert_eq!(f.terminal_count(), 26_406);
    assert_eq!(f.max_radix(), 35);
    // 163 groups of 18 routers: the groups are the router ids divided by 18.
    let group = |n: fabric_model::NodeId| n.index() / 18;
    assert_eq!(group(*f.switches().last().unwrap()) + 1, 163);
    let (mut local, mut global) = (0, 0);
    for l in f.links() {
        let (a, b) = (l.ends[0].0, l.ends[1].0);
        if f.is_switch(a) && f.is_switch(b) {
            if group(a) == group(b) {
                local += 1;
            } else {
                global += 1;
            }
        }
    }
    assert_eq!((local, global), (24_939, 163 * 162 / 2));
    assert_eq!(HopTable::new(&f).unwrap().diameter(), Some(3));
}

#[test]
fn random_regular_2048_40_20() {
    for seed in [1, 2] {
        let f = generators::random_regular(2048, 40, 20, seed).unwrap();
        assert_eq!(f.switch_count(), 2_048);
        assert_eq!(f.terminal_count(), 40_960);
        for &s in f.switches() {
            let mut peers: Vec<_> = f
                .neighbors(s)
                .filter(|n| f.is_switch(n.peer))
                .map(|n| n.peer)
                .collect();
            peers.sort_unstable();
            peers.dedup();
            assert_eq!(peers.len(), 20, "20 distinct switch neighbours");
        }
        assert!(f.is_connected());
        let d = HopTable::new(&f).unwrap().diameter().unwrap();
        assert!((3..=4).contains(&d), "diameter {d}");
    }
}
