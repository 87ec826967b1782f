//! MPICH's own selection for every collective, as its built-in default table makes it: the
//! branches the writer gives the collectives topo-cluster does not tune (the file replaces
//! that table, so they must say what MPICH would choose without a file).
//!
//! Stated here from reading MPICH's `maint/tuning/coll/mpir/generic.json` at the v4.0.2
//! and v4.1 tags (the two differ only in the barrier) and the tables compiled into Debian
//! 12's libmpich 4.0.2 and Debian 13's 4.2.1; the tests of keys follow `csel.c` of those
//! releases. [`Version::V4_0`]'s set is MPICH's at every 4.0 tag (v4.0 to v4.0.3),
//! [`Version::V4_1`]'s at every tag from v4.1 to v4.3.2 (the file is unchanged between
//! them; 4.2's `csel.c` reads every `…=any` key as one catch-all, which must come last, as
//! the writer puts it). The decisions,
//! for an intra-communicator (sizes in bytes, p the communicator size, "pow2" p a power of
//! two, "count<pow2" the count below the largest power of two not above p):
//!
//! - allgather, allgatherv (and iallgather, iallgatherv): on pow2 p, recursive doubling for
//!   a total size below 512 KiB, ring above; on other p, Bruck's below 80 KiB, ring above;
//! - allreduce: recursive doubling up to 8 bytes (for 0 bytes, the SMP-aware algorithm
//!   when the operation is commutative), then reduce-scatter + all-gather for a built-in
//!   operation unless count<pow2; iallreduce: the same from 2 KiB, without the SMP case;
//! - alltoall: in place, pairwise sendrecv_replace; else on p < 8, scattered up to 32 KiB,
//!   pairwise above; on p >= 8, Bruck's up to 256 bytes, scattered up to 32 KiB, pairwise
//!   above (ialltoall: in place, its in-place algorithm; Bruck's up to 2 KiB, permuted
//!   sendrecv where alltoall has scattered); alltoallv, alltoallw: in place, pairwise
//!   sendrecv_replace, else scattered (their non-blocking forms: in place, else blocked);
//! - barrier: the SMP-aware algorithm on a communicator spanning nodes
//!   (`comm_hierarchy=parent`), dissemination otherwise (4.1: k-dissemination with k = 2);
//!   ibarrier: recursive doubling;
//! - bcast: on p < 8, binomial (0 bytes on a parent communicator: the SMP-aware one); on
//!   pow2 p, binomial up to 12 KiB, scatter + recursive-doubling all-gather up to 512 KiB,
//!   scatter + ring all-gather above; on other p, binomial up to 12 KiB, scatter + ring
//!   above (0 bytes on a parent communicator: the SMP-aware one); ibcast: the SMP-aware one
//!   on a parent communicator, else the same sizes with strict bounds;
//! - reduce: binomial up to 2 KiB, then for a built-in operation reduce-scatter + gather
//!   unless count<pow2 (0 bytes on a parent communicator with a commutative operation: the
//!   SMP-aware one); ireduce: the SMP-aware one on a parent communicator for a commutative
//!   operation, binomial for another, else as reduce;
//! - reduce_scatter (and ireduce_scatter): for a commutative operation, recursive halving
//!   for a total below 512 KiB, pairwise above; for another, the noncommutative algorithm on
//!   pow2 p with equal blocks, recursive doubling otherwise; reduce_scatter_block (and
//!   ireduce_scatter_block): the same, its blocks being always equal;
//! - scan: the SMP-aware algorithm when each node's ranks are consecutive, recursive
//!   doubling otherwise; iscan: the SMP-aware one on a parent communicator, else recursive
//!   doubling;
//! - gather, scatter (and their non-blocking forms): binomial;
//! - one algorithm for every communicator: gatherv, scatterv, exscan (and their non-blocking
//!   forms) and the neighbourhood collectives.
//!
//! On an inter-communicator: gather and scatter (and igather, iscatter) choose by a total
//! size below 2 KiB; the others have one algorithm each.

use super::{Node, Version, leaf};

/// MPICH's collectives (`csel.c`'s names), in the order the writer lists them.
pub(super) const COLLECTIVES: [&str; 44] = [
    "allgather",
    "allgatherv",
    "allreduce",
    "alltoall",
    "alltoallv",
    "alltoallw",
    "barrier",
    "bcast",
    "exscan",
    "gather",
    "gatherv",
    "iallgather",
    "iallgatherv",
    "iallreduce",
    "ialltoall",
    "ialltoallv",
    "ialltoallw",
    "ibarrier",
    "ibcast",
    "iexscan",
    "igather",
    "igatherv",
    "ineighbor_allgather",
    "ineighbor_allgatherv",
    "ineighbor_alltoall",
    "ineighbor_alltoallv",
    "ineighbor_alltoallw",
    "ireduce",
    "ireduce_scatter",
    "ireduce_scatter_block",
    "iscan",
    "iscatter",
    "iscatterv",
    "neighbor_allgather",
    "neighbor_allgatherv",
    "neighbor_alltoall",
    "neighbor_alltoallv",
    "neighbor_alltoallw",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_block",
    "scan",
    "scatter",
    "scatterv",
];

