//! Benchmark: `cargo bench -p syncopt-async-waits --bench waits`. Kernels of 100,000 ops with
//! 1,000 async copies (double-buffered loops with rotating handles, slot-view loops, copies
//! in ifs, straight-line copies), barriers where shared-barriers puts them; times the pass.
//! Then kernels of the default generator (`syncopt gen --ops N`, seed 0, gfx950: many
//! `gather_to_lds` copies and barriers) at 1k, 10k, 100k and 1M statements, after
//! shared-barriers (not timed), as `syncopt insert` runs them. `--quick`: one run each, up to
//! 100k; `--gen`: the generated kernels only.

use std::fmt::Write;
use std::time::Instant;

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

fn kernel(target: Target, ops: usize, copies: usize) -> String {
    let split = matches!(target, Target::Gfx1200 | Target::Gfx1250);
    let bar = if split {
        "barrier.signal -1\n    barrier.wait -1"
    } else {
        "barrier"
    };
    let copy = match target {
        Target::Sm80 | Target::Sm90 => "cp_async",
        _ => "gather_to_lds",
    };
    let mut s = String::new();
    let _ = writeln!(s, "target {target}\n\nkernel @bench(%n, %c) {{");
    for b in 0..16 {
        let _ = writeln!(s, "  %B{b} = buffer workgroup 4096");
    }
    let _ = writeln!(
        s,
        "  %S = buffer workgroup 12288\n  %G = buffer global 1048576"
    );
    // Each unit holds 4 copies; spread the remaining ops as compute and LDS traffic.
    let units = copies / 4;
    let per_unit = ops / units;
    let mut emitted = 0usize;
    for u in 0..units {
        let (a, b) = (u % 16, (u + 1) % 16);
        let filler = per_unit.saturating_sub(14) / 2;
        match u % 3 {
            0 => {
                let _ = writeln!(
                    s,
                    "  for %i{u} = 0 to %n iter(%c{u} = %B{a}, %d{u} = %B{b}) {{"
                );
                let _ = writeln!(s, "    {bar}");
                for h in 0..2 {
                    let _ = writeln!(
                        s,
                        "    op \"{copy}\" async write %d{u}[{}:{}], read %G",
                        h * 2048,
                        h * 2048 + 2048
                    );
                }
                for _ in 0..filler {
                    let _ = writeln!(s, "    op \"mfma\"");
                }
                let _ = writeln!(s, "    {bar}\n    op \"ds_read\" read %c{u}");
                for _ in 0..filler {
                    let _ = writeln!(s, "    op \"mfma\"");
                }
                let _ = writeln!(s, "    yield %d{u}, %c{u}\n  }}");
                // two straight-line copies and their reads
                let _ = writeln!(s, "  op \"{copy}\" async write %B{a}, read %G");
                let _ = writeln!(s, "  op \"{copy}\" async write %B{b}, read %G");
                let _ = writeln!(
                    s,
                    "  {bar}\n  op \"ds_read\" read %B{a}\n  op \"ds_read\" read %B{b}\n  {bar}"
                );
            }
            1 => {
                let _ = writeln!(s, "  for %i{u} = 0 to %n {{");
                let _ = writeln!(s, "    %w{u} = view %S slot (%i{u} + 1) mod 3");
                let _ = writeln!(s, "    %r{u} = view %S slot (%i{u}) mod 3");
                let _ = writeln!(s, "    {bar}");
                let _ = writeln!(s, "    op \"{copy}\" async write %w{u}, read %G");
                for _ in 0..filler {
                    let _ = writeln!(s, "    op \"mfma\"");
                }
                let _ = writeln!(s, "    {bar}\n    op \"ds_read\" read %r{u}");
                for _ in 0..filler {
                    let _ = writeln!(s, "    op \"mfma\"");
                }
                let _ = writeln!(s, "  }}");
                let _ = writeln!(s, "  {bar}");
                for c in 0..3 {
                    let _ = writeln!(s, "  op \"{copy}\" async write %B{}, read %G", (a + c) % 16);
                }
                let _ = writeln!(s, "  {bar}\n  op \"ds_read\" read %B{a}\n  {bar}");
            }
            _ => {
                let _ = writeln!(s, "  if uniform %c {{");
                let _ = writeln!(s, "    op \"{copy}\" async write %B{a}, read %G");
                let _ = writeln!(s, "    op \"{copy}\" async write %B{b}, read %G");
                let _ = writeln!(s, "  }} else {{");
                let _ = writeln!(s, "    op \"{copy}\" async write %B{a}, read %G");
                let _ = writeln!(s, "  }}");
                for _ in 0..filler {
                    let _ = writeln!(s, "  op \"ds_write\" write %B{}", (a + 5) % 16);
                }
                let _ = writeln!(s, "  op \"{copy}\" async write %B{}, read %G", (a + 2) % 16);
                let _ = writeln!(s, "  {bar}\n  op \"ds_read\" read %B{a}");
                for _ in 0..filler {
                    let _ = writeln!(s, "  op \"mfma\"");
                }
                let _ = writeln!(s, "  op \"ds_read\" read %B{}\n  {bar}", (a + 2) % 16);
            }
        }
        emitted += per_unit;
    }
    let _ = emitted;
    s.push_str("}\n");
    s
}

