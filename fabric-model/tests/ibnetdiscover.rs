//! Files in the real ibnetdiscover and ibsim formats, and every kind of bad input with its
//! precise error and line number.

use fabric_model::ibnet::{
    Warning, read_ibnetdiscover, read_ibnetdiscover_with_warnings, write_ibnetdiscover,
};
use fabric_model::{Error, LinkRate, LinkSpeed, LinkWidth, NodeKind, PortNo};

fn corpus(name: &str) -> String {
    let path = format!(
        "{}/tests/corpus/ibnetdiscover/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn man_page_example() {
    let f = read_ibnetdiscover(&corpus("manpage.topo")).unwrap();
    assert_eq!(
        (f.switch_count(), f.terminal_count(), f.link_count()),
        (2, 2, 3)
    );
    let big = f.node_by_name("S-005442ba00003080").unwrap();
    let small = f.node_by_name("S-0008f10400410015").unwrap();
    let info = f.node(big);
    assert_eq!(info.ports, 24);
    assert_eq!(info.guid, Some(0x0054_42ba_0000_3080));
    assert_eq!(info.description.as_deref(), Some("ISR9024 Voltaire"));
    assert_eq!(info.lid, Some(6));
    assert_eq!(f.peer(big, PortNo::new(10)), Some((small, PortNo::new(1))));
    let hca = f.node_by_name("H-0008f10403960984").unwrap();
    assert_eq!(f.kind(hca), NodeKind::Terminal);
    assert_eq!(f.node(hca).lid, Some(16));
    assert_eq!(f.node(hca).guid, Some(0x0008_f104_0396_0984));
    assert_eq!(f.switch_of(hca), Some((small, PortNo::new(6))));
    let sdr = LinkRate {
        width: LinkWidth::X4,
        speed: LinkSpeed::Sdr,
    };
    assert!(f.links().iter().all(|l| l.rate == sdr));
}

#[test]
fn ibsim_file_without_guids() {
    let f = read_ibnetdiscover(&corpus("ibsim.net")).unwrap();
    assert_eq!((f.switch_count(), f.terminal_count()), (2, 2));
    // Two cables between the switches (ports 3 and 5) and two from Hca1.
    assert_eq!(f.switch_link_count(), 2);
    assert_eq!(f.link_count(), 5);
    let hca1 = f.node_by_name("Hca1").unwrap();
    assert_eq!(f.degree(hca1), 2);
    assert_eq!(f.node(hca1).guid, None);
    assert!(f.links().iter().all(|l| l.rate == LinkRate::EDR_4X));
}

#[test]
fn real_dump_edge_cases() {
    let f = read_ibnetdiscover(&corpus("edge-cases.topo")).unwrap();
    let sib = f.node_by_name("S-e41d2d030003e470").unwrap();
    // The loopback cable on ports 1-2 is skipped; the rest is kept.
    assert_eq!(f.peer(sib, PortNo::new(1)), None);
    assert_eq!(f.degree(sib), 2);
    let sx = f.node_by_name("S-f4521403005764b0").unwrap();
    assert_eq!(
        f.node(sx).description.as_deref(),
        Some("MF0;switch-de779e:SX6012/U1")
    );
    assert_eq!(f.node(sx).lid, Some(174));
    let rate = f.link(f.link_at(sx, PortNo::new(12)).unwrap()).rate;
    assert_eq!(rate.to_string(), "4xFDR10");
    let volt = f.node_by_name("S-0008f10500200134").unwrap();
    assert_eq!(
        f.node(volt).description.as_deref(),
        Some("Voltaire 4036 # v4036")
    );
    assert_eq!(f.node(volt).lid, Some(1));
    assert_eq!(f.degree(volt), 0);
    let hca = f.node_by_name("H-7cfe900300a5a2c0").unwrap();
    assert_eq!(f.node(hca).lid, Some(3));
}

#[test]
fn routers_are_flagged_terminals() {
    let f = read_ibnetdiscover(&corpus("router.topo")).unwrap();
    let r = f.node_by_name("R-router").unwrap();
    assert_eq!(f.kind(r), NodeKind::Terminal);
    assert!(f.node(r).router);
    assert_eq!(f.node(r).lid, Some(9));
    assert_eq!(f.links()[0].rate.to_string(), "1xHDR");
    let text = write_ibnetdiscover(&f);
    assert!(text.contains("rtguid=0x10\nRt\t1 \"R-router\""), "{text}");
    assert_eq!(read_ibnetdiscover(&text).unwrap(), f);
}

#[test]
fn real_files_round_trip() {
    for name in [
        "manpage.topo",
        "ibsim.net",
        "edge-cases.topo",
        "router.topo",
        "rate-mismatch.topo",
        "ibsim-options.net",
        "port-addresses.topo",
    ] {
        let f = read_ibnetdiscover(&corpus(name)).unwrap();
        let again = read_ibnetdiscover(&write_ibnetdiscover(&f)).unwrap();
        assert_eq!(again, f, "{name}");
    }
}

fn err(text: &str) -> Error {
    read_ibnetdiscover(text).expect_err("must be refused")
}

#[test]
fn one_sided_link() {
    assert_eq!(
        err(&corpus("one-sided.topo")),
        Error::OneSidedLink {
            line: 2,
            node: "A".into(),
            port: 1,
            peer: "B".into(),
            peer_port: 1
        }
    );
    // B lists nothing at all.
    assert_eq!(
        err("Switch 2 \"A\"\n[1] \"B\"[1]\n\nSwitch 2 \"B\"\n"),
        Error::OneSidedLink {
            line: 2,
            node: "A".into(),
            port: 1,
            peer: "B".into(),
            peer_port: 1
        }
    );
}

#[test]
fn port_past_radix_here_and_at_the_peer() {
    assert_eq!(
        err(&corpus("past-radix.topo")),
        Error::PortPastRadix {
            line: 2,
            node: "A".into(),
            port: 3,
            radix: 2
        }
    );
    assert_eq!(
        err("Switch 2 \"A\"\n[0] \"B\"[1]\n"),
        Error::PortPastRadix {
            line: 2,
            node: "A".into(),
            port: 0,
            radix: 2
        }
    );
    assert_eq!(
        err("Switch 2 \"A\"\n[1] \"B\"[7]\n\nSwitch 2 \"B\"\n"),
        Error::PortPastRadix {
            line: 2,
            node: "B".into(),
            port: 7,
            radix: 2
        }
    );
}

#[test]
fn port_listed_twice() {
    assert_eq!(
        err("Switch 2 \"A\"\n[1] \"B\"[1]\n# comment\n[1] \"B\"[2]\n"),
        Error::PortListedTwice {
            line: 4,
            node: "A".into(),
            port: 1,
            first_line: 2
        }
    );
}

#[test]
fn unknown_peer() {
    assert_eq!(
        err("Switch 2 \"A\"\n[1] \"Nowhere\"[1]\n"),
        Error::UnknownPeer {
            line: 2,
            peer: "Nowhere".into()
        }
    );
}

#[test]
fn malformed_guids() {
    assert_eq!(
        err("switchguid=0xZZ(1)\nSwitch 2 \"A\"\n"),
        Error::MalformedGuid {
            line: 1,
            text: "0xZZ".into()
        }
    );
    assert_eq!(
        err("caguid=0x12345678901234567\n"),
        Error::MalformedGuid {
            line: 1,
            text: "0x12345678901234567".into()
        }
    );
    assert!(matches!(
        err("Switch 2 \"A\"\n[1]\t\"H\"[1](xyz)\n"),
        Error::MalformedGuid { line: 2, .. }
    ));
}

#[test]
fn malformed_quoting() {
    assert_eq!(err("Switch 2 \"A\n"), Error::UnterminatedQuote { line: 1 });
    assert_eq!(
        err("Switch 2 \"A\"\n[1] \"B[1]\n"),
        Error::UnterminatedQuote { line: 2 }
    );
    assert!(matches!(
        err("Switch 2 A\n"),
        Error::MalformedHeader { line: 1, .. }
    ));
    assert!(matches!(
        err("Switch 2 \"A\"\n[1] B[1]\n"),
        Error::MalformedPort { line: 2, .. }
    ));
    assert!(matches!(
        err("Switch 2 \"A\"\n[x] \"B\"[1]\n"),
        Error::MalformedPort { line: 2, .. }
    ));
    assert!(matches!(
        err("Switch 2 \"A\"\n[1] \"B\"[1] trailing\n"),
        Error::MalformedPort { line: 2, .. }
    ));
}

#[test]
fn bad_headers_and_records() {
    assert!(matches!(
        err("Switch \"A\"\n"),
        Error::MalformedHeader { line: 1, .. }
    ));
    assert!(matches!(
        err("Switch 0 \"A\"\n"),
        Error::MalformedHeader { line: 1, .. }
    ));
    assert!(matches!(
        err("Ca 1 \"\"\n"),
        Error::MalformedHeader { line: 1, .. }
    ));
    assert_eq!(
        err("Switch 2 \"A\"\n\nSwitch 4 \"A\"\n"),
        Error::DuplicateNode {
            line: 3,
            name: "A".into(),
            first_line: 1
        }
    );
    assert_eq!(
        err("Switch 2 \"A\"\n\nCa 1 \"H\"\n"),
        Error::TerminalWithoutLink {
            line: 3,
            name: "H".into()
        }
    );
}

#[test]
fn ends_with_different_rates_keep_the_slower_and_warn() {
    let (f, warnings) = read_ibnetdiscover_with_warnings(&corpus("rate-mismatch.topo")).unwrap();
    let sw = f.node_by_name("S-0008f10400410015").unwrap();
    let hca = f.node_by_name("H-0008f10403960984").unwrap();
    let link = f.link(f.link_at(hca, PortNo::new(1)).unwrap());
    assert_eq!(link.rate.to_string(), "1xSDR");
    let agreed = f.link(f.link_at(sw, PortNo::new(7)).unwrap());
    assert_eq!(agreed.rate.to_string(), "4xDDR");
    assert_eq!(
        warnings,
        vec![Warning::RateMismatch {
            line: 4,
            other_line: 13,
            node: "S-0008f10400410015".into(),
            port: 6,
            peer: "H-0008f10403960984".into(),
            peer_port: 1,
            rate: "4xSDR".parse().unwrap(),
            other: "1xSDR".parse().unwrap(),
            kept: "1xSDR".parse().unwrap(),
        }]
    );
    assert!(
        warnings[0].to_string().contains("keeps 1xSDR"),
        "{}",
        warnings[0]
    );
    // The plain reader gives the same fabric; the slower end wins whichever is listed first.
    assert_eq!(
        read_ibnetdiscover(&corpus("rate-mismatch.topo")).unwrap(),
        f
    );
    let (g, w) = read_ibnetdiscover_with_warnings(
        "Switch 2 \"A\"\n[1] \"B\"[1] # 4xEDR\n\nSwitch 2 \"B\"\n[1] \"A\"[1] # 4xHDR\n",
    )
    .unwrap();
    assert_eq!(g.links()[0].rate, LinkRate::EDR_4X);
    assert_eq!(w.len(), 1);
    // Agreeing ends warn of nothing.
    let (_, none) = read_ibnetdiscover_with_warnings(&corpus("manpage.topo")).unwrap();
    assert_eq!(none, vec![]);
}

#[test]
fn unknown_lines_are_skipped_and_end_records() {
    let text = "garbage line\nSwitch 2 \"A\"\n[1] \"B\"[1]\nChassis 7\n[2] \"B\"[2]\n\nSwitch 2 \"B\"\n[1] \"A\"[1]\n";
    let f = read_ibnetdiscover(text).unwrap();
    // `[2] "B"[2]` follows a line that ended A's record: it belongs to no record.
    assert_eq!(f.link_count(), 1);
}

#[test]
fn a_file_without_a_node_record_is_an_error() {
    assert_eq!(err(""), Error::NoNodeRecord { lines: 0 });
    assert_eq!(
        err("# Fabric notes\n\n* `Switch` records come first\n"),
        Error::NoNodeRecord { lines: 3 }
    );
    // `ibnetdiscover -p` prints one line per port, no records.
    assert_eq!(
        err(&corpus("ports-listing.txt")),
        Error::NoNodeRecord { lines: 3 }
    );
    // One record is enough, even a switch with no link.
    assert_eq!(
        read_ibnetdiscover("Switch 2 \"A\"\n").map(|f| f.node_count()),
        Ok(1)
    );
}

#[test]
fn ibsim_port_options_are_accepted_and_checked() {
    let f = read_ibnetdiscover(&corpus("ibsim-options.net")).unwrap();
    assert_eq!(
        (f.switch_count(), f.terminal_count(), f.link_count()),
        (2, 1, 3)
    );
    // The options are enable masks: they set no rate.
    assert!(f.links().iter().all(|l| l.rate == LinkRate::EDR_4X));
    assert_eq!(read_ibnetdiscover(&write_ibnetdiscover(&f)).unwrap(), f);
    // ibsim's own checks: w in 1..=31, s in 0..=7, e in 0..=15.
    for bad in ["w=0", "w=32", "s=8", "e=16", "w=four", "w="] {
        let text = format!("Switch 2 \"A\"\n[1] \"B\"[1] {bad}\n\nSwitch 2 \"B\"\n[1] \"A\"[1]\n");
        assert!(
            matches!(err(&text), Error::MalformedPort { line: 2, .. }),
            "{bad}"
        );
    }
    // Text that is no option is still refused.
    assert!(matches!(
        err("Switch 2 \"A\"\n[1] \"B\"[1] w=4 trailing\n"),
        Error::MalformedPort { line: 2, .. }
    ));
}

#[test]
fn port_guids_lids_and_lmc_are_kept_and_written_back() {
    use fabric_model::{PortAddress, generators};
    let text = corpus("port-addresses.topo");
    let (f, warnings) = read_ibnetdiscover_with_warnings(&text).unwrap();
    assert_eq!(warnings, vec![]);
    let sw = f.node(f.node_by_name("S-248a0703005a7e00").unwrap());
    assert_eq!(sw.guid, Some(0x248a_0703_005a_7e00));
    assert_eq!(sw.lid, Some(7));
    assert_eq!(
        sw.port_address(PortNo::new(0)),
        PortAddress::new()
            .with_guid(0x248a_0703_005a_7e08)
            .with_lmc(1)
    );
    let ca = f.node(f.node_by_name("H-e41d2d0300167e50").unwrap());
    assert_eq!(ca.lid, Some(21));
    assert_eq!(ca.port_lid(PortNo::new(1)), Some(21));
    assert_eq!(ca.port_lid(PortNo::new(2)), Some(25));
    assert_eq!(
        ca.port_address(PortNo::new(2)),
        PortAddress::new()
            .with_guid(0xe41d_2d03_0016_7e62)
            .with_lid(25)
            .with_lmc(2)
    );
    assert_eq!(
        ca.port_address(PortNo::new(1)).guid,
        Some(0xe41d_2d03_0016_7e51)
    );
    // A port GUID equal to another node's GUID stays what the file says.
    let ca2 = f.node(f.node_by_name("H-0002c90300a1b2c0").unwrap());
    assert_eq!(ca2.guid, Some(0x0002_c903_00a1_b2c3));
    assert_eq!(
        ca2.port_address(PortNo::new(1)),
        PortAddress::new()
            .with_guid(0x0002_c903_00a1_b2c0)
            .with_lmc(0)
    );
    // Written back: every GUID, LID and LMC as read, nothing invented.
    let written = write_ibnetdiscover(&f);
    for needle in [
        "switchguid=0x248a0703005a7e00(248a0703005a7e08)\n",
        "base port 0 lid 7 lmc 1\n",
        "[2](e41d2d0300167e62) \t\"S-248a0703005a7e00\"[2]\t\t# lid 25 lmc 2 ",
        "[1](e41d2d0300167e51) \t\"S-248a0703005a7e00\"[1]\t\t# lid 21 lmc 2 ",
        "[3]\t\"H-0002c90300a1b2c0\"[1](2c90300a1b2c0) \t\t# \"node02 HCA-1\" lid 9 4xFDR\n",
        "[2]\t\"H-e41d2d0300167e50\"[2](e41d2d0300167e62) \t\t# \"node01 HCA-1\" lid 25 4xFDR\n",
    ] {
        assert!(written.contains(needle), "{needle:?} in\n{written}");
    }
    assert_eq!(read_ibnetdiscover(&written).unwrap(), f);
    // A generated fabric has no port GUIDs and no LMC: none is written.
    let g = generators::fat_tree(4).unwrap();
    let text = write_ibnetdiscover(&g);
    assert!(!text.contains("lmc") && !text.contains(")("), "{text}");
    assert!(
        text.lines()
            .filter(|l| l.starts_with('['))
            .all(|l| !l.contains('('))
    );
    assert!(text.contains("switchguid=0x2c90000000001\n"), "{text}");
}

#[test]
fn a_peer_stating_another_port_guid_warns_and_the_own_line_wins() {
    let text = "Switch 2 \"S\"\n[1] \"H\"[1](99) # lid 1 4xEDR\n\nCa 1 \"H\"\n[1](42) \"S\"[1] # lid 3 lmc 0 \"\" lid 1 4xEDR\n";
    let (f, w) = read_ibnetdiscover_with_warnings(text).unwrap();
    let h = f.node(f.node_by_name("H").unwrap());
    assert_eq!(h.port_address(PortNo::new(1)).guid, Some(0x42));
    assert!(matches!(
        w[..],
        [Warning::PortGuidMismatch {
            line: 2,
            port: 1,
            stated: 0x99,
            kept: 0x42,
            ..
        }]
    ));
}

#[test]
fn real_captures_keep_their_port_guids_when_written() {
    // Every `(guid)` of a port line, as text, in the file and in what is written back.
    fn port_guids(text: &str) -> std::collections::BTreeSet<String> {
        text.lines()
            .filter(|l| l.trim_start().starts_with('['))
            .flat_map(|l| {
                l.split('(')
                    .skip(1)
                    .filter_map(|p| p.split(')').next())
                    .map(|g| format!("{:x}", u64::from_str_radix(g, 16).unwrap()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
    for name in ["manpage.topo", "port-addresses.topo"] {
        let text = corpus(name);
        let f = read_ibnetdiscover(&text).unwrap();
        let written = write_ibnetdiscover(&f);
        assert_eq!(port_guids(&written), port_guids(&text), "{name}");
    }
    // This capture's switch line states 7cfe900300a5a2c0 for the CA port whose own line says
    // 7cfe900300a5a2c1: the own line wins, with a warning.
    let (f, w) = read_ibnetdiscover_with_warnings(&corpus("edge-cases.topo")).unwrap();
    assert!(matches!(
        w[..],
        [Warning::PortGuidMismatch {
            line: 13,
            port: 1,
            stated: 0x7cfe_9003_00a5_a2c0,
            kept: 0x7cfe_9003_00a5_a2c1,
            ..
        }]
    ));
    assert_eq!(
        port_guids(&write_ibnetdiscover(&f)),
        ["7cfe900300a5a2c1".to_owned()].into()
    );
}
