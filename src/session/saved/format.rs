//! A table of values as bytes in a file:
//!
//! | bytes | what |
//! |---|---|
//! | 16 | [`MAGIC`]: `sprague table`, a carriage return, a line feed and ^Z |
//! | 4 | the format's version, [`VERSION`] (little-endian) |
//! | 8 | the length of the body in bytes (little-endian) |
//! | the length | the body |
//! | 4 | the CRC-32 of every byte before it (little-endian) |
//!
//! The body is numbers, each in LEB128 (seven bits a byte, the lowest
//! first, the top bit set on every byte but the last): the games, as a
//! count and then, for each, the number its values are kept under, its
//! name and its rules (see [`super::rules_text`]), each text as a count of
//! bytes and the bytes; the declared graphs whose regions its keys are of,
//! a count and then for each the number its keys know it by, its name,
//! whether the board is of its edges (1) or of its nodes (0), its count of
//! nodes, and its edges as a count and each edge's two nodes (see
//! [`Identity`]); then the values by packed key, a count and then for
//! each the key's three words and the value; the values by dense address,
//! its game, volume, plane, row, column and value; and the values ruled
//! out by packed key, the three words and the bits. A key holds its
//! game's number where the rules put it (see [`crate::interp::packed_game`]),
//! and a graph's, if it is of one ([`crate::interp::packed_graph`]).
//! Version 1, read still, had no graphs.
//!
//! The magic says whose file it is, as PNG's does (a file moved as text,
//! its line ends changed, fails it); the length catches a file cut short
//! before the checksum is even read; the checksum every error of up to 32
//! bits in a row, so every flipped byte. Nothing read is trusted before it
//! is checked: every count against the bytes left, every value against
//! [`MAX_GRUNDY`], every key's game against the games listed.

use std::collections::{HashSet, TryReserveError};

use super::refused::Refused;
use crate::engine::{Address, MAX_GRUNDY, Packed, Snapshot};
use crate::interp::graphs::Identity;
use crate::interp::{packed_game, packed_graph};

/// The first bytes of every table.
pub const MAGIC: &[u8; 16] = b"sprague table\r\n\x1a";

/// The version of the format written and read.
pub const VERSION: u32 = 2;

/// The oldest version read: version 1 is version 2 without graphs.
const OLDEST: u32 = 1;

/// The bytes before the body: the magic, the version and the length.
const HEADER: usize = MAGIC.len() + 4 + 8;

/// The bytes after the body: the checksum.
const CHECKSUM: usize = 4;

/// A game whose values a table holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGame {
    /// The number its values are kept under in the table's keys.
    pub id: u32,
    pub name: String,
    /// Its declaration and those it refers to (see [`super::rules_text`]).
    pub rules: String,
}

/// A declared graph whose regions a table's keys are of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGraph {
    /// The number the table's keys know it by.
    pub number: u16,
    pub identity: Identity,
}

/// A table: the games, the graphs and their values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub games: Vec<SavedGame>,
    pub graphs: Vec<SavedGraph>,
    pub values: Snapshot,
}

/// The bytes of a table; `Err` when memory for them is refused.
pub fn encode(table: &Table) -> Result<Vec<u8>, TryReserveError> {
    // Measured first, so that the bytes are asked for once, exactly.
    let mut length = Length(0);
    body(table, &mut length);
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(HEADER + length.0 + CHECKSUM)?;
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(length.0 as u64).to_le_bytes());
    body(table, &mut bytes);
    let checksum = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    Ok(bytes)
}

