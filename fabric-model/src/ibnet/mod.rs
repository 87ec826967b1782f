//! The topology text of `ibnetdiscover` and `ibsim`: read it into a [`Fabric`](crate::Fabric) and write a
//! fabric back.
//!
//! # The format
//! A file is a sequence of node records. A record is an optional GUID line
//! (`switchguid=0x…(…)`, `caguid=0x…`, `rtguid=0x…`), a header line
//! `Switch|Ca|Hca|Rt <ports> "<id>" [# "<description>" … lid <n> …]`, then one line per
//! connected port: `[<port>][(<port guid>)] "<peer id>"[<peer port>][(<peer port guid>)]
//! [# … <width>x<SPEED>]`. A blank or any other line ends the record. Every link appears from
//! both ends, and both ends must name each other.
//!
//! Reading follows ibsim: lines it does not know (`vendid=`, `# Topology file…`, chassis
//! lines, stderr noise) are skipped; `#` lines inside a record are comments; whitespace may be
//! tabs or spaces; a description may hold `#`. The node's id string becomes its
//! [`name`](crate::NodeInfo::name); `Ca`/`Hca` and `Rt` records become terminals (routers
//! flagged). A loopback cable (a port wired to another port of the same node, seen on real
//! switches under test) can never carry traffic between nodes and is skipped. ibsim's per-port
//! options after the peer port (`w=4`, `s=2`, `e=1`: enable masks, checked against ibsim's
//! ranges; other `key=value` words accepted and ignored, as ibsim does) set no rate; other
//! text after the peer port is refused. Words past the rate token are ignored. Links get the rate of their `4xEDR`-style token
//! (4xEDR when absent) and [`DEFAULT_LATENCY`](crate::DEFAULT_LATENCY): the format has no
//! latency. Each end prints its own PortInfo, so the two ends of a link may give different
//! rates (the ibnetdiscover man page's own example has 1xSDR against 4xSDR): the link keeps
//! the slower, and [`read_ibnetdiscover_with_warnings`] reports the disagreement.
//!
//! Every GUID, LID and LMC the text gives is kept: the node GUID, a switch's port 0 GUID
//! (`switchguid=0x…(<port GUID>)`) and LMC (`base port 0 lid 6 lmc 0`), each port's GUID
//! (`[1](<guid>)`, or stated by the peer's line), a CA port's LID and LMC (`# lid 4 lmc 0 …`),
//! in [`NodeInfo::port_address`](crate::NodeInfo::port_address). A CA's first listed LID is
//! also its [`lid`](crate::NodeInfo::lid).
//!
//! Writing prints every node in id order, each with its GUID line when it has a GUID, and
//! every connected port in port order, with what is known of each port and nothing else: no
//! port GUID, LID or LMC is made up (a CA port without a LID of its own is written with the
//! node's [`lid`](crate::NodeInfo::lid)). Reading what was written gives back an equal
//! [`Fabric`](crate::Fabric) for every fabric whose links have the default latency.
//!
//! ```
//! use fabric_model::{generators, ibnet};
//!
//! let f = generators::fat_tree(4)?;
//! let text = ibnet::write_ibnetdiscover(&f);
//! assert!(text.contains("Switch\t4 \"S-0002c90000000001\""));
//! assert_eq!(ibnet::read_ibnetdiscover(&text)?, f);
//! # Ok::<(), fabric_model::Error>(())
//! ```

mod reader;
mod warning;
mod writer;

pub use reader::{read_ibnetdiscover, read_ibnetdiscover_with_warnings};
pub use warning::Warning;
pub use writer::{write_ibnetdiscover, write_ibnetdiscover_to};
