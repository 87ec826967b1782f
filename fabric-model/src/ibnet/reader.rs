use super::Warning;
use crate::hash::FxHashMap;
use crate::{
    DEFAULT_LATENCY, Error, Fabric, FabricBuilder, LinkRate, NodeId, NodeInfo, NodeKind,
    PortAddress, PortNo,
};

const NONE: u32 = u32::MAX;

struct Record<'a> {
    name: &'a str,
    kind: NodeKind,
    router: bool,
    ports: u16,
    guid: Option<u64>,
    /// A switch's port 0 GUID (`switchguid=0x…(<port guid>)`).
    port0_guid: Option<u64>,
    description: Option<&'a str>,
    lid: Option<u16>,
    /// The header's `lmc`: a switch's port 0 LMC.
    lmc: Option<u8>,
    line: usize,
    slot_base: usize,
}

struct Entry<'a> {
    node: u32,
    port: u16,
    peer: &'a str,
    peer_port: u32,
    rate: Option<LinkRate>,
    own_guid: Option<u64>,
    peer_guid: Option<u64>,
    own_lid: Option<u16>,
    own_lmc: Option<u8>,
    line: usize,
}

/// A cursor over one line.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Self { s, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }

    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += ws_len(r);
    }

    fn eat(&mut self, c: char) -> bool {
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn digits(&mut self) -> Option<&'a str> {
        let r = self.rest();
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        (n > 0).then(|| {
            self.pos += n;
            &r[..n]
        })
    }

    /// A `"…"` string; `Ok(None)` when the cursor is not at a quote.
    fn quoted(&mut self, line: usize) -> Result<Option<&'a str>, Error> {
        if !self.eat('"') {
            return Ok(None);
        }
        let r = self.rest();
        let end = byte_pos(r, b'"').ok_or(Error::UnterminatedQuote { line })?;
        self.pos += end + 1;
        Ok(Some(&r[..end]))
    }

    /// `(hex)`; `None` when not at `(`.
    fn paren_guid(&mut self, line: usize) -> Result<Option<u64>, Error> {
        if !self.eat('(') {
            return Ok(None);
        }
        let r = self.rest();
        let end = byte_pos(r, b')').ok_or_else(|| Error::MalformedGuid {
            line,
            text: r.to_owned(),
        })?;
        let guid = parse_guid(&r[..end], line)?;
        self.pos += end + 1;
        Ok(Some(guid))
    }

    /// `[ext N]`, discarded.
    fn ext(&mut self) {
        if self.rest().starts_with("[ext")
            && let Some(end) = byte_pos(self.rest(), b']')
        {
            self.pos += end + 1;
        }
    }

    /// `[n]` as a port number.
    fn port(&mut self, line: usize, what: &str) -> Result<u32, Error> {
        let bad = |reason: String| Error::MalformedPort { line, reason };
        if !self.eat('[') {
            return Err(bad(format!("expected `[` before the {what}")));
        }
        let d = self
            .digits()
            .ok_or_else(|| bad(format!("the {what} is not a number")))?;
        if !self.eat(']') {
            return Err(bad(format!("expected `]` after the {what}")));
        }
        d.parse::<u32>()
            .map_err(|_| bad(format!("the {what} {d} is too large")))
    }
}

/// The index of the first `b` (an ASCII byte) in `s`: what `s.find(b as char)` gives, by a
/// plain loop, which beats `memchr`'s setup on the short spans between a port line's fields.
fn byte_pos(s: &str, b: u8) -> Option<usize> {
    debug_assert!(b.is_ascii());
    s.as_bytes().iter().position(|&c| c == b)
}

/// Whether an ASCII byte is white space as [`char::is_whitespace`] says (which, unlike
/// [`u8::is_ascii_whitespace`], counts the vertical tab).
fn ascii_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// The length in bytes of the white space (as [`char::is_whitespace`] says) that `s` starts
/// with: what `s.trim_start()` removes, byte by byte while the text is ASCII (it nearly always
/// is), char by char past the first non-ASCII byte.
fn ws_len(s: &str) -> usize {
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if !b.is_ascii() {
            return i + (s[i..].len() - s[i..].trim_start().len());
        }
        if !ascii_ws(b) {
            return i;
        }
    }
    s.len()
}

