use super::*;
use crate::error::status;
use proptest::prelude::*;
use std::collections::HashMap;

fn job(size: u32, local: &[u32], node: u32, map: Vec<u32>) -> JobInfo {
    JobInfo {
        size,
        local_peers: local.iter().map(|&r| Rank(r)).collect(),
        node_id: node,
        hostname: format!("node{node}"),
        num_nodes: 2,
        proc_nodes: Some(map),
        node_hostnames: Some(vec!["node0".into(), "node1".into()]),
        extra: vec![("app.flavour".into(), Value::String("vanilla".into()))],
    }
}

/// Two nodes of a 4-rank job: ranks 0,1 on node 0, ranks 2,3 on node 1.
fn two_nodes() -> (NodeStore, NodeStore, Nspace, Nspace) {
    let mut a = NodeStore::new();
    let mut b = NodeStore::new();
    let na = a
        .register_job("job", &job(4, &[0, 1], 0, vec![0, 0, 1, 1]))
        .unwrap();
    let nb = b
        .register_job("job", &job(4, &[2, 3], 1, vec![0, 0, 1, 1]))
        .unwrap();
    (a, b, na, nb)
}

const WAIT: GetOptions = GetOptions {
    optional: false,
    immediate: false,
    refresh_cache: false,
    scope: None,
    deadline: Some(Nanos::new(1000)),
};

fn found(v: Value) -> GetOutcome {
    GetOutcome::Found(v)
}

#[test]
fn commit_before_visible_and_put_copies() {
    let (mut a, _, ns, _) = two_nodes();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    let mut v = vec![1u8, 2];
    p0.put(Scope::Local, "k", Value::Bytes(v.clone())).unwrap();
    v.push(3); // the caller's buffer changes; the staged copy does not
    assert_eq!(p0.staged(), 1);
    assert_eq!(
        p1.get(&a, p0.id(), "k", &WAIT, Nanos::new(0)).unwrap(),
        GetOutcome::Pending {
            deadline: Some(Nanos::new(1000))
        }
    );
    // The putter sees its own data at once.
    assert_eq!(
        p0.get(&a, p0.id(), "k", &WAIT, Nanos::new(0)).unwrap(),
        found(Value::Bytes(vec![1, 2]))
    );
    assert_eq!(p0.commit(&mut a).unwrap(), 1);
    assert_eq!(p0.staged(), 0);
    assert_eq!(
        p1.get(&a, p0.id(), "k", &WAIT, Nanos::new(1)).unwrap(),
        found(Value::Bytes(vec![1, 2]))
    );
}

#[test]
fn reserved_keys_are_refused_with_bad_param() {
    let (_, _, ns, _) = two_nodes();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    let e = p0
        .put(Scope::Global, "pmix.job.size", Value::U32(9))
        .unwrap_err();
    assert_eq!(
        e,
        Error::ReservedKey {
            key: "pmix.job.size".into()
        }
    );
    assert_eq!(e.status(), status::ERR_BAD_PARAM);
    assert_eq!(
        p0.put(Scope::Global, "", Value::U32(9)),
        Err(Error::BadKeyLength { len: 0 })
    );
}

#[test]
fn scopes_decide_who_sees_what() {
    let (mut a, _, ns, _) = two_nodes();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    p0.put(Scope::Internal, "mine", Value::I8(-1)).unwrap();
    p0.put(Scope::Remote, "far", Value::U16(7)).unwrap();
    p0.put(Scope::Local, "near", Value::U16(8)).unwrap();
    p0.put(Scope::Global, "all", Value::U16(9)).unwrap();
    assert_eq!(
        p0.commit(&mut a).unwrap(),
        3,
        "internal data is never published"
    );
    let me = p0.id();
    assert_eq!(
        p0.get(&a, me, "mine", &WAIT, Nanos::new(0)).unwrap(),
        found(Value::I8(-1))
    );
    // A peer on the node: internal never arrives (waits), remote exists outside its scope.
    assert_eq!(
        p1.get(&a, me, "mine", &WAIT, Nanos::new(0)).unwrap(),
        GetOutcome::Pending {
            deadline: Some(Nanos::new(1000))
        }
    );
    let outside = p1.get(&a, me, "far", &WAIT, Nanos::new(0)).unwrap();
    assert_eq!(outside, GetOutcome::ExistsOutsideScope);
    assert_eq!(outside.status(), Some(status::ERR_EXISTS_OUTSIDE_SCOPE));
    assert_eq!(
        p1.get(&a, me, "near", &WAIT, Nanos::new(0)).unwrap(),
        found(Value::U16(8))
    );
    assert_eq!(
        p1.get(&a, me, "all", &WAIT, Nanos::new(0)).unwrap(),
        found(Value::U16(9))
    );
    // PMIX_DATA_SCOPE filters.
    let local_only = GetOptions {
        scope: Some(Scope::Local),
        ..WAIT
    };
    assert_eq!(
        p1.get(&a, me, "all", &local_only, Nanos::new(0)).unwrap(),
        found(Value::U16(9))
    );
    let remote_only = GetOptions {
        scope: Some(Scope::Remote),
        ..WAIT
    };
    assert_eq!(
        p1.get(&a, me, "near", &remote_only, Nanos::new(0)).unwrap(),
        GetOutcome::ExistsOutsideScope
    );
}

