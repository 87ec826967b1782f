//! Every crate of the workspace on one fabric, end to end:
//!
//! 1. fabric-model reads an ibnetdiscover file (a committed capture of a k = 8 fat tree, or
//!    the file given as the first argument), places 64 ranks two a terminal and derives the
//!    rank-to-rank latencies;
//! 2. topo-cluster splits the ranks into logical clusters from those latencies;
//! 3. mcast-route routes one multicast group per cluster (communicator) and programs the MFTs;
//! 4. pmix-kvs runs a Put/Commit/Fence/Get over the nodes of the placement;
//! 5. dag-sched schedules a DAG training job over the fabric's links (JIT against TensorFlow
//!    order);
//! 6. rdma-window moves a buffer with its simulator at the rate and latency of a fabric link.
//!
//! `cargo run -p benches --example all_crates [FILE]`

use std::error::Error;

use fabric_model::bridge::{LatencyModel, NodeMap};
use fabric_model::{Bytes, HopTable, Nanos, NodeId, Placement, ibnet, place};

/// The fabric every step uses.
const DEFAULT_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/fat_tree8.topo");

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| DEFAULT_FILE.to_owned());

    // 1. The fabric, the placement and the latencies.
    let fabric = ibnet::read_ibnetdiscover(&std::fs::read_to_string(&path)?)?;
    let hops = HopTable::new(&fabric)?;
    let terminals = &fabric.terminals()[..fabric.terminal_count().min(32)];
    let ranks: Vec<NodeId> = place(terminals, 2 * terminals.len() as u32, 2, Placement::Block)?;
    let nodes = NodeMap::new(&ranks);
    println!(
        "fabric-model: {} switches, {} terminals; {} ranks on {} nodes",
        fabric.switch_count(),
        fabric.terminal_count(),
        ranks.len(),
        nodes.node_count()
    );

    // 2. Logical clusters of the ranks, from 8-byte message latencies.
    let model = LatencyModel::new(Bytes::new(8)).intra_node(Nanos::new(300));
    let matrix = topo_cluster::LatencyMatrix::from_fabric(&fabric, &hops, &ranks, &model)?;
    let clusters =
        topo_cluster::logical_clusters(&matrix, &topo_cluster::ClusterParams::default())?;
    println!(
        "topo-cluster: {} logical clusters of ranks: {}",
        clusters.len(),
        clusters
    );

    // 3. One multicast group per communicator: each cluster's, and the world's.
    let mut router = mcast_route::Router::new(
        &fabric,
        &hops,
        mcast_route::Config::mr4lms(mcast_route::Entries::Limit(16)),
    )?;
    let world: Vec<usize> = (0..ranks.len()).collect();
    for group in clusters.groups().iter().chain([&world]) {
        let group_ranks: Vec<u32> = group.iter().map(|&r| r as u32).collect();
        let members = mcast_route::patterns::members_of(&ranks, &group_ranks)?;
        router.create_group(&members)?;
    }
    let dump = router.dump()?;
    println!(
        "mcast-route: {}; MFT dump of {} lines",
        router.stats(),
        dump.lines().count()
    );

    // 4. Put, commit, fence and get over the nodes.
    pmix_fence(&fabric, &ranks, &nodes)?;

    // 5. A DAG job over the fabric's links.
    dag_job(&fabric, &hops, &ranks)?;

    // 6. A buffer over one of the fabric's links.
    let (_, port) = fabric
        .switch_of(ranks[0])
        .ok_or("rank 0's terminal hangs off no switch")?;
    let leaf = fabric
        .switch_of(ranks[0])
        .map(|(s, _)| s)
        .ok_or("no leaf")?;
    let link = fabric
        .link_at(leaf, port)
        .map(|l| fabric.link(l))
        .ok_or("no link at rank 0's leaf port")?;
    let net = rdma_window::sim::NetConfig::from_link(link).with_loss(1e-3);
    let cfg = rdma_window::sim::SimConfig::new(vec![Bytes::from_mib(4)]).with_net(net);
    for method in [
        rdma_window::sim::Method::Paper,
        rdma_window::sim::Method::Improved,
    ] {
        let r = method.run(&cfg)?;
        if !(r.finished && r.tally.exactly_once()) {
            return Err(
                format!("rdma-window: {method:?} did not deliver every byte once: {r}").into(),
            );
        }
        println!(
            "rdma-window: 4 MiB over a {} link, 0.1 % loss, {method:?}: {} ({:.3} of ideal)",
            link.rate,
            r.completion,
            r.completion.as_f64() / cfg.ideal().as_f64()
        );
    }
    Ok(())
}

