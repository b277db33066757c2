//! In a loop the pass runs exactly (known trips, a condition on its variable), a consumer's
//! slot is the one the variable picks in that iteration, whether or not copies were in
//! flight at the loop's entry. It used to be fixed only when some were (the first-iteration
//! pins): the pass's own output, whose waits leave nothing in flight before the loop, got one
//! more `cp_async.wait` on a second `insert` (campaign: `gen --ops 100 --seed 3354`, sm_80 and
//! sm_90, not idempotent; reduced below).

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

/// The loop's copy writes bytes 1536..2304 of `%A0`; the `if` runs only in the first
/// iteration (`%i30` = 0), where `%v31` is slot 0 (bytes 0..1024): no wait in the `if`.
const SRC: &str = "target sm_90

kernel @k(%n = 16, %c = 1) waves 32 {
  %A0 = buffer workgroup 3072
  %A3 = buffer workgroup 1536 at %A0
  %A2 = buffer workgroup 6144
  %G = buffer global 1048576
  for %i30 = 0 to 16 step 4 {
    %v31 = view %A0 slot (%i30) mod 3
    op \"ldmatrix\" read %A0
    barrier
    op \"cp_async\" async write %A0[1536:2304], read %G[36864:40960]
    if uniform %i30 < 2 {
      op \"lds_copy\" write %v31, read %A3
    }
    cp_async.commit
    cp_async.wait 0
    barrier
    op \"lds_copy\" write %A2[0:4608], read %A3
  }
}
";

/// shared-barriers (with `barriers`), then async-waits; no warning.
fn run(src: &str, barriers: bool) -> String {
    let file = syncopt_ir::parse(src).expect("parses");
    let mut k = file.chunks[0].kernels[0].clone();
    let opts = InsertOptions::default();
    if barriers {
        syncopt_barriers::run(&mut k, Target::Sm90, &opts);
    }
    let rep = syncopt_async_waits::run(&mut k, Target::Sm90, &opts);
    assert!(rep.diagnostics.is_empty(), "{:#?}", rep.diagnostics);
    format!("target sm_90\n\n{}", syncopt_ir::print_kernel(&k))
}

#[test]
fn consumers_of_an_exactly_run_iteration_take_its_slot() {
    let out = run(SRC, false);
    assert_eq!(out.matches("cp_async.wait").count(), 1, "{out}");
    let again = syncopt_ir::parse(&out).expect("output parses");
    let vr = syncopt_verify::verify(&again.chunks[0].kernels[0], Target::Sm90);
    assert!(vr.is_ok(), "{out}\n{:#?}", vr.diagnostics);
}

/// In the second iteration `%v31` is slot 1 (bytes 1024..2048), which the copy overlaps:
/// a barrier in the `if` (other waves) and the wait before it.
#[test]
fn a_later_iteration_slot_that_meets_the_copy_waits() {
    let src = SRC.replace("if uniform %i30 < 2", "if uniform %i30 == 4");
    let out = run(&src, true);
    assert!(
        out.contains("if uniform %i30 == 4 {\n      cp_async.commit\n      cp_async.wait 0\n"),
        "{out}"
    );
    let again = syncopt_ir::parse(&out).expect("output parses");
    let vr = syncopt_verify::verify(&again.chunks[0].kernels[0], Target::Sm90);
    assert!(vr.is_ok(), "{out}\n{:#?}", vr.diagnostics);
}

#[test]
fn generated_kernel_3354_is_idempotent() {
    for t in [Target::Sm80, Target::Sm90] {
        let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
            ops: 100,
            seed: 3354,
            target: t,
            executable: false,
        });
        let mut k = syncopt_ir::parse(&src).expect("parses").chunks[0].kernels[0].clone();
        let opts = InsertOptions::default();
        syncopt_barriers::run(&mut k, t, &opts);
        syncopt_async_waits::run_after_barriers(&mut k, t, &opts);
        let once = syncopt_ir::print_kernel(&k);
        syncopt_barriers::run(&mut k, t, &opts);
        syncopt_async_waits::run_after_barriers(&mut k, t, &opts);
        assert_eq!(once, syncopt_ir::print_kernel(&k), "{t:?}");
    }
}

/// `gen --executable --ops 200 --seed 2633`, reduced: in the first iteration of `%i33`
/// (run exactly: a condition reads it) the copy writes slot 0 of `%D` and `ld_199` reads slot
/// one. The copy's place, made in the same iteration, is fixed by the variable's value too;
/// it was only when a copy was in flight at the loop's entry, so the second `insert` (the
/// first one's wait before the loop leaves none) added a `wait vmcnt(0)` before `ld_199`.
#[test]
fn copies_of_an_exactly_run_iteration_take_its_slot() {
    let src = "target gfx950

kernel @k(%n = 2, %p = 1) waves 2 {
  %B = buffer workgroup 1024
  %D = buffer workgroup 2048
  %G = buffer global 8192
  op \"cp_async_186\" async write %B[tid], read %G[tid + 64]
  for %i31 = 0 to 2 {
    %w31 = view %D slot (%i31) mod 2
    %r31 = view %D slot (%i31 + 1) mod 2
    if uniform (%i31) mod 2 == 0 {
      for %i32 = 0 to 2 iter(%cur32 = %B, %nxt32 = %w31) {
        op \"st_191\" write %cur32[127 - tid]
        yield %nxt32, %cur32
      }
      for %i33 = 0 to 2 {
        %w33 = view %D slot (%i33) mod 2
        op \"cp_async_196\" async write %w33, read %G[7168:8192]
        if uniform (%i33) mod 2 == 0 {
          op \"ld_199\" read %r31[tid + 64]
        } else {
        }
      }
    } else {
    }
  }
}
";
    let t = Target::Gfx950;
    let mut k = syncopt_ir::parse(src).expect("parses").chunks[0].kernels[0].clone();
    let opts = InsertOptions::default();
    syncopt_barriers::run(&mut k, t, &opts);
    syncopt_async_waits::run_after_barriers(&mut k, t, &opts);
    let once = syncopt_ir::print_kernel(&k);
    assert_eq!(once.matches("wait vmcnt").count(), 1, "{once}");
    syncopt_barriers::run(&mut k, t, &opts);
    syncopt_async_waits::run_after_barriers(&mut k, t, &opts);
    assert_eq!(once, syncopt_ir::print_kernel(&k));
    let vr = syncopt_verify::verify(&k, t);
    assert!(vr.is_ok(), "{once}\n{:#?}", vr.diagnostics);
}
