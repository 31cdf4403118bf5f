//! The ladder harness of `cargo lab bench`: each workload's variants timed against its baseline
//! in pairs, in one process (see [`wirelab_bench::sampler::run_ladder`]). The lab links it
//! under several section orders and runs each once: `ladder OUT SETTINGS_JSON [SELECTION...]`.

fn main() {
    wirelab_bench::sampler::main_ladder(wirelab_bench::dual::ladder_rungs);
}
