//! The properties the fuzz targets check, one function per target, each taking the fuzzer's raw
//! input and panicking when a property fails.
//!
//! Shared by the cargo-fuzz targets in `fuzz/fuzz_targets/` (through `#[path]`) and by
//! `tests/fuzz_replay.rs`, which replays every committed seed and every regression input with
//! plain `cargo test`. Inputs are decoded with `arbitrary::Unstructured`, except where the raw
//! bytes are the most useful input (Huffman and compressed streams), so that the fuzzer can be
//! pointed at real files.
#![allow(dead_code)]

use arbitrary::{Arbitrary, Unstructured};
use bytes::{Buf, Bytes};
use std::io::{self, Read, Write};
use wirelab::coding::PushDecoder;
use wirelab::coding::{
    CodingError, Decoder as StreamDecoder, DecoderConfig, Encoder as StreamEncoder, EncoderConfig,
    Format, Rope, Trailing,
};
use wirelab::hpack::{Decoder, Encoder, Header, HuffmanMode, Indexing, huffman};
use wirelab_baselines::hpack::{NaiveDecoder, NaiveEncoder};

/// A check: panics when its property fails for the input.
pub type Check = fn(&[u8]);

/// The fuzz targets, by name, with their checks.
pub const TARGETS: &[(&str, Check)] = &[
    ("hpack_decode", hpack_decode),
    ("hpack_roundtrip", hpack_roundtrip),
    ("huffman_roundtrip", huffman_roundtrip),
    ("huffman_decode_diff", huffman_decode_diff),
    ("gzip_decode", gzip_decode),
    ("coding_roundtrip", coding_roundtrip),
    ("latin1_diff", latin1_diff),
    ("block_ops", block_ops),
    ("write_to_diff", write_to_diff),
    ("crc_pieces", crc_pieces),
];

const TABLE_SIZES: [usize; 5] = [0, 64, 256, 4096, 65536];
const LIST_LIMITS: [usize; 4] = [0, 100, 4096, 1 << 20];

