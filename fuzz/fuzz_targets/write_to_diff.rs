//! Fuzz target `write_to_diff`: see `fuzz_checks::write_to_diff` for the property it checks.
#![no_main]

#[path = "../../baselines/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::write_to_diff(data));
