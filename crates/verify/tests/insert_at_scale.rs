//! Issues 4/5, "every generated kernel: the output verifies": `syncopt gen` kernels of
//! 1,000-2,000 statements, synchronized by the default insert pipeline, verify on every GPU
//! target. These kernels have many live handles (loop results that swap buffers, if results)
//! and so more paths than the verifier keeps apart: they exercise its merging of paths
//! (docs/VERIFY.md, "Merging paths"). `SYNCOPT_LONG=1`: 1k..10k ops, more seeds.

use syncopt_gen::{generate, GenOptions};
use syncopt_passes::InsertOptions;
use syncopt_targets::Target;

/// Generates, inserts and verifies; `Err` with the problems when the output does not verify.
fn insert_then_verify(target: Target, ops: usize, seed: u64) -> Result<usize, String> {
    let text = generate(&GenOptions {
        ops,
        seed,
        target,
        executable: false,
    });
    let mut file = syncopt_ir::parse(&text).map_err(|d| format!("gen output: {d:?}"))?;
    let k = &mut file.chunks[0].kernels[0];
    let rep = syncopt_passes::insert(k, target, &InsertOptions::default());
    if rep.has_errors() {
        return Err(format!("insert failed: {:#?}", rep.diagnostics));
    }
    let v = syncopt_verify::verify(k, target);
    if v.is_ok() {
        Ok(k.stmt_count())
    } else {
        let msgs: Vec<String> = v
            .diagnostics
            .iter()
            .map(|d| format!("{:?}: {} {:?}", d.loc, d.message, d.notes))
            .collect();
        Err(msgs.join("\n"))
    }
}

fn campaign(sizes: &[usize], seeds: &[u64]) {
    let mut failed = Vec::new();
    let mut checked = 0;
    for &t in Target::GPUS {
        for &ops in sizes {
            for &seed in seeds {
                match insert_then_verify(t, ops, seed) {
                    Ok(stmts) => {
                        assert!(stmts >= ops, "{t} {ops} {seed}: only {stmts} statements");
                        checked += 1;
                    }
                    Err(e) => failed.push(format!("{t} --ops {ops} --seed {seed}:\n{e}")),
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert_eq!(checked, Target::GPUS.len() * sizes.len() * seeds.len());
}

#[test]
fn generated_kernels_verify_after_insert_on_every_gpu() {
    if std::env::var("SYNCOPT_LONG").is_ok() {
        campaign(&[1000, 2000, 5000, 10000], &[1, 2, 3, 4, 5]);
    } else {
        campaign(&[1000], &[1, 2, 3]);
        campaign(&[2000], &[4, 5]);
    }
}