/// The length in bytes of the word that `s` starts with: up to the first white space (as
/// [`char::is_whitespace`] says) or `"`, byte by byte while the text is ASCII.
fn word_len(s: &str) -> usize {
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if !b.is_ascii() {
            return i + s[i..]
                .find(|ch: char| ch.is_whitespace() || ch == '"')
                .unwrap_or(s.len() - i);
        }
        if ascii_ws(b) || b == b'"' {
            return i;
        }
    }
    s.len()
}

fn parse_guid(text: &str, line: usize) -> Result<u64, Error> {
    let t = text.trim();
    let hex = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    if hex.is_empty() || hex.len() > 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::MalformedGuid {
            line,
            text: text.to_owned(),
        });
    }
    u64::from_str_radix(hex, 16).map_err(|_| Error::MalformedGuid {
        line,
        text: text.to_owned(),
    })
}

/// The tokens of a `# …` tail: quoted strings and whitespace-separated words.
enum Token<'a> {
    Quoted(&'a str),
    Word(&'a str),
}

/// Iterates the tokens of a `# …` tail: quoted strings and whitespace-separated words.
struct Tokens<'a> {
    c: Cursor<'a>,
    line: usize,
}

fn tail_tokens(tail: &str, line: usize) -> Tokens<'_> {
    Tokens {
        c: Cursor::new(tail),
        line,
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Result<Token<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.c.skip_ws();
        if self.c.rest().is_empty() {
            return None;
        }
        match self.c.quoted(self.line) {
            Err(e) => {
                self.c.pos = self.c.s.len();
                Some(Err(e))
            }
            Ok(Some(q)) => Some(Ok(Token::Quoted(q))),
            Ok(None) => {
                let r = self.c.rest();
                let n = word_len(r);
                self.c.pos += n;
                Some(Ok(Token::Word(&r[..n])))
            }
        }
    }
}

/// A word that parses as a link rate (`4xEDR`); cheap refusal of the other words.
fn rate_of(word: &str) -> Option<LinkRate> {
    if word.as_bytes().first().is_some_and(u8::is_ascii_digit) && word.contains('x') {
        word.parse().ok()
    } else {
        None
    }
}

fn valid_text(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

fn header<'a>(keyword: &str, line_text: &'a str, line: usize) -> Result<Record<'a>, Error> {
    let bad = |reason: &str| Error::MalformedHeader {
        line,
        reason: reason.to_owned(),
    };
    let (kind, router) = match keyword {
        "Switch" => (NodeKind::Switch, false),
        "Rt" => (NodeKind::Terminal, true),
        _ => (NodeKind::Terminal, false),
    };
    let mut c = Cursor::new(line_text.trim_start());
    c.pos = keyword.len();
    c.skip_ws();
    let ports = c
        .digits()
        .ok_or_else(|| bad("the port count is not a number"))?;
    let ports: u16 = ports
        .parse()
        .ok()
        .filter(|&p| p > 0 && p < u16::MAX)
        .ok_or_else(|| bad("the port count must be 1..=65534"))?;
    c.skip_ws();
    let name = c
        .quoted(line)?
        .ok_or_else(|| bad("expected the quoted node id"))?;
    if name.is_empty() || !valid_text(name) {
        return Err(bad("the node id is empty or holds a control character"));
    }
    let mut description = None;
    let mut lid = None;
    let mut lmc = None;
    if let Some(hash) = byte_pos(c.rest(), b'#') {
        // One pass over the tail's tokens: the description is the first if quoted; `lid`
        // and `lmc` take the first number that follows a word of that name. A malformed
        // token anywhere in the tail is reported before a bad description.
        let mut previous: Option<&str> = None;
        let mut bad_description = false;
        for (k, token) in tail_tokens(&c.rest()[hash + 1..], line).enumerate() {
            match token? {
                Token::Quoted(d) => {
                    if k == 0 {
                        bad_description = !valid_text(d);
                        description = (!d.is_empty()).then_some(d);
                    }
                    previous = None;
                }
                Token::Word(w) => {
                    match previous {
                        Some("lid") if lid.is_none() => lid = w.parse().ok(),
                        Some("lmc") if lmc.is_none() => lmc = w.parse().ok(),
                        _ => {}
                    }
                    previous = Some(w);
                }
            }
        }
        if bad_description {
            return Err(bad("the description holds a control character"));
        }
    }
    Ok(Record {
        name,
        kind,
        router,
        ports,
        guid: None,
        port0_guid: None,
        description,
        lid,
        lmc,
        line,
        slot_base: 0,
    })
}

