//! The experiments, one file each, and the registry [`ALL`]. Adding one: write its file (the
//! ladder, each variant with its constructor, the workloads, the original's figures) and add
//! one line to [`ALL`]; nothing else lists experiments.

use crate::catalog::Definition;

pub mod common;

pub mod block;
pub mod crc;
pub mod deflate;
pub mod gzip;
pub mod hpack_decode;
pub mod hpack_encode;
pub mod huffman_decode;
pub mod huffman_encode;
pub mod inflate;
pub mod latin1;
pub mod octet_push;
pub mod write_to;

/// Every experiment, in report order. An experiment measured with several flate2 backends
/// is listed once (see [`Meta::backends`](crate::catalog::Meta::backends)).
pub static ALL: &[&dyn Definition] = &[
    &latin1::EXPERIMENT,
    &block::EXPERIMENT,
    &write_to::EXPERIMENT,
    &hpack_encode::EXPERIMENT,
    &hpack_decode::EXPERIMENT,
    &huffman_encode::EXPERIMENT,
    &huffman_decode::EXPERIMENT,
    &crc::EXPERIMENT,
    &inflate::EXPERIMENT,
    &deflate::EXPERIMENT,
    &gzip::EXPERIMENT,
    &octet_push::EXPERIMENT,
];
