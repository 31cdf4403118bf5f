//! The naive and optimized HPACK codecs agree: identical encoder bytes for the same
//! configuration, cross decoding, and the same result or error on arbitrary input.

use proptest::prelude::*;
use wirelab::hpack::{Decoder, Encoder, EncoderConfig, HuffmanMode, Indexing};
use wirelab_baselines::hpack::{NaiveDecoder, NaiveEncoder, huffman as naive_huffman};

/// Mostly short text; one string in ten long enough that its Huffman code needs a length
/// prefix of two octets (127 or more), the encoder's second path.
fn latin1_text() -> impl Strategy<Value = String> {
    let octet = || prop_oneof![8 => 0x20u8..0x7f, 1 => 0x80u8..=0xff, 1 => 0u8..0x20];
    prop_oneof![
        9 => proptest::collection::vec(octet(), 0..40),
        1 => proptest::collection::vec(octet(), 120..400),
    ]
    .prop_map(|b| wirelab::latin1::decode(&b))
}

fn lists() -> impl Strategy<Value = Vec<Vec<(String, String)>>> {
    let name = prop_oneof![
        3 => Just(":path".to_string()),
        3 => Just("accept".to_string()),
        2 => Just(":method".to_string()),
        4 => latin1_text(),
    ];
    let value =
        prop_oneof![2 => Just("GET".to_string()), 1 => Just(String::new()), 6 => latin1_text()];
    proptest::collection::vec(proptest::collection::vec((name, value), 0..10), 1..5)
}

fn mode(i: u8) -> HuffmanMode {
    [HuffmanMode::Auto, HuffmanMode::Always, HuffmanMode::Never][i as usize % 3]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn naive_and_optimized_encoders_produce_identical_bytes(lists in lists(), m in 0..3u8, idx in any::<bool>()) {
        let indexing = if idx { Indexing::Incremental } else { Indexing::None };
        let mut fast = Encoder::with_config(EncoderConfig { huffman: mode(m), indexing, ..EncoderConfig::default() }).expect("valid config");
        let mut slow = NaiveEncoder::with_config(EncoderConfig { huffman: mode(m), indexing, ..EncoderConfig::default() }).expect("valid config");
        let mut naive_dec = NaiveDecoder::new();
        let mut fast_dec = Decoder::new();
        for l in &lists {
            let pairs: Vec<(&str, &str)> = l.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            let a = fast.encode_str(pairs.iter().copied());
            let b = slow.encode_str(pairs.iter().copied());
            prop_assert_eq!(&a, &b);
            // Cross decoding: optimized encoder -> naive decoder, naive -> optimized.
            let expected: Vec<(Vec<u8>, Vec<u8>)> = l.iter()
                .map(|(n, v)| (wirelab::latin1::encode_lossy(n), wirelab::latin1::encode_lossy(v)))
                .collect();
            prop_assert_eq!(&naive_dec.decode_to_vec(&a).unwrap(), &expected);
            prop_assert_eq!(&fast_dec.decode_to_vec(&b).unwrap(), &expected);
        }
    }

    #[test]
    fn huffman_decoders_agree(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let ra = wirelab::hpack::huffman::decode(&bytes, &mut a);
        let rb = naive_huffman::decode(&bytes, &mut b);
        prop_assert_eq!(ra, rb);
        if ra.is_ok() {
            prop_assert_eq!(a, b);
        }
    }

    /// Valid strings of every length (the decoder's 8-octet bulk path and its checked tail),
    /// then cut short or followed by a stray octet.
    #[test]
    fn huffman_decoders_agree_on_encoded_text(
        octets in proptest::collection::vec(any::<u8>(), 0..200),
        text in proptest::collection::vec(0x20u8..0x7f, 0..200),
        cut in 0usize..3,
        stray in proptest::option::of(any::<u8>()),
    ) {
        for src in [octets, text] {
            let mut code = wirelab::hpack::huffman::encode(&src);
            code.truncate(code.len().saturating_sub(cut));
            code.extend(stray);
            let (mut a, mut b) = (vec![1], vec![1]);
            let ra = wirelab::hpack::huffman::decode(&code, &mut a);
            let rb = naive_huffman::decode(&code, &mut b);
            prop_assert_eq!(ra, rb);
            // On error the optimized decoder leaves `dst` as it was; the naive one does not.
            prop_assert_eq!(&a, if ra.is_ok() { &b } else { &vec![1] });
            if cut == 0 && stray.is_none() {
                prop_assert_eq!(&a[1..], &src[..]);
            }
        }
    }

    #[test]
    fn huffman_encoders_agree(s in latin1_text()) {
        let octets = wirelab::latin1::encode_lossy(&s);
        prop_assert_eq!(naive_huffman::encoded_len_chars(&s), wirelab::hpack::huffman::encoded_len(&octets));
        let w = wirelab_baselines::block::LockingWriter::new();
        naive_huffman::encode_chars(&s, &w);
        prop_assert_eq!(&w.take()[..], &wirelab::hpack::huffman::encode(&octets)[..]);
    }

    #[test]
    fn decoders_agree_on_arbitrary_blocks(bytes in proptest::collection::vec(any::<u8>(), 0..120), limit in 0usize..400) {
        let mut fast = Decoder::new();
        fast.set_max_header_list_size(limit);
        let mut slow = NaiveDecoder::new();
        slow.set_max_header_list_size(limit);
        let mut got = Vec::new();
        let rf = fast.decode(&bytes, |n, v| got.push((n.to_vec(), v.to_vec())));
        let rs = slow.decode_to_vec(&bytes);
        match (rf, rs) {
            (Ok(()), Ok(list)) => prop_assert_eq!(got, list),
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (a, b) => prop_assert!(false, "optimized {:?}, naive {:?}", a, b.map(|l| l.len())),
        }
    }
}
