//! The Rust side of mcast-route's OpenSM check (`mcast-route/opensm/run.sh`): writes the
//! fabrics and the join workloads ibsim and the simulated hosts use, and flood-checks the
//! multicast forwarding tables read back from ibsim's switches with `ibroute -M`.
//!
//! ```sh
//! opensm_check fabric fat-tree K | torus X,Y,Z T | dragonfly A P H | random S R T SEED
//! opensm_check groups TOPO grid D1,D2[,D3] | random COUNT SIZE SEED
//! opensm_check check TOPO MFT_DUMP MEMBERS [--limit N] [--no-extra] [--sa SAQUERY_G]
//! opensm_check busy-link TOPO MFT_DUMP
//! opensm_check offline TOPO JOINS LIMIT
//! opensm_check replay TOPO JOINS LIMIT host|group [least-used]
//! ```
//!
//! `groups` prints one `HOST GROUP` line per join (hosts by their ibnetdiscover names, groups
//! numbered from 1). `check` reads the fabric, the concatenated `ibroute -M` output of every
//! switch and the members (`GROUP MLID HOST` per line, as the joins answered) and floods a
//! packet from every member of every group along the tables: each other member must receive
//! it exactly once, no switch twice, and no switch may get it on a port outside its entry. It
//! prints the entries per switch, the largest edge forwarding index (groups whose flood
//! crosses a switch-to-switch link), and the groups whose flood reaches a host outside the
//! group (merged groups, or a table that sends one group along another's tree); exits 1 on
//! any fault, an entry count past `--limit`, or with `--no-extra` any such group. With
//! `--sa`, each group's MLID is the one subnet administration gives now (`saquery --mgid
//! MGID MCMR` output, one record per group or more), not the one its joins answered: a topology event may have moved it.
//! `busy-link` prints the switch-to-switch cable the most MLIDs cross (`NAME PORT`, its end of
//! lower switch name), the one the check takes down. `offline` routes the same groups as the
//! paper's experiment does, each created whole (`Router::create_group`, MR4LMS with `LIMIT`
//! entries), and prints the same figures, to set beside the live SM's member-by-member joins.
//! `replay` sends the same joins to a router one by one (`Router::join`), in the order the
//! check's hosts send them (`host`: each host all its groups, hosts in turn) or group by group
//! (`group`), optionally with `JoinColor::LeastUsed` (ours): what the live SM should answer,
//! without ibsim.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::error::Error;
use std::fmt::Write as _;

use fabric_model::{Fabric, NodeId, PortNo, generators, ibnet};
use mcast_route::patterns;

type Res<T> = Result<T, Box<dyn Error>>;

fn nums(s: &str) -> Res<Vec<u32>> {
    Ok(s.split(',').map(str::parse).collect::<Result<_, _>>()?)
}

fn arg<'a>(args: &'a [String], i: usize, what: &str) -> Res<&'a str> {
    args.get(i)
        .map(String::as_str)
        .ok_or_else(|| format!("missing argument: {what}").into())
}

fn fabric(args: &[String]) -> Res<()> {
    let kind = arg(args, 0, "fabric kind")?;
    let f = match kind {
        "fat-tree" => generators::fat_tree(arg(args, 1, "k")?.parse()?)?,
        "torus" => generators::torus(
            &nums(arg(args, 1, "dims")?)?,
            arg(args, 2, "terminals")?.parse()?,
        )?,
        "dragonfly" => generators::dragonfly(
            arg(args, 1, "a")?.parse()?,
            arg(args, 2, "p")?.parse()?,
            arg(args, 3, "h")?.parse()?,
        )?,
        "random" => generators::random_regular(
            arg(args, 1, "switches")?.parse()?,
            arg(args, 2, "radix")?.parse()?,
            arg(args, 3, "terminals")?.parse()?,
            arg(args, 4, "seed")?.parse()?,
        )?,
        other => return Err(format!("unknown fabric kind {other:?}").into()),
    };
    print!("{}", ibnet::write_ibnetdiscover(&f));
    Ok(())
}

