//! Every example kernel, through the whole pipeline: the output of `insert` verifies, a second
//! `insert` changes nothing, and removing any one inserted sync op that orders something makes
//! the verifier reject the kernel (each inserted op is needed).

use std::path::Path;

use syncopt_ir::{Kernel, StmtKind, SyncOp};
use syncopt_passes::InsertOptions;
use syncopt_targets::Target;

fn examples() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sk"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).expect("read"),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() >= 6, "the examples have shrunk");
    out
}

/// Sync ops that order nothing at run time (scheduling walls, priorities) are not "needed";
/// nor are the execution-only barriers at warp-pipeline stage boundaries, which keep the two
/// wave groups in step for speed: a boundary that guards a hazard gets a fencing `barrier`.
fn orders_something(op: &SyncOp) -> bool {
    !matches!(
        op,
        SyncOp::SchedBarrier { .. } | SyncOp::SetPrio { .. } | SyncOp::Barrier { fence: false, .. }
    )
}

fn inserted_kernels() -> Vec<(String, Kernel, Target)> {
    let mut out = Vec::new();
    for (name, src) in examples() {
        let file = syncopt_ir::parse(&src).unwrap_or_else(|d| panic!("{name}: {}", d.message));
        for m in &file.chunks {
            let t = Target::from_name(m.target.as_deref().expect("examples name their target"))
                .expect("target");
            for k in &m.kernels {
                let mut k = k.clone();
                let rep = syncopt_passes::insert(&mut k, t, &InsertOptions::default());
                assert!(
                    !rep.has_errors(),
                    "{name}: insert failed: {:?}",
                    rep.diagnostics
                );
                out.push((name.clone(), k, t));
            }
        }
    }
    out
}

#[test]
fn every_example_verifies_after_insert_and_is_a_fixed_point() {
    for (name, k, t) in inserted_kernels() {
        let r = syncopt_verify::verify(&k, t);
        assert!(
            r.is_ok(),
            "{name}: {:?}",
            r.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        assert!(
            !k.inserted_syncs().is_empty(),
            "{name}: nothing inserted: the example needs sync"
        );
        let printed = syncopt_ir::print_kernel(&k);
        let mut again = syncopt_ir::parse(&format!("target {t}\n\n{printed}"))
            .expect("reparse")
            .chunks
            .remove(0)
            .kernels
            .remove(0);
        syncopt_passes::insert(&mut again, t, &InsertOptions::default());
        assert_eq!(
            syncopt_ir::print_kernel(&again),
            printed,
            "{name}: a second insert changed the kernel"
        );
    }
}

#[test]
fn removing_any_inserted_sync_op_breaks_verification() {
    for (name, k, t) in inserted_kernels() {
        for s in k.inserted_syncs() {
            let StmtKind::Sync(op) = &k.stmts[s].kind else {
                continue;
            };
            if !orders_something(op) {
                continue;
            }
            let mut cut = k.clone();
            assert!(cut.remove_stmt(s));
            let r = syncopt_verify::verify(&cut, t);
            assert!(
                !r.is_ok(),
                "{name}: removing inserted '{}' still verifies:\n{}",
                syncopt_ir::printer::sync_op_string(&k, op),
                syncopt_ir::print_kernel(&k)
            );
        }
    }
}

#[test]
fn every_inserted_counter_wait_is_the_largest_that_verifies() {
    let mut checked = 0;
    for (name, k, t) in inserted_kernels() {
        for s in k.inserted_syncs() {
            let raised = match &k.stmts[s].kind {
                StmtKind::Sync(SyncOp::CounterWait { counter, n }) => {
                    if t.counter_max(*counter).is_some_and(|m| *n >= m) {
                        continue;
                    }
                    SyncOp::CounterWait {
                        counter: *counter,
                        n: n + 1,
                    }
                }
                StmtKind::Sync(SyncOp::CpAsyncWait { n }) => SyncOp::CpAsyncWait { n: n + 1 },
                _ => continue,
            };
            let mut up = k.clone();
            up.stmts[s].kind = StmtKind::Sync(raised.clone());
            checked += 1;
            assert!(
                !syncopt_verify::verify(&up, t).is_ok(),
                "{name}: '{}' still verifies: the inserted wait is not the largest sound one",
                syncopt_ir::printer::sync_op_string(&k, &raised)
            );
        }
    }
    assert!(
        checked >= 3,
        "the async examples should get counter waits ({checked} checked)"
    );
}
