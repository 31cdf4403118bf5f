//! Steady-state allocation budget of `BlockWriter` (dhat testing mode: one test per file).

use wirelab::block::BlockWriter;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Writes an HPACK-shaped block of `len` bytes one octet at a time.
fn write_block(w: &mut BlockWriter, len: usize, seed: usize) {
    for i in 0..len {
        w.put_u8((i * 31 + seed) as u8);
    }
}

fn steady_state_allocations_per_block() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let sizes = |i: usize| 200 + (i * 37) % 250;

    // Consumers drop their blocks: after warm-up, no allocation at all.
    let mut w = BlockWriter::new();
    for i in 0..100 {
        write_block(&mut w, sizes(i), i);
        drop(w.take());
    }
    let before = dhat::HeapStats::get();
    for i in 0..1000 {
        write_block(&mut w, sizes(i), i);
        let block = w.take();
        assert_eq!(block.len(), sizes(i));
    }
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(after.total_blocks - before.total_blocks, 0);

    // Consumers keep their blocks: at most one allocation per block (in fact far fewer, one
    // chunk serves several blocks).
    let mut kept = Vec::with_capacity(2000);
    for i in 0..100 {
        write_block(&mut w, sizes(i), i);
        kept.push(w.take());
    }
    let before = dhat::HeapStats::get();
    for i in 0..1000 {
        write_block(&mut w, sizes(i), i);
        kept.push(w.take());
    }
    let after = dhat::HeapStats::get();
    let per_1000 = after.total_blocks - before.total_blocks;
    dhat::assert!(
        per_1000 <= 1000,
        "{per_1000} allocations for 1000 kept blocks"
    );
    dhat::assert!(per_1000 > 0, "kept blocks cannot all share one allocation");
    // The exact figure is deterministic: two allocations (buffer and shared header) per 4 KiB
    // chunk, and these blocks average about 325 bytes: 164 for this sequence.
    dhat::assert_eq!(per_1000, 164);
}

/// Run without libtest's harness (`harness = false`): dhat counts every thread's allocations,
/// and libtest's own thread could allocate inside a measured window on a busy machine (seen:
/// 4 stray blocks in one CI run out of several).
fn main() {
    steady_state_allocations_per_block();
    println!("test steady_state_allocations_per_block ... ok");
}