/// Reads ibnetdiscover or ibsim topology text (see the [module docs](crate::ibnet)).
///
/// # Errors
/// With the 1-based line number: [`Error::MalformedHeader`], [`Error::MalformedPort`],
/// [`Error::UnterminatedQuote`], [`Error::MalformedGuid`], [`Error::PortPastRadix`],
/// [`Error::PortListedTwice`], [`Error::DuplicateNode`], [`Error::UnknownPeer`],
/// [`Error::OneSidedLink`] (a link listed by one end only, or ends that disagree),
/// [`Error::TerminalWithoutLink`], [`Error::NoNodeRecord`] (not one node record in the text).
/// [`Error::RateMismatch`] is no longer returned: the ends of a link may report different
/// rates (each prints its own PortInfo); the link keeps the slower, and
/// [`read_ibnetdiscover_with_warnings`] tells which links disagreed.
///
/// # Complexity
/// O(length of the text): one pass over the lines, one over the port lines.
pub fn read_ibnetdiscover(text: &str) -> Result<Fabric, Error> {
    read_ibnetdiscover_with_warnings(text).map(|(fabric, _)| fabric)
}

/// Reads ibnetdiscover or ibsim topology text as [`read_ibnetdiscover`] does, and also returns
/// what the text says that the fabric cannot keep, as [`Warning`]s in line order: for now the
/// links whose two ends report different rates ([`Warning::RateMismatch`]; the link keeps the
/// slower rate).
///
/// ```
/// use fabric_model::ibnet::{Warning, read_ibnetdiscover_with_warnings};
///
/// let text = "Switch 2 \"A\"\n[1] \"B\"[1] # 4xSDR\n\nSwitch 2 \"B\"\n[1] \"A\"[1] # 1xSDR\n";
/// let (fabric, warnings) = read_ibnetdiscover_with_warnings(text)?;
/// assert_eq!(fabric.links()[0].rate.to_string(), "1xSDR");
/// assert!(matches!(warnings[..], [Warning::RateMismatch { line: 2, other_line: 5, .. }]));
/// # Ok::<(), fabric_model::Error>(())
/// ```
///
/// # Errors
/// As [`read_ibnetdiscover`].
pub fn read_ibnetdiscover_with_warnings(text: &str) -> Result<(Fabric, Vec<Warning>), Error> {
    let mut records: Vec<Record<'_>> = Vec::new();
    let mut entries: Vec<Entry<'_>> = Vec::new();
    // Per port slot of each record: index into `entries`, or NONE.
    let mut slot_entry: Vec<u32> = Vec::new();
    let mut pending_guid: Option<(u64, Option<u64>)> = None;
    let mut current: Option<u32> = None;
    let mut lines = 0;
    for (i, raw) in text.lines().enumerate() {
        lines = i + 1;
        let line = i + 1;
        let t = raw.trim();
        if t.starts_with('[') {
            let Some(node) = current else { continue };
            let p = port_line(t, line)?;
            let rec = &mut records[node as usize];
            if p.port == 0 || p.port > u32::from(rec.ports) {
                return Err(Error::PortPastRadix {
                    line,
                    node: rec.name.to_owned(),
                    port: p.port,
                    radix: rec.ports,
                });
            }
            let port = p.port as u16;
            let slot = rec.slot_base + usize::from(port) - 1;
            if let Some(first) = entries.get(slot_entry[slot] as usize) {
                return Err(Error::PortListedTwice {
                    line,
                    node: rec.name.to_owned(),
                    port,
                    first_line: first.line,
                });
            }
            slot_entry[slot] =
                u32::try_from(entries.len()).map_err(|_| Error::TooLarge { what: "links" })?;
            entries.push(Entry {
                node,
                port,
                peer: p.peer,
                peer_port: p.peer_port,
                rate: p.rate,
                own_guid: p.own_guid,
                peer_guid: p.peer_guid,
                // Only a CA's tail starts with its own LID; a switch's names the peer's.
                own_lid: p.own_lid.filter(|_| rec.kind == NodeKind::Terminal),
                own_lmc: p.own_lmc.filter(|_| rec.kind == NodeKind::Terminal),
                line,
            });
            continue;
        }
        if t.starts_with('#') || t.starts_with('@') {
            continue;
        }
        current = None;
        let keyword = t
            .split(|c: char| c.is_whitespace() || c.is_ascii_digit())
            .next()
            .unwrap_or("");
        match keyword {
            "Switch" | "Ca" | "Hca" | "Rt" => {
                let mut r = header(keyword, t, line)?;
                if let Some((guid, port0)) = pending_guid.take() {
                    r.guid = Some(guid);
                    r.port0_guid = port0.filter(|_| r.kind == NodeKind::Switch);
                }
                r.slot_base = slot_entry.len();
                slot_entry.extend(std::iter::repeat_n(NONE, usize::from(r.ports)));
                current = Some(
                    u32::try_from(records.len()).map_err(|_| Error::TooLarge { what: "nodes" })?,
                );
                records.push(r);
            }
            _ => {
                for key in ["switchguid=", "caguid=", "hcaguids=", "rtguid="] {
                    if let Some(v) = t.strip_prefix(key) {
                        let hex = v.split(['(', ',']).next().unwrap_or(v);
                        let guid = parse_guid(hex, line)?;
                        // `switchguid=0x…(<port 0 GUID>)`.
                        let port0 = match v[hex.len()..].strip_prefix('(') {
                            Some(rest) => {
                                let end = rest.find(')').ok_or_else(|| Error::MalformedGuid {
                                    line,
                                    text: rest.to_owned(),
                                })?;
                                Some(parse_guid(&rest[..end], line)?)
                            }
                            None => None,
                        };
                        pending_guid = Some((guid, port0));
                    }
                }
            }
        }
    }
    if records.is_empty() {
        return Err(Error::NoNodeRecord { lines });
    }
    let mut warnings = Vec::new();
    let fabric = link_up(&records, &entries, &slot_entry, &mut warnings)?;
    Ok((fabric, warnings))
}

