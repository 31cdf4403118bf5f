//! Number formatting for the reports.

/// Formats nanoseconds with a unit that keeps 3-4 significant digits.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.2} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// Formats a count with thousands separators.
pub fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats a byte count.
pub fn fmt_bytes(b: f64) -> String {
    if b < 1024.0 {
        format!("{b:.0} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    }
}

/// `baseline / value` as "3.12x" (how many times better than the baseline).
pub fn fmt_ratio(baseline: f64, value: f64) -> String {
    if value <= 0.0 {
        return if baseline <= 0.0 {
            "=".into()
        } else {
            "∞".into()
        };
    }
    format!("{:.2}x", baseline / value)
}

/// A number without decimals when it is whole, else with three.
pub fn trim_float(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.3}")
    }
}

/// Bytes processed per second, from bytes per run and nanoseconds per run.
pub fn fmt_throughput(bytes: u64, ns: f64) -> String {
    let per_s = bytes as f64 / ns * 1e9;
    const MIB: f64 = 1024.0 * 1024.0;
    if per_s >= 1024.0 * MIB {
        format!("{:.2} GiB/s", per_s / (1024.0 * MIB))
    } else {
        format!("{:.1} MiB/s", per_s / MIB)
    }
}
