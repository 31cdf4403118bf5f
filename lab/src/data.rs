//! `cargo lab data`: assembles the data folder (the corpus, hpack-test-case's stories, the gzip
//! files, RFC 7541's Appendix C) from sources a user can reach, every file and story folder
//! checked against the SHA-256 pinned in `lab/data-sources.toml`, and writes
//! `MANIFEST.json` beside them. The folder is built apart and put in place whole, so a failed
//! run leaves the old folder (or none) as it was.
//!
//! Where each piece comes from is said once, in the pins file: an archive (Debian's copy of
//! snappy's source, a crate package cargo already downloaded, a GitHub tarball), or `house`
//! (made for this lab and in no package: only a local copy, `--from`, provides it).

use crate::tools::Exit;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use wirelab_bench::paths::{lab_dir, workspace_root};

/// The pins: every source and every file or story folder of the data folder.
const PINS: &str = include_str!("../data-sources.toml");

/// The version of `MANIFEST.json`'s layout.
const MANIFEST_SCHEMA_VERSION: u32 = 1;

#[derive(clap::Args)]
pub struct Args {
    /// A folder laid out like the data folder (for example a lab's `../shared/data`): each
    /// piece found there is taken from it, after its checksum is checked, instead of its
    /// source.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Where to assemble the folder (default: `data/` in the workspace, which the lab reads
    /// when neither `WIRELAB_DATA` nor `../shared/data` is there).
    #[arg(long, value_name = "DIR")]
    to: Option<PathBuf>,
    /// Check the folder the lab reads (or `--to`) against the pins instead of assembling.
    #[arg(long)]
    check: bool,
    /// Print the pin of a folder of hpack-test-case stories (for whoever updates the pins).
    #[arg(long, value_name = "DIR", hide = true)]
    pin_stories: Option<PathBuf>,
}

/// `lab/data-sources.toml`.
#[derive(Debug, Deserialize)]
pub struct Pins {
    /// Where pieces come from, by name.
    sources: BTreeMap<String, Source>,
    /// Single files.
    #[serde(default)]
    files: Vec<PinnedFile>,
    /// Folders of hpack-test-case stories, pinned by their content.
    #[serde(default)]
    stories: Vec<PinnedStories>,
}

/// An archive (`.tar.gz`) the pieces are read from, or none (`house`: a local copy only).
#[derive(Debug, Deserialize)]
struct Source {
    /// What it is, for the messages and the manifest.
    what: String,
    /// Where to download it from.
    url: Option<String>,
    /// The archive's SHA-256, where it is fixed (a GitHub tarball is not).
    sha256: Option<String>,
    /// The name of the archive in cargo's download cache, for a crate package.
    cargo_cache: Option<String>,
}

/// One file: where it goes, where it is in its source (the archive's first folder level
/// stripped), and its SHA-256.
#[derive(Debug, Deserialize)]
struct PinnedFile {
    path: String,
    source: String,
    from: Option<String>,
    sha256: String,
    /// Other contents accepted from `--from` (an older copy of the same file).
    #[serde(default)]
    also_sha256: Vec<String>,
}

impl PinnedFile {
    fn accepts(&self, sha256: &str) -> bool {
        self.sha256 == sha256 || self.also_sha256.iter().any(|s| s == sha256)
    }
}

/// A folder of story files (`*.json`), pinned by [`stories_digest`]: the same stories
/// serialised another way (whitespace, key order) have the same digest.
#[derive(Debug, Deserialize)]
struct PinnedStories {
    path: String,
    source: String,
    from: String,
    stories: usize,
    digest: String,
}

/// `MANIFEST.json`: what the folder holds and where each piece came from.
#[derive(Debug, Serialize)]
struct Manifest {
    schema_version: u32,
    assembled_by: String,
    files: Vec<ManifestFile>,
    missing: Vec<Missing>,
}

#[derive(Debug, Serialize)]
struct ManifestFile {
    path: String,
    bytes: u64,
    sha256: String,
    source: String,
}

#[derive(Debug, Serialize)]
struct Missing {
    path: String,
    why: String,
}