/// Writes the body of a table (see the module's comment).
fn body(table: &Table, out: &mut impl Out) {
    let values = &table.values;
    out.number(table.games.len() as u64);
    for game in &table.games {
        out.number(u64::from(game.id));
        out.text(&game.name);
        out.text(&game.rules);
    }
    out.number(table.graphs.len() as u64);
    for graph in &table.graphs {
        out.number(u64::from(graph.number));
        out.text(&graph.identity.name);
        out.number(u64::from(graph.identity.lines));
        out.number(graph.identity.nodes as u64);
        out.number(graph.identity.edges.len() as u64);
        for &(a, b) in &graph.identity.edges {
            out.number(u64::from(a));
            out.number(u64::from(b));
        }
    }
    out.number(values.packed.len() as u64);
    for &(key, value) in &values.packed {
        out.key(key);
        out.number(value);
    }
    out.number(values.dense.len() as u64);
    for &(address, value) in &values.dense {
        out.number(u64::from(address.table));
        for at in address.point() {
            out.number(u64::from(at));
        }
        out.number(value);
    }
    out.number(values.ruled_out.len() as u64);
    for &(key, bits) in &values.ruled_out {
        out.key(key);
        out.number(bits);
    }
}

/// Where a body is written: bytes, or their count.
trait Out {
    fn bytes(&mut self, bytes: &[u8]);

    fn number(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.bytes(&[n as u8 | 0x80]);
            n >>= 7;
        }
        self.bytes(&[n as u8]);
    }

    fn text(&mut self, text: &str) {
        self.number(text.len() as u64);
        self.bytes(text.as_bytes());
    }

    fn key(&mut self, key: Packed) {
        for word in key.0 {
            self.number(word);
        }
    }
}