/// `hpack_decode`: byte 0 picks the table size and header list limit; the rest is a sequence of
/// header blocks, each preceded by its length (2 octets, big-endian). The optimized and naive
/// decoders must give the same headers or the same error for every block, and keep the same
/// dynamic table.
pub fn hpack_decode(data: &[u8]) {
    let Some((&config, mut rest)) = data.split_first() else {
        return;
    };
    let table_size = TABLE_SIZES[usize::from(config & 7) % TABLE_SIZES.len()];
    let list_limit = LIST_LIMITS[usize::from(config >> 3 & 3)];
    let mut opt = Decoder::new();
    opt.set_max_table_size(table_size);
    opt.set_max_header_list_size(list_limit);
    let mut naive = NaiveDecoder::new();
    naive.set_max_table_size(table_size);
    naive.set_max_header_list_size(list_limit);
    while !rest.is_empty() {
        let len = match rest {
            [a, b, ..] => usize::from(u16::from_be_bytes([*a, *b])),
            _ => rest.len(),
        };
        rest = &rest[2.min(rest.len())..];
        let (block, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        let a = opt.decode_to_vec(block);
        let b = naive.decode_to_vec(block);
        assert_eq!(
            a, b,
            "optimized and naive decoders disagree on block {block:02x?}"
        );
        if let Ok(list) = &a {
            let size: usize = list.iter().map(|(n, v)| n.len() + v.len() + 32).sum();
            assert!(
                size <= list_limit,
                "a header list over its limit was accepted"
            );
        }
        assert!(
            opt.table().iter().eq(naive.table().iter()),
            "dynamic tables differ"
        );
        assert!(opt.table().size() <= table_size, "table above its bound");
        if a.is_err_and(|e| e.is_connection_error()) {
            assert_eq!(
                opt.decode_to_vec(&[0x82]),
                Err(wirelab::hpack::DecodeError::Poisoned),
                "a decoder accepted input after a connection error"
            );
            return;
        }
    }
}

#[derive(Arbitrary, Debug)]
struct RoundtripInput {
    table_size: u16,
    blocks: Vec<Vec<(String, String, bool)>>,
    resize_between: Option<u16>,
}

/// `hpack_roundtrip`: arbitrary header lists (as text, converted as ISO-8859-1 with `?`),
/// encoded block after block in every Huffman mode and indexing policy, decode back equal with
/// the optimized and the naive decoder; the naive encoder produces the same bytes; a table
/// size change between blocks is honoured.
pub fn hpack_roundtrip(data: &[u8]) {
    let Ok(input) = RoundtripInput::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let table_size = usize::from(input.table_size);
    for mode in [HuffmanMode::Auto, HuffmanMode::Always, HuffmanMode::Never] {
        for indexing in [Indexing::None, Indexing::Incremental] {
            let config = wirelab::hpack::EncoderConfig {
                huffman: mode,
                indexing,
                ..Default::default()
            };
            let mut enc = Encoder::with_config(config).expect("valid config");
            let mut naive_enc = NaiveEncoder::with_config(config).expect("valid config");
            let mut dec = Decoder::new();
            dec.set_max_header_list_size(usize::MAX);
            let mut naive_dec = NaiveDecoder::new();
            naive_dec.set_max_header_list_size(usize::MAX);
            // The largest size the encoder may ask for: what the decoders advertise.
            let mut allowed = table_size.max(4096);
            if table_size != 4096 {
                enc.set_max_table_size(table_size);
            }
            dec.set_max_table_size(allowed);
            naive_dec.set_max_table_size(allowed);
            // The naive encoder has no sensitive fields and no size updates, and it takes each
            // char's low 8 bits where ours substitutes `?` above U+00FF: compare it on Latin-1
            // text while its table can be the same as ours.
            let latin1 = input
                .blocks
                .iter()
                .flatten()
                .all(|(n, v, _)| n.chars().chain(v.chars()).all(|c| u32::from(c) <= 0xFF));
            let mut naive_live = table_size == 4096 && latin1;
            for (i, list) in input.blocks.iter().enumerate() {
                if let (1, Some(size)) = (i, input.resize_between) {
                    let size = usize::from(size);
                    enc.set_max_table_size(size);
                    allowed = allowed.max(size);
                    dec.set_max_table_size(allowed);
                    naive_dec.set_max_table_size(allowed);
                    naive_live = false;
                }
                let pairs: Vec<(&str, &str)> = list
                    .iter()
                    .map(|(n, v, _)| (n.as_str(), v.as_str()))
                    .collect();
                let expected: Vec<(Vec<u8>, Vec<u8>)> = pairs
                    .iter()
                    .map(|(n, v)| {
                        (
                            wirelab::latin1::encode_lossy(n),
                            wirelab::latin1::encode_lossy(v),
                        )
                    })
                    .collect();
                let block = if list.iter().any(|h| h.2) {
                    naive_live = false;
                    enc.encode(list.iter().zip(&expected).map(|((_, _, s), (n, v))| {
                        if *s {
                            Header::sensitive(n, v)
                        } else {
                            Header::new(n, v)
                        }
                    }))
                } else {
                    let block = enc.encode_str(pairs.iter().copied());
                    if naive_live {
                        let naive_block = naive_enc.encode_str(pairs.iter().copied());
                        assert_eq!(block, naive_block, "naive and optimized encoders differ");
                    }
                    block
                };
                let got = dec.decode_to_vec(&block);
                assert_eq!(
                    got.as_ref(),
                    Ok(&expected),
                    "round trip through the decoder"
                );
                let naive_got = naive_dec.decode_to_vec(&block);
                assert_eq!(
                    naive_got,
                    Ok(expected),
                    "round trip through the naive decoder"
                );
            }
        }
    }
}

/// `huffman_roundtrip`: any octets Huffman-code into exactly `encoded_len` octets (checked with
/// a destination one octet too short and one too long as well), decode back with both decoders,
/// and the naive char-at-a-time encoder gives the same code for the same text.
pub fn huffman_roundtrip(data: &[u8]) {
    let len = huffman::encoded_len(data);
    let mut dst = vec![0u8; len];
    huffman::encode_into(data, &mut dst).expect("exact length accepted");
    assert_eq!(dst, huffman::encode(data));
    if len > 0 {
        let mut short = vec![0xEEu8; len - 1];
        assert!(huffman::encode_into(data, &mut short).is_err());
    }
    let mut long = vec![0xEEu8; len + 1];
    assert!(huffman::encode_into(data, &mut long).is_err());
    let mut back = Vec::new();
    huffman::decode(&dst, &mut back).expect("our own code decodes");
    assert_eq!(back, data);
    let mut naive_back = Vec::new();
    wirelab_baselines::hpack::huffman::decode(&dst, &mut naive_back).expect("naive decodes");
    assert_eq!(naive_back, data);
    let text = wirelab::latin1::decode(data);
    assert_eq!(
        wirelab_baselines::hpack::huffman::encoded_len_chars(&text),
        len
    );
    let w = wirelab_baselines::block::LockingWriter::new();
    wirelab_baselines::hpack::huffman::encode_chars(&text, &w);
    assert_eq!(w.take(), dst, "naive char-at-a-time encoder differs");
}

/// `huffman_decode_diff`: arbitrary octets decode to the same string, or fail with the same
/// error, with the table-driven decoder and the bit-by-bit tree walk.
pub fn huffman_decode_diff(data: &[u8]) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    let ra = huffman::decode(data, &mut a);
    let rb = wirelab_baselines::hpack::huffman::decode(data, &mut b);
    assert_eq!(ra, rb, "decoders disagree on {data:02x?}");
    if ra.is_ok() {
        assert_eq!(a, b);
        assert_eq!(huffman::encode(&a).len(), huffman::encoded_len(&a));
    }
}

