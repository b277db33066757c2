//! Helpers shared by the barrier pass's integration tests (verify.rs, minimal.rs).
#![allow(dead_code)]

use syncopt_analysis::InsertOptions;
use syncopt_barriers::testing::{candidate_points, unordered};
use syncopt_ir::{parse, Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;

pub fn kernel_of(src: &str) -> Kernel {
    parse(src).expect("kernel parses").chunks[0].kernels[0].clone()
}

/// Whether some hazard of `k` cannot be ordered by any barrier (a race under a divergent if):
/// such kernels are not the inserter's to fix, and the verifier rightly rejects them.
pub fn has_unfixable(k: &Kernel, t: Target) -> bool {
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

/// `syncopt gen` kernel of `seed` for `t`, unless some hazard of it is not the inserter's to
/// fix (`has_unfixable`): the campaigns skip those.
pub fn fixable_generated(seed: u64, t: Target, ops: usize, executable: bool) -> Option<Kernel> {
    let k = kernel_of(&syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops,
        seed,
        target: t,
        executable,
    }));
    (!has_unfixable(&k, t)).then_some(k)
}

/// `src` with the barrier pass's barriers, printed (default options).
pub fn inserted(src: &str, t: Target) -> String {
    let mut k = kernel_of(src);
    syncopt_barriers::run(&mut k, t, &InsertOptions::default());
    syncopt_ir::print_kernel(&k)
}

/// Runs the async-waits pass (it runs after us in the pipeline) on a re-parsed copy, so
/// removed statements are gone from every table.
pub fn finish(k: &Kernel, t: Target, opts: &InsertOptions) -> Kernel {
    let mut k = kernel_of(&syncopt_ir::print_kernel(k));
    syncopt_async_waits::run(&mut k, t, opts);
    k
}

/// The inserted barriers, as groups removed together (a split pair is one barrier).
pub fn barrier_groups(k: &Kernel) -> Vec<Vec<syncopt_ir::StmtId>> {
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