/// MPICH's own branch of one collective: under `comm_type=intra` and `comm_type=inter`, or,
/// where `inter` is `None`, `intra` is the whole branch (one choice for every communicator).
#[derive(Clone)]
pub(super) struct Builtin {
    pub(super) intra: Vec<Node>,
    pub(super) inter: Option<Vec<Node>>,
}

impl Builtin {
    /// The collective's whole branch.
    pub(super) fn branch(self) -> Vec<Node> {
        match self.inter {
            None => self.intra,
            Some(inter) => vec![
                Node::new("comm_type=intra", self.intra),
                Node::new("comm_type=inter", inter),
            ],
        }
    }
}

fn n(key: &str, children: Vec<Node>) -> Node {
    Node::new(key, children)
}

fn a(name: &str) -> Node {
    leaf(name)
}

/// `yes` under `key=yes`, `no` under `key=no`.
fn either(key: &str, yes: Node, no: Node) -> Vec<Node> {
    vec![
        n(&format!("{key}=yes"), vec![yes]),
        n(&format!("{key}=no"), vec![no]),
    ]
}

/// Allgather and allgatherv (`p` their name's prefix up to the algorithm): recursive
/// doubling on a power of two below 512 KiB in all, Bruck's elsewhere below 80 KiB, ring
/// above.
fn allgather(p: &str) -> Vec<Node> {
    vec![
        n(
            "comm_size=pow2",
            vec![
                n(
                    "total_msg_size<524288",
                    vec![a(&format!("{p}recursive_doubling"))],
                ),
                n("total_msg_size=any", vec![a(&format!("{p}ring"))]),
            ],
        ),
        n(
            "comm_size=any",
            vec![
                n("total_msg_size<81920", vec![a(&format!("{p}brucks"))]),
                n("total_msg_size=any", vec![a(&format!("{p}ring"))]),
            ],
        ),
    ]
}

/// The sizes of a reduce (`p` its prefix) above its binomial range: reduce-scatter + gather
/// for a built-in operation and a count at least the power of two, binomial otherwise.
fn reduce_large(p: &str) -> Vec<Node> {
    vec![
        n(
            "is_op_built_in=yes",
            vec![
                n("count<pow2", vec![a(&format!("{p}binomial"))]),
                n("count=any", vec![a(&format!("{p}reduce_scatter_gather"))]),
            ],
        ),
        n("is_op_built_in=no", vec![a(&format!("{p}binomial"))]),
    ]
}

/// Reduce: binomial up to 2 KiB, then [`reduce_large`].
fn reduce_sizes(p: &str) -> Vec<Node> {
    vec![
        n("avg_msg_size<=2048", vec![a(&format!("{p}binomial"))]),
        n("avg_msg_size=any", reduce_large(p)),
    ]
}

/// Reduce-scatter (`block`: reduce_scatter_block, whose blocks are always equal).
fn reduce_scatter(p: &str, block: bool) -> Vec<Node> {
    let noncommutative = vec![
        n("comm_size=pow2", vec![a(&format!("{p}noncommutative"))]),
        n("comm_size=any", vec![a(&format!("{p}recursive_doubling"))]),
    ];
    let commutative = vec![
        n(
            "total_msg_size<524288",
            vec![a(&format!("{p}recursive_halving"))],
        ),
        n("total_msg_size=any", vec![a(&format!("{p}pairwise"))]),
    ];
    let other = if block {
        noncommutative
    } else {
        vec![
            n("is_block_regular=yes", noncommutative),
            n(
                "is_block_regular=no",
                vec![a(&format!("{p}recursive_doubling"))],
            ),
        ]
    };
    vec![
        n("is_commutative=yes", commutative),
        n("is_commutative=no", other),
    ]
}

