//! Streaming decoders fed a compressed stream in pieces: the runners of `inflate`, `gzip` and
//! `octet-push`, one constructor per variant.

use crate::catalog::{Runner, Sink, on_copy};
use bytes::Bytes;
use std::io::Read;
use std::rc::Rc;
use wirelab::coding::{CopyCount, PushDecoder};
use wirelab::coding::{Decoder, DecoderConfig, Format};
use wirelab_baselines::coding::NaiveDecoder;

/// A compressed stream of `format`, split into the pieces it is pushed in.
#[derive(Clone)]
pub struct Pushed {
    /// The stream's format.
    pub format: Format,
    /// The pieces, each a separate allocation.
    pub pieces: Rc<Vec<Bytes>>,
}

/// The naive twin: `NaiveDecoder` fed every piece.
pub fn naive(p: &Pushed) -> Option<Runner> {
    let config = DecoderConfig::new(p.format);
    on_copy(p, move |p, sink| {
        let dec = NaiveDecoder::with_config(config).expect("valid config");
        decode_all(dec, &p.pieces, sink)
    })
}

/// The optimized decoder: `Decoder` fed every piece.
pub fn optimized(p: &Pushed) -> Option<Runner> {
    let config = DecoderConfig::new(p.format);
    on_copy(p, move |p, sink| {
        let dec = Decoder::with_config(config).expect("valid config");
        decode_all(dec, &p.pieces, sink)
    })
}

fn contiguous(p: &Pushed) -> Vec<u8> {
    p.pieces.iter().flat_map(|b| b.iter().copied()).collect()
}

/// One flate2 `Decompress::decompress` call over the whole stream, already contiguous, into an
/// initialised buffer of the output's size (zlib and raw deflate only).
pub fn flate2_oneshot(p: &Pushed) -> Option<Runner> {
    let (format, flat) = (p.format, contiguous(p));
    // The output buffer is sized and initialised once, outside the measured run (a
    // `decompress_vec` with spare capacity zero-fills it on every call): one `decompress` call
    // over contiguous input into initialised memory is the floor.
    let mut probe = Vec::new();
    match format {
        Format::Zlib => flate2::read::ZlibDecoder::new(&flat[..]).read_to_end(&mut probe),
        Format::Raw => flate2::read::DeflateDecoder::new(&flat[..]).read_to_end(&mut probe),
        _ => return None,
    }
    .ok()?;
    let mut out = vec![0u8; probe.len() + 1];
    Some(Box::new(move |sink| {
        let mut d = flate2::Decompress::new(format == Format::Zlib);
        let st = d
            .decompress(&flat, &mut out, flate2::FlushDecompress::Finish)
            .expect("valid stream");
        assert_eq!(st, flate2::Status::StreamEnd, "the buffer holds the output");
        let n = d.total_out() as usize;
        sink.emit(&out[..n]);
        n as u64
    }))
}

/// flate2 `Decompress::decompress` in a loop over the contiguous stream, into one reused 64 KiB
/// buffer (zlib and raw deflate).
pub fn flate2_stream(p: &Pushed) -> Option<Runner> {
    if !matches!(p.format, Format::Zlib | Format::Raw) {
        return None;
    }
    let (format, flat) = (p.format, contiguous(p));
    let mut out = vec![0u8; 64 << 10];
    Some(Box::new(move |sink| {
        let mut d = flate2::Decompress::new(format == Format::Zlib);
        let mut n = 0u64;
        loop {
            let (in0, out0) = (d.total_in(), d.total_out());
            let st = d
                .decompress(
                    &flat[in0 as usize..],
                    &mut out,
                    flate2::FlushDecompress::None,
                )
                .expect("valid stream");
            let produced = (d.total_out() - out0) as usize;
            sink.emit(&out[..produced]);
            n += produced as u64;
            if st == flate2::Status::StreamEnd {
                break;
            }
            assert!(produced > 0 || d.total_in() > in0, "no progress");
        }
        n
    }))
}