pub fn run(args: &Args) -> Result<()> {
    if let Some(folder) = &args.pin_stories {
        return print_stories_pin(folder);
    }
    let pins: Pins = toml::from_str(PINS).context("lab/data-sources.toml")?;
    if args.check {
        let dir = args
            .to
            .clone()
            .unwrap_or_else(wirelab_bench::data::shared_data_dir);
        return check(&pins, &dir);
    }
    let to = args.to.clone().unwrap_or_else(default_dir);
    let report = assemble(&pins, args.from.as_deref(), &to)?;
    eprintln!(
        "lab: data: {} files in {} ({} missing)",
        report.files.len(),
        to.display(),
        report.missing.len()
    );
    let mut by_why: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in &report.missing {
        by_why.entry(&m.why).or_default().push(&m.path);
    }
    for (why, paths) in by_why {
        let shown = paths.iter().take(3).copied().collect::<Vec<_>>().join(", ");
        let more = paths.len().saturating_sub(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        eprintln!("lab: data: not assembled: {shown}{more}: {why}");
    }
    if report.missing.is_empty() {
        return Ok(());
    }
    Err(Exit::environment(format!(
        "{} pieces of the data are missing (listed above and in {}); the lab skips what needs \
         them",
        report.missing.len(),
        to.join("MANIFEST.json").display()
    ))
    .into())
}

/// The folder `cargo lab data` assembles by default: `data/` in the workspace.
fn default_dir() -> PathBuf {
    workspace_root().join("data")
}

/// Builds the folder in `<to>.new`, then puts it in place of `to`.
fn assemble(pins: &Pins, from: Option<&Path>, to: &Path) -> Result<Manifest> {
    let staging = sibling(to, "new");
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    std::fs::create_dir_all(&staging)?;
    let built = fill(pins, from, &staging);
    let manifest = match built {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    wirelab_bench::records::write_json(&staging.join("MANIFEST.json"), &manifest)
        .map_err(anyhow::Error::msg)?;
    replace(&staging, to)?;
    Ok(manifest)
}

/// Every pinned piece into `dir`: from `from` where it is there, else from its source.
fn fill(pins: &Pins, from: Option<&Path>, dir: &Path) -> Result<Manifest> {
    let mut archives = Archives::default();
    let mut manifest = Manifest {
        schema_version: MANIFEST_SCHEMA_VERSION,
        assembled_by: format!("cargo lab data ({})", env!("CARGO_PKG_VERSION")),
        files: Vec::new(),
        missing: Vec::new(),
    };
    for f in &pins.files {
        let local = from.map(|d| d.join(&f.path)).filter(|p| p.is_file());
        match locate(pins, &mut archives, local, &f.source, f.from.as_deref())? {
            Located::At(path, source) => {
                let bytes = std::fs::read(&path).with_context(|| path.display().to_string())?;
                check_file(f, &path, &bytes)?;
                write(dir, &f.path, &bytes)?;
                manifest.files.push(entry(&f.path, &bytes, &source));
            }
            Located::Missing(why) => manifest.missing.push(Missing {
                path: f.path.clone(),
                why,
            }),
        }
    }
    for s in &pins.stories {
        let local = from.map(|d| d.join(&s.path)).filter(|p| p.is_dir());
        let (folder, source) = match locate(pins, &mut archives, local, &s.source, Some(&s.from))? {
            Located::At(folder, source) => (folder, source),
            Located::Missing(why) => {
                manifest.missing.push(Missing {
                    path: format!("{}/", s.path),
                    why,
                });
                continue;
            }
        };
        check_stories(s, &folder)?;
        for (name, bytes) in story_files(&folder)? {
            let path = format!("{}/{name}", s.path);
            write(dir, &path, &bytes)?;
            manifest.files.push(entry(&path, &bytes, &source));
        }
    }
    Ok(manifest)
}

enum Located {
    /// The file, and what it came from.
    At(PathBuf, String),
    /// Why it is not available.
    Missing(String),
}

/// Where a piece is: `local` (its copy under `--from`, when there is one), else `inside` the
/// archive of source `source_name` (a piece with no `inside` is in no archive).
fn locate(
    pins: &Pins,
    archives: &mut Archives,
    local: Option<PathBuf>,
    source_name: &str,
    inside: Option<&str>,
) -> Result<Located> {
    if let Some(local) = local {
        return Ok(Located::At(local.clone(), local.display().to_string()));
    }
    let source = source(pins, source_name)?;
    let Some(inside) = inside else {
        return Ok(Located::Missing(format!(
            "{}: in no package; copy it from a lab's data folder with `cargo lab data --from DIR`",
            source.what
        )));
    };
    Ok(match archives.unpacked(source_name, source)? {
        Ok(root) => Located::At(root.join(inside), source.what.clone()),
        Err(why) => Located::Missing(why),
    })
}

fn source<'p>(pins: &'p Pins, name: &str) -> Result<&'p Source> {
    pins.sources
        .get(name)
        .with_context(|| format!("lab/data-sources.toml: no source `{name}`"))
}

