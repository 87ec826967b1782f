//! The end-to-end CRC32C. With the network flipping header and payload
//! bits, no transfer completes with wrong data while frames are checked; without the check
//! some do (so the property can fail).

#![cfg(feature = "sim")]

use fabric_model::{Bytes, Nanos};
use proptest::prelude::*;
use rdma_window::packet::{CHECKSUM_LEN, crc32c};
use rdma_window::sim::{Method, NetConfig, SimConfig};
use rdma_window::{Cid, Error, Packet};

fn cfg(header: f64, payload: f64, seed: u64, checksum: bool) -> SimConfig {
    SimConfig::new(vec![Bytes::new(300_000); 3])
        .with_net(
            NetConfig::default()
                .with_header_corruption(header)
                .with_payload_corruption(payload)
                .with_loss(0.01)
                .with_control_loss(true)
                .with_jitter(Nanos::new(1_000))
                .with_seed(seed),
        )
        .with_receive_contexts(2)
        .with_limit(Nanos::from_millis(50))
        .with_checksum(checksum)
}

#[test]
fn crc32c_check_value() {
    // RFC 3720's check value.
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
}

#[test]
fn every_single_bit_flip_of_a_checked_frame_is_refused() {
    let packets = [
        (
            Packet::Data {
                dcid: Cid::new(3, 9),
                psn: 77,
                len: 64,
            },
            vec![0xA5u8; 64],
        ),
        (
            Packet::Ack {
                scid: Cid::new(1, 2),
                wbase: 5,
            },
            vec![],
        ),
        (
            Packet::Req {
                scid: Cid::new(1, 2),
                src_node: 4,
                dst_addr: 0x1000,
                len: 9000,
                mtu: 4096,
                first_psn: 3,
            },
            vec![],
        ),
    ];
    for (p, payload) in packets {
        let mut frame = vec![0u8; p.frame_len(payload.len(), true)];
        let n = p.encode_frame(&payload, true, &mut frame).unwrap();
        assert_eq!(n, p.header_len() + payload.len() + CHECKSUM_LEN);
        let (q, got) = Packet::decode_frame(&frame, true).unwrap();
        assert_eq!((q, got), (p, payload.as_slice()));
        for bit in 0..n * 8 {
            let mut bad = frame.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(
                matches!(
                    Packet::decode_frame(&bad, true),
                    Err(Error::Checksum { .. })
                ),
                "{p:?}: flip of bit {bit} not caught"
            );
        }
        // Unchecked, the same frame without its trailer decodes as before.
        let (q, _) = Packet::decode_frame(&frame[..n - CHECKSUM_LEN], false).unwrap();
        assert_eq!(q, p);
    }
    assert!(matches!(
        Packet::decode_frame(&[1, 2, 3], true),
        Err(Error::Truncated { kind: "frame", .. })
    ));
}

/// Without the check, corruption makes transfers "complete" with wrong data (what the check
/// is for): the property below is not vacuous.
#[test]
fn without_the_check_corruption_completes_transfers_with_wrong_data() {
    let wrong: usize = (0..8)
        .map(|seed| {
            Method::Paper
                .run(&cfg(0.02, 0.02, seed, false))
                .unwrap()
                .completed_wrong()
        })
        .sum();
    assert!(wrong > 0, "no transfer completed with wrong data");
}

#[test]
fn with_the_check_every_transfer_completes_intact() {
    for seed in 0..4 {
        for m in [Method::Paper, Method::Improved] {
            let r = m.run(&cfg(0.02, 0.02, seed, true)).unwrap();
            assert!(r.finished, "{m:?} seed {seed}: {r}");
            assert!(r.tally.exactly_once(), "{m:?} seed {seed}: {r}");
            assert_eq!((r.completed_wrong(), r.tally.wrong()), (0, 0), "{r}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// With corruption on and frames checked, no transfer completes with wrong data, in
    /// either receiver mode: a corrupted packet is dropped and repaired like a lost one.
    #[test]
    fn no_transfer_completes_with_wrong_data(
        header in 0.0..0.05f64,
        payload in 0.0..0.05f64,
        seed in any::<u64>(),
        m in prop_oneof![Just(Method::Paper), Just(Method::Improved)],
    ) {
        let r = m.run(&cfg(header, payload, seed, true)).unwrap();
        prop_assert_eq!(r.completed_wrong(), 0, "{}", r);
        prop_assert_eq!(r.tally.wrong(), 0, "{}", r);
    }
}
