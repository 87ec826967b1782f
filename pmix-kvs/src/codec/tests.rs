use super::*;
use crate::workload::{ModexShape, modex_blob};
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<u8>().prop_map(Value::Byte),
        ".{0,12}".prop_map(Value::String),
        any::<u64>().prop_map(Value::Size),
        any::<u32>().prop_map(Value::Pid),
        any::<i8>().prop_map(Value::I8),
        any::<i16>().prop_map(Value::I16),
        any::<i32>().prop_map(Value::I32),
        any::<i64>().prop_map(Value::I64),
        any::<u8>().prop_map(Value::U8),
        any::<u16>().prop_map(Value::U16),
        any::<u32>().prop_map(Value::U32),
        any::<u64>().prop_map(Value::U64),
        any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))),
        any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))),
        ("[a-z.]{0,20}", any::<u32>()).prop_map(|(nspace, r)| Value::Proc {
            nspace,
            rank: Rank(r)
        }),
        proptest::collection::vec(any::<u8>(), 0..24).prop_map(Value::Bytes),
        any::<u32>().prop_map(|r| Value::Rank(Rank(r))),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        proptest::collection::vec(inner, 0..4).prop_map(Value::Array)
    })
}

fn blob() -> impl Strategy<Value = FenceBlob> {
    (
        "[a-z0-9.]{1,24}",
        any::<bool>(),
        proptest::collection::btree_map(
            0u32..10_000,
            proptest::collection::vec(("[a-z]{1,6}", value()), 0..5),
            0..6,
        ),
    )
        .prop_map(|(nspace, collect, m)| FenceBlob {
            nspace,
            collect,
            entries: m
                .into_iter()
                .map(|(r, kvs)| ProcEntry { rank: Rank(r), kvs })
                .collect(),
        })
}

fn layouts() -> [Layout; 5] {
    [
        Layout::Naive,
        Layout::Compact(CompactOptions::default()),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Leb128,
            shared_prefix: false,
        }),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Flex128,
            shared_prefix: true,
        }),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Flex128,
            shared_prefix: false,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn decode_inverts_encode(b in blob()) {
        for layout in layouts() {
            let bytes = encode(&b, layout)?;
            prop_assert_eq!(&decode(&bytes)?, &b, "{:?}", layout);
        }
    }

    #[test]
    fn every_truncation_and_extension_is_an_error(b in blob(), extra in any::<u8>()) {
        for layout in layouts() {
            let bytes = encode(&b, layout)?;
            for cut in 0..bytes.len() {
                prop_assert!(decode(&bytes[..cut]).is_err(), "{:?} cut at {}", layout, cut);
            }
            let mut longer = bytes.clone();
            longer.push(extra);
            prop_assert_eq!(decode(&longer), Err(Error::Trailing { offset: bytes.len(), extra: 1 }));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64), layout in 1u8..3, flags in 0u8..8) {
        let mut input = vec![MAGIC, layout, flags];
        input.extend_from_slice(&data);
        crate::fuzz_harness::blob_decode(&input);
    }
}

fn sample() -> FenceBlob {
    FenceBlob {
        nspace: "ns".into(),
        collect: true,
        entries: vec![
            ProcEntry {
                rank: Rank(3),
                kvs: vec![
                    ("a".into(), Value::U32(300)),
                    ("b".into(), Value::I16(-150)),
                ],
            },
            ProcEntry {
                rank: Rank(4),
                kvs: vec![("a".into(), Value::U32(1))],
            },
        ],
    }
}

