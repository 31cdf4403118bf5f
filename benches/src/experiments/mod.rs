//! The registry: the experiments, one file each, listed in [`ALL`], and the catalog's pages
//! ([`pages`]: each experiment once per flate2 backend it is measured with). Adding one: write
//! its file (the ladder, each variant with its constructor, the workloads, the original's
//! figures), declare its module here and add it to [`ALL`]; nothing else lists experiments.

use crate::catalog::{Definition, Experiment};

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

/// Every page of the catalog, in report order.
pub fn pages() -> Vec<Experiment> {
    ALL.iter()
        .flat_map(|def| {
            def.meta()
                .backends
                .iter()
                .map(|&backend| Experiment { def: *def, backend })
        })
        .collect()
}

/// Looks a page up by id.
pub fn page(id: &str) -> Option<Experiment> {
    pages().into_iter().find(|e| e.id() == id)
}
