//! Helpers shared by the tests: run the pass on text, print the result.
#![allow(dead_code)]

pub mod oracle;

use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_ir::Kernel;
use syncopt_targets::Target;

/// Parses one kernel in the text format, with its target.
pub fn parse_one(src: &str) -> (Kernel, Target) {
    let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("parse: {}", d.render("t", src)));
    let m = file.chunks.into_iter().next().expect("one chunk");
    let t = Target::from_name(m.target.as_deref().expect("target line")).expect("target");
    let k = m.kernels.into_iter().next().expect("one kernel");
    (k, t)
}

/// Runs the pass; returns the printed kernel and the report.
pub fn run(src: &str) -> (String, PassReport) {
    let (mut k, t) = parse_one(src);
    let r = syncopt_async_waits::run(&mut k, t, &InsertOptions::default());
    (syncopt_ir::print_kernel(&k), r)
}

/// The statement lines of a printed kernel, without declarations, trimmed.
pub fn body(printed: &str) -> Vec<String> {
    printed
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| {
            !(l.is_empty()
                || l.starts_with("kernel")
                || l.contains("= buffer")
                || (l.contains("= view") && !l.contains("slot")))
        })
        .collect()
}

/// Asserts the pass turns `src` into exactly `expected` (statement lines), runs clean of
/// warnings, and adds nothing on a second run.
pub fn check(src: &str, expected: &[&str]) {
    let (out, r) = run(src);
    let got = body(&out);
    let want: Vec<String> = expected.iter().map(|s| s.trim().to_string()).collect();
    assert_eq!(got, want, "\nfull output:\n{out}");
    assert!(
        r.diagnostics.is_empty(),
        "unexpected diagnostics: {:?}",
        r.diagnostics
    );
    verify_sound_and_maximal(src);
    let target_line = src.lines().find(|l| l.starts_with("target")).unwrap();
    let (again, r2) = run(&format!("{target_line}\n\n{out}"));
    assert_eq!(again, out, "not idempotent");
    assert!(r2.diagnostics.is_empty());
}

/// The crate's verifier (crates/verify) accepts the pass's output, and rejects it once any
/// inserted wait's N is raised by one (N is the largest sound value).
pub fn verify_sound_and_maximal(src: &str) {
    use syncopt_ir::{StmtKind, SyncOp};
    let (mut k, t) = parse_one(src);
    syncopt_async_waits::run(&mut k, t, &InsertOptions::default());
    let printed = syncopt_ir::print_kernel(&k);
    let r = syncopt_verify::verify(&k, t);
    assert!(
        r.is_ok(),
        "verifier rejects the output:\n{printed}\n{:?}",
        r.diagnostics
    );
    for s in k.inserted_syncs() {
        let mut k2 = k.clone();
        let raised = match &mut k2.stmts[s].kind {
            StmtKind::Sync(SyncOp::CounterWait { counter, n }) => {
                let ok = *n < t.counter_max(*counter).unwrap_or(0);
                *n += 1;
                ok
            }
            StmtKind::Sync(SyncOp::CpAsyncWait { n }) => {
                let ok = *n < t.counter_max(syncopt_ir::Counter::CpAsync).unwrap_or(0);
                *n += 1;
                ok
            }
            _ => false,
        };
        if raised {
            assert!(
                !syncopt_verify::verify(&k2, t).is_ok(),
                "raising {:?} by one still verifies:\n{printed}",
                k.stmts[s].kind
            );
        }
    }
}

/// Generated kernels for the campaigns: for each seed and size, one kernel whose target
/// rotates through `targets` (by seed + size), as (seed, ops, target, text).
pub fn generated(
    seeds: u64,
    sizes: &[usize],
    targets: &[Target],
) -> Vec<(u64, usize, Target, String)> {
    let mut out = Vec::new();
    for seed in 0..seeds {
        for &ops in sizes {
            let target = targets[(seed as usize + ops) % targets.len()];
            out.push((seed, ops, target, plain(seed, ops, target)));
        }
    }
    out
}

/// Generated kernels for every target of `targets` at each seed and size (the campaigns that
/// compare two runs of the pass on the same kernel), as (seed, ops, target, text).
pub fn generated_each(
    seeds: u64,
    sizes: &[usize],
    targets: &[Target],
) -> Vec<(u64, usize, Target, String)> {
    let mut out = Vec::new();
    for seed in 0..seeds {
        for &ops in sizes {
            for &target in targets {
                out.push((seed, ops, target, plain(seed, ops, target)));
            }
        }
    }
    out
}

/// `syncopt gen --ops OPS --seed SEED --target TARGET` (not executable).
fn plain(seed: u64, ops: usize, target: Target) -> String {
    syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops,
        seed,
        target,
        executable: false,
    })
}