struct PortLine<'a> {
    port: u32,
    peer: &'a str,
    peer_port: u32,
    rate: Option<LinkRate>,
    own_guid: Option<u64>,
    peer_guid: Option<u64>,
    own_lid: Option<u16>,
    own_lmc: Option<u8>,
}

fn port_line(t: &str, line: usize) -> Result<PortLine<'_>, Error> {
    let mut c = Cursor::new(t);
    let port = c.port(line, "port")?;
    c.ext();
    c.skip_ws();
    let own_guid = c.paren_guid(line)?;
    c.skip_ws();
    let peer = c.quoted(line)?.ok_or_else(|| Error::MalformedPort {
        line,
        reason: "expected the quoted peer id".to_owned(),
    })?;
    let peer_port = c.port(line, "peer port")?;
    c.ext();
    c.skip_ws();
    let peer_guid = c.paren_guid(line)?;
    port_options(&mut c, line)?;
    let rest = c.rest();
    let mut rate = None;
    let mut own_lid: Option<Option<u16>> = None;
    let mut own_lmc: Option<Option<u8>> = None;
    if let Some(tail) = rest.strip_prefix('#') {
        for (k, tok) in tail_tokens(tail, line).enumerate() {
            match tok? {
                // A CA's own LID and LMC lead its tail (`# lid 4 lmc 0 "peer" lid 6 4xSDR`).
                Token::Word("lid") if k == 0 => own_lid = Some(None),
                Token::Word(n) if k == 1 && own_lid == Some(None) => {
                    own_lid = Some(n.parse().ok());
                }
                // An LMC means something only beside the LID it masks: after a `lid` word
                // whose value is not a number it is not the port's (and the writer, which
                // prints an LMC only after a LID, could not give it back).
                Token::Word("lmc") if k == 2 && matches!(own_lid, Some(Some(_))) => {
                    own_lmc = Some(None);
                }
                Token::Word(n) if k == 3 && own_lmc == Some(None) => {
                    own_lmc = Some(n.parse().ok());
                }
                Token::Word(w) if rate.is_none() => rate = rate_of(w),
                _ => {}
            }
        }
    } else if !rest.is_empty() {
        return Err(Error::MalformedPort {
            line,
            reason: format!("unexpected text {rest:?} after the peer port"),
        });
    }
    Ok(PortLine {
        port,
        peer,
        peer_port,
        rate,
        own_guid,
        peer_guid,
        own_lid: own_lid.flatten(),
        own_lmc: own_lmc.flatten(),
    })
}

