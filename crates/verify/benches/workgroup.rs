//! Workgroup verifier on large generated kernels: `cargo bench -p syncopt-verify --bench
//! workgroup` (optionally `-- OPS`). Each kernel comes from `syncopt_gen::generate`, its ifs
//! made uniform, then synchronized by brute force: a barrier (or signal/wait pair) after every
//! statement and a `wait C(0)` after every async op, so the verifier walks the whole program
//! and proves it. Prints one line per target; the best of three runs.

use std::time::Instant;

use syncopt_gen::{generate, GenOptions};
use syncopt_ir::{BlockId, Counter, Kernel, ProgramPoint, StmtKind, SyncOp, Uniformity};
use syncopt_targets::{BarrierStyle, Target};

fn brute_force(k: &mut Kernel, t: Target) {
    let ids: Vec<_> = k.stmts.keys().collect();
    for s in ids {
        if let StmtKind::If(i) = &mut k.stmts[s].kind {
            i.uniformity = Uniformity::Uniform;
        }
    }
    let mut items = Vec::new();
    let split = t.info().barrier == BarrierStyle::Split;
    collect(k, t, k.body, split, &mut items);
    k.insert_syncs(items);
}

fn collect(
    k: &Kernel,
    t: Target,
    b: BlockId,
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
            _ => {
                for c in k.stmts[s].kind.child_blocks() {
                    collect(k, t, c, split, items);
                }
            }
        }
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

fn main() {
    let ops: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    println!("workgroup verifier, {ops}-op generated kernels, barrier after every statement");
    for &t in Target::GPUS {
        let text = generate(&GenOptions {
            ops,
            seed: 1,
            target: t,
            executable: false,
        });
        let file = syncopt_ir::parse(&text).expect("gen output parses");
        let mut k = file.chunks[0].kernels[0].clone();
        brute_force(&mut k, t);
        let stmts = k.stmt_count();
        let mut best = f64::MAX;
        let mut rep = None;
        for _ in 0..3 {
            let t0 = Instant::now();
            let r = syncopt_verify::verify(&k, t);
            best = best.min(t0.elapsed().as_secs_f64());
            rep = Some(r);
        }
        let r = rep.expect("ran");
        println!(
            "{:8} statements {:7}  verify {:7.3} s  states {:9}  errors {}",
            t.name(),
            stmts,
            best,
            r.states,
            r.diagnostics.iter().filter(|d| d.is_error()).count()
        );
    }
}
