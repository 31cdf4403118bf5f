//! Fuzz target `hpack_decode`: see `fuzz_checks::hpack_decode` for the property it checks.
#![no_main]

#[path = "../../baselines/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::hpack_decode(data));
