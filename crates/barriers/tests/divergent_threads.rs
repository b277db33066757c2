//! The hazard analysis knows which threads run a branch of `if divergent tid CMP C`: a
//! tree-reduction step (threads below 128 read `tid + 128` and write `tid`) has no hazard
//! inside the if, so no "unorderable hazard" warning, and the barriers go between the steps.

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

fn insert(src: &str) -> (String, Vec<String>) {
    let mut file = syncopt_ir::parse(src).expect("parses");
    let k = &mut file.chunks[0].kernels[0];
    let rep = syncopt_barriers::run(k, Target::Gfx942, &InsertOptions::default());
    let text = syncopt_ir::print_kernel(k);
    assert!(syncopt_verify::verify(k, Target::Gfx942).is_ok(), "{text}");
    (
        text,
        rep.diagnostics.iter().map(|d| d.message.clone()).collect(),
    )
}

const STEPS: &str = "kernel @r waves 4 {
  %S = buffer workgroup 1024
  op \"w\" write %S[tid]
  if divergent tid < 128 {
    op \"r\" read %S[tid + 128]
    op \"w\" write %S[tid]
  }
  if divergent tid < 64 {
    op \"r\" read %S[tid + 64]
    op \"w\" write %S[tid]
  }
}
";

#[test]
fn reduction_steps_need_a_barrier_before_each_step_and_nothing_else() {
    let (text, diags) = insert(STEPS);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(text.matches("barrier").count(), 2, "{text}");
    assert!(
        text.contains("write %S[tid]\n  barrier\n  if divergent tid < 128"),
        "{text}"
    );
    assert!(
        text.contains("  }\n  barrier\n  if divergent tid < 64"),
        "{text}"
    );
}

#[test]
fn a_wider_condition_is_still_reported() {
    // Threads 128..191 write words that threads 0..63 read in the same branch: no barrier
    // can order that, and the pass says so.
    let mut file = syncopt_ir::parse(&STEPS.replace("tid < 128", "tid < 192")).expect("parses");
    let k = &mut file.chunks[0].kernels[0];
    let rep = syncopt_barriers::run(k, Target::Gfx942, &InsertOptions::default());
    assert!(
        rep.diagnostics
            .iter()
            .any(|d| d.message.contains("no workgroup barrier can order")),
        "{:?}",
        rep.diagnostics
    );
}
