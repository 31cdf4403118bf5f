//! The static table (RFC 7541 Appendix A) and the dynamic table (section 4).
//!
//! ```text
//!   <----------  Index Address Space ---------->
//!   <-- Static  Table -->  <-- Dynamic Table -->
//!   +---+-----------+---+  +---+-----------+---+
//!   | 1 |    ...    | s |  |s+1|    ...    |s+k|
//!   +---+-----------+---+  +---+-----------+---+
//!                          ^                   |
//!                          |                   V
//!                   Insertion Point      Dropping Point
//! ```

use std::collections::VecDeque;

/// RFC 7541 Appendix A: index 1 is `STATIC[0]`.
pub const STATIC: [(&[u8], &[u8]); 61] = [
    (b":authority", b""),
    (b":method", b"GET"),
    (b":method", b"POST"),
    (b":path", b"/"),
    (b":path", b"/index.html"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"200"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"304"),
    (b":status", b"400"),
    (b":status", b"404"),
    (b":status", b"500"),
    (b"accept-charset", b""),
    (b"accept-encoding", b"gzip, deflate"),
    (b"accept-language", b""),
    (b"accept-ranges", b""),
    (b"accept", b""),
    (b"access-control-allow-origin", b""),
    (b"age", b""),
    (b"allow", b""),
    (b"authorization", b""),
    (b"cache-control", b""),
    (b"content-disposition", b""),
    (b"content-encoding", b""),
    (b"content-language", b""),
    (b"content-length", b""),
    (b"content-location", b""),
    (b"content-range", b""),
    (b"content-type", b""),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"expect", b""),
    (b"expires", b""),
    (b"from", b""),
    (b"host", b""),
    (b"if-match", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"if-range", b""),
    (b"if-unmodified-since", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"max-forwards", b""),
    (b"proxy-authenticate", b""),
    (b"proxy-authorization", b""),
    (b"range", b""),
    (b"referer", b""),
    (b"refresh", b""),
    (b"retry-after", b""),
    (b"server", b""),
    (b"set-cookie", b""),
    (b"strict-transport-security", b""),
    (b"transfer-encoding", b""),
    (b"user-agent", b""),
    (b"vary", b""),
    (b"via", b""),
    (b"www-authenticate", b""),
];

/// Per-entry overhead counted in the table size (section 4.1).
pub const ENTRY_OVERHEAD: usize = 32;

/// The default SETTINGS_HEADER_TABLE_SIZE.
pub const DEFAULT_TABLE_SIZE: usize = 4096;

/// What a table lookup found, as HPACK indices (1-based; the static table's 61 entries first,
/// then the dynamic table's, newest first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Match {
    /// An entry with the name (the first such entry in the static table; any such entry in
    /// the dynamic table).
    pub name: Option<usize>,
    /// An entry with both the name and the value.
    pub field: Option<usize>,
}

/// Looks a field up in the static table.
///
/// Names are compared by length and first byte before the full comparison, which the compiler
/// turns into a jump on the length.
///
/// ```
/// use wirelab::hpack::table::{Match, find_static};
///
/// assert_eq!(find_static(b":method", b"GET"), Match { name: Some(2), field: Some(2) });
/// assert_eq!(find_static(b":method", b"PUT"), Match { name: Some(2), field: None });
/// assert_eq!(find_static(b"x-id", b"42"), Match::default());
/// ```
#[inline]
pub fn find_static(name: &[u8], value: &[u8]) -> Match {
    let (first, count) = match name {
        b":authority" => (1, 1),
        b":method" => (2, 2),
        b":path" => (4, 2),
        b":scheme" => (6, 2),
        b":status" => (8, 7),
        _ => match static_regular(name) {
            Some(i) => (i, 1),
            None => return Match::default(),
        },
    };
    let field = (first..first + count).find(|&i| STATIC[i - 1].1 == value);
    Match {
        name: Some(first),
        field,
    }
}

