//! callgrind's profiles, per function: what a case spends its instructions on (`cargo lab
//! explain`) and which functions moved a count between two revisions (`cargo lab compare`'s
//! `why`), with the folded stacks a flamegraph is drawn from.
//!
//! The instruction-count harness keeps each case's profile (`target/wirelab/callgrind/<case
//! id>.out`, the file callgrind wrote for gungraun). No crate reads callgrind's format, so this
//! module does, for what the lab needs: each function's self cost (`Ir` on its own lines) and
//! inclusive cost (self plus the calls it makes), and the call edges between functions.
//! Names are as valgrind wrote them: demangled.
//!
//! ```text
//! events: Ir                 fn=(3) name       a function (name compression: "(id) name" once,
//! positions: line            fn=(3)            then "(id)")
//! fn=(1) outer               cfn=(2) inner     the function the next calls= line calls
//! 10 5                       calls=1 20        a call; the cost line after it is the call's
//! cfn=(2) inner              11 120            inclusive cost, charged to the caller's inclusive
//! calls=1 20                                   cost, not its self cost
//! 11 120
//! ```

use crate::compare::{FunctionDelta, Pair};
use std::collections::{BTreeMap, BTreeSet};

/// One function's instructions in a profile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Instructions on its own lines.
    pub self_ir: u64,
    /// Its own and those of everything it calls (recursive calls counted once).
    pub inclusive: u64,
}

/// A parsed callgrind profile: instructions per function and the calls between functions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Per function name.
    pub functions: BTreeMap<String, Cost>,
    /// caller -> callee -> inclusive instructions of those calls.
    pub calls: BTreeMap<String, BTreeMap<String, u64>>,
}

/// Which of callgrind's name-compression tables a specification line uses.
fn table_of(key: &str) -> Option<usize> {
    match key {
        "fn" | "cfn" => Some(0),
        "fl" | "fi" | "fe" | "cfi" | "cfl" => Some(1),
        "ob" | "cob" => Some(2),
        _ => None,
    }
}

/// The parser's state between lines.
#[derive(Default)]
struct Reader {
    names: [BTreeMap<String, String>; 3],
    ir_column: Option<usize>,
    positions: usize,
    current: String,
    callee: Option<String>,
    in_call: bool,
    skip_next: bool,
    profile: Profile,
}

impl Profile {
    /// Parses a callgrind output file (format version 1, any events; `Ir` is read).
    ///
    /// # Errors
    ///
    /// When the file has no `Ir` event or a cost line is malformed (with its line number).
    pub fn parse(text: &str) -> Result<Profile, String> {
        let mut r = Reader {
            positions: 1,
            ..Reader::default()
        };
        for (n, line) in text.lines().enumerate() {
            r.line(line.trim_end())
                .map_err(|e| format!("callgrind profile, line {}: {e}", n + 1))?;
        }
        let mut profile = r.profile;
        for (caller, callees) in &profile.calls {
            let called: u64 = callees
                .iter()
                .filter(|(callee, _)| *callee != caller)
                .map(|(_, ir)| ir)
                .sum();
            profile
                .functions
                .entry(caller.clone())
                .or_default()
                .inclusive += called;
        }
        let total = profile.total();
        for cost in profile.functions.values_mut() {
            // The frames below the measured function can hold the same calls twice (callgrind
            // sees the stack as it was when collection was switched on): no function's
            // inclusive count exceeds the profile's.
            cost.inclusive = (cost.inclusive + cost.self_ir).min(total);
        }
        Ok(profile)
    }

    /// The instructions of the whole profile (the sum of every function's self cost).
    pub fn total(&self) -> u64 {
        self.functions.values().map(|c| c.self_ir).sum()
    }

    /// The `n` functions with the most instructions of their own, most first (ties by name);
    /// functions with none of their own are left out.
    pub fn top_by_self(&self, n: usize) -> Vec<(&str, Cost)> {
        let mut all: Vec<(&str, Cost)> = self
            .functions
            .iter()
            .filter(|(_, c)| c.self_ir > 0)
            .map(|(name, c)| (name.as_str(), *c))
            .collect();
        all.sort_by(|a, b| b.1.self_ir.cmp(&a.1.self_ir).then(a.0.cmp(b.0)));
        all.truncate(n);
        all
    }

