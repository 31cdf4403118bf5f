//! The one hpack-test-case loader of the lab: every story of a folder, parsed into header lists
//! and wire blocks. A missing or malformed file is a [`LoadError`] naming it.

use crate::catalog::LoadError;
use crate::data;
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
    if !s.len().is_multiple_of(2) {
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
///
/// Within a lab run the parsed stories are kept in the run's input folder (see
/// [`data::cached`]), so that a measured process reads them without parsing JSON.
pub fn load(folder: &str) -> Result<Option<Vec<Story>>, LoadError> {
    load_parts(folder, true)
}

/// [`load`] without the header lists (every case's `headers` is empty): for the decoders'
/// workloads, which need only the wire blocks. Skipping the headers' strings keeps the
/// instruction-count harness's setup, which valgrind emulates, short.
///
/// # Errors
///
/// As [`load`].
pub fn load_wires(folder: &str) -> Result<Option<Vec<Story>>, LoadError> {
    load_parts(folder, false)
}

fn load_parts(folder: &str, headers: bool) -> Result<Option<Vec<Story>>, LoadError> {
    let Some(root) = data::shared_data()? else {
        return Ok(None);
    };
    let dir = root.join("hpack-test-case").join(folder);
    // Keyed by the folder's name, not its path: the instruction-count harness sees the data
    // through a link of its own (and the run's input folder is emptied when the run starts).
    let key = format!("hpack-test-case stories of {folder}");
    let bytes = data::try_cached(&key, || {
        let mut stories = Vec::new();
        for path in data::files(&dir)? {
            if path.extension().is_some_and(|x| x == "json") {
                stories.push(parse(&path, &data::read(&path)?)?);
            }
        }
        Ok(encode(&stories))
    })?;
    decode(&bytes, headers)
        .map(Some)
        .ok_or_else(|| LoadError::new(&dir, "the kept copy of its stories is corrupt"))
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// The stories in a compact binary form: counts and lengths as little-endian u32.
fn encode(stories: &[Story]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(stories.len() as u32).to_le_bytes());
    for story in stories {
        out.extend_from_slice(&(story.cases.len() as u32).to_le_bytes());
        for c in &story.cases {
            put(&mut out, &c.wire);
            let size = c.table_size.map_or(u64::MAX, |s| s as u64);
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&(c.headers.len() as u32).to_le_bytes());
            for (name, value) in &c.headers {
                put(&mut out, name.as_bytes());
                put(&mut out, value.as_bytes());
            }
        }
    }
    out
}

/// A cursor over [`encode`]'s output.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()?;
        self.take(n)
    }
    fn text(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
}

/// Decodes [`encode`]'s output; with `headers` false the header strings are skipped, not
/// allocated.
fn decode(bytes: &[u8], headers: bool) -> Option<Vec<Story>> {
    let mut r = Reader(bytes);
    let stories = (0..r.u32()?)
        .map(|_| {
            let cases = (0..r.u32()?)
                .map(|_| {
                    let wire = r.bytes()?.to_vec();
                    let size = r.u64()?;
                    let count = r.u32()?;
                    let headers = if headers {
                        (0..count)
                            .map(|_| Some((r.text()?, r.text()?)))
                            .collect::<Option<_>>()?
                    } else {
                        for _ in 0..2 * count {
                            r.bytes()?;
                        }
                        Vec::new()
                    };
                    Some(Case {
                        wire,
                        headers,
                        table_size: (size != u64::MAX).then_some(size as usize),
                    })
                })
                .collect::<Option<_>>()?;
            Some(Story { cases })
        })
        .collect::<Option<_>>()?;
    r.0.is_empty().then_some(stories)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_form_round_trips() {
        let stories = vec![Story {
            cases: vec![
                Case {
                    wire: vec![0x82, 0x86],
                    headers: vec![(":method".into(), "GET".into())],
                    table_size: Some(256),
                },
                Case {
                    wire: Vec::new(),
                    headers: Vec::new(),
                    table_size: None,
                },
            ],
        }];
        let bytes = encode(&stories);
        assert_eq!(decode(&bytes, true), Some(stories.clone()));
        assert_eq!(decode(&bytes[..bytes.len() - 1], true), None, "truncated");
        let mut wires = stories;
        wires[0].cases[0].headers.clear();
        assert_eq!(decode(&bytes, false), Some(wires), "wires only");
        assert_eq!(decode(&bytes[..bytes.len() - 1], false), None, "truncated");
    }
}
