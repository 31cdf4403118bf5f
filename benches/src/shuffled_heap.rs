//! The global allocator of the paired-timing harnesses (the ladder and compare's dual
//! harness): while [`during`] runs a setup, every block it allocates gets a random amount of
//! slack (0 to 4,080 octets in steps of 16), so that where a case's input and output buffers sit
//! relative to each other and to the pages (4K aliasing, cache sets) changes from process to
//! process with `WIRELAB_HEAP_SEED`, the layout's seed. Without it, each side's blocks keep the
//! same relative placement in every layout and a lucky or unlucky one biases a ratio in every
//! layout alike (an A/A of a 64 KiB copy read 1.08-1.10 in all eight). Outside [`during`] it is
//! plain malloc, so the timed code allocates as it always does.
//!
//! Not a module of the `wirelab_bench` library: the binaries that time include it by path (so
//! the instruction-count harness, which links the library, is not changed by it).

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

unsafe extern "C" {
    fn malloc(size: usize) -> *mut u8;
    fn free(ptr: *mut u8);
    fn realloc(ptr: *mut u8, size: usize) -> *mut u8;
    fn posix_memalign(out: *mut *mut u8, align: usize, size: usize) -> i32;
}

/// malloc's own alignment on the 64-bit targets the lab runs on.
const MALLOC_ALIGN: usize = 16;

/// The allocator: malloc, with slack while [`during`] runs.
pub struct ShuffledHeap;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static STATE: AtomicU64 = AtomicU64::new(0);

/// Runs `setup` with every allocation shuffled. The offsets are one sequence per process,
/// seeded by `WIRELAB_HEAP_SEED` (else 1) at the first call: two setups (BASE's and NEW's)
/// get different offsets.
pub fn during<T>(setup: impl FnOnce() -> T) -> T {
    if STATE.load(Ordering::Relaxed) == 0 {
        let seed = std::env::var("WIRELAB_HEAP_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(1);
        STATE.store(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            Ordering::Relaxed,
        );
    }
    ACTIVE.store(true, Ordering::Relaxed);
    let out = setup();
    ACTIVE.store(false, Ordering::Relaxed);
    out
}

/// The slack of the next block: 0 outside [`during`].
fn slack() -> usize {
    if !ACTIVE.load(Ordering::Relaxed) {
        return 0;
    }
    // xorshift64; the harness allocates from one thread, and a lost update between threads
    // would only repeat an offset.
    let mut x = STATE.load(Ordering::Relaxed);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    STATE.store(x, Ordering::Relaxed);
    ((x >> 32) as usize % 256) * MALLOC_ALIGN
}

// SAFETY: every block comes from malloc or posix_memalign with at least the requested size and
// alignment, and goes back to free; realloc keeps malloc's alignment, which is all a layout of
// alignment MALLOC_ALIGN or less asks for (larger alignments are moved by hand).
unsafe impl GlobalAlloc for ShuffledHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let size = layout.size() + slack();
        if layout.align() <= MALLOC_ALIGN {
            // SAFETY: malloc with a non-zero size (GlobalAlloc::alloc's contract).
            return unsafe { malloc(size) };
        }
        let mut out = std::ptr::null_mut();
        // SAFETY: the alignment is a power of two and a multiple of the pointer size.
        match unsafe { posix_memalign(&mut out, layout.align(), size) } {
            0 => out,
            _ => std::ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from malloc or posix_memalign (see `alloc`).
        unsafe { free(ptr) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN {
            // SAFETY: `ptr` came from malloc (see `alloc`).
            return unsafe { realloc(ptr, new_size + slack()) };
        }
        // SAFETY: the same alignment, a non-zero size (GlobalAlloc::realloc's contract).
        let moved =
            unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
        if !moved.is_null() {
            // SAFETY: both blocks hold at least the smaller size and do not overlap.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        moved
    }
}