    /// The profile as folded stacks (`outer;inner count`), for a flamegraph, from `root` (the
    /// measured function, when the profile has it; else every function nobody calls).
    /// callgrind keeps call edges, not whole stacks: a function called from several places
    /// has the costs of its own callees split among its callers in proportion to what each
    /// call cost.
    pub fn folded(&self, root: &str) -> Vec<String> {
        let called: BTreeSet<&String> = self.calls.values().flat_map(|c| c.keys()).collect();
        let roots: Vec<&String> = match self.functions.get_key_value(root) {
            Some((name, _)) => vec![name],
            None => self
                .functions
                .keys()
                .filter(|f| !called.contains(f))
                .collect(),
        };
        let mut out = BTreeMap::new();
        for root in roots {
            self.fold(root, &mut vec![root.as_str()], 1.0, &mut out);
        }
        out.into_iter()
            .filter(|(_, ir)| *ir >= 0.5)
            .map(|(stack, ir)| format!("{stack} {}", ir.round() as u64))
            .collect()
    }

    fn fold<'a>(
        &'a self,
        function: &str,
        stack: &mut Vec<&'a str>,
        scale: f64,
        out: &mut BTreeMap<String, f64>,
    ) {
        let frames: Vec<String> = stack.iter().map(|f| f.replace(';', ":")).collect();
        let key = frames.join(";");
        let own = self.functions.get(function).map_or(0, |c| c.self_ir) as f64;
        *out.entry(key.clone()).or_default() += own * scale;
        let Some(callees) = self.calls.get(function) else {
            return;
        };
        for (callee, ir) in callees {
            let part = *ir as f64 * scale;
            if stack.contains(&callee.as_str()) {
                // A recursive call: its instructions are already on the lines of the frames
                // it re-enters.
                continue;
            }
            if part < 0.5 || stack.len() >= 64 {
                // Too small or too deep to draw: it stays in the caller's frame.
                *out.entry(key.clone()).or_default() += part;
                continue;
            }
            let whole = self
                .functions
                .get(callee)
                .map_or(0, |c| c.inclusive)
                .max(*ir) as f64;
            stack.push(callee);
            self.fold(callee, stack, part / whole, out);
            stack.pop();
        }
    }
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        if std::mem::take(&mut self.skip_next) || line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            return self.cost(line);
        }
        let Some((key, value)) = line.split_once(['=', ':']) else {
            return Ok(());
        };
        match key {
            "events" => {
                let ir = value.split_whitespace().position(|e| e == "Ir");
                self.ir_column = Some(ir.ok_or("no Ir event")?);
            }
            "positions" => self.positions = value.split_whitespace().count().max(1),
            "fn" => {
                self.current = self.name(0, value);
                self.profile
                    .functions
                    .entry(self.current.clone())
                    .or_default();
            }
            "cfn" => self.callee = Some(self.name(0, value)),
            "calls" => self.in_call = true,
            "jump" | "jcnd" => self.skip_next = true,
            _ => {
                if let Some(table) = table_of(key) {
                    self.name(table, value);
                }
            }
        }
        Ok(())
    }

    /// Resolves a compressed name (`(id) name` defines it, `(id)` refers to it).
    fn name(&mut self, table: usize, value: &str) -> String {
        let value = value.trim();
        let Some(rest) = value.strip_prefix('(') else {
            return value.to_owned();
        };
        let Some((id, name)) = rest.split_once(')') else {
            return value.to_owned();
        };
        let name = name.trim();
        if name.is_empty() {
            self.names[table]
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("({id})"))
        } else {
            self.names[table].insert(id.to_owned(), name.to_owned());
            name.to_owned()
        }
    }

    fn cost(&mut self, line: &str) -> Result<(), String> {
        let column = self.ir_column.ok_or("a cost line before `events:`")?;
        let ir = match line.split_whitespace().nth(self.positions + column) {
            None => 0,
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| format!("`{v}` is not a cost"))?,
        };
        if std::mem::take(&mut self.in_call) {
            let callee = self.callee.take().ok_or("calls= without cfn=")?;
            *self
                .profile
                .calls
                .entry(self.current.clone())
                .or_default()
                .entry(callee)
                .or_default() += ir;
        } else {
            self.profile
                .functions
                .entry(self.current.clone())
                .or_default()
                .self_ir += ir;
        }
        Ok(())
    }
}