/// A small deterministic generator for split points, seeded from the input.
struct Splits(u64);

impl Splits {
    fn new(data: &[u8]) -> Self {
        Self(u64::from(crc32fast::hash(data)) | 1 << 40)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Cuts `data` into pieces of 1 to `max` octets (each a `Bytes` of its own allocation).
    fn cut(&mut self, data: &[u8], max: usize) -> Vec<Bytes> {
        let mut out = Vec::new();
        let mut rest = data;
        while !rest.is_empty() {
            let n = 1 + (self.next() as usize) % max.min(rest.len());
            out.push(Bytes::copy_from_slice(&rest[..n]));
            rest = &rest[n..];
        }
        out
    }
}

const FUZZ_OUTPUT_LIMIT: u64 = 1 << 20;

type Outcome = Result<Vec<u8>, CodingError>;

/// Pushes `pieces` into `dec` and finishes it (through the push API both stream decoders share). With `max_chunk`, every output piece must be
/// non-empty and at most that long (a promise of the optimized decoder only).
fn decode_with(mut dec: impl PushDecoder, max_chunk: Option<usize>, pieces: &[Bytes]) -> Outcome {
    let mut out = Vec::new();
    let mut emit = |b: Bytes| {
        if let Some(max) = max_chunk {
            assert!(b.len() <= max, "an output piece over max_chunk");
            assert!(!b.is_empty(), "an empty output piece");
        }
        out.extend_from_slice(&b);
    };
    for p in pieces {
        dec.push(p.clone(), &mut emit)?;
    }
    dec.finish(&mut emit)?;
    Ok(out)
}

fn decode_optimized(config: DecoderConfig, pieces: &[Bytes]) -> Outcome {
    decode_with(
        StreamDecoder::with_config(config).expect("valid config"),
        Some(config.max_chunk),
        pieces,
    )
}

fn decode_naive(config: DecoderConfig, pieces: &[Bytes]) -> Outcome {
    decode_with(
        wirelab_baselines::coding::NaiveDecoder::with_config(config).expect("valid config"),
        None,
        pieces,
    )
}

/// What flate2's readers make of `data`: everything they produced (up to the limit and one
/// octet more) and whether they reached the end without an error.
fn decode_flate2(format: Format, data: &[u8]) -> (Vec<u8>, bool) {
    let reader: Box<dyn Read + '_> = match format {
        Format::Gzip => Box::new(flate2::read::MultiGzDecoder::new(data)),
        Format::Zlib => Box::new(flate2::read::ZlibDecoder::new(data)),
        Format::Raw => Box::new(flate2::read::DeflateDecoder::new(data)),
        Format::Deflate => unreachable!("no flate2 reader probes"),
    };
    let mut out = Vec::new();
    let ok = reader
        .take(FUZZ_OUTPUT_LIMIT + 1)
        .read_to_end(&mut out)
        .is_ok();
    (out, ok)
}

