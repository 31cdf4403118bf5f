//! The decoders' copy counters (`bytes_copied`), which the `inflate`, `gzip` and `octet-push`
//! reports show per MiB decoded: exact for the optimized decoder (it copies only header and
//! trailer fields, whatever the pieces), exact for the naive twin in a simple case, and at
//! least twice the input for the naive twin in every case. The counters exist with the `lab`
//! feature (on in `cargo test --workspace`, which builds the lab).
#![cfg(feature = "lab")]

use bytes::Bytes;
use std::io::Write;
use wirelab::coding::{CopyCount, PushDecoder};
use wirelab::coding::{Decoder, DecoderConfig, Encoder, Format};
use wirelab_baselines::coding::NaiveDecoder;

fn encode(format: Format, data: &[u8]) -> Vec<u8> {
    let mut enc = Encoder::new(format);
    let mut out = Vec::new();
    enc.push(data, &mut |b| out.extend_from_slice(&b)).unwrap();
    enc.finish(&mut |b| out.extend_from_slice(&b)).unwrap();
    out
}

fn text(n: usize) -> Vec<u8> {
    (0..n).map(|i| b"abcdefgh "[(i * 7 + i / 13) % 9]).collect()
}

/// Decodes `stream` pushed in pieces of `size` bytes; returns the output and the copy count.
fn copies(mut dec: impl PushDecoder + CopyCount, stream: &[u8], size: usize) -> (Vec<u8>, u64) {
    let mut out = Vec::new();
    for p in stream.chunks(size) {
        dec.push(Bytes::copy_from_slice(p), &mut |b| {
            out.extend_from_slice(&b)
        })
        .unwrap();
    }
    dec.finish(&mut |b| out.extend_from_slice(&b)).unwrap();
    (out, dec.bytes_copied())
}

#[test]
fn optimized_copies_only_header_and_trailer_fields() {
    let data = text(100_000);
    let gz = encode(Format::Gzip, &data);
    let zlib = encode(Format::Zlib, &data);
    for size in [1, 7, 4096, gz.len()] {
        let config = DecoderConfig::new(Format::Gzip);
        let (out, copied) = copies(
            Decoder::with_config(config).expect("valid config"),
            &gz,
            size,
        );
        assert_eq!(out, data);
        // 10 fixed header bytes and 8 trailer bytes.
        assert_eq!(copied, 18, "gzip in pieces of {size}");
        for format in [Format::Zlib, Format::Deflate] {
            let (out, copied) = copies(Decoder::new(format), &zlib, size);
            assert_eq!(out, data);
            assert_eq!(copied, 0, "{format:?} in pieces of {size}");
        }
    }
}

#[test]
fn optimized_counts_optional_header_fields_per_member() {
    let data = text(5000);
    let mut member = flate2::GzBuilder::new()
        .filename("a-long-file-name.txt")
        .comment("a comment")
        .extra(vec![7u8; 300])
        .write(Vec::new(), flate2::Compression::default());
    member.write_all(&data).unwrap();
    let member = member.finish().unwrap();
    // flate2 sets FHCRC only when asked; this member has FEXTRA, FNAME and FCOMMENT.
    let two = [member.clone(), member].concat();
    for size in [1, 33, two.len()] {
        let (out, copied) = copies(Decoder::new(Format::Gzip), &two, size);
        assert_eq!(out, [data.clone(), data.clone()].concat());
        // Per member: 10 fixed, 2 for XLEN, 8 trailer; the name, comment and extra field
        // are checksummed in place.
        assert_eq!(copied, 2 * 20, "pieces of {size}");
    }
}

#[test]
fn naive_copies_the_input_twice_in_one_push() {
    // One push of a raw stream whose output fits one round: the push appends the piece to
    // `pending` (n bytes), the round copies `pending` (n bytes) and consumes all of it, so
    // nothing is moved.
    let data = text(20_000);
    let raw = encode(Format::Raw, &data);
    let (out, copied) = copies(NaiveDecoder::new(Format::Raw), &raw, raw.len());
    assert_eq!(out, data);
    assert_eq!(copied, 2 * raw.len() as u64);
}

#[test]
fn naive_copies_every_byte_at_least_twice_optimized_a_constant() {
    // Incompressible, so that the stream is as long as the data and takes several rounds.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let gz = encode(Format::Gzip, &data);
    let config = DecoderConfig::new(Format::Gzip);
    let mut naive = Vec::new();
    for size in [gz.len(), 8192, 512] {
        let (out, n) = copies(
            NaiveDecoder::with_config(config).expect("valid config"),
            &gz,
            size,
        );
        assert_eq!(out, data);
        let (out, o) = copies(
            Decoder::with_config(config).expect("valid config"),
            &gz,
            size,
        );
        assert_eq!(out, data);
        assert_eq!(o, 18, "pieces of {size}");
        assert!(
            n >= 2 * gz.len() as u64,
            "every byte is appended and then copied: {n} for pieces of {size}"
        );
        naive.push(n);
    }
    // In one push, each 64 KiB round copies all the input that is left: about 5 times the
    // stream here.
    assert!(
        naive[0] > 4 * gz.len() as u64,
        "one push, rounds over the rest: {naive:?}"
    );
}