impl Out for Vec<u8> {
    fn bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// The length of a body, counted as it would be written.
struct Length(usize);

impl Out for Length {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

/// The bytes of a file that may be a table, for [`decode`]: its header,
/// and then only if it begins as a table does, as many more as the header
/// says the table has (and one, to see that it ends there), in room asked
/// for at once as far as the file's size goes. A stream that is no table
/// (`/dev/zero`) was read whole into memory first. Room not given is
/// [`std::io::ErrorKind::OutOfMemory`].
pub fn read(mut file: std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(HEADER);
    (&mut file).take(HEADER as u64).read_to_end(&mut bytes)?;
    if bytes.len() < HEADER || !bytes.starts_with(MAGIC) {
        return Ok(bytes);
    }
    let length = body_length(&bytes);
    let more = length.saturating_add(CHECKSUM as u64 + 1);
    let left = file
        .metadata()
        .map_or(0, |file| file.len().saturating_sub(HEADER as u64));
    let room = usize::try_from(more.min(left)).unwrap_or(usize::MAX);
    bytes
        .try_reserve_exact(room)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
    file.take(more).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The length of the body a table's header gives, from its bytes (at
/// least [`HEADER`] of them).
fn body_length(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[HEADER - 8..HEADER].try_into().expect("eight bytes"))
}

/// Whether a table is whole but for the length its header gives: its
/// checksum matches its bytes with the length they have written in.
fn only_its_length_altered(bytes: &[u8]) -> bool {
    let end = bytes.len() - CHECKSUM;
    let length = (end - HEADER) as u64;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[..HEADER - 8]);
    crc.update(&length.to_le_bytes());
    crc.update(&bytes[HEADER..end]);
    crc.finalize().to_le_bytes() == bytes[end..]
}

/// The table in the bytes of the file at `path`, or why it is refused.
pub fn decode(path: &str, bytes: &[u8]) -> Result<Table, Refused> {
    let path = path.to_owned();
    let found = bytes.len() as u64;
    if !bytes.starts_with(MAGIC) && !MAGIC.starts_with(bytes) {
        return Err(Refused::Foreign { path });
    }
    if bytes.len() < HEADER + CHECKSUM {
        let expected = format!("at least {}", HEADER + CHECKSUM);
        return Err(Refused::Truncated {
            path,
            found,
            expected,
        });
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"));
    let version = word(MAGIC.len());
    if !(OLDEST..=VERSION).contains(&version) {
        return Err(Refused::Version {
            path,
            found: version,
            reads: VERSION,
        });
    }
    let length = body_length(bytes);
    let whole = length.saturating_add((HEADER + CHECKSUM) as u64);
    if found != whole && only_its_length_altered(bytes) {
        let reason = format!(
            "its header gives a length of {length} bytes, where its {} bytes and checksum say {}",
            found,
            found - (HEADER + CHECKSUM) as u64
        );
        return Err(Refused::Altered { path, reason });
    }
    if found < whole {
        return Err(Refused::Truncated {
            path,
            found,
            expected: whole.to_string(),
        });
    }
    if found > whole {
        let reason = format!(
            "it has {} past the end its header gives",
            crate::eval::count(found - whole, "byte", "bytes")
        );
        return Err(Refused::Altered { path, reason });
    }
    let end = bytes.len() - CHECKSUM;
    if crc32fast::hash(&bytes[..end]) != word(end) {
        let reason = "its checksum does not match its contents".to_owned();
        return Err(Refused::Altered { path, reason });
    }
    let mut body = Reader {
        bytes: &bytes[HEADER..end],
        version,
    };
    let read = body.table().and_then(|table| match body.bytes.len() {
        0 => Ok(table),
        left => Err(format!("{left} bytes are left after its values").into()),
    });
    read.map_err(|unread| match unread {
        Unread::Malformed(reason) => Refused::Malformed { path, reason },
        Unread::Memory => Refused::Memory {
            path,
            doing: "read",
            size: format!("{found} bytes"),
            help: super::READ_MEMORY,
        },
    })
}

/// Why the body of a table was not read.
pub enum Unread {
    /// It is not as [`encode`] writes it.
    Malformed(String),
    /// Memory for its values was refused.
    Memory,
}

impl From<String> for Unread {
    fn from(reason: String) -> Unread {
        Unread::Malformed(reason)
    }
}

impl From<&str> for Unread {
    fn from(reason: &str) -> Unread {
        Unread::Malformed(reason.to_owned())
    }
}

impl From<TryReserveError> for Unread {
    fn from(_: TryReserveError) -> Unread {
        Unread::Memory
    }
}

/// The body of a table of a version, read from the front.
struct Reader<'a> {
    bytes: &'a [u8],
    version: u32,
}

type Read<T> = Result<T, Unread>;

impl Reader<'_> {
    fn table(&mut self) -> Read<Table> {
        let games = self.games()?;
        let graphs = match self.version {
            1 => Vec::new(),
            _ => self.graphs()?,
        };
        let ids: HashSet<u32> = games.iter().map(|game| game.id).collect();
        let numbers: HashSet<u16> = graphs.iter().map(|graph| graph.number).collect();
        let listed_game = |id: u32| -> Read<()> {
            match ids.contains(&id) {
                true => Ok(()),
                false => Err(format!("a value is of game {id}, which it does not list").into()),
            }
        };
        let listed = |key: Packed| -> Read<()> {
            listed_game(packed_game(key).0)?;
            match packed_graph(key) {
                Some(number) if !numbers.contains(&number) => {
                    Err(format!("a value is of graph {number}, which it does not list").into())
                }
                _ => Ok(()),
            }
        };
        let mut values = Snapshot::default();
        let count = self.count(4, "values by packed key")?;
        values.packed.try_reserve_exact(count)?;
        for _ in 0..count {
            let key = self.key()?;
            listed(key)?;
            values.packed.push((key, self.value()?));
        }
        let count = self.count(6, "values by address")?;
        values.dense.try_reserve_exact(count)?;
        for _ in 0..count {
            let table = self.small()?;
            listed_game(table)?;
            let [volume, plane, row, col] =
                [self.small()?, self.small()?, self.small()?, self.small()?];
            let address = Address {
                table,
                volume,
                plane,
                row,
                col,
            };
            values.dense.push((address, self.value()?));
        }
        let count = self.count(4, "values ruled out")?;
        values.ruled_out.try_reserve_exact(count)?;
        for _ in 0..count {
            let key = self.key()?;
            listed(key)?;
            values.ruled_out.push((key, self.number()?));
        }
        // As a table is written, it lists the graphs its keys are of, and
        // no others.
        let mut unused = numbers;
        let keys = values.packed.iter().chain(&values.ruled_out);
        for number in keys.filter_map(|&(key, _)| packed_graph(key)) {
            unused.remove(&number);
        }
        if let Some(number) = unused.iter().min() {
            return Err(format!("it lists graph {number}, which no value is of").into());
        }
        Ok(Table {
            games,
            graphs,
            values,
        })
    }

