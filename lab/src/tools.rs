//! Running other programs, and the tools the instruction counts need.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};
use wirelab_bench::catalog::Backend;
use wirelab_bench::paths::workspace_root;
use wirelab_bench::selection::Selection;

/// The gungraun-runner version that matches the gungraun library in Cargo.lock.
pub const GUNGRAUN_VERSION: &str = "0.20.0";

/// What `bench` and `compare` measure (`--metrics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    /// Wall time (criterion).
    Wall,
    /// Instructions (gungraun, callgrind).
    Icount,
    /// Heap allocations (dhat).
    Alloc,
    /// callgrind's cache simulation: L1 and last-level misses and estimated cycles (opt-in;
    /// the instruction-count run then takes about twice as long).
    Cycles,
}

/// `--metrics`, as `bench` and `compare` take it.
#[derive(Clone, Debug, clap::Args)]
pub struct Metrics {
    /// What to measure, comma-separated (outputs are always verified). `bench` publishes
    /// reports only when wall, icount and alloc are all measured; `cycles` adds callgrind's
    /// cache simulation to the instruction counts (for `compare`, labs from this one on).
    #[arg(
        long = "metrics",
        value_name = "METRIC",
        value_enum,
        value_delimiter = ',',
        default_value = "wall,icount,alloc"
    )]
    pub list: Vec<Measure>,
}

impl Metrics {
    /// Whether `m` is measured.
    pub fn wants(&self, m: Measure) -> bool {
        self.list.contains(&m)
    }

    /// Whether instructions are counted (for themselves or under the cache simulation).
    pub fn counts_instructions(&self) -> bool {
        self.wants(Measure::Icount) || self.wants(Measure::Cycles)
    }

    /// Whether every metric a report needs (wall, icount, alloc) is measured.
    pub fn complete(&self) -> bool {
        [Measure::Wall, Measure::Icount, Measure::Alloc]
            .into_iter()
            .all(|m| self.wants(m))
    }
}

/// An error that ends the lab with a given exit status. Other errors (usage, environment,
/// build, a failed child) end it with 2.
#[derive(Debug)]
pub struct Exit {
    /// The exit status: 1 a check or gate found a difference, 2 usage, environment or build.
    pub code: i32,
    /// What went wrong.
    pub message: String,
}

impl Exit {
    /// A check or gate found a difference (status 1).
    pub fn difference(message: String) -> Self {
        Self { code: 1, message }
    }

    /// An environment error (status 2): something the machine lacks.
    pub fn environment(message: String) -> Self {
        Self { code: 2, message }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// An exclusive lock on a folder that lab runs share (the instruction-count folder, a compared
/// revision's folder), held until it is dropped: a second run waits for the first, saying so,
/// instead of emptying the inputs, rewriting the manifest or the mirror under it.
pub struct FolderLock {
    _file: std::fs::File,
}

/// Takes the lock of `dir` (the file `<dir>.wirelab.lock` beside it), waiting while another
/// run holds it.
///
/// # Errors
///
/// When the lock file cannot be created or locked.
pub fn lock_folder(dir: &Path) -> Result<FolderLock> {
    let (file, path) = open_lock(dir)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            // Empty when the other run took the lock a moment ago and has not written yet.
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = match holder.trim() {
                "" => String::new(),
                who => format!(" ({who})"),
            };
            eprintln!(
                "lab: {} is in use by another lab run{holder}; waiting for it to finish",
                dir.display()
            );
            file.lock()
                .with_context(|| format!("waiting for {}", path.display()))?;
            eprintln!("lab: {} is free; going on", dir.display());
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()));
        }
    }
    held(file)
}

/// Takes the lock of `dir` if no other run holds it; `None` when one does.
///
/// # Errors
///
/// When the lock file cannot be created or locked.
pub fn try_lock_folder(dir: &Path) -> Result<Option<FolderLock>> {
    let (file, path) = open_lock(dir)?;
    match file.try_lock() {
        Ok(()) => held(file).map(Some),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("locking {}", path.display()))
        }
    }
}

/// The lock file of `dir`: `<dir>.wirelab.lock`, beside it.
pub fn lock_path(dir: &Path) -> PathBuf {
    PathBuf::from(format!("{}.wirelab.lock", dir.display()))
}

/// The lock file of `dir`, opened (created when missing).
fn open_lock(dir: &Path) -> Result<(std::fs::File, PathBuf)> {
    let path = lock_path(dir);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening the lock {}", path.display()))?;
    Ok((file, path))
}

/// Marks a lock just taken as this run's (which also dates the folder's last use).
fn held(mut file: std::fs::File) -> Result<FolderLock> {
    use std::io::Write as _;
    file.set_len(0)?;
    write!(
        file,
        "pid {}, checkout {}",
        std::process::id(),
        workspace_root().display()
    )?;
    Ok(FolderLock { _file: file })
}

/// Runs `cmd` in the workspace root; fails unless it succeeds.
pub fn run(cmd: &mut Command, what: &str) -> Result<()> {
    run_in(cmd, &workspace_root(), what)
}