/// `gzip_decode`: the whole input is a compressed stream, decoded as gzip, zlib, raw deflate
/// and with the zlib-or-raw probe, cut at split points derived from the input (so that real
/// files make good seeds), with a 1 MiB output limit. The optimized and naive decoders must
/// agree on the output or on the error; where ours succeeds, flate2's reader must produce the
/// same octets; no output piece may exceed `max_chunk`.
pub fn gzip_decode(data: &[u8]) {
    let mut splits = Splits::new(data);
    for format in [Format::Gzip, Format::Zlib, Format::Raw, Format::Deflate] {
        // Pieces of up to 64 octets for small inputs; for large ones (the shared 1 MiB file
        // and its mutations) pieces grow so that an input is a few hundred pushes at most,
        // which keeps the fuzzer's rate up (the naive twin copies its input every round).
        let max_piece = 1 + (splits.next() as usize % (data.len() / 256).max(64));
        let pieces = splits.cut(data, max_piece);
        let mut config = DecoderConfig::new(format);
        config.max_output = Some(FUZZ_OUTPUT_LIMIT);
        config.max_chunk = 1 + (splits.next() as usize % 70_000);
        if splits.next().is_multiple_of(4) {
            config.trailing = Trailing::Ignore;
        }
        let ours = decode_optimized(config, &pieces);
        let naive = decode_naive(config, &pieces);
        assert_eq!(
            ours, naive,
            "{format:?}: optimized and naive decoders disagree"
        );
        let contiguous = decode_optimized(config, &[Bytes::copy_from_slice(data)]);
        assert_eq!(
            ours, contiguous,
            "{format:?}: split and contiguous input disagree"
        );
        if let (Ok(out), true) = (&ours, format != Format::Deflate) {
            let (theirs, _) = decode_flate2(format, data);
            // flate2's zlib and raw readers stop at the end of the stream, as we do; its gzip
            // reader goes on into whatever follows (padding, ignored trailing bytes).
            if format == Format::Gzip {
                assert!(
                    theirs.starts_with(out),
                    "{format:?}: flate2 produced other octets"
                );
            } else {
                assert_eq!(&theirs, out, "{format:?}: flate2 produced other octets");
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
struct CodingInput {
    format: u8,
    level: u8,
    flush_per_push: bool,
    max_chunk: u16,
    cuts: Vec<u16>,
    data: Vec<u8>,
}

/// `coding_roundtrip`: arbitrary data, level, format and input splits encode (optimized and
/// naive) into streams that decode back to the data with our decoder, the naive one and
/// flate2; with flush-per-push, every push's output decodes on its own so far.
pub fn coding_roundtrip(data: &[u8]) {
    let Ok(input) = CodingInput::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let format =
        [Format::Gzip, Format::Zlib, Format::Raw, Format::Deflate][usize::from(input.format % 4)];
    let mut config = EncoderConfig::new(format);
    config.level = u32::from(input.level % 10);
    config.flush_per_push = input.flush_per_push;
    config.max_chunk = usize::from(input.max_chunk);
    if let Err(e) = config.validate() {
        assert!(
            StreamEncoder::with_config(config).is_err(),
            "the encoder accepted {e}"
        );
        config.max_chunk = wirelab::coding::MIN_ENCODER_CHUNK.max(config.max_chunk);
    }
    let mut pieces = Vec::new();
    let mut rest = &input.data[..];
    for &c in &input.cuts {
        if rest.is_empty() {
            break;
        }
        let n = usize::from(c) % (rest.len() + 1);
        pieces.push(&rest[..n]);
        rest = &rest[n..];
    }
    pieces.push(rest);

    let mut enc = StreamEncoder::with_config(config).expect("valid config");
    let dec_config = DecoderConfig::new(format);
    let mut live = StreamDecoder::with_config(dec_config).expect("valid config");
    let mut live_out = Vec::new();
    let mut pushed = 0;
    let mut stream = Vec::new();
    for p in &pieces {
        let mut this_push = Vec::new();
        enc.push(p, &mut |b| this_push.push(b)).expect("push");
        pushed += p.len();
        for b in &this_push {
            assert!(
                b.len() <= config.max_chunk,
                "an encoder piece over max_chunk"
            );
            live.push(b.clone(), &mut |o| live_out.extend_from_slice(&o))
                .expect("decoding our own stream");
        }
        if config.flush_per_push {
            assert_eq!(
                live_out,
                input.data[..pushed],
                "a flushed push did not decode on its own"
            );
        }
        stream.extend(this_push);
    }
    let mut tail = Vec::new();
    enc.finish(&mut |b| tail.push(b)).expect("finish");
    for b in &tail {
        live.push(b.clone(), &mut |o| live_out.extend_from_slice(&o))
            .expect("decoding our own stream");
    }
    live.finish(&mut |o| live_out.extend_from_slice(&o))
        .expect("finish decoding");
    assert_eq!(live_out, input.data, "piece-by-piece round trip");
    stream.extend(tail);
    let flat: Vec<u8> = stream.iter().flat_map(|b| b.iter().copied()).collect();
    assert_eq!(
        decode_optimized(dec_config, &stream),
        Ok(input.data.clone()),
        "{format:?} level {}: round trip",
        config.level
    );
    assert_eq!(decode_naive(dec_config, &stream), Ok(input.data.clone()));
    if format != Format::Deflate {
        let (theirs, ok) = decode_flate2(format, &flat);
        assert!(ok, "flate2 rejects our {format:?} stream");
        assert_eq!(theirs, input.data, "flate2 decodes our stream differently");
    }
    let mut naive = wirelab_baselines::coding::NaiveEncoder::with_config(config)
        .expect("the optimized encoder took the same configuration");
    let mut naive_stream = Vec::new();
    for p in &pieces {
        naive.push(p, &mut |b| naive_stream.push(b)).expect("push");
    }
    naive.finish(&mut |b| naive_stream.push(b)).expect("finish");
    assert_eq!(
        decode_optimized(dec_config, &naive_stream),
        Ok(input.data.clone()),
        "the naive encoder's stream"
    );
}

#[derive(Arbitrary, Debug)]
struct Latin1Input {
    text: String,
    dst_len: u16,
    octets: Vec<u8>,
}

/// `latin1_diff`: the optimized and naive conversions agree on every string, destination length
/// and octet string; decoding is the inverse of lossy encoding on Latin-1 text.
pub fn latin1_diff(data: &[u8]) {
    let Ok(input) = Latin1Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    use wirelab::latin1 as opt;
    use wirelab_baselines::latin1 as naive;
    let s = input.text.as_str();
    let n = usize::from(input.dst_len) % (s.len() + 8);
    let (mut a, mut b) = (vec![0x5Au8; n], vec![0x5Au8; n]);
    assert_eq!(
        opt::encode_truncating_into(s, &mut a),
        naive::encode_truncating_into(s, &mut b)
    );
    assert_eq!(a, b, "truncating into a {n}-octet destination");
    let (mut a, mut b) = (vec![0x5Au8; n], vec![0x5Au8; n]);
    assert_eq!(
        opt::encode_lossy_into(s, &mut a),
        naive::encode_lossy_into(s, &mut b)
    );
    assert_eq!(a, b, "lossy into a {n}-octet destination");
    assert_eq!(opt::encode_truncating(s), naive::encode_truncating(s));
    let lossy = opt::encode_lossy(s);
    assert_eq!(lossy, naive::encode_lossy(s));
    assert_eq!(
        opt::count_unmappable(s),
        s.chars().filter(|&c| u32::from(c) > 0xFF).count()
    );
    let decoded = opt::decode(&input.octets);
    assert_eq!(decoded, naive::decode(&input.octets));
    assert_eq!(
        opt::encode_lossy(&decoded),
        input.octets,
        "decode is not inverted"
    );
}

#[derive(Arbitrary, Debug)]
enum BlockOp {
    PutU8(u8),
    PutSlice(Vec<u8>),
    Reserve(u16, u8),
    Write(Vec<u8>),
    Take,
    Clear,
    Truncate(u16),
}

/// `block_ops`: an arbitrary sequence of operations on a `BlockWriter` (with an arbitrary
/// chunk size) matches a plain `Vec` model, and every block handed over holds exactly the
/// model's octets.
pub fn block_ops(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(chunk) = u.int_in_range(wirelab::block::MIN_CHUNK..=8192) else {
        return;
    };
    let Ok(ops) = Vec::<BlockOp>::arbitrary_take_rest(u) else {
        return;
    };
    let mut w = wirelab::block::BlockWriter::with_chunk(chunk).expect("a chunk in range");
    let mut model: Vec<u8> = Vec::new();
    let mut handed = Vec::new();
    for op in ops {
        match op {
            BlockOp::PutU8(b) => {
                w.put_u8(b);
                model.push(b);
            }
            BlockOp::PutSlice(s) => {
                w.put_slice(&s);
                model.extend_from_slice(&s);
            }
            BlockOp::Reserve(len, fill) => {
                let len = usize::from(len);
                let range = w.put_zeroed(len);
                assert_eq!(range.len(), len, "reserve gave the wrong length");
                range.fill(fill);
                model.resize(model.len() + len, fill);
            }
            BlockOp::Write(s) => {
                w.write_all(&s).expect("writing to memory");
                model.extend_from_slice(&s);
            }
            BlockOp::Take => {
                let block = w.take();
                assert_eq!(&block[..], &model[..], "handed-over block");
                assert!(w.is_empty(), "writer not empty after take");
                handed.push((block, std::mem::take(&mut model)));
            }
            BlockOp::Clear => {
                w.clear();
                model.clear();
            }
            BlockOp::Truncate(n) => {
                let n = usize::from(n);
                w.truncate(n);
                model.truncate(n);
            }
        }
        assert_eq!(w.len(), model.len());
        assert_eq!(w.as_slice(), &model[..]);
    }
    // Blocks handed over earlier are not disturbed by later writes.
    for (block, expected) in &handed {
        assert_eq!(&block[..], &expected[..], "an earlier block changed");
    }
}

/// A writer that accepts at most a scripted number of octets per call, sometimes fails with
/// `Interrupted`, and optionally supports vectored writes.
struct ScriptedWriter {
    out: Vec<u8>,
    script: Vec<u8>,
    step: usize,
    vectored: bool,
}

impl ScriptedWriter {
    fn next(&mut self) -> u8 {
        let s = self
            .script
            .get(self.step % self.script.len().max(1))
            .copied();
        self.step += 1;
        s.unwrap_or(255)
    }
}

impl Write for ScriptedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let s = self.next();
        if s == 0 && self.step.is_multiple_of(3) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(usize::from(s).max(1));
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        if !self.vectored {
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &**b);
            return self.write(first);
        }
        let mut budget = usize::from(self.next()).max(1) * 4;
        let mut n = 0;
        for b in bufs {
            let take = b.len().min(budget);
            self.out.extend_from_slice(&b[..take]);
            n += take;
            budget -= take;
            if budget == 0 {
                break;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Arbitrary, Debug)]
struct WriteToInput {
    chunks: Vec<Vec<u8>>,
    script: Vec<u8>,
    vectored: bool,
    chained: bool,
}

/// `write_to_diff`: any list of chunks (a rope of `Bytes`, or a `Chain` of two) written to a writer
/// with arbitrary short writes, interruptions and vectored support arrives complete and in
/// order, the same as through the naive 4 KiB copy and the fitted copy, and the buffer is
/// fully consumed.
pub fn write_to_diff(data: &[u8]) {
    let Ok(input) = WriteToInput::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let expected: Vec<u8> = input.chunks.concat();
    let writer = || ScriptedWriter {
        out: Vec::new(),
        script: input.script.clone(),
        step: 0,
        vectored: input.vectored,
    };
    let pieces = || -> Vec<Bytes> {
        input
            .chunks
            .iter()
            .map(|c| Bytes::copy_from_slice(c))
            .collect()
    };
    let mut w = writer();
    if input.chained {
        let half = input.chunks.len() / 2;
        let mut all = pieces();
        let tail = all.split_off(half);
        let mut buf = Rope::from(all).chain(Rope::from(tail));
        wirelab::write_to::write_to(&mut buf, &mut w).expect("write_to");
        assert!(!buf.has_remaining());
    } else {
        let mut buf = Rope::from(pieces());
        wirelab::write_to::write_to(&mut buf, &mut w).expect("write_to");
        assert!(!buf.has_remaining());
    }
    assert_eq!(w.out, expected, "write_to lost or reordered octets");
    let mut w = writer();
    let mut buf = Rope::from(pieces());
    wirelab_baselines::write_to::write_to_temp_4k(&mut buf, &mut w).expect("temp 4k");
    assert_eq!(w.out, expected, "the naive copy differs");
    let mut w = writer();
    let mut buf = Rope::from(pieces());
    wirelab_baselines::write_to::write_to_temp_fitted(&mut buf, &mut w).expect("fitted");
    assert_eq!(w.out, expected, "the fitted copy differs");
}

/// `crc_pieces`: byte 0 says how many of the next bytes are cuts; each cut is a piece length
/// (0 to 765 octets); the rest of the input is cut into those pieces (and a last piece with
/// what is left). The naive twin (copy the pieces together, then checksum), crc32fast per
/// fragment, `Adaptive` piece by piece, `Adaptive::extend` over the rope, and a mix of the two
/// (a head piece by piece, the rest at once) must give one CRC.
pub fn crc_pieces(data: &[u8]) {
    use wirelab::coding::crc::{self, Adaptive};
    let Some((&cuts, rest)) = data.split_first() else {
        return;
    };
    let (cuts, octets) = rest.split_at(usize::from(cuts).min(rest.len()));
    let mut pieces = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        let end = (at + usize::from(cut) * 3).min(octets.len());
        pieces.push(Bytes::copy_from_slice(&octets[at..end]));
        at = end;
    }
    pieces.push(Bytes::copy_from_slice(&octets[at..]));
    let want = wirelab_baselines::coding::crc_copy_then_checksum(&pieces);
    let slices = || pieces.iter().map(|p| &p[..]);
    assert_eq!(crc::per_fragment(slices()), want, "per fragment");
    assert_eq!(crc::adaptive(slices()), want, "adaptive over the rope");
    let mut one_by_one = Adaptive::new();
    slices().for_each(|p| one_by_one.update(p));
    assert_eq!(one_by_one.value(), want, "adaptive piece by piece");
    let mut mixed = Adaptive::new();
    let head = cuts.len() / 2;
    slices().take(head).for_each(|p| mixed.update(p));
    mixed.extend(slices().skip(head));
    assert_eq!(
        mixed.finalize(),
        want,
        "a head piece by piece, the rest at once"
    );
}
