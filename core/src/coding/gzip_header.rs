//! The gzip member header (RFC 1952 section 2.3), parsed incrementally: [`GzipHeader`] takes
//! what it needs from the [`Rope`] of buffered input and keeps its place when the input runs
//! out, so a header split across many pushes is parsed once.
//!
//! ```text
//! +---+---+---+---+---+---+---+---+---+---+
//! |ID1|ID2|CM |FLG|     MTIME     |XFL|OS |  then, by FLG: FEXTRA (XLEN + data), FNAME
//! +---+---+---+---+---+---+---+---+---+---+  (zero-terminated), FCOMMENT (zero-terminated),
//!                                            FHCRC (the low 16 bits of the header's CRC-32)
//! ```

use super::{CodingError, Rope};
use bytes::Buf;

const FTEXT_RESERVED: u8 = 0xE0;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Where the parser is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// The fixed 10 bytes; `have` of them so far.
    Fixed { have: usize },
    /// FEXTRA's length; `have` of its 2 bytes.
    ExtraLen { have: usize },
    /// FEXTRA's data; `left` bytes to skip.
    Extra { left: usize },
    /// FNAME, up to its zero byte.
    Name,
    /// FCOMMENT, up to its zero byte.
    Comment,
    /// FHCRC; `have` of its 2 bytes.
    HeaderCrc { have: usize },
}

/// Where the parser goes after a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// The field is incomplete: parsing resumes here with more input.
    Wait(Field),
    /// The next field.
    Next(Field),
    /// The header is complete: the deflate data follows.
    Done,
}

/// An incremental parser of one gzip member header. The fixed fields and the two-byte ones
/// are gathered into small arrays; FEXTRA's data, FNAME and FCOMMENT are skipped in place
/// (checksummed when FHCRC asks for it).
#[derive(Clone)]
pub(super) struct GzipHeader {
    field: Field,
    fixed: [u8; 10],
    small: [u8; 2],
    crc: crc32fast::Hasher,
    /// Bytes gathered one at a time into `fixed` and `small` (the lab's `CopyCount`).
    copied: u64,
}

impl std::fmt::Debug for GzipHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GzipHeader")
            .field("field", &self.field)
            .finish_non_exhaustive()
    }
}

impl GzipHeader {
    /// A parser at the start of a header.
    pub(super) fn new() -> Self {
        Self {
            field: Field::Fixed { have: 0 },
            fixed: [0; 10],
            small: [0; 2],
            crc: crc32fast::Hasher::new(),
            copied: 0,
        }
    }

    /// Starts over, for the header of the next member.
    pub(super) fn restart(&mut self) {
        self.field = Field::Fixed { have: 0 };
    }

    /// Bytes gathered one at a time so far, over every member.
    #[cfg(any(feature = "lab", test))]
    pub(super) fn copied(&self) -> u64 {
        self.copied
    }

    /// Parses as far as `input` goes: `Ok(true)` when the header is complete (the deflate data
    /// follows in `input`), `Ok(false)` when all of `input` was taken and more is needed.
    ///
    /// # Errors
    ///
    /// [`CodingError::NotGzip`], [`CodingError::UnsupportedMethod`],
    /// [`CodingError::ReservedFlags`] or [`CodingError::HeaderCrcMismatch`].
    pub(super) fn parse(&mut self, input: &mut Rope) -> Result<bool, CodingError> {
        loop {
            let after = match self.field {
                Field::Fixed { have } => self.fixed_fields(input, have)?,
                Field::ExtraLen { have } => self.extra_len(input, have),
                Field::Extra { left } => self.extra(input, left),
                Field::Name | Field::Comment => self.zero_terminated(input, self.field),
                Field::HeaderCrc { have } => self.header_crc(input, have)?,
            };
            match after {
                After::Wait(field) => {
                    self.field = field;
                    return Ok(false);
                }
                After::Next(field) => self.field = field,
                After::Done => return Ok(true),
            }
        }
    }

    /// With FNAME or FCOMMENT under way, a piece without the field's zero byte is all field:
    /// it is checksummed (with FHCRC) and the caller drops it at once, without a trip through
    /// the rope. This is what keeps a long name that arrives an octet at a time cheap.
    #[inline(always)]
    pub(super) fn field_continues(&mut self, piece: &[u8]) -> bool {
        if !matches!(self.field, Field::Name | Field::Comment) || piece.contains(&0) {
            return false;
        }
        self.hash(piece);
        true
    }