#[inline]
fn static_regular(name: &[u8]) -> Option<usize> {
    // Entries 15..=61 have unique names; a linear scan over names of the same length.
    let len = name.len();
    (15..=61).find(|&i| STATIC[i - 1].0.len() == len && STATIC[i - 1].0 == name)
}

/// One dynamic table entry: name and value in one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    bytes: Box<[u8]>,
    name_len: usize,
}

impl Entry {
    fn name(&self) -> &[u8] {
        &self.bytes[..self.name_len]
    }
    fn value(&self) -> &[u8] {
        &self.bytes[self.name_len..]
    }
    fn size(&self) -> usize {
        self.bytes.len() + ENTRY_OVERHEAD
    }
}

/// The dynamic table: newest entry first, evicting the oldest to stay within `max_size`.
///
/// A table made [`with_lookup`](DynamicTable::with_lookup) (the encoder's) also keeps a hash
/// of each entry's name and of its name and value, so that [`find`](DynamicTable::find)
/// compares 64-bit hashes and touches the bytes of candidates only.
#[derive(Clone, Debug)]
pub struct DynamicTable {
    entries: VecDeque<Entry>,
    /// (hash of the name, hash of name and value), parallel to `entries` when looking up.
    hashes: Option<VecDeque<(u64, u64)>>,
    size: usize,
    max_size: usize,
}

const K: u64 = 0x517c_c1b7_2722_0a95;

