//! Cutting the kernel's top level into segments at its barriers (how the pass stays linear)
//! must not change what it inserts: on generated kernels, `run` and `run_unsegmented` (the
//! whole top level settled at once) print the same kernel and report the same diagnostics.
//! SYNCOPT_LONG=1 runs more seeds and larger kernels.

mod common;

use common::generated;
use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_targets::Target;

/// Whether two runs of the pass printed the same kernel with the same diagnostics, hazard
/// count and `--explain` lists.
fn same_output(
    (a, ra): (&syncopt_ir::Kernel, &PassReport),
    (b, rb): (&syncopt_ir::Kernel, &PassReport),
) -> bool {
    let msgs = |r: &PassReport| -> Vec<String> {
        r.diagnostics.iter().map(|d| d.message.clone()).collect()
    };
    let why = |r: &PassReport| -> Vec<_> {
        r.explain
            .iter()
            .map(|e| (e.stmt, e.covers.clone()))
            .collect()
    };
    syncopt_ir::print_kernel(a) == syncopt_ir::print_kernel(b)
        && msgs(ra) == msgs(rb)
        && ra.hazards == rb.hazards
        && why(ra) == why(rb)
}

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
                compared += 1;
                if !same_output((&a, &ra), (&k, &rb)) {
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

/// The pipeline hands async-waits the accesses shared-barriers collected before inserting
/// its barriers (`syncopt_barriers::run_keeping`, `run_with_accesses`): they must be the
/// accesses of the kernel with the barriers in it, and the pass must print the same kernel
/// with the same diagnostics, hazard count and `--explain` lists as when it collects them.
#[test]
fn barrier_pass_accesses_serve_async_waits() {
    use syncopt_analysis::hazard::Accesses;
    use syncopt_ir::EntityRef;
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 60 } else { 6 };
    let mut compared = 0;
    for (seed, ops, target, src) in common::generated(seeds, &[300, 1500], Target::GPUS) {
        let Ok(file) = syncopt_ir::parse(&src) else {
            continue;
        };
        let mut k = file.chunks[0].kernels[0].clone();
        let opts = InsertOptions {
            named_barriers: seed % 2 == 1,
            ..InsertOptions::default()
        };
        let (r, kept) = syncopt_barriers::run_keeping(&mut k, target, &opts, true);
        if r.has_errors() {
            continue;
        }
        let kept = kept.expect("kept accesses");
        let what = format!("seed {seed}, {ops} ops, {target}");
        let threads = u64::from(target.waves(&k)) * u64::from(target.info().wave_size);
        let fresh = Accesses::collect_with_threads(&k, Some(threads));
        assert_eq!(kept.descs, fresh.descs, "{what}");
        assert_eq!(kept.accesses, fresh.accesses, "{what}");
        for (s, _) in k.stmts.iter() {
            let ids = |acc: &Accesses| acc.by_stmt.get(s.index()).unwrap_or(&[]).to_vec();
            assert_eq!(ids(&kept), ids(&fresh), "{what}: {s:?}");
        }
        let mut a = k.clone();
        let ra = syncopt_async_waits::run(&mut a, target, &opts);
        let rb = syncopt_async_waits::run_with_accesses(&mut k, target, &opts, kept);
        assert!(same_output((&a, &ra), (&k, &rb)), "{what}");
        compared += 1;
    }
    assert!(compared >= seeds as usize, "{compared}");
}
