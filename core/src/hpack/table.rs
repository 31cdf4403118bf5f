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

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

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

/// The index of a name of entries 15..=61, which are unique (a `match` on the bytes: the
/// compiler dispatches on the length, then compares the few names of that length).
#[inline]
fn static_regular(name: &[u8]) -> Option<usize> {
    Some(match name {
        b"accept-charset" => 15,
        b"accept-encoding" => 16,
        b"accept-language" => 17,
        b"accept-ranges" => 18,
        b"accept" => 19,
        b"access-control-allow-origin" => 20,
        b"age" => 21,
        b"allow" => 22,
        b"authorization" => 23,
        b"cache-control" => 24,
        b"content-disposition" => 25,
        b"content-encoding" => 26,
        b"content-language" => 27,
        b"content-length" => 28,
        b"content-location" => 29,
        b"content-range" => 30,
        b"content-type" => 31,
        b"cookie" => 32,
        b"date" => 33,
        b"etag" => 34,
        b"expect" => 35,
        b"expires" => 36,
        b"from" => 37,
        b"host" => 38,
        b"if-match" => 39,
        b"if-modified-since" => 40,
        b"if-none-match" => 41,
        b"if-range" => 42,
        b"if-unmodified-since" => 43,
        b"last-modified" => 44,
        b"link" => 45,
        b"location" => 46,
        b"max-forwards" => 47,
        b"proxy-authenticate" => 48,
        b"proxy-authorization" => 49,
        b"range" => 50,
        b"referer" => 51,
        b"refresh" => 52,
        b"retry-after" => 53,
        b"server" => 54,
        b"set-cookie" => 55,
        b"strict-transport-security" => 56,
        b"transfer-encoding" => 57,
        b"user-agent" => 58,
        b"vary" => 59,
        b"via" => 60,
        b"www-authenticate" => 61,
        _ => return None,
    })
}

/// One dynamic table entry: name and value in one allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    bytes: Vec<u8>,
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
/// A table made [`with_lookup`](DynamicTable::with_lookup) (the encoder's) also keeps an index
/// from the hash of a name, and of a name and value, to the newest entry with
/// it, so that [`find`](DynamicTable::find) costs two hash probes and one comparison of
/// bytes, however many entries the table holds.
#[derive(Clone, Debug)]
pub struct DynamicTable {
    entries: VecDeque<Entry>,
    /// The buffer of the entry evicted last, for the next entry to reuse: in steady state an
    /// insertion evicts, so most insertions allocate nothing.
    spare: Vec<u8>,
    lookup: Option<Lookup>,
    size: usize,
    max_size: usize,
}

/// The encoder's index of a [`DynamicTable`]. Entries are numbered in the order they were
/// inserted; the maps hold, per hash, the number of the newest entry with it. Eviction takes
/// the oldest entry first, so an entry a map names is evicted only after every older entry
/// with the same hash: removing the key then (when it still names that entry) keeps the
/// maps exact.
#[derive(Clone, Debug, Default)]
struct Lookup {
    /// How many entries were ever inserted: the newest has number `inserted - 1`.
    inserted: u64,
    /// (hash of the name, hash of name and value) of each entry, parallel to the entries.
    hashes: VecDeque<(u64, u64)>,
    /// Name hash to the number of the newest entry with that name hash.
    by_name: NewestBy,
    /// Name-and-value hash to the number of the newest entry with it.
    by_field: NewestBy,
}

impl Lookup {
    fn insert(&mut self, (hn, hv): (u64, u64)) {
        self.hashes.push_front((hn, hv));
        self.by_name.insert(hn, self.inserted);
        self.by_field.insert(hv, self.inserted);
        self.inserted += 1;
    }

    /// Forgets the oldest of `len` entries.
    fn evict_oldest(&mut self, len: usize) {
        let number = self.inserted - len as u64;
        let (hn, hv) = self.hashes.pop_back().expect("an entry to evict");
        if self.by_name.get(&hn) == Some(&number) {
            self.by_name.remove(&hn);
        }
        if self.by_field.get(&hv) == Some(&number) {
            self.by_field.remove(&hv);
        }
    }

