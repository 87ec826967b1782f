use super::*;
use proptest::prelude::*;

const ALGS: [Algorithm; 5] = [
    Algorithm::TREE,
    Algorithm::Tree { radix: 2 },
    Algorithm::Tree { radix: 3 },
    Algorithm::Ring,
    Algorithm::Bruck,
];

fn blobs(n: usize) -> Vec<Vec<u8>> {
    // Different sizes per node (allgatherv), including an empty one.
    (0..n).map(|i| vec![i as u8; i % 5]).collect()
}

#[test]
fn every_node_ends_with_every_blob_for_1_to_64_nodes() {
    for n in 1..=64 {
        for alg in ALGS {
            let input = blobs(n);
            let r = simulate(alg, input.clone(), true).unwrap();
            for (i, got) in r.blobs.iter().enumerate() {
                assert_eq!(got, &input, "{alg:?} n={n} node {i}");
            }
            let (rounds, messages) = match alg {
                Algorithm::Ring => (n as u32 - 1, (n * (n - 1)) as u64),
                Algorithm::Bruck => (ceil_log2(n), (n as u64) * u64::from(ceil_log2(n))),
                Algorithm::Tree { radix } => (2 * tree_height(n, radix), 2 * (n as u64 - 1)),
            };
            assert_eq!(r.rounds, rounds, "{alg:?} n={n} rounds");
            assert_eq!(r.messages, messages, "{alg:?} n={n} messages");
        }
    }
}

#[test]
fn barrier_only_moves_no_data() {
    for n in [1, 2, 7, 16, 17] {
        for alg in ALGS {
            let r = simulate(alg, blobs(n), false).unwrap();
            assert!(r.blobs.iter().flatten().all(Vec::is_empty));
            assert!(r.per_round.iter().flatten().all(|s| s.2 == 0 && s.3 == 0));
        }
    }
}

#[test]
fn bruck_rounds_are_ceil_log2() {
    assert_eq!(ceil_log2(1), 0);
    assert_eq!(ceil_log2(2), 1);
    assert_eq!(ceil_log2(3), 2);
    assert_eq!(ceil_log2(64), 6);
    assert_eq!(ceil_log2(65), 7);
    assert_eq!(ceil_log2(108), 7);
    assert_eq!(tree_height(1, 16), 0);
    assert_eq!(tree_height(17, 16), 1);
    assert_eq!(tree_height(18, 16), 2);
    assert_eq!(tree_height(7, 2), 2);
}

