//! A copy the last iteration of an inner loop issues through a rotating handle is
//! overwritten by other warps' copy in the first iteration of the next entry of that loop
//! (the outer loop's next iteration): `%nxt` is %A again there. The barrier pass puts a
//! barrier at the end of the inner body (it orders the two copies); async-waits once put the
//! `cp_async.wait 0` only at the top of the body, after that barrier: out of the loop the
//! copy's place was the last iteration's buffer with the index still naming the loop's
//! variable, which the next entry's first copy then matched word for word (same thread).
//! The last copy completed unpublished, and the verifier and the interpreter both saw the
//! write-after-write race (campaign: `gen --executable --ops 100 --seed 571`, every GPU
//! target; found at the end of session 6, present at its start too).

use syncopt_analysis::InsertOptions;

const SRC: &str = "target sm_90

kernel @k(%n = 2) waves 4 {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 8192
  for %i11 = 0 to 2 {
    for %i12 = 0 to 3 iter(%cur12 = %B, %nxt12 = %A) {
      op \"cp\" async write %nxt12[tid + 32 * %i12 + 64], read %G[tid + 64 + 256 * %i12]
      yield %nxt12, %cur12
    }
  }
}
";

#[test]
fn copy_leaving_an_inner_loop_is_published_before_its_next_entry() {
    let file = syncopt_ir::parse(SRC).expect("parses");
    let mut k = file.chunks[0].kernels[0].clone();
    let t = syncopt_targets::Target::Sm90;
    assert!(!insert_failed(&mut k, t), "insert failed");
    let printed = format!("target sm_90\n\n{}", syncopt_ir::print_kernel(&k));
    let again = syncopt_ir::parse(&printed).expect("output parses");
    let vr = syncopt_verify::verify(&again.chunks[0].kernels[0], t);
    assert!(vr.is_ok(), "{printed}\n{:#?}", vr.diagnostics);
}

/// shared-barriers, then async-waits (the pipeline's order); whether either reported an error.
fn insert_failed(k: &mut syncopt_ir::Kernel, t: syncopt_targets::Target) -> bool {
    let opts = InsertOptions::default();
    syncopt_barriers::run(k, t, &opts).has_errors()
        || syncopt_async_waits::run(k, t, &opts).has_errors()
}

/// `gen --executable --ops 200 --seed 1154` on gfx1200/gfx1250 (campaign, session 6). A split
/// barrier's signal comes before a loop nest whose body issues `cp_async_117 async write
/// %B[tid]`; the barrier's wait comes after the loops, and a later read of %B (`ld_126`, its
/// own words too) found the last copy with no wait after it: the loops' zero-trip path joined
/// the copy the signal had armed into the entry, and the wait took the whole entry as
/// published. Reduced in tests/split_arming.rs.
#[test]
fn copy_in_loops_between_signal_and_wait_is_waited_for() {
    let t = syncopt_targets::Target::Gfx1250;
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops: 200,
        seed: 1154,
        target: t,
        executable: true,
    });
    let file = syncopt_ir::parse(&src).expect("parses");
    let mut k = file.chunks[0].kernels[0].clone();
    assert!(!insert_failed(&mut k, t), "insert failed");
    let printed = format!("target gfx1250\n\n{}", syncopt_ir::print_kernel(&k));
    let again = syncopt_ir::parse(&printed).expect("output parses");
    let vr = syncopt_verify::verify(&again.chunks[0].kernels[0], t);
    assert!(vr.is_ok(), "{:#?}", vr.diagnostics);
}