/// flate2 `Decompress::decompress` fed each piece as it arrives (a slice of the piece, not a
/// copy), into one reused 64 KiB buffer (zlib and raw deflate): a streaming inflater given the
/// input in the same pieces as the decoders.
pub fn flate2_pieces(p: &Pushed) -> Option<Runner> {
    if !matches!(p.format, Format::Zlib | Format::Raw) {
        return None;
    }
    let format = p.format;
    let mut out = vec![0u8; 64 << 10];
    on_copy(p, move |p, sink| {
        let mut d = flate2::Decompress::new(format == Format::Zlib);
        let mut n = 0u64;
        for piece in p.pieces.iter() {
            let mut at = 0;
            loop {
                let (in0, out0) = (d.total_in(), d.total_out());
                let st = d
                    .decompress(&piece[at..], &mut out, flate2::FlushDecompress::None)
                    .expect("valid stream");
                let consumed = (d.total_in() - in0) as usize;
                let produced = (d.total_out() - out0) as usize;
                at += consumed;
                sink.emit(&out[..produced]);
                n += produced as u64;
                if st == flate2::Status::StreamEnd {
                    return n;
                }
                if produced < out.len() && (at == piece.len() || consumed + produced == 0) {
                    // Room left over: the inflater wants the next piece.
                    break;
                }
            }
        }
        panic!("the stream did not end")
    })
}

/// flate2's `GzDecoder` over a reader of the pieces (gzip only).
pub fn flate2_gz(p: &Pushed) -> Option<Runner> {
    gz_reader(p, false)
}

/// flate2's `MultiGzDecoder` over a reader of the pieces (gzip only).
pub fn flate2_multi(p: &Pushed) -> Option<Runner> {
    gz_reader(p, true)
}

fn gz_reader(p: &Pushed, multi: bool) -> Option<Runner> {
    if p.format != Format::Gzip {
        return None;
    }
    let mut out = Vec::new();
    on_copy(p, move |p, sink| {
        out.clear();
        let reader = PiecesReader {
            pieces: &p.pieces,
            at: 0,
            offset: 0,
            copied: 0,
        };
        let copied = if multi {
            let mut d = flate2::read::MultiGzDecoder::new(reader);
            d.read_to_end(&mut out).expect("valid stream");
            d.into_inner().copied
        } else {
            let mut d = flate2::read::GzDecoder::new(reader);
            d.read_to_end(&mut out).expect("valid stream");
            d.into_inner().copied
        };
        sink.note_copied(copied);
        sink.emit(&out);
        out.len() as u64
    })
}

/// Pushes every piece of `input` into `dec`, finishes it and records its copies; returns the
/// octets decoded.
fn decode_all(mut dec: impl PushDecoder + CopyCount, input: &[Bytes], sink: &mut Sink) -> u64 {
    let mut n = 0u64;
    let mut emit = |b: Bytes| {
        n += b.len() as u64;
        sink.emit(&b);
    };
    for p in input {
        dec.push(p.clone(), &mut emit).expect("valid stream");
    }
    dec.finish(&mut emit).expect("complete stream");
    sink.note_copied(dec.bytes_copied());
    n
}

/// An `io::Read` over the pushed pieces, one piece (at most) per read. It copies each piece
/// into the reader's buffer, and counts those bytes.
struct PiecesReader<'a> {
    pieces: &'a [Bytes],
    at: usize,
    offset: usize,
    copied: u64,
}

impl Read for PiecesReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(p) = self.pieces.get(self.at) else {
            return Ok(0);
        };
        let n = (p.len() - self.offset).min(buf.len());
        buf[..n].copy_from_slice(&p[self.offset..self.offset + n]);
        self.copied += n as u64;
        self.offset += n;
        if self.offset == p.len() {
            self.at += 1;
            self.offset = 0;
        }
        Ok(n)
    }
}
