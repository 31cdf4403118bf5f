//! Building what the instruction-count phase needs while verification runs. On a fresh machine
//! that is gungraun-runner's install and the harness's build for each backend, minutes of work
//! that would otherwise start only after verification (and, in a bench run, after wall time),
//! while verification leaves a core idle (it runs on one thread, and the other backend's
//! harness build ends in a one-unit compile of the library). Nothing is timed while these builds run: a run waits
//! for them ([`Prebuild::wait`]) before its wall-time phase.

use crate::harness::harness_cargo_bench;
use crate::mirror::{fixed_data_link, mirror_workspace};
use crate::tools::{
    RUNNER_INSTALL_ARGS, by_backend, cargo_install_command, require_valgrind, runner_missing,
};
use anyhow::{Context, Result, bail};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use wirelab_bench::catalog::Backend;
use wirelab_bench::paths::{lab_dir, workspace_root};
use wirelab_bench::selection::Selection;

/// The builds under way: two chains, each on a thread of its own with its output in a log
/// file, so that the runner's install (many small crates) fills the core that the harness's
/// build leaves idle in its one-unit compiles and links.
pub struct Prebuild {
    chains: Vec<Chain>,
    cancelled: Arc<AtomicBool>,
}

/// Builds run one after the other on a thread.
struct Chain {
    thread: Option<JoinHandle<Result<()>>>,
    /// The build running now, so that a run that ends early can stop it.
    current: Arc<Mutex<Option<Child>>>,
    log: PathBuf,
}

impl Prebuild {
    /// Starts installing gungraun-runner (when the installed one does not match; output in
    /// `target/wirelab/prebuild-runner.log`) and, beside it, building the instruction-count
    /// harness for each backend of `sel` in the mirror the phase will run from (output in
    /// `target/wirelab/prebuild.log`).
    ///
    /// # Errors
    ///
    /// When valgrind is missing, or the mirror or a log cannot be written.
    pub fn start(sel: &Selection) -> Result<Self> {
        require_valgrind()?;
        let backends: Vec<Backend> = by_backend(sel).into_iter().map(|(b, _)| b).collect();
        let install = runner_missing();
        let data = fixed_data_link()?;
        let workspace = mirror_workspace()?;
        std::fs::create_dir_all(lab_dir())?;
        let (log, runner_log) = (
            lab_dir().join("prebuild.log"),
            lab_dir().join("prebuild-runner.log"),
        );
        eprintln!(
            "lab: {}building the instruction-count harness while verification runs (log: {})",
            install
                .as_ref()
                .map(|why| format!("{why}: installing it (log: {}) and ", runner_log.display()))
                .unwrap_or_default(),
            log.display()
        );
        let cancelled = Arc::new(AtomicBool::new(false));
        let mut chains = Vec::new();
        if install.is_some() {
            let mut cmd = cargo_install_command("gungraun-runner", &RUNNER_INSTALL_ARGS);
            cmd.current_dir(workspace_root());
            let steps = vec![(cmd, "installing gungraun-runner")];
            chains.push(Chain::start(steps, runner_log, &cancelled)?);
        }
        let builds = backends
            .into_iter()
            .map(|backend| {
                let mut cmd = harness_cargo_bench(backend, data.as_deref());
                cmd.arg("--no-run").current_dir(&workspace);
                (cmd, "building the instruction-count harness")
            })
            .collect();
        chains.push(Chain::start(builds, log, &cancelled)?);
        Ok(Self { chains, cancelled })
    }

    /// Waits for the builds to end.
    ///
    /// # Errors
    ///
    /// When one failed: its error and its log's last lines.
    pub fn wait(mut self) -> Result<()> {
        if let Some(busy) = self.chains.iter().find(|c| !c.is_finished()) {
            eprintln!(
                "lab: waiting for the instruction-count harness's build (log: {})",
                busy.log.display()
            );
        }
        let mut outcome = Ok(());
        for chain in &mut self.chains {
            let ended = chain.join();
            if outcome.is_ok() {
                outcome = ended;
            }
        }
        outcome
    }
}

impl Chain {
    /// Starts running `steps` one after the other, their output appended to a new `log`.
    fn start(
        steps: Vec<(Command, &'static str)>,
        log: PathBuf,
        cancelled: &Arc<AtomicBool>,
    ) -> Result<Self> {
        let file = File::create(&log).with_context(|| format!("creating {}", log.display()))?;
        let current = Arc::new(Mutex::new(None));
        let (c, k) = (Arc::clone(&current), Arc::clone(cancelled));
        let thread = std::thread::spawn(move || run_steps(steps, &file, &c, &k));
        Ok(Self {
            thread: Some(thread),
            current,
            log,
        })
    }

    fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits for the chain to end (at once when it was joined before).
    fn join(&mut self) -> Result<()> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        match thread.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.context(format!(
                "the background build failed; the end of {}:\n{}",
                self.log.display(),
                log_tail(&self.log)
            ))),
            Err(_) => bail!("the background build's thread panicked"),
        }
    }
}

