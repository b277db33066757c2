//! The MLIR corpus (examples/mlir): read, strip the barriers, re-insert, verify, and check
//! the output with a real MLIR 22 toolchain (`mlir-opt-22`), down to AMDGPU ISA.

use std::path::{Path, PathBuf};
use std::process::Command;

use syncopt_ir::{Kernel, StmtKind, SyncOp};
use syncopt_passes::InsertOptions;
use syncopt_targets::Target;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/mlir");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("examples/mlir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "the corpus has shrunk");
    v
}

/// `mlir-opt-22`, or `None` where it is not installed (CI installs it: there it must exist).
fn mlir_opt() -> Option<&'static str> {
    let ok = Command::new("mlir-opt-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some("mlir-opt-22");
    }
    assert!(
        std::env::var("CI").is_err(),
        "CI must install mlir-22-tools (.ci/run does)"
    );
    eprintln!("mlir-opt-22 not found: skipping the toolchain checks");
    None
}

fn is_sync_line(l: &str) -> bool {
    let t = l.trim().trim_start_matches('"');
    [
        "amdgpu.lds_barrier",
        "rocdl.s.barrier",
        "rocdl.s.wait",
        "gpu.barrier",
        "nvvm.cp.async.wait",
        "nvvm.cp.async.commit",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

fn strip(text: &str) -> String {
    text.lines()
        .filter(|l| !is_sync_line(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn chip_of(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    stem.rsplit('_').next().unwrap().to_string()
}

/// Barriers executed in one run of the kernel: each weighted by its loops' trip counts.
fn dynamic_barriers(k: &Kernel) -> u64 {
    let mut total = 0;
    for (b, data) in k.blocks.iter() {
        for &s in &data.stmts {
            if let StmtKind::Sync(SyncOp::Barrier { .. } | SyncOp::Signal { .. }) = k.stmts[s].kind
            {
                total += syncopt_analysis::block_weight(k, b);
            }
        }
    }
    total
}

fn insert(text: &str, target: Option<&str>) -> String {
    syncopt_mlir::insert(text, target, None, &InsertOptions::default(), true).unwrap_or_else(|d| {
        panic!(
            "insert failed: {:?}",
            d.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    })
}

#[test]
fn every_corpus_kernel_lowers_to_a_kernel_with_workgroup_buffers() {
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        let ks = syncopt_mlir::to_kernels(&text)
            .unwrap_or_else(|d| panic!("{}: {}", p.display(), d.message));
        assert_eq!(ks.len(), 1, "{}", p.display());
        let wg = ks[0]
            .buffers
            .values()
            .filter(|b| b.space == syncopt_ir::Space::Workgroup)
            .count();
        assert!(wg >= 1, "{}: no workgroup buffer found", p.display());
        let target = Target::from_name(&chip_of(&p)).unwrap();
        assert!(
            syncopt_verify::verify(&ks[0], target).is_ok(),
            "{}: the corpus itself must verify",
            p.display()
        );
    }
}

#[test]
fn stripped_kernels_get_their_sync_back_verified_and_never_more_barriers() {
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        let target = Target::from_name(&chip_of(&p)).unwrap();
        let original = syncopt_mlir::to_kernels(&text).unwrap().remove(0);
        let stripped = strip(&text);
        assert_ne!(stripped, text, "{}: nothing to strip", p.display());
        let out = insert(&stripped, None);
        let k = syncopt_mlir::to_kernels(&out).unwrap().remove(0);
        let r = syncopt_verify::verify(&k, target);
        assert!(
            r.is_ok(),
            "{}: re-inserted kernel does not verify: {:?}",
            p.display(),
            r.diagnostics
        );
        assert!(
            dynamic_barriers(&k) <= dynamic_barriers(&original),
            "{}: {} dynamic barriers, the original has {}\n{out}",
            p.display(),
            dynamic_barriers(&k),
            dynamic_barriers(&original)
        );
        // Every line of the stripped input is still there, in order.
        let mut it = out.lines();
        for l in stripped.lines() {
            assert!(
                it.any(|o| o == l),
                "{}: line lost or changed: {l}",
                p.display()
            );
        }
        // A second run adds nothing.
        assert_eq!(
            insert(&out, None),
            out,
            "{}: insert is not idempotent",
            p.display()
        );
    }
}

#[test]
fn already_synchronized_corpus_is_left_as_it_is() {
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(insert(&text, None), text, "{}", p.display());
    }
}

fn run_opt(opt: &str, input: &str, args: &[&str]) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(opt)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn mlir-opt");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn mlir_opt_accepts_and_lowers_every_output() {
    let Some(opt) = mlir_opt() else { return };
    for p in corpus() {
        let text = std::fs::read_to_string(&p).unwrap();
        let own = chip_of(&p);
        for chip in ["gfx942", "gfx950", "gfx1200"] {
            // gather_to_lds exists on gfx9 only.
            if chip == "gfx1200" && text.contains("gather_to_lds") {
                continue;
            }
            let retargeted =
                strip(&text).replace(&format!("chip = \"{own}\""), &format!("chip = \"{chip}\""));
            let out = insert(&retargeted, Some(chip));
            let (ok, msg) = run_opt(opt, &out, &["--verify-diagnostics=false"]);
            let (ok, msg) = if ok {
                (ok, msg)
            } else {
                run_opt(opt, &out, &[])
            };
            assert!(
                ok,
                "{} for {chip}: mlir-opt rejects the output:\n{msg}\n{out}",
                p.display()
            );
            let pipeline = format!(
                "builtin.module(gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-gpu-to-rocdl{{chipset={chip}}}),gpu-module-to-binary{{format=isa}})"
            );
            let (ok, isa) = run_opt(opt, &out, &[&format!("--pass-pipeline={pipeline}")]);
            assert!(ok, "{} for {chip}: lowering failed:\n{isa}", p.display());
            let want = if chip == "gfx1200" {
                "s_barrier_signal"
            } else {
                "s_barrier"
            };
            assert!(
                isa.contains(want),
                "{} for {chip}: no {want} in the ISA",
                p.display()
            );
            if chip != "gfx1200" && text.contains("gather_to_lds") {
                assert!(
                    isa.contains("s_waitcnt vmcnt("),
                    "{} for {chip}: no vmcnt wait",
                    p.display()
                );
            }
        }
    }
}

#[test]
fn errors_name_the_problem() {
    let e = syncopt_mlir::insert(
        "gpu.module @m {\n  gpu.func @f() kernel {\n",
        Some("gfx942"),
        None,
        &InsertOptions::default(),
        false,
    )
    .unwrap_err();
    assert!(e[0].message.contains("never closed"), "{}", e[0].message);
    assert_eq!(e[0].loc.map(|l| l.line), Some(2));
    let e = syncopt_mlir::insert(
        "func.func @f() {\n  return\n}\n",
        None,
        None,
        &InsertOptions::default(),
        false,
    )
    .unwrap_err();
    assert!(e[0].message.contains("no target"), "{}", e[0].message);
    let e = syncopt_mlir::insert(
        "func.func @f() {\n  return\n}\n",
        Some("ascend910b"),
        None,
        &InsertOptions::default(),
        false,
    )
    .unwrap_err();
    assert!(e[0].message.contains("GPU targets"), "{}", e[0].message);
}

#[test]
fn divergence_follows_the_thread_id() {
    let text = "func.func @f(%n: index) workgroup(%b : memref<64xf32, 3>) {\n  %t = gpu.thread_id x\n  %c = arith.constant 3 : index\n  %p = arith.cmpi ult, %t, %c : index\n  %q = arith.cmpi ult, %n, %c : index\n  scf.if %p {\n  }\n  scf.if %q {\n  }\n  return\n}\n";
    let k = syncopt_mlir::to_kernels(text).unwrap().remove(0);
    let mut kinds = Vec::new();
    k.walk(&mut |_, d| {
        if let StmtKind::If(i) = &d.kind {
            kinds.push(i.uniformity);
        }
    });
    assert_eq!(
        kinds,
        vec![
            syncopt_ir::Uniformity::Divergent,
            syncopt_ir::Uniformity::Uniform
        ]
    );
}
