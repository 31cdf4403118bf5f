//! `wirelab::latin1`.

use proptest::prelude::*;
use wirelab::latin1::{
    count_unmappable, decode, encode_lossy, encode_truncating, encode_truncating_into,
};

#[test]
fn ascii_maps_to_itself() {
    let all: String = (0u8..0x80).map(char::from).collect();
    assert_eq!(encode_truncating(&all), all.as_bytes());
    assert_eq!(encode_lossy(&all), all.as_bytes());
    assert_eq!(decode(all.as_bytes()), all);
}

#[test]
fn low_eight_bits_are_kept() {
    assert_eq!(encode_truncating("€"), [0xAC]);
    assert_eq!(encode_truncating("a\u{0141}b"), [b'a', 0x41, b'b']);
    assert_eq!(encode_truncating("😀"), [0x00]); // U+1F600
    assert_eq!(encode_truncating("\u{FFFF}x"), [0xFF, b'x']);
}

#[test]
fn latin1_supplement_round_trips() {
    let s: String = (0x80u32..=0xFF)
        .map(|c| char::from_u32(c).unwrap())
        .collect();
    let bytes: Vec<u8> = (0x80u8..=0xFF).collect();
    assert_eq!(encode_truncating(&s), bytes);
    assert_eq!(encode_lossy(&s), bytes);
    assert_eq!(decode(&bytes), s);
}

#[test]
fn lossy_replaces_above_ff() {
    assert_eq!(encode_lossy("café €5 😀"), b"caf\xE9 ?5 ?");
    assert_eq!(count_unmappable("café €5 😀"), 2);
    assert_eq!(count_unmappable("café"), 0);
}

#[test]
fn offsets_and_short_destinations() {
    let s = "héllo, wörld";
    let full = encode_truncating(s);
    for len in 0..=full.len() + 3 {
        let mut buf = vec![0x55u8; len + 4];
        let n = encode_truncating_into(s, &mut buf[2..2 + len]);
        assert_eq!(n, len.min(full.len()));
        assert_eq!(&buf[2..2 + n], &full[..n]);
        assert!(
            buf[..2].iter().all(|&b| b == 0x55),
            "wrote before the range"
        );
        assert!(
            buf[2 + n..].iter().all(|&b| b == 0x55),
            "wrote past the count"
        );
    }
}

#[test]
fn empty_input() {
    assert_eq!(encode_truncating(""), b"");
    assert_eq!(encode_lossy(""), b"");
    assert_eq!(decode(b""), "");
    assert_eq!(encode_truncating_into("abc", &mut []), 0);
}

#[test]
fn long_ascii_with_late_non_ascii() {
    // Exercises the block scan: the non-ASCII char sits past several 32-byte blocks.
    for pos in [0, 1, 31, 32, 33, 63, 64, 100, 999] {
        let mut s = "x".repeat(1000);
        s.replace_range(pos..pos + 1, "é");
        let out = encode_truncating(&s);
        assert_eq!(out.len(), 1000);
        assert_eq!(out[pos], 0xE9);
        assert!(out.iter().enumerate().all(|(i, &b)| i == pos || b == b'x'));
    }
}

proptest! {
    #[test]
    fn decode_inverts_lossy_on_latin1(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let s = decode(&bytes);
        prop_assert_eq!(s.chars().count(), bytes.len());
        prop_assert_eq!(encode_lossy(&s), bytes);
    }

    #[test]
    fn count_is_chars(s in any::<String>()) {
        prop_assert_eq!(encode_truncating(&s).len(), s.chars().count());
    }
}

#[test]
fn bytes_past_the_count_are_untouched_with_wide_chars() {
    // Word stores must never leave stray bytes past the returned count.
    for s in [
        "𰀀𑇡",
        "aé€😀b",
        &"é".repeat(50),
        &format!("{}€", "x".repeat(45)),
    ] {
        let n_chars = s.chars().count();
        for cap in 0..=n_chars + 10 {
            let mut buf = vec![0x55u8; cap];
            let n = encode_truncating_into(s, &mut buf);
            assert_eq!(n, cap.min(n_chars));
            assert!(
                buf[n..].iter().all(|&b| b == 0x55),
                "{s:?} cap {cap}: {buf:?}"
            );
        }
    }
}

proptest! {
    /// Long text through the SIMD kernels (a destination that holds every char): runs of
    /// ASCII, Latin-1 and wider chars, every octet right and nothing written past the count.
    #[test]
    fn long_mixed_text_narrows_exactly(
        runs in proptest::collection::vec(
            (prop_oneof![4 => Just(0x61u32), 3 => Just(0xE9u32), 2 => Just(0xC0u32),
                1 => Just(0x20ACu32), 1 => Just(0x1F600u32), 1 => 0x80u32..0x100], 1usize..90),
            0..40),
        spare in 0usize..70,
    ) {
        let s: String = runs
            .iter()
            .flat_map(|&(c, n)| std::iter::repeat_n(char::from_u32(c).expect("char"), n))
            .collect();
        let want: Vec<u8> = s.chars().map(|c| c as u8).collect();
        let mut buf = vec![0x55u8; s.len() + spare];
        let n = encode_truncating_into(&s, &mut buf);
        prop_assert_eq!(&buf[..n], &want[..]);
        prop_assert!(buf[n..].iter().all(|&b| b == 0x55));
        let lossy: Vec<u8> = s.chars().map(|c| if c as u32 > 0xFF { b'?' } else { c as u8 }).collect();
        prop_assert_eq!(encode_lossy(&s), lossy);
    }
}