/// Every rank puts its address, commits to its node's store; the nodes run a Bruck fence of
/// compact blobs; then rank 0 reads the last rank's address.
fn pmix_fence(
    fabric: &fabric_model::Fabric,
    ranks: &[NodeId],
    nodes: &NodeMap,
) -> Result<(), Box<dyn Error>> {
    use pmix_kvs::codec::{self, CompactOptions, Layout};
    use pmix_kvs::{
        Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value,
    };

    let mut stores = Vec::new();
    let mut reader = None;
    for node in 0..nodes.node_count() {
        let mut store = NodeStore::new();
        let ns = store.register_job("tour.0", &JobInfo::from_placement(fabric, ranks, node)?)?;
        for &r in nodes.ranks_on(node) {
            let mut c = Client::new(ProcId::new(ns, Rank::new(r)));
            c.put(Scope::Global, "addr", Value::U32(1000 + r))?;
            c.commit(&mut store)?;
            if r == 0 {
                reader = Some(c);
            }
        }
        stores.push((store, ns));
    }
    let blobs = stores
        .iter()
        .map(|(s, ns)| {
            let blob = s.fence_contribution(*ns, true)?;
            codec::encode(&blob, Layout::Compact(CompactOptions::default()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let report = pmix_kvs::fence::simulate(pmix_kvs::fence::Algorithm::Bruck, blobs, true)?;
    for (node, got) in report.blobs.iter().enumerate() {
        let decoded = got
            .iter()
            .map(|b| codec::decode(b))
            .collect::<Result<Vec<_>, _>>()?;
        stores[node].0.apply_fence(&decoded)?;
    }
    let mut reader = reader.ok_or("no rank 0")?;
    let (store0, ns) = &stores[nodes.node_of(0).ok_or("rank 0 has no node")?];
    let last = ranks.len() as u32 - 1;
    let now = GetOptions::default().with_immediate(true);
    let got = reader.get(
        store0,
        ProcId::new(*ns, Rank::new(last)),
        "addr",
        &now,
        Nanos::ZERO,
    )?;
    if got != GetOutcome::Found(Value::U32(1000 + last)) {
        return Err(format!("pmix-kvs: rank 0 read {got:?} for rank {last}").into());
    }
    println!(
        "pmix-kvs: Bruck fence over {} nodes ({}); rank 0 reads rank {last}'s addr: {got:?}",
        nodes.node_count(),
        report
    );
    Ok(())
}

/// One AlexNet iteration on rank 0's terminal, its parameter servers on the last two
/// placed terminals, under TensorFlow order and under JIT.
fn dag_job(
    fabric: &fabric_model::Fabric,
    hops: &HopTable,
    ranks: &[NodeId],
) -> Result<(), Box<dyn Error>> {
    use dag_sched::models::Model;
    use dag_sched::sim::{JitConfig, Scheduler, SimConfig, simulate};
    use dag_sched::workload::{ComputeModel, JobKind, PsTraffic, SimJob, ps_iteration};
    use dag_sched::{Cluster, MachineId};

    let cluster = Cluster::from_fabric(fabric, hops)?;
    // Machines are the fabric's terminals in order.
    let machine = |t: NodeId| {
        fabric
            .terminals()
            .iter()
            .position(|&x| x == t)
            .map(|i| MachineId::new(i as u32))
            .ok_or("a rank's terminal is no machine")
    };
    let worker = machine(ranks[0])?;
    let ps = [
        machine(ranks[ranks.len() - 1])?,
        machine(ranks[ranks.len() - 3])?,
    ];
    let job = ps_iteration(
        Model::AlexNet,
        worker,
        &ps,
        &ComputeModel::default(),
        PsTraffic::Pulls,
        &cluster,
    )?;
    let jobs = [SimJob::new(Nanos::ZERO, job, JobKind::Dag(Model::AlexNet))];
    let tf = simulate(&cluster, &jobs, &SimConfig::new(Scheduler::TensorFlow))?;
    let jit = simulate(
        &cluster,
        &jobs,
        &SimConfig::new(Scheduler::Jit(JitConfig::default())),
    )?;
    // JIT delays transfers to their latest arrival time, so a job alone finishes later and
    // leaves bandwidth to others; TensorFlow order sends as early as it can.
    println!(
        "dag-sched: AlexNet iteration across the fabric: TensorFlow order {:.4} s, JIT (just in time) {:.4} s",
        tf.jobs[0].jct(),
        jit.jobs[0].jct()
    );
    Ok(())
}