/// All-to-all: in place, `inplace`; else by communicator and message size (`small` the
/// bound of Bruck's, `mid` the algorithm up to 32 KiB).
fn alltoall(p: &str, inplace: &str, small: u32, mid: &str) -> Vec<Node> {
    vec![
        n("is_sendbuf_inplace=yes", vec![a(&format!("{p}{inplace}"))]),
        n(
            "is_sendbuf_inplace=no",
            vec![
                n(
                    "comm_size<8",
                    vec![
                        n("avg_msg_size<=32768", vec![a(&format!("{p}{mid}"))]),
                        n("avg_msg_size=any", vec![a(&format!("{p}pairwise"))]),
                    ],
                ),
                n(
                    "comm_size=any",
                    vec![
                        n(
                            &format!("avg_msg_size<={small}"),
                            vec![a(&format!("{p}brucks"))],
                        ),
                        n("avg_msg_size<=32768", vec![a(&format!("{p}{mid}"))]),
                        n("avg_msg_size=any", vec![a(&format!("{p}pairwise"))]),
                    ],
                ),
            ],
        ),
    ]
}

/// Alltoallv and alltoallw: in place, `inplace`, else `other`.
fn alltoallv(p: &str, inplace: &str, other: &str) -> Vec<Node> {
    either(
        "is_sendbuf_inplace",
        a(&format!("{p}{inplace}")),
        a(&format!("{p}{other}")),
    )
}

/// Broadcast by size on a power-of-two communicator or another (`le`: `<=` bounds, else
/// `<`; `smp`: the SMP-aware algorithm for 0 bytes first).
fn bcast_sizes(p: &str, pow2: bool, le: bool, smp: bool) -> Vec<Node> {
    let op = if le { "<=" } else { "<" };
    let mut out = Vec::new();
    if smp {
        out.push(n("avg_msg_size<=0", vec![a(&format!("{p}smp"))]));
    }
    out.push(n(
        &format!("avg_msg_size{op}12288"),
        vec![a(&format!("{p}binomial"))],
    ));
    if pow2 {
        out.push(n(
            &format!("avg_msg_size{op}524288"),
            vec![a(&format!("{p}scatter_recursive_doubling_allgather"))],
        ));
    }
    out.push(n(
        "avg_msg_size=any",
        vec![a(&format!("{p}scatter_ring_allgather"))],
    ));
    out
}

fn bcast() -> Vec<Node> {
    let p = "MPIR_Bcast_intra_";
    let small = |smp: bool| {
        let mut v = Vec::new();
        if smp {
            v.push(n("avg_msg_size<=0", vec![a(&format!("{p}smp"))]));
        }
        v.push(n("avg_msg_size=any", vec![a(&format!("{p}binomial"))]));
        v
    };
    let by_hierarchy = |sizes: &dyn Fn(bool) -> Vec<Node>| {
        vec![
            n("comm_hierarchy=parent", sizes(true)),
            n("comm_hierarchy=any", sizes(false)),
        ]
    };
    vec![
        n("comm_size<8", by_hierarchy(&small)),
        n(
            "comm_size=pow2",
            by_hierarchy(&|smp| bcast_sizes(p, true, true, smp)),
        ),
        n(
            "comm_size=any",
            by_hierarchy(&|smp| bcast_sizes(p, false, true, smp)),
        ),
    ]
}

fn ibcast() -> Vec<Node> {
    let p = "MPIR_Ibcast_intra_sched_";
    vec![
        n("comm_hierarchy=parent", vec![a(&format!("{p}smp"))]),
        n(
            "comm_hierarchy=any",
            vec![
                n(
                    "comm_size<8",
                    vec![n("avg_msg_size=any", vec![a(&format!("{p}binomial"))])],
                ),
                n("comm_size=pow2", bcast_sizes(p, true, false, false)),
                n("comm_size=any", bcast_sizes(p, false, false, false)),
            ],
        ),
    ]
}

fn allreduce(p: &str, small: u32, smp: bool) -> Vec<Node> {
    let rd = || a(&format!("{p}recursive_doubling"));
    let mut out = Vec::new();
    if smp {
        out.push(n(
            "avg_msg_size<=0",
            either("is_commutative", a(&format!("{p}smp")), rd()),
        ));
    }
    out.push(n(&format!("avg_msg_size<={small}"), vec![rd()]));
    out.push(n(
        "avg_msg_size=any",
        vec![
            n("is_op_built_in=no", vec![rd()]),
            n(
                "is_op_built_in=yes",
                vec![
                    n("count<pow2", vec![rd()]),
                    n(
                        "count=any",
                        vec![a(&format!("{p}reduce_scatter_allgather"))],
                    ),
                ],
            ),
        ],
    ));
    out
}

/// Inter-communicator gather and scatter: `small` below 2 KiB in all, `large` above.
fn inter_by_total(small: &str, large: &str) -> Vec<Node> {
    vec![
        n("total_msg_size<2048", vec![a(small)]),
        n("total_msg_size=any", vec![a(large)]),
    ]
}

