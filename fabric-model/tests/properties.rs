//! Properties on random small fabrics: the ibnetdiscover round trip is the identity, hop tables
//! agree with petgraph, and the builder's invariants hold.

use fabric_model::ibnet::{read_ibnetdiscover, write_ibnetdiscover};
use fabric_model::{
    DEFAULT_LATENCY, Fabric, FabricBuilder, HopTable, LinkRate, LinkSpeed, LinkWidth, NodeId,
    NodeInfo, PortNo, generators,
};
use petgraph::visit::NodeFiltered;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Spec {
    switches: usize,
    extra_ports: Vec<u16>,
    terminals: Vec<(u16, bool)>,
    descs: Vec<Option<String>>,
    lids: Vec<Option<u16>>,
    guids: Vec<Option<u64>>,
    extra_links: Vec<(usize, u16, usize, u16, usize, usize)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..6, 0usize..8).prop_flat_map(|(s, t)| {
        let n = s + t;
        (
            Just(s),
            prop::collection::vec(0u16..4, s),
            prop::collection::vec((1u16..3, any::<bool>()), t),
            prop::collection::vec(prop::option::of("[A-Za-z0-9 #;:/_-]{1,12}"), n),
            prop::collection::vec(prop::option::of(any::<u16>()), n),
            prop::collection::vec(prop::option::of(any::<u64>()), n),
            prop::collection::vec((0..n, 1u16..8, 0..n, 1u16..8, 0usize..5, 0usize..9), 0..12),
        )
            .prop_map(
                |(switches, extra_ports, terminals, descs, lids, guids, extra_links)| Spec {
                    switches,
                    extra_ports,
                    terminals,
                    descs,
                    lids,
                    guids,
                    extra_links,
                },
            )
    })
}

/// Builds the fabric: terminal t hangs off switch t mod S on a port reserved for it, then the
/// extra links are tried and kept where valid.
fn build(spec: &Spec) -> Fabric {
    let s = spec.switches;
    let mut per_switch = vec![0u16; s];
    for t in 0..spec.terminals.len() {
        per_switch[t % s] += 1;
    }
    let mut b = FabricBuilder::new();
    let mut ids = Vec::new();
    for (i, (&attached, &extra)) in per_switch.iter().zip(&spec.extra_ports).enumerate() {
        let mut info = NodeInfo::switch(format!("S-{i}"), attached + extra + 1);
        info.description = spec.descs[i].clone();
        info.lid = spec.lids[i];
        info.guid = spec.guids[i];
        ids.push(b.add_node(info).unwrap());
    }
    for (t, &(ports, router)) in spec.terminals.iter().enumerate() {
        let k = s + t;
        let mut info = NodeInfo::terminal(format!("H-{t}"), ports);
        info.description = spec.descs[k].clone();
        info.lid = spec.lids[k];
        info.guid = spec.guids[k];
        info.router = router;
        ids.push(b.add_node(info).unwrap());
    }
    let mut next_port = vec![1u16; s];
    for t in 0..spec.terminals.len() {
        let sw = t % s;
        b.link(
            ids[s + t],
            PortNo::new(1),
            ids[sw],
            PortNo::new(next_port[sw]),
        )
        .unwrap();
        next_port[sw] += 1;
    }
    for &(a, pa, c, pc, w, sp) in &spec.extra_links {
        let rate = LinkRate {
            width: LinkWidth::ALL[w],
            speed: LinkSpeed::ALL[sp],
        };
        // Invalid picks (self-loops, ports in use or past the radix) are refused and skipped.
        let _ = b.link_with(
            ids[a],
            PortNo::new(pa),
            ids[c],
            PortNo::new(pc),
            rate,
            DEFAULT_LATENCY,
        );
    }
    b.build().unwrap()
}

fn switch_bfs(f: &Fabric, from: NodeId) -> std::collections::HashMap<NodeId, u32> {
    let switches_only = NodeFiltered::from_fn(f, |n: NodeId| f.is_switch(n));
    petgraph::algo::dijkstra(&switches_only, from, None, |_| 1u32)
        .into_iter()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn write_then_read_is_the_identity(spec in spec()) {
        let f = build(&spec);
        let text = write_ibnetdiscover(&f);
        prop_assert_eq!(read_ibnetdiscover(&text), Ok(f), "{}", text);
    }

    #[test]
    fn hop_table_agrees_with_petgraph(spec in spec()) {
        let f = build(&spec);
        let hops = HopTable::new(&f).unwrap();
        for (i, &a) in f.switches().iter().enumerate() {
            let d = switch_bfs(&f, a);
            for (j, &b) in f.switches().iter().enumerate() {
                prop_assert_eq!(hops.hops(i, j).map(u32::from), d.get(&b).copied());
            }
        }
    }

    #[test]
    fn every_link_is_seen_from_both_ends(spec in spec()) {
        let f = build(&spec);
        for (i, l) in f.links().iter().enumerate() {
            let [(a, pa), (b, pb)] = l.ends;
            prop_assert!((a, pa) < (b, pb));
            prop_assert_eq!(f.peer(a, pa), Some((b, pb)));
            prop_assert_eq!(f.peer(b, pb), Some((a, pa)));
            prop_assert_eq!(f.link_at(a, pa).map(|x| x.index()), Some(i));
        }
        let ports: usize = f.node_ids().map(|n| f.degree(n)).sum();
        prop_assert_eq!(ports, 2 * f.link_count());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_fabrics_round_trip(k in 1u32..4, d0 in 1u32..5, d1 in 1u32..4, t in 0u32..3,
                                   a in 1u32..4, p in 0u32..3, h in 1u32..3, seed in any::<u64>()) {
        let mut fabrics = vec![
            generators::fat_tree(2 * k).unwrap(),
            generators::tapered_fat_tree(d0, d1, k).unwrap(),
            generators::dragonfly(a, p, h).unwrap(),
            generators::random_regular(8, 3 + t, t, seed).unwrap(),
        ];
        if t > 0 || d0 > 1 || d1 > 1 {
            fabrics.push(generators::torus(&[d0, d1], t).unwrap());
        }
        for f in fabrics {
            let text = write_ibnetdiscover(&f);
            let back = read_ibnetdiscover(&text);
            prop_assert_eq!(back.as_ref(), Ok(&f));
            let hops = HopTable::new(&f).unwrap();
            prop_assert!(hops.diameter().is_some(), "generated fabrics are connected");
        }
    }
}