fn read_fabric(path: &str) -> Res<Fabric> {
    Ok(ibnet::read_ibnetdiscover(&std::fs::read_to_string(path)?)?)
}

fn groups(args: &[String]) -> Res<()> {
    let f = read_fabric(arg(args, 0, "topology file")?)?;
    let groups = match arg(args, 1, "pattern")? {
        "grid" => patterns::grid(&f, &nums(arg(args, 2, "dims")?)?, 1)?,
        "random" => patterns::random_groups(
            &f,
            arg(args, 2, "count")?.parse()?,
            arg(args, 3, "size")?.parse()?,
            arg(args, 4, "seed")?.parse()?,
        )?,
        other => return Err(format!("unknown pattern {other:?}").into()),
    };
    let mut out = String::new();
    for (i, g) in groups.iter().enumerate() {
        for &m in g {
            writeln!(out, "{} {}", f.node(m).name, i + 1)?;
        }
    }
    print!("{out}");
    Ok(())
}

/// The MFT entries read back: (switch, MLID) → ports.
type Tables = HashMap<(NodeId, u16), BTreeSet<u16>>;

/// Reads `ibroute -M` output: a `Multicast mlids [...] of switch Lid L guid 0x... (...)`
/// header per switch, its `Ports:` line (one column every two characters) and one row per
/// MLID with an `x` under each port of its entry.
fn read_tables(f: &Fabric, text: &str) -> Res<Tables> {
    let by_guid: HashMap<u64, NodeId> = f
        .switches()
        .iter()
        .filter_map(|&s| f.node(s).guid.map(|g| (g, s)))
        .collect();
    let mut tables = Tables::new();
    let mut switch: Option<NodeId> = None;
    let mut col0: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let bad = |what: &str| format!("MFT dump line {}: {what}: {line:?}", i + 1);
        if line.starts_with("Multicast mlids") {
            let guid = line
                .split_whitespace()
                .skip_while(|w| *w != "guid")
                .nth(1)
                .and_then(|g| u64::from_str_radix(g.trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| bad("no switch GUID"))?;
            switch = Some(*by_guid.get(&guid).ok_or_else(|| bad("unknown switch"))?);
            col0 = None;
        } else if let Some(at) = line.find("Ports:") {
            col0 = Some(at + "Ports: ".len());
        } else if line.starts_with("0x") {
            let (sw, c0) = switch
                .zip(col0)
                .ok_or_else(|| bad("a row before its header"))?;
            let mlid = u16::from_str_radix(&line[2..6.min(line.len())], 16)
                .map_err(|_| bad("bad MLID"))?;
            let bytes = line.as_bytes();
            let radix = f.radix(sw);
            let mut ports = BTreeSet::new();
            for p in 0..=radix {
                match bytes.get(c0 + 2 * usize::from(p)) {
                    Some(b'x') => {
                        ports.insert(p);
                    }
                    Some(b' ') | None => {}
                    Some(_) => return Err(bad("unexpected mark").into()),
                }
            }
            if ports.is_empty() {
                return Err(bad("an MLID row without a port").into());
            }
            tables.insert((sw, mlid), ports);
        }
    }
    Ok(tables)
}

struct Member {
    mlid: u16,
    hosts: BTreeSet<NodeId>,
}

fn read_members(f: &Fabric, text: &str) -> Res<BTreeMap<u32, Member>> {
    let mut groups: BTreeMap<u32, Member> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let [g, mlid, host] = w[..] else {
            return Err(format!("members line {}: expected GROUP MLID HOST", i + 1).into());
        };
        let g: u32 = g.parse()?;
        let mlid = u16::from_str_radix(mlid.trim_start_matches("0x"), 16)?;
        let host = f
            .node_by_name(host)
            .ok_or_else(|| format!("members line {}: no host {host:?}", i + 1))?;
        let e = groups.entry(g).or_insert_with(|| Member {
            mlid,
            hosts: BTreeSet::new(),
        });
        if e.mlid != mlid {
            return Err(format!("group {g} answered two MLIDs").into());
        }
        e.hosts.insert(host);
    }
    Ok(groups)
}

