//! `write_to` makes no heap allocation (dhat testing mode: one test per file).

use bytes::Buf;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn no_allocation_per_call() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let frames: Vec<Vec<u8>> = (0..1000).map(|i| vec![i as u8; 2 + i % 5]).collect();
    let big = vec![7u8; 100_000];
    let mut out: Vec<u8> = Vec::with_capacity(200_000);
    let before = dhat::HeapStats::get();
    for f in &frames {
        wirelab::write_to::write_to(&mut &f[..], &mut out).unwrap();
    }
    let (a, b) = big.split_at(33_333);
    wirelab::write_to::write_to(&mut a.chain(b), &mut out).unwrap();
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(after.total_blocks - before.total_blocks, 0);
    dhat::assert_eq!(
        out.len(),
        frames.iter().map(Vec::len).sum::<usize>() + big.len()
    );
}

/// Run without libtest's harness (`harness = false`): dhat counts every thread's allocations,
/// and libtest's own thread could allocate inside a measured window on a busy machine (seen:
/// 4 stray blocks in one CI run out of several).
fn main() {
    no_allocation_per_call();
    println!("test no_allocation_per_call ... ok");
}
