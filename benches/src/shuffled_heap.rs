//! The global allocator of the paired-timing harnesses (the ladder and compare's dual
//! harness). While [`during`] runs a setup, every block it allocates comes from a fresh arena
//! of its own (a mapping aligned to 4 GiB) with a random amount of slack before it (in steps of
//! 16 octets, below the block's size rounded up to a power of two and below 4,096, so that a
//! setup of many small blocks takes at most about twice their room), seeded by
//! `WIRELAB_HEAP_SEED`, the layout's seed.
//!
//! Two setups in one process (BASE's and NEW's cases) get the same offsets from the same
//! arena alignment, so a block's address modulo 4 GiB (its cache sets, its 4K aliasing with
//! other blocks, its cache-line splits) is the same on both sides when both allocate alike, as
//! they do in an A/A. Where data sits is then a property of the layout, shared by the two
//! sides of every pair, not a difference between them: it changes from layout to layout and
//! cancels within one. (Earlier, each side kept malloc's placement, one random draw per side
//! per layout: an A/A of a 64 KiB copy read 0.80-1.27 across eight layouts.)
//!
//! Outside [`during`] it is plain malloc, so the timed code allocates as it always does. An
//! arena hands out blocks in size classes (four per power of two) and reuses a block freed
//! while its setup runs for the next one of its class, as the same setup on the other side
//! does; a block freed later is never reused.
//!
//! Not a module of the `wirelab_bench` library: the binaries that time include it by path (so
//! the instruction-count harness, which links the library, is not changed by it).

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

unsafe extern "C" {
    fn malloc(size: usize) -> *mut u8;
    fn free(ptr: *mut u8);
    fn realloc(ptr: *mut u8, size: usize) -> *mut u8;
    fn posix_memalign(out: *mut *mut u8, align: usize, size: usize) -> i32;
    fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
}

/// malloc's own alignment on the 64-bit targets the lab runs on.
const MALLOC_ALIGN: usize = 16;

/// Address space reserved per arena (only the pages a setup touches are memory).
const ARENA_BYTES: usize = 64 << 30;

/// Every arena starts on a multiple of this, so that two arenas differ in no address bit a
/// cache, its way predictor or a TLB indexes with (only in the reservation's address space).
const ARENA_ALIGN: usize = 1 << 32;

/// Arenas one process can hold (two sides, several placements); a setup beyond them gets
/// malloc with slack.
const MAX_ARENAS: usize = 32;

/// Linux x86-64 and aarch64 values of mmap's flags.
const PROT_READ_WRITE: i32 = 0x1 | 0x2;
const MAP_PRIVATE_ANONYMOUS_NORESERVE: i32 = 0x02 | 0x20 | 0x4000;

/// The allocator: malloc, with arenas while [`during`] runs.
pub struct ShuffledHeap;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static STATE: AtomicU64 = AtomicU64::new(0);
/// Each arena's `[start, end)`, filled in order; `NEXT` bumps through the newest one.
static ARENAS: [(AtomicUsize, AtomicUsize); MAX_ARENAS] =
    [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; MAX_ARENAS];
static COUNT: AtomicUsize = AtomicUsize::new(0);
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Size classes: 16, 32, 48, 64, then four per power of two (80, 96, 112, 128, 160, ...).
const CLASSES: usize = 4 + 4 * 58;
/// Each class's freed blocks of the open arena, a list through their first word (0: none).
static FREE: [AtomicUsize; CLASSES] = [const { AtomicUsize::new(0) }; CLASSES];

/// The class of a block of `size` octets: its index and its room.
fn class(size: usize) -> (usize, usize) {
    if size <= 64 {
        let i = size.max(1).div_ceil(16) - 1;
        return (i, (i + 1) * 16);
    }
    let p = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let quarter = 1 << (p - 2);
    let k = (size - (1 << p)).div_ceil(quarter);
    (4 + (p - 6) * 4 + (k - 1), (1 << p) + k * quarter)
}

