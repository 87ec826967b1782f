//! Criterion benchmarks of `fabric-model`: building each generator at the papers' sizes, the
//! all-pairs hop table for `fat_tree(40)` and the 12,000-switch torus, and parsing a large
//! ibnetdiscover file written from a generator and one shaped like the largest real capture
//! the reader was tried on (206 switches, 1,644 HCAs, about 0.9 MB).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fabric_model::{HopTable, generators, ibnet};

fn generators(c: &mut Criterion) {
    let mut g = c.benchmark_group("generate");
    g.sample_size(10);
    g.bench_function("fat_tree(40)", |b| {
        b.iter(|| generators::fat_tree(black_box(40)).expect("valid"));
    });
    g.bench_function("torus(30x20x20,2)", |b| {
        b.iter(|| generators::torus(black_box(&[30, 20, 20]), 2).expect("valid"));
    });
    g.bench_function("dragonfly(18,9,9)", |b| {
        b.iter(|| generators::dragonfly(black_box(18), 9, 9).expect("valid"));
    });
    g.bench_function("random_regular(2048,40,20)", |b| {
        b.iter(|| generators::random_regular(black_box(2048), 40, 20, 1).expect("valid"));
    });
    g.bench_function("tapered_fat_tree(32,128,8)", |b| {
        b.iter(|| generators::tapered_fat_tree(black_box(32), 128, 8).expect("valid"));
    });
    g.finish();
}

fn hop_tables(c: &mut Criterion) {
    let mut g = c.benchmark_group("hop_table");
    g.sample_size(10);
    let ft = generators::fat_tree(40).expect("valid");
    g.bench_function("fat_tree(40)", |b| {
        b.iter(|| HopTable::new(black_box(&ft)).expect("fits"));
    });
    let torus = generators::torus(&[30, 20, 20], 2).expect("valid");
    g.bench_function("torus(30x20x20)", |b| {
        b.iter(|| HopTable::new(black_box(&torus)).expect("fits"));
    });
    g.finish();
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("ibnetdiscover");
    g.sample_size(10);
    let torus = generators::torus(&[30, 20, 20], 2).expect("valid");
    let text = ibnet::write_ibnetdiscover(&torus);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("read torus(30x20x20)", |b| {
        b.iter(|| ibnet::read_ibnetdiscover(black_box(&text)).expect("parses"));
    });
    g.bench_function("write torus(30x20x20)", |b| {
        b.iter(|| ibnet::write_ibnetdiscover(black_box(&torus)));
    });
    let capture = capture_shaped();
    g.throughput(Throughput::Bytes(capture.len() as u64));
    g.bench_function("read capture-shaped(206 switches, 1644 HCAs)", |b| {
        b.iter(|| ibnet::read_ibnetdiscover(black_box(&capture)).expect("parses"));
    });
    g.finish();
}

/// An ibnetdiscover file with the shape and annotations of the largest real capture the
/// reader was tried on: 150 leaf switches of 10 or 11 HCAs and 18 uplinks each, 56 spines,
/// 1,644 single-port HCAs; every record with `vendid`, `devid`, `sysimgguid`, the port GUID,
/// LID and LMC, node descriptions and the link rate, as ibnetdiscover prints them. About
/// 0.9 MB.
fn capture_shaped() -> String {
    use std::fmt::Write;
    const LEAVES: u64 = 150;
    const SPINES: u64 = 56;
    const HCAS: u64 = 1644;
    const UPLINKS: u64 = 18;
    let sw = |i: u64| 0x0024_8a07_0300_0000 + i * 0x100;
    let ca = |j: u64| 0x0c42_a103_0000_0000 + j * 0x10;
    let sw_lid = |i: u64| i + 1;
    let ca_lid = |j: u64| LEAVES + SPINES + j + 1;
    let desc = |i: u64| format!("MF0;sw{i:03}:MQM8700/U1");
    // Per switch, (port, peer text) in port order; per HCA, its leaf and leaf port.
    let mut ports: Vec<Vec<(u64, String)>> = vec![Vec::new(); (LEAVES + SPINES) as usize];
    let mut hca_at = Vec::new();
    let mut h = 0;
    for l in 0..LEAVES {
        let n = HCAS / LEAVES + u64::from(l < HCAS % LEAVES);
        for p in 1..=n {
            let g = ca(h);
            ports[l as usize].push((
                p,
                format!(
                    "\"H-{g:016x}\"[1]({:x}) \t\t# \"node{h:04} HCA-1\" lid {} 4xHDR",
                    g + 1,
                    ca_lid(h)
                ),
            ));
            hca_at.push((l, p));
            h += 1;
        }
        for u in 0..UPLINKS {
            let s = LEAVES + (l * UPLINKS + u) % SPINES;
            let sp = ports[s as usize].len() as u64 + 1;
            let lp = 20 + u;
            ports[l as usize].push((
                lp,
                format!(
                    "\"S-{:016x}\"[{sp}]\t\t# \"{}\" lid {} 4xHDR",
                    sw(s),
                    desc(s),
                    sw_lid(s)
                ),
            ));
            ports[s as usize].push((
                sp,
                format!(
                    "\"S-{:016x}\"[{lp}]\t\t# \"{}\" lid {} 4xHDR",
                    sw(l),
                    desc(l),
                    sw_lid(l)
                ),
            ));
        }
    }
    let mut out = String::from("#\n# Topology file: generated on Mon Nov  2 10:11:12 2026\n#\n\n");
    for (i, list) in ports.iter().enumerate() {
        let i = i as u64;
        let g = sw(i);
        let _ = writeln!(
            out,
            "vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x{g:x}\nswitchguid=0x{g:x}(0x{g:x})\nSwitch\t64 \"S-{g:016x}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0",
            desc(i),
            sw_lid(i)
        );
        for (p, peer) in list {
            let _ = writeln!(out, "[{p}]\t{peer}");
        }
        out.push('\n');
    }
    for (j, &(l, p)) in hca_at.iter().enumerate() {
        let j = j as u64;
        let g = ca(j);
        let _ = writeln!(
            out,
            "vendid=0x2c9\ndevid=0x101b\nsysimgguid=0x{g:x}\ncaguid=0x{g:x}\nCa\t1 \"H-{g:016x}\"\t\t# \"node{j:04} HCA-1\"\n[1]({:x}) \t\"S-{:016x}\"[{p}]\t\t# lid {} lmc 0 \"{}\" lid {} 4xHDR\n",
            g + 1,
            sw(l),
            ca_lid(j),
            desc(l),
            sw_lid(l)
        );
    }
    out
}