#[test]
fn not_found_only_when_asked_not_to_wait_and_deadlines() {
    let (a, _, ns, _) = two_nodes();
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    let p0 = ProcId::new(ns, Rank(0));
    for opts in [
        GetOptions {
            optional: true,
            ..WAIT
        },
        GetOptions {
            immediate: true,
            ..WAIT
        },
        GetOptions {
            refresh_cache: true,
            ..WAIT
        },
    ] {
        let o = p1.get(&a, p0, "nope", &opts, Nanos::new(0)).unwrap();
        assert_eq!(o, GetOutcome::NotFound);
        assert_eq!(o.status(), Some(status::ERR_NOT_FOUND));
    }
    assert_eq!(
        p1.get(&a, p0, "nope", &WAIT, Nanos::new(999)).unwrap(),
        GetOutcome::Pending {
            deadline: Some(Nanos::new(1000))
        }
    );
    let t = p1.get(&a, p0, "nope", &WAIT, Nanos::new(1000)).unwrap();
    assert_eq!(t, GetOutcome::TimedOut);
    assert_eq!(t.status(), Some(status::ERR_TIMEOUT));
    let forever = GetOptions::default();
    assert_eq!(
        p1.get(&a, p0, "nope", &forever, Nanos::MAX).unwrap(),
        GetOutcome::Pending { deadline: None }
    );
}

#[test]
fn job_level_reserved_keys_never_wait() {
    let (a, _, ns, _) = two_nodes();
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    let wild = ProcId::new(ns, Rank::WILDCARD);
    let g = |p1: &mut Client, proc, key| p1.get(&a, proc, key, &WAIT, Nanos::new(0)).unwrap();
    assert_eq!(g(&mut p1, wild, keys::JOB_SIZE), found(Value::U32(4)));
    assert_eq!(
        g(&mut p1, wild, keys::LOCAL_PEERS),
        found(Value::String("0,1".into()))
    );
    assert_eq!(g(&mut p1, wild, keys::LOCAL_SIZE), found(Value::U32(2)));
    assert_eq!(g(&mut p1, wild, keys::NODE_ID), found(Value::U32(0)));
    assert_eq!(
        g(&mut p1, wild, keys::HOSTNAME),
        found(Value::String("node0".into()))
    );
    assert_eq!(
        g(&mut p1, wild, keys::LOCALLDR),
        found(Value::Rank(Rank(0)))
    );
    let r1 = ProcId::new(ns, Rank(1));
    assert_eq!(g(&mut p1, r1, keys::LOCAL_RANK), found(Value::U16(1)));
    assert_eq!(g(&mut p1, r1, keys::RANK), found(Value::Rank(Rank(1))));
    // A process-level get of a job-level key falls back to the job realm.
    assert_eq!(g(&mut p1, r1, keys::JOB_SIZE), found(Value::U32(4)));
    // A missing reserved key is NOT_FOUND at once, never pending.
    assert_eq!(g(&mut p1, wild, "pmix.no.such"), GetOutcome::NotFound);
    // Non-reserved job-level data registered by the resource manager.
    assert_eq!(
        g(&mut p1, wild, "app.flavour"),
        found(Value::String("vanilla".into()))
    );
}

#[test]
fn undef_rank_searches_every_rank() {
    let (mut a, _, ns, _) = two_nodes();
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    let any = ProcId::new(ns, Rank::UNDEF);
    assert_eq!(
        p1.get(&a, any, "uniq", &WAIT, Nanos::new(0)).unwrap(),
        GetOutcome::Pending {
            deadline: Some(Nanos::new(1000))
        }
    );
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    p0.put(Scope::Local, "uniq", Value::Size(5)).unwrap();
    p0.commit(&mut a).unwrap();
    assert_eq!(
        p1.get(&a, any, "uniq", &WAIT, Nanos::new(0)).unwrap(),
        found(Value::Size(5))
    );
}

#[test]
fn commit_by_a_process_not_on_this_node_fails() {
    let (mut a, _, ns, _) = two_nodes();
    let mut p2 = Client::new(ProcId::new(ns, Rank(2)));
    p2.put(Scope::Global, "k", Value::Bool(true)).unwrap();
    assert_eq!(
        p2.commit(&mut a),
        Err(Error::NotLocal {
            nspace: "job".into(),
            rank: Rank(2)
        })
    );
    assert_eq!(p2.staged(), 1, "nothing was published");
}

#[test]
fn bad_job_registrations() {
    let mut s = NodeStore::new();
    let e = s
        .register_job("j", &job(2, &[0, 2], 0, vec![0, 0]))
        .unwrap_err();
    assert!(matches!(e, Error::BadRank { rank: Rank(2), .. }));
    let e = s.register_job("j", &job(2, &[0], 0, vec![0])).unwrap_err();
    assert!(matches!(e, Error::BadRank { .. }));
    let e = s
        .register_job("", &job(2, &[0], 0, vec![0, 0]))
        .unwrap_err();
    assert_eq!(e, Error::BadNspaceLength { len: 0 });
}

/// Runs a fence between the two nodes with data collection.
fn fence(a: &mut NodeStore, b: &mut NodeStore, na: Nspace, nb: Nspace) {
    let ba = a.fence_contribution(na, true).unwrap();
    let bb = b.fence_contribution(nb, true).unwrap();
    // Order-independent: each side applies both, in a different order.
    a.apply_fence(&[bb.clone(), ba.clone()]).unwrap();
    b.apply_fence(&[ba, bb]).unwrap();
}

