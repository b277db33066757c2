//! Times the warp-pipeline pass on generated pipelines of growing size:
//! `cargo run --release -p syncopt-warp-pipeline --example wp_bench`.
//! Each stage reads its own slice of one buffer; every other stage also writes this
//! iteration's slot of a double-buffered one, so the ring analysis finds conflicts at many
//! distances.

use std::time::Instant;

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

fn kernel(stages: usize, ops: usize) -> String {
    let mut s = String::from(
        "target gfx950\nkernel @bench(%n) waves 8 {\n  %A = buffer workgroup 65536\n  %B = buffer workgroup 65536\n",
    );
    s.push_str("  for %k = 0 to %n {\n");
    let slice = 65536 / (stages * ops).max(1);
    for st in 0..stages {
        s.push_str("    stage\n");
        s.push_str(&format!("    %w{st} = view %B slot (%k) mod 2\n"));
        for o in 0..ops {
            let i = st * ops + o;
            if o == 0 && st % 2 == 0 {
                s.push_str(&format!("    op \"ds_write\" write %w{st}\n"));
            } else {
                s.push_str(&format!(
                    "    op \"ds_read\" read %A[{}:{}]\n",
                    i * slice,
                    (i + 1) * slice
                ));
            }
        }
    }
    s.push_str("  }\n}\n");
    s
}

fn main() {
    println!("stages ops/stage  statements  time (ms, best of 5)");
    for &(stages, ops) in &[(8, 4), (16, 8), (32, 16), (64, 16), (128, 8)] {
        let src = kernel(stages, ops);
        let file = syncopt_ir::parse(&src).expect("parses");
        let k0 = file.chunks[0].kernels[0].clone();
        let mut best = f64::MAX;
        let mut errors = 0;
        for _ in 0..5 {
            let mut k = k0.clone();
            let t = Instant::now();
            let rep = syncopt_warp_pipeline::run(&mut k, Target::Gfx950, &InsertOptions::default());
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            errors = rep.diagnostics.len();
        }
        println!(
            "{stages:6} {ops:9} {:11}  {best:9.2}{}",
            k0.stmt_count(),
            if errors > 0 { "  (rejected)" } else { "" }
        );
    }
}
