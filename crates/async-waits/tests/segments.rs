//! Cutting the kernel's top level into segments at its barriers (how the pass stays linear)
//! must not change what it inserts: on generated kernels, `run` and `run_unsegmented` (the
//! whole top level settled at once) print the same kernel and report the same diagnostics.
//! SYNCOPT_LONG=1 runs more seeds and larger kernels.

mod common;

use common::generated;
use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

/// Runs shared-barriers, then `run` and `other` on copies of each generated kernel (named
/// barriers on every other seed when `named`), and lists the kernels where the two differ in
/// the printed kernel, the diagnostics, the hazard count or the `--explain` lists.
fn differences(
    seeds: u64,
    sizes: &[usize],
    targets: &[Target],
    named: bool,
    other: fn(&mut syncopt_ir::Kernel, Target, &InsertOptions) -> syncopt_analysis::PassReport,
) -> (usize, Vec<String>) {
    let mut compared = 0;
    let mut bad = Vec::new();
    for (seed, ops, target, src) in generated(seeds, sizes, targets) {
        let Ok(file) = syncopt_ir::parse(&src) else {
            continue;
        };
        for m in file.chunks {
            for mut k in m.kernels {
                let opts = InsertOptions {
                    // Named barriers on every other kernel: several ids, no cuts at all.
                    named_barriers: named && seed % 2 == 1,
                    ..InsertOptions::default()
                };
                if syncopt_barriers::run(&mut k, target, &opts).has_errors() {
                    continue;
                }
                let mut a = k.clone();
                let ra = syncopt_async_waits::run(&mut a, target, &opts);
                let rb = other(&mut k, target, &opts);
                let (pa, pb) = (syncopt_ir::print_kernel(&a), syncopt_ir::print_kernel(&k));
                let msgs = |r: &syncopt_analysis::PassReport| -> Vec<String> {
                    r.diagnostics.iter().map(|d| d.message.clone()).collect()
                };
                let why = |r: &syncopt_analysis::PassReport| -> Vec<_> {
                    r.explain
                        .iter()
                        .map(|e| (e.stmt, e.covers.clone()))
                        .collect()
                };
                compared += 1;
                if pa != pb
                    || msgs(&ra) != msgs(&rb)
                    || ra.hazards != rb.hazards
                    || why(&ra) != why(&rb)
                {
                    bad.push(format!("seed {seed}, {ops} ops, {target}"));
                }
            }
        }
    }
    (compared, bad)
}

#[test]
fn segments_change_nothing() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 120 } else { 10 };
    let sizes: &[usize] = if long {
        &[200, 1000, 3000]
    } else {
        &[200, 800]
    };
    let (compared, bad) = differences(
        seeds,
        sizes,
        Target::GPUS,
        true,
        syncopt_async_waits::run_unsegmented,
    );
    assert!(
        bad.is_empty(),
        "segmented != unsegmented: {}",
        bad.join(", ")
    );
    assert!(compared >= seeds as usize);
}

/// Settling the later segments on a second thread (large kernels) must not change what the
/// pass inserts either: forced at any size, it prints the same kernel with the same
/// diagnostics, hazard count and `--explain` lists as one thread.
#[test]
fn second_thread_changes_nothing() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 120 } else { 8 };
    let sizes: &[usize] = if long {
        &[300, 2000, 6000]
    } else {
        &[300, 1500]
    };
    let targets = [Target::Gfx950, Target::Gfx1250, Target::Sm90];
    let two = |k: &mut syncopt_ir::Kernel, t: Target, o: &InsertOptions| {
        syncopt_async_waits::run_lanes(k, t, o, true)
    };
    let (compared, bad) = differences(seeds, sizes, &targets, false, two);
    assert!(bad.is_empty(), "two threads != one: {}", bad.join(", "));
    assert!(compared >= seeds as usize);
}
