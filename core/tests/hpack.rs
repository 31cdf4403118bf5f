//! `wirelab::hpack`: literals, Huffman, limits and every malformed-input error.

use proptest::prelude::*;
use wirelab::hpack::huffman::{self, HuffmanError};
use wirelab::hpack::{DecodeError, Decoder, Encoder, EncoderConfig, Header, HuffmanMode, Indexing};

fn roundtrip(mode: HuffmanMode, indexing: Indexing, headers: &[(Vec<u8>, Vec<u8>)]) {
    let mut enc = Encoder::with_config(EncoderConfig {
        huffman: mode,
        indexing,
        ..EncoderConfig::default()
    })
    .expect("valid config");
    let mut dec = Decoder::new();
    for _ in 0..3 {
        let block = enc.encode(headers.iter().map(|(n, v)| Header::new(n, v)));
        assert_eq!(&dec.decode_to_vec(&block).unwrap(), headers);
    }
}

#[test]
fn all_octets_round_trip_in_both_literal_forms() {
    let all: Vec<u8> = (0..=255).collect();
    for mode in [HuffmanMode::Always, HuffmanMode::Never, HuffmanMode::Auto] {
        for indexing in [Indexing::None, Indexing::Incremental] {
            roundtrip(
                mode,
                indexing,
                &[
                    (b"x-all".to_vec(), all.clone()),
                    (all.clone(), b"v".to_vec()),
                ],
            );
            for b in 0..=255u8 {
                roundtrip(
                    mode,
                    indexing,
                    &[(b"x".to_vec(), vec![b]), (vec![b, b], vec![])],
                );
            }
        }
    }
    assert_eq!(huffman::encode(&all).len(), huffman::encoded_len(&all));
    let mut out = Vec::new();
    huffman::decode(&huffman::encode(&all), &mut out).unwrap();
    assert_eq!(out, all);
}

#[test]
fn huffman_writes_only_its_range_and_rejects_length_mismatch() {
    let src = b"custom-value";
    let n = huffman::encoded_len(src);
    let mut buf = vec![0xAAu8; n + 10];
    huffman::encode_into(src, &mut buf[5..5 + n]).unwrap();
    assert!(
        buf[..5].iter().chain(&buf[5 + n..]).all(|&b| b == 0xAA),
        "wrote outside its range"
    );
    assert_eq!(&buf[5..5 + n], &huffman::encode(src)[..]);
    for wrong in [0, n - 1, n + 1, n + 7] {
        let mut dst = vec![0u8; wrong];
        assert!(
            matches!(
                huffman::encode_into(src, &mut dst),
                Err(huffman::LengthMismatch { dst, needed }) if dst == wrong && needed == n
            ),
            "dst of {wrong}"
        );
    }
}

#[test]
fn huffman_rejects_eos_and_bad_padding() {
    let mut out = Vec::new();
    // EOS (30 ones) followed by padding: 32 one-bits.
    assert_eq!(
        huffman::decode(&[0xff, 0xff, 0xff, 0xff], &mut out),
        Err(HuffmanError::Eos)
    );
    // 'a' (00011) then 11 ones: padding of more than 7 bits.
    assert_eq!(
        huffman::decode(&[0b0001_1111, 0xff], &mut out),
        Err(HuffmanError::PaddingTooLong)
    );
    // 'a' (00011) then padding 000: not all ones.
    assert_eq!(
        huffman::decode(&[0b0001_1000], &mut out),
        Err(HuffmanError::PaddingNotOnes)
    );
    // A full octet of ones after a symbol's end is > 7 bits of padding.
    assert_eq!(
        huffman::decode(&[0xff], &mut out),
        Err(HuffmanError::PaddingTooLong)
    );
    assert!(out.is_empty(), "nothing is left behind on error");
    // The same string, correctly padded.
    huffman::decode(&[0b0001_1111], &mut out).unwrap();
    assert_eq!(out, b"a");
    huffman::decode(&[], &mut out).unwrap();
    assert_eq!(out, b"a");
}

#[cfg(feature = "lab")]
#[test]
fn huffman_decoder_yields_nearly_two_symbols_per_step_on_header_text() {
    // The values of a browser request (the hpack-encode workload's kind of text).
    let text: &[&[u8]] = &[
        b"www.example.com",
        b"/search/results?q=rust+hpack+huffman&page=2&sort=relevance",
        b"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
        b"en-US,en;q=0.9,de;q=0.8",
        b"gzip, deflate, br",
        b"session=8f14e45fceea167a5a36dedd4bea2543; theme=dark; _ga=GA1.2.1234567.1700000000",
        b"https://www.example.com/search?q=rust",
    ];
    let (mut symbols, mut steps) = (0, 0);
    for t in text {
        let mut out = Vec::new();
        steps += huffman::decode_counting(&huffman::encode(t), &mut out).unwrap();
        assert_eq!(&out[..], *t);
        symbols += t.len();
    }
    let per = symbols as f64 / steps as f64;
    eprintln!("{symbols} symbols in {steps} steps: {per:.2} per step");
    assert!(per >= 1.8, "{per:.2} symbols per step");
}