/// Runs `setup` with every allocation in a new arena, the offsets restarted from the
/// layout's seed (`WIRELAB_HEAP_SEED`, else 1) and `placement`: two calls with the same
/// placement place alike what they allocate alike (BASE's and NEW's setups of one placement),
/// and each placement places otherwise.
pub fn during<T>(placement: u64, setup: impl FnOnce() -> T) -> T {
    let seed = std::env::var("WIRELAB_HEAP_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(1);
    STATE.store(
        (seed ^ placement.rotate_right(17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        Ordering::Relaxed,
    );
    open_arena();
    ACTIVE.store(true, Ordering::Relaxed);
    let out = setup();
    ACTIVE.store(false, Ordering::Relaxed);
    out
}

/// Maps a new arena and points `NEXT` at its start (none when the arenas are used up or the
/// mapping fails: the setup then gets malloc with slack).
fn open_arena() {
    NEXT.store(0, Ordering::Relaxed);
    for head in &FREE {
        head.store(0, Ordering::Relaxed);
    }
    let i = COUNT.load(Ordering::Relaxed);
    if i == MAX_ARENAS {
        return;
    }
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing.
    let base = unsafe {
        mmap(
            std::ptr::null_mut(),
            ARENA_BYTES + ARENA_ALIGN,
            PROT_READ_WRITE,
            MAP_PRIVATE_ANONYMOUS_NORESERVE,
            -1,
            0,
        )
    };
    if base as isize == -1 {
        return;
    }
    let start = (base as usize).next_multiple_of(ARENA_ALIGN);
    ARENAS[i].0.store(start, Ordering::Relaxed);
    ARENAS[i].1.store(start + ARENA_BYTES, Ordering::Relaxed);
    COUNT.store(i + 1, Ordering::Relaxed);
    NEXT.store(start, Ordering::Relaxed);
}

/// The slack before the next block of `size` octets: 0 outside [`during`].
fn slack(size: usize) -> usize {
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
    let steps = size.next_power_of_two().clamp(MALLOC_ALIGN, 4096) / MALLOC_ALIGN;
    ((x >> 32) as usize % steps) * MALLOC_ALIGN
}

/// A block of the open arena: a freed one of its class, else the next after `slack` octets;
/// None when no arena is open or it is full. The harness allocates from one thread while a
/// setup runs.
fn from_arena(layout: Layout, slack: usize) -> Option<*mut u8> {
    let next = NEXT.load(Ordering::Relaxed);
    if next == 0 {
        return None;
    }
    let (i, room) = class(layout.size());
    let align = layout.align().max(MALLOC_ALIGN);
    let head = FREE[i].load(Ordering::Relaxed);
    if head != 0 && head.is_multiple_of(align) {
        // SAFETY: a freed block of this arena holds the next free block's address first.
        FREE[i].store(unsafe { *(head as *const usize) }, Ordering::Relaxed);
        return Some(head as *mut u8);
    }
    let end = ARENAS[COUNT.load(Ordering::Relaxed) - 1]
        .1
        .load(Ordering::Relaxed);
    let at = (next + slack).next_multiple_of(align);
    let after = at.checked_add(room)?;
    if after > end {
        return None;
    }
    NEXT.store(after, Ordering::Relaxed);
    Some(at as *mut u8)
}

/// Keeps a block of the open arena, freed while its setup runs, for the next of its class.
fn free_in_arena(ptr: *mut u8, layout: Layout) {
    let open = COUNT
        .load(Ordering::Relaxed)
        .checked_sub(1)
        .map(|i| &ARENAS[i]);
    let p = ptr as usize;
    let Some((start, end)) = open else { return };
    if ACTIVE.load(Ordering::Relaxed)
        && (start.load(Ordering::Relaxed)..end.load(Ordering::Relaxed)).contains(&p)
    {
        let head = &FREE[class(layout.size()).0];
        // SAFETY: the block is at least 16 octets, 16-aligned, and no longer in use.
        unsafe { *(p as *mut usize) = head.load(Ordering::Relaxed) };
        head.store(p, Ordering::Relaxed);
    }
}

/// Whether `ptr` is a block of an arena.
fn in_arena(ptr: *mut u8) -> bool {
    let p = ptr as usize;
    ARENAS[..COUNT.load(Ordering::Relaxed)]
        .iter()
        .any(|(s, e)| (s.load(Ordering::Relaxed)..e.load(Ordering::Relaxed)).contains(&p))
}

// SAFETY: every block comes from an arena (an exclusive range of a private mapping, aligned as
// asked, never handed out twice), or from malloc or posix_memalign with at least the
// requested size and alignment and goes back to free; realloc keeps malloc's alignment, which
// is all a layout of alignment MALLOC_ALIGN or less asks for (other blocks are moved by hand).
unsafe impl GlobalAlloc for ShuffledHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let slack = slack(layout.size());
        if ACTIVE.load(Ordering::Relaxed)
            && let Some(block) = from_arena(layout, slack)
        {
            return block;
        }
        let size = layout.size() + slack;
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

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if in_arena(ptr) {
            free_in_arena(ptr, layout);
        } else {
            // SAFETY: `ptr` came from malloc or posix_memalign (see `alloc`).
            unsafe { free(ptr) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN && !in_arena(ptr) && !ACTIVE.load(Ordering::Relaxed) {
            // SAFETY: `ptr` came from malloc (see `alloc`).
            return unsafe { realloc(ptr, new_size) };
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
