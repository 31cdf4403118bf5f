//! Every file in `../shared/data/gzip/` behaves as its README says, in one piece and in many;
//! valid files decode to what flate2's `MultiGzDecoder` (and `gzip -dc`, where installed)
//! produce. Without the shared data the test says it was skipped; under `CI=true` it fails.

use bytes::Bytes;

mod support;
use support::data_dir;
use wirelab::coding::{CodingError, Decoder, DecoderConfig, Format, Trailing};

fn decode(config: DecoderConfig, data: &[u8], piece: usize) -> Result<Vec<u8>, CodingError> {
    let mut dec = Decoder::with_config(config).expect("valid config");
    let mut out = Vec::new();
    for p in data.chunks(piece.max(1)) {
        dec.push(Bytes::copy_from_slice(p), &mut |b| {
            out.extend_from_slice(&b)
        })?;
    }
    dec.finish(&mut |b| out.extend_from_slice(&b))?;
    Ok(out)
}

enum Expect {
    Content(Vec<u8>),
    Error(fn(&CodingError) -> bool),
}

#[test]
fn every_gzip_file_behaves_as_documented() {
    let Some(dir) = data_dir(&["gzip", "corpus"]) else {
        return;
    };
    let hello = b"Hello, HPACK and gzip world!\n".repeat(3);
    let alice = std::fs::read(dir.join("corpus/alice29.txt")).unwrap();
    let urls = std::fs::read(dir.join("corpus/urls.10K")).unwrap();
    use Expect::*;
    let cases: Vec<(&str, Format, Expect)> = vec![
        ("valid-plain.gz", Format::Gzip, Content(hello.clone())),
        ("valid-fname.gz", Format::Gzip, Content(hello.clone())),
        ("valid-fextra.gz", Format::Gzip, Content(hello.clone())),
        ("valid-fcomment.gz", Format::Gzip, Content(hello.clone())),
        ("valid-fhcrc.gz", Format::Gzip, Content(hello.clone())),
        ("valid-all-flags.gz", Format::Gzip, Content(hello.clone())),
        ("valid-empty.gz", Format::Gzip, Content(Vec::new())),
        (
            "valid-stored-level0.gz",
            Format::Gzip,
            Content(hello.clone()),
        ),
        (
            "valid-multi-member.gz",
            Format::Gzip,
            Content(b"first member\nsecond member\n".to_vec()),
        ),
        ("valid-zero-padded.gz", Format::Gzip, Content(hello.clone())),
        (
            "valid-alice29-level9.gz",
            Format::Gzip,
            Content(alice.clone()),
        ),
        ("valid-alice29.zlib", Format::Zlib, Content(alice.clone())),
        (
            "valid-alice29.zlib",
            Format::Deflate,
            Content(alice.clone()),
        ),
        ("valid-alice29.deflate", Format::Raw, Content(alice.clone())),
        (
            "valid-alice29.deflate",
            Format::Deflate,
            Content(alice.clone()),
        ),
        ("tool-gnu-gzip-9.gz", Format::Gzip, Content(alice.clone())),
        (
            "tool-gnu-gzip-fname.gz",
            Format::Gzip,
            Content(alice.clone()),
        ),
        (
            "tool-pigz-independent-blocks.gz",
            Format::Gzip,
            Content(alice.clone()),
        ),
        ("tool-pigz-urls.gz", Format::Gzip, Content(urls.clone())),
        (
            "tool-gzip-pigz-concat.gz",
            Format::Gzip,
            Content(b"one\ntwo\n".to_vec()),
        ),
        (
            "bad-magic.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::NotGzip),
        ),
        (
            "bad-method.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::UnsupportedMethod(7)),
        ),
        (
            "bad-reserved-flag.gz",
            Format::Gzip,
            Error(|e| matches!(e, CodingError::ReservedFlags(f) if f & 0x20 != 0)),
        ),
        (
            "bad-fhcrc.gz",
            Format::Gzip,
            Error(|e| matches!(e, CodingError::HeaderCrcMismatch { .. })),
        ),
        (
            "bad-crc32.gz",
            Format::Gzip,
            Error(|e| matches!(e, CodingError::CrcMismatch { .. })),
        ),
        (
            "bad-isize.gz",
            Format::Gzip,
            Error(|e| matches!(e, CodingError::LengthMismatch { .. })),
        ),
        (
            "bad-truncated-header.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::Truncated),
        ),
        (
            "bad-header-only.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::Truncated),
        ),
        (
            "bad-truncated-body.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::Truncated),
        ),
        (
            "bad-truncated-trailer.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::Truncated),
        ),
        (
            "bad-trailing-garbage.gz",
            Format::Gzip,
            Error(|e| *e == CodingError::TrailingGarbage),
        ),
        (
            "bad-corrupt-deflate.gz",
            Format::Gzip,
            Error(|e| {
                matches!(
                    e,
                    CodingError::Corrupt(_)
                        | CodingError::CrcMismatch { .. }
                        | CodingError::LengthMismatch { .. }
                )
            }),
        ),
    ];
    for (file, format, expect) in &cases {
        let data = std::fs::read(dir.join("gzip").join(file)).unwrap();
        for piece in [data.len(), 8192, 1000, 7, 1] {
            let got = decode(DecoderConfig::new(*format), &data, piece);
            match (expect, got) {
                (Content(want), Ok(out)) => assert!(
                    out == *want,
                    "{file} ({format:?}, pieces of {piece}): wrong content ({} bytes)",
                    out.len()
                ),
                (Error(ok), Err(e)) => {
                    assert!(ok(&e), "{file} (pieces of {piece}): unexpected error {e}")
                }
                (Content(_), Err(e)) => panic!("{file} ({format:?}, pieces of {piece}): {e}"),
                (Error(_), Ok(out)) => panic!(
                    "{file} (pieces of {piece}): decoded {} bytes, expected an error",
                    out.len()
                ),
            }
        }
    }
    // Trailing garbage is accepted when configured.
    let data = std::fs::read(dir.join("gzip/bad-trailing-garbage.gz")).unwrap();
    let lenient = DecoderConfig {
        trailing: Trailing::Ignore,
        ..DecoderConfig::new(Format::Gzip)
    };
    assert_eq!(decode(lenient, &data, 5).unwrap(), hello);
    // The 1 MiB random member: compared with flate2.
    let data = std::fs::read(dir.join("gzip/valid-random-1MiB.gz")).unwrap();
    let ours = decode(DecoderConfig::new(Format::Gzip), &data, 8192).unwrap();
    assert_eq!(ours.len(), 1 << 20);
    assert_eq!(ours, reference(&data));
}

fn reference(data: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn valid_files_match_flate2_and_gzip() {
    let Some(dir) = data_dir(&["gzip", "corpus"]) else {
        return;
    };
    let gzip_tool = std::process::Command::new("gzip")
        .arg("--version")
        .output()
        .is_ok();
    if !gzip_tool {
        eprintln!("note: gzip not installed; comparing with flate2 only");
    }
    for entry in std::fs::read_dir(dir.join("gzip")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("valid-") || name.starts_with("tool-"))
            || !name.ends_with(".gz")
            || name.contains("zero-padded")
        {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let ours = decode(DecoderConfig::new(Format::Gzip), &data, 4096).unwrap();
        assert_eq!(ours, reference(&data), "{name} vs flate2");
        if gzip_tool {
            let out = std::process::Command::new("gzip")
                .arg("-dc")
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(ours, out.stdout, "{name} vs gzip -dc");
        }
    }
}
