//! The JSON Schemas of the files the lab publishes, generated from the Rust types that write
//! them: `reports/schema/experiment-data.schema.json` for `reports/data/*.json`
//! ([`ExperimentData`]) and `reports/schema/comparison.schema.json` for compare's
//! `target/wirelab/compare/*.json` ([`Comparison`]). `cargo lab report` rewrites them with
//! the pages; a test checks that the committed files are current and that real outputs
//! validate against them.

use crate::compare::Comparison;
use crate::records::{ExperimentData, SCHEMA_VERSION};
use schemars::{JsonSchema, Schema};

/// One published schema: its file name under `reports/schema/` and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaFile {
    /// File name, such as `comparison.schema.json`.
    pub name: &'static str,
    /// The schema, pretty-printed JSON with a final newline.
    pub text: String,
}

/// Every published schema.
pub fn published() -> Vec<SchemaFile> {
    vec![
        file::<ExperimentData>("experiment-data.schema.json", "reports/data/<exp>.json"),
        file::<Comparison>("comparison.schema.json", "target/wirelab/compare/*.json"),
    ]
}

/// The schema of `T`, titled with the files it describes and the schema version it is of.
fn file<T: JsonSchema>(name: &'static str, describes: &str) -> SchemaFile {
    let mut schema: Schema = schemars::schema_for!(T);
    schema.insert(
        "$comment".to_owned(),
        format!(
            "{describes}, schema_version {SCHEMA_VERSION}; generated from the lab's Rust types by `cargo lab report`"
        )
        .into(),
    );
    let text = serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n";
    SchemaFile { name, text }
}
