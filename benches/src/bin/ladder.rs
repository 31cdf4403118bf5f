//! The ladder harness of `cargo lab bench`: each workload's variants timed against its baseline
//! in pairs, in one process (see [`wirelab_bench::sampler::run_ladder`]). The lab links it
//! under several section orders and runs each once: `ladder OUT SETTINGS_JSON [SELECTION...]`.

#[path = "../shuffled_heap.rs"]
mod shuffled_heap;

#[global_allocator]
static HEAP: shuffled_heap::ShuffledHeap = shuffled_heap::ShuffledHeap;

/// The cases, their inputs placed on a heap shuffled with the layout's seed and `placement`.
fn rungs(
    selection: &[String],
    placement: u64,
) -> Result<Vec<wirelab_bench::sampler::Rungs>, String> {
    shuffled_heap::during(placement, || wirelab_bench::dual::ladder_rungs(selection))
}

fn main() {
    wirelab_bench::sampler::main_ladder(rungs);
}