#[test]
fn compact_bytes_are_as_specified() {
    let o = CompactOptions {
        ints: IntEncoding::Leb128,
        shared_prefix: false,
    };
    let bytes = encode(&sample(), Layout::Compact(o)).unwrap();
    let expected = [
        b'P', 2, 1, // header: magic, compact, collect
        2, b'n', b's', // namespace
        2, 1, b'a', 1, b'b', // key table
        2,    // entries
        3, 2, // rank 3 (delta 3), two pairs
        0, 14, 0xac, 0x02, // key 0, UINT32, 300 in LEB128
        1, 8, 0xab, 0x02, // key 1, INT16, -150 zig-zag
        0, 1, // rank 4 (delta 0), one pair
        0, 14, 1, // key 0, UINT32, 1
    ];
    assert_eq!(bytes, expected);
}

#[test]
fn naive_bytes_are_as_specified() {
    let b = FenceBlob {
        nspace: "ns".into(),
        collect: false,
        entries: vec![ProcEntry {
            rank: Rank(3),
            kvs: vec![("a".into(), Value::U32(300))],
        }],
    };
    let bytes = encode(&b, Layout::Naive).unwrap();
    let expected = [
        b'P', 1, 0, // header
        0, 0, 0, 2, b'n', b's', // namespace
        0, 0, 0, 1, // entries
        0, 0, 0, 2, b'n', b's', 0, 0, 0, 3, // entry: namespace and rank
        0, 0, 0, 1, // pairs
        0, 0, 0, 1, b'a', 0, 14, 0, 0, 1, 44, // key, UINT32, 300
    ];
    assert_eq!(bytes, expected);
}

#[test]
fn key_table_costs_s_plus_len_once_and_an_index_per_process() {
    // Paper §4.2.2 (2): N(s+4) bytes of keys naive, (s+4)+4N with a table (here the length
    // and the index are one LEB128 byte each).
    let s = 16;
    let size = |n: u32, layout| {
        let blob = modex_blob(&ModexShape {
            ranks: n,
            keys_per_rank: 1,
            key_len: s,
            value_len: (0, 0),
            ..ModexShape::default()
        });
        encode(&blob, layout).unwrap().len()
    };
    let naive_per_proc = size(11, Layout::Naive) - size(10, Layout::Naive);
    let compact = Layout::Compact(CompactOptions::default());
    let compact_per_proc = size(11, compact) - size(10, compact);
    // naive: namespace (4+20) + rank 4 + count 4 + key (4+16) + type 2 + length 4.
    assert_eq!(naive_per_proc, 24 + 4 + 4 + (s + 4) + 2 + 4);
    // compact: rank delta 1 + count 1 + key index 1 + type 1 + length 1.
    assert_eq!(compact_per_proc, 5);
}

#[test]
fn compact_blob_is_at_most_40_percent_of_naive_for_the_paper_shape() {
    // 128 ranks × 8 keys of 16 bytes, values of 21–51 bytes whose last 21 bytes differ per
    // process (UCX addresses: §4.2.1's 51 B → 21 B).
    let blob = modex_blob(&ModexShape::default());
    let naive = encode(&blob, Layout::Naive).unwrap().len();
    let compact = encode(&blob, Layout::Compact(CompactOptions::default()))
        .unwrap()
        .len();
    assert!(
        compact * 100 <= naive * 40,
        "compact {compact} B vs naive {naive} B"
    );
    // Without the shared prefix the values dominate and the ratio is larger.
    let no_prefix = encode(
        &blob,
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Leb128,
            shared_prefix: false,
        }),
    )
    .unwrap()
    .len();
    assert!(no_prefix > compact);
}

fn expect(bytes: &[u8], err: &Error) {
    assert_eq!(decode(bytes).as_ref(), Err(err), "{bytes:x?}");
}

