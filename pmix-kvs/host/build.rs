//! Builds the C side: `c/shim.c` (the PMIx server glue, linked into the host) and
//! `c/client.c` (the real PMIx client the host forks), both against the system's libpmix as
//! `pkg-config pmix` reports it (Debian 12: libpmix-dev 4.2.x). No build dependency: two gcc
//! runs and one ar.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn pkg_config(arg: &str) -> Vec<String> {
    let out = Command::new("pkg-config")
        .args([arg, "pmix"])
        .output()
        .expect("pkg-config is needed (apt-get install pkg-config libpmix-dev)");
    assert!(
        out.status.success(),
        "pkg-config cannot find pmix: apt-get install libpmix-dev ({})",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn run(cmd: &mut Command) {
    let status = cmd.status().expect("gcc and ar are needed");
    assert!(status.success(), "{cmd:?} failed");
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let cflags = pkg_config("--cflags");
    let libs = pkg_config("--libs");
    let warn = ["-O2", "-g", "-Wall", "-Wextra", "-Werror", "-std=gnu11"];

    let obj = out.join("shim.o");
    run(Command::new("gcc")
        .args(warn)
        .args(["-fPIC", "-c", "c/shim.c", "-o"])
        .arg(&obj)
        .args(&cflags));
    run(Command::new("ar")
        .arg("crs")
        .arg(out.join("libpmixkvsshim.a"))
        .arg(&obj));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=pmixkvsshim");
    for flag in &libs {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={lib}");
        }
    }

    let client = out.join("pmix_kvs_client");
    run(Command::new("gcc")
        .args(warn)
        .arg("c/client.c")
        .arg("-o")
        .arg(&client)
        .args(&cflags)
        .args(&libs));
    println!("cargo:rustc-env=PMIX_KVS_CLIENT={}", client.display());
    println!("cargo:rerun-if-changed=c/shim.c");
    println!("cargo:rerun-if-changed=c/client.c");
    println!("cargo:rerun-if-changed=build.rs");
}
