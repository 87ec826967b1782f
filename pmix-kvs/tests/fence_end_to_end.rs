//! Put → Commit → Fence → Get across nodes: the job is placed on a generated fabric's
//! terminals and each node's store registered from that placement (the fabric-model bridge);
//! each node's contribution is encoded with the compact codec, exchanged by the fence state
//! machines, decoded and applied; afterwards every process reads every other process's
//! `Global`/`Remote` data without waiting, and never its `Local` data. The same again with
//! the fence's messages as bytes ([`BlobFence`]), and every rank's host name its node's.

use fabric_model::bridge::NodeMap;
use fabric_model::{LinkRate, Nanos, Placement, generators, place};
use pmix_kvs::codec::{self, CompactOptions, Layout};
use pmix_kvs::fence::{self, Algorithm, BlobFence};
use pmix_kvs::{
    Client, GetOptions, GetOutcome, JobInfo, NodeStore, Nspace, ProcId, Rank, Scope, Value, keys,
};

const NODES: u32 = 5;
const PPN: u32 = 3;

fn run(alg: Algorithm, placement: Placement, wire: bool) {
    let size = NODES * PPN;
    let fabric = generators::single_switch(NODES + 1, LinkRate::EDR_4X).unwrap();
    // One terminal of the six stays unused.
    let ranks = place(&fabric.terminals()[1..], size, PPN, placement).unwrap();
    let node_map = NodeMap::new(&ranks);
    assert_eq!(node_map.node_count(), NODES as usize);
    let map: Vec<u32> = node_map.nodes_of_ranks().to_vec();
    let mut stores = Vec::new();
    let mut clients = Vec::new();
    for node in 0..NODES as usize {
        let info = JobInfo::from_placement(&fabric, &ranks, node).unwrap();
        let terminal = node_map.terminal(node).unwrap();
        assert_eq!(info.hostname, fabric.node(terminal).name);
        assert_eq!(info.node_id, node as u32);
        assert_eq!((info.size, info.num_nodes), (size, NODES));
        let mut store = NodeStore::new();
        let ns = store.register_job("slurm.pmix.77.0", &info).unwrap();
        let local: Vec<u32> = info.local_peers.iter().map(|r| r.get()).collect();
        assert_eq!(local, node_map.ranks_on(node));
        for &r in &local {
            assert!(store.is_local(ProcId::new(ns, Rank::new(r))));
            let mut c = Client::new(ProcId::new(ns, Rank::new(r)));
            c.put(Scope::Global, "ucx.addr", Value::Bytes(vec![r as u8; 21]))
                .unwrap();
            c.put(Scope::Remote, "net.port", Value::U16(5000 + r as u16))
                .unwrap();
            c.put(
                Scope::Local,
                "shm.seg",
                Value::String(format!("/dev/shm/{r}")),
            )
            .unwrap();
            c.commit(&mut store).unwrap();
            clients.push((node, c));
        }
        stores.push((store, ns));
    }
    if wire {
        fence_over_the_wire(alg, &mut stores);
    } else {
        let blobs: Vec<Vec<u8>> = stores
            .iter()
            .map(|(s, ns)| {
                let b = s.fence_contribution(*ns, true).unwrap();
                codec::encode(&b, Layout::Compact(CompactOptions::default())).unwrap()
            })
            .collect();
        let report = fence::simulate(alg, blobs.clone(), true).unwrap();
        for (node, got) in report.blobs.iter().enumerate() {
            assert_eq!(got, &blobs);
            let decoded: Vec<_> = got.iter().map(|b| codec::decode(b).unwrap()).collect();
            stores[node].0.apply_fence(&decoded).unwrap();
        }
    }
    let now = GetOptions::default().with_immediate(true);
    let t = Nanos::ZERO;
    for (node, c) in &mut clients {
        let (store, ns) = &stores[*node];
        for r in 0..size {
            let target = ProcId::new(*ns, Rank::new(r));
            let on_node = map[r as usize] == *node as u32;
            assert_eq!(
                c.get(store, target, "ucx.addr", &now, t).unwrap(),
                GetOutcome::Found(Value::Bytes(vec![r as u8; 21]))
            );
            // Every rank's host name is its own node's, from the placement.
            let host = fabric.node(node_map.terminal(map[r as usize] as usize).unwrap());
            assert_eq!(
                c.get(store, target, keys::HOSTNAME, &now, t).unwrap(),
                GetOutcome::Found(Value::String(host.name.clone()))
            );
            let port = c.get(store, target, "net.port", &now, t).unwrap();
            let shm = c.get(store, target, "shm.seg", &now, t).unwrap();
            if target == c.id() {
                // A process sees all its own puts.
                assert_eq!(port, GetOutcome::Found(Value::U16(5000 + r as u16)));
                assert!(matches!(shm, GetOutcome::Found(_)));
            } else if on_node {
                assert_eq!(port, GetOutcome::ExistsOutsideScope);
                assert_eq!(
                    shm,
                    GetOutcome::Found(Value::String(format!("/dev/shm/{r}")))
                );
            } else {
                assert_eq!(port, GetOutcome::Found(Value::U16(5000 + r as u16)));
                assert_eq!(shm, GetOutcome::NotFound);
            }
        }
    }
}

/// The fence as a runtime runs it: each node's contribution goes into a [`BlobFence`], whose
/// messages travel only as bytes (delivered newest first), and what comes out is applied.
fn fence_over_the_wire(alg: Algorithm, stores: &mut [(NodeStore, Nspace)]) {
    let n = stores.len();
    let layout = Layout::Compact(CompactOptions::default());
    let mut nodes: Vec<BlobFence> = stores
        .iter()
        .enumerate()
        .map(|(i, (s, ns))| {
            let blob = s.fence_contribution(*ns, true).unwrap();
            BlobFence::new(alg, i, n, &blob, layout).unwrap()
        })
        .collect();
    while !nodes.iter().all(BlobFence::is_complete) {
        let mut wire: Vec<(usize, usize, Vec<u8>)> = Vec::new();
        for (from, node) in nodes.iter_mut().enumerate() {
            while let Some(t) = node.poll_transmit() {
                wire.push((from, t.to, t.bytes));
            }
        }
        assert!(!wire.is_empty(), "{alg} stalls");
        while let Some((from, to, bytes)) = wire.pop() {
            nodes[to].handle(from, &bytes).unwrap();
        }
    }
    for (node, f) in nodes.into_iter().enumerate() {
        let blobs = f.into_blobs().unwrap();
        assert_eq!(blobs.len(), n);
        stores[node].0.apply_fence(&blobs).unwrap();
    }
}

#[test]
fn put_commit_fence_get_with_every_algorithm() {
    for alg in [
        Algorithm::TREE,
        Algorithm::Tree { radix: 2 },
        Algorithm::Ring,
        Algorithm::Bruck,
    ] {
        for wire in [false, true] {
            run(alg, Placement::Block, wire);
            run(alg, Placement::RoundRobin, wire);
        }
    }
}