#[test]
fn latin1_text_and_substitution() {
    let mut enc = Encoder::new();
    let mut dec = Decoder::new();
    let block = enc.encode_str([("x-name", "café crème"), ("x-euro", "10 €")]);
    let got = dec.decode_to_vec(&block).unwrap();
    assert_eq!(got[0].1, b"caf\xe9 cr\xe8me");
    assert_eq!(got[1].1, b"10 ?");
    assert_eq!(wirelab::latin1::decode(&got[0].1), "café crème");
}

#[test]
fn sensitive_fields_are_never_indexed() {
    let mut enc = Encoder::new();
    let block = enc.encode([
        Header::sensitive(b"authorization", b"secret"),
        Header::sensitive(b":method", b"GET"),
    ]);
    // 0001 prefix with static name index 23, then the value; :method GET as a literal too.
    assert_eq!(block[0], 0x10 | 0x0f);
    assert!(enc.table().is_empty());
    let mut dec = Decoder::new();
    let got = dec.decode_to_vec(&block).unwrap();
    assert_eq!(
        got,
        vec![
            (b"authorization".to_vec(), b"secret".to_vec()),
            (b":method".to_vec(), b"GET".to_vec())
        ]
    );
    assert!(dec.table().is_empty());
}

#[test]
fn table_size_updates() {
    let mut enc = Encoder::new();
    let mut dec = Decoder::new();
    let h = [Header::new(b"x-a", b"1"), Header::new(b"x-b", b"2")];
    dec.decode(&enc.encode(h), |_, _| {}).unwrap();
    assert_eq!(dec.table().len(), 2);
    enc.set_max_table_size(0);
    enc.set_max_table_size(100);
    let block = enc.encode(h);
    assert_eq!(&block[..2], &[0x20, 0x3f], "0 then 100 (31 + 69)");
    dec.decode(&block, |_, _| {}).unwrap();
    assert_eq!(dec.table().max_size(), 100);
    assert_eq!(
        dec.table().len(),
        2,
        "re-inserted after the table was emptied"
    );
    // Bounded by the SETTINGS value.
    dec.set_max_table_size(50);
    assert!(dec.table().size() <= 50);
    let mut enc2 = Encoder::new();
    enc2.set_max_table_size(4096);
    assert_eq!(
        dec.decode(&enc2.encode([]), |_, _| {}),
        Err(DecodeError::SizeUpdateTooLarge {
            requested: 4096,
            max: 50
        })
    );
}

fn err(block: &[u8]) -> DecodeError {
    Decoder::new().decode(block, |_, _| {}).unwrap_err()
}

