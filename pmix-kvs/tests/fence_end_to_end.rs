//! Put → Commit → Fence → Get across nodes: each node's contribution is encoded with the
//! compact codec, exchanged by the fence state machines, decoded and applied; afterwards every
//! process reads every other process's `Global`/`Remote` data without waiting, and never its
//! `Local` data.

use pmix_kvs::codec::{self, CompactOptions, Layout};
use pmix_kvs::fence::{self, Algorithm};
use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

const NODES: u32 = 5;
const PPN: u32 = 3;

fn run(alg: Algorithm) {
    let size = NODES * PPN;
    let map: Vec<u32> = (0..size).map(|r| r / PPN).collect();
    let mut stores = Vec::new();
    let mut clients = Vec::new();
    for node in 0..NODES {
        let mut store = NodeStore::new();
        let ns = store
            .register_job(
                "slurm.pmix.77.0",
                &JobInfo {
                    size,
                    local_peers: (node * PPN..(node + 1) * PPN).map(Rank).collect(),
                    node_id: node,
                    hostname: format!("n{node}"),
                    num_nodes: NODES,
                    proc_nodes: Some(map.clone()),
                    extra: vec![],
                },
            )
            .unwrap();
        for r in node * PPN..(node + 1) * PPN {
            let mut c = Client::new(ProcId::new(ns, Rank(r)));
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
            clients.push((node as usize, c));
        }
        stores.push((store, ns));
    }
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
    let now = GetOptions {
        immediate: true,
        ..GetOptions::default()
    };
    for (node, c) in &mut clients {
        let (store, ns) = &stores[*node];
        for r in 0..size {
            let target = ProcId::new(*ns, Rank(r));
            let on_node = map[r as usize] == *node as u32;
            assert_eq!(
                c.get(store, target, "ucx.addr", &now, 0).unwrap(),
                GetOutcome::Found(Value::Bytes(vec![r as u8; 21]))
            );
            let port = c.get(store, target, "net.port", &now, 0).unwrap();
            let shm = c.get(store, target, "shm.seg", &now, 0).unwrap();
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

#[test]
fn put_commit_fence_get_with_every_algorithm() {
    for alg in [
        Algorithm::TREE,
        Algorithm::Tree { radix: 2 },
        Algorithm::Ring,
        Algorithm::Bruck,
    ] {
        run(alg);
    }
}