fn generated(quick: bool) {
    let sizes: &[usize] = if quick {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let t = Target::Gfx950;
    for &ops in sizes {
        let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
            ops,
            seed: 0,
            target: t,
            executable: false,
        });
        let file = syncopt_ir::parse(&src).expect("generated kernel parses");
        let mut k0 = file.chunks[0].kernels[0].clone();
        drop(file);
        let rb = syncopt_barriers::run(&mut k0, t, &InsertOptions::default());
        assert!(!rb.has_errors());
        let reps = if quick {
            1
        } else if ops >= 1_000_000 {
            3
        } else {
            5
        };
        let mut times = Vec::new();
        let (mut inserted, mut warnings) = (0, 0);
        for _ in 0..reps {
            let mut k = k0.clone();
            let t0 = Instant::now();
            let r = syncopt_async_waits::run(&mut k, t, &InsertOptions::default());
            times.push(t0.elapsed().as_secs_f64());
            inserted = k.inserted_syncs().len();
            warnings = r.diagnostics.len();
            assert!(!r.has_errors());
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{t} generated --ops {ops}: {} stmts after shared-barriers: {inserted} waits inserted, \
             {warnings} warnings; min {:.1} ms, median {:.1} ms ({reps} runs)",
            k0.stmt_count(),
            times[0] * 1e3,
            times[times.len() / 2] * 1e3
        );
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let gen_only = std::env::args().any(|a| a == "--gen");
    let reps = if quick { 1 } else { 5 };
    let targets: &[Target] = if gen_only {
        &[]
    } else {
        &[Target::Gfx950, Target::Gfx1250, Target::Sm90]
    };
    for &t in targets {
        let src = kernel(t, 100_000, 1_000);
        let file = syncopt_ir::parse(&src).expect("bench kernel parses");
        let k0 = file.chunks[0].kernels[0].clone();
        let mut copies = 0;
        k0.walk(&mut |_, d| {
            if let syncopt_ir::StmtKind::Op(op) = &d.kind {
                copies += op.asynchronous.is_some() as usize;
            }
        });
        let mut times = Vec::new();
        let mut inserted = 0;
        for _ in 0..reps {
            let mut k = k0.clone();
            let t0 = Instant::now();
            let r = syncopt_async_waits::run(&mut k, t, &InsertOptions::default());
            times.push(t0.elapsed().as_secs_f64());
            inserted = k.inserted_syncs().len();
            assert!(!r.has_errors());
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{t}: {} stmts, {copies} async copies: {inserted} syncs inserted; min {:.1} ms, median {:.1} ms ({reps} runs)",
            k0.stmt_count(),
            times[0] * 1e3,
            times[times.len() / 2] * 1e3
        );
    }
    generated(quick);
}