/// ibsim's per-port options after the peer port: whitespace-separated `key=value` words up to
/// the end of the line or a `#`. ibsim reads the letter before `=` and checks `w` (link width
/// enable mask, 1..=31), `s` (link speed enable mask, 0..=7, 0 meaning QDR) and `e` (extended
/// speed enable mask, 0..=15), ignoring any other key; so does this reader. The masks say what
/// a port may do, not what it does, so they do not set the link's rate.
fn port_options(c: &mut Cursor<'_>, line: usize) -> Result<(), Error> {
    loop {
        c.skip_ws();
        let r = c.rest();
        if r.is_empty() || r.starts_with('#') {
            return Ok(());
        }
        let n = r.find(char::is_whitespace).unwrap_or(r.len());
        let word = &r[..n];
        let bad = |reason: String| Error::MalformedPort { line, reason };
        let Some((key, value)) = word
            .split_once('=')
            .filter(|(k, _)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphabetic()))
        else {
            return Err(bad(format!("unexpected text {r:?} after the peer port")));
        };
        let number = value
            .strip_prefix("0x")
            .or_else(|| value.strip_prefix("0X"))
            .map_or_else(|| value.parse::<u32>(), |h| u32::from_str_radix(h, 16));
        let range = match key.as_bytes().last() {
            Some(b'w') => Some(1..=31),
            Some(b's') => Some(0..=7),
            Some(b'e') => Some(0..=15),
            _ => None,
        };
        if let Some(range) = range
            && !number.is_ok_and(|v| range.contains(&v))
        {
            return Err(bad(format!(
                "port option {word:?}: {key} must be a number in {}..={}",
                range.start(),
                range.end()
            )));
        }
        c.pos += n;
    }
}

