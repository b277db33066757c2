//! Async-waits right after shared-barriers in one pipeline has no "run shared-barriers first"
//! warning to give: the barrier pass placed a barrier between every async copy and each
//! consumer in another wave. Run alone, async-waits still checks: on a kernel without
//! barriers it warns; on the barrier pass's output of `gen --executable --ops 20 --target
//! sm_80 --seed 477` (a copy of an inner loop's last iteration, to one fixed place, read at
//! the outer loop's next trip) it used to warn, its test being coarser than the barrier
//! pass's where a path leaves an inner loop and goes round an outer one. It now follows such
//! a copy to that place (`Reach::past`) and gives no warning there either.

use syncopt_gen::{generate, GenOptions};
use syncopt_ir::Kernel;
use syncopt_passes::{insert, run_pipeline, InsertOptions, Pass};
use syncopt_targets::Target;

fn seed_477() -> Kernel {
    let text = generate(&GenOptions {
        ops: 20,
        seed: 477,
        target: Target::Sm80,
        executable: true,
    });
    let file = syncopt_ir::parse(&text).expect("gen output parses");
    file.chunks[0].kernels[0].clone()
}

fn warnings(r: &syncopt_passes::PassReport) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| d.message.clone())
        .collect()
}

#[test]
fn the_default_pipeline_does_not_warn_and_its_output_verifies() {
    let t = Target::Sm80;
    let mut k = seed_477();
    let r = insert(&mut k, t, &InsertOptions::default());
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
    assert!(warnings(&r).is_empty(), "{:?}", warnings(&r));
    let printed = syncopt_ir::print_kernel(&k);
    let k = syncopt_ir::parse(&format!("target sm_80\n\n{printed}")).expect("output parses");
    let v = syncopt_verify::verify(&k.chunks[0].kernels[0], t);
    assert!(v.is_ok(), "{:?}", v.diagnostics);
}

#[test]
fn async_waits_alone_still_checks_for_missing_barriers() {
    let t = Target::Sm80;
    let opts = InsertOptions::default();
    let mut k = seed_477();
    let r = run_pipeline(&mut k, t, &[Pass::SharedBarriers], &opts);
    assert!(!r.has_errors(), "{:?}", r.diagnostics);
    let printed = syncopt_ir::print_kernel(&k);
    let file = syncopt_ir::parse(&format!("target sm_80\n\n{printed}")).expect("output parses");
    let mut k = file.chunks[0].kernels[0].clone();
    let r = run_pipeline(&mut k, t, &[Pass::AsyncWaits], &opts);
    let w = warnings(&r);
    assert!(w.is_empty(), "{w:?}");
    // A kernel with no barrier at all: the warning is real there.
    let mut bare = seed_477();
    let r = run_pipeline(&mut bare, t, &[Pass::AsyncWaits], &opts);
    assert!(
        warnings(&r)
            .iter()
            .any(|m| m.contains("run shared-barriers first")),
        "{:?}",
        warnings(&r)
    );
}