    /// The fixed 10 bytes: magic, method, flags (checked as they arrive), MTIME, XFL, OS.
    fn fixed_fields(&mut self, input: &mut Rope, mut have: usize) -> Result<After, CodingError> {
        while have < 10 {
            let Some(b) = take_u8(input, &mut self.copied) else {
                return Ok(After::Wait(Field::Fixed { have }));
            };
            match (have, b) {
                (0, 0x1f) | (1, 0x8b) => {}
                (0 | 1, _) => return Err(CodingError::NotGzip),
                (2, m) if m != 8 => return Err(CodingError::UnsupportedMethod(m)),
                (3, f) if f & FTEXT_RESERVED != 0 => return Err(CodingError::ReservedFlags(f)),
                _ => {}
            }
            self.fixed[have] = b;
            have += 1;
        }
        self.crc = crc32fast::Hasher::new();
        let fixed = self.fixed;
        self.hash(&fixed);
        Ok(self.after(Field::Fixed { have: 10 }))
    }

    /// FEXTRA's two length bytes.
    fn extra_len(&mut self, input: &mut Rope, mut have: usize) -> After {
        if !gather(input, &mut self.small, &mut have, &mut self.copied) {
            return After::Wait(Field::ExtraLen { have });
        }
        let len_bytes = self.small;
        self.hash(&len_bytes);
        After::Next(Field::Extra {
            left: u16::from_le_bytes(len_bytes) as usize,
        })
    }

    /// FEXTRA's data, checksummed in place.
    fn extra(&mut self, input: &mut Rope, mut left: usize) -> After {
        while left > 0 {
            if input.is_empty() {
                return After::Wait(Field::Extra { left });
            }
            let n = input.chunk().len().min(left);
            self.hash(&input.chunk()[..n]);
            input.advance(n);
            left -= n;
        }
        self.after(Field::Extra { left: 0 })
    }

    /// FNAME or FCOMMENT, up to and including its zero byte, checksummed in place.
    fn zero_terminated(&mut self, input: &mut Rope, field: Field) -> After {
        loop {
            if input.is_empty() {
                return After::Wait(field);
            }
            let chunk = input.chunk();
            let (n, ends) = match chunk.iter().position(|&b| b == 0) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            self.hash(&input.chunk()[..n]);
            input.advance(n);
            if ends {
                return self.after(field);
            }
        }
    }

    /// FHCRC: the low 16 bits of the header's CRC-32.
    fn header_crc(&mut self, input: &mut Rope, mut have: usize) -> Result<After, CodingError> {
        if !gather(input, &mut self.small, &mut have, &mut self.copied) {
            return Ok(After::Wait(Field::HeaderCrc { have }));
        }
        let expected = u16::from_le_bytes(self.small);
        let actual = (self.crc.clone().finalize() & 0xffff) as u16;
        if expected != actual {
            return Err(CodingError::HeaderCrcMismatch { expected, actual });
        }
        Ok(After::Done)
    }

    /// Adds header bytes to the header's CRC-32, which only FHCRC needs.
    #[inline]
    fn hash(&mut self, bytes: &[u8]) {
        if self.fixed[3] & FHCRC != 0 {
            self.crc.update(bytes);
        }
    }

    /// The field after `done`, following the flags.
    fn after(&self, done: Field) -> After {
        let order = [
            (FEXTRA, Field::ExtraLen { have: 0 }),
            (FNAME, Field::Name),
            (FCOMMENT, Field::Comment),
            (FHCRC, Field::HeaderCrc { have: 0 }),
        ];
        let start = match done {
            Field::Fixed { .. } => 0,
            Field::ExtraLen { .. } | Field::Extra { .. } => 1,
            Field::Name => 2,
            Field::Comment => 3,
            Field::HeaderCrc { .. } => 4,
        };
        order[start..]
            .iter()
            .find(|(flag, _)| self.fixed[3] & flag != 0)
            .map_or(After::Done, |(_, field)| After::Next(*field))
    }
}

/// Takes one byte from `input`, counting it in `copied` (every caller stores it into a small
/// array).
#[inline]
pub(super) fn take_u8(input: &mut Rope, copied: &mut u64) -> Option<u8> {
    if input.is_empty() {
        return None;
    }
    let b = input.chunk()[0];
    input.advance(1);
    *copied += 1;
    Some(b)
}