/// Reads `saquery -g` or `saquery --mgid MGID MCMR` output: group number (the low 32 bits of an MGID `ff15:1::N`, as
/// mcjoin joins them) → MLID.
fn read_sa(text: &str) -> Res<BTreeMap<u32, u16>> {
    let mut out = BTreeMap::new();
    let mut mgid: Option<u128> = None;
    for line in text.lines() {
        let line = line.trim();
        let value = |key: &str| {
            line.strip_prefix(key)
                .map(|v| v.trim_start_matches('.').to_owned())
        };
        if let Some(v) = value("MGID") {
            mgid = Some(u128::from(v.parse::<std::net::Ipv6Addr>()?));
        } else if let Some(v) = value("Mlid").or_else(|| value("mlid"))
            && let Some(g) = mgid.take()
            && g >> 32 == 0xff15_0001_0000_0000_0000_0000
        {
            let mlid = u16::from_str_radix(v.trim_start_matches("0x"), 16)?;
            out.insert(g as u32, mlid);
        }
    }
    Ok(out)
}

/// A flood's hosts reached (with their copies) and the switch ports it left by.
type Flooded = (BTreeMap<NodeId, u32>, Vec<(NodeId, PortNo)>);

/// Floods from `src` along `mlid`: the hosts reached (with copies) and the switch links
/// crossed, or the first fault.
fn flood(f: &Fabric, t: &Tables, src: NodeId, mlid: u16) -> Result<Flooded, String> {
    let (sw, port) = f.switch_of(src).ok_or("a member without a switch")?;
    let mut got = BTreeMap::new();
    let mut crossed = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![(sw, port)];
    while let Some((s, in_port)) = stack.pop() {
        let name = &f.node(s).name;
        if !seen.insert(s) {
            return Err(format!("switch {name} reached twice"));
        }
        let Some(ports) = t.get(&(s, mlid)) else {
            return Err(format!(
                "switch {name} has no entry for 0x{mlid:04X} but got the packet"
            ));
        };
        if !ports.contains(&in_port.get()) {
            return Err(format!(
                "switch {name} got the packet on port {} outside its entry",
                in_port.get()
            ));
        }
        for &p in ports.iter().filter(|&&p| p != in_port.get() && p != 0) {
            let (peer, peer_port) = f
                .peer(s, PortNo::new(p))
                .ok_or_else(|| format!("switch {name} entry port {p} has no cable"))?;
            if f.is_switch(peer) {
                crossed.push((s, PortNo::new(p)));
                stack.push((peer, peer_port));
            } else {
                *got.entry(peer).or_insert(0) += 1;
            }
        }
    }
    Ok((got, crossed))
}

