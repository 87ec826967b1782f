//! A node's processes (threads here) share one `NodeStore` through the 2N-lock: each commits
//! under the write lock and reads its peers' data through its own reader slot, waiting
//! (`Pending`) until the peer has committed.

use std::thread;

use fabric_model::Nanos;
use pmix_kvs::lock::TwoNLock;
use pmix_kvs::{Client, GetOptions, GetOutcome, JobInfo, NodeStore, ProcId, Rank, Scope, Value};

#[test]
fn processes_share_the_node_store_through_the_2n_lock() {
    const PROCS: u32 = 3;
    let mut store = NodeStore::new();
    let ns = store
        .register_job("job", &JobInfo::new(PROCS, "n0"))
        .unwrap();
    let shared = TwoNLock::new(store, PROCS as usize).unwrap();
    thread::scope(|s| {
        for r in 0..PROCS {
            let shared = &shared;
            s.spawn(move || {
                let mut me = Client::new(ProcId::new(ns, Rank::new(r)));
                me.put(Scope::Local, "endpoint", Value::U32(100 + r))
                    .unwrap();
                me.commit(&mut shared.write()).unwrap();
                let mut slot = shared.reader().unwrap();
                let wait = GetOptions::default();
                for peer in 0..PROCS {
                    let target = ProcId::new(ns, Rank::new(peer));
                    loop {
                        let out = me
                            .get(&slot.read(), target, "endpoint", &wait, Nanos::ZERO)
                            .unwrap();
                        match out {
                            GetOutcome::Found(v) => {
                                assert_eq!(v, Value::U32(100 + peer));
                                break;
                            }
                            GetOutcome::Pending { deadline: None } => thread::yield_now(),
                            other => panic!("unexpected {other:?}"),
                        }
                    }
                }
            });
        }
    });
    assert!(shared.reader().is_ok(), "every slot was given back");
}
