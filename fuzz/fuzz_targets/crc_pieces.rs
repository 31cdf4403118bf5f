//! Fuzz target `crc_pieces`: see `fuzz_checks::crc_pieces` for the property it checks.
#![no_main]

#[path = "../../baselines/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::crc_pieces(data));
