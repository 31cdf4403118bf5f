//! The naive and optimized coding stages agree on random data and random splits.

use bytes::Bytes;
use proptest::prelude::*;
use wirelab::coding::{Decoder, DecoderConfig, Encoder, EncoderConfig, Format, crc};
use wirelab_baselines::coding::{NaiveDecoder, NaiveEncoder, crc_copy_then_checksum};

const FORMATS: [Format; 4] = [Format::Gzip, Format::Zlib, Format::Raw, Format::Deflate];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn crc_strategies_agree(pieces in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..3000), 0..12)) {
        let bytes: Vec<Bytes> = pieces.iter().map(|p| Bytes::from(p.clone())).collect();
        let naive = crc_copy_then_checksum(&bytes);
        prop_assert_eq!(crc::per_fragment(bytes.iter().map(|b| &b[..])), naive);
        prop_assert_eq!(crc::adaptive(bytes.iter().map(|b| &b[..])), naive);
    }

    #[test]
    fn encoders_produce_identical_streams(
        pieces in proptest::collection::vec(proptest::collection::vec(0u8..8, 0..2000), 0..6),
        f in 0usize..3, level in 0u32..10, flush in any::<bool>(),
    ) {
        let format = FORMATS[f];
        let mut fast = Encoder::with_config(EncoderConfig { level, flush_per_push: flush, ..EncoderConfig::new(format) }).expect("valid config");
        let config = EncoderConfig { level, flush_per_push: flush, ..EncoderConfig::new(format) };
        let mut slow = NaiveEncoder::with_config(config).expect("valid config");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for p in &pieces {
            fast.push(p, &mut |x| a.extend_from_slice(&x)).unwrap();
            slow.push(p, &mut |x| b.extend_from_slice(&x)).unwrap();
        }
        fast.finish(&mut |x| a.extend_from_slice(&x)).unwrap();
        slow.finish(&mut |x| b.extend_from_slice(&x)).unwrap();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn decoders_agree_on_output_or_error(
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        corrupt in proptest::option::of((any::<prop::sample::Index>(), 1u8..=255)),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        split in 1usize..400, f in 0usize..4,
    ) {
        let format = FORMATS[f];
        let mut enc = Encoder::new(if format == Format::Deflate { Format::Zlib } else { format });
        let mut stream = Vec::new();
        enc.push(&data, &mut |x| stream.extend_from_slice(&x)).unwrap();
        enc.finish(&mut |x| stream.extend_from_slice(&x)).unwrap();
        if let Some((i, x)) = corrupt {
            let i = i.index(stream.len());
            stream[i] ^= x;
        }
        if let Some(c) = cut {
            stream.truncate(c.index(stream.len() + 1));
        }
        let config = DecoderConfig::new(format);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut fast = Decoder::with_config(config).expect("valid config");
        let mut slow = NaiveDecoder::with_config(config).expect("valid config");
        let mut ra = Ok(());
        let mut rb = Ok(());
        for p in stream.chunks(split) {
            if ra.is_ok() { ra = fast.push(Bytes::copy_from_slice(p), &mut |x| a.extend_from_slice(&x)); }
            if rb.is_ok() { rb = slow.push(Bytes::copy_from_slice(p), &mut |x| b.extend_from_slice(&x)); }
        }
        if ra.is_ok() { ra = fast.finish(&mut |x| a.extend_from_slice(&x)); }
        if rb.is_ok() { rb = slow.finish(&mut |x| b.extend_from_slice(&x)); }
        // Same outcome: both succeed with the same bytes, or both fail with the same kind of error.
        match (&ra, &rb) {
            (Ok(()), Ok(())) => prop_assert_eq!(&a, &b),
            (Err(x), Err(y)) => prop_assert_eq!(std::mem::discriminant(x), std::mem::discriminant(y), "{} vs {}", x, y),
            _ => prop_assert!(false, "optimized {:?}, naive {:?}", ra, rb),
        }
        if ra.is_ok() && corrupt.is_none() && cut.is_none() {
            prop_assert_eq!(a, data);
        }
    }
}
