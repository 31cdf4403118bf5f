//! The typed experiment catalog, in two parts: the [`model`] (what an experiment, a variant, a
//! workload and a case id are; types only) and the [`walk()`] over a list of pages, which every
//! harness, `cargo lab verify`, `list`, `check` and `profile` iterate. Which experiments exist is
//! the registry's business: [`crate::experiments::pages`].

pub mod model;
pub mod walk;

pub use crate::sink::{Check, Sink, compare};
pub use model::*;
pub use walk::*;
