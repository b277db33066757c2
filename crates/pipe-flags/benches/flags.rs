//! `cargo bench -p syncopt-pipe-flags`: the pass on generated Ascend kernels of 1,000 to
//! 100,000 statements (syncopt_gen, fixed seeds), reporting time per run and what it did.

use std::time::Instant;

use syncopt_analysis::InsertOptions;
use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

fn main() {
    let sizes: Vec<usize> = std::env::var("PF_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    println!("target      stmts   hazards  inserted  min ms  median ms");
    for &n in &sizes {
        for target in [Target::Ascend910b, Target::Ascend950] {
            let src = generate(&GenOptions {
                ops: n,
                seed: 42,
                target,
                executable: false,
            });
            let file = syncopt_ir::parse(&src).expect("generated kernel parses");
            let kernel = file.chunks[0].kernels[0].clone();
            let runs = if n >= 100_000 { 3 } else { 5 };
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..runs {
                let mut k = kernel.clone();
                let t = Instant::now();
                let r = syncopt_pipe_flags::run(&mut k, target, &InsertOptions::default());
                times.push(t.elapsed().as_secs_f64() * 1e3);
                last = Some((k, r));
            }
            times.sort_by(|a, b| a.total_cmp(b));
            let (k, r) = last.expect("at least one run");
            println!(
                "{:<10} {:>7} {:>9} {:>9} {:>7.1} {:>10.1}",
                target.name(),
                kernel.stmt_count(),
                r.hazards,
                k.inserted_syncs().len(),
                times[0],
                times[times.len() / 2]
            );
        }
    }
}