    /// The graphs, each the board of a key's region (see
    /// [`Identity::unfit`]).
    fn graphs(&mut self) -> Read<Vec<SavedGraph>> {
        let count = self.count(4, "graphs")?;
        let mut graphs: Vec<SavedGraph> = Vec::new();
        graphs.try_reserve_exact(count)?;
        let mut numbers = HashSet::new();
        for _ in 0..count {
            let number = self.small()?;
            let number = u16::try_from(number)
                .ok()
                .filter(|&number| number < u16::MAX)
                .ok_or_else(|| format!("{number} is no graph's number"))?;
            if !numbers.insert(number) {
                return Err(format!("it lists graph {number} twice").into());
            }
            let name = self.text()?;
            let lines = match self.number()? {
                0 => false,
                1 => true,
                other => return Err(format!("{other} is no kind of board of a graph").into()),
            };
            let nodes = usize::try_from(self.number()?).unwrap_or(usize::MAX);
            let count = self.count(2, "edges")?;
            let mut edges = Vec::new();
            edges.try_reserve_exact(count)?;
            for _ in 0..count {
                edges.push((self.small()?, self.small()?));
            }
            let identity = Identity {
                name,
                nodes,
                edges,
                lines,
            };
            if let Some(why) = identity.unfit() {
                return Err(format!("graph {number} {why}").into());
            }
            graphs.push(SavedGraph { number, identity });
        }
        Ok(graphs)
    }

    fn games(&mut self) -> Read<Vec<SavedGame>> {
        let count = self.count(3, "games")?;
        let mut games: Vec<SavedGame> = Vec::with_capacity(count);
        for _ in 0..count {
            let game = SavedGame {
                id: self.small()?,
                name: self.text()?,
                rules: self.text()?,
            };
            if games.iter().any(|other| other.id == game.id) {
                return Err(format!("it lists game {} twice", game.id).into());
            }
            games.push(game);
        }
        Ok(games)
    }