#[test]
fn bad_inputs_give_precise_errors() {
    let good = encode(
        &sample(),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Leb128,
            shared_prefix: false,
        }),
    )
    .unwrap();
    expect(
        &[],
        &Error::Truncated {
            what: "magic",
            offset: 0,
            needed: 1,
        },
    );
    expect(
        &[b'Q', 2, 0],
        &Error::BadHeader {
            offset: 0,
            reason: "bad magic",
        },
    );
    expect(
        &[b'P', 9, 0],
        &Error::BadHeader {
            offset: 1,
            reason: "unknown layout",
        },
    );
    expect(
        &[b'P', 2, 0x80],
        &Error::BadHeader {
            offset: 2,
            reason: "unknown flags",
        },
    );
    expect(
        &[b'P', 1, 2],
        &Error::BadHeader {
            offset: 2,
            reason: "unknown flags",
        },
    );
    // Key index past the table (the first pair's index, offset 14, set to 7).
    let mut b = good.clone();
    b[14] = 7;
    expect(
        &b,
        &Error::OutOfRange {
            what: "key index",
            offset: 14,
        },
    );
    // Unsupported type code (21 = PMIX_VALUE).
    let mut b = good.clone();
    b[15] = 21;
    expect(&b, &Error::UnsupportedType { code: 21 });
    // An overlong varint (rank delta 0x83 0x00).
    let mut b = good[..12].to_vec();
    b.extend_from_slice(&[0x83, 0x00]);
    b.extend_from_slice(&good[13..]);
    expect(&b, &Error::Overlong { offset: 12 });
    // A UINT16 value above 65535 is out of range.
    let mut b = good[..14].to_vec();
    b.extend_from_slice(&[0, 13, 0x80, 0x80, 0x04]);
    b.extend_from_slice(&good[18..]);
    expect(
        &b,
        &Error::OutOfRange {
            what: "u16",
            offset: 16,
        },
    );
    // A key that is not UTF-8.
    let mut b = good.clone();
    b[8] = 0xff;
    expect(
        &b,
        &Error::BadUtf8 {
            what: "key",
            offset: 7,
        },
    );
    // A bool that is neither 0 nor 1.
    let mut b = good[..14].to_vec();
    b.extend_from_slice(&[0, 1, 2]);
    b.extend_from_slice(&good[18..]);
    expect(
        &b,
        &Error::OutOfRange {
            what: "bool",
            offset: 16,
        },
    );
    // A rank delta taking the rank past u32.
    let mut b = good[..12].to_vec();
    b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x1f]);
    b.extend_from_slice(&good[13..]);
    expect(
        &b,
        &Error::OutOfRange {
            what: "rank",
            offset: 12,
        },
    );
    // An entry count larger than the input can hold.
    let mut b = good[..11].to_vec();
    b.push(100);
    b.extend_from_slice(&good[12..]);
    expect(
        &b,
        &Error::OutOfRange {
            what: "entry count",
            offset: 11,
        },
    );
    // Arrays nested past the limit.
    let mut b = vec![b'P', 2, 0, 1, b'n', 1, 1, b'a', 1, 0, 1, 0];
    b.extend(std::iter::repeat_n([39u8, 1], MAX_DEPTH + 1).flatten());
    b.extend_from_slice(&[1, 0]);
    assert!(matches!(decode(&b), Err(Error::TooDeep { .. })));
}

#[test]
fn naive_rank_order_and_namespace_are_checked() {
    let mut b = sample();
    b.entries.swap(0, 1);
    assert_eq!(
        encode(&b, Layout::Naive),
        Err(Error::Unordered {
            index: 1,
            rank: Rank(3)
        })
    );
    let mut good = encode(&sample(), Layout::Naive).unwrap();
    // Entry 1's rank (4) rewritten to 3: not strictly increasing.
    let pos = good.len() - (4 + 5 + 2 + 4);
    assert_eq!(good[pos - 1], 4);
    good[pos - 1] = 3;
    assert_eq!(
        decode(&good),
        Err(Error::Unordered {
            index: 1,
            rank: Rank(3)
        })
    );
    let mut wild = sample();
    wild.entries[1].rank = Rank::WILDCARD;
    assert!(matches!(
        encode(&wild, Layout::Naive),
        Err(Error::BadRank { .. })
    ));
}
