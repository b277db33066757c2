//! Barrier insertion time on generated kernels of 1,000 .. 1,000,000 statements.
//! `cargo bench -p syncopt-barriers --bench insert` (add `-- 10000` to cap the size, `-- 10000
//! only` for that size alone).

use std::time::Instant;

use syncopt_analysis::InsertOptions;
use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

fn main() {
    let cap: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    // `-- 100000 only`: that size alone (for profiling under callgrind).
    let only = std::env::args().any(|a| a == "only");
    println!(
        "target    ops(requested)  stmts     parse_ms  insert_ms  barriers  dynamic     us/stmt"
    );
    // `SYNCOPT_BENCH_TARGET=gfx950`: that target alone.
    let only_target = std::env::var("SYNCOPT_BENCH_TARGET").ok();
    for target in [Target::Gfx950, Target::Gfx1250] {
        if only_target.as_deref().is_some_and(|t| t != target.name()) {
            continue;
        }
        for ops in [1_000usize, 10_000, 100_000, 1_000_000] {
            if ops > cap || (only && ops != cap) {
                continue;
            }
            let src = generate(&GenOptions {
                ops,
                seed: 42,
                target,
                executable: false,
            });
            let t0 = Instant::now();
            let file = syncopt_ir::parse(&src).expect("generated kernel parses");
            let parse_ms = t0.elapsed().as_secs_f64() * 1e3;
            let k = file.chunks[0].kernels[0].clone();
            let stmts = k.stmt_count();
            // Best of a few runs for small sizes, one for the large ones.
            let reps = if ops <= 10_000 { 5 } else { 1 };
            let mut best = f64::MAX;
            let mut inserted = 0;
            let mut dynamic = 0;
            for _ in 0..reps {
                let mut kk = k.clone();
                let t = Instant::now();
                let rep = syncopt_barriers::run(&mut kk, target, &InsertOptions::default());
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
                inserted = kk.inserted_syncs().len();
                dynamic = syncopt_analysis::inserted_cost(&kk).1;
                // SYNCOPT_BENCH_DUMP=DIR: the result, to compare two builds' output.
                if let Ok(dir) = std::env::var("SYNCOPT_BENCH_DUMP") {
                    let text = format!(
                        "{}\n{:?}\n{:?}\n{:?}\n",
                        syncopt_ir::printer::print_kernel(&kk),
                        rep.hazards,
                        rep.diagnostics,
                        rep.explain
                    );
                    let path = format!("{dir}/{}-{ops}.txt", target.name());
                    std::fs::write(path, text).expect("dump written");
                }
            }
            println!(
                "{:<9} {:<15} {:<9} {:<9.1} {:<10.1} {:<9} {:<11} {:.2}",
                target.name(),
                ops,
                stmts,
                parse_ms,
                best,
                inserted,
                dynamic,
                best * 1e3 / stmts.max(1) as f64
            );
        }
    }
}