/// The functions that moved a count from `base` to `new`: the `n` largest changes of self
/// instructions, then the `n` largest changes of inclusive instructions not already named;
/// each with both costs in both revisions. Functions whose costs did not change are left out.
pub fn why(base: &Profile, new: &Profile, n: usize) -> Vec<FunctionDelta> {
    let names: BTreeSet<&String> = base.functions.keys().chain(new.functions.keys()).collect();
    let deltas: Vec<FunctionDelta> = names
        .into_iter()
        .map(|name| {
            let (b, w) = (
                base.functions.get(name).copied().unwrap_or_default(),
                new.functions.get(name).copied().unwrap_or_default(),
            );
            FunctionDelta {
                function: name.clone(),
                self_ir: Pair {
                    base: b.self_ir,
                    new: w.self_ir,
                },
                inclusive: Pair {
                    base: b.inclusive,
                    new: w.inclusive,
                },
            }
        })
        .filter(|d| d.self_ir.base != d.self_ir.new || d.inclusive.base != d.inclusive.new)
        .collect();
    let moved = |p: &Pair<u64>| p.new.abs_diff(p.base);
    let mut by_self = deltas.clone();
    by_self.sort_by_key(|d| std::cmp::Reverse(moved(&d.self_ir)));
    let mut out: Vec<FunctionDelta> = by_self
        .into_iter()
        .take(n)
        .filter(|d| d.self_ir.base != d.self_ir.new)
        .collect();
    // The frames that hold the whole run (the measured function and those above it) move by
    // exactly the total: they say nothing the total does not.
    let whole = |d: &FunctionDelta| {
        d.inclusive.base >= base.total().max(1) && d.inclusive.new >= new.total().max(1)
    };
    let mut by_inclusive: Vec<FunctionDelta> = deltas.into_iter().filter(|d| !whole(d)).collect();
    by_inclusive.sort_by_key(|d| std::cmp::Reverse(moved(&d.inclusive)));
    for d in by_inclusive.into_iter().take(n) {
        if !out.iter().any(|o| o.function == d.function) {
            out.push(d);
        }
    }
    out
}

/// The function the instruction-count harness measures (gungraun's wrapper of
/// `icount/benches/icount.rs`'s `case`): the root of a case's flamegraph.
pub const MEASURED: &str = "icount::case::__gungraun_wrapper_mod::case";

/// A flamegraph SVG of folded stacks (`folded` lines; with two counts per line, a differential
/// one: red where the second count is larger), drawn by inferno.
///
/// # Errors
///
/// When inferno cannot draw it (no stacks).
pub fn flamegraph(title: &str, folded: &[String]) -> Result<String, String> {
    let mut options = inferno::flamegraph::Options::default();
    title.clone_into(&mut options.title);
    "instructions".clone_into(&mut options.count_name);
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.iter().map(String::as_str), &mut svg)
        .map_err(|e| format!("flamegraph `{title}`: {e}"))?;
    String::from_utf8(svg).map_err(|e| e.to_string())
}

/// A differential flamegraph of two profiles: NEW's stacks, red where NEW spends more
/// instructions than BASE, blue where it spends fewer.
///
/// # Errors
///
/// When inferno cannot draw it.
pub fn differential_flamegraph(
    title: &str,
    root: &str,
    base: &Profile,
    new: &Profile,
) -> Result<String, String> {
    let (b, n) = (base.folded(root).join("\n"), new.folded(root).join("\n"));
    let mut both = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options::default(),
        b.as_bytes(),
        n.as_bytes(),
        &mut both,
    )
    .map_err(|e| format!("differential stacks `{title}`: {e}"))?;
    let lines: Vec<String> = String::from_utf8_lossy(&both)
        .lines()
        .map(str::to_owned)
        .collect();
    flamegraph(title, &lines)
}