#[test]
fn fence_moves_only_committed_remote_and_global_data_and_refresh_rereads() {
    let (mut a, mut b, na, nb) = two_nodes();
    let mut p0 = Client::new(ProcId::new(na, Rank(0)));
    p0.put(Scope::Global, "addr", Value::String("v1".into()))
        .unwrap();
    p0.put(Scope::Local, "shm", Value::U32(1)).unwrap();
    p0.put(Scope::Remote, "net", Value::U32(2)).unwrap();
    p0.commit(&mut a).unwrap();
    p0.put(Scope::Global, "late", Value::U32(3)).unwrap(); // staged, not committed
    let barrier = a.fence_contribution(na, false).unwrap();
    assert!(barrier.entries.is_empty() && !barrier.collect);
    fence(&mut a, &mut b, na, nb);
    assert_eq!(b.fence_epoch(), 1);
    let mut p2 = Client::new(ProcId::new(nb, Rank(2)));
    let t = ProcId::new(nb, Rank(0));
    let immediate = GetOptions {
        immediate: true,
        ..WAIT
    };
    assert_eq!(
        p2.get(&b, t, "addr", &immediate, Nanos::new(0)).unwrap(),
        found(Value::String("v1".into()))
    );
    assert_eq!(
        p2.get(&b, t, "net", &immediate, Nanos::new(0)).unwrap(),
        found(Value::U32(2))
    );
    assert_eq!(
        p2.get(&b, t, "shm", &immediate, Nanos::new(0)).unwrap(),
        GetOutcome::NotFound
    );
    assert_eq!(
        p2.get(&b, t, "late", &immediate, Nanos::new(0)).unwrap(),
        GetOutcome::NotFound
    );
    // Re-put and fence again: the cached value stays until a refresh.
    p0.put(Scope::Global, "addr", Value::String("v2".into()))
        .unwrap();
    p0.commit(&mut a).unwrap();
    fence(&mut a, &mut b, na, nb);
    assert_eq!(
        p2.get(&b, t, "addr", &immediate, Nanos::new(0)).unwrap(),
        found(Value::String("v1".into()))
    );
    let refresh = GetOptions {
        refresh_cache: true,
        ..WAIT
    };
    assert_eq!(
        p2.get(&b, t, "addr", &refresh, Nanos::new(0)).unwrap(),
        found(Value::String("v2".into()))
    );
    assert_eq!(
        p2.get(&b, t, "addr", &immediate, Nanos::new(0)).unwrap(),
        found(Value::String("v2".into())),
        "the refresh updated the cache"
    );
    assert_eq!(
        p2.get(&b, t, "late", &immediate, Nanos::new(0)).unwrap(),
        found(Value::U32(3))
    );
}

#[test]
fn direct_modex_forwards_then_fills_the_cache() {
    let (mut a, mut b, na, nb) = two_nodes();
    let mut p2 = Client::new(ProcId::new(nb, Rank(2)));
    let t = ProcId::new(nb, Rank(0));
    let GetOutcome::Forward(req) = p2.get(&b, t, "addr", &WAIT, Nanos::new(0)).unwrap() else {
        panic!("a remote get must forward");
    };
    assert_eq!(req.node, Some(0));
    assert_eq!(req.rank, Rank(0));
    assert_eq!(req.nspace, "job");
    b.note_dmodex_sent(&req).unwrap();
    assert_eq!(
        p2.get(&b, t, "addr", &WAIT, Nanos::new(1)).unwrap(),
        GetOutcome::Pending {
            deadline: Some(Nanos::new(1000))
        },
        "one request per target"
    );
    // Node 0 holds the request until the key is committed.
    assert_eq!(a.answer_dmodex(&req).unwrap(), DmodexAnswer::NotYet);
    let mut p0 = Client::new(ProcId::new(na, Rank(0)));
    p0.put(Scope::Remote, "addr", Value::F64(0.1)).unwrap();
    p0.put(Scope::Global, "other", Value::I64(-5)).unwrap();
    p0.put(Scope::Local, "private", Value::I64(1)).unwrap();
    p0.commit(&mut a).unwrap();
    let ans = a.answer_dmodex(&req).unwrap();
    assert!(matches!(ans, DmodexAnswer::Data(_)));
    b.apply_dmodex(&req, &ans).unwrap();
    assert_eq!(
        p2.get(&b, t, "addr", &WAIT, Nanos::new(2)).unwrap(),
        found(Value::F64(0.1))
    );
    // The whole off-node set came, not just the key asked for.
    assert_eq!(
        p2.get(&b, t, "other", &WAIT, Nanos::new(2)).unwrap(),
        found(Value::I64(-5))
    );
    let imm = GetOptions {
        immediate: true,
        ..WAIT
    };
    assert_eq!(
        p2.get(&b, t, "private", &imm, Nanos::new(2)).unwrap(),
        GetOutcome::NotFound
    );
    // Asking node 1 about a process it does not host is refused.
    assert!(matches!(b.answer_dmodex(&req), Err(Error::NotLocal { .. })));
    // With direct modex off, an absent remote key is NOT_FOUND at once.
    let mut c = NodeStore::new();
    c.set_direct_modex(false);
    let nc = c
        .register_job("job", &job(4, &[2, 3], 1, vec![0, 0, 1, 1]))
        .unwrap();
    let mut q = Client::new(ProcId::new(nc, Rank(3)));
    assert_eq!(
        q.get(&c, ProcId::new(nc, Rank(0)), "addr", &WAIT, Nanos::new(0))
            .unwrap(),
        GetOutcome::NotFound
    );
}