/// Takes bytes from `input` into `into[*have..]`, one at a time; `false` when the input runs
/// out first.
pub(super) fn gather(
    input: &mut Rope,
    into: &mut [u8],
    have: &mut usize,
    copied: &mut u64,
) -> bool {
    while *have < into.len() {
        let Some(b) = take_u8(input, copied) else {
            return false;
        };
        into[*have] = b;
        *have += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    /// A header with every optional field: FEXTRA (3 bytes), FNAME, FCOMMENT and a correct
    /// FHCRC, then one byte of what follows it.
    fn full_header() -> Vec<u8> {
        let mut h = vec![
            0x1f,
            0x8b,
            8,
            FEXTRA | FNAME | FCOMMENT | FHCRC,
            1,
            2,
            3,
            4,
            0,
            3,
        ];
        h.extend_from_slice(&[3, 0, b'x', b'y', b'z']);
        h.extend_from_slice(b"name.txt\0a comment\0");
        let crc = crc32fast::hash(&h) as u16;
        h.extend_from_slice(&crc.to_le_bytes());
        h
    }

    fn rope(pieces: &[&[u8]]) -> Rope {
        let mut r = Rope::new();
        for p in pieces {
            r.push(Bytes::copy_from_slice(p));
        }
        r
    }

    #[test]
    fn a_whole_header_is_parsed_and_leaves_what_follows() {
        let mut h = full_header();
        h.push(0xAA);
        let (mut p, mut input) = (GzipHeader::new(), rope(&[&h]));
        assert_eq!(p.parse(&mut input), Ok(true));
        assert_eq!(input.len(), 1);
        // 10 fixed bytes, XLEN and FHCRC gathered; the rest skipped in place.
        assert_eq!(p.copied(), 14);
    }

    #[test]
    fn a_header_split_anywhere_is_parsed_once() {
        let h = full_header();
        for at in 0..=h.len() {
            let mut p = GzipHeader::new();
            let done = p.parse(&mut rope(&[&h[..at]]));
            assert_eq!(done, Ok(at == h.len()), "split at {at}");
            if at < h.len() {
                assert_eq!(p.parse(&mut rope(&[&h[at..]])), Ok(true), "split at {at}");
            }
        }
        let mut p = GzipHeader::new();
        for b in &h[..h.len() - 1] {
            assert_eq!(p.parse(&mut rope(&[std::slice::from_ref(b)])), Ok(false));
        }
        assert_eq!(p.parse(&mut rope(&[&h[h.len() - 1..]])), Ok(true));
    }

    #[test]
    fn bad_headers_get_their_error() {
        let h = full_header();
        let cases: [(usize, u8, CodingError); 4] = [
            (0, 0x1e, CodingError::NotGzip),
            (2, 7, CodingError::UnsupportedMethod(7)),
            (3, 0x20 | FNAME, CodingError::ReservedFlags(0x20 | FNAME)),
            (
                h.len() - 1,
                h[h.len() - 1] ^ 1,
                CodingError::HeaderCrcMismatch {
                    expected: u16::from_le_bytes([h[h.len() - 2], h[h.len() - 1] ^ 1]),
                    actual: u16::from_le_bytes([h[h.len() - 2], h[h.len() - 1]]),
                },
            ),
        ];
        for (at, byte, err) in cases {
            let mut bad = h.clone();
            bad[at] = byte;
            assert_eq!(
                GzipHeader::new().parse(&mut rope(&[&bad])),
                Err(err),
                "byte {at}"
            );
        }
    }

    #[test]
    fn a_name_piece_without_its_end_is_taken_whole() {
        let mut p = GzipHeader::new();
        let fixed = [0x1f, 0x8b, 8, FNAME, 0, 0, 0, 0, 0, 3];
        assert_eq!(p.parse(&mut rope(&[&fixed])), Ok(false));
        assert!(p.field_continues(b"long-name-"));
        assert!(!p.field_continues(b"end\0"));
        assert_eq!(p.parse(&mut rope(&[b"end\0"])), Ok(true));
        p.restart();
        assert!(
            !p.field_continues(b"no zero"),
            "a new member starts at its fixed fields"
        );
    }
}
