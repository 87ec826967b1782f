use super::*;
use proptest::prelude::*;

fn req(node: Option<u32>) -> DmodexRequest {
    DmodexRequest {
        nspace: "job".into(),
        rank: Rank::new(300),
        key: "addr".into(),
        node,
    }
}

#[test]
fn requests_and_answers_have_the_documented_bytes() {
    assert_eq!(
        req(Some(2)).encode().unwrap(),
        [
            b'Q', 1, 1, 3, b'j', b'o', b'b', 0xAC, 0x02, 4, b'a', b'd', b'd', b'r', 2
        ]
    );
    assert_eq!(
        req(None).encode().unwrap(),
        [
            b'Q', 1, 0, 3, b'j', b'o', b'b', 0xAC, 0x02, 4, b'a', b'd', b'd', b'r'
        ]
    );
    assert_eq!(DmodexAnswer::NotYet.encode(), [b'A', 1, 1]);
    assert_eq!(DmodexAnswer::OutsideScope.encode(), [b'A', 1, 2]);
    assert_eq!(DmodexAnswer::Data(vec![9, 8]).encode(), [b'A', 1, 0, 9, 8]);
}

#[test]
fn bad_requests_name_the_field() {
    let good = req(Some(2)).encode().unwrap();
    let cases: Vec<(Vec<u8>, Error)> = vec![
        (
            vec![],
            Error::Truncated {
                what: "direct-modex magic",
                offset: 0,
                needed: 1,
            },
        ),
        (
            [b'A', 1, 0].to_vec(),
            Error::BadHeader {
                offset: 0,
                reason: "not a direct-modex request (bad magic)",
            },
        ),
        (
            [b'Q', 2, 0].to_vec(),
            Error::BadHeader {
                offset: 1,
                reason: "unknown direct-modex wire version",
            },
        ),
        (
            [b'Q', 1, 2].to_vec(),
            Error::BadHeader {
                offset: 2,
                reason: "unknown direct-modex request flags",
            },
        ),
        (
            [b'Q', 1, 0, 0].to_vec(),
            Error::OutOfRange {
                what: "request namespace",
                offset: 3,
            },
        ),
        (
            [b'Q', 1, 0, 1, 0xFF].to_vec(),
            Error::BadUtf8 {
                what: "request namespace",
                offset: 4,
            },
        ),
        (
            // Rank 2^32: beyond u32.
            [b'Q', 1, 0, 1, b'j', 0x80, 0x80, 0x80, 0x80, 0x10, 1, b'k'].to_vec(),
            Error::OutOfRange {
                what: "request rank",
                offset: 5,
            },
        ),
        (
            // A key length past the input.
            [b'Q', 1, 0, 1, b'j', 0, 9, b'k'].to_vec(),
            Error::OutOfRange {
                what: "request key",
                offset: 6,
            },
        ),
        (
            good[..good.len() - 1].to_vec(),
            Error::Truncated {
                what: "request node",
                offset: good.len() - 1,
                needed: 1,
            },
        ),
        (
            [good.as_slice(), &[0]].concat(),
            Error::Trailing {
                offset: good.len(),
                extra: 1,
            },
        ),
    ];
    for (bytes, want) in cases {
        assert_eq!(DmodexRequest::decode(&bytes), Err(want), "{bytes:?}");
    }
}

#[test]
fn bad_answers_name_the_field() {
    assert_eq!(
        DmodexAnswer::decode(&[b'A', 1, 3]),
        Err(Error::OutOfRange {
            what: "direct-modex answer status",
            offset: 2
        })
    );
    assert_eq!(
        DmodexAnswer::decode(&[b'A', 1, 2, 0]),
        Err(Error::Trailing {
            offset: 3,
            extra: 1
        })
    );
    assert_eq!(
        DmodexAnswer::decode(&[b'A', 7, 2]),
        Err(Error::BadHeader {
            offset: 1,
            reason: "unknown direct-modex wire version"
        })
    );
    assert_eq!(
        DmodexAnswer::decode(&[b'Q', 1, 2]),
        Err(Error::BadHeader {
            offset: 0,
            reason: "not a direct-modex answer (bad magic)"
        })
    );
    assert!(matches!(
        DmodexAnswer::decode(&[b'A', 1]),
        Err(Error::Truncated { offset: 2, .. })
    ));
    assert_eq!(
        DmodexAnswer::decode(&[b'A', 1, 0]),
        Ok(DmodexAnswer::Data(vec![]))
    );
}

#[test]
fn requests_the_layout_cannot_carry_are_refused() {
    let mut r = req(None);
    r.nspace = String::new();
    assert_eq!(r.encode(), Err(Error::BadNspaceLength { len: 0 }));
    r.nspace = "n".repeat(256);
    assert_eq!(r.encode(), Err(Error::BadNspaceLength { len: 256 }));
    r.nspace = "job".into();
    r.key = "k".repeat(512);
    assert_eq!(r.encode(), Err(Error::BadKeyLength { len: 512 }));
}

proptest! {
    /// Every request and answer decodes back to itself, and re-encodes to the same bytes.
    #[test]
    fn round_trips(
        nspace in "[a-z0-9.]{1,40}",
        rank in any::<u32>(),
        key in "[a-zA-Z_.]{1,60}",
        node in proptest::option::of(any::<u32>()),
        data in proptest::collection::vec(any::<u8>(), 0..64),
        which in 0u8..3,
    ) {
        let r = DmodexRequest { nspace, rank: Rank::new(rank), key, node };
        let bytes = r.encode().unwrap();
        prop_assert_eq!(DmodexRequest::decode(&bytes).unwrap(), r);
        let a = match which {
            0 => DmodexAnswer::Data(data),
            1 => DmodexAnswer::NotYet,
            _ => DmodexAnswer::OutsideScope,
        };
        let bytes = a.encode();
        prop_assert_eq!(DmodexAnswer::decode(&bytes).unwrap(), a);
    }

    /// Arbitrary bytes never panic either decoder.
    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(r) = DmodexRequest::decode(&bytes) {
            prop_assert_eq!(r.encode().unwrap(), bytes.clone());
        }
        if let Ok(a) = DmodexAnswer::decode(&bytes) {
            prop_assert_eq!(a.encode(), bytes);
        }
    }
}
