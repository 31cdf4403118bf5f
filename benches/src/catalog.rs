//! The experiment catalog: one definition of every workload and variant, read by all three
//! harnesses (wall time, instruction counts, allocations), by `cargo lab verify` and by the
//! reports.
//!
//! An [`Experiment`] is a ladder of [`VariantInfo`]s (baseline, steps, optimized, peers, limit)
//! measured on a list of [`Workload`]s. A workload builds its inputs once and, for each variant
//! that applies to it, a [`Runner`]: a closure that performs the measured operation once. The
//! runner emits the bytes it produced into a [`Sink`]; in a measurement the sink discards them,
//! in a verification it collects them, so the code that is timed is the code that was checked.

use std::fmt;

/// The rung of the ladder a variant stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The deliberately naive twin; ratios are relative to the first baseline of the ladder.
    Baseline,
    /// An intermediate step of the original change.
    Step,
    /// The optimized code in `wirelab`.
    Optimized,
    /// Another crate doing the same job.
    Peer,
    /// The physical floor (for example a plain memcpy of the same bytes).
    Limit,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Baseline => "baseline",
            Role::Step => "step",
            Role::Optimized => "optimized",
            Role::Peer => "peer",
            Role::Limit => "limit",
        })
    }
}

/// One variant of an experiment.
#[derive(Clone, Copy, Debug)]
pub struct VariantInfo {
    /// Short name, `[a-z0-9-]`, used in file names and table headers.
    pub name: &'static str,
    /// Its rung.
    pub role: Role,
    /// One line: what it is.
    pub about: &'static str,
}

/// Cells whose instruction counts vary from run to run of the same binary, with the reason:
/// `(experiment id, variant name, why)`. `cargo lab check` allows them
/// [`UNSEEDED_TOLERANCE`] instead of exact equality, and the reports say so.
pub const UNSEEDED: &[(&str, &str, &str)] = &[
    (
        "hpack-decode",
        "loona-hpack",
        "loona-hpack's Huffman decoder looks codes up in a `HashMap` with a random seed (`RandomState`), so its probe sequences change from run to run",
    ),
    (
        "huffman-decode",
        "loona-hpack",
        "loona-hpack's Huffman decoder looks codes up in a `HashMap` with a random seed (`RandomState`), so its probe sequences change from run to run",
    ),
];

/// The relative drift `cargo lab check` allows for the cells in [`UNSEEDED`].
pub const UNSEEDED_TOLERANCE: f64 = 0.01;

/// Why a cell's instruction count varies between runs, if it does (see [`UNSEEDED`]).
pub fn unseeded(experiment: &str, variant: &str) -> Option<&'static str> {
    UNSEEDED
        .iter()
        .find(|(e, v, _)| *e == experiment && *v == variant)
        .map(|(_, _, why)| *why)
}

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

/// Performs a variant's operation once on its workload. Returns a value for the harness to pass
/// through `black_box` (a length, a count).
pub type Runner = Box<dyn FnMut(&mut Sink) -> u64>;

type Factory = Box<dyn Fn(&str) -> Option<Runner>>;

/// Maps an output to a canonical form (see [`Workload::with_equivalence`]).
pub type Canonicalize = fn(&[u8]) -> Vec<u8>;

/// One workload of an experiment: inputs built once, and a runner per applicable variant.
pub struct Workload {
    /// Short name, `[a-z0-9-]`.
    pub name: String,
    /// One line: what the workload is.
    pub about: String,
    /// Bytes of input one run processes (criterion's throughput).
    pub bytes: u64,
    /// Operations (frames, blocks, calls) in one run: allocation reports are per operation.
    pub ops: u64,
    factory: Factory,
    /// For peers that may choose another valid encoding: maps an output to a canonical form
    /// (for HPACK, the decoded header lists). The naive and optimized variants must still
    /// match byte for byte.
    pub equivalence: Option<Canonicalize>,
}

impl fmt::Debug for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workload")
            .field("name", &self.name)
            .field("bytes", &self.bytes)
            .field("ops", &self.ops)
            .finish_non_exhaustive()
    }
}

impl Workload {
    /// Defines a workload. `factory` returns `None` for a variant that cannot do this workload
    /// (reported as "n/a").
    pub fn new(
        name: impl Into<String>,
        about: impl Into<String>,
        bytes: u64,
        ops: u64,
        factory: impl Fn(&str) -> Option<Runner> + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            about: about.into(),
            bytes,
            ops,
            factory: Box::new(factory),
            equivalence: None,
        }
    }

    /// Lets peers pass verification with a different but equivalent output.
    pub fn with_equivalence(mut self, f: Canonicalize) -> Self {
        self.equivalence = Some(f);
        self
    }

    /// Checks a variant's output against the baseline's: byte for byte, or, for a peer of a
    /// workload with an equivalence, in canonical form.
    pub fn check(&self, role: Role, got: &[u8], expected: &[u8]) -> Check {
        match compare(got, expected) {
            Check::Mismatch { .. } if role == Role::Peer && self.equivalence.is_some() => {
                let canon = self.equivalence.expect("checked above");
                match compare(&canon(got), &canon(expected)) {
                    Check::Pass => Check::Equivalent,
                    other => other,
                }
            }
            other => other,
        }
    }

    /// Builds the runner of `variant`, or `None` where the variant does not apply.
    pub fn runner(&self, variant: &str) -> Option<Runner> {
        (self.factory)(variant)
    }
}

