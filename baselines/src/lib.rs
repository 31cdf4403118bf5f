//! Deliberately naive twins of the `wirelab` codecs.
//!
//! Each module mirrors the module of the same name in `wirelab` and leaves out exactly the
//! optimization that module re-creates, so that the lab can measure what that optimization is
//! worth and the tests can use the naive code as an oracle. Nothing here is meant for
//! production use. This crate depends on `wirelab` only for shared constant data and contract
//! types, never for an algorithm.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod block;
pub mod coding;
pub mod hpack;
pub mod latin1;
pub mod write_to;