#[test]
fn every_malformed_input_gets_its_error() {
    assert_eq!(err(&[0x80]), DecodeError::InvalidIndex(0));
    assert_eq!(err(&[0xbe]), DecodeError::InvalidIndex(62));
    assert_eq!(err(&[0xff, 0x80]), DecodeError::Truncated);
    assert_eq!(
        err(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
        DecodeError::IntegerOverflow
    );
    assert_eq!(
        err(&[0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
        DecodeError::IntegerOverflow
    );
    assert_eq!(err(&[0x40]), DecodeError::Truncated);
    assert_eq!(err(&[0x40, 0x03, b'a']), DecodeError::Truncated);
    assert_eq!(err(&[0x04, 0x05, b'/', b'a']), DecodeError::Truncated);
    assert_eq!(err(&[0x0f, 0x30, 0x00]), DecodeError::InvalidIndex(63));
    assert_eq!(
        err(&[0x04, 0x81, 0xff]),
        DecodeError::Huffman(HuffmanError::PaddingTooLong)
    );
    assert_eq!(
        err(&[0x04, 0x84, 0xff, 0xff, 0xff, 0xff]),
        DecodeError::Huffman(HuffmanError::Eos)
    );
    assert_eq!(
        err(&[0x04, 0x81, 0x18]),
        DecodeError::Huffman(HuffmanError::PaddingNotOnes)
    );
    assert_eq!(
        err(&[0x3f, 0xe2, 0x1f]),
        DecodeError::SizeUpdateTooLarge {
            requested: 4097,
            max: 4096
        }
    );
    assert_eq!(err(&[0x82, 0x20]), DecodeError::SizeUpdateNotFirst);
    assert!(DecodeError::Truncated.is_connection_error());
    // After a connection error the decoder refuses further blocks.
    let mut dec = Decoder::new();
    assert!(dec.decode(&[0x80], |_, _| {}).is_err());
    assert_eq!(dec.decode(&[0x82], |_, _| {}), Err(DecodeError::Poisoned));
}

#[test]
fn header_list_limit_stops_a_bomb_and_keeps_the_table() {
    let mut enc = Encoder::new();
    let big = vec![b'x'; 4000];
    let mut headers = vec![Header::new(b"x-big", &big)];
    // One large entry, then referenced (indexed) many times in the same block.
    headers.extend(std::iter::repeat_n(Header::new(b"x-big", &big), 10_000));
    headers.push(Header::new(b"x-after", b"1"));
    let block = enc.encode(headers);
    assert!(
        block.len() < 4100 + 10_100,
        "the bomb is small on the wire: {}",
        block.len()
    );
    let mut dec = Decoder::new();
    dec.set_max_header_list_size(16 * 1024);
    let mut seen = 0;
    let r = dec.decode(&block, |_, v| {
        seen += 1;
        assert_eq!(v.len(), 4000);
    });
    assert_eq!(r, Err(DecodeError::HeaderListTooLarge { limit: 16 * 1024 }));
    assert!(!r.unwrap_err().is_connection_error());
    assert_eq!(seen, 4, "fields up to the limit, then nothing");
    // The rest of the block still updated the table: the connection goes on.
    assert_eq!(dec.table().get(0).unwrap(), (&b"x-after"[..], &b"1"[..]));
    let next = enc.encode([Header::new(b"x-after", b"1")]);
    assert_eq!(
        dec.decode_to_vec(&next).unwrap(),
        vec![(b"x-after".to_vec(), b"1".to_vec())]
    );
}

proptest! {
    #[test]
    fn decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut dec = Decoder::new();
        let _ = dec.decode(&bytes, |_, _| {});
        let mut out = Vec::new();
        let _ = huffman::decode(&bytes, &mut out);
    }

    #[test]
    fn huffman_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let coded = huffman::encode(&bytes);
        prop_assert_eq!(coded.len(), huffman::encoded_len(&bytes));
        let mut out = Vec::new();
        huffman::decode(&coded, &mut out).unwrap();
        prop_assert_eq!(out, bytes);
    }

    #[test]
    fn header_lists_round_trip(
        lists in proptest::collection::vec(
            proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..20), proptest::collection::vec(any::<u8>(), 0..40)), 0..12),
            1..5),
        mode in 0..3u8, indexed in any::<bool>(),
    ) {
        let mode = [HuffmanMode::Auto, HuffmanMode::Always, HuffmanMode::Never][mode as usize];
        let indexing = if indexed { Indexing::Incremental } else { Indexing::None };
        let mut enc = Encoder::with_config(EncoderConfig { huffman: mode, indexing, ..EncoderConfig::default() }).expect("valid config");
        let mut dec = Decoder::new();
        for l in &lists {
            let block = enc.encode(l.iter().map(|(n, v)| Header::new(n, v)));
            prop_assert_eq!(&dec.decode_to_vec(&block).unwrap(), l);
        }
    }
}

/// The Huffman code written one bit at a time, padded with ones (the reference encoder).
fn huffman_bit_by_bit(src: &[u8]) -> Vec<u8> {
    let mut bits = Vec::new();
    for &b in src {
        let (code, len) = (
            huffman::CODES[b as usize],
            huffman::CODE_LENGTHS[b as usize],
        );
        bits.extend((0..len).rev().map(|i| (code >> i) & 1 == 1));
    }
    while bits.len() % 8 != 0 {
        bits.push(true);
    }
    bits.chunks(8)
        .map(|c| c.iter().fold(0u8, |acc, &bit| acc << 1 | u8::from(bit)))
        .collect()
}

proptest::proptest! {
    /// Any input, through the fast stores and the careful tail alike: the exact length gives
    /// the reference encoding; any other length the error with the length needed.
    #[test]
    fn huffman_encode_into_matches_bit_by_bit(
        src in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        off in 1usize..40,
        longer in proptest::prelude::any::<bool>(),
    ) {
        let want = huffman_bit_by_bit(&src);
        let mut dst = vec![0u8; want.len()];
        huffman::encode_into(&src, &mut dst).unwrap();
        proptest::prop_assert_eq!(&dst, &want);
        let wrong = if longer { want.len() + off } else { want.len().saturating_sub(off) };
        if wrong != want.len() {
            let mut dst = vec![0u8; wrong];
            let err = huffman::encode_into(&src, &mut dst).unwrap_err();
            proptest::prop_assert_eq!((err.dst, err.needed), (wrong, want.len()));
        }
    }
}
