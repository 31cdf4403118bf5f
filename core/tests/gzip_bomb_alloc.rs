//! A gzip bomb (dhat testing mode: one test per file): 1 GiB of zeros, compressed by the test
//! to about 1 MiB, stops at the decoder's default output limit with bounded memory.

use bytes::Bytes;
use std::io::Write;
use wirelab::coding::{CodingError, DEFAULT_MAX_OUTPUT, Decoder, Format};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn a_one_gib_bomb_stops_at_the_default_limit_with_bounded_memory() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let bomb = {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..1024 {
            enc.write_all(&zeros).unwrap();
        }
        Bytes::from(enc.finish().unwrap())
    };
    dhat::assert!(
        bomb.len() < 2 << 20,
        "the bomb is small: {} octets",
        bomb.len()
    );

    let started = std::time::Instant::now();
    let before = dhat::HeapStats::get();
    let mut dec = Decoder::new(Format::Gzip);
    let mut out = 0u64;
    let mut result: Result<(), CodingError> = Ok(());
    // As a network would deliver it: 16 KiB pieces of the one buffer (no copies).
    for start in (0..bomb.len()).step_by(16 << 10) {
        let piece = bomb.slice(start..bomb.len().min(start + (16 << 10)));
        result = dec.push(piece, &mut |b| out += b.len() as u64);
        if result.is_err() {
            break;
        }
    }
    let after = dhat::HeapStats::get();
    eprintln!(
        "bomb of {} octets: stopped after {} MiB of output in {:.2?}",
        bomb.len(),
        out >> 20,
        started.elapsed()
    );
    dhat::assert_eq!(
        result,
        Err::<(), _>(CodingError::OutputLimit {
            limit: DEFAULT_MAX_OUTPUT
        })
    );
    dhat::assert!(out <= DEFAULT_MAX_OUTPUT, "{out} octets emitted");
    // Memory: the decoder's own state only (the inflater, one output piece), never the
    // output. The peak covers the whole test, including the bomb's making (about 3 MiB).
    dhat::assert!(
        after.max_bytes < 8 << 20,
        "{} octets at the peak",
        after.max_bytes
    );
    dhat::assert!(
        after.total_bytes - before.total_bytes < 1 << 20,
        "{} octets allocated while decoding",
        after.total_bytes - before.total_bytes
    );
}

/// Run without libtest's harness (`harness = false`): dhat counts every thread's allocations,
/// and libtest's own thread could allocate inside a measured window on a busy machine (seen:
/// 4 stray blocks in one CI run out of several).
fn main() {
    a_one_gib_bomb_stops_at_the_default_limit_with_bounded_memory();
    println!("test a_one_gib_bomb_stops_at_the_default_limit_with_bounded_memory ... ok");
}