/// The hop table's bit-parallel BFS written with bitvec's `BitArray` (one `BitArray<[u64; 4]>`
/// of 256 sources a switch, OR-ed along links, new bits read back with `iter_ones`), against
/// today's hand-written words (`HopTable::new`), on the same fabrics in one group. Returns the
/// batch's largest distance so that the work cannot be optimised away.
fn bitvec_bfs(f: &fabric_model::Fabric) -> u8 {
    use bitvec::prelude::*;
    type Row = BitArray<[u64; 4], Lsb0>;
    const BATCH: usize = 256;
    let n = f.switch_count();
    let mut start = vec![0usize];
    let mut adj = Vec::new();
    for &s in f.switches() {
        adj.extend(f.neighbors(s).filter_map(|nb| f.switch_index(nb.peer)));
        start.push(adj.len());
    }
    let mut dist = vec![u8::MAX; n * BATCH];
    let mut worst = 0;
    let mut base = 0;
    while base < n {
        let count = BATCH.min(n - base);
        let mut frontier = vec![Row::ZERO; n];
        let mut next = vec![Row::ZERO; n];
        let mut seen = vec![Row::ZERO; n];
        dist.fill(u8::MAX);
        for k in 0..count {
            frontier[base + k].set(k, true);
            seen[base + k].set(k, true);
            dist[(base + k) * BATCH + k] = 0;
        }
        let mut full = Row::ZERO;
        full[..count].fill(true);
        let mut level = 0u8;
        loop {
            let mut progress = false;
            for v in 0..n {
                if seen[v] == full {
                    continue;
                }
                let mut acc = Row::ZERO;
                for &u in &adj[start[v]..start[v + 1]] {
                    acc |= frontier[u];
                }
                let fresh = acc & !seen[v];
                next[v] = fresh;
                if fresh.not_any() {
                    continue;
                }
                progress = true;
                seen[v] |= fresh;
                let row = &mut dist[v * BATCH..(v + 1) * BATCH];
                for k in fresh.iter_ones() {
                    row[k] = level + 1;
                }
            }
            if !progress {
                break;
            }
            std::mem::swap(&mut frontier, &mut next);
            level += 1;
        }
        worst = worst.max(level);
        base += count;
    }
    worst
}

fn bitvec_hop_table(c: &mut Criterion) {
    let mut g = c.benchmark_group("bitvec_hop_bfs");
    g.sample_size(10);
    for (name, f) in [
        ("fat_tree(24)", generators::fat_tree(24).expect("valid")),
        (
            "torus(16x16x8)",
            generators::torus(&[16, 16, 8], 1).expect("valid"),
        ),
    ] {
        let hops = HopTable::new(&f).expect("fits");
        assert_eq!(Some(bitvec_bfs(&f)), hops.diameter(), "same searches");
        g.bench_function(format!("hand-written words {name}"), |b| {
            b.iter(|| HopTable::new(black_box(&f)).expect("fits"));
        });
        g.bench_function(format!("bitvec BitArray {name}"), |b| {
            b.iter(|| bitvec_bfs(black_box(&f)));
        });
    }
    g.finish();
}

criterion_group!(benches, generators, hop_tables, parse, bitvec_hop_table);
criterion_main!(benches);
