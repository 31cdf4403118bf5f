//! `crc::Adaptive` allocates its coalescing buffer only when a short fragment arrives (dhat
//! testing mode: one test per file).

use wirelab::coding::crc;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn adaptive_allocates_only_for_short_fragments() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let data: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let expected = crc32fast::hash(&data);

    let before = dhat::HeapStats::get();
    let large = crc::adaptive(data.chunks(crc::COALESCE_BELOW));
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(large, expected);
    dhat::assert_eq!(
        after.total_blocks - before.total_blocks,
        0,
        "fragments of 1 KiB and more are checksummed in place"
    );

    let before = dhat::HeapStats::get();
    let small = crc::adaptive(data.chunks(64));
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(small, expected);
    dhat::assert_eq!(after.total_blocks - before.total_blocks, 1, "one buffer");
    dhat::assert_eq!(after.total_bytes - before.total_bytes, 8192, "of 8 KiB");
}