/// Delivers messages in a seeded random order (not lock-step): the result does not depend on
/// the order.
fn run_shuffled(alg: Algorithm, input: &[Vec<u8>], seed: u64) -> Vec<Vec<Vec<u8>>> {
    let n = input.len();
    let mut nodes: Vec<FenceNode> = input
        .iter()
        .enumerate()
        .map(|(i, b)| FenceNode::new(alg, i, n, b.clone(), true).unwrap())
        .collect();
    let mut pending: Vec<(usize, Transmit)> = Vec::new();
    let mut state = seed | 1;
    loop {
        for (i, node) in nodes.iter_mut().enumerate() {
            while let Some(t) = node.poll_transmit() {
                pending.push((i, t));
            }
        }
        if pending.is_empty() {
            break;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let (from, t) = pending.swap_remove((state % pending.len() as u64) as usize);
        nodes[t.to].handle(from, t.message).unwrap();
    }
    assert!(nodes.iter().all(FenceNode::is_complete));
    nodes.into_iter().map(|n| n.into_blobs().unwrap()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn any_delivery_order_completes(n in 1usize..40, seed: u64, alg in 0usize..5) {
        let input = blobs(n);
        for got in run_shuffled(ALGS[alg], &input, seed) {
            prop_assert_eq!(&got, &input);
        }
    }
}

#[test]
fn model_matches_the_simulated_rounds() {
    // 3 µs and 100 bytes per µs (800 Mb/s): β = 0.01 µs per byte.
    let ab = AlphaBeta::new(Nanos::from_micros(3), BitsPerSec::new(800_000_000));
    assert_eq!((ab.alpha_us(), ab.beta_us_per_byte()), (3.0, 0.01));
    let m = 10u64;
    for n in 1..=40 {
        for alg in ALGS {
            let r = simulate(alg, vec![vec![7; m as usize]; n], true).unwrap();
            let mc = model(alg, n, Bytes::new(m), ab).unwrap();
            assert_eq!(mc.rounds, r.rounds, "{alg:?} {n}");
            assert_eq!(mc.messages, r.messages, "{alg:?} {n}");
            let time: f64 = r
                .per_round
                .iter()
                .map(|round| {
                    round
                        .iter()
                        .map(|&(sm, rm, sb, rb)| {
                            f64::from(sm.max(rm)) * ab.alpha_us()
                                + sb.max(rb) as f64 * ab.beta_us_per_byte()
                        })
                        .fold(0.0, f64::max)
                })
                .sum();
            assert!(
                (time - mc.time_us).abs() < 1e-6,
                "{alg:?} n={n}: sim {time} model {}",
                mc.time_us
            );
            let mut sent = vec![0u64; n];
            let mut recv = vec![0u64; n];
            for round in &r.per_round {
                for (i, s) in round.iter().enumerate() {
                    sent[i] += s.2;
                    recv[i] += s.3;
                }
            }
            let max = sent
                .iter()
                .zip(&recv)
                .map(|(a, b)| *a.max(b))
                .max()
                .unwrap_or(0);
            assert_eq!(
                mc.max_bytes_per_node,
                Bytes::new(max),
                "{alg:?} n={n} bytes"
            );
        }
    }
}

#[test]
fn model_scales_to_100k_nodes_and_orders_the_algorithms() {
    let ab = AlphaBeta::default();
    let n = 100_000;
    let ring = model(Algorithm::Ring, n, Bytes::new(64), ab).unwrap();
    let bruck = model(Algorithm::Bruck, n, Bytes::new(64), ab).unwrap();
    let tree = model(Algorithm::TREE, n, Bytes::new(64), ab).unwrap();
    assert_eq!(bruck.rounds, 17);
    assert_eq!(ring.rounds, 99_999);
    // Bruck moves the same bytes as the ring in log rounds: never slower than either.
    assert!(bruck.time_us < ring.time_us);
    assert!(bruck.time_us < tree.time_us);
    assert_eq!(
        model(Algorithm::Ring, 0, Bytes::new(1), ab),
        Err(Error::BadFenceShape { node: 0, nodes: 0 })
    );
}

#[test]
fn bad_shapes_and_messages_are_refused() {
    assert_eq!(
        FenceNode::new(Algorithm::Ring, 3, 3, vec![], true).unwrap_err(),
        Error::BadFenceShape { node: 3, nodes: 3 }
    );
    assert_eq!(
        FenceNode::new(Algorithm::Tree { radix: 1 }, 0, 3, vec![], true).unwrap_err(),
        Error::BadRadix { radix: 1 }
    );
    assert_eq!(
        simulate(Algorithm::Ring, vec![], true).unwrap_err(),
        Error::BadFenceShape { node: 0, nodes: 0 }
    );
    let msg = |round, origin| Message {
        round,
        blocks: vec![Block {
            origin,
            data: vec![1],
        }],
    };
    let mut ring = FenceNode::new(Algorithm::Ring, 1, 4, vec![], true).unwrap();
    assert!(matches!(
        ring.handle(2, msg(0, 2)),
        Err(Error::BadFenceMessage {
            node: 1,
            from: 2,
            ..
        })
    ));
    assert!(matches!(
        ring.handle(0, msg(0, 3)),
        Err(Error::BadFenceMessage { .. })
    ));
    assert!(matches!(
        ring.handle(0, msg(3, 1)),
        Err(Error::BadFenceMessage { .. })
    ));
    assert!(matches!(
        ring.handle(9, msg(0, 0)),
        Err(Error::BadFenceMessage { .. })
    ));
    ring.handle(0, msg(0, 0)).unwrap();
    assert!(
        matches!(
            ring.handle(0, msg(0, 0)),
            Err(Error::BadFenceMessage { .. })
        ),
        "repeat"
    );
    assert!(!ring.is_complete());
    assert!(ring.clone().into_blobs().is_err());
    let mut bruck = FenceNode::new(Algorithm::Bruck, 0, 5, vec![], true).unwrap();
    assert!(
        matches!(
            bruck.handle(2, msg(0, 2)),
            Err(Error::BadFenceMessage { .. })
        ),
        "round 0 comes from node 1"
    );
    assert!(matches!(
        bruck.handle(1, msg(5, 1)),
        Err(Error::BadFenceMessage { .. })
    ));
    let mut tree = FenceNode::new(Algorithm::Tree { radix: 2 }, 1, 7, vec![], true).unwrap();
    assert!(
        matches!(
            tree.handle(5, msg(0, 5)),
            Err(Error::BadFenceMessage { .. })
        ),
        "5 is 2's child"
    );
    assert!(
        matches!(
            tree.handle(3, msg(0, 4)),
            Err(Error::BadFenceMessage { .. })
        ),
        "wrong subtree"
    );
}

#[test]
fn statistics_display_for_users() {
    let r = simulate(Algorithm::Bruck, vec![vec![1u8; 10]; 4], true).unwrap();
    // 2 rounds; per node 1 + 2 blocks sent: (8 + 8 + 10) + (8 + 2 × (8 + 10)) = 70 B.
    assert_eq!(
        r.to_string(),
        "4 nodes: 2 rounds, 8 messages, at most 70 B sent or received by a node"
    );
    let m = model(Algorithm::Bruck, 4, Bytes::new(10), AlphaBeta::default()).unwrap();
    assert_eq!(
        m.to_string(),
        "2 rounds, 8 messages, at most 30 B a node, 4.0 us"
    );
    assert_eq!(m.time(), Some(Nanos::new(4_002)));
    assert_eq!(Algorithm::TREE.to_string(), "tree (radix 16)");
    assert_eq!(Algorithm::Bruck.to_string(), "bruck");
}
