//! The one hpack-test-case loader of the lab: every story of a folder, parsed into header lists
//! and wire blocks. A missing or malformed file is a [`LoadError`] naming it.

use crate::data::{self, LoadError};
use serde::Deserialize;
use std::path::Path;

/// One case of an hpack-test-case story.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The header block (empty in raw-data).
    pub wire: Vec<u8>,
    /// The header list it decodes to.
    pub headers: Vec<(String, String)>,
    /// The SETTINGS_HEADER_TABLE_SIZE in force, where the story says.
    pub table_size: Option<usize>,
}

/// One story of hpack-test-case: its cases in order, sharing one decoding context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Story {
    /// The cases.
    pub cases: Vec<Case>,
}

#[derive(Deserialize)]
struct StoryFile {
    cases: Vec<CaseFile>,
}

#[derive(Deserialize)]
struct CaseFile {
    #[serde(default)]
    wire: Option<String>,
    headers: Vec<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    header_table_size: Option<usize>,
}

fn hex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!(
            "wire has an odd number of hex digits ({})",
            s.len()
        ));
    }
    (0..s.len() / 2)
        .map(|i| {
            u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                .map_err(|_| format!("wire is not hex at offset {}", 2 * i))
        })
        .collect()
}

/// Parses one story file.
///
/// # Errors
///
/// Names the file and what is wrong (truncated JSON, a missing field, bad hex).
pub fn parse(path: &Path, text: &[u8]) -> Result<Story, LoadError> {
    let file: StoryFile = serde_json::from_slice(text).map_err(|e| LoadError::new(path, e))?;
    let cases = file
        .cases
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let wire = hex(c.wire.as_deref().unwrap_or(""))
                .map_err(|e| LoadError::new(path, format!("case {i}: {e}")))?;
            // Each header is a one-entry object; the order of the list is the field order.
            let headers = c.headers.into_iter().flatten().collect();
            Ok(Case {
                wire,
                headers,
                table_size: c.header_table_size,
            })
        })
        .collect::<Result<_, LoadError>>()?;
    Ok(Story { cases })
}

/// Loads every story (`*.json`) of one hpack-test-case folder, in file-name order, or `None`
/// when the shared data is absent.
///
/// # Errors
///
/// When the folder cannot be listed or a story is malformed.
pub fn load(folder: &str) -> Result<Option<Vec<Story>>, LoadError> {
    let Some(root) = data::shared_data()? else {
        return Ok(None);
    };
    let dir = root.join("hpack-test-case").join(folder);
    let mut stories = Vec::new();
    for path in data::files(&dir)? {
        if path.extension().is_some_and(|x| x == "json") {
            stories.push(parse(&path, &data::read(&path)?)?);
        }
    }
    Ok(Some(stories))
}
