//! A split barrier's signal arms the copies in flight at it; its wait publishes those. A copy
//! issued between the signal and the wait (`--named-barriers` puts copies there) is not
//! published by that wait: when the loop that issues it ends, its last copy is still in flight,
//! and its own thread's later accesses of the same words need a counter wait. The pass once
//! counted such a copy as published at the wait (the copy joined the state entry the signal
//! had armed), put the demand on the signal, before the copy, and left the last one unwaited
//! (campaign seeds 6346, 7300 and 6190 with `--named-barriers` on sm_90).

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

const SRC: &str = "target sm_90
kernel @k(%n = 2) waves 4 {
  %D = buffer workgroup 2048
  %G = buffer global 4096
  for %i = 0 to %n max 4 {
    %w = view %D slot (%i) mod 2
    %r = view %D slot (%i + 1) mod 2
    op \"st\" write %w[tid + 64]
    op \"ld\" read %r[tid + 64]
    if uniform %i mod 2 == 0 {
      for %j = 0 to 3 {
        barrier.signal 1
        %w4 = view %D slot (%j) mod 2
        op \"cp\" async write %w4[tid + 64], read %G[tid]
        barrier.wait 1
      }
    }
  }
}
";

#[test]
fn copy_after_the_signal_is_not_published_by_its_wait() {
    let file = syncopt_ir::parse(SRC).expect("parses");
    let mut k = file.chunks[0].kernels[0].clone();
    // Without waits the copies race with the next iteration's "st" and "ld" of their own words.
    let vr = syncopt_verify::verify(&k, Target::Sm90);
    assert!(!vr.is_ok());
    let rep = syncopt_async_waits::run(&mut k, Target::Sm90, &InsertOptions::default());
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    let text = syncopt_ir::print_kernel(&k);
    let vr = syncopt_verify::verify(&k, Target::Sm90);
    assert!(vr.is_ok(), "{text}\n{:#?}", vr.diagnostics);
    // The inner loop's last copy is waited for before the next iteration's "st" (not only
    // before the signal, ahead of the copy).
    let body = &text[text.find("for %i").expect("loop")..text.find("op \"st\"").expect("st")];
    assert!(body.contains("cp_async.wait"), "{text}");
}

/// The same through a join: the loop's zero-trip path brings the older copy the signal armed,
/// its back edge a copy issued after the signal. The joined entry kept the arming without
/// saying that it covers one path only, so the wait published the last copy too and the
/// issuing wave's own read after the loop had no counter wait (campaign seed 1154 on
/// gfx1200/gfx1250 at 200 ops; this is its reduction).
#[test]
fn copy_issued_after_the_signal_on_one_path_stays_in_flight_at_the_wait() {
    let src = "target gfx1250
kernel @k(%n = 1) waves 2 {
  %B = buffer workgroup 512
  %G = buffer global 4096
  op \"cp_a\" async write %B[tid], read %G[tid + 32]
  barrier.signal -1
  for %k = 0 to %n max 4 {
    op \"cp_b\" async write %B[tid], read %G[tid + 32 + 128 * %k]
  }
  barrier.wait -1
  op \"ld\" read %B[95 - tid]
}
";
    let (text, _) = waits_verified(src);
    let tail = &text[text.find("barrier.wait").expect("wait")..];
    assert!(tail.contains("wait asynccnt(0)"), "{text}");
}

/// A copy issued between a signal and its wait into the same place as one the signal armed:
/// the wait publishes the armed one still (its consumers in other waves ask the signal for
/// their wait), not the new one. The issue used to drop the arming of the whole entry,
/// leaving the armed copy to a later barrier the barrier pass had no reason to place:
/// campaign seed 4651 (200 ops, gfx1200/gfx1250 and sm_90 named), reduced. `cp_a` of
/// iteration 0 fills words 256.. of slot 1, which other waves' `st` of iteration 1 writes;
/// `cp_b` fills words 0.. of the same slot after the signal.
#[test]
fn copy_armed_before_another_into_its_place_stays_published() {
    let src = "target gfx1250
kernel @k waves 8 {
  %D = buffer workgroup 4096
  %G = buffer global 16384
  for %i = 0 to 2 {
    %w = view %D slot (%i) mod 2
    %r = view %D slot (%i + 1) mod 2
    op \"cp_a\" async write %r[tid + 256], read %G[tid + 512 * %i]
    op \"st\" write %w[511 - tid]
    barrier.signal -1
    op \"cp_b\" async write %r[tid], read %G[tid + 160 + 512 * %i]
    barrier.wait -1
  }
}
";
    let (text, diagnostics) = waits_verified(src);
    // The barriers order the pair: no "run shared-barriers first" warning.
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let before_signal = &text[..text.find("barrier.signal").expect("signal")];
    assert!(before_signal.contains("wait asynccnt(0)"), "{text}");
}

/// async-waits on the gfx1250 kernel `src`: the output verifies; the output printed and the
/// pass's diagnostics.
fn waits_verified(src: &str) -> (String, Vec<syncopt_ir::Diagnostic>) {
    let file = syncopt_ir::parse(src).expect("parses");
    let mut k = file.chunks[0].kernels[0].clone();
    let rep = syncopt_async_waits::run(&mut k, Target::Gfx1250, &InsertOptions::default());
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    let text = syncopt_ir::print_kernel(&k);
    let vr = syncopt_verify::verify(&k, Target::Gfx1250);
    assert!(vr.is_ok(), "{text}\n{:#?}", vr.diagnostics);
    (text, rep.diagnostics)
}