/// The nodes' infos with their port tables: a switch's port 0 from its GUID line and header,
/// each port from its own line (GUID; for a CA, LID and LMC), then the port GUIDs that peers'
/// lines state where the port's own line gave none. A CA's first listed LID becomes the node's
/// [`lid`](NodeInfo::lid) (unless its header gave one), and a port keeps its own LID only
/// where it differs, so that writing and reading again gives an equal fabric. Loopback lines
/// are skipped, as their cables are.
fn node_infos(
    records: &[Record<'_>],
    entries: &[Entry<'_>],
    peers: &[u32],
    warnings: &mut Vec<Warning>,
) -> Vec<NodeInfo> {
    let mut infos: Vec<NodeInfo> = records
        .iter()
        .map(|r| {
            let mut info = match r.kind {
                NodeKind::Switch => NodeInfo::switch(r.name, r.ports),
                NodeKind::Terminal => NodeInfo::terminal(r.name, r.ports),
            };
            info.guid = r.guid;
            info.description = r.description.map(str::to_owned);
            info.lid = r.lid;
            info.router = r.router;
            if r.kind == NodeKind::Switch {
                let mut a = PortAddress::new();
                a.guid = r.port0_guid;
                a.lmc = r.lmc;
                info.set_port_address(PortNo::new(0), a);
            }
            info
        })
        .collect();
    for (e, &peer) in entries.iter().zip(peers) {
        if peer == e.node || (e.own_guid, e.own_lid, e.own_lmc) == (None, None, None) {
            continue;
        }
        let info = &mut infos[e.node as usize];
        let port = PortNo::new(e.port);
        let mut a = info.port_address(port);
        a.guid = e.own_guid;
        if info.kind == NodeKind::Terminal {
            match (info.lid, e.own_lid) {
                (None, Some(l)) => info.lid = Some(l),
                (Some(n), Some(l)) if n != l => a.lid = Some(l),
                _ => {}
            }
            a.lmc = e.own_lmc;
        }
        info.set_port_address(port, a);
    }
    for (e, &peer) in entries.iter().zip(peers) {
        let Some(stated) = e.peer_guid else { continue };
        let info = &mut infos[peer as usize];
        let Ok(q) = u16::try_from(e.peer_port) else {
            continue;
        };
        if peer == e.node || q == 0 || q > info.ports {
            continue; // a loopback, or refused later as past the radix
        }
        let port = PortNo::new(q);
        let mut a = info.port_address(port);
        match a.guid {
            None => {
                a.guid = Some(stated);
                info.set_port_address(port, a);
            }
            Some(own) if own != stated => warnings.push(Warning::PortGuidMismatch {
                line: e.line,
                node: info.name.clone(),
                port: q,
                stated,
                kept: own,
            }),
            Some(_) => {}
        }
    }
    infos
}

fn link_up(
    records: &[Record<'_>],
    entries: &[Entry<'_>],
    slot_entry: &[u32],
    warnings: &mut Vec<Warning>,
) -> Result<Fabric, Error> {
    let mut by_name: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(records.len(), Default::default());
    for (i, r) in records.iter().enumerate() {
        if let Some(&first) = by_name.get(r.name) {
            return Err(Error::DuplicateNode {
                line: r.line,
                name: r.name.to_owned(),
                first_line: records[first as usize].line,
            });
        }
        by_name.insert(r.name, i as u32);
    }
    let peers: Vec<u32> = entries
        .iter()
        .map(|e| {
            by_name
                .get(e.peer)
                .copied()
                .ok_or_else(|| Error::UnknownPeer {
                    line: e.line,
                    peer: e.peer.to_owned(),
                })
        })
        .collect::<Result<_, _>>()?;
    let infos = node_infos(records, entries, &peers, warnings);
    let mut b = FabricBuilder::with_capacity(records.len(), slot_entry.len(), entries.len() / 2);
    for (r, info) in records.iter().zip(infos) {
        b.add_node(info).map_err(|e| Error::MalformedHeader {
            line: r.line,
            reason: e.to_string(),
        })?;
    }
    let mut linked = vec![false; records.len()];
    for (e, &peer) in entries.iter().zip(&peers) {
        if peer == e.node {
            continue; // loopback cable
        }
        let pr = &records[peer as usize];
        if e.peer_port == 0 || e.peer_port > u32::from(pr.ports) {
            return Err(Error::PortPastRadix {
                line: e.line,
                node: pr.name.to_owned(),
                port: e.peer_port,
                radix: pr.ports,
            });
        }
        let peer_port = e.peer_port as u16;
        let back_index = slot_entry[pr.slot_base + usize::from(peer_port) - 1] as usize;
        let back = entries.get(back_index).filter(|b| {
            b.node == peer && peers[back_index] == e.node && b.peer_port == u32::from(e.port)
        });
        let Some(back) = back else {
            return Err(Error::OneSidedLink {
                line: e.line,
                node: records[e.node as usize].name.to_owned(),
                port: e.port,
                peer: pr.name.to_owned(),
                peer_port,
            });
        };
        // Each link once, from the end listed first.
        if back.line < e.line {
            continue;
        }
        let rate = match (e.rate, back.rate) {
            (Some(a), Some(b)) if a != b => {
                // The slower end sets the pace; on equal bandwidth, the end listed first.
                let kept = if b.bandwidth() < a.bandwidth() { b } else { a };
                warnings.push(Warning::RateMismatch {
                    line: e.line,
                    other_line: back.line,
                    node: records[e.node as usize].name.to_owned(),
                    port: e.port,
                    peer: pr.name.to_owned(),
                    peer_port,
                    rate: a,
                    other: b,
                    kept,
                });
                kept
            }
            (a, b) => a.or(b).unwrap_or_default(),
        };
        linked[e.node as usize] = true;
        linked[peer as usize] = true;
        b.link_with(
            NodeId::new(e.node),
            PortNo::new(e.port),
            NodeId::new(peer),
            PortNo::new(peer_port),
            rate,
            DEFAULT_LATENCY,
        )?;
    }
    if let Some(r) = records
        .iter()
        .zip(&linked)
        .find(|(r, l)| r.kind == NodeKind::Terminal && !**l)
        .map(|(r, _)| r)
    {
        return Err(Error::TerminalWithoutLink {
            line: r.line,
            name: r.name.to_owned(),
        });
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::{byte_pos, word_len, ws_len};
    use proptest::prelude::*;

    /// Text mixing ASCII, the vertical tab, and the non-ASCII white space and letters that
    /// the byte-wise scanners hand over to `char` methods.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just(" "),
                Just("\t"),
                Just("\u{0B}"),
                Just("\u{0C}"),
                Just("\r"),
                Just("\u{85}"),
                Just("\u{a0}"),
                Just("\u{2003}"),
                Just("é"),
                Just("\""),
                Just("#"),
                Just("]"),
                Just(")"),
                Just("lid"),
                Just("4xEDR"),
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    #[test]
    fn the_vertical_tab_is_white_space_as_char_says() {
        assert_eq!(ws_len("\u{0B} x"), 2);
        assert_eq!(word_len("ab\u{0B}c"), 2);
        assert_eq!(ws_len(" \u{a0}x"), 3);
        assert_eq!(word_len("é\u{2003}"), 2);
    }

    proptest! {
        #[test]
        fn byte_scanners_agree_with_the_char_methods(s in text()) {
            prop_assert_eq!(ws_len(&s), s.len() - s.trim_start().len());
            prop_assert_eq!(
                word_len(&s),
                s.find(|ch: char| ch.is_whitespace() || ch == '"').unwrap_or(s.len())
            );
            for b in [b'"', b'#', b']', b')'] {
                prop_assert_eq!(byte_pos(&s, b), s.find(char::from(b)));
            }
        }
    }
}