/// A fast non-cryptographic hash (FxHash-style, 8 bytes per step).
#[inline]
fn hash(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = (seed ^ bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut b = [0u8; 8];
        b[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    }
    h
}

/// The two hashes [`DynamicTable::find`] compares.
#[inline]
fn hashes(name: &[u8], value: &[u8]) -> (u64, u64) {
    let n = hash(0, name);
    (n, hash(n, value))
}

impl DynamicTable {
    /// An empty table whose size may reach `max_size` octets.
    ///
    /// ```
    /// let t = wirelab::hpack::table::DynamicTable::new(4096);
    /// assert!(t.is_empty());
    /// ```
    pub fn new(max_size: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            hashes: None,
            size: 0,
            max_size,
        }
    }

    /// An empty table that also indexes its entries for [`find`](DynamicTable::find).
    ///
    /// ```
    /// let t = wirelab::hpack::table::DynamicTable::with_lookup(4096);
    /// assert_eq!(t.max_size(), 4096);
    /// ```
    pub fn with_lookup(max_size: usize) -> Self {
        Self {
            hashes: Some(VecDeque::new()),
            ..Self::new(max_size)
        }
    }

    /// Current size (sum of entry sizes, section 4.1).
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"x-id", b"42");
    /// assert_eq!(t.size(), 4 + 2 + 32);
    /// ```
    pub fn size(&self) -> usize {
        self.size
    }

    /// Current maximum size.
    ///
    /// ```
    /// assert_eq!(wirelab::hpack::table::DynamicTable::new(100).max_size(), 100);
    /// ```
    pub fn max_size(&self) -> usize {
        self.max_size
    }

    /// Number of entries.
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"a", b"1");
    /// assert_eq!(t.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table is empty.
    ///
    /// ```
    /// assert!(wirelab::hpack::table::DynamicTable::new(4096).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Changes the maximum size, evicting entries as needed (section 4.3).
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"a", b"1");
    /// t.set_max_size(0);
    /// assert!(t.is_empty());
    /// ```
    pub fn set_max_size(&mut self, max_size: usize) {
        self.max_size = max_size;
        self.evict_to(max_size);
    }

    fn evict_to(&mut self, limit: usize) {
        while self.size > limit {
            let e = self.entries.pop_back().expect("size > 0 implies an entry");
            if let Some(h) = &mut self.hashes {
                h.pop_back();
            }
            self.size -= e.size();
        }
    }

    /// Adds an entry (section 4.4): evicts until it fits; an entry larger than the maximum
    /// empties the table and is not added.
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"a", b"1");
    /// t.insert(b"b", b"2");
    /// assert_eq!(t.get(0), Some((&b"b"[..], &b"2"[..])));
    /// ```
    pub fn insert(&mut self, name: &[u8], value: &[u8]) {
        let size = name.len() + value.len() + ENTRY_OVERHEAD;
        if size > self.max_size {
            self.entries.clear();
            if let Some(h) = &mut self.hashes {
                h.clear();
            }
            self.size = 0;
            return;
        }
        self.evict_to(self.max_size - size);
        if let Some(h) = &mut self.hashes {
            h.push_front(hashes(name, value));
        }
        let mut bytes = Vec::with_capacity(name.len() + value.len());
        bytes.extend_from_slice(name);
        bytes.extend_from_slice(value);
        self.entries.push_front(Entry {
            bytes: bytes.into_boxed_slice(),
            name_len: name.len(),
        });
        self.size += size;
    }

    /// The entry at 0-based position `i` (0 is the newest): `(name, value)`. Its HPACK index
    /// is `STATIC.len() + 1 + i`.
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"a", b"1");
    /// assert_eq!(t.get(0), Some((&b"a"[..], &b"1"[..])));
    /// assert_eq!(t.get(1), None);
    /// ```
    pub fn get(&self, i: usize) -> Option<(&[u8], &[u8])> {
        self.entries.get(i).map(|e| (e.name(), e.value()))
    }

    /// Entries, newest first.
    ///
    /// ```
    /// let mut t = wirelab::hpack::table::DynamicTable::new(4096);
    /// t.insert(b"a", b"1");
    /// t.insert(b"b", b"2");
    /// let names: Vec<&[u8]> = t.iter().map(|(n, _)| n).collect();
    /// assert_eq!(names, [&b"b"[..], &b"a"[..]]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.entries.iter().map(|e| (e.name(), e.value()))
    }

    /// Looks a field up; the [`Match`] holds HPACK indices (62 is the newest entry).
    ///
    /// ```
    /// use wirelab::hpack::table::{DynamicTable, Match};
    ///
    /// let mut t = DynamicTable::with_lookup(4096);
    /// t.insert(b"x-id", b"42");
    /// t.insert(b"x-other", b"1");
    /// assert_eq!(t.find(b"x-id", b"42"), Match { name: Some(63), field: Some(63) });
    /// assert_eq!(t.find(b"x-id", b"7"), Match { name: Some(63), field: None });
    /// ```
    pub fn find(&self, name: &[u8], value: &[u8]) -> Match {
        let (name, field) = self.find_positions(name, value);
        let index = |i: usize| STATIC.len() + 1 + i;
        Match {
            name: name.map(index),
            field: field.map(index),
        }
    }

    /// `(0-based position of an entry with the name, position of an entry with both)`.
    #[inline]
    fn find_positions(&self, name: &[u8], value: &[u8]) -> (Option<usize>, Option<usize>) {
        if self.entries.is_empty() {
            return (None, None);
        }
        if let Some(hs) = &self.hashes {
            let (hn, hv) = hashes(name, value);
            let mut by_name = None;
            for (i, &(n, v)) in hs.iter().enumerate() {
                if n != hn {
                    continue;
                }
                // Bytes are compared only for a full-hash candidate and for the first
                // name-hash candidate.
                let e = &self.entries[i];
                if v == hv && e.name() == name && e.value() == value {
                    return (Some(i), Some(i));
                }
                if by_name.is_none() && e.name() == name {
                    by_name = Some(i);
                }
            }
            return (by_name, None);
        }
        let mut by_name = None;
        for (i, e) in self.entries.iter().enumerate() {
            if e.name() == name {
                if e.value() == value {
                    return (Some(i), Some(i));
                }
                by_name.get_or_insert(i);
            }
        }
        (by_name, None)
    }
}
