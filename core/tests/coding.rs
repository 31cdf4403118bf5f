//! `wirelab::coding`, mirroring Pekko HTTP's CoderSpec for each of gzip, zlib and raw deflate.

use bytes::Bytes;
use proptest::prelude::*;
use wirelab::coding::{
    CodingError, Decoder, DecoderConfig, Encoder, EncoderConfig, Format, Rope, crc,
};

const FORMATS: [Format; 3] = [Format::Gzip, Format::Zlib, Format::Raw];

fn encode_with(format: Format, pushes: &[&[u8]], flush_per_push: bool) -> Vec<Bytes> {
    let mut enc = Encoder::with_config(EncoderConfig {
        flush_per_push,
        ..EncoderConfig::new(format)
    })
    .expect("valid config");
    let mut out = Vec::new();
    for p in pushes {
        enc.push(p, &mut |b| out.push(b)).unwrap();
    }
    enc.finish(&mut |b| out.push(b)).unwrap();
    out
}

fn encode(format: Format, data: &[u8]) -> Vec<u8> {
    encode_with(format, &[data], false).concat()
}

fn decode_pieces(format: Format, pieces: &[&[u8]]) -> Result<Vec<u8>, CodingError> {
    let mut dec = Decoder::new(format);
    let mut out = Vec::new();
    for p in pieces {
        dec.push(Bytes::copy_from_slice(p), &mut |b| {
            out.extend_from_slice(&b)
        })?;
    }
    dec.finish(&mut |b| out.extend_from_slice(&b))?;
    Ok(out)
}

fn decode(format: Format, data: &[u8]) -> Result<Vec<u8>, CodingError> {
    decode_pieces(format, &[data])
}

