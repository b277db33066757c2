//! Workgroup verifier on large generated kernels: `cargo bench -p syncopt-verify --bench
//! workgroup` (optionally `-- OPS`). Each kernel comes from `syncopt_gen::generate`, its ifs
//! made uniform, then synchronized by brute force: a barrier (or signal/wait pair) after every
//! statement and a `wait C(0)` after every async op, so the verifier walks the whole program
//! and proves it. Prints one line per target; the best of three runs. `-- FILE.sk` times the
//! verifier on the kernels of that file instead (an insert output, say).

use std::time::Instant;

#[path = "../tests/support/brute_force.rs"]
mod brute_force;

use brute_force::{brute_force, uniform_ifs};
use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

fn main() {
    // `-- FILE.sk`: time the verifier on that kernel instead (e.g. an insert output).
    if let Some(path) = std::env::args().skip(1).find(|a| a.ends_with(".sk")) {
        return verify_file(&path);
    }
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
        uniform_ifs(&mut k);
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

/// Best of three verifications of every kernel in `path` on its file's target.
fn verify_file(path: &str) {
    let text = std::fs::read_to_string(path).expect("readable input");
    let file = syncopt_ir::parse(&text).expect("input parses");
    // SYNCOPT_VERIFY_LIMIT=N: one run keeping N contexts apart (no second look).
    let limit: Option<usize> = std::env::var("SYNCOPT_VERIFY_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok());
    for m in &file.chunks {
        let t = syncopt_targets::resolve(None, m.target.as_deref(), m.target_loc)
            .expect("the file names its target");
        for k in &m.kernels {
            let mut best = f64::MAX;
            let mut rep = None;
            for _ in 0..3 {
                let t0 = Instant::now();
                let r = match limit {
                    Some(l) => syncopt_verify::workgroup::verify_with_limit(k, t, l),
                    None => syncopt_verify::verify(k, t),
                };
                best = best.min(t0.elapsed().as_secs_f64());
                rep = Some(r);
            }
            let r = rep.expect("ran");
            println!(
                "{path} @{} ({}): statements {}  verify {best:.3} s  states {}  errors {}",
                k.name,
                t.name(),
                k.stmt_count(),
                r.states,
                r.diagnostics.iter().filter(|d| d.is_error()).count()
            );
        }
    }
}