fn check(args: &[String]) -> Res<()> {
    let f = read_fabric(arg(args, 0, "topology file")?)?;
    let tables = read_tables(&f, &std::fs::read_to_string(arg(args, 1, "MFT dump")?)?)?;
    let groups = read_members(&f, &std::fs::read_to_string(arg(args, 2, "members")?)?)?;
    let mut groups = groups;
    let mut limit = None;
    let mut no_extra = false;
    let mut rest = args[3..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--limit" => limit = Some(rest.next().ok_or("--limit N")?.parse::<usize>()?),
            "--no-extra" => no_extra = true,
            "--sa" => {
                let text = std::fs::read_to_string(rest.next().ok_or("--sa FILE")?)?;
                let sa = read_sa(&text)?;
                for (g, m) in &mut groups {
                    m.mlid = *sa
                        .get(g)
                        .ok_or_else(|| format!("group {g} has no MCMemberRecord in the SA"))?;
                }
            }
            other => return Err(format!("unknown option {other:?}").into()),
        }
    }
    let mut faults = Vec::new();
    let mut efi: HashMap<fabric_model::LinkId, u32> = HashMap::new();
    let mut extra_groups = 0usize;
    for (g, m) in &groups {
        let mut crosses = BTreeSet::new();
        let mut extra = false;
        for &src in &m.hosts {
            match flood(&f, &tables, src, m.mlid) {
                Err(e) => faults.push(format!("group {g} from {}: {e}", f.node(src).name)),
                Ok((got, crossed)) => {
                    for &h in &m.hosts {
                        let n = got.get(&h).copied().unwrap_or(0);
                        if h != src && n != 1 {
                            faults.push(format!(
                                "group {g} from {}: member {} got {n} copies",
                                f.node(src).name,
                                f.node(h).name
                            ));
                        }
                    }
                    extra |= got.keys().any(|h| !m.hosts.contains(h));
                    for (s, p) in crossed {
                        if let Some(l) = f.link_at(s, p) {
                            crosses.insert(l);
                        }
                    }
                }
            }
        }
        for l in crosses {
            *efi.entry(l).or_insert(0) += 1;
        }
        extra_groups += usize::from(extra);
    }
    let mut per_switch: HashMap<NodeId, usize> = HashMap::new();
    for &(s, _) in tables.keys() {
        *per_switch.entry(s).or_insert(0) += 1;
    }
    let most = per_switch.values().copied().max().unwrap_or(0);
    let mlids: BTreeSet<u16> = tables.keys().map(|&(_, m)| m).collect();
    println!(
        "flood check: {} groups, {} members, {} switches, {} MLIDs in the tables; entries per switch max {most}{}; max EFI {}; groups reaching non-members {extra_groups}; faults {}",
        groups.len(),
        groups.values().map(|m| m.hosts.len()).sum::<usize>(),
        f.switch_count(),
        mlids.len(),
        limit.map_or(String::new(), |l| format!(" (limit {l})")),
        efi.values().copied().max().unwrap_or(0),
        faults.len()
    );
    for fault in faults.iter().take(10) {
        println!("  fault: {fault}");
    }
    let over = limit.is_some_and(|l| most > l);
    if over {
        println!("  fault: a switch holds {most} entries, past the limit");
    }
    if no_extra && extra_groups > 0 {
        println!("  fault: {extra_groups} groups reach hosts outside the group");
    }
    if !faults.is_empty() || over || (no_extra && extra_groups > 0) {
        return Err("the tables read back fail the flood check".into());
    }
    Ok(())
}

fn busy_link(args: &[String]) -> Res<()> {
    let f = read_fabric(arg(args, 0, "topology file")?)?;
    let tables = read_tables(&f, &std::fs::read_to_string(arg(args, 1, "MFT dump")?)?)?;
    // Per cable, the MLIDs whose entries hold both of its ends.
    let mut count: BTreeMap<(String, u16), usize> = BTreeMap::new();
    for (&(s, mlid), ports) in &tables {
        for &p in ports.iter().filter(|&&p| p != 0) {
            let Some((peer, pp)) = f.peer(s, PortNo::new(p)) else {
                continue;
            };
            let back = tables
                .get(&(peer, mlid))
                .is_some_and(|q| q.contains(&pp.get()));
            let (a, b) = (&f.node(s).name, &f.node(peer).name);
            if f.is_switch(peer) && back && a < b {
                *count.entry((a.clone(), p)).or_insert(0) += 1;
            }
        }
    }
    let ((name, port), _) = count
        .into_iter()
        .max_by_key(|(k, n)| (*n, std::cmp::Reverse(k.clone())))
        .ok_or("no switch-to-switch cable carries a tree")?;
    println!("{name} {port}");
    Ok(())
}