fn random(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn text(n: usize) -> Vec<u8> {
    b"The quick brown fox jumps over the lazy dog. "
        .iter()
        .cycle()
        .take(n)
        .copied()
        .collect()
}

#[test]
fn valid_output_on_immediate_finish() {
    for f in FORMATS {
        let out = encode_with(f, &[], false).concat();
        assert!(!out.is_empty(), "{f:?}");
        assert_eq!(decode(f, &out).unwrap(), b"", "{f:?}");
    }
}

#[test]
fn round_trips_empty_small_and_large() {
    for f in FORMATS {
        for data in [
            Vec::new(),
            b"Hello, wirelab!".to_vec(),
            text(1_000_000),
            random(300_000, 7),
        ] {
            assert_eq!(
                decode(f, &encode(f, &data)).unwrap(),
                data,
                "{f:?} {}",
                data.len()
            );
        }
    }
}

#[test]
fn interoperates_with_flate2() {
    use flate2::read::{DeflateDecoder, GzDecoder, ZlibDecoder};
    use std::io::Read;
    let data = text(100_000);
    let mut out = Vec::new();
    GzDecoder::new(&encode(Format::Gzip, &data)[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, data);
    out.clear();
    ZlibDecoder::new(&encode(Format::Zlib, &data)[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, data);
    out.clear();
    DeflateDecoder::new(&encode(Format::Raw, &data)[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, data);
}

#[test]
fn error_on_corrupt_input() {
    for f in FORMATS {
        let data = text(10_000);
        let mut bad = encode(f, &data);
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        bad[mid + 1] ^= 0x55;
        match f {
            // The checksums catch any corruption the inflater does not.
            Format::Gzip | Format::Zlib => assert!(decode(f, &bad).is_err(), "{f:?}"),
            // Raw deflate has no checksum: either an error or different output.
            _ => assert!(decode(f, &bad).map_or(true, |out| out != data), "{f:?}"),
        }
    }
    assert_eq!(
        decode(Format::Gzip, b"not gzip at all"),
        Err(CodingError::NotGzip)
    );
}

#[test]
fn decompresses_in_very_small_pieces() {
    let data = text(20_000);
    for f in FORMATS {
        let enc = encode(f, &data);
        for size in [1, 2, 3, 7, 64] {
            let pieces: Vec<&[u8]> = enc.chunks(size).collect();
            assert_eq!(
                decode_pieces(f, &pieces).unwrap(),
                data,
                "{f:?} pieces of {size}"
            );
        }
    }
}

#[test]
fn chunked_round_trip_and_data_just_above_1024() {
    for f in FORMATS {
        let data = random(1025, 3);
        let pushes: Vec<&[u8]> = data.chunks(100).collect();
        let enc = encode_with(f, &pushes, false).concat();
        assert_eq!(decode(f, &enc).unwrap(), data);
    }
}

#[test]
fn every_split_in_two_and_three_way_splits_at_boundaries() {
    let data = text(3000);
    for f in FORMATS {
        let enc = encode(f, &data);
        for i in 0..=enc.len() {
            assert_eq!(
                decode_pieces(f, &[&enc[..i], &enc[i..]]).unwrap(),
                data,
                "{f:?} split at {i}"
            );
        }
        // Three-way splits around the header/body and body/trailer boundaries.
        let n = enc.len();
        for a in (0..14).chain(n - 12..n) {
            for b in a..(a + 12).min(n) {
                let pieces = [&enc[..a], &enc[a..b], &enc[b..]];
                assert_eq!(decode_pieces(f, &pieces).unwrap(), data, "{f:?} {a}/{b}");
            }
        }
    }
}

#[test]
fn no_output_piece_larger_than_max_chunk() {
    let data = random(100_007, 11);
    for f in FORMATS {
        for max_chunk in [1000, 4096, 65536] {
            let enc = encode(f, &data);
            let mut dec = Decoder::with_config(DecoderConfig {
                max_chunk,
                ..DecoderConfig::new(f)
            })
            .expect("valid config");
            let mut out = Vec::new();
            let mut biggest = 0;
            for p in enc.chunks(5000) {
                dec.push(Bytes::copy_from_slice(p), &mut |b| {
                    biggest = biggest.max(b.len());
                    out.extend_from_slice(&b);
                })
                .unwrap();
            }
            dec.finish(&mut |b| out.extend_from_slice(&b)).unwrap();
            assert!(biggest <= max_chunk, "{f:?}: {biggest} > {max_chunk}");
            assert_eq!(out, data);
        }
    }
}

#[test]
fn output_pieces_stay_intact_whether_kept_or_dropped() {
    // The decoder reuses its output allocation, without zeroing it again, once the consumer
    // has dropped the pieces it handed out, and allocates afresh while pieces are held. Pieces
    // kept (all, some, or none) must never change afterwards, and the output must be the same.
    let data = [random(300_000, 5), text(200_000), random(70_000, 6)].concat();
    for f in FORMATS {
        let enc = encode(f, &data);
        for keep_every in [0usize, 1, 2, 3, 7] {
            for (push, max_chunk) in [(65536, 65536), (8192, 65536), (3000, 4096), (100_000, 1000)]
            {
                let mut dec = Decoder::with_config(DecoderConfig {
                    max_chunk,
                    ..DecoderConfig::new(f)
                })
                .expect("valid config");
                let mut out = Vec::new();
                let mut kept: Vec<(usize, Bytes)> = Vec::new();
                let mut n = 0usize;
                let mut emit = |b: Bytes| {
                    if keep_every > 0 && n.is_multiple_of(keep_every) {
                        kept.push((out.len(), b.clone()));
                    }
                    n += 1;
                    out.extend_from_slice(&b);
                };
                for p in enc.chunks(push) {
                    dec.push(Bytes::copy_from_slice(p), &mut emit).unwrap();
                }
                dec.finish(&mut emit).unwrap();
                assert_eq!(out, data, "{f:?} keep every {keep_every}, pushes of {push}");
                for (at, piece) in &kept {
                    assert_eq!(
                        &piece[..],
                        &data[*at..at + piece.len()],
                        "a kept piece changed"
                    );
                }
            }
        }
    }
}

#[test]
fn long_compressible_streams_keep_pieces_intact_and_within_max_chunk() {
    // Past 1 MiB of output at twice the input or more, the decoder inflates into more room
    // than one piece (a new allocation) and hands the output over in pieces of `max_chunk`.
    let data = [random(300_000, 7), text(3 << 20), random(50_000, 8)].concat();
    for f in FORMATS {
        let enc = encode(f, &data);
        for keep_every in [0usize, 1, 3] {
            for (push, max_chunk) in [(65536, 65536), (8192, 4096), (100_000, 1000)] {
                let mut dec = Decoder::with_config(DecoderConfig {
                    max_chunk,
                    ..DecoderConfig::new(f)
                })
                .expect("valid config");
                let (mut out, mut kept, mut n, mut biggest) = (Vec::new(), Vec::new(), 0usize, 0);
                let mut emit = |b: Bytes| {
                    if keep_every > 0 && n.is_multiple_of(keep_every) {
                        kept.push((out.len(), b.clone()));
                    }
                    n += 1;
                    biggest = biggest.max(b.len());
                    out.extend_from_slice(&b);
                };
                for p in enc.chunks(push) {
                    dec.push(Bytes::copy_from_slice(p), &mut emit).unwrap();
                }
                dec.finish(&mut emit).unwrap();
                assert!(
                    out == data,
                    "{f:?} keep every {keep_every}, pushes of {push}"
                );
                assert!(biggest <= max_chunk, "{f:?}: {biggest} > {max_chunk}");
                for (at, piece) in &kept {
                    assert!(
                        piece[..] == data[*at..at + piece.len()],
                        "a kept piece changed"
                    );
                }
            }
        }
    }
}

#[test]
fn flush_per_push_preserves_piece_boundaries() {
    let pushes: [&[u8]; 4] = [b"first push, ", b"second push; ", b"and a third", b"!"];
    for f in FORMATS {
        let pieces = encode_with(f, &pushes, true);
        // Feeding the encoder's output piece by piece yields each push's data right away.
        let mut dec = Decoder::new(f);
        let mut per_piece = Vec::new();
        for p in &pieces {
            let mut got = Vec::new();
            dec.push(p.clone(), &mut |b| got.extend_from_slice(&b))
                .unwrap();
            per_piece.push(got);
        }
        dec.finish(&mut |_| {}).unwrap();
        let nonempty: Vec<&Vec<u8>> = per_piece.iter().filter(|g| !g.is_empty()).collect();
        let expected: Vec<&[u8]> = pushes.to_vec();
        assert_eq!(nonempty.len(), expected.len(), "{f:?}: {per_piece:?}");
        for (got, want) in nonempty.iter().zip(expected) {
            assert_eq!(&got[..], want, "{f:?}");
        }
    }
}

#[test]
fn truncation_at_every_offset_is_reported() {
    let data = text(2000);
    for f in FORMATS {
        let enc = encode(f, &data);
        for i in 0..enc.len() {
            let r = decode(f, &enc[..i]);
            assert!(
                matches!(r, Err(CodingError::Truncated)),
                "{f:?} cut at {i} of {}: {r:?}",
                enc.len()
            );
        }
    }
}

#[test]
fn multi_fragment_input_matches_contiguous() {
    let data = text(200_000);
    let enc = encode(Format::Gzip, &data);
    // Genuinely separate allocations, not slices of one buffer.
    let pieces: Vec<Bytes> = enc.chunks(777).map(|c| Bytes::from(c.to_vec())).collect();
    let mut dec = Decoder::new(Format::Gzip);
    let mut out = Vec::new();
    for p in pieces {
        dec.push(p, &mut |b| out.extend_from_slice(&b)).unwrap();
    }
    dec.finish(&mut |b| out.extend_from_slice(&b)).unwrap();
    assert_eq!(out, decode(Format::Gzip, &enc).unwrap());
    assert_eq!(out, data);
}

#[test]
fn deflate_format_probes_zlib_or_raw() {
    let data = text(5000);
    assert_eq!(
        decode(Format::Deflate, &encode(Format::Zlib, &data)).unwrap(),
        data
    );
    assert_eq!(
        decode(Format::Deflate, &encode(Format::Raw, &data)).unwrap(),
        data
    );
}

#[test]
fn output_limit_stops_a_bomb() {
    let zeros = vec![0u8; 8 << 20];
    let enc = encode(Format::Gzip, &zeros);
    assert!(enc.len() < 20_000, "{}", enc.len());
    let mut dec = Decoder::with_config(DecoderConfig {
        max_output: Some(1 << 20),
        ..DecoderConfig::new(Format::Gzip)
    })
    .expect("valid config");
    let mut total = 0;
    let r = dec.push(Bytes::from(enc), &mut |b| total += b.len());
    assert_eq!(r, Err(CodingError::OutputLimit { limit: 1 << 20 }));
    assert!(total <= (1 << 20) + 65536);
    assert_eq!(
        dec.push(Bytes::new(), &mut |_| {}),
        Err(CodingError::Poisoned)
    );
}

#[test]
fn crc_strategies_agree() {
    let data = random(100_000, 5);
    let expected = crc32fast::hash(&data);
    for size in [1, 63, 64, 1000, 1024, 4096, 65536] {
        let pieces: Vec<&[u8]> = data.chunks(size).collect();
        assert_eq!(
            crc::per_fragment(pieces.iter().copied()),
            expected,
            "{size}"
        );
        assert_eq!(crc::adaptive(pieces.iter().copied()), expected, "{size}");
    }
    let mut a = crc::Adaptive::new();
    a.update(&data[..10]);
    assert_eq!(a.value(), crc32fast::hash(&data[..10]));
}

#[test]
fn rope_is_a_buf() {
    use bytes::Buf;
    let mut r = Rope::from(vec![
        Bytes::from_static(b"ab"),
        Bytes::new(),
        Bytes::from_static(b"cde"),
    ]);
    assert_eq!(r.len(), 5);
    assert_eq!(r.piece_count(), 2);
    assert_eq!(r.get(3), Some(b'd'));
    r.advance(3);
    assert_eq!(r.chunk(), b"de");
    assert_eq!(r.copy_to_bytes(2), Bytes::from_static(b"de"));
    assert!(r.is_empty());
}

proptest! {
    #[test]
    fn random_data_and_splits_round_trip(
        data in proptest::collection::vec(any::<u8>(), 0..5000),
        splits in proptest::collection::vec(1usize..700, 1..10),
        level in 0u32..10,
        f in 0usize..3,
    ) {
        let format = FORMATS[f];
        let mut enc = Encoder::with_config(EncoderConfig { level, ..EncoderConfig::new(format) }).expect("valid config");
        let mut out = Vec::new();
        let mut rest = &data[..];
        for s in &splits {
            let (a, b) = rest.split_at((*s).min(rest.len()));
            enc.push(a, &mut |x| out.extend_from_slice(&x)).unwrap();
            rest = b;
        }
        enc.push(rest, &mut |x| out.extend_from_slice(&x)).unwrap();
        enc.finish(&mut |x| out.extend_from_slice(&x)).unwrap();
        let pieces: Vec<&[u8]> = out.chunks(splits[0]).collect();
        prop_assert_eq!(decode_pieces(format, &pieces).unwrap(), data);
    }

    #[test]
    fn decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300), split in 1usize..50, f in 0usize..4) {
        let format = [Format::Gzip, Format::Zlib, Format::Raw, Format::Deflate][f];
        let pieces: Vec<&[u8]> = bytes.chunks(split).collect();
        let _ = decode_pieces(format, &pieces);
    }
}

/// Pushes `pieces` then finishes, returning what was emitted before the first error and that
/// error.
fn decode_until_error(format: Format, pieces: &[&[u8]]) -> (Vec<u8>, Option<CodingError>) {
    let mut dec = Decoder::new(format);
    let mut out = Vec::new();
    for p in pieces {
        if let Err(e) = dec.push(Bytes::copy_from_slice(p), &mut |b| {
            out.extend_from_slice(&b)
        }) {
            return (out, Some(e));
        }
    }
    let end = dec.finish(&mut |b| out.extend_from_slice(&b)).err();
    (out, end)
}

#[test]
fn verified_output_is_delivered_before_what_follows_fails_at_every_split() {
    let data = text(3000);
    for f in FORMATS {
        let tails: &[(&[u8], CodingError)] = match f {
            Format::Gzip => &[
                (b"garbage!", CodingError::TrailingGarbage),
                // The start of a second member's header, never completed.
                (&[0x1f, 0x8b, 8], CodingError::Truncated),
            ],
            _ => &[(b"garbage!", CodingError::TrailingGarbage)],
        };
        for (tail, expected) in tails {
            let mut input = encode(f, &data);
            input.extend_from_slice(tail);
            for i in 0..=input.len() {
                for pieces in [vec![&input[..]], vec![&input[..i], &input[i..]]] {
                    let (out, err) = decode_until_error(f, &pieces);
                    assert_eq!(err.as_ref(), Some(expected), "{f:?} split at {i}");
                    assert!(
                        out == data,
                        "{f:?} split at {i}: {} of {} octets delivered",
                        out.len(),
                        data.len()
                    );
                }
            }
        }
    }
}

/// A gzip member with FNAME, FCOMMENT and FHCRC (flate2 never writes FHCRC), the header CRC
/// computed over everything before it.
fn member_with_header_crc(name: &[u8], comment: &[u8], body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = vec![0x1f, 0x8b, 8, 0x02 | 0x08 | 0x10, 0, 0, 0, 0, 0, 255];
    gz.extend_from_slice(name);
    gz.push(0);
    gz.extend_from_slice(comment);
    gz.push(0);
    let crc16 = (crc32fast::hash(&gz) & 0xffff) as u16;
    gz.extend_from_slice(&crc16.to_le_bytes());
    let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    raw.write_all(body).unwrap();
    gz.extend_from_slice(&raw.finish().unwrap());
    gz.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    gz.extend_from_slice(&(body.len() as u32).to_le_bytes());
    gz
}

#[test]
fn header_crc_covers_name_and_comment_in_any_pieces() {
    let body = text(3000);
    let gz = member_with_header_crc(&[b'n'; 300], &[b'c'; 200], &body);
    // One corrupted octet in the name, one in the comment: the header CRC no longer matches.
    let mut bad_name = gz.clone();
    bad_name[10 + 150] ^= 1;
    let mut bad_comment = gz.clone();
    bad_comment[10 + 301 + 100] ^= 1;
    for piece in [1, 2, 3, 7, 64, 299, 300, 301, gz.len()] {
        let pieces: Vec<&[u8]> = gz.chunks(piece).collect();
        assert_eq!(
            decode_pieces(Format::Gzip, &pieces).as_ref(),
            Ok(&body),
            "{piece}"
        );
        for bad in [&bad_name, &bad_comment] {
            let pieces: Vec<&[u8]> = bad.chunks(piece).collect();
            let err = decode_pieces(Format::Gzip, &pieces).unwrap_err();
            assert!(
                matches!(err, CodingError::HeaderCrcMismatch { .. }),
                "{piece}: {err:?}"
            );
        }
    }
}
