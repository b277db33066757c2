//! Random kernels -> insert -> verify on every GPU target, monolithic and split, with and
//! without named barriers; then every inserted barrier is removed in turn and the verifier
//! must reject the result. SYNCOPT_LONG=1 runs ten times more seeds.

use syncopt_analysis::InsertOptions;
use syncopt_barriers::testing::{candidate_points, unordered};
use syncopt_gen::{generate, GenOptions};
use syncopt_ir::{parse, Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;

fn seeds() -> u64 {
    if std::env::var("SYNCOPT_LONG").is_ok_and(|v| v == "1") {
        400
    } else {
        40
    }
}

fn kernel_of(src: &str) -> Kernel {
    parse(src).expect("generated kernel parses").chunks[0].kernels[0].clone()
}

/// Whether some hazard of `k` cannot be ordered by any barrier (a race under a divergent if):
/// such kernels are not the inserter's to fix, and the verifier rightly rejects them.
fn has_unfixable(k: &Kernel, t: Target) -> bool {
    let bar = SyncOp::Barrier {
        id: 0,
        fence: true,
        threads: None,
    };
    let mut all = k.clone();
    all.insert_syncs(
        candidate_points(k, t)
            .into_iter()
            .map(|p| (p, bar.clone()))
            .collect(),
    );
    !unordered(&all, t).is_empty()
}

/// Runs the async-waits pass (it runs after us in the pipeline) on a re-parsed copy, so
/// removed statements are gone from every table.
fn finish(k: &Kernel, t: Target, opts: &InsertOptions) -> Kernel {
    let mut k = kernel_of(&syncopt_ir::print_kernel(k));
    syncopt_async_waits::run(&mut k, t, opts);
    k
}

/// The inserted barriers, as groups removed together (a split pair is one barrier).
fn barrier_groups(k: &Kernel) -> Vec<Vec<syncopt_ir::StmtId>> {
    let mut groups = Vec::new();
    for (_, b) in k.blocks.iter() {
        let mut open: Vec<(i32, syncopt_ir::StmtId)> = Vec::new();
        for &s in &b.stmts {
            let d = &k.stmts[s];
            if !d.inserted {
                continue;
            }
            match &d.kind {
                StmtKind::Sync(SyncOp::Barrier { .. }) => groups.push(vec![s]),
                StmtKind::Sync(SyncOp::Signal { id }) => open.push((*id, s)),
                StmtKind::Sync(SyncOp::Wait { id }) => {
                    if let Some(pos) = open.iter().rposition(|o| o.0 == *id) {
                        let (_, sig) = open.remove(pos);
                        groups.push(vec![sig, s]);
                    }
                }
                _ => {}
            }
        }
    }
    groups
}

#[test]
fn random_insert_verify_and_remove() {
    let mut verified = 0;
    let mut removals = 0;
    for seed in 0..seeds() {
        for &t in Target::GPUS {
            for named in [false, true] {
                if named && !matches!(t, Target::Gfx1250 | Target::Sm90) {
                    continue;
                }
                let ops = 3 + (seed % 12) as usize;
                let src = generate(&GenOptions {
                    ops,
                    seed,
                    target: t,
                    executable: false,
                });
                let k = kernel_of(&src);
                if has_unfixable(&k, t) {
                    continue;
                }
                let opts = InsertOptions {
                    named_barriers: named,
                    ..InsertOptions::default()
                };
                let mut ours = k.clone();
                let rep = syncopt_barriers::run(&mut ours, t, &opts);
                assert!(
                    !rep.has_errors(),
                    "{t:?} seed {seed}: {:?}",
                    rep.diagnostics
                );
                let vr = syncopt_verify::verify(&finish(&ours, t, &opts), t);
                assert!(
                    vr.is_ok(),
                    "{t:?} named={named} seed {seed}: verifier rejects\n{}\n{:#?}",
                    syncopt_ir::print_kernel(&ours),
                    vr.diagnostics
                );
                verified += 1;
                for g in barrier_groups(&ours) {
                    let mut less = ours.clone();
                    for s in &g {
                        less.remove_stmt(*s);
                    }
                    let vr = syncopt_verify::verify(&finish(&less, t, &opts), t);
                    assert!(
                        !vr.is_ok(),
                        "{t:?} named={named} seed {seed}: still verifies without {g:?}\n{}",
                        syncopt_ir::print_kernel(&less)
                    );
                    removals += 1;
                }
            }
        }
    }
    eprintln!("{verified} outputs verified, {removals} removals rejected");
    assert!(verified > 100 && removals > 50);
}
