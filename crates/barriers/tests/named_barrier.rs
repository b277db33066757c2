//! A fencing named barrier over the whole workgroup (`barrier id 1 threads 128` with 4 warps,
//! or `barrier id 1` with no count) orders like `barrier`: the pass counts it as coverage and
//! inserts nothing after it. One over fewer threads orders only its participants: the pass
//! still inserts its own barrier there. Every output verifies.

mod common;
use common::*;

use syncopt_analysis::InsertOptions;
use syncopt_ir::{Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;

/// The hand-synchronized kernel of crates/emit/tests/data/split_barrier_sm_90.sk, with the
/// named barrier's clause `named` (e.g. `id 1 threads 128`) and `waves` warps.
fn split_kernel(named: &str, waves: &str) -> String {
    format!(
        "target sm_90

kernel @split(%n = 3){waves} {{
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  for %i = 0 to %n {{
    op \"st\" write %A[tid + 32 * %i]
    barrier.signal -1
    op \"other\" write %B[tid]
    barrier.wait -1
    op \"ld\" read %A[127 - tid]
    barrier {named}
    op \"ld_b\" read %B[127 - tid]
    barrier
  }}
}}
"
    )
}

fn inserted(k: &Kernel) -> Vec<SyncOp> {
    k.stmts
        .iter()
        .filter(|(_, d)| d.inserted)
        .filter_map(|(_, d)| match &d.kind {
            StmtKind::Sync(op) => Some(op.clone()),
            _ => None,
        })
        .collect()
}

/// Inserts with and without named barriers; asserts each output verifies; returns the
/// inserted syncs of each run.
fn insert_both(src: &str) -> Vec<(bool, Vec<SyncOp>, String)> {
    let t = Target::Sm90;
    let k = kernel_of(src);
    let mut out = Vec::new();
    for named in [false, true] {
        let opts = InsertOptions {
            named_barriers: named,
            ..InsertOptions::default()
        };
        let mut ours = k.clone();
        let rep = syncopt_barriers::run(&mut ours, t, &opts);
        assert!(!rep.has_errors(), "named={named}: {:?}", rep.diagnostics);
        let text = syncopt_ir::print_kernel(&ours);
        let vr = syncopt_verify::verify(&finish(&ours, t, &opts), t);
        assert!(
            vr.is_ok(),
            "named={named}: verifier rejects\n{text}\n{:#?}",
            vr.diagnostics
        );
        out.push((named, inserted(&ours), text));
    }
    out
}

#[test]
fn full_named_barrier_is_coverage() {
    for (clause, waves) in [
        ("id 1 threads 128", " waves 4"),
        ("id 1", " waves 4"),
        ("id 2 threads 256", " waves 8"),
    ] {
        let src = split_kernel(clause, waves);
        // The input as written is race-free.
        let t = Target::Sm90;
        let vr = syncopt_verify::verify(&kernel_of(&src), t);
        assert!(vr.is_ok(), "{clause}: {:#?}", vr.diagnostics);
        for (named, ins, text) in insert_both(&src) {
            assert!(
                ins.is_empty(),
                "{clause}{waves} named={named}: inserted {ins:?}\n{text}"
            );
        }
    }
}

#[test]
fn full_named_barrier_with_default_waves() {
    // Without `waves`, the workgroup is the target's default wave count x 32.
    let info = Target::Sm90.info();
    let threads = info.default_waves as u64 * info.wave_size as u64;
    let src = split_kernel(&format!("id 1 threads {threads}"), "");
    for (named, ins, text) in insert_both(&src) {
        assert!(ins.is_empty(), "named={named}: inserted {ins:?}\n{text}");
    }
}

#[test]
fn partial_named_barrier_is_not_coverage() {
    for (clause, waves) in [
        ("id 1 threads 64", " waves 4"),
        ("id 1 threads 128", " waves 8"),
    ] {
        let src = split_kernel(clause, waves);
        // Without a barrier of ours the kernel races (`other` vs `ld_b` across warps).
        let vr = syncopt_verify::verify(&kernel_of(&src), Target::Sm90);
        assert!(!vr.is_ok(), "{clause}{waves}: the input should race");
        for (named, ins, text) in insert_both(&src) {
            assert!(
                !ins.is_empty(),
                "{clause}{waves} named={named}: nothing inserted\n{text}"
            );
            // Ours goes between the partial named barrier and `ld_b`.
            let after = text
                .split(&format!("barrier {clause}"))
                .nth(1)
                .unwrap_or("");
            let before_ld_b = after.split("op \"ld_b\"").next().unwrap_or("");
            assert!(
                before_ld_b.contains("barrier"),
                "{clause}{waves} named={named}: no barrier before ld_b\n{text}"
            );
        }
    }
}

#[test]
fn execution_only_named_barrier_is_not_coverage() {
    // A named barrier without the LDS fence (`barrier exec id 1 threads 128`) does not order
    // the accesses for the pass: it keeps inserting its own.
    let k = kernel_of(&split_kernel("exec id 1 threads 128", " waves 4"));
    let mut ours = k.clone();
    let rep = syncopt_barriers::run(&mut ours, Target::Sm90, &InsertOptions::default());
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    assert!(!inserted(&ours).is_empty());
}