/// A remote `get` of a key its owner committed with `Scope::Local` resolves: the owner's
/// node answers "outside scope" over the wire, and the requester's `get` answers
/// `PMIX_ERR_EXISTS_OUTSIDE_SCOPE` instead of forwarding or waiting for ever (regression:
/// the owner answered `NotYet` for ever and the requester stayed `Pending { deadline: None }`).
#[test]
fn a_remote_get_of_a_local_only_key_is_outside_scope() {
    let (mut a, mut b, na, nb) = two_nodes();
    let mut p0 = Client::new(ProcId::new(na, Rank(0)));
    p0.put(Scope::Local, "private", Value::I64(1)).unwrap();
    p0.put(Scope::Remote, "addr", Value::U32(9)).unwrap();
    p0.commit(&mut a).unwrap();
    let mut p2 = Client::new(ProcId::new(nb, Rank(2)));
    let t = ProcId::new(nb, Rank(0));
    let forever = GetOptions::default();
    let GetOutcome::Forward(req) = p2.get(&b, t, "private", &forever, Nanos::ZERO).unwrap() else {
        panic!("a remote get must forward");
    };
    b.note_dmodex_sent(&req).unwrap();
    assert_eq!(
        p2.get(&b, t, "private", &forever, Nanos::new(1)).unwrap(),
        GetOutcome::Pending { deadline: None }
    );
    // The request and the answer cross a wire as bytes.
    let on_a = DmodexRequest::decode(&req.encode().unwrap()).unwrap();
    let answer = a.answer_dmodex(&on_a).unwrap();
    assert_eq!(answer, DmodexAnswer::OutsideScope);
    let answer = DmodexAnswer::decode(&answer.encode()).unwrap();
    b.apply_dmodex(&req, &answer).unwrap();
    let got = p2.get(&b, t, "private", &forever, Nanos::new(2)).unwrap();
    assert_eq!(got, GetOutcome::ExistsOutsideScope);
    assert_eq!(got.status(), Some(status::ERR_EXISTS_OUTSIDE_SCOPE));
    // The outstanding request is answered: another absent key forwards again, and the
    // owner's off-node data still arrives by it.
    let GetOutcome::Forward(req) = p2.get(&b, t, "addr", &forever, Nanos::new(3)).unwrap() else {
        panic!("the answered request is no longer outstanding");
    };
    let data = a.answer_dmodex(&req).unwrap();
    b.apply_dmodex(&req, &data).unwrap();
    assert_eq!(
        p2.get(&b, t, "addr", &forever, Nanos::new(4)).unwrap(),
        found(Value::U32(9))
    );
    assert_eq!(
        p2.get(&b, t, "private", &forever, Nanos::new(4)).unwrap(),
        GetOutcome::ExistsOutsideScope,
        "still outside scope once the rest of the data came"
    );
    // On the owner's node the key is there, for its peers.
    let mut p1 = Client::new(ProcId::new(na, Rank(1)));
    assert_eq!(
        p1.get(
            &a,
            ProcId::new(na, Rank(0)),
            "private",
            &forever,
            Nanos::ZERO
        )
        .unwrap(),
        found(Value::I64(1))
    );
}

/// An outside-scope answer for a process of this node, or for no process, is refused.
#[test]
fn outside_scope_answers_for_the_wrong_process_are_refused() {
    let (_, mut b, _, _) = two_nodes();
    let mut req = DmodexRequest {
        nspace: "job".into(),
        rank: Rank(2),
        key: "k".into(),
        node: Some(1),
    };
    assert!(matches!(
        b.apply_dmodex(&req, &DmodexAnswer::OutsideScope),
        Err(Error::BadRank { rank: Rank(2), .. })
    ));
    req.rank = Rank::WILDCARD;
    assert!(matches!(
        b.apply_dmodex(&req, &DmodexAnswer::OutsideScope),
        Err(Error::BadRank { .. })
    ));
    req.rank = Rank(0);
    req.key = String::new();
    assert_eq!(
        b.apply_dmodex(&req, &DmodexAnswer::OutsideScope),
        Err(Error::BadKeyLength { len: 0 })
    );
}

/// Every case of scope and presence, on the owner's node and off it, before and after the
/// fence, with the status the PMIx Standard v5.0 gives `PMIx_Get` for it.
#[test]
fn scope_and_presence_cases_answer_the_standards_status() {
    let (mut a, mut b, na, nb) = two_nodes();
    let mut p0 = Client::new(ProcId::new(na, Rank(0)));
    let mut p1 = Client::new(ProcId::new(na, Rank(1)));
    let mut p2 = Client::new(ProcId::new(nb, Rank(2)));
    p0.put(Scope::Local, "l", Value::U8(1)).unwrap();
    p0.put(Scope::Remote, "r", Value::U8(2)).unwrap();
    p0.put(Scope::Global, "g", Value::U8(3)).unwrap();
    p0.commit(&mut a).unwrap();
    let owner = ProcId::new(na, Rank(0));
    let remote_owner = ProcId::new(nb, Rank(0));
    let wait = WAIT;
    let optional = GetOptions::default().with_optional(true);
    let immediate = GetOptions::default().with_immediate(true);
    for fenced in [false, true] {
        if fenced {
            let blobs = [
                a.fence_contribution(na, true).unwrap(),
                b.fence_contribution(nb, true).unwrap(),
            ];
            a.apply_fence(&blobs).unwrap();
            b.apply_fence(&blobs).unwrap();
        }
        // On the owner's node: `Remote` data is "only available to processes on remote
        // nodes": exists outside scope; `Local` and `Global` are found.
        assert_eq!(
            p1.get(&a, owner, "l", &wait, Nanos::ZERO).unwrap(),
            found(Value::U8(1))
        );
        assert_eq!(
            p1.get(&a, owner, "g", &wait, Nanos::ZERO).unwrap(),
            found(Value::U8(3))
        );
        assert_eq!(
            p1.get(&a, owner, "r", &wait, Nanos::ZERO).unwrap(),
            GetOutcome::ExistsOutsideScope,
            "fenced: {fenced}"
        );
        // A key nowhere: `PMIX_OPTIONAL` and `PMIX_IMMEDIATE` answer NOT_FOUND ("if not
        // found and either the PMIX_OPTIONAL or PMIX_GET_REFRESH_CACHE attribute was given
        // ... return the PMIX_ERR_NOT_FOUND status"); otherwise the server holds the request
        // until the timeout (`PMIX_ERR_TIMEOUT`).
        for opts in [optional, immediate] {
            assert_eq!(
                p1.get(&a, owner, "none", &opts, Nanos::ZERO)
                    .unwrap()
                    .status(),
                Some(status::ERR_NOT_FOUND)
            );
            assert_eq!(
                p2.get(&b, remote_owner, "none", &opts, Nanos::ZERO)
                    .unwrap()
                    .status(),
                Some(status::ERR_NOT_FOUND)
            );
        }
        assert_eq!(
            p1.get(&a, owner, "none", &wait, Nanos::ZERO).unwrap(),
            GetOutcome::Pending {
                deadline: wait.deadline
            }
        );
        assert_eq!(
            p1.get(&a, owner, "none", &wait, Nanos::new(1000))
                .unwrap()
                .status(),
            Some(status::ERR_TIMEOUT)
        );
        // Off the owner's node, after the fence: `Remote` and `Global` data came with it.
        if fenced {
            assert_eq!(
                p2.get(&b, remote_owner, "r", &wait, Nanos::ZERO).unwrap(),
                found(Value::U8(2))
            );
            assert_eq!(
                p2.get(&b, remote_owner, "g", &wait, Nanos::ZERO).unwrap(),
                found(Value::U8(3))
            );
        }
        // A missing key of a remote target goes to its node, which holds it (NotYet) until
        // the deadline passes (on a copy of node 1: one request per target is outstanding).
        let mut b2 = b.clone();
        let GetOutcome::Forward(req) = p2
            .get(&b2, remote_owner, "none", &wait, Nanos::ZERO)
            .unwrap()
        else {
            panic!("a missing remote key forwards (fenced: {fenced})");
        };
        assert_eq!(a.answer_dmodex(&req).unwrap(), DmodexAnswer::NotYet);
        b2.note_dmodex_sent(&req).unwrap();
        assert_eq!(
            p2.get(&b2, remote_owner, "none", &wait, Nanos::new(1000))
                .unwrap()
                .status(),
            Some(status::ERR_TIMEOUT)
        );
        // `Local` data, off the node: exists outside scope, through direct modex the first
        // time (the fence does not carry it), known from then on.
        match p2.get(&b, remote_owner, "l", &wait, Nanos::ZERO).unwrap() {
            GetOutcome::Forward(req) if !fenced => {
                let answer = a.answer_dmodex(&req).unwrap();
                assert_eq!(answer, DmodexAnswer::OutsideScope);
                b.apply_dmodex(&req, &answer).unwrap();
            }
            GetOutcome::ExistsOutsideScope if fenced => {}
            other => panic!("fenced: {fenced}: {other:?}"),
        }
        assert_eq!(
            p2.get(&b, remote_owner, "l", &wait, Nanos::ZERO)
                .unwrap()
                .status(),
            Some(status::ERR_EXISTS_OUTSIDE_SCOPE)
        );
        // Without direct modex, an absent remote key is NOT_FOUND at once ("if the host
        // does not support the pmix_server_dmodex_req_fn_t interface, then the server will
        // immediately respond to the client with the PMIX_ERR_NOT_FOUND status").
        let mut c = b.clone();
        c.set_direct_modex(false);
        assert_eq!(
            p2.get(&c, remote_owner, "none2", &wait, Nanos::ZERO)
                .unwrap()
                .status(),
            Some(status::ERR_NOT_FOUND)
        );
    }
}