    fn clear(&mut self) {
        self.hashes.clear();
        self.by_name.clear();
        self.by_field.clear();
    }

    /// The 0-based position (0 is the newest) of the entry a map names for `hash`.
    fn position(&self, map: &NewestBy, hash: u64) -> Option<usize> {
        map.get(&hash)
            .map(|&number| (self.inserted - 1 - number) as usize)
    }
}

/// A hash (of a name, or of a name and value) to the insertion number of the newest entry with
/// it.
type NewestBy = HashMap<u64, u64, BuildHasherDefault<Prehashed>>;

/// A [`Hasher`] for keys that are hashes already: it only folds the high bits into the low
/// ones, which the map uses to pick a bucket.
#[derive(Clone, Copy, Debug, Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, h: u64) {
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

/// The hasher of names and values: foldhash with a fixed seed (the same hashes in every run,
/// which keeps the lab's instruction counts exact).
const HASHER: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0x7541);

/// The two hashes [`DynamicTable::find`] compares: of the name, and of the name and value.
/// The name and the value are hashed apart (two chains of multiplies that overlap), then
/// joined.
#[inline]
fn hashes(name: &[u8], value: &[u8]) -> (u64, u64) {
    let n = HASHER.hash_one(name);
    (n, n ^ HASHER.hash_one(value).rotate_left(32))
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
            spare: Vec::new(),
            lookup: None,
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
            lookup: Some(Lookup::default()),
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
            if let Some(l) = &mut self.lookup {
                l.evict_oldest(self.entries.len());
            }
            let e = self.entries.pop_back().expect("size > 0 implies an entry");
            self.size -= e.size();
            self.spare = e.bytes;
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
        let hashes = self.lookup.as_ref().map(|_| hashes(name, value));
        self.insert_hashed(name, value, hashes);
    }

    /// [`find`](Self::find), then, when no entry holds the field, [`insert`](Self::insert):
    /// what the encoder does with a field it indexes, hashing the field once. The [`Match`]
    /// holds the indices from before the insertion, which is what a literal with
    /// incremental indexing refers to (section 4.4).
    pub(crate) fn find_or_insert(&mut self, name: &[u8], value: &[u8]) -> Match {
        let hashes = self.lookup.as_ref().map(|_| hashes(name, value));
        let found = self.find_hashed(name, value, hashes);
        if found.field.is_none() {
            self.insert_hashed(name, value, hashes);
        }
        found
    }

    /// [`insert`](Self::insert) with the field's [`hashes`] when looking up.
    fn insert_hashed(&mut self, name: &[u8], value: &[u8], hashes: Option<(u64, u64)>) {
        let size = name.len() + value.len() + ENTRY_OVERHEAD;
        if size > self.max_size {
            self.entries.clear();
            if let Some(l) = &mut self.lookup {
                l.clear();
            }
            self.size = 0;
            return;
        }
        self.evict_to(self.max_size - size);
        if let (Some(l), Some(hashes)) = (&mut self.lookup, hashes) {
            l.insert(hashes);
        }
        let len = name.len() + value.len();
        // The spare buffer when it holds the entry without wasting more than it needs
        // (so that the table's memory stays within twice its size, plus 64 octets an entry).
        let mut bytes = std::mem::take(&mut self.spare);
        if !(len..=2 * len + 64).contains(&bytes.capacity()) {
            bytes = Vec::with_capacity(len);
        }
        bytes.clear();
        bytes.extend_from_slice(name);
        bytes.extend_from_slice(value);
        self.entries.push_front(Entry {
            bytes,
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
        match self.lookup {
            Some(_) if !self.entries.is_empty() => {
                self.find_hashed(name, value, Some(hashes(name, value)))
            }
            _ => self.find_hashed(name, value, None),
        }
    }

    /// [`find`](Self::find) with the field's [`hashes`] when looking up.
    fn find_hashed(&self, name: &[u8], value: &[u8], hashes: Option<(u64, u64)>) -> Match {
        let (name, field) = self.find_positions(name, value, hashes);
        let index = |i: usize| STATIC.len() + 1 + i;
        Match {
            name: name.map(index),
            field: field.map(index),
        }
    }

    /// `(0-based position of an entry with the name, position of an entry with both)`.
    #[inline]
    fn find_positions(
        &self,
        name: &[u8],
        value: &[u8],
        hashes: Option<(u64, u64)>,
    ) -> (Option<usize>, Option<usize>) {
        if self.entries.is_empty() {
            return (None, None);
        }
        if let (Some(l), Some((hn, hv))) = (&self.lookup, hashes) {
            // The newest entry with the hashes; bytes compared once. On a hash collision
            // (another field with the same 64-bit hash) the scan below decides.
            if let Some(i) = l.position(&l.by_field, hv) {
                if self.entries[i].name() == name && self.entries[i].value() == value {
                    return (Some(i), Some(i));
                }
            } else if let Some(i) = l.position(&l.by_name, hn) {
                if self.entries[i].name() == name {
                    return (Some(i), None);
                }
            } else {
                return (None, None);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a test does to a table: insert a field (from small alphabets, so that names and
    /// fields repeat), or change the maximum size (evicting).
    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, u8),
        /// What the encoder does: insert only a field no entry holds.
        FindOrInsert(u8, u8),
        Resize(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u8..6, 0u8..6).prop_map(|(n, v)| Op::Insert(n, v)),
            4 => (0u8..6, 0u8..6).prop_map(|(n, v)| Op::FindOrInsert(n, v)),
            1 => (0usize..400).prop_map(Op::Resize),
        ]
    }

    fn field(n: u8, v: u8) -> (Vec<u8>, Vec<u8>) {
        (
            format!("name-{n}").into_bytes(),
            "v".repeat(usize::from(v) * 7).into_bytes(),
        )
    }

    #[test]
    fn static_regular_names_every_unique_name() {
        for (i, (name, _)) in STATIC.iter().enumerate().skip(14) {
            assert_eq!(static_regular(name), Some(i + 1));
        }
        for name in [&b":method"[..], b"", b"x-id", b"accept-charsets", b"Accept"] {
            assert_eq!(static_regular(name), None);
        }
    }

    proptest! {
        /// The encoder's index finds what a scan of the entries finds, after any sequence of
        /// inserts and evictions, and `find_or_insert` is `find`, then `insert` when no
        /// entry holds the field.
        #[test]
        fn lookup_finds_what_a_scan_finds(ops in proptest::collection::vec(op(), 0..200)) {
            let (mut indexed, mut scanned) = (DynamicTable::with_lookup(300), DynamicTable::new(300));
            for op in ops {
                match op {
                    Op::Insert(n, v) => {
                        let (name, value) = field(n, v);
                        indexed.insert(&name, &value);
                        scanned.insert(&name, &value);
                    }
                    Op::FindOrInsert(n, v) => {
                        let (name, value) = field(n, v);
                        let found = scanned.find(&name, &value);
                        prop_assert_eq!(indexed.find_or_insert(&name, &value), found);
                        if found.field.is_none() {
                            scanned.insert(&name, &value);
                        }
                    }
                    Op::Resize(max) => {
                        indexed.set_max_size(max);
                        scanned.set_max_size(max);
                    }
                }
                prop_assert!(indexed.iter().eq(scanned.iter()));
                for (n, v) in (0..7).flat_map(|n| (0..7).map(move |v| (n, v))) {
                    let (name, value) = field(n, v);
                    prop_assert_eq!(indexed.find(&name, &value), scanned.find(&name, &value));
                }
            }
        }
    }
}
