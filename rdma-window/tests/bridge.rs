//! The bridge from fabric-model: the simulator's link is a fabric link's rate and latency.

#![cfg(feature = "sim")]

use fabric_model::{BitsPerSec, Bytes, LinkRate, LinkSpeed, LinkWidth, Nanos};
use rdma_window::sim::{Method, NetConfig, SimConfig};

#[test]
fn a_generated_fabrics_link_sets_the_simulated_link() {
    let rate = LinkRate {
        width: LinkWidth::X4,
        speed: LinkSpeed::Hdr,
    };
    let fabric = fabric_model::generators::single_switch(2, rate).expect("two terminals");
    let link = &fabric.links()[0];
    let net = NetConfig::from_link(link);
    assert_eq!(net.rate, BitsPerSec::from_gbps(200));
    assert_eq!(net.latency, link.latency);
    // Everything else is the default link's.
    let default = NetConfig::default();
    assert_eq!(
        net.with_rate(default.rate).with_latency(default.latency),
        default
    );
    // The same from a setter, on a lossy link.
    let lossy = NetConfig::default().with_loss(1e-3).with_link(link);
    assert_eq!(
        (lossy.rate, lossy.latency, lossy.loss),
        (net.rate, net.latency, 1e-3)
    );

    // The simulator runs at that rate and latency: 4096 + 14 + 82 bytes at 200 Gb/s take
    // 167.68 ns, rounded to 168 ns; the ideal is 4 one-way latencies plus 256 packet times.
    let mut cfg = SimConfig::new(vec![Bytes::from_mib(1)]);
    cfg.net = net;
    assert_eq!(net.serialization(Bytes::new(4110)), Nanos::new(168));
    assert_eq!(cfg.ideal(), Nanos::new(4 * link.latency.get() + 256 * 168));
    let r = Method::Paper.run(&cfg).unwrap();
    assert!(r.finished && r.tally.exactly_once(), "{r}");
    assert!(r.completion >= cfg.ideal(), "{r}");
    // Half the rate of the default 400 Gb/s link: the 1 MiB takes longer on it.
    let fast = Method::Paper
        .run(
            &SimConfig::new(vec![Bytes::from_mib(1)])
                .with_net(net.with_rate(BitsPerSec::from_gbps(400))),
        )
        .unwrap();
    assert!(fast.completion < r.completion);
}
