//! The bridge from a placement of processes to multicast groups, on a fabric read from an
//! ibnetdiscover file: one group per communicator, routed and read back.

use fabric_model::bridge::NodeMap;
use fabric_model::{HopTable, Placement, ibnet, place};
use mcast_route::{Config, Entries, Error, Method, Router, patterns};

/// The sample of the `route_file` example: `fat_tree(4)` written by fabric-model.
const SAMPLE: &str = include_str!("../examples/data/fat_tree4.topo");

#[test]
fn one_group_per_communicator_on_a_fabric_read_from_a_file() {
    let fabric = ibnet::read_ibnetdiscover(SAMPLE).unwrap();
    assert_eq!((fabric.switch_count(), fabric.terminal_count()), (20, 16));
    let hops = HopTable::new(&fabric).unwrap();
    // 32 ranks, two a terminal, round robin: rank r on terminal r mod 16.
    let at = place(fabric.terminals(), 32, 2, Placement::RoundRobin).unwrap();
    let nodes = NodeMap::new(&at);
    assert_eq!(nodes.node_count(), 16);
    // The world, the even and odd ranks, and the four quarters of the rank range.
    let world: Vec<u32> = (0..32).collect();
    let even: Vec<u32> = (0..32).step_by(2).collect();
    let odd: Vec<u32> = (1..32).step_by(2).collect();
    let mut comms = vec![world, even, odd];
    comms.extend((0..4).map(|q| (q * 8..q * 8 + 8).collect::<Vec<u32>>()));

    let mut router = Router::new(&fabric, &hops, Config::mr4lms(Entries::Limit(8))).unwrap();
    for ranks in &comms {
        let members = patterns::members_of(&at, ranks).unwrap();
        // The members are the distinct nodes of the ranks, as the node map groups them.
        let mut want: Vec<_> = ranks
            .iter()
            .map(|&r| nodes.terminal(nodes.node_of(r).unwrap()).unwrap())
            .collect();
        want.sort();
        want.dedup();
        let mut got = members.clone();
        got.sort();
        assert_eq!(got, want);
        let made = router.create_group(&members).unwrap();
        assert_ne!(made.method, Method::Merge);
        assert_eq!(made.height, made.min_height);
        assert_eq!(router.group(made.group).unwrap().members, members);
    }
    // Round robin: the world spans all 16 terminals, even and odd ranks 8 each, a quarter 8.
    let sizes: Vec<usize> = router
        .group_ids()
        .map(|g| router.group(g).unwrap().members.len())
        .collect();
    assert_eq!(sizes, [16, 8, 8, 8, 8, 8, 8]);
    // Every leaf switch holds two terminals (one even, one odd): the world, the even and odd
    // ranks and two quarters meet on it, so five colors at least, within the eight entries.
    let stats = router.stats();
    assert_eq!(stats.color_lower_bound, 5);
    assert!((5..=8).contains(&stats.colors_used), "{stats}");
    // The dump names every group with its members, by the names the file gave.
    let dump = router.dump().unwrap();
    assert_eq!(dump.lines().filter(|l| l.starts_with("group ")).count(), 7);
    assert!(dump.contains(&fabric.get(fabric.terminals()[0]).unwrap().name));
    // A rank past the placement is an error, not a panic.
    assert!(matches!(
        patterns::members_of(&at, &[32]),
        Err(Error::InvalidPattern { .. })
    ));
}