/// Verifies `sel` while the instruction-count phase's builds run ([`Prebuild::start`]), then
/// waits for them: what `check` and `explain` do before they count.
///
/// # Errors
///
/// When valgrind is missing, verification fails (the builds are then stopped) or a build
/// fails.
pub fn verify_while_building(sel: &Selection) -> Result<()> {
    let prebuild = Prebuild::start(sel)?;
    crate::verify::run(sel)?;
    prebuild.wait()
}

impl Drop for Prebuild {
    /// A run that ends before [`Prebuild::wait`] (verification failed) stops the builds under
    /// way rather than leave them running without the run's lock.
    fn drop(&mut self) {
        self.cancelled.store(true, Ordering::SeqCst);
        for chain in &mut self.chains {
            if let Some(child) = lock(&chain.current).as_mut() {
                let _ = child.kill();
            }
            let _ = chain.join();
        }
    }
}

fn lock(current: &Mutex<Option<Child>>) -> std::sync::MutexGuard<'_, Option<Child>> {
    current.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the steps one after the other, each one's output appended to `log`.
fn run_steps(
    steps: Vec<(Command, &'static str)>,
    log: &File,
    current: &Mutex<Option<Child>>,
    cancelled: &AtomicBool,
) -> Result<()> {
    for (mut cmd, what) in steps {
        let child = {
            let mut slot = lock(current);
            if cancelled.load(Ordering::SeqCst) {
                return Ok(());
            }
            let child = cmd
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log.try_clone()?)
                .spawn()
                .with_context(|| format!("{what}: could not start cargo"))?;
            slot.insert(child).id()
        };
        let status = wait_for(current, child)?;
        if !status.success() && !cancelled.load(Ordering::SeqCst) {
            bail!("{what} failed ({status})");
        }
    }
    Ok(())
}

/// Waits for the child with process id `id` held in `current`, without holding the lock
/// while it runs (so that [`Prebuild`]'s drop can kill it).
fn wait_for(current: &Mutex<Option<Child>>, id: u32) -> Result<std::process::ExitStatus> {
    loop {
        {
            let mut slot = lock(current);
            let Some(child) = slot.as_mut().filter(|c| c.id() == id) else {
                bail!("the background build's process went missing");
            };
            if let Some(status) = child.try_wait()? {
                *slot = None;
                return Ok(status);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The last lines of a log file.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::{Arc, Chain, Mutex, Prebuild, run_steps};
    use std::process::Command;
    use std::sync::atomic::AtomicBool;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    /// A log file in a fresh folder (removed when the returned guard drops) and its path.
    fn scratch_log() -> (tempfile::TempDir, std::path::PathBuf, std::fs::File) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let log = std::fs::File::create(&path).unwrap();
        (dir, path, log)
    }

    #[test]
    fn steps_run_in_order_into_the_log_and_a_failure_names_its_step() {
        let (_dir, path, log) = scratch_log();
        let steps = vec![
            (sh("echo one"), "first"),
            (sh("echo two >&2; exit 3"), "second"),
            (sh("echo three"), "third"),
        ];
        let err = run_steps(steps, &log, &Mutex::new(None), &AtomicBool::new(false)).unwrap_err();
        assert!(err.to_string().starts_with("second failed"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    }

    #[test]
    fn nothing_starts_once_cancelled() {
        let (_dir, path, log) = scratch_log();
        let steps = vec![(sh("echo ran"), "only")];
        run_steps(steps, &log, &Mutex::new(None), &AtomicBool::new(true)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn dropping_a_prebuild_stops_the_step_under_way() {
        let (_dir, path, log) = scratch_log();
        let (current, cancelled) = (Arc::new(Mutex::new(None)), Arc::new(AtomicBool::new(false)));
        let (c, k) = (Arc::clone(&current), Arc::clone(&cancelled));
        let steps = vec![(sh("sleep 600"), "long"), (sh("echo after"), "after")];
        let thread = std::thread::spawn(move || run_steps(steps, &log, &c, &k));
        while current.lock().unwrap().is_none() {
            std::thread::yield_now();
        }
        let started = std::time::Instant::now();
        let chain = Chain {
            thread: Some(thread),
            current,
            log: path.clone(),
        };
        drop(Prebuild {
            chains: vec![chain],
            cancelled,
        });
        assert!(
            started.elapsed().as_secs() < 60,
            "the sleep was not stopped"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }
}
