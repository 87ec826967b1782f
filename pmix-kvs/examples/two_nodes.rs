//! Put → Commit → Fence → Get across two nodes, everything in memory.
//!
//! A four-process job is placed two ranks a node on a two-terminal fabric; each node's
//! [`NodeStore`] is registered from that placement. Every process puts an address and a
//! port, commits, and the two nodes run a Bruck fence: each node's contribution is encoded
//! with the compact codec, the fence state machines exchange the blobs (the "network" is a
//! loop handing each transmit to its destination), and each node applies what it received.
//! Then rank 0 on node 0 reads rank 3's address, which lives on node 1.
//!
//! ```text
//! cargo run -p pmix-kvs --example two_nodes
//! ```

use fabric_model::{LinkRate, Nanos, Placement, generators, place};
use pmix_kvs::codec::{self, CompactOptions, Layout};
use pmix_kvs::fence::{Algorithm, FenceNode};
use pmix_kvs::{
    Client, GetOptions, GetOutcome, JobInfo, NodeStore, Nspace, ProcId, Rank, Scope, Value,
};

const NSPACE: &str = "slurm.pmix.42.0";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Two terminals on one switch, two ranks on each.
    let fabric = generators::single_switch(2, LinkRate::EDR_4X)?;
    let ranks = place(fabric.terminals(), 4, 2, Placement::Block)?;

    // Each node's server registers the job as the resource manager describes it.
    let mut nodes: Vec<(NodeStore, Nspace, Vec<Client>)> = Vec::new();
    for node in 0..2 {
        let info = JobInfo::from_placement(&fabric, &ranks, node)?;
        let mut store = NodeStore::new();
        let ns = store.register_job(NSPACE, &info)?;
        println!(
            "node {node} ({}): local ranks {:?}",
            info.hostname,
            info.local_peers.iter().map(|r| r.get()).collect::<Vec<_>>()
        );
        // Each local process puts its data and commits it to its node's store.
        let mut clients = Vec::new();
        for &rank in &info.local_peers {
            let mut c = Client::new(ProcId::new(ns, rank));
            let r = rank.get();
            c.put(
                Scope::Global,
                "ucx.addr",
                Value::Bytes(vec![0xA0 | r as u8; 8]),
            )?;
            c.put(Scope::Remote, "tcp.port", Value::U16(5000 + r as u16))?;
            let n = c.commit(&mut store)?;
            println!("  rank {r}: put and committed {n} pairs");
            clients.push(c);
        }
        nodes.push((store, ns, clients));
    }

    // Before the fence, node 0 does not have rank 3's data: a get that may wait answers
    // with a direct-modex request to rank 3's node; one that may not answers NotFound.
    let (store0, ns0, clients0) = &mut nodes[0];
    let rank3 = ProcId::new(*ns0, Rank::new(3));
    let wait = GetOptions::default().with_deadline(Nanos::from_secs(10));
    let now = GetOptions::default().with_immediate(true);
    let before = clients0[0].get(store0, rank3, "ucx.addr", &wait, Nanos::ZERO)?;
    println!("before the fence, rank 0 asks for rank 3's ucx.addr: {before:?}");
    let before = clients0[0].get(store0, rank3, "ucx.addr", &now, Nanos::ZERO)?;
    println!("  (with PMIX_IMMEDIATE: {before:?})");

    // The fence: every node contributes its processes' off-node data, compact-encoded.
    let layout = Layout::Compact(CompactOptions::default());
    let mut fence = Vec::new();
    for (node, (store, ns, _)) in nodes.iter().enumerate() {
        let blob = store.fence_contribution(*ns, true)?;
        let bytes = codec::encode(&blob, layout)?;
        println!(
            "node {node} contributes {} pairs in {} bytes ({} naive)",
            blob.pair_count(),
            bytes.len(),
            codec::encode(&blob, Layout::Naive)?.len()
        );
        fence.push(FenceNode::new(Algorithm::Bruck, node, 2, bytes, true)?);
    }
    let mut messages = 0;
    while !fence.iter().all(FenceNode::is_complete) {
        let mut sent = Vec::new();
        for (from, f) in fence.iter_mut().enumerate() {
            while let Some(t) = f.poll_transmit() {
                sent.push((from, t));
            }
        }
        if sent.is_empty() {
            return Err("the fence stalled".into());
        }
        for (from, t) in sent {
            println!(
                "  fence message {from} -> {}: {} bytes on the wire",
                t.to,
                t.message.wire_len()
            );
            messages += 1;
            fence[t.to].handle(from, t.message)?;
        }
    }
    println!("fence complete after {messages} messages");
    for ((store, _, _), f) in nodes.iter_mut().zip(fence) {
        let blobs = f
            .into_blobs()?
            .iter()
            .map(|b| codec::decode(b))
            .collect::<Result<Vec<_>, _>>()?;
        store.apply_fence(&blobs)?;
    }

    // After the fence, rank 0 on node 0 reads rank 3's data from its own node's store.
    let (store0, _, clients0) = &mut nodes[0];
    let reader = &mut clients0[0];
    for key in ["ucx.addr", "tcp.port"] {
        match reader.get(store0, rank3, key, &now, Nanos::ZERO)? {
            GetOutcome::Found(v) => println!("after the fence, rank 0 reads rank 3's {key}: {v:?}"),
            other => return Err(format!("rank 3's {key}: {other:?}").into()),
        }
    }
    // Job-level data the resource manager registered.
    let job = ProcId::new(rank3.nspace, Rank::WILDCARD);
    if let GetOutcome::Found(v) = reader.get(store0, job, "pmix.num.nodes", &now, Nanos::ZERO)? {
        println!("pmix.num.nodes on node 0: {v:?}");
    }
    // Per-rank reserved data, from the job's process map: rank 3's node, not this one.
    for key in ["pmix.nodeid", "pmix.hname", "pmix.lrank"] {
        if let GetOutcome::Found(v) = reader.get(store0, rank3, key, &now, Nanos::ZERO)? {
            println!("{key} of rank 3, asked on node 0: {v:?}");
        }
    }
    Ok(())
}