#[test]
fn corrupt_dmodex_answers_are_errors() {
    let (_, mut b, _, _) = two_nodes();
    let req = DmodexRequest {
        nspace: "job".into(),
        rank: Rank(0),
        key: "k".into(),
        node: Some(0),
    };
    assert!(
        b.apply_dmodex(&req, &DmodexAnswer::Data(vec![b'P', 2]))
            .is_err()
    );
    let other = FenceBlob {
        nspace: "job".into(),
        collect: true,
        entries: vec![ProcEntry {
            rank: Rank(1),
            kvs: vec![("k".into(), Value::Bool(true))],
        }],
    };
    let bytes = codec::encode(&other, codec::Layout::Naive).unwrap();
    assert!(matches!(
        b.apply_dmodex(&req, &DmodexAnswer::Data(bytes)),
        Err(Error::BadFenceMessage { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// After any sequence of puts and commits, a peer sees exactly the last committed value of
    /// each node-visible key, and waits for the rest.
    #[test]
    fn peers_see_the_last_committed_value(ops in proptest::collection::vec((0u8..4, 0usize..5, any::<u32>(), any::<bool>()), 1..40)) {
        let (mut a, _, ns, _) = two_nodes();
        let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
        let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
        let mut staged: Vec<(Scope, usize, u32)> = Vec::new();
        let mut model: HashMap<usize, (Scope, u32)> = HashMap::new();
        for (scope, key, val, commit) in ops {
            let scope = Scope::from_code(scope + 1).unwrap();
            p0.put(scope, &format!("k{key}"), Value::U32(val)).unwrap();
            if scope != Scope::Internal {
                staged.push((scope, key, val));
            }
            if commit {
                p0.commit(&mut a).unwrap();
                for (s, k, v) in staged.drain(..) {
                    let prev = model.get(&k).map(|e| e.0);
                    // A key put with both node scopes keeps the node-visible one.
                    if s.visible_on_node() || prev.is_none_or(|p| !p.visible_on_node()) {
                        model.insert(k, (s, v));
                    }
                }
            }
        }
        for key in 0..5 {
            let got = p1.get(&a, p0.id(), &format!("k{key}"), &GetOptions { refresh_cache: true, ..WAIT }, Nanos::new(0)).unwrap();
            let want = match model.get(&key) {
                Some((s, v)) if s.visible_on_node() => GetOutcome::Found(Value::U32(*v)),
                Some(_) => GetOutcome::ExistsOutsideScope,
                None => GetOutcome::NotFound,
            };
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn public_types_are_send_sync_and_errors_static() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<NodeStore>();
    send_sync::<Client>();
    send_sync::<GetOutcome>();
    send_sync::<crate::fence::FenceNode>();
    send_sync::<Error>();
    let e: Box<dyn std::error::Error + Send + Sync> = Box::new(Error::NoSlots);
    assert!(e.to_string().contains("slot"));
}

/// `get_with` answers what `get` answers on every path (reserved key, own data, cache, node
/// store, fence data, not found, outside scope, pending, forward), handing the hit to `f`.
#[test]
fn get_with_agrees_with_get_on_every_path() {
    let (mut a, mut b, na, nb) = two_nodes();
    let mut p0 = Client::new(ProcId::new(na, Rank(0)));
    p0.put(Scope::Global, "addr", Value::String("v1".into()))
        .unwrap();
    p0.put(Scope::Local, "shm", Value::U32(1)).unwrap();
    p0.put(Scope::Internal, "mine", Value::I64(-5)).unwrap();
    p0.commit(&mut a).unwrap();
    fence(&mut a, &mut b, na, nb);
    let optional = GetOptions {
        optional: true,
        ..WAIT
    };
    let local = GetOptions {
        scope: Some(Scope::Local),
        ..WAIT
    };
    let remote = GetOptions {
        scope: Some(Scope::Remote),
        ..WAIT
    };
    let cases = [
        (&a, ProcId::new(na, Rank::WILDCARD), "pmix.job.size", WAIT),
        (&a, ProcId::new(na, Rank(0)), "mine", WAIT),
        (&a, ProcId::new(na, Rank(0)), "addr", WAIT),
        (&a, ProcId::new(na, Rank(0)), "addr", WAIT), // now from the cache
        (&a, ProcId::new(na, Rank(0)), "shm", local),
        (&b, ProcId::new(nb, Rank(0)), "addr", WAIT), // fence data
        (&b, ProcId::new(nb, Rank(3)), "nothing", optional), // not found
        (&a, ProcId::new(na, Rank(0)), "shm", remote), // outside scope
        (&a, ProcId::new(na, Rank(1)), "nothing", WAIT), // pending
        (&a, ProcId::new(na, Rank(2)), "nothing", WAIT), // forward
    ];
    // Two identical clients: one asks with `get`, the other with `get_with`.
    let mut by_get = Client::new(ProcId::new(na, Rank(0)));
    by_get.put(Scope::Internal, "mine", Value::I64(-5)).unwrap();
    let mut by_with = by_get.clone();
    let mut kinds = HashSet::new();
    for (store, target, key, opts) in cases {
        let want = by_get
            .get(store, target, key, &opts, Nanos::new(0))
            .unwrap();
        let got = by_with
            .get_with(store, target, key, &opts, Nanos::ZERO, |v| {
                (v.clone(), v.data_type())
            })
            .unwrap();
        if let (GetOutcome::Found(w), GetOutcome::Found((_, ty))) = (&want, &got) {
            assert_eq!(*ty, w.data_type(), "{key}");
        }
        assert_eq!(got.map(|(v, _)| v), want, "{key}");
        kinds.insert(std::mem::discriminant(&want));
    }
    assert_eq!(
        kinds.len(),
        5,
        "found, not found, outside scope, pending and forward were all asked"
    );
}

/// A re-registration that moves a process off the node: its node-only data is now outside
/// the scope a peer can see (the store's per-process on-node flag follows the new peer list).
#[test]
fn re_registration_moves_processes() {
    let mut a = NodeStore::new();
    let ns = a
        .register_job("job", &job(4, &[0, 1], 0, vec![0, 0, 1, 1]))
        .unwrap();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    p0.put(Scope::Local, "shm", Value::U32(7)).unwrap();
    p0.commit(&mut a).unwrap();
    let t = p0.id();
    let refresh = GetOptions {
        refresh_cache: true,
        ..WAIT
    };
    let mut p1 = Client::new(ProcId::new(ns, Rank(1)));
    assert_eq!(
        p1.get(&a, t, "shm", &refresh, Nanos::new(0)).unwrap(),
        found(Value::U32(7))
    );
    a.register_job("job", &job(4, &[1, 2], 0, vec![1, 0, 0, 1]))
        .unwrap();
    assert!(!a.is_local(t) && a.is_local(ProcId::new(ns, Rank(2))));
    assert_eq!(
        p1.get(&a, t, "shm", &refresh, Nanos::new(0)).unwrap(),
        GetOutcome::ExistsOutsideScope
    );
}

#[test]
fn job_info_from_a_node_map_and_a_placement() {
    use fabric_model::bridge::NodeMap;
    use fabric_model::{LinkRate, NodeId, Placement, generators, place};

    let t = NodeId::new;
    // Round robin over two terminals: ranks 1 and 3 on the second node.
    let map = NodeMap::new(&[t(5), t(9), t(5), t(9)]);
    let info = JobInfo::from_node_map(&map, 1, "b").unwrap();
    assert_eq!(info.local_peers, [Rank(1), Rank(3)]);
    assert_eq!((info.size, info.node_id, info.num_nodes), (4, 1, 2));
    assert_eq!(info.proc_nodes, Some(vec![0, 1, 0, 1]));
    assert_eq!(info.hostname, "b");
    assert!(matches!(
        JobInfo::from_node_map(&map, 2, "c"),
        Err(Error::UnknownNode { node: 2, .. })
    ));
    // The registered job answers what the placement says.
    let mut store = NodeStore::new();
    let ns = store.register_job("j", &info).unwrap();
    assert!(store.is_local(ProcId::new(ns, Rank(3))));
    assert!(!store.is_local(ProcId::new(ns, Rank(2))));

    let fabric = generators::single_switch(3, LinkRate::EDR_4X).unwrap();
    let ranks = place(fabric.terminals(), 6, 2, Placement::Block).unwrap();
    let last = JobInfo::from_placement(&fabric, &ranks, 2).unwrap();
    assert_eq!(last.local_peers, [Rank(4), Rank(5)]);
    assert_eq!(last.hostname, fabric.node(fabric.terminals()[2]).name);
    let names: Vec<String> = fabric.terminals()[..3]
        .iter()
        .map(|&t| fabric.node(t).name.clone())
        .collect();
    assert_eq!(last.node_hostnames, Some(names));
    assert!(JobInfo::from_placement(&fabric, &ranks, 3).is_err());
    // A placement on a terminal this fabric does not have.
    let foreign = [t(1000)];
    assert!(matches!(
        JobInfo::from_placement(&fabric, &foreign, 0),
        Err(Error::UnknownNode { node: 0, .. })
    ));
}

#[test]
fn job_info_setters() {
    let info = JobInfo::new(3, "h")
        .with_local_peers([Rank(2)])
        .with_node_id(4)
        .with_hostname("h2")
        .with_num_nodes(5)
        .with_proc_nodes(vec![0, 1, 4])
        .with_node_hostnames(vec!["a".into(), "b".into()])
        .with_extra("app.x", Value::U8(1));
    assert_eq!(
        info,
        JobInfo {
            size: 3,
            local_peers: vec![Rank(2)],
            node_id: 4,
            hostname: "h2".into(),
            num_nodes: 5,
            proc_nodes: Some(vec![0, 1, 4]),
            node_hostnames: Some(vec!["a".into(), "b".into()]),
            extra: vec![("app.x".into(), Value::U8(1))],
        }
    );
    let all_local = JobInfo::new(2, "n");
    assert_eq!(all_local.local_peers, [Rank(0), Rank(1)]);
    assert_eq!((all_local.node_id, all_local.num_nodes), (0, 1));
    assert_eq!(all_local.proc_nodes, None);
}

#[test]
fn local_peers_are_sorted_deduplicated_and_tested_by_rank() {
    let mut store = NodeStore::new();
    let info = JobInfo::new(10, "n").with_local_peers([Rank(7), Rank(2), Rank(7)]);
    let ns = store.register_job("j", &info).unwrap();
    let mut c = Client::new(ProcId::new(ns, Rank(2)));
    let wild = ProcId::new(ns, Rank::WILDCARD);
    let opts = GetOptions::default();
    let t = Nanos::ZERO;
    assert_eq!(
        c.get(&store, wild, keys::LOCAL_PEERS, &opts, t).unwrap(),
        found(Value::String("2,7".into()))
    );
    assert_eq!(
        c.get(&store, wild, keys::LOCAL_SIZE, &opts, t).unwrap(),
        found(Value::U32(2))
    );
    assert_eq!(
        c.get(&store, wild, keys::LOCALLDR, &opts, t).unwrap(),
        found(Value::Rank(Rank(2)))
    );
    for r in 0..12 {
        assert_eq!(
            store.is_local(ProcId::new(ns, Rank(r))),
            r == 2 || r == 7,
            "{r}"
        );
    }
    assert!(!store.is_local(wild));
    assert!(!store.is_local(ProcId::new(ns, Rank::UNDEF)));
    // Re-registered with other peers: the old ones are no longer local.
    store
        .register_job("j", &info.clone().with_local_peers([Rank(0)]))
        .unwrap();
    assert!(store.is_local(ProcId::new(ns, Rank(0))));
    assert!(!store.is_local(ProcId::new(ns, Rank(7))));
}

/// Regression: per-rank reserved keys of a rank on another node answer that rank's
/// node (its id, host name and local rank), not this node's; node rank and locality too.
#[test]
fn regress_reserved_keys_of_a_remote_rank_answer_its_node() {
    let (a, _, ns, _) = two_nodes();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    let mut g = |r: u32, key: &str| {
        p0.get(&a, ProcId::new(ns, Rank(r)), key, &WAIT, Nanos::ZERO)
            .unwrap()
    };
    let s = |h: &str| found(Value::String(h.into()));
    assert_eq!(g(2, keys::NODE_ID), found(Value::U32(1)));
    assert_eq!(g(3, keys::HOSTNAME), s("node1"));
    assert_eq!(g(1, keys::HOSTNAME), s("node0"));
    assert_eq!(g(1, keys::NODE_ID), found(Value::U32(0)));
    // Local ranks: the index on the rank's own node.
    assert_eq!(g(2, keys::LOCAL_RANK), found(Value::U16(0)));
    assert_eq!(g(3, keys::LOCAL_RANK), found(Value::U16(1)));
    assert_eq!(g(1, keys::LOCAL_RANK), found(Value::U16(1)));
    assert_eq!(g(3, keys::RANK), found(Value::Rank(Rank(3))));
    // The node rank of a rank on another node spans jobs this node does not know.
    assert_eq!(g(3, keys::NODE_RANK), GetOutcome::NotFound);
    use keys::locality;
    assert_eq!(
        g(1, keys::LOCALITY),
        found(Value::U16(locality::SHARE_NODE))
    );
    assert_eq!(g(2, keys::LOCALITY), found(Value::U16(locality::NONLOCAL)));
    // Without a process map a rank on another node has no known node: not found, never
    // this node's answer.
    let mut c = NodeStore::new();
    let info = JobInfo::new(4, "here").with_local_peers([Rank(0)]);
    let nc = c.register_job("j", &info).unwrap();
    let mut q = Client::new(ProcId::new(nc, Rank(0)));
    for key in [keys::NODE_ID, keys::HOSTNAME, keys::LOCAL_RANK] {
        let got = q.get(&c, ProcId::new(nc, Rank(2)), key, &WAIT, Nanos::ZERO);
        assert_eq!(got.unwrap(), GetOutcome::NotFound, "{key}");
    }
    let got = q.get(
        &c,
        ProcId::new(nc, Rank(0)),
        keys::HOSTNAME,
        &WAIT,
        Nanos::ZERO,
    );
    assert_eq!(got.unwrap(), s("here"));
}

/// `from_placement` fills every node's host name: a rank on another terminal answers that
/// terminal's name.
#[test]
fn from_placement_answers_peer_host_names() {
    use fabric_model::{LinkRate, Placement, generators, place};
    let fabric = generators::single_switch(2, LinkRate::EDR_4X).unwrap();
    let ranks = place(fabric.terminals(), 4, 2, Placement::Block).unwrap();
    let mut store = NodeStore::new();
    let info = JobInfo::from_placement(&fabric, &ranks, 0).unwrap();
    let ns = store.register_job("j", &info).unwrap();
    let mut p = Client::new(ProcId::new(ns, Rank(0)));
    let peer = ProcId::new(ns, Rank(3));
    let want = fabric.node(fabric.terminals()[1]).name.clone();
    assert_eq!(
        p.get(&store, peer, keys::HOSTNAME, &WAIT, Nanos::ZERO)
            .unwrap(),
        found(Value::String(want))
    );
}

/// Regression: the node rank counts across every job on the node (jobs in the order
/// they were first registered), where the local rank counts within one job.
#[test]
fn regress_node_rank_spans_the_jobs_on_the_node() {
    let mut store = NodeStore::new();
    let a = store
        .register_job(
            "a",
            &JobInfo::new(3, "n").with_local_peers([Rank(0), Rank(2)]),
        )
        .unwrap();
    let b = store.register_job("b", &JobInfo::new(2, "n")).unwrap();
    let mut p = Client::new(ProcId::new(b, Rank(1)));
    let mut g = |ns, r, key| {
        p.get(&store, ProcId::new(ns, Rank(r)), key, &WAIT, Nanos::ZERO)
            .unwrap()
    };
    assert_eq!(g(a, 0, keys::NODE_RANK), found(Value::U16(0)));
    assert_eq!(g(a, 2, keys::NODE_RANK), found(Value::U16(1)));
    assert_eq!(g(b, 0, keys::NODE_RANK), found(Value::U16(2)));
    assert_eq!(g(b, 1, keys::NODE_RANK), found(Value::U16(3)));
    assert_eq!(g(b, 1, keys::LOCAL_RANK), found(Value::U16(1)));
    // Re-registering job `a` keeps its place; a third job follows both.
    store
        .register_job("a", &JobInfo::new(3, "n").with_local_peers([Rank(1)]))
        .unwrap();
    let c = store.register_job("c", &JobInfo::new(1, "n")).unwrap();
    let mut p = Client::new(ProcId::new(b, Rank(1)));
    let mut g = |ns, r, key| {
        p.get(&store, ProcId::new(ns, Rank(r)), key, &WAIT, Nanos::ZERO)
            .unwrap()
    };
    assert_eq!(g(a, 1, keys::NODE_RANK), found(Value::U16(0)));
    assert_eq!(g(b, 0, keys::NODE_RANK), found(Value::U16(1)));
    assert_eq!(g(c, 0, keys::NODE_RANK), found(Value::U16(3)));
}

/// Regression: a get aimed at a rank that cannot hold data (a group rank, or one past
/// the job) is an error at once, whatever the key, instead of pending forever.
#[test]
fn regress_get_on_a_rank_that_holds_no_data_is_an_error() {
    let (a, _, ns, _) = two_nodes();
    let mut p0 = Client::new(ProcId::new(ns, Rank(0)));
    let forever = GetOptions::default();
    for rank in [
        Rank::LOCAL_PEERS,
        Rank::LOCAL_NODE,
        Rank::INVALID,
        Rank::VALID,
        Rank(4),
    ] {
        for key in ["addr", keys::HOSTNAME, keys::JOB_SIZE] {
            let e = p0
                .get(&a, ProcId::new(ns, rank), key, &forever, Nanos::ZERO)
                .unwrap_err();
            assert!(
                matches!(e, Error::BadRank { rank: r, .. } if r == rank),
                "{rank} {key}"
            );
            assert_eq!(e.status(), status::ERR_BAD_PARAM);
        }
    }
    // WILDCARD and UNDEF still wait for data that may come.
    for rank in [Rank::WILDCARD, Rank::UNDEF, Rank(3)] {
        let got = p0.get(&a, ProcId::new(ns, rank), "addr", &WAIT, Nanos::ZERO);
        assert!(matches!(
            got.unwrap(),
            GetOutcome::Pending { .. } | GetOutcome::Forward(_)
        ));
    }
}

/// Regression: an `Nspace` interned by another store is refused by every operation
/// that takes one, instead of reading whatever job this store has at that index (or pending
/// forever when it has none).
#[test]
fn regress_an_nspace_of_another_store_is_refused() {
    let mut a = NodeStore::new();
    let mut b = NodeStore::new();
    a.nspace("first").unwrap();
    let na = a.register_job("job", &JobInfo::new(2, "a")).unwrap();
    let nb = b.register_job("job", &JobInfo::new(2, "b")).unwrap();
    let foreign = ProcId::new(na, Rank(0));
    let mut p = Client::new(ProcId::new(nb, Rank(1)));
    let forever = GetOptions::default();
    for key in ["addr", keys::HOSTNAME] {
        let e = p.get(&b, foreign, key, &forever, Nanos::ZERO).unwrap_err();
        assert!(matches!(e, Error::ForeignNspace { .. }), "{key}: {e}");
        assert_eq!(e.status(), status::ERR_BAD_PARAM);
    }
    // The same index in a store that does have a job there: still refused.
    let n0 = a.lookup_nspace("first").unwrap();
    assert_eq!(n0.index(), nb.index());
    let e = p.get(
        &b,
        ProcId::new(n0, Rank::WILDCARD),
        keys::JOB_SIZE,
        &forever,
        Nanos::ZERO,
    );
    assert!(matches!(e, Err(Error::ForeignNspace { .. })));
    let mut stranger = Client::new(foreign);
    stranger.put(Scope::Global, "k", Value::U8(1)).unwrap();
    assert!(matches!(
        stranger.commit(&mut b),
        Err(Error::ForeignNspace { .. })
    ));
    assert!(matches!(
        b.fence_contribution(na, true),
        Err(Error::ForeignNspace { .. })
    ));
    assert!(!b.is_local(foreign));
    assert_eq!(b.nspace_name(na), None);
    // Its own store still takes it; so does a clone of that store.
    assert_eq!(a.nspace_name(na), Some("job"));
    assert!(a.clone().is_local(foreign));
}
