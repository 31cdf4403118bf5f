//! Allocation budgets of the HPACK codec (dhat testing mode: one test per file).

use wirelab::hpack::{Decoder, Encoder, EncoderConfig, Header, HuffmanMode, Indexing};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn steady_state_allocations() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let request: Vec<(String, String)> = (0..10)
        .map(|i| {
            (
                format!("x-header-{i}"),
                format!("value number {i} with some text"),
            )
        })
        .collect();

    // Encoding with indexing off: after warm-up, one block per call and nothing else (the
    // writer's chunk serves several blocks, so in fact less than one).
    let mut enc = Encoder::with_config(EncoderConfig {
        huffman: HuffmanMode::Auto,
        indexing: Indexing::None,
        ..EncoderConfig::default()
    })
    .expect("valid config");
    for _ in 0..10 {
        drop(enc.encode_str(request.iter().map(|(a, b)| (a.as_str(), b.as_str()))));
    }
    let before = dhat::HeapStats::get();
    for _ in 0..1000 {
        drop(enc.encode_str(request.iter().map(|(a, b)| (a.as_str(), b.as_str()))));
    }
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(
        after.total_blocks - before.total_blocks,
        0,
        "blocks dropped: no allocation"
    );

    // Decoding a block without indexing into a callback allocates nothing.
    let block = enc.encode_str(request.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    let mut dec = Decoder::new();
    dec.decode(&block, |_, _| {}).unwrap();
    let before = dhat::HeapStats::get();
    for _ in 0..1000 {
        dec.decode(&block, |_, _| {}).unwrap();
    }
    let after = dhat::HeapStats::get();
    dhat::assert_eq!(after.total_blocks - before.total_blocks, 0);

    // An HPACK bomb: memory stays bounded by the limits, not by the decoded size.
    let mut enc = Encoder::new();
    let big = vec![b'x'; 4000];
    let block = enc.encode(std::iter::repeat_n(Header::new(b"x-big", &big), 20_000));
    let mut dec = Decoder::new();
    dec.set_max_header_list_size(16 * 1024);
    let before = dhat::HeapStats::get();
    let r = dec.decode_to_vec(&block);
    let after = dhat::HeapStats::get();
    dhat::assert!(r.is_err());
    let allocated = after.total_bytes - before.total_bytes;
    // 20,000 x 4000 = 80 MB decoded if unbounded; bounded here by the list limit, the table
    // and the scratch buffer.
    dhat::assert!(allocated < 200 * 1024, "{allocated} bytes allocated");
}

/// Run without libtest's harness (`harness = false`): dhat counts every thread's allocations,
/// and libtest's own thread could allocate inside a measured window on a busy machine (seen:
/// 4 stray blocks in one CI run out of several).
fn main() {
    steady_state_allocations();
    println!("test steady_state_allocations ... ok");
}