/// The archives unpacked so far in this run (each in a temporary folder), and the sources
/// that could not be downloaded (with why), by source name.
#[derive(Default)]
struct Archives {
    unpacked: BTreeMap<String, tempfile::TempDir>,
    unavailable: BTreeMap<String, String>,
}

impl Archives {
    /// The unpacked archive of source `name` (its first folder level stripped), downloaded
    /// and checked the first time it is asked for; `Err(why)` inside when it cannot be
    /// downloaded.
    fn unpacked(&mut self, name: &str, source: &Source) -> Result<Result<PathBuf, String>> {
        if let Some(dir) = self.unpacked.get(name) {
            return Ok(Ok(dir.path().to_path_buf()));
        }
        if let Some(why) = self.unavailable.get(name) {
            return Ok(Err(why.clone()));
        }
        let archive = match obtain(name, source)? {
            Ok(archive) => archive,
            Err(why) => {
                self.unavailable.insert(name.to_owned(), why.clone());
                return Ok(Err(why));
            }
        };
        let dir = tempfile::tempdir()?;
        unpack(&archive, dir.path()).with_context(|| format!("unpacking {}", archive.display()))?;
        let path = dir.path().to_path_buf();
        self.unpacked.insert(name.to_owned(), dir);
        Ok(Ok(path))
    }
}

/// The archive of a source: cargo's copy of a crate package, else one downloaded before (under
/// `target/wirelab/downloads/`), else downloaded now; its SHA-256 checked where pinned.
/// `Err(why)` inside when the download fails.
fn obtain(name: &str, source: &Source) -> Result<Result<PathBuf, String>> {
    let url = source
        .url
        .as_deref()
        .with_context(|| format!("source `{name}` ({}) has nothing to download", source.what))?;
    let file_name = url.rsplit('/').next().unwrap_or(name);
    let kept = downloads_dir().join(format!("{name}-{file_name}"));
    let archive = match cargo_cached(source) {
        Some(cached) => cached,
        None if kept.is_file() => kept,
        None => match download(url, &kept, source)? {
            Ok(()) => kept,
            Err(why) => return Ok(Err(why)),
        },
    };
    if let Some(pinned) = &source.sha256 {
        let bytes = std::fs::read(&archive)?;
        check_sha256(name, &archive, &bytes, pinned)?;
    }
    Ok(Ok(archive))
}

/// Where downloaded archives are kept, and where a user puts one fetched by other means.
fn downloads_dir() -> PathBuf {
    lab_dir().join("downloads")
}

/// A crate package in cargo's download cache (`$CARGO_HOME/registry/cache/*/NAME`).
fn cargo_cached(source: &Source) -> Option<PathBuf> {
    let name = source.cargo_cache.as_ref()?;
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let registries = std::fs::read_dir(home.join("registry").join("cache")).ok()?;
    registries
        .flatten()
        .map(|r| r.path().join(name))
        .find(|p| p.is_file())
}

/// Downloads `url` to `to` with curl; `Err(why)` inside on a failure, saying how to get the
/// file by hand.
fn download(url: &str, to: &Path, source: &Source) -> Result<Result<(), String>> {
    std::fs::create_dir_all(downloads_dir())?;
    let partial = sibling(to, "part");
    eprintln!("lab: data: downloading {url}");
    let out = Command::new("curl")
        .args(["--fail", "--silent", "--show-error", "--location"])
        .args(["--max-time", "300", "--output"])
        .arg(&partial)
        .arg(url)
        .output();
    let why = match out {
        Ok(o) if o.status.success() => {
            std::fs::rename(&partial, to)?;
            return Ok(Ok(()));
        }
        Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_owned(),
        Err(e) => format!("curl: {e}"),
    };
    let _ = std::fs::remove_file(&partial);
    Ok(Err(format!(
        "cannot download {} ({url}: {why}); fetch it by other means into {}, or point \
         WIRELAB_DATA at a copy of the data folder",
        source.what,
        to.display()
    )))
}