/// Runs `cmd` in `dir`; fails unless it succeeds.
pub fn run_in(cmd: &mut Command, dir: &Path, what: &str) -> Result<()> {
    // Results go to stdout; what children print (cargo, criterion, gungraun) goes to stderr,
    // so that `cargo lab compare main > pr.md` holds the table alone.
    let status = cmd
        .current_dir(dir)
        .stdout(std::io::stderr())
        .status()
        .with_context(|| format!("{what}: could not start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The trimmed standard output of a program that succeeded.
pub fn output_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// `cargo install PACKAGE ARGS... --locked`, built for a short build rather than a fast
/// binary: the tools the lab installs (gungraun-runner, cargo-fuzz) only start other programs
/// and read their output, and their build is a good part of a fresh machine's first run.
/// Unoptimised: gungraun-runner's build took 100 s of CPU here against 201 s at opt-level 1,
/// and `cargo lab check hpack-encode crc` ran in the same 23 s with either.
pub fn cargo_install(package: &str, args: &[&str]) -> Result<()> {
    run(
        &mut cargo_install_command(package, args),
        &format!("installing {package}"),
    )
}

/// The command [`cargo_install`] runs.
pub fn cargo_install_command(package: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.args(["install", package, "--locked"]).args(args);
    for (key, value) in [
        ("OPT_LEVEL", "0"),
        ("CODEGEN_UNITS", "256"),
        ("DEBUG", "false"),
        ("LTO", "false"),
    ] {
        cmd.env(format!("CARGO_PROFILE_RELEASE_{key}"), value);
    }
    cmd
}

/// Checks for valgrind and for a gungraun-runner of the matching version (installing it).
pub fn preflight_icount() -> Result<()> {
    require_valgrind()?;
    if let Some(missing) = runner_missing() {
        eprintln!("lab: {missing}; installing it (about 2 minutes, once)");
        cargo_install("gungraun-runner", &RUNNER_INSTALL_ARGS)?;
    }
    Ok(())
}

/// `cargo install` arguments of the gungraun-runner that matches the library.
pub const RUNNER_INSTALL_ARGS: [&str; 2] = ["--version", GUNGRAUN_VERSION];

/// Fails, saying how to install it, when valgrind is missing.
pub fn require_valgrind() -> Result<()> {
    if output_of("valgrind", &["--version"]).is_none() {
        bail!(
            "valgrind is not installed; instruction counts need it.\n  \
             Debian/Ubuntu: sudo apt-get install valgrind   (valgrind 3.19 or later)"
        );
    }
    Ok(())
}

/// Why the installed gungraun-runner will not do (missing, or another version), or `None`
/// when it matches the library.
pub fn runner_missing() -> Option<String> {
    let want = format!("gungraun-runner {GUNGRAUN_VERSION}");
    let have = output_of("gungraun-runner", &["--version"]);
    (have.as_deref() != Some(want.as_str())).then(|| {
        format!(
            "gungraun-runner {GUNGRAUN_VERSION} is missing{}",
            have.map(|v| format!(" (found `{v}`)")).unwrap_or_default()
        )
    })
}

/// The selection split by the build that measures it: for each flate2 backend with a selected
/// page, the part of `sel` on that backend's pages (default backend first).
pub fn by_backend(sel: &Selection) -> Vec<(Backend, Selection)> {
    let mut out: Vec<(Backend, Vec<String>)> = Vec::new();
    for exp in sel.experiments() {
        let part = sel.narrowed_to(&exp.id()).to_string();
        match out.iter_mut().find(|(b, _)| *b == exp.backend) {
            Some((_, parts)) => parts.push(part),
            None => out.push((exp.backend, vec![part])),
        }
    }
    out.sort_by_key(|(b, _)| *b != Backend::MinizOxide);
    out.into_iter()
        .map(|(b, parts)| {
            (
                b,
                Selection::parse(&parts).expect("parts of a valid selection"),
            )
        })
        .collect()
}

/// `cargo run --release` of a package binary built for `backend`, its arguments following.
///
/// The first time in a process for a binary and backend, `cargo build` runs first with its
/// progress on stderr (a fresh clone's zlib-rs build takes over a minute), so the quiet `cargo
/// run` finds it built.
pub fn cargo_run(bin: &str, backend: Backend) -> Command {
    build_once(bin, backend);
    let mut cmd = Command::new("cargo");
    with_cargo_run(&mut cmd, bin, backend);
    cmd
}

/// `cargo build --release` of the package binary `bin` for `backend`, once per process, cargo's
/// progress and messages on stderr (stdout holds results only). A failed build is left to the
/// `cargo run` after it, which fails the same way and is checked where it runs.
fn build_once(bin: &str, backend: Backend) {
    static BUILT: Mutex<Vec<(String, Backend)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    if built.iter().any(|(b, k)| b == bin && *k == backend) {
        return;
    }
    // A harness brings its siblings: one cargo run builds them side by side.
    let bins: &[&str] = if HARNESS_BINS.contains(&bin) {
        HARNESS_BINS
    } else {
        &[bin]
    };
    built.extend(bins.iter().map(|b| ((*b).to_owned(), backend)));
    let mut cmd = Command::new("cargo");
    cmd.args(["build", "--release", "--package", "wirelab-bench"])
        .args(backend.cargo_args());
    for b in bins {
        cmd.args(["--bin", b]);
    }
    let _ = cmd.stdout(Stdio::from(std::io::stderr())).status();
}

/// The binaries that run the catalog's cases in a build (verification, wall time,
/// allocations), built together for a backend the first time one of them is asked for.
const HARNESS_BINS: &[&str] = &["verify", "wall", "alloc"];

/// Adds to a `cargo` command (one with its own folder or environment) the arguments of
/// [`cargo_run`].
pub fn with_cargo_run<'a>(cmd: &'a mut Command, bin: &str, backend: Backend) -> &'a mut Command {
    cmd.args(["run", "--release", "--quiet", "--package", "wirelab-bench"])
        .args(backend.cargo_args())
        .args(["--bin", bin, "--"])
}
