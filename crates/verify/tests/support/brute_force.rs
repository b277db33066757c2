//! Brute-force synchronization of generated kernels, shared by the tests and the benchmark
//! of the workgroup verifier: a barrier (or signal/wait pair) after every statement outside
//! divergent ifs, and a `wait C(0)` (or cp.async commit + wait) after every async op.

use syncopt_ir::{BlockId, Counter, Kernel, ProgramPoint, StmtKind, SyncOp, Uniformity};
use syncopt_targets::{BarrierStyle, Target};

/// Inserts the brute-force synchronization. Barriers never go inside divergent ifs (that
/// would hang); counter waits go everywhere.
pub fn brute_force(k: &mut Kernel, t: Target) {
    let mut items = Vec::new();
    let split = t.info().barrier == BarrierStyle::Split;
    collect(k, t, k.body, false, split, &mut items);
    k.insert_syncs(items);
}

fn collect(
    k: &Kernel,
    t: Target,
    b: BlockId,
    divergent: bool,
    split: bool,
    items: &mut Vec<(ProgramPoint, SyncOp)>,
) {
    for (i, &s) in k.blocks[b].stmts.iter().enumerate() {
        let point = ProgramPoint {
            block: b,
            index: i + 1,
        };
        match &k.stmts[s].kind {
            StmtKind::Op(od) => {
                if let Some(spec) = od.asynchronous {
                    match t.async_counter(spec, &od.name) {
                        Some(Counter::CpAsync) => {
                            items.push((point, SyncOp::CpAsyncCommit));
                            items.push((point, SyncOp::CpAsyncWait { n: 0 }));
                        }
                        Some(c) => items.push((point, SyncOp::CounterWait { counter: c, n: 0 })),
                        None => {}
                    }
                }
            }
            StmtKind::For(f) => collect(k, t, f.body, divergent, split, items),
            StmtKind::If(i) => {
                let d = divergent || i.uniformity == Uniformity::Divergent;
                collect(k, t, i.then_block, d, split, items);
                if let Some(e) = i.else_block {
                    collect(k, t, e, d, split, items);
                }
            }
            _ => {}
        }
        if !divergent {
            if split {
                items.push((point, SyncOp::Signal { id: -1 }));
                items.push((point, SyncOp::Wait { id: -1 }));
            } else {
                items.push((
                    point,
                    SyncOp::Barrier {
                        id: 0,
                        fence: true,
                        threads: None,
                    },
                ));
            }
        }
    }
}

/// Makes every if uniform, so the brute force reaches inside every branch.
pub fn uniform_ifs(k: &mut Kernel) {
    let ids: Vec<_> = k.stmts.keys().collect();
    for s in ids {
        if let StmtKind::If(i) = &mut k.stmts[s].kind {
            i.uniformity = Uniformity::Uniform;
        }
    }
}