/// A figure the original change published, shown beside ours.
#[derive(Clone, Copy, Debug)]
pub struct Original {
    /// The workload of ours it corresponds to.
    pub workload: &'static str,
    /// The figures as published (for example "21.97 / 16.00 / 8.36 ns").
    pub figures: &'static str,
    /// The ratio baseline / optimized the original implies, where it is a time ratio.
    pub ratio: Option<f64>,
}

/// One experiment: a ladder of variants on a set of workloads.
pub struct Experiment {
    /// Identifier, `[a-z0-9-]`: the report file name and the criterion group.
    pub id: &'static str,
    /// Title for the report.
    pub title: &'static str,
    /// The original change it re-creates.
    pub origin: &'static str,
    /// Where the Motivation / Change / Result note lives.
    pub docs: &'static str,
    /// The ladder, baseline first.
    pub variants: &'static [VariantInfo],
    /// Builds the workloads (deterministically).
    pub workloads: fn() -> Vec<Workload>,
    /// The original's published figures.
    pub originals: &'static [Original],
    /// Free text for the report: targets, caveats.
    pub notes: &'static str,
    /// Allocation figures are also shown per this many operations (write-to: per 1,000 frames).
    pub alloc_per: u64,
    /// The workload of the README's headline table.
    pub headline: &'static str,
    /// When set, what a run's return value means; the report shows it per cell (for
    /// `hpack-encode`, the octets of header blocks produced).
    pub result: Option<&'static str>,
    /// The workloads are one input at growing sizes, in order: the report adds a table of each
    /// variant's instructions per input octet and its growth from one size to the next (linear
    /// work doubles with a doubled input; quadratic work quadruples).
    pub sweep: bool,
    /// The cargo feature of `wirelab-bench` the experiment's harnesses are built with (`None`:
    /// the default build). `gzip-zlib-rs` uses `zlib-rs`, flate2's other backend, which is
    /// chosen at compile time; `cargo lab` passes the feature to the builds it starts.
    pub feature: Option<&'static str>,
}

impl fmt::Debug for Experiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Experiment")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Experiment {
    /// The variant a ratio is relative to: the first of the ladder.
    pub fn baseline(&self) -> &'static VariantInfo {
        &self.variants[0]
    }

    /// Looks a variant up by name.
    pub fn variant(&self, name: &str) -> Option<&'static VariantInfo> {
        self.variants.iter().find(|v| v.name == name)
    }
}

/// The outcome of checking one variant on one workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Same bytes as the baseline.
    Pass,
    /// A peer's different but equivalent output (see [`Workload::with_equivalence`]).
    Equivalent,
    /// The variant does not apply to this workload.
    NotApplicable,
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
            Check::NotApplicable => f.write_str("n/a"),
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

/// Runs `runner` once with a collecting sink and returns what it emitted.
pub fn output_of(runner: &mut Runner) -> Vec<u8> {
    let mut sink = Sink::collect();
    runner(&mut sink);
    sink.into_bytes()
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

/// The expected output of a workload: what the baseline produces.
///
/// # Panics
///
/// If the baseline does not apply to the workload (a catalog bug).
pub fn expected_output(exp: &Experiment, w: &Workload) -> Vec<u8> {
    let mut base = w.runner(exp.baseline().name).unwrap_or_else(|| {
        panic!(
            "catalog bug: the baseline of {} must run on {}",
            exp.id, w.name
        )
    });
    output_of(&mut base)
}

/// A runner that was checked against the baseline, ready to be measured. The check ran it
/// once, so a measured run is never the first (steady state).
pub struct Checked {
    /// The variant.
    pub variant: &'static VariantInfo,
    /// Its runner.
    pub runner: Runner,
}

/// Builds the runner of `variant` on `w` and checks its output against `expected`.
///
/// Returns `Ok(None)` where the variant does not apply, and an error (refusing to measure) when
/// the output differs.
pub fn checked_runner(
    exp: &Experiment,
    w: &Workload,
    variant: &'static VariantInfo,
    expected: &[u8],
) -> Result<Option<Checked>, String> {
    let Some(mut runner) = w.runner(variant.name) else {
        return Ok(None);
    };
    match w.check(variant.role, &output_of(&mut runner), expected) {
        Check::Pass | Check::Equivalent => Ok(Some(Checked { variant, runner })),
        other => Err(format!(
            "{}/{}/{}: {other}; refusing to measure a variant whose output differs",
            exp.id, w.name, variant.name
        )),
    }
}

/// One measurable cell of the catalog.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaseId {
    /// Experiment id.
    pub exp: String,
    /// Workload name.
    pub workload: String,
    /// Variant name.
    pub variant: String,
}

impl fmt::Display for CaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.exp, self.workload, self.variant)
    }
}
