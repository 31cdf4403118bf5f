//! Whether the machine is otherwise idle before a paired timing process starts. Another
//! process on a shared core does not cancel in a pair's ratio: an A/A run while the machine
//! was busy read memory-heavy cases NEW 2-4 % faster in 13 of 16 layouts, and 1.00 again on a
//! quiet machine (README, "compare"). The lab cannot stop such a process; it says so.

use std::time::Duration;

/// How long the machine is watched before each layout's process.
const WINDOW: Duration = Duration::from_millis(250);

/// Busy CPUs (of other processes: the lab sleeps meanwhile) above which the warning is given.
const BUSY_LIMIT: f64 = 0.2;

/// Prints a warning on stderr when other processes kept more than [`BUSY_LIMIT`] CPUs busy
/// over [`WINDOW`]; silent where `/proc/stat` cannot be read.
pub fn warn_if_busy(what: &str) {
    let Some(busy) = busy_cpus(WINDOW) else {
        return;
    };
    if busy > BUSY_LIMIT {
        eprintln!(
            "lab: warning: other processes kept {busy:.1} CPUs busy in the {} ms before \
             {what}: wall ratios may lean toward one side; time on an otherwise idle machine",
            WINDOW.as_millis()
        );
    }
}

/// CPUs kept busy over `window` (busy jiffies over all jiffies, times the CPU count).
fn busy_cpus(window: Duration) -> Option<f64> {
    let before = jiffies()?;
    std::thread::sleep(window);
    let after = jiffies()?;
    busy_share(before, after)
}

/// `(busy, total, cpus)` from `/proc/stat`.
fn jiffies() -> Option<(u64, u64, usize)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let (busy, total) = parse_cpu_line(stat.lines().next()?)?;
    let cpus = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && !l.starts_with("cpu "))
        .count();
    Some((busy, total, cpus))
}

/// Busy CPUs between two readings of [`jiffies`].
fn busy_share(before: (u64, u64, usize), after: (u64, u64, usize)) -> Option<f64> {
    let total = after.1.checked_sub(before.1).filter(|t| *t > 0)?;
    let busy = after.0.saturating_sub(before.0);
    Some(busy as f64 / total as f64 * after.2 as f64)
}

/// `(busy, total)` jiffies of `/proc/stat`'s summary line (`cpu  user nice system idle iowait
/// irq softirq steal ...`): idle and iowait are not busy.
fn parse_cpu_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let values: Vec<u64> = fields.map(|f| f.parse().ok()).collect::<Option<_>>()?;
    let idle = values.get(3)? + values.get(4).copied().unwrap_or(0);
    // guest and guest_nice (fields 9 and 10) are already counted in user and nice.
    let total: u64 = values.iter().take(8).sum();
    Some((total - idle, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_gives_busy_and_total_jiffies() {
        let line = "cpu  2364529 0 143747 6617174 7654 0 950 547 0 0";
        let total = 2_364_529 + 143_747 + 6_617_174 + 7_654 + 950 + 547;
        assert_eq!(
            parse_cpu_line(line),
            Some((total - 6_617_174 - 7_654, total))
        );
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4"), None, "a per-CPU line");
        assert_eq!(parse_cpu_line("cpu  1 2 x 4"), None, "a malformed line");
        assert_eq!(parse_cpu_line("cpu  1 2"), None, "too few fields");
    }

    #[test]
    fn busy_cpus_scale_with_the_cpu_count() {
        // 150 of 400 jiffies busy on 4 CPUs: 1.5 CPUs.
        assert_eq!(busy_share((100, 1000, 4), (250, 1400, 4)), Some(1.5));
        assert_eq!(
            busy_share((100, 1000, 4), (100, 1000, 4)),
            None,
            "no time passed"
        );
    }
}