    fn number(&mut self) -> Read<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first().ok_or("it ends inside a number")?;
            self.bytes = rest;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err("a number does not fit in 64 bits".into());
            }
            n |= bits << shift;
            if byte < 0x80 {
                return Ok(n);
            }
        }
        Err("a number does not fit in 64 bits".into())
    }

    /// A number of 32 bits: a game or a coordinate.
    fn small(&mut self) -> Read<u32> {
        let n = self.number()?;
        u32::try_from(n).map_err(|_| format!("{n} does not fit in 32 bits").into())
    }

    fn value(&mut self) -> Read<u64> {
        match self.number()? {
            value if value > MAX_GRUNDY => Err(format!("{value} is no value").into()),
            value => Ok(value),
        }
    }

    fn key(&mut self) -> Read<Packed> {
        Ok(Packed([self.number()?, self.number()?, self.number()?]))
    }

    /// A count of things each at least `least` bytes long, no more than
    /// the bytes left can hold.
    fn count(&mut self, least: usize, what: &str) -> Read<usize> {
        let count = self.number()?;
        match usize::try_from(count) {
            Ok(count) if count <= self.bytes.len() / least => Ok(count),
            _ => Err(format!("it counts {count} {what} in {} bytes", self.bytes.len()).into()),
        }
    }

    fn text(&mut self) -> Read<String> {
        let length = self.count(1, "bytes of text")?;
        let (text, rest) = self.bytes.split_at(length);
        self.bytes = rest;
        String::from_utf8(text.to_vec()).map_err(|_| "a name is not UTF-8".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The key of a region of Cram (game 0) on the graph numbered
    /// `number`.
    fn on_graph(number: u64, bits: u64) -> Packed {
        let number = number + 1;
        Packed([3 | (number & 0xff) << 2 | (number >> 8) << 10, bits, 0])
    }

    /// A table of two games, two graphs (of nodes and of edges) and a few
    /// values of each kind.
    fn table() -> Table {
        let key = |game: u64, bits: u64| Packed([game << 18 | 3 << 2 | 4 << 10, bits, 0]);
        Table {
            games: vec![
                SavedGame {
                    id: 0,
                    name: "Cram".into(),
                    rules: "game Cram(s) splits { move Cram(s - {a, b}) for a in s }".into(),
                },
                SavedGame {
                    id: 5,
                    name: "Sub".into(),
                    rules: "game Sub(n) { move Sub(n - 1) if n > 0 }".into(),
                },
            ],
            graphs: vec![
                SavedGraph {
                    number: 300,
                    identity: Identity {
                        name: "Ladder".into(),
                        nodes: 4,
                        edges: vec![(0, 1), (1, 2), (2, 3), (3, 0)],
                        lines: false,
                    },
                },
                SavedGraph {
                    number: 301,
                    identity: Identity {
                        name: "Star".into(),
                        nodes: 200,
                        edges: vec![(0, 1), (0, 199)],
                        lines: true,
                    },
                },
            ],
            values: Snapshot {
                packed: (0..40)
                    .map(|bits| (key(0, bits * 977), bits % 5))
                    .chain([(on_graph(300, 0b1011), 1), (on_graph(301, 0b11), 0)])
                    .collect(),
                dense: (0..30)
                    .map(|n| {
                        let address = Address {
                            table: 5,
                            volume: 0,
                            plane: 0,
                            row: 0,
                            col: n * 1000,
                        };
                        (address, u64::from(n % 2))
                    })
                    .collect(),
                ruled_out: vec![(key(0, u64::MAX), 0b1011), (key(0, 1 << 40), 1)],
            },
        }
    }

    /// A table reads back as written; its bytes are measured before they
    /// are written, and asked for once: as many as it takes.
    #[test]
    fn a_table_reads_back_as_written() {
        let table = table();
        let bytes = encode(&table).unwrap();
        assert_eq!(bytes.capacity(), bytes.len());
        assert_eq!(decode("t", &bytes).unwrap(), table);
        assert_eq!(
            decode("t", &encode(&Table::default()).unwrap()).unwrap(),
            Table::default()
        );
    }

    /// Every file cut short is refused: the length in the header says
    /// where the file ends.
    #[test]
    fn every_table_cut_short_is_refused() {
        let bytes = encode(&table()).unwrap();
        for length in 0..bytes.len() {
            let refused = decode("t", &bytes[..length]).unwrap_err();
            // Even the magic cut short (or nothing at all) is a table cut
            // short, not someone else's file.
            assert!(
                matches!(refused, Refused::Truncated { .. }),
                "{length}: {refused}"
            );
        }
    }

    /// A CRC-32 catches every burst of errors up to 32 bits long, so
    /// every changed byte: in the magic, the version or the length, each
    /// says so; anywhere else, the checksum fails.
    #[test]
    fn every_changed_byte_is_refused() {
        let bytes = encode(&table()).unwrap();
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut altered = bytes.clone();
                altered[at] ^= flip;
                let refused = decode("t", &altered).unwrap_err();
                let expected = match at {
                    0..16 => matches!(refused, Refused::Foreign { .. }),
                    16..20 => matches!(refused, Refused::Version { .. }),
                    20..28 => {
                        matches!(refused, Refused::Truncated { .. } | Refused::Altered { .. })
                    }
                    _ => matches!(refused, Refused::Altered { .. }),
                };
                assert!(expected, "byte {at} ^ {flip:#x}: {refused}");
            }
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(decode("t", &longer), Err(Refused::Altered { .. })));
    }

    /// A body with a right checksum around it (so read in full) and the
    /// header's length right.
    fn sealed(body: &[u8]) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(body);
        let checksum = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    #[test]
    fn a_sealed_body_that_lies_is_refused() {
        let refused = |body: &[u8]| match decode("t", &sealed(body)) {
            Err(Refused::Malformed { reason, .. }) => reason,
            other => panic!("{body:?} read as {other:?}"),
        };
        // A count of more games than bytes left.
        assert!(refused(&[0xff, 0xff, 0xff, 0xff, 0x0f]).contains("counts"));
        // A value of a game not listed: no games, one value of game 0.
        assert!(refused(&[0, 0, 1, 0, 0, 0, 3, 0, 0]).contains("does not list"));
        // A value among the engine's states: game 0, one packed value of
        // 2^64 - 2.
        let mut body = vec![1, 0, 1, b'G', 0, 0, 1, 0, 0, 0];
        body.extend([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        body.extend([0, 0]);
        assert!(refused(&body).contains("is no value"));
        // A number of eleven bytes.
        assert!(refused(&[0x80; 11]).contains("64 bits"));
        // Bytes after the values.
        assert!(refused(&[0, 0, 0, 0, 0, 7]).contains("left"));
        // A name that is not UTF-8.
        assert!(refused(&[1, 0, 1, 0xff, 0]).contains("UTF-8"));
        // Game 0 named G, then graphs: graph 2 named L of `nodes` nodes
        // and one edge 0 -- `end`, then `keys` values by packed key.
        let graph = |nodes: u64, end: u8, keys: &[[u8; 4]]| {
            let mut body = vec![1, 0, 1, b'G', 0, 1, 2, 1, b'L', 0];
            body.number(nodes);
            body.extend([1, 0, end, keys.len() as u8]);
            for key in keys {
                body.extend(key);
            }
            body.extend([0, 0]);
            body
        };
        // A region of graph 2 (3 | 3 << 2 = 15: a set's kind and the number
        // plus one) with value 0.
        assert_eq!(
            decode("t", &sealed(&graph(4, 3, &[[15, 1, 0, 0]])))
                .unwrap()
                .values
                .packed,
            [(Packed([15, 1, 0]), 0)]
        );
        assert!(refused(&graph(4, 4, &[])).contains("does not have"));
        assert!(refused(&graph(4, 3, &[])).contains("graph 2, which no value is of"));
        assert!(refused(&graph(129, 3, &[])).contains("more than a key holds"));
        // A kind of board of a graph that is neither of nodes nor edges.
        let mut kind = graph(4, 3, &[[15, 1, 0, 0]]);
        kind[9] = 2;
        assert!(refused(&kind).contains("no kind of board"));
        // A region of graph 3, not listed.
        assert!(
            refused(&graph(4, 3, &[[19, 1, 0, 0]])).contains("graph 3, which it does not list")
        );
    }

    /// A table of the first version, before graphs, reads as one of no
    /// graphs: a table saved before is resumed, not refused.
    #[test]
    fn a_table_of_the_first_version_reads_without_graphs() {
        let mut table = Table {
            graphs: Vec::new(),
            ..table()
        };
        table
            .values
            .packed
            .retain(|&(key, _)| packed_graph(key).is_none());
        let bytes = encode(&table).unwrap();
        let body = &bytes[HEADER..bytes.len() - CHECKSUM];
        let mut reader = Reader {
            bytes: body,
            version: VERSION,
        };
        assert!(reader.games().is_ok_and(|games| games == table.games));
        // The first version's body is this one without the count of
        // graphs (0) after the games.
        let at = body.len() - reader.bytes.len();
        assert_eq!(body[at], 0);
        let first = [&body[..at], &body[at + 1..]].concat();
        let mut bytes = MAGIC.to_vec();
        bytes.extend(1u32.to_le_bytes());
        bytes.extend((first.len() as u64).to_le_bytes());
        bytes.extend(&first);
        let checksum = crc32fast::hash(&bytes);
        bytes.extend(checksum.to_le_bytes());
        assert_eq!(decode("t", &bytes).unwrap(), table);
    }

    proptest! {
        /// No bytes make the reader panic, with or without a checksum
        /// that lets the body be read.
        #[test]
        fn no_bytes_make_the_reader_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode("t", &bytes);
            let _ = decode("t", &sealed(&bytes));
        }

        /// Nor does a table with a few bytes changed and sealed again.
        #[test]
        fn no_table_changed_and_sealed_again_makes_it_panic(
            changes in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        ) {
            let bytes = encode(&table()).unwrap();
            let mut body = bytes[HEADER..bytes.len() - CHECKSUM].to_vec();
            for (at, byte) in changes {
                let at = at % body.len();
                body[at] = byte;
            }
            let _ = decode("t", &sealed(&body));
        }
    }
}