fn offline(args: &[String]) -> Res<()> {
    let f = read_fabric(arg(args, 0, "topology file")?)?;
    let joins = std::fs::read_to_string(arg(args, 1, "joins file")?)?;
    let limit: u32 = arg(args, 2, "MFT entry limit")?.parse()?;
    let mut groups: BTreeMap<u32, Vec<NodeId>> = BTreeMap::new();
    for line in joins.lines() {
        let mut w = line.split_whitespace();
        let (Some(host), Some(g)) = (w.next(), w.next()) else {
            return Err(format!("joins line {line:?}: expected HOST GROUP").into());
        };
        let host = f
            .node_by_name(host)
            .ok_or_else(|| format!("no host {host:?}"))?;
        groups.entry(g.parse()?).or_default().push(host);
    }
    let hops = fabric_model::HopTable::new(&f)?;
    let mut r = mcast_route::Router::new(
        &f,
        &hops,
        mcast_route::Config::mr4lms(mcast_route::Entries::Limit(limit)),
    )?;
    for members in groups.values() {
        r.create_group(members)?;
    }
    let st = r.stats();
    let most = f
        .switches()
        .iter()
        .map(|&s| r.entries(s).map(|e| e.len()))
        .try_fold(0, |m, n| n.map(|n| m.max(n)))?;
    println!(
        "offline: {} groups, {} colors, entries per switch max {most}, max EFI {}, merged {}",
        st.groups, st.colors_used, st.max_efi, st.merged_groups
    );
    Ok(())
}

fn replay(args: &[String]) -> Res<()> {
    let f = read_fabric(arg(args, 0, "topology file")?)?;
    let joins = std::fs::read_to_string(arg(args, 1, "joins file")?)?;
    let limit: u32 = arg(args, 2, "MFT entry limit")?.parse()?;
    let order = arg(args, 3, "order")?;
    let mut config = mcast_route::Config::mr4lms(mcast_route::Entries::Limit(limit));
    if args.get(4).map(String::as_str) == Some("least-used") {
        config = config.with_join_color(mcast_route::JoinColor::LeastUsed);
    }
    let mut list: Vec<(NodeId, u32)> = Vec::new();
    for line in joins.lines() {
        let mut w = line.split_whitespace();
        let (Some(host), Some(g)) = (w.next(), w.next()) else {
            return Err(format!("joins line {line:?}: expected HOST GROUP").into());
        };
        let host = f
            .node_by_name(host)
            .ok_or_else(|| format!("no host {host:?}"))?;
        list.push((host, g.parse()?));
    }
    match order {
        // Each host all its joins, hosts in order of first appearance (as run.sh sends them).
        "host" => {
            let mut first: HashMap<NodeId, usize> = HashMap::new();
            for (i, &(h, _)) in list.iter().enumerate() {
                first.entry(h).or_insert(i);
            }
            list.sort_by_key(|&(h, _)| first[&h]);
        }
        "group" => {}
        other => return Err(format!("unknown order {other:?}").into()),
    }
    let hops = fabric_model::HopTable::new(&f)?;
    let mut r = mcast_route::Router::new(&f, &hops, config)?;
    for (h, g) in list {
        r.join(
            mcast_route::Gid::new(0xff15_0001_0000_0000, u64::from(g)),
            h,
        )?;
    }
    let st = r.stats();
    let most = f
        .switches()
        .iter()
        .map(|&s| r.entries(s).map(|e| e.len()))
        .try_fold(0, |m, n| n.map(|n| m.max(n)))?;
    println!(
        "replay: {} groups, {} colors, entries per switch max {most}, max EFI {}, merged {}",
        st.groups, st.colors_used, st.max_efi, st.merged_groups
    );
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("fabric") => fabric(&args[1..]),
        Some("groups") => groups(&args[1..]),
        Some("check") => check(&args[1..]),
        Some("busy-link") => busy_link(&args[1..]),
        Some("offline") => offline(&args[1..]),
        Some("replay") => replay(&args[1..]),
        _ => Err("usage: opensm_check fabric … | groups … | check … (see the source's doc)".into()),
    }
}
