//! Where a runner's output goes ([`Sink`]), and how an output is compared with the baseline's
//! ([`Check`]).

use std::fmt;

/// Where the bytes a runner produces go.
#[derive(Debug, Default)]
pub struct Sink {
    collected: Option<Vec<u8>>,
    copied: Option<u64>,
}

impl Sink {
    /// A sink that drops everything: used while measuring.
    pub fn discard() -> Self {
        Self {
            collected: None,
            copied: None,
        }
    }

    /// A sink that keeps everything: used while verifying.
    pub fn collect() -> Self {
        Self {
            collected: Some(Vec::new()),
            copied: None,
        }
    }

    /// Records output bytes (a no-op while measuring).
    #[inline(always)]
    pub fn emit(&mut self, bytes: &[u8]) {
        if let Some(v) = &mut self.collected {
            v.extend_from_slice(bytes);
        }
    }

    /// Whether this sink keeps what it is given.
    #[inline(always)]
    pub fn is_collecting(&self) -> bool {
        self.collected.is_some()
    }

    /// Records how many bytes the variant copied between buffers in this run, as the code under
    /// test counted them (the decoders' `bytes_copied`); reports show it per MiB of output.
    #[inline(always)]
    pub fn note_copied(&mut self, bytes: u64) {
        self.copied = Some(bytes);
    }

    /// What [`Sink::note_copied`] recorded, if the variant counts its copies.
    pub fn copied(&self) -> Option<u64> {
        self.copied
    }

    /// The collected bytes (empty for a discarding sink).
    pub fn into_bytes(self) -> Vec<u8> {
        self.collected.unwrap_or_default()
    }
}

/// The outcome of checking one variant on one workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Same bytes as the baseline.
    Pass,
    /// A peer's different but equivalent output.
    Equivalent,
    /// Not the output this case gave when it was verified (its digest differs).
    Changed,
    /// Different bytes: the first differing offset and both lengths.
    Mismatch {
        /// First offset where the outputs differ.
        offset: usize,
        /// Length of the variant's output.
        len: usize,
        /// Length of the baseline's output.
        expected_len: usize,
    },
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Pass => f.write_str("ok"),
            Check::Equivalent => f.write_str("ok (equivalent)"),
            Check::Changed => f.write_str("CHANGED since it was verified (digest differs)"),
            Check::Mismatch {
                offset,
                len,
                expected_len,
            } => write!(
                f,
                "MISMATCH at byte {offset} ({len} bytes, baseline {expected_len})"
            ),
        }
    }
}

/// Compares `got` with `expected`.
pub fn compare(got: &[u8], expected: &[u8]) -> Check {
    if got == expected {
        return Check::Pass;
    }
    let offset = got
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(expected.len()));
    Check::Mismatch {
        offset,
        len: got.len(),
        expected_len: expected.len(),
    }
}
