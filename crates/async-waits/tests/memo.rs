//! Replaying a recorded loop evaluation (same entry state, same waits inside the loop, same
//! pinned induction variables, decided conditions and handle frame) must not change what the
//! pass inserts or reports: on generated kernels of every GPU target, with and without
//! shared-barriers first, `run` and `run_unmemoized` print the same kernel and report the same
//! diagnostics (with their locations), hazard count and explanations. Without barriers the
//! "run shared-barriers first" warnings are compared too: a replay must make the unpublished
//! pairs its evaluation made, also those the analysis had already met. SYNCOPT_LONG=1 runs
//! more seeds and larger kernels.

mod common;

use common::generated_each;
use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_targets::Target;

fn summary(r: &PassReport) -> (Vec<String>, usize, Vec<String>) {
    let diags = r
        .diagnostics
        .iter()
        .map(|d| format!("{:?} {}", d.loc, d.message))
        .collect();
    let explain = r
        .explain
        .iter()
        .map(|e| format!("{:?} {:?}", e.stmt, e.covers))
        .collect();
    (diags, r.hazards, explain)
}

#[test]
fn replays_change_nothing() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 60 } else { 6 };
    let sizes: &[usize] = if long {
        &[300, 1500, 3000]
    } else {
        &[300, 900]
    };
    let targets = Target::GPUS;
    let mut compared = 0;
    let mut warned = 0;
    let mut bad = Vec::new();
    for (seed, ops, target, src) in generated_each(seeds, sizes, targets) {
        let Ok(file) = syncopt_ir::parse(&src) else {
            continue;
        };
        for m in file.chunks {
            for k in m.kernels {
                let opts = InsertOptions {
                    named_barriers: seed % 2 == 1,
                    ..InsertOptions::default()
                };
                let mut with_barriers = k.clone();
                if syncopt_barriers::run(&mut with_barriers, target, &opts).has_errors() {
                    continue;
                }
                // Without barriers the kernel is one segment (slow): the small size.
                let mut inputs = vec![("barriers", with_barriers)];
                if ops <= 300 {
                    inputs.push(("no barriers", k));
                }
                for (what, k) in inputs {
                    let (mut a, mut b) = (k.clone(), k);
                    let ra = syncopt_async_waits::run(&mut a, target, &opts);
                    let rb = syncopt_async_waits::run_unmemoized(&mut b, target, &opts);
                    compared += 1;
                    warned += usize::from(!rb.diagnostics.is_empty());
                    if syncopt_ir::print_kernel(&a) != syncopt_ir::print_kernel(&b)
                        || summary(&ra) != summary(&rb)
                    {
                        bad.push(format!("seed {seed}, {ops} ops, {target}, {what}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "replayed != evaluated: {}", bad.join(", "));
    assert!(compared >= 2 * seeds as usize * targets.len());
    // The comparison covers the warning path.
    assert!(warned > 0);
}
