//! `wirelab::block::BlockWriter`.

use std::io::Write;
use wirelab::block::{BlockWriter, DEFAULT_CHUNK};

#[test]
fn reuse_after_handover() {
    let mut w = BlockWriter::new();
    let mut blocks = Vec::new();
    for i in 0..100u8 {
        for j in 0..=i {
            w.put_u8(j);
        }
        blocks.push(w.take());
        assert!(w.is_empty());
    }
    for (i, b) in blocks.iter().enumerate() {
        let expected: Vec<u8> = (0..=i as u8).collect();
        assert_eq!(
            &b[..],
            &expected[..],
            "block {i} changed after later writes"
        );
    }
}

#[test]
fn put_zeroed_then_fill() {
    let mut w = BlockWriter::new();
    w.put_u8(0x40);
    let r = w.put_zeroed(5);
    assert_eq!(r, &[0; 5]);
    r.copy_from_slice(b"hello");
    w.put_slice(b"!");
    assert_eq!(w.len(), 7);
    assert_eq!(&w.take()[..], b"\x40hello!");
    // A range larger than the chunk grows the buffer.
    let big = w.put_zeroed(3 * DEFAULT_CHUNK);
    big.fill(7);
    assert_eq!(w.take().len(), 3 * DEFAULT_CHUNK);
}

#[test]
fn zero_length_blocks() {
    let mut w = BlockWriter::new();
    assert!(w.take().is_empty());
    w.put_zeroed(0);
    assert!(w.take().is_empty());
    w.put_slice(b"x");
    assert_eq!(&w.take()[..], b"x");
    assert!(w.take().is_empty());
}

#[test]
fn large_blocks() {
    let mut w = BlockWriter::new();
    let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
    for chunk in data.chunks(777) {
        w.write_all(chunk).unwrap();
    }
    let block = w.take();
    assert_eq!(&block[..], &data[..]);
    w.put_slice(b"after");
    assert_eq!(&w.take()[..], b"after");
    assert_eq!(&block[..], &data[..]);
}

#[test]
fn full_blocks_are_handed_over_without_copy() {
    let mut w = BlockWriter::new();
    w.put_slice(&[1; 300]);
    let at = w.as_slice().as_ptr();
    let block = w.take();
    assert_eq!(
        block.as_ptr(),
        at,
        "a block in a normal chunk is not copied"
    );
    // The next block is carved from the same allocation, right after the first.
    w.put_slice(&[2; 300]);
    let next_at = w.as_slice().as_ptr();
    assert_eq!(next_at, at.wrapping_add(300));
    assert_eq!(w.take().as_ptr(), next_at);
}

#[test]
fn small_block_in_a_large_buffer_is_copied_and_the_buffer_kept() {
    let mut w = BlockWriter::new();
    // A block much larger than the chunk grows the buffer, then is abandoned (cleared).
    w.put_slice(&vec![9; 20 * DEFAULT_CHUNK]);
    w.clear();
    let cap_before = w.capacity();
    assert!(
        cap_before >= 20 * DEFAULT_CHUNK,
        "test setup: region {cap_before}"
    );
    w.put_slice(b"tiny");
    let region = w.as_slice().as_ptr();
    let tiny = w.take();
    assert_eq!(&tiny[..], b"tiny");
    assert_ne!(
        tiny.as_ptr(),
        region,
        "a tiny block must not pin the large buffer"
    );
    assert_eq!(w.capacity(), cap_before, "the writer keeps its buffer");
    w.put_slice(b"next");
    assert_eq!(w.as_slice().as_ptr(), region, "and reuses it");
}

#[test]
fn chunk_sizes_out_of_range_are_rejected() {
    use wirelab::block::{MAX_CHUNK, MIN_CHUNK};
    for chunk in [0, 16, MIN_CHUNK - 1, MAX_CHUNK + 1] {
        let err = BlockWriter::with_chunk(chunk).unwrap_err();
        assert_eq!((err.setting, err.value), ("chunk", chunk as u64));
    }
    assert!(BlockWriter::with_chunk(MIN_CHUNK).is_ok());
}

#[test]
fn truncate_and_clear() {
    let mut w = BlockWriter::with_chunk(64).unwrap();
    w.put_slice(b"abcdef");
    w.truncate(3);
    assert_eq!(w.as_slice(), b"abc");
    w.clear();
    assert!(w.is_empty());
    w.write_all(b"xyz").unwrap();
    w.flush().unwrap();
    assert_eq!(&w.take()[..], b"xyz");
}
