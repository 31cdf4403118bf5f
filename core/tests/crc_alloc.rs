//! `crc::Adaptive` allocates its coalescing buffer only when a short fragment arrives (dhat
//! testing mode: one test per file).

use wirelab::coding::crc;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The CRC of `data` in fragments of `size` with `crc::adaptive`, and the blocks and bytes it
/// allocated. dhat counts every thread's allocations (libtest's main thread allocates now and
/// then), and other threads can only add: the least of three runs is the hasher's own count.
fn cost(data: &[u8], size: usize) -> (u32, (u64, u64)) {
    let mut crc = 0;
    let least = (0..3)
        .map(|_| {
            let before = dhat::HeapStats::get();
            crc = crc::adaptive(data.chunks(size));
            let after = dhat::HeapStats::get();
            (
                after.total_blocks - before.total_blocks,
                after.total_bytes - before.total_bytes,
            )
        })
        .min()
        .expect("three runs");
    (crc, least)
}

#[test]
fn adaptive_allocates_only_for_short_fragments() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let data: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let expected = crc32fast::hash(&data);

    let (large, (blocks, _)) = cost(&data, crc::COALESCE_BELOW);
    dhat::assert_eq!(large, expected);
    dhat::assert_eq!(
        blocks,
        0,
        "fragments of 1 KiB and more are checksummed in place"
    );

    let (small, (blocks, bytes)) = cost(&data, 64);
    dhat::assert_eq!(small, expected);
    dhat::assert_eq!(blocks, 1, "one buffer");
    dhat::assert_eq!(bytes, 8192, "of 8 KiB");
}
