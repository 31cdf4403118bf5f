//! HPACK conformance: RFC 7541 Appendix C and the hpack-test-case stories.
//!
//! The data lives in `../shared/data` (or the folder named by `WIRELAB_DATA`). Without it the
//! tests say that they were skipped; under `CI=true` its absence is a failure.

use std::path::PathBuf;

mod support;
use support::data_dir;
use wirelab::hpack::{Decoder, Encoder, EncoderConfig, Header, HuffmanMode, Indexing, integer};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn json(path: PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn pairs(v: &serde_json::Value) -> Vec<(Vec<u8>, Vec<u8>)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().as_bytes().to_vec(),
                p[1].as_str().unwrap().as_bytes().to_vec(),
            )
        })
        .collect()
}

/// The header list of an hpack-test-case case, in order.
fn story_headers(case: &serde_json::Value) -> Vec<(Vec<u8>, Vec<u8>)> {
    case["headers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| {
            h.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_bytes().to_vec(),
                        v.as_str().unwrap().as_bytes().to_vec(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn table_of(dec: &Decoder) -> Vec<(Vec<u8>, Vec<u8>)> {
    dec.table()
        .iter()
        .map(|(n, v)| (n.to_vec(), v.to_vec()))
        .collect()
}

#[test]
fn rfc7541_appendix_c() {
    let Some(dir) = data_dir(&["rfc7541-appendix-c.json"]) else {
        return;
    };
    let c = json(dir.join("rfc7541-appendix-c.json"));
    let mut checked = 0;
    for ex in c["integer_examples"].as_array().unwrap() {
        let wire = hex(ex["wire"].as_str().unwrap());
        let bits = ex["prefix_bits"].as_u64().unwrap() as u8;
        let value = ex["value"].as_u64().unwrap() as usize;
        let mut pos = 0;
        assert_eq!(
            integer::decode(&wire, &mut pos, bits).unwrap(),
            value,
            "{}",
            ex["id"]
        );
        assert_eq!(pos, wire.len());
        let mut w = wirelab::block::BlockWriter::new();
        integer::encode(&mut w, value, bits, 0);
        assert_eq!(w.as_slice(), &wire[..], "{}", ex["id"]);
        checked += 1;
    }
    for ex in c["field_examples"].as_array().unwrap() {
        let mut dec = Decoder::new();
        let got = dec
            .decode_to_vec(&hex(ex["wire"].as_str().unwrap()))
            .unwrap();
        assert_eq!(got, pairs(&ex["headers"]), "{}", ex["id"]);
        let after: Vec<_> = ex["dynamic_table_after"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_str().unwrap().as_bytes().to_vec(),
                    e[1].as_str().unwrap().as_bytes().to_vec(),
                )
            })
            .collect();
        assert_eq!(table_of(&dec), after, "{}", ex["id"]);
        assert_eq!(
            dec.table().size() as u64,
            ex["dynamic_table_size_after"].as_u64().unwrap()
        );
        checked += 1;
    }
    for seq in c["sequences"].as_array().unwrap() {
        let mut dec = Decoder::new();
        let size = seq["settings_header_table_size"].as_u64().unwrap() as usize;
        dec.set_max_table_size(size);
        // The encoder with the same policy as the RFC's examples must reproduce the wire.
        let huffman = seq["blocks"][0]["huffman"].as_bool().unwrap();
        let huffman = if huffman {
            HuffmanMode::Always
        } else {
            HuffmanMode::Never
        };
        let config = EncoderConfig {
            huffman,
            ..EncoderConfig::default()
        };
        let mut enc = Encoder::with_config(config).expect("valid config");
        if size != 4096 {
            enc.set_max_table_size(size);
        }
        for b in seq["blocks"].as_array().unwrap() {
            let wire = hex(b["wire"].as_str().unwrap());
            let headers = pairs(&b["headers"]);
            assert_eq!(dec.decode_to_vec(&wire).unwrap(), headers, "{}", b["id"]);
            let after: Vec<_> = b["dynamic_table_after"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e[0].as_str().unwrap().as_bytes().to_vec(),
                        e[1].as_str().unwrap().as_bytes().to_vec(),
                    )
                })
                .collect();
            assert_eq!(table_of(&dec), after, "{} table", b["id"]);
            assert_eq!(
                dec.table().size() as u64,
                b["dynamic_table_size_after"].as_u64().unwrap(),
                "{} size",
                b["id"]
            );
            let ours = enc.encode(headers.iter().map(|(n, v)| Header::new(n, v)));
            if size == 4096 {
                assert_eq!(&ours[..], &wire[..], "{}: our encoder's bytes", b["id"]);
            }
            checked += 1;
        }
    }
    assert!(checked >= 3 + 4 + 12, "only {checked} vectors");
}

/// Every story of every folder decodes to exactly its headers.
#[test]
fn hpack_test_case_stories_decode() {
    let Some(dir) = data_dir(&["hpack-test-case"]) else {
        return;
    };
    let root = dir.join("hpack-test-case");
    let mut blocks = 0;
    let mut folders = 0;
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() || folder.ends_with("raw-data") {
            continue;
        }
        folders += 1;
        for story in std::fs::read_dir(&folder).unwrap() {
            let path = story.unwrap().path();
            let v = json(path.clone());
            let mut dec = Decoder::new();
            for case in v["cases"].as_array().unwrap() {
                if let Some(size) = case["header_table_size"].as_u64() {
                    dec.set_max_table_size(size as usize);
                }
                let wire = hex(case["wire"].as_str().unwrap());
                let expected: Vec<(Vec<u8>, Vec<u8>)> = story_headers(case);
                let got = dec
                    .decode_to_vec(&wire)
                    .unwrap_or_else(|e| panic!("{} seqno {}: {e}", path.display(), case["seqno"]));
                assert_eq!(got, expected, "{} seqno {}", path.display(), case["seqno"]);
                blocks += 1;
            }
        }
    }
    assert!(folders >= 6, "{folders} folders");
    assert!(blocks > 1000, "{blocks} blocks");
}

/// The header lists of every story, re-encoded in each mode and policy, decode back
/// identically with our decoder and with an independent one (loona-hpack).
#[test]
fn hpack_test_case_stories_reencode() {
    let Some(dir) = data_dir(&["hpack-test-case"]) else {
        return;
    };
    let root = dir.join("hpack-test-case");
    let mut lists = 0;
    for folder in std::fs::read_dir(&root).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for story in std::fs::read_dir(&folder).unwrap() {
            let v = json(story.unwrap().path());
            for mode in [HuffmanMode::Auto, HuffmanMode::Always, HuffmanMode::Never] {
                for indexing in [Indexing::None, Indexing::Incremental] {
                    let mut enc = Encoder::with_config(EncoderConfig {
                        huffman: mode,
                        indexing,
                        ..EncoderConfig::default()
                    })
                    .expect("valid config");
                    let mut ours = Decoder::new();
                    let mut theirs = loona_hpack::Decoder::new();
                    for case in v["cases"].as_array().unwrap() {
                        let headers: Vec<(Vec<u8>, Vec<u8>)> = story_headers(case);
                        let block = enc.encode(headers.iter().map(|(n, v)| Header::new(n, v)));
                        assert_eq!(ours.decode_to_vec(&block).unwrap(), headers);
                        let peer: Vec<(Vec<u8>, Vec<u8>)> = theirs.decode(&block).unwrap();
                        assert_eq!(
                            peer, headers,
                            "loona-hpack decodes our {mode:?}/{indexing:?} block"
                        );
                        lists += 1;
                    }
                }
            }
        }
    }
    assert!(lists > 1000, "{lists} header lists");
}
