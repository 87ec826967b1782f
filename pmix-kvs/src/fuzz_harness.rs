//! Entry points for the cargo-fuzz targets in the workspace's `fuzz/` folder, kept in the
//! library so that a stable test replays the committed corpus (`tests/corpus/<target>/` of
//! this package) through the same code. Compiled only for tests and under `cfg(fuzzing)`
//! (cargo-fuzz sets it); not part of the public API.
//!
//! Each function takes arbitrary bytes, must never panic, and checks the invariants that hold
//! for any input (panicking only when one is broken, which is what the fuzzer looks for).

use crate::codec::{self, CompactOptions, IntEncoding, Layout};
use crate::fence::{Algorithm, FenceNode, Message};
use crate::{DmodexAnswer, DmodexRequest, JobInfo, NodeStore, Rank};

/// Target `pmix_blob_decode`: decodes arbitrary bytes as a fence blob; whatever decodes must
/// re-encode in every layout and decode back to the same blob.
///
/// # Panics
/// Only when that round trip fails (a codec bug).
pub fn blob_decode(data: &[u8]) {
    let Ok(blob) = codec::decode(data) else {
        return;
    };
    for layout in [
        Layout::Naive,
        Layout::Compact(CompactOptions::default()),
        Layout::Compact(CompactOptions {
            ints: IntEncoding::Flex128,
            shared_prefix: false,
        }),
    ] {
        let bytes = codec::encode(&blob, layout).expect("a decoded blob re-encodes");
        let again = codec::decode(&bytes).expect("an encoded blob decodes");
        assert_eq!(again, blob, "round trip through {layout:?}");
    }
}

/// Target `pmix_fence_message`: decodes arbitrary bytes as a fence [`Message`]; whatever
/// decodes must re-encode to exactly the same bytes (the layout is canonical), and handing it
/// to a node of each fence algorithm must answer (accept or refuse), never panic.
///
/// # Panics
/// Only when the re-encoding differs (a codec bug) or a fence state machine panics.
pub fn fence_message_decode(data: &[u8]) {
    let Ok(message) = Message::decode(data) else {
        return;
    };
    assert_eq!(message.encode(), data, "decode then encode is the identity");
    for alg in [Algorithm::TREE, Algorithm::Ring, Algorithm::Bruck] {
        for (me, from) in [(0, 1), (1, 0), (2, 1)] {
            let Ok(mut node) = FenceNode::new(alg, me, 4, vec![1, 2, 3], true) else {
                continue;
            };
            if node.handle(from, message.clone()).is_ok() {
                while node.poll_transmit().is_some() {}
            }
        }
    }
}

/// Target `pmix_dmodex_decode`: decodes arbitrary bytes as a direct-modex request and as an
/// answer; whatever decodes must re-encode to the same bytes (both layouts are canonical),
/// and an answer handed to a node store (for a remote rank of a registered job) must be
/// applied or refused, never panic.
///
/// # Panics
/// Only when a re-encoding differs (a codec bug) or applying the answer panics.
pub fn dmodex_decode(data: &[u8]) {
    if let Ok(req) = DmodexRequest::decode(data) {
        let again = req.encode().expect("a decoded request re-encodes");
        assert_eq!(again, data, "request: decode then encode is the identity");
    }
    let Ok(answer) = DmodexAnswer::decode(data) else {
        return;
    };
    assert_eq!(
        answer.encode(),
        data,
        "answer: decode then encode is the identity"
    );
    let mut store = NodeStore::new();
    let info = JobInfo::new(4, "n1")
        .with_local_peers([Rank::new(2), Rank::new(3)])
        .with_num_nodes(2)
        .with_proc_nodes(vec![0, 0, 1, 1]);
    if store.register_job("job", &info).is_err() {
        return;
    }
    let req = DmodexRequest {
        nspace: "job".into(),
        rank: Rank::new(0),
        key: "k".into(),
        node: Some(0),
    };
    let _ = store.apply_dmodex(&req, &answer);
}

#[cfg(test)]
mod tests {
    /// Replays every committed corpus file of the `pmix_blob_decode` target: hand-made valid
    /// blobs must decode, the broken ones (`truncated*`, `bad*`) must not.
    #[test]
    fn replay_pmix_blob_decode_corpus() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/pmix_blob_decode");
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("the corpus directory exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            super::blob_decode(&data);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let valid = !(name.starts_with("truncated") || name.starts_with("bad"));
            assert_eq!(
                crate::codec::decode(&data).is_ok(),
                valid,
                "{}",
                path.display()
            );
            files += 1;
        }
        assert!(files >= 5, "corpus at {dir} has {files} files");
    }

    /// Replays every committed corpus file of the `pmix_fence_message` target: the valid
    /// messages must decode, the broken ones (`truncated*`, `bad*`) must not.
    #[test]
    fn replay_pmix_fence_message_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/pmix_fence_message"
        );
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("the corpus directory exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            super::fence_message_decode(&data);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let valid = !(name.starts_with("truncated") || name.starts_with("bad"));
            assert_eq!(
                super::Message::decode(&data).is_ok(),
                valid,
                "{}",
                path.display()
            );
            files += 1;
        }
        assert!(files >= 5, "corpus at {dir} has {files} files");
    }

    /// Replays every committed corpus file of the `pmix_dmodex_decode` target: the valid
    /// requests (`req*`) and answers (`ans*`) must decode as such, the broken ones (`bad*`,
    /// `truncated*`) as neither.
    #[test]
    fn replay_pmix_dmodex_decode_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/pmix_dmodex_decode"
        );
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("the corpus directory exists") {
            let path = entry.expect("readable entry").path();
            let data = std::fs::read(&path).expect("readable corpus file");
            super::dmodex_decode(&data);
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let req = crate::DmodexRequest::decode(&data).is_ok();
            let ans = crate::DmodexAnswer::decode(&data).is_ok();
            let want = (name.starts_with("req"), name.starts_with("ans"));
            assert_eq!((req, ans), want, "{}", path.display());
            files += 1;
        }
        assert!(files >= 5, "corpus at {dir} has {files} files");
    }
}
