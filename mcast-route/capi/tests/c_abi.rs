//! The C ABI's tests in C: `tests/c/capi_test.c` is compiled with gcc against the committed
//! header and this crate's static library (with warnings as errors) and run; and the header
//! is checked against the Rust side: the same status codes and constants, and every exported
//! function declared.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const HEADER: &str = include_str!("../include/mcast_route.h");

/// The static library cargo built for this test run: the newest `libmcast_route_capi*.a`
/// beside the test binary (`target/<profile>/deps`) or one folder up.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps folder");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for dir in [deps, deps.parent().expect("profile folder")] {
        for entry in std::fs::read_dir(dir)
            .expect("readable target folder")
            .flatten()
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("libmcast_route_capi") && name.ends_with(".a") {
                let modified = entry.metadata().and_then(|m| m.modified()).expect("mtime");
                found.push((modified, entry.path()));
            }
        }
    }
    found.sort();
    found
        .pop()
        .expect("cargo builds libmcast_route_capi.a with the crate (crate-type staticlib)")
        .1
}

#[test]
fn c_program_passes_against_the_header_and_the_static_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("mcast_route_capi_test_{}", std::process::id()));
    let compiled = Command::new("gcc")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wmissing-prototypes",
            "-I",
        ])
        .arg(root.join("include"))
        .arg(root.join("tests/c/capi_test.c"))
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .output()
        .expect("gcc runs (the C tests need a C compiler)");
    assert!(
        compiled.status.success(),
        "gcc failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let ran = Command::new(&out).output().expect("the C test runs");
    let _ = std::fs::remove_file(&out);
    assert!(
        ran.status.success(),
        "the C test failed:\n{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(String::from_utf8_lossy(&ran.stdout).contains("all checks passed"));
}

/// `#define NAME VALUE` lines of the header, the value with any `u` suffix dropped.
fn defines() -> Vec<(String, i64)> {
    HEADER
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define ")?.split_whitespace();
            let name = w.next()?;
            let value = w.next()?.trim_end_matches('u').parse().ok()?;
            Some((name.to_owned(), value))
        })
        .collect()
}

#[test]
fn header_constants_are_the_rust_ones() {
    use mcast_route_capi as c;
    let rust: Vec<(&str, i64)> = vec![
        ("MCR_OK", c::MCR_OK.into()),
        ("MCR_ERR_NULL", c::MCR_ERR_NULL.into()),
        (
            "MCR_ERR_INVALID_ARGUMENT",
            c::MCR_ERR_INVALID_ARGUMENT.into(),
        ),
        ("MCR_ERR_FABRIC", c::MCR_ERR_FABRIC.into()),
        ("MCR_ERR_UNKNOWN_GUID", c::MCR_ERR_UNKNOWN_GUID.into()),
        ("MCR_ERR_NO_LINK", c::MCR_ERR_NO_LINK.into()),
        ("MCR_ERR_OUT_OF_RANGE", c::MCR_ERR_OUT_OF_RANGE.into()),
        ("MCR_ERR_ENTRIES", c::MCR_ERR_ENTRIES.into()),
        ("MCR_ERR_UNKNOWN_MGID", c::MCR_ERR_UNKNOWN_MGID.into()),
        ("MCR_ERR_MEMBERSHIP", c::MCR_ERR_MEMBERSHIP.into()),
        ("MCR_ERR_TOPOLOGY", c::MCR_ERR_TOPOLOGY.into()),
        ("MCR_ERR_ROUTE", c::MCR_ERR_ROUTE.into()),
        ("MCR_ERR_POISONED", c::MCR_ERR_POISONED.into()),
        ("MCR_ERR_PANIC", c::MCR_ERR_PANIC.into()),
        ("MCR_NODE_SWITCH", c::MCR_NODE_SWITCH.into()),
        ("MCR_NODE_CA", c::MCR_NODE_CA.into()),
        ("MCR_ALGORITHM_MR4LMS", c::MCR_ALGORITHM_MR4LMS.into()),
        (
            "MCR_ALGORITHM_MINIHOP_MC",
            c::MCR_ALGORITHM_MINIHOP_MC.into(),
        ),
        ("MCR_ALGORITHM_SSSP_MC", c::MCR_ALGORITHM_SSSP_MC.into()),
    ];
    let mut header = defines();
    header.retain(|(n, _)| n.starts_with("MCR_"));
    let mut rust: Vec<(String, i64)> = rust.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
    header.sort();
    rust.sort();
    assert_eq!(header, rust);
}

#[test]
fn header_declares_every_exported_function_and_no_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut exported = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("src")).expect("src").flatten() {
        let text = std::fs::read_to_string(entry.path()).expect("source");
        for l in text.lines() {
            if let Some(rest) = l.split("extern \"C\" fn ").nth(1) {
                exported.insert(rest.split('(').next().expect("name").to_owned());
            }
        }
    }
    let declared: BTreeSet<String> = HEADER
        .lines()
        .filter(|l| l.contains('(') && !l.trim_start().starts_with(['/', '*']))
        .filter_map(|l| {
            let name = l.split('(').next()?.split([' ', '*']).next_back()?;
            name.starts_with("mcr_").then(|| name.to_owned())
        })
        .collect();
    assert_eq!(declared, exported);
    assert_eq!(exported.len(), 21);
}