/// Unpacks a `.tar.gz` (a `.crate` is one) into `dir` with the system's tar, dropping each
/// entry's first folder.
fn unpack(archive: &Path, dir: &Path) -> Result<()> {
    let out = Command::new("tar")
        .args(["--extract", "--gzip", "--strip-components=1", "--file"])
        .arg(archive)
        .arg("--directory")
        .arg(dir)
        .output()
        .context("starting tar")?;
    if !out.status.success() {
        bail!("tar: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

fn check_file(f: &PinnedFile, path: &Path, bytes: &[u8]) -> Result<()> {
    if f.accepts(&sha256_hex(bytes)) {
        return Ok(());
    }
    check_sha256(&f.path, path, bytes, &f.sha256)
}

fn check_sha256(what: &str, path: &Path, bytes: &[u8], pinned: &str) -> Result<()> {
    let got = sha256_hex(bytes);
    if got != pinned {
        return Err(Exit::environment(format!(
            "{what}: {} has SHA-256 {got}, not the pinned {pinned}: refusing it",
            path.display()
        ))
        .into());
    }
    Ok(())
}

fn check_stories(s: &PinnedStories, folder: &Path) -> Result<()> {
    let files = story_files(folder)?;
    let got = stories_digest(&files)?;
    if files.len() != s.stories || got != s.digest {
        return Err(Exit::environment(format!(
            "{}: {} holds {} stories with digest {got}, not the pinned {} with {}: refusing it",
            s.path,
            folder.display(),
            files.len(),
            s.stories,
            s.digest
        ))
        .into());
    }
    Ok(())
}

/// The `*.json` files of a folder, by name.
fn story_files(folder: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    let entries =
        std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))?;
    for e in entries {
        let path = e?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".json") {
            files.push((name, std::fs::read(&path)?));
        }
    }
    files.sort();
    Ok(files)
}

/// SHA-256 over each story's name and its JSON in a canonical form (keys sorted, no
/// whitespace): what a folder of stories says, however it is serialised.
fn stories_digest(files: &[(String, Vec<u8>)]) -> Result<String> {
    let mut hasher = Sha256::new();
    for (name, bytes) in files {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).with_context(|| format!("{name}: not JSON"))?;
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
        hasher.update(canonical(&value).as_bytes());
        hasher.update(b"\n");
    }
    Ok(hex(&hasher.finalize()))
}

/// JSON with every object's keys sorted and no whitespace.
fn canonical(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        serde_json::Value::from(k.as_str()),
                        canonical(&map[*k])
                    )
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn entry(path: &str, bytes: &[u8], source: &str) -> ManifestFile {
    ManifestFile {
        path: path.to_owned(),
        bytes: bytes.len() as u64,
        sha256: sha256_hex(bytes),
        source: source.to_owned(),
    }
}

fn write(dir: &Path, path: &str, bytes: &[u8]) -> Result<()> {
    let to = dir.join(path);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&to, bytes).with_context(|| to.display().to_string())
}

/// `<dir>.<ext>` beside `dir`.
fn sibling(dir: &Path, ext: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{ext}"));
    dir.with_file_name(name)
}

/// Puts `staging` in place of `to`: the old folder moved aside first and removed last.
fn replace(staging: &Path, to: &Path) -> Result<()> {
    let old = sibling(to, "old");
    if old.exists() {
        std::fs::remove_dir_all(&old)?;
    }
    if to.exists() {
        std::fs::rename(to, &old).with_context(|| format!("moving {} aside", to.display()))?;
    }
    std::fs::rename(staging, to).with_context(|| format!("putting {} in place", to.display()))?;
    if old.exists() {
        std::fs::remove_dir_all(&old)?;
    }
    Ok(())
}

/// Checks every pinned piece present in `dir`; lists what is missing. A piece that differs
/// fails the check (status 1).
fn check(pins: &Pins, dir: &Path) -> Result<()> {
    let mut differ = Vec::new();
    let mut missing = 0;
    for f in &pins.files {
        let path = dir.join(&f.path);
        match std::fs::read(&path) {
            Ok(bytes) if f.accepts(&sha256_hex(&bytes)) => {}
            Ok(_) => differ.push(f.path.clone()),
            Err(_) => {
                missing += 1;
                eprintln!("lab: data: missing {}", f.path);
            }
        }
    }
    for s in &pins.stories {
        let folder = dir.join(&s.path);
        if !folder.is_dir() {
            missing += 1;
            eprintln!("lab: data: missing {}/", s.path);
        } else if check_stories(s, &folder).is_err() {
            differ.push(format!("{}/", s.path));
        }
    }
    let total = pins.files.len() + pins.stories.len();
    println!(
        "data: {}: {} match, {} differ, {missing} missing (of {total} pinned pieces)",
        dir.display(),
        total - differ.len() - missing,
        differ.len()
    );
    if differ.is_empty() {
        Ok(())
    } else {
        Err(Exit::difference(format!("differ from their pins: {}", differ.join(", "))).into())
    }
}

/// Prints the `[[stories]]` pin of a folder of stories (for whoever updates the pins).
fn print_stories_pin(folder: &Path) -> Result<()> {
    let files = story_files(folder)?;
    println!(
        "stories = {}\ndigest = \"{}\"",
        files.len(),
        stories_digest(&files)?
    );
    Ok(())
}
