//! File-based tests: every `tests/**/*.sk` file at the repository root carries its commands
//! and expectations in comments (format in tests/README.md):
//!
//! ```text
//! // RUN: syncopt insert %s | syncopt verify -
//! // CHECK: barrier
//! // CHECK-NEXT: op "ds_read" read %A
//! // CHECK-NOT: wait
//! // CHECK-ERR: error: race
//! // EXIT: 1
//! ```
//!
//! `SYNCOPT_FILETEST=substring` runs only the files whose path contains it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "sk") {
            out.push(p);
        }
    }
}

#[derive(Debug, PartialEq)]
enum Check {
    /// Matches a later output line than the previous match.
    Later(String),
    /// Matches the line right after the previous match.
    Next(String),
    /// Absent between the previous and the next positive match.
    Not(String),
}

#[derive(Debug, Default)]
struct Spec {
    runs: Vec<String>,
    checks: Vec<Check>,
    err_checks: Vec<Check>,
    exit: i32,
}

/// A line that states a directive (the output of `fmt` and `insert` keeps comments, so these
/// lines come back in stdout and must not match themselves).
fn is_directive(line: &str) -> bool {
    let t = line.trim_start();
    ["// RUN:", "// CHECK", "// EXIT:"]
        .iter()
        .any(|p| t.starts_with(p))
}

fn parse_spec(text: &str) -> Result<Spec, String> {
    let mut spec = Spec::default();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("// ") else {
            continue;
        };
        let (key, val) = match rest.split_once(':') {
            Some((k, v)) => (k, v.trim().to_string()),
            None => continue,
        };
        if key.starts_with("CHECK") && val.is_empty() {
            return Err(format!("line {}: empty {key}", i + 1));
        }
        match key {
            "RUN" => spec.runs.push(val),
            "CHECK" => spec.checks.push(Check::Later(val)),
            "CHECK-NEXT" => spec.checks.push(Check::Next(val)),
            "CHECK-NOT" => spec.checks.push(Check::Not(val)),
            "CHECK-ERR" => spec.err_checks.push(Check::Later(val)),
            "CHECK-ERR-NOT" => spec.err_checks.push(Check::Not(val)),
            "EXIT" => {
                spec.exit = val
                    .parse()
                    .map_err(|_| format!("line {}: EXIT wants an integer", i + 1))?
            }
            k if k.starts_with("CHECK") => {
                return Err(format!("line {}: unknown directive '{k}'", i + 1))
            }
            _ => {}
        }
    }
    if spec.runs.is_empty() {
        return Err("no '// RUN:' line".into());
    }
    Ok(spec)
}

/// Splits a command on whitespace, keeping "double quoted" words whole.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Runs one RUN line (a `|` pipeline of syncopt commands); returns stdout, stderr, exit code.
fn run_line(line: &str, file: &Path) -> Result<(String, String, i32), String> {
    let path = file.to_string_lossy();
    let mut input: Option<Vec<u8>> = None;
    let mut all_err = String::new();
    let stages: Vec<&str> = line.split('|').collect();
    for (i, stage) in stages.iter().enumerate() {
        let w = words(&stage.replace("%s", &path));
        if w.first().map(String::as_str) != Some("syncopt") {
            return Err(format!(
                "RUN stage '{}' does not start with 'syncopt'",
                stage.trim()
            ));
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_syncopt"))
            .args(&w[1..])
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run syncopt: {e}"))?;
        let mut stdin = child.stdin.take().expect("piped");
        let data = input.take().unwrap_or_default();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        });
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let _ = writer.join();
        all_err.push_str(&String::from_utf8_lossy(&out.stderr));
        let code = out.status.code().unwrap_or(-1);
        if i + 1 == stages.len() {
            return Ok((
                String::from_utf8_lossy(&out.stdout).into_owned(),
                all_err,
                code,
            ));
        }
        if code != 0 {
            return Err(format!(
                "pipeline stage '{}' exited {code}:\n{all_err}",
                stage.trim()
            ));
        }
        input = Some(out.stdout);
    }
    unreachable!("a RUN line has at least one stage")
}

