//! The simulator's configuration: every field that sizes an allocation or a timer is checked
//! against its documented bound, and a refused configuration is an error naming the field,
//! from every method, before anything is simulated. Each case below used to panic (a
//! division by zero, an overflow, an `expect` on the endpoints' configuration) or to
//! allocate without bound (a tally of 2^52 packets, a loss burst kept for every few
//! nanoseconds simulated).

#![cfg(feature = "sim")]

use fabric_model::{BitsPerSec, Bytes, Nanos};
use rdma_window::Error;
use rdma_window::config::{MAX_CONTEXTS, MAX_INTERVAL};
use rdma_window::sim::{MAX_MTU, MAX_RUN_PACKETS, Method, NetConfig, SimConfig};

const ALL: [Method; 7] = [
    Method::Paper,
    Method::Improved,
    Method::ImprovedW256,
    Method::ImprovedNoSpeculation,
    Method::GoBackN,
    Method::Irn,
    Method::WholeTransfer,
];

fn base() -> SimConfig {
    SimConfig::new(vec![Bytes::from_kib(64)])
}

/// The field and reason every method gives for `cfg` (all the same), or `None` when it is
/// accepted.
fn refused(cfg: &SimConfig) -> Option<(&'static str, &'static str)> {
    let want = match cfg.validate() {
        Ok(()) => None,
        Err(Error::Config { field, reason }) => Some((field, reason)),
        Err(other) => panic!("not a configuration error: {other}"),
    };
    if let Some((field, reason)) = want {
        for m in ALL {
            assert_eq!(m.run(cfg), Err(Error::Config { field, reason }), "{m:?}");
        }
    }
    want
}

const PROBABILITY: &str = "must be a probability in [0, 1]";
const INTERVAL: &str = "must be at most MAX_INTERVAL (2^62 ns)";
const TOO_BIG: Nanos = Nanos::new(MAX_INTERVAL.get() + 1);

#[test]
fn simulator_fields_are_checked_by_name() {
    let net = NetConfig::default();
    let cases: Vec<(SimConfig, Option<(&str, &str)>)> = vec![
        (base(), None),
        (
            base().with_mtu(0),
            Some(("mtu", "must be 1 ..= MAX_MTU (65536)")),
        ),
        (
            base().with_mtu(MAX_MTU + 1),
            Some(("mtu", "must be 1 ..= MAX_MTU (65536)")),
        ),
        (base().with_mtu(MAX_MTU), None),
        (
            SimConfig::new(vec![Bytes::ZERO]),
            Some(("transfers", "must all be at least one byte long")),
        ),
        (
            SimConfig::new(vec![Bytes::new(u64::MAX)]),
            Some((
                "transfers",
                "must have at most MAX_RUN_PACKETS (2^22) packets together",
            )),
        ),
        (
            SimConfig::new(vec![Bytes::new(1); MAX_CONTEXTS + 1]),
            Some((
                "transfers",
                "must be at most MAX_CONTEXTS (65536) transfers",
            )),
        ),
        (
            base().with_receive_contexts(0),
            Some(("receive_contexts", "must be 1 ..= MAX_CONTEXTS (65536)")),
        ),
        (
            base().with_receive_contexts(MAX_CONTEXTS + 1),
            Some(("receive_contexts", "must be 1 ..= MAX_CONTEXTS (65536)")),
        ),
        (
            base().with_timeout(Nanos::new(1)),
            Some(("timeout", "must be 2 ns ..= MAX_INTERVAL / 4")),
        ),
        (
            base().with_timeout(Nanos::MAX),
            Some(("timeout", "must be 2 ns ..= MAX_INTERVAL / 4")),
        ),
        (
            base().with_retry(Nanos::ZERO),
            Some(("retry", "must be above zero")),
        ),
        (
            base().with_reorder_tolerance(TOO_BIG),
            Some(("reorder_tolerance", INTERVAL)),
        ),
        (base().with_limit(TOO_BIG), Some(("limit", INTERVAL))),
        (
            base().with_net(net.with_rate(BitsPerSec::ZERO)),
            Some(("net.rate", "must be above zero")),
        ),
        (
            base().with_net(net.with_loss(f64::NAN)),
            Some(("net.loss", PROBABILITY)),
        ),
        (
            base().with_net(net.with_loss(1.5)),
            Some(("net.loss", PROBABILITY)),
        ),
        (
            base().with_net(net.with_duplication(-0.1)),
            Some(("net.duplication", PROBABILITY)),
        ),
        (
            base().with_net(net.with_bursts(Nanos::new(10), Nanos::new(10), 2.0)),
            Some(("net.burst_loss", PROBABILITY)),
        ),
        (
            base().with_net(net.with_header_corruption(f64::NAN)),
            Some(("net.header_corruption", PROBABILITY)),
        ),
        (
            base().with_net(net.with_payload_corruption(1.01)),
            Some(("net.payload_corruption", PROBABILITY)),
        ),
        (
            base().with_net(net.with_latency(TOO_BIG)),
            Some(("net.latency", INTERVAL)),
        ),
        (
            base().with_net(net.with_jitter(TOO_BIG)),
            Some(("net.jitter", INTERVAL)),
        ),
        (
            base().with_net(net.with_bursts(TOO_BIG, Nanos::new(1), 0.5)),
            Some(("net.burst_every", INTERVAL)),
        ),
        (
            base().with_net(net.with_overhead_bytes(MAX_MTU + 1)),
            Some(("net.overhead_bytes", "must be at most MAX_MTU (65536)")),
        ),
    ];
    for (cfg, want) in cases {
        assert_eq!(refused(&cfg), want, "{cfg:?}");
    }
}

