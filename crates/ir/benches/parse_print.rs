//! Parse and print speed on `syncopt gen --ops 1000000` output.
//!
//! `cargo bench -p syncopt-ir --bench parse_print` (release profile). Plain `main`, best of N
//! runs with `std::time::Instant`: a statistics harness adds nothing at these durations.
//! Environment: `SYNCOPT_BENCH_OPS` (default 1000000), `SYNCOPT_BENCH_RUNS` (default 5).
//!
//! `parse 1st` is the first parse of the process: the one a CLI command pays, with every page
//! of the new IR faulted in fresh. Later runs reuse memory the allocator kept from earlier
//! ones, so the best of N is the parser's own speed.

use std::time::{Duration, Instant};

use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

/// The best of `runs` durations, the first one, and the last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut best = Duration::MAX;
    let mut first = None;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let v = f();
        let d = t.elapsed();
        best = best.min(d);
        first.get_or_insert(d);
        last = Some(v);
    }
    (
        best,
        first.expect("at least one run"),
        last.expect("at least one run"),
    )
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn mb_per_s(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this once with few ops.
    let quick = !std::env::args().any(|a| a == "--bench");
    let ops = if quick {
        10_000
    } else {
        env("SYNCOPT_BENCH_OPS", 1_000_000)
    };
    let runs = if quick {
        1
    } else {
        env("SYNCOPT_BENCH_RUNS", 5).max(1)
    };
    println!("parse_print: {ops} ops, best of {runs}");
    println!(
        "{:<11} {:>10} {:>10} {:>10} {:>12} {:>10} {:>12} {:>12}",
        "target",
        "bytes",
        "gen ms",
        "parse ms",
        "parse 1st ms",
        "print ms",
        "parse MB/s",
        "print MB/s"
    );
    for target in [Target::Gfx950, Target::Ascend910b] {
        let opts = GenOptions {
            ops,
            seed: 1,
            target,
            executable: false,
        };
        let (tg, _, text) = best(runs, || generate(&opts));
        let (tp, tp1, file) = best(runs, || {
            syncopt_ir::parse(&text).expect("generated text parses")
        });
        let (tw, _, printed) = best(runs, || syncopt_ir::print_file(&file));
        // The generator writes canonical text: printing gives it back byte for byte.
        assert_eq!(printed, text, "print(parse(gen)) differs from gen");
        let stmts: usize = file.chunks[0].kernels[0].stmt_count();
        assert_eq!(stmts, ops);
        println!(
            "{:<11} {:>10} {:>10.1} {:>10.1} {:>12.1} {:>10.1} {:>12.1} {:>12.1}",
            target.name(),
            text.len(),
            tg.as_secs_f64() * 1e3,
            tp.as_secs_f64() * 1e3,
            tp1.as_secs_f64() * 1e3,
            tw.as_secs_f64() * 1e3,
            mb_per_s(text.len(), tp),
            mb_per_s(text.len(), tw),
        );
    }
}