/// FileCheck-style matching of `checks` against `output`.
fn match_checks(checks: &[Check], output: &str, what: &str) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().filter(|l| !is_directive(l)).collect();
    let mut pos = 0usize; // first line a CHECK may match
    let mut last: Option<usize> = None; // line of the previous positive match
    let mut nots: Vec<&str> = Vec::new();
    let check_nots = |nots: &mut Vec<&str>, from: usize, to: usize| -> Result<(), String> {
        for n in nots.drain(..) {
            if let Some(l) = lines[from..to].iter().find(|l| l.contains(n)) {
                return Err(format!("{what}: CHECK-NOT '{n}' found: {l}"));
            }
        }
        Ok(())
    };
    for c in checks {
        match c {
            Check::Not(t) => nots.push(t),
            Check::Later(t) => {
                let Some(off) = lines[pos..].iter().position(|l| l.contains(t.as_str())) else {
                    return Err(format!("{what}: CHECK '{t}' not found after line {pos}"));
                };
                check_nots(&mut nots, pos, pos + off)?;
                last = Some(pos + off);
                pos += off + 1;
            }
            Check::Next(t) => {
                let Some(prev) = last else {
                    return Err(format!(
                        "{what}: CHECK-NEXT '{t}' without a CHECK before it"
                    ));
                };
                match lines.get(prev + 1) {
                    Some(l) if l.contains(t.as_str()) => {
                        check_nots(&mut nots, pos, prev + 1)?;
                        last = Some(prev + 1);
                        pos = prev + 2;
                    }
                    other => {
                        return Err(format!(
                            "{what}: CHECK-NEXT '{t}' does not match the next line {other:?}"
                        ))
                    }
                }
            }
        }
    }
    check_nots(&mut nots, pos.min(lines.len()), lines.len())
}

fn run_file(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let spec = parse_spec(&text)?;
    let (mut out, mut err) = (String::new(), String::new());
    for run in &spec.runs {
        let (o, e, code) = run_line(run, file)?;
        if code != spec.exit {
            return Err(format!(
                "'{run}' exited {code}, expected {}\n--- stdout\n{o}--- stderr\n{e}",
                spec.exit
            ));
        }
        out.push_str(&o);
        err.push_str(&e);
    }
    match_checks(&spec.checks, &out, "stdout")
        .and_then(|_| match_checks(&spec.err_checks, &err, "stderr"))
        .map_err(|m| format!("{m}\n--- stdout\n{out}--- stderr\n{err}"))
}

#[test]
fn file_tests() {
    let mut files = Vec::new();
    collect(&root().join("tests"), &mut files);
    assert!(!files.is_empty(), "no tests/**/*.sk files");
    let filter = std::env::var("SYNCOPT_FILETEST").unwrap_or_default();
    let mut failures = Vec::new();
    let mut ran = 0;
    for f in files
        .iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
    {
        ran += 1;
        if let Err(e) = run_file(f) {
            failures.push(format!("FAIL {}\n{e}", f.display()));
        }
    }
    assert!(ran > 0, "no file matches SYNCOPT_FILETEST={filter}");
    eprintln!("{ran} file tests, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {ran} file tests failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// The harness itself.

#[test]
fn matcher_semantics() {
    let out = "a\nb\nc\nd\n// CHECK: zzz\n";
    let c = |s: &str| Check::Later(s.into());
    let n = |s: &str| Check::Next(s.into());
    let not = |s: &str| Check::Not(s.into());
    assert!(match_checks(&[c("a"), c("c")], out, "o").is_ok());
    assert!(
        match_checks(&[c("c"), c("a")], out, "o").is_err(),
        "order matters"
    );
    assert!(match_checks(&[c("a"), n("b"), n("c")], out, "o").is_ok());
    assert!(match_checks(&[c("a"), n("c")], out, "o").is_err());
    assert!(match_checks(&[c("a"), not("b"), c("c")], out, "o").is_err());
    assert!(
        match_checks(&[c("b"), not("a"), c("d")], out, "o").is_ok(),
        "not is scoped"
    );
    assert!(
        match_checks(&[c("c"), not("d")], out, "o").is_err(),
        "trailing not runs to the end"
    );
    assert!(
        match_checks(&[c("zzz")], out, "o").is_err(),
        "directive lines never match"
    );
    assert!(match_checks(&[n("a")], out, "o").is_err());
}

#[test]
fn spec_parsing() {
    let s = parse_spec("// RUN: syncopt fmt %s\n// RUN: syncopt check %s\n// CHECK: x\n// CHECK-ERR: y\n// EXIT: 1\n").unwrap();
    assert_eq!(s.runs.len(), 2);
    assert_eq!(s.checks, vec![Check::Later("x".into())]);
    assert_eq!(s.err_checks, vec![Check::Later("y".into())]);
    assert_eq!(s.exit, 1);
    assert!(parse_spec("// CHECK: x\n").is_err(), "RUN is required");
    assert!(parse_spec("// RUN: syncopt fmt %s\n// CHECK-NXT: x\n").is_err());
    assert!(parse_spec("// RUN: syncopt fmt %s\n// EXIT: one\n").is_err());
    assert_eq!(
        words("syncopt insert --pass \"a b\" %s"),
        ["syncopt", "insert", "--pass", "a b", "%s"]
    );
}