#[test]
fn the_bounds_themselves_are_accepted() {
    // Exactly MAX_RUN_PACKETS packets over several transfers (not run: 16 GiB).
    let per = MAX_RUN_PACKETS / 4 * 4096;
    let big = SimConfig::new(vec![Bytes::new(per); 4]);
    assert_eq!(big.packets(), MAX_RUN_PACKETS);
    assert_eq!(big.validate(), Ok(()));
    let over = SimConfig::new(vec![Bytes::new(per), Bytes::new(per * 3 + 1)]);
    assert!(over.validate().is_err());
    // A certain loss is a configuration, not an error: the run stops unfinished.
    let mut lossy = base().with_limit(Nanos::from_millis(5));
    lossy.net = lossy.net.with_loss(1.0);
    for m in [Method::Paper, Method::GoBackN] {
        let r = m.run(&lossy).unwrap();
        assert!(!r.finished, "{m:?}: {r}");
    }
    let timers = base()
        .with_timeout(Nanos::new(MAX_INTERVAL.get() / 4))
        .with_limit(MAX_INTERVAL)
        .with_reorder_tolerance(MAX_INTERVAL)
        .with_retry(MAX_INTERVAL);
    assert!(Method::Paper.run(&timers).unwrap().finished);
}

/// `packets` and `ideal` answer for any configuration, `validate`'s refusals included
/// (they divided by a zero `mtu` and subtracted one from a transfer of no packets).
#[test]
fn packets_and_ideal_answer_for_any_configuration() {
    let zero = base().with_mtu(0);
    assert_eq!(zero.packets(), u64::MAX);
    assert_eq!(zero.ideal(), Nanos::MAX);
    let empty = SimConfig::new(vec![Bytes::ZERO, Bytes::new(4096)]);
    assert_eq!(empty.packets(), 1);
    assert_eq!(
        empty.ideal(),
        SimConfig::new(vec![Bytes::new(4096)]).ideal()
    );
    let huge = SimConfig::new(vec![Bytes::new(u64::MAX); 3]).with_mtu(1);
    assert_eq!(huge.packets(), u64::MAX);
    assert_eq!(huge.ideal(), Nanos::MAX);
}

/// A run that can never finish, with a timer of 2 ns and a limit 146 years away, stops
/// after its bounded number of turns (it would otherwise take some 10^18 of them).
#[test]
fn a_run_that_never_finishes_stops_after_its_bounded_turns() {
    let cfg = base()
        .with_net(NetConfig::default().with_loss(1.0).with_control_loss(true))
        .with_timeout(Nanos::new(2))
        .with_limit(MAX_INTERVAL);
    for m in [Method::Paper, Method::GoBackN] {
        let r = m.run(&cfg).unwrap();
        assert!(!r.finished, "{m:?}: {r}");
        assert!(r.completion < Nanos::from_millis(100), "{m:?}: {r}");
    }
}