fn both(intra: Vec<Node>, inter: &str) -> Builtin {
    Builtin {
        intra,
        inter: Some(vec![a(inter)]),
    }
}

fn all(name: &str) -> Builtin {
    Builtin {
        intra: vec![a(name)],
        inter: None,
    }
}

/// MPICH's own branch for `name` (one of [`COLLECTIVES`]); `None` for another name.
pub(super) fn builtin(version: Version, name: &str) -> Option<Builtin> {
    Some(match name {
        "allgather" => both(
            allgather("MPIR_Allgather_intra_"),
            "MPIR_Allgather_inter_local_gather_remote_bcast",
        ),
        "allgatherv" => both(
            allgather("MPIR_Allgatherv_intra_"),
            "MPIR_Allgatherv_inter_remote_gather_local_bcast",
        ),
        "allreduce" => both(
            allreduce("MPIR_Allreduce_intra_", 8, true),
            "MPIR_Allreduce_inter_reduce_exchange_bcast",
        ),
        "alltoall" => both(
            alltoall(
                "MPIR_Alltoall_intra_",
                "pairwise_sendrecv_replace",
                256,
                "scattered",
            ),
            "MPIR_Alltoall_inter_pairwise_exchange",
        ),
        "alltoallv" => both(
            alltoallv(
                "MPIR_Alltoallv_intra_",
                "pairwise_sendrecv_replace",
                "scattered",
            ),
            "MPIR_Alltoallv_inter_pairwise_exchange",
        ),
        "alltoallw" => both(
            alltoallv(
                "MPIR_Alltoallw_intra_",
                "pairwise_sendrecv_replace",
                "scattered",
            ),
            "MPIR_Alltoallw_inter_pairwise_exchange",
        ),
        "barrier" => both(
            vec![
                n("comm_hierarchy=parent", vec![a("MPIR_Barrier_intra_smp")]),
                n(
                    "comm_hierarchy=any",
                    vec![match version {
                        Version::V4_0 => a("MPIR_Barrier_intra_dissemination"),
                        Version::V4_1 => n(
                            "algorithm=MPIR_Barrier_intra_k_dissemination",
                            vec![n("k=2", Vec::new())],
                        ),
                    }],
                ),
            ],
            "MPIR_Barrier_inter_bcast",
        ),
        "bcast" => both(bcast(), "MPIR_Bcast_inter_remote_send_local_bcast"),
        "exscan" => all("MPIR_Exscan_intra_recursive_doubling"),
        "gather" => Builtin {
            intra: vec![a("MPIR_Gather_intra_binomial")],
            inter: Some(inter_by_total(
                "MPIR_Gather_inter_local_gather_remote_send",
                "MPIR_Gather_inter_linear",
            )),
        },
        "gatherv" => all("MPIR_Gatherv_allcomm_linear"),
        "iallgather" => both(
            allgather("MPIR_Iallgather_intra_sched_"),
            "MPIR_Iallgather_inter_sched_local_gather_remote_bcast",
        ),
        "iallgatherv" => both(
            allgather("MPIR_Iallgatherv_intra_sched_"),
            "MPIR_Iallgatherv_inter_sched_remote_gather_local_bcast",
        ),
        "iallreduce" => both(
            allreduce("MPIR_Iallreduce_intra_sched_", 2048, false),
            "MPIR_Iallreduce_inter_sched_remote_reduce_local_bcast",
        ),
        "ialltoall" => both(
            alltoall(
                "MPIR_Ialltoall_intra_sched_",
                "inplace",
                2048,
                "permuted_sendrecv",
            ),
            "MPIR_Ialltoall_inter_sched_pairwise_exchange",
        ),
        "ialltoallv" => both(
            alltoallv("MPIR_Ialltoallv_intra_sched_", "inplace", "blocked"),
            "MPIR_Ialltoallv_inter_sched_pairwise_exchange",
        ),
        "ialltoallw" => both(
            alltoallv("MPIR_Ialltoallw_intra_sched_", "inplace", "blocked"),
            "MPIR_Ialltoallw_inter_sched_pairwise_exchange",
        ),
        "ibarrier" => both(
            vec![a("MPIR_Ibarrier_intra_sched_recursive_doubling")],
            "MPIR_Ibarrier_inter_sched_bcast",
        ),
        "ibcast" => both(ibcast(), "MPIR_Ibcast_inter_sched_flat"),
        "iexscan" => all("MPIR_Iexscan_intra_sched_recursive_doubling"),
        "igather" => Builtin {
            intra: vec![a("MPIR_Igather_intra_sched_binomial")],
            inter: Some(inter_by_total(
                "MPIR_Igather_inter_sched_short",
                "MPIR_Igather_inter_sched_long",
            )),
        },
        "igatherv" => all("MPIR_Igatherv_allcomm_sched_linear"),
        "ineighbor_allgather" => all("MPIR_Ineighbor_allgather_allcomm_sched_linear"),
        "ineighbor_allgatherv" => all("MPIR_Ineighbor_allgatherv_allcomm_sched_linear"),
        "ineighbor_alltoall" => all("MPIR_Ineighbor_alltoall_allcomm_sched_linear"),
        "ineighbor_alltoallv" => all("MPIR_Ineighbor_alltoallv_allcomm_sched_linear"),
        "ineighbor_alltoallw" => all("MPIR_Ineighbor_alltoallw_allcomm_sched_linear"),
        "ireduce" => {
            let p = "MPIR_Ireduce_intra_sched_";
            both(
                vec![
                    n(
                        "comm_hierarchy=parent",
                        either(
                            "is_commutative",
                            a(&format!("{p}smp")),
                            a(&format!("{p}binomial")),
                        ),
                    ),
                    n("comm_hierarchy=any", reduce_sizes(p)),
                ],
                "MPIR_Ireduce_inter_sched_local_reduce_remote_send",
            )
        }
        "ireduce_scatter" => both(
            reduce_scatter("MPIR_Ireduce_scatter_intra_sched_", false),
            "MPIR_Ireduce_scatter_inter_sched_remote_reduce_local_scatterv",
        ),
        "ireduce_scatter_block" => both(
            reduce_scatter("MPIR_Ireduce_scatter_block_intra_sched_", true),
            "MPIR_Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv",
        ),
        "iscan" => Builtin {
            intra: vec![
                n(
                    "comm_hierarchy=parent",
                    vec![a("MPIR_Iscan_intra_sched_smp")],
                ),
                n(
                    "comm_hierarchy=any",
                    vec![a("MPIR_Iscan_intra_sched_recursive_doubling")],
                ),
            ],
            inter: None,
        },
        "iscatter" => Builtin {
            intra: vec![a("MPIR_Iscatter_intra_sched_binomial")],
            inter: Some(inter_by_total(
                "MPIR_Iscatter_inter_sched_remote_send_local_scatter",
                "MPIR_Iscatter_inter_sched_linear",
            )),
        },
        "iscatterv" => all("MPIR_Iscatterv_allcomm_sched_linear"),
        "neighbor_allgather" => all("MPIR_Neighbor_allgather_allcomm_nb"),
        "neighbor_allgatherv" => all("MPIR_Neighbor_allgatherv_allcomm_nb"),
        "neighbor_alltoall" => all("MPIR_Neighbor_alltoall_allcomm_nb"),
        "neighbor_alltoallv" => all("MPIR_Neighbor_alltoallv_allcomm_nb"),
        "neighbor_alltoallw" => all("MPIR_Neighbor_alltoallw_allcomm_nb"),
        "reduce" => {
            let p = "MPIR_Reduce_intra_";
            let mut parent = vec![n(
                "avg_msg_size<=0",
                either(
                    "is_commutative",
                    a(&format!("{p}smp")),
                    a(&format!("{p}binomial")),
                ),
            )];
            parent.extend(reduce_sizes(p));
            both(
                vec![
                    n("comm_hierarchy=parent", parent),
                    n("comm_hierarchy=any", reduce_sizes(p)),
                ],
                "MPIR_Reduce_inter_local_reduce_remote_send",
            )
        }
        "reduce_scatter" => both(
            reduce_scatter("MPIR_Reduce_scatter_intra_", false),
            "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter",
        ),
        "reduce_scatter_block" => both(
            reduce_scatter("MPIR_Reduce_scatter_block_intra_", true),
            "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter",
        ),
        // MPICH's table names its SMP-aware intra-communicator scan for inter-communicators,
        // on which MPI defines no scan
        "scan" => both(
            either(
                "is_node_consecutive",
                a("MPIR_Scan_intra_smp"),
                a("MPIR_Scan_intra_recursive_doubling"),
            ),
            "MPIR_Scan_intra_smp",
        ),
        "scatter" => Builtin {
            intra: vec![a("MPIR_Scatter_intra_binomial")],
            inter: Some(inter_by_total(
                "MPIR_Scatter_inter_remote_send_local_scatter",
                "MPIR_Scatter_inter_linear",
            )),
        },
        "scatterv" => all("MPIR_Scatterv_allcomm_linear"),
        _ => return None,
    })
}
