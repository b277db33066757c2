//! The "run shared-barriers first" warning: it must name real hazards only. A copy and a
//! consumer that the barrier pass's access test keeps apart (byte ranges, `tid` words, `if`
//! results as sets of regions, rotating handles in one iteration) get no warning; after
//! shared-barriers, generated kernels get none at all; a copy read by other waves with no
//! barrier still warns when the pass runs alone.

mod common;

use common::generated;
use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

const WARNING: &str = "run shared-barriers first";

fn warnings(src: &str, target: Target, barriers: bool) -> Vec<String> {
    let file = syncopt_ir::parse(src).expect("test kernel parses");
    let mut out = Vec::new();
    for m in file.chunks {
        for mut k in m.kernels {
            if barriers {
                let rb = syncopt_barriers::run(&mut k, target, &InsertOptions::default());
                if rb.has_errors() {
                    continue;
                }
            }
            let r = syncopt_async_waits::run(&mut k, target, &InsertOptions::default());
            for d in r.diagnostics {
                if d.message.contains(WARNING) {
                    out.push(format!("{:?}: {}", d.loc, d.message));
                }
            }
        }
    }
    out
}

/// The case of the issue: `%x` may be `%A2` or bytes [4096, 8192) of `%A1`; the consumer
/// writes the words `tid` of `%A1`, bytes [0, 512) with 128 threads.
const IF_RESULT: &str = "target gfx950
kernel @k(%c) waves 2 {
  %A1 = buffer workgroup 8192
  %A2 = buffer workgroup 1024
  %G = buffer global 1048576
  %v = view %A1[4096:8192]
  %x = if uniform %c {
    yield %A2
  } else {
    yield %v
  }
  op \"gather_to_lds\" async write %x, read %G
  op \"ds_write_b128\" write %A1[INDEX]
}
";

#[test]
fn if_result_far_from_the_tid_words_gets_no_warning() {
    let w = warnings(&IF_RESULT.replace("INDEX", "tid"), Target::Gfx950, false);
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn if_result_overlapping_the_tid_words_still_warns() {
    // Words tid + 1024: bytes [4096, 4608), inside the else branch's bytes.
    let w = warnings(
        &IF_RESULT.replace("INDEX", "tid + 1024"),
        Target::Gfx950,
        false,
    );
    assert_eq!(w.len(), 1, "{w:?}");
}

/// Double buffering: the copy into `%nxt` and the read of `%cur` of one iteration never meet;
/// the read of the next iteration (the same buffer) is behind the barrier at the end of the
/// body. `%nxt` starts as the result of a loop, which the pass's own places do not separate
/// from `%a`; the barrier pass's regions do.
const ROTATING: &str = "target gfx950
kernel @k(%n) waves 2 {
  %A = buffer workgroup 8192
  %G = buffer global 1048576
  %a = view %A[0:4096]
  %b = view %A[4096:8192]
  %q = for %j = 0 to 2 iter(%u = %b) {
    op \"ds_write\" write %u
    yield %u
  }
  barrier
  for %i = 0 to %n iter(%cur = %a, %nxt = %q) {
    op \"gather_to_lds\" async write %nxt, read %G
    op \"ds_read\" read %cur
    BARRIER
    yield %nxt, %cur
  }
}
";

#[test]
fn rotating_handles_in_one_iteration_get_no_warning() {
    let w = warnings(
        &ROTATING.replace("BARRIER", "barrier"),
        Target::Gfx950,
        false,
    );
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn rotating_handles_without_the_barrier_still_warn() {
    // Without the barrier the next iteration's read of %cur (last iteration's %nxt) meets
    // the copy with no barrier after it, even though the wait before the read completed it.
    let w = warnings(&ROTATING.replace("BARRIER", ""), Target::Gfx950, false);
    assert_eq!(w.len(), 1, "{w:?}");
}

#[test]
fn straight_line_hazard_warns_without_barriers() {
    let src = "target gfx950
kernel @k waves 2 {
  %A = buffer workgroup 4096
  %G = buffer global 1048576
  op \"gather_to_lds\" async write %A, read %G
  op \"ds_read\" read %A[tid]
}
";
    assert_eq!(warnings(src, Target::Gfx950, false).len(), 1);
    // With the barrier pass first: a barrier (and the wait before it), no warning.
    assert!(warnings(src, Target::Gfx950, true).is_empty());
}

#[test]
fn generated_kernels_after_shared_barriers_have_no_warning() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 200 } else { 12 };
    let sizes: &[usize] = if long {
        &[100, 1000, 5000]
    } else {
        &[300, 1000]
    };
    let targets = [
        Target::Gfx950,
        Target::Gfx942,
        Target::Gfx1200,
        Target::Gfx1250,
        Target::Sm90,
    ];
    let mut bad = Vec::new();
    let mut alone = 0;
    for (seed, ops, target, src) in generated(seeds, sizes, &targets) {
        let w = warnings(&src, target, true);
        if let Some(first) = w.first() {
            bad.push(format!(
                "seed {seed}, {ops} ops, {target}: {} ({first})",
                w.len()
            ));
        }
        if seed < 3 {
            alone += warnings(&src, target, false).len();
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The same kernels without barriers do have unpublished copies: the warning is alive.
    assert!(alone > 0);
}

/// `gen --executable --seed 77` (sm_90): a copy into the rotating handle's `%nxt[tid]` and a
/// store to `%B[tid]`: when `%nxt` is `%B`, each word is the copying thread's own, which the
/// wait alone orders; the barrier pass sees no hazard there, so no warning either. The same
/// with the store to another thread's word is a hazard between waves: it warns when the
/// pass runs alone, and gets its barrier (no warning) after shared-barriers.
const OWN_WORD: &str = "target sm_90
kernel @k(%n = 2) waves 2 {
  %A = buffer workgroup 512
  %B = buffer workgroup 512
  %G = buffer global 4096
  for %i = 0 to %n max 4 iter(%cur = %A, %nxt = %B) {
    op \"cp\" async write %nxt[tid], read %G[tid]
    op \"st\" write %B[INDEX]
    yield %nxt, %cur
  }
}
";

#[test]
fn copy_to_a_threads_own_word_gets_no_warning() {
    let w = warnings(&OWN_WORD.replace("INDEX", "tid"), Target::Sm90, true);
    assert!(w.is_empty(), "{w:?}");
    let w = warnings(&OWN_WORD.replace("INDEX", "tid"), Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
}

#[test]
fn copy_to_another_threads_word_still_warns_alone() {
    let w = warnings(&OWN_WORD.replace("INDEX", "-tid + 63"), Target::Sm90, false);
    assert_eq!(w.len(), 1, "{w:?}");
    let w = warnings(&OWN_WORD.replace("INDEX", "-tid + 63"), Target::Sm90, true);
    assert!(w.is_empty(), "{w:?}");
}

/// A copy in an inner loop whose address depends only on the outer loop's induction variable
/// (sm_90 `--executable` seed 167): around the inner back edge it meets its own words from
/// the same threads. Paths that cross only the inner loop leave it in the outer loop's
/// iteration (distance 0 there, not "any"): no warning, and the barrier pass places no
/// barrier in the inner loop either. With the inner variable in the address, the copy of
/// the previous inner iteration lands in another wave's words: it warns.
const INNER_LOOP_COPY: &str = "target sm_90
kernel @k(%n = 1) waves 4 {
  %D = buffer workgroup 2048
  %G = buffer global 8192
  for %i = 0 to 3 {
    %w = view %D slot (%i) mod 2
    barrier
    for %j = 0 to 4 {
      op \"cp\" async write %w[INDEX], read %G[tid + %j * 128]
    }
  }
}
";

#[test]
fn copy_in_inner_loop_over_outer_variable_gets_no_warning() {
    let src = INNER_LOOP_COPY.replace("INDEX", "tid + %i * 32 + 64");
    let w = warnings(&src, Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
    assert!(warnings(&src, Target::Sm90, true).is_empty());
    let mut k = syncopt_ir::parse(&src).expect("parses").chunks[0].kernels[0].clone();
    syncopt_barriers::run(&mut k, Target::Sm90, &InsertOptions::default());
    let text = syncopt_ir::print_kernel(&k);
    assert_eq!(text.matches("barrier").count(), 1, "{text}");
    syncopt_async_waits::run(&mut k, Target::Sm90, &InsertOptions::default());
    assert!(syncopt_verify::verify(&k, Target::Sm90).is_ok(), "{text}");
}

#[test]
fn copy_in_inner_loop_over_inner_variable_still_warns_alone() {
    let src = INNER_LOOP_COPY.replace("INDEX", "tid + %j * 32");
    let w = warnings(&src, Target::Sm90, false);
    assert!(!w.is_empty());
    assert!(warnings(&src, Target::Sm90, true).is_empty());
}

/// A copy that leaves a loop the verifier unrolls (constant start, 2 trips) by its exit comes
/// from the last iteration: iteration 0's copy was published by the barrier at the top of
/// iteration 1. With "st" on the last copy's own words (`tid + 32`) a wait orders them, no
/// warning; a warp further (`tid + 64`), or with one trip (the copy in flight is iteration
/// 0's, word `tid`), "st" is another wave's word: the warning stays.
#[test]
fn copy_from_an_exact_loops_last_iteration() {
    let src = |trips: u32, st: &str| {
        format!(
            "target sm_90
kernel @k(%n = 1) waves 2 {{
  %A = buffer workgroup 512
  %G = buffer global 4096
  for %i = 0 to {trips} {{
    barrier
    op \"ld\" read %A[-tid + 63]
    barrier
    op \"cp\" async write %A[tid + %i * 32], read %G[tid]
  }}
  op \"st\" write %A[{st}]
}}
"
        )
    };
    assert!(warnings(&src(2, "tid + 32"), Target::Sm90, false).is_empty());
    assert_eq!(warnings(&src(2, "tid + 64"), Target::Sm90, false).len(), 1);
    assert_eq!(warnings(&src(1, "tid + 32"), Target::Sm90, false).len(), 1);
}

/// A copy before a loop and a copy in the loop's first iteration into the same words of the
/// same thread (campaign seed 28 at 100 ops, reduced): with the barrier pass's barrier no
/// warning; without it the later iterations, other threads' words, warn.
const FIRST_ITERATION_WORDS: &str = "target gfx950
kernel @k(%n = 4) waves 4 {
  %B = buffer workgroup 2048
  %G = buffer global 16384
  op \"cp_a\" async write %B[tid], read %G[tid + 64]
  for %i = 0 to 4 {
    op \"cp_b\" async write %B[tid + 64 * %i], read %G[tid + 512 * %i]
  }
  op \"ds\" write %B
}
";

#[test]
fn first_iteration_words_get_no_warning_after_shared_barriers() {
    quiet_only_after_barriers(FIRST_ITERATION_WORDS, Target::Gfx950);
}

/// A copy leaving its loop, then a consumer in two loops entered after it (campaign seed 251
/// at 200 ops on gfx942, reduced): the second iteration of the inner loop writes words the
/// copy wrote from other waves. Without a barrier that warns; with the barrier pass's, not.
const FIRST_ITERATION_AFTER_A_LOOP: &str = "target gfx942
kernel @k(%n = 1) waves 2 {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 8192
  for %i = 0 to 4 {
    op \"cp\" async write %B[tid + 128], read %G[tid + 64 + 256 * %i]
  }
  for %j = 0 to %n max 4 iter(%c = %B, %x = %A) {
    for %k = 0 to 2 iter(%c2 = %A, %x2 = %x) {
      op \"st\" write %B[tid + 64 * %k]
      yield %x2, %c2
    }
    yield %x, %c
  }
}
";

#[test]
fn first_iteration_after_the_copy_loop_gets_no_warning() {
    quiet_only_after_barriers(FIRST_ITERATION_AFTER_A_LOOP, Target::Gfx942);
}

/// No warning after shared-barriers, a warning without it.
fn quiet_only_after_barriers(src: &str, t: Target) {
    assert_eq!(warnings(src, t, true), Vec::<String>::new());
    assert!(!warnings(src, t, false).is_empty());
}

/// `gen --ops 100 --seed 195 --target gfx950`, reduced: the `if` on `%i10` is decided in each
/// iteration of the exactly run loop; the copy the then branch issues is guarded by that
/// branch as at a join, so `ds_write` through `%x11` (`%A0` there) does not use it and the
/// barrier pass's single barrier draws no "run shared-barriers first".
#[test]
fn a_decided_branch_guards_its_copies() {
    let src = "target gfx950

kernel @k(%n = 0, %c = 1) waves 4 {
  %A0 = buffer workgroup 2048
  %A2 = buffer workgroup 8192
  %G = buffer global 1048576
  for %i10 = 0 to 16 step 4 {
    %x11 = if uniform %i10 < 2 {
      op \"gather_to_lds\" async write %A2, read %G
      yield %A0
    } else {
      yield %A2
    }
    op \"ds_write_b128\" write %x11
  }
}
";
    assert!(warnings(src, Target::Gfx950, true).is_empty());
    // The same copy left unguarded (no barrier pass): the warning is alive.
    assert!(!warnings(src, Target::Gfx950, false).is_empty());
}

/// `gen --ops 100 --seed 197 --target gfx950`, reduced: the copy through the inner loop's
/// handle writes `%v6` in the last of its 4 trips; the path from it to the next outer trip's
/// read of `%A2` leaves the inner loop from that trip, then goes round the outer one
/// (`Reach::past`). The barrier pass's one barrier (in the inner loop) draws no warning;
/// with 3 trips the last copy writes `%v8`, in `%A2`, and the barrier pass puts one at the
/// outer loop's head too. Without barriers both warn.
#[test]
fn a_copy_from_an_inner_loops_last_trip_stays_in_its_place() {
    let src = |trips: u32| {
        format!(
            "target gfx950
kernel @k(%n = 3) waves 2 {{
  %A2 = buffer workgroup 1024
  %A3 = buffer workgroup 6144
  %G = buffer global 1048576
  %v6 = view %A3[0:3072]
  %v8 = view %A2[512:1024]
  for %i14 = 0 to %n {{
    op \"ds_read\" read %A2
    for %i15 = 0 to {} step 4 iter(%h16 = %v6, %h17 = %v8) {{
      op \"gather_to_lds\" async write %h17, read %G
      yield %h17, %h16
    }}
  }}
}}
",
            4 * trips
        )
    };
    for trips in [3, 4] {
        let s = src(trips);
        quiet_only_after_barriers(&s, Target::Gfx950);
        let file = syncopt_ir::parse(&s).expect("test kernel parses");
        let mut k = file.chunks[0].kernels[0].clone();
        syncopt_barriers::run(&mut k, Target::Gfx950, &InsertOptions::default());
        let text = syncopt_ir::print_kernel(&k);
        let n = text.lines().filter(|l| l.trim() == "barrier").count();
        assert_eq!(n, if trips == 4 { 1 } else { 2 }, "{text}");
    }
}

/// `gen --ops 100 --seed 8 --target sm_90`, reduced: a copy of the inner loop's last trip
/// (`%A1`) goes round the outer loop into the inner loop's next run, whose first trip writes
/// `%A2` (`Reach::again` unset: compared in that first trip). After the barrier pass's one
/// barrier no warning; without barriers the copies of one trip warn.
#[test]
fn a_copy_meets_its_loops_next_run_in_the_first_trip() {
    let src = "target sm_90
kernel @k(%n = 3, %c = 1) waves 32 {
  %A0 = buffer workgroup 2048
  %A1 = buffer workgroup 1024 at %A0
  %A2 = buffer workgroup 8192
  %A3 = buffer workgroup 6144
  %G = buffer global 1048576
  for %i22 = 0 to 16 step 4 iter(%h23 = %A3, %h24 = %A0) {
    for %i25 = 0 to 16 iter(%h26 = %A1, %h27 = %A2) {
      op \"cp_async\" async write %h27, read %G
      op \"cp_async\" async write %h27, read %G[0:4096]
      yield %h27, %h26
    }
    yield %h24, %h23
  }
}
";
    quiet_only_after_barriers(src, Target::Sm90);
}

/// `gen --ops 5000 --seed 66 --target gfx942`: a copy through `%h639` in a 4-trip loop whose
/// inner loops may run no trip, and, after the loop, a copy through `%h646` in the first trip
/// of the next loop. The barrier pass compares the second in its first-trip form (`%r292`)
/// and places no barrier between them. The paths between cross the inner loops' back edges,
/// which used to make every later point "not in a first trip" here (`Reach::later` was one
/// bit); it is the outermost loop crossed that is still around the point now, forgotten at
/// its exit, so the first trip of `%i644` is one again: no warning.
#[test]
fn a_loop_left_behind_leaves_the_next_loops_first_trip_alone() {
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops: 5000,
        seed: 66,
        target: Target::Gfx942,
        executable: false,
    });
    assert!(
        src.contains("iter(%h645 = %x472, %h646 = %r292)"),
        "the generator changed"
    );
    let w = warnings(&src, Target::Gfx942, true);
    assert!(w.is_empty(), "{w:?}");
}

/// `gen --ops 5000 --seed 67 --target gfx1200`, reduced: a copy through a rotating handle
/// before a parity branch. A reader in the odd branch meets it bound (`%A0`, this check and
/// the barrier pass alike). The read after the loop is reached from the odd branch too, the
/// loop's last trip: the path told the copy's residue there (`Reach::res`; the barrier pass's
/// `Key::ares`), so the copy wrote `%A0`, and a read of `%A1` after the loop meets it neither
/// way (until session 17 this check took the copy unbound there and warned without the
/// barrier pass; the barrier pass once bound the copy for every later reader, placed no
/// barrier, and this warned). A read of `%A0` after the loop needs the barrier pass's barrier.
#[test]
fn a_copy_bound_in_a_parity_branch_leaves_in_its_residue() {
    let src = "target gfx950
kernel @k(%n = 4) waves 8 {
  %A0 = buffer workgroup 1024
  %A1 = buffer workgroup 1024
  %A2 = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to %n iter(%h0 = %A0, %h1 = %A1) {
    barrier
    op \"gather_to_lds\" async write %h1[tid], read %G[tid * 4]
    if uniform (%i + 1) mod 2 == 0 {
      op \"ds_read\" read %A2
    } else {
      op \"ds_write\" write %A2
      barrier
      op \"ds_read\" read %A2
    }
    yield %h1, %h0
  }
  op \"ds_read\" read %A1
}
";
    assert_eq!(warnings(src, Target::Gfx950, true), Vec::<String>::new());
    assert_eq!(warnings(src, Target::Gfx950, false), Vec::<String>::new());
    let other = src.replace("read %A1\n}", "read %A0\n}");
    assert_ne!(other, src);
    quiet_only_after_barriers(&other, Target::Gfx950);
}

/// `gen --ops 100 --seed 757 --target sm_90`, reduced: the copy into `%A0[768:1024]` runs in
/// the odd iterations only, so the copy through `%h13` one back edge later is the even
/// iterations' (`%A3`): the barrier pass places no barrier between them, and this check binds
/// a consumer met over one back edge of the loop (`Carried::One`) to the next residue.
#[test]
fn a_copy_of_one_residue_meets_the_next_residues_handles() {
    let src = "target gfx950
kernel @k(%n = 16) waves 16 {
  %A0 = buffer workgroup 1024
  %A1 = buffer workgroup 512 at %A0 + 512
  %A3 = buffer workgroup 8192
  %G = buffer global 1048576
  for %i = 0 to %n iter(%h12 = %A1, %h13 = %A3) {
    op \"gather_to_lds\" async write %h13, read %G
    if uniform (%i + 1) mod 2 == 0 {
      op \"gather_to_lds\" async write %A0[768:1024], read %G[tid + 2]
    }
    yield %h13, %h12
  }
}
";
    quiet_only_after_barriers(src, Target::Gfx950);
}

/// Generated seed 179 (1,000 ops, sm_90), reduced: a copy in the odd iterations meets the
/// read of the next odd iteration only through the even one between, whose branch has a
/// barrier; the odd branch is not a path of the next iteration (`Analysis::enter_residue`, as
/// the barrier pass's `Key::res` does not follow it). Without the even branch's barrier, the
/// copy reaches the read two iterations on: the warning.
#[test]
fn a_copy_of_one_residue_skips_the_next_iteration_of_its_branch() {
    let src = "target sm_90
kernel @k(%n) waves 2 {
  %A = buffer workgroup 4096
  %G = buffer global 65536
  for %i = 0 to %n max 64 {
    if uniform (%i + 1) mod 2 == 0 {
      op \"ldmatrix\" read %A
      barrier
      op \"cp_async\" async write %A, read %G
    } else {
      barrier
    }
  }
}
";
    quiet_until(
        src,
        Target::Sm90,
        ("    } else {\n      barrier\n    }", "    }"),
    );
}

/// Generated seed 149 (5,000 ops, sm_90), reduced: a copy before two loops meets a write in
/// the odd iterations of the inner one only in that loop's first iteration (every iteration
/// ends with a barrier), which is even: no path (`Reach::crossed`: no back edge of the inner
/// loop crossed since it was entered, even where the outer loop's was). In the even
/// iterations, the warning.
#[test]
fn a_copy_from_before_a_loop_skips_the_branches_its_first_iteration_skips() {
    let src = "target sm_90
kernel @k(%n) waves 2 {
  %A = buffer workgroup 4096
  %G = buffer global 65536
  op \"cp_async\" async write %A, read %G
  for %i = 0 to %n {
    for %j = 0 to %n max 64 {
      if uniform (%j + 1) mod 2 == 0 {
        op \"stmatrix\" write %A
      }
      barrier
    }
  }
}
";
    quiet_until(src, Target::Sm90, ("(%j + 1) mod 2 == 0", "%j mod 2 == 0"));
}

/// Executable seed 105 (100 ops), reduced: a copy in the odd iterations into slot 0, a read
/// of slot `(%i11 + 1) mod 2` before the barrier of each iteration. The copy of the last
/// iteration of one run meets the next run's first read, of slot 1: the copy is one place in
/// its residue (its form there, `Residues` of the check), and the read is in the first
/// iteration of the run (`Reach::past`). Without the barrier after the read, the read two
/// iterations on meets the copy: the warning.
#[test]
fn a_copy_in_one_residue_is_one_place_after_its_loop() {
    let src = "target gfx950
kernel @k(%n = 4) waves 2 {
  %D = buffer workgroup 2048
  %G = buffer global 8192
  for %i10 = 0 to 2 {
    for %i11 = 0 to %n max 4 {
      %r11 = view %D slot (%i11 + 1) mod 2
      op \"ld_90\" read %r11[tid + %i10 * 64 + 64]
      barrier
      if uniform %i11 mod 2 == 0 {
      } else {
        op \"gather_to_lds\" async write %r11[tid + 128], read %G[tid + %i11 * 256]
      }
    }
  }
}
";
    quiet_until(src, Target::Gfx950, ("      barrier\n      if", "      if"));
}

/// `src` alone (no barrier pass) warns of nothing; with `from` replaced by `to`, once.
fn quiet_until(src: &str, target: Target, (from, to): (&str, &str)) {
    assert!(warnings(src, target, false).is_empty());
    let other = src.replace(from, to);
    assert_ne!(other, src);
    assert_eq!(warnings(&other, target, false).len(), 1);
}

/// Plain gen seed 4306 (gfx950 at 100 ops), reduced: `%r15` and `%r16` are two results of one
/// run of the inner loop, different memory in the copy's iteration of the loop around
/// (`Region::run`): shared-barriers keeps no barrier between the copy into one and the write
/// to the other, and the check finds nothing unpublished either. The write to `%r15` gets
/// its barrier; without shared-barriers the check warns about it.
#[test]
fn copies_into_one_result_of_a_run_meet_no_write_to_the_other() {
    let src = "target gfx950
kernel @k(%n = 3, %c = 1) waves 4 {
  %A0 = buffer workgroup 2048
  %A1 = buffer workgroup 6144
  %G = buffer global 1048576
  for %i11 = 0 to 4 {
    %r15, %r16 = for %i12 = 0 to %n min 1 max 16 iter(%h13 = %A1, %h14 = %A0) {
      yield %h14, %h13
    }
    op \"gather_to_lds\" async write %r15, read %G[tid * 4]
    op \"ds_write\" write %r16
  }
}
";
    assert_eq!(warnings(src, Target::Gfx950, true), Vec::<String>::new());
    let same = src.replace("write %r16", "write %r15");
    assert_eq!(warnings(&same, Target::Gfx950, true), Vec::<String>::new());
    assert!(!warnings(&same, Target::Gfx950, false).is_empty());
}

/// Plain gen seed 2898 (sm_90 at 100 ops), reduced: the copy of the inner loop's last trip
/// lands in `%r4` (the result that trip yields `%h3` to); straight out of the loop, the read
/// of `%r5`, the other result of that run, is other memory. Shared-barriers keeps no barrier
/// before the read, and the check, which binds the copy to that form
/// (`Accesses::bind_run_lasts`), finds nothing unpublished; without shared-barriers it warns.
#[test]
fn a_copy_from_a_nested_loops_last_trip_meets_no_read_of_the_other_result() {
    let src = "target sm_90
kernel @k(%n = 1, %c = 1) waves 16 {
  %A0 = buffer workgroup 1024
  %A2 = buffer workgroup 6144
  %A4 = buffer workgroup 3072 aliases %A2
  %G = buffer global 1048576
  for %i0 = 0 to 16 step 4 {
    op \"ldmatrix\" read %A4[tid]
    %r4, %r5 = for %i1 = 0 to %n iter(%h2 = %A0, %h3 = %A4) {
      op \"cp_async\" async write %h3, read %G
      yield %h3, %h2
    }
    op \"ld_shared\" read %r5
    op \"lds_add\" atomic %A4
  }
}
";
    assert_eq!(warnings(src, Target::Sm90, true), Vec::<String>::new());
    assert!(!warnings(src, Target::Sm90, false).is_empty());
}

/// Plain gen seed 144 (sm_90 at 1,000 ops, `SYNCOPT_LONG`), reduced: the inner loop of unknown
/// trips copies into `%h138`, started from the outer handle `%h133`; the next trip of the
/// outer loop copies into its next `%h133`. The barrier pass takes the copy's exit form out of
/// the inner loop (`{%v58, %h133}`, several places) through the last trip of the loop around
/// only (`PIN_LAST`), as the check does (`Reach::then_last`): no warning after
/// shared-barriers (see `a_copy_out_of_an_inner_loop_then_the_loop_around_takes_its_last_trip_form`).
const SEED_144: &str = "target sm_90
kernel @k(%n = 3, %c = 1) waves 4 {
  %A1 = buffer workgroup 3072
  %A2 = buffer workgroup 4096
  %A4 = buffer workgroup 2048 at %A2 + 2048
  %G = buffer global 1048576
  %v13 = view %A2[0:2048]
  %v37 = view %A4[0:1024]
  %v58 = view %v37[0:512]
  %v104 = view %A1[0:1536]
  for %i130 = 0 to %n min 1 max 16 {
    %r134, %r135 = for %i131 = 0 to 16 step 4 iter(%h132 = %v13, %h133 = %v104) {
      op \"cp_async\" async write %h133, read %G
      for %i136 = 0 to %n min 1 max 16 iter(%h137 = %v58, %h138 = %h133) {
        op \"cp_async\" async write %h138, read %G
        yield %h138, %h137
      }
      yield %h133, %h132
    }
  }
}
";

#[test]
fn a_copy_out_of_an_inner_loop_of_unknown_trips_gets_no_warning() {
    let src = SEED_144;
    assert_eq!(warnings(src, Target::Sm90, true), Vec::<String>::new());
    assert!(!warnings(src, Target::Sm90, false).is_empty());
}

/// A copy made in some trips of an unrolled loop, out of it (`Reach::left`): its form
/// without those trips, in the same trip of the loop around, as the barrier pass leaves it
/// (executable seed 216 at 200 ops). The barrier pass places no barrier at the top of the
/// outer body, and the check finds the next outer trip's read of the other slot apart.
#[test]
fn a_copy_of_some_trips_of_an_inner_loop_gets_no_warning_out_of_it() {
    let src = "target gfx950
kernel @k(%n = 3) waves 2 {
  %D = buffer workgroup 2048
  %G = buffer global 8192
  for %i = 0 to %n max 4 {
    %r = view %D slot (%i + 1) mod 2
    op \"ld_191\" read %r[-tid + 127]
    for %j = 0 to 4 {
      if uniform %j mod 2 == 0 {
        op \"cp_async_193\" async write %r, read %G[5120:6144]
      }
    }
  }
}
";
    assert!(warnings(src, Target::Gfx950, true).is_empty());
    assert!(warnings(src, Target::Sm90, true).is_empty());
}

/// Plain gen seed 79 at 1000 ops (sm_90), reduced, with the barriers the barrier pass places:
/// the copy in the odd trips of `%i` meets the read of `%A` in the next odd trip, past the
/// even trip's barrier (the branches alternate). Leaving `%k`, the copy's paths meet, at the
/// end of the `if`, those of the next trip of `%j` that skipped it; their join keeps what
/// both tell, that no back edge of a loop around `%j` was crossed (`Carried::Loop` of `%j`:
/// `Many` before), so at `%i`'s back edge the check still knows the copy's residue and the
/// next odd trip lies past the even one. Without the even trip's barrier it warns.
const ALTERNATING: &str = "target sm_90
kernel @k(%n = 3) {
  %A = buffer workgroup 3072
  %B = buffer workgroup 3072
  %C = buffer workgroup 8192
  %G = buffer global 1048576
  op \"st\" write %C
  for %i = 0 to %n {
    if uniform (%i + 1) mod 2 == 0 {
      op \"ld\" write %B, read %A
      for %j = 0 to 4 {
        if uniform %i < 2 {
          for %k = 0 to 4 {
            barrier
            op \"cp_async\" async write %A, read %G
          }
        }
      }
    } else {
      EVEN
      op \"ld_shared\" read %C
    }
  }
}
";

#[test]
fn a_copy_leaving_inner_loops_keeps_the_residue_of_the_loop_around() {
    let w = warnings(&ALTERNATING.replace("EVEN", "barrier"), Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
    let w = warnings(&ALTERNATING.replace("EVEN", ""), Target::Sm90, false);
    assert_eq!(w.len(), 1, "{w:?}");
}

/// The barriers the barrier pass places for a copy in the odd trips of a loop with rotating
/// handles (plain gen seed 1160 at 100 ops on sm_90, simplified): the even trip's barrier
/// orders the copy before the next even trip's read, and leaving the loop from an odd last
/// trip, after an even trip count, `%r4` holds `%A0`, which the copy (into `%A1` there) never
/// writes. The check takes the results in their form after the trip count that the copy's
/// residue tells (`Accesses::top_exit_forms`, the barrier pass's `Key::exit`): no warning.
/// `%r3` holds `%A1` then: the copy is read with no barrier after it, a warning (and a race).
const AFTER_COUNT: &str = "target sm_90
kernel @k(%n = 3) {
  %A0 = buffer workgroup 2048
  %A1 = buffer workgroup 2048
  %G = buffer global 1048576
  %r3, %r4 = for %i = 0 to %n max 8 iter(%h1 = %A1, %h2 = %A0) {
    if uniform (%i + 1) mod 2 == 0 {
      for %j = 0 to %n max 64 {
        barrier
        op \"cp_async\" async write %h2, read %G
      }
    } else {
      barrier
      op \"ldmatrix\" read %h1
    }
    yield %h2, %h1
  }
  op \"ldmatrix\" read RESULT
}
";

#[test]
fn a_copy_of_the_last_trip_meets_the_results_after_the_count_its_residue_tells() {
    let w = warnings(&AFTER_COUNT.replace("RESULT", "%r4"), Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
    let w = warnings(&AFTER_COUNT.replace("RESULT", "%r3"), Target::Sm90, false);
    assert_eq!(w.len(), 1, "{w:?}");
}

/// `ALTERNATING` with the odd trips' copies into `%A` in two loops one after the other, the
/// second of which may run no trip: past it the copies of both loops are one entry (one
/// place), whose paths left different loops inside `%i`. Their join keeps that they stay in
/// the copies' iteration of `%i` (`Carried::Within`; `Many` before, plain gen seed 1160 at
/// 100 ops on sm_90), so the next odd trip still lies past the even one: no warning with the
/// even trip's barrier, a warning per copy without it.
const SIBLINGS: &str = "target sm_90
kernel @k(%n = 3) {
  %A = buffer workgroup 3072
  %B = buffer workgroup 3072
  %C = buffer workgroup 8192
  %G = buffer global 1048576
  op \"st\" write %C
  for %i = 0 to %n {
    if uniform (%i + 1) mod 2 == 0 {
      op \"ld\" write %B, read %A
      for %j = 0 to 4 {
        barrier
        op \"cp_async\" async write %A, read %G
      }
      for %k = 0 to %n {
        barrier
        op \"cp_async\" async write %A, read %G[tid]
      }
    } else {
      EVEN
      op \"ld_shared\" read %C
    }
  }
}
";

#[test]
fn copies_leaving_sibling_loops_keep_the_residue_of_the_loop_around() {
    let w = warnings(&SIBLINGS.replace("EVEN", "barrier"), Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
    let w = warnings(&SIBLINGS.replace("EVEN", ""), Target::Sm90, false);
    assert_eq!(w.len(), 2, "{w:?}");
}

/// Executable seed 3485 (100 ops), reduced, with the barrier the barrier pass leaves: the
/// copies of the inner loop of unknown trips write `%D` or the outer trip's `%cur`. Out of the
/// inner loop from some trip (`Reach::left`) the check takes the copy's exit form, bound to the
/// first outer trip across the two-trip back edge (`Carried::One` of a loop of at most two
/// trips, as the consumer is bound to the last), and to the outer loop's last trip out of it.
/// The next trip's read of its `%cur` and the read of `%A` after the loop meet neither; the
/// read of `%nxt` (the buffer the first trip's copies wrote) and of `%B` after the loop still
/// warn, as the verifier finds those races.
const EXIT_FORM_THROUGH_TWO_TRIPS: &str = "target gfx950
kernel @k(%n = 2) waves 8 {
  %A = buffer workgroup 4096
  %B = buffer workgroup 4096
  %D = buffer workgroup 8192
  %G = buffer global 32768
  for %i = 0 to 2 iter(%cur = %A, %nxt = %B) {
    wait vmcnt(0)
    op \"ds_read\" read TOP[tid + %i * 64 + 128]
    %d = view %D[0:4096]
    barrier
    for %j = 0 to %n max 4 iter(%c = %cur, %x = %d) {
      op \"gather_to_lds\" async write %x[tid + 512], read %G[tid + %j * 1024 + 448]
      yield %x, %c
    }
    yield %nxt, %cur
  }
  wait vmcnt(0)
  op \"ds_read\" read AFTER
}
";

#[test]
fn a_copy_out_of_an_inner_loop_meets_the_outer_trips_in_its_exit_form() {
    let k = |top: &str, after: &str| {
        EXIT_FORM_THROUGH_TWO_TRIPS
            .replace("TOP", top)
            .replace("AFTER", after)
    };
    let w = warnings(&k("%cur", "%A"), Target::Gfx950, false);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(warnings(&k("%nxt", "%A"), Target::Gfx950, false).len(), 1);
    assert_eq!(warnings(&k("%cur", "%B"), Target::Gfx950, false).len(), 1);
}

/// Plain gen seed 144 (sm_90 at 1,000 ops), reduced as above, with the barrier the barrier
/// pass now leaves (none after the inner loop): the inner loop's copies, in their exit form
/// `{%v58, %h133}`, leave the exact loop around from its last trip (`Reach::then_last`), where
/// `%h133` holds `%v13` after four trips; its next run's first trip writes `%v104`
/// (`Reach::last_again` clear). After three trips the last one's `%h133` is `%v104`: a race
/// the verifier finds, and a warning.
#[test]
fn a_copy_out_of_an_inner_loop_then_the_loop_around_takes_its_last_trip_form() {
    let inner = "%h138 = %h133) {\n";
    assert!(SEED_144.contains(inner));
    let src = &SEED_144.replace(inner, &format!("{inner}        barrier\n"));
    let w = warnings(src, Target::Sm90, false);
    assert!(w.is_empty(), "{w:?}");
    let three = src.replace("0 to 16 step 4", "0 to 12 step 4");
    assert_eq!(warnings(&three, Target::Sm90, false).len(), 1);
}

/// Executable seed 18142 (100 ops), reduced, with the barriers the barrier pass leaves: a
/// copy of an odd trip skips the even branch's barriers and meets the next trip's read of
/// `%nxt`, which holds `%D` in the even trips. The copy's paths told its residue
/// (`Reach::res`): one back edge later the consumer takes the next residue's form, as for a
/// copy in a residue branch. With the inner loop in the odd trips instead, the even trip's
/// copy meets the odd trip's read of `%A`: a race, and a warning.
#[test]
fn a_copy_whose_paths_told_its_residue_meets_the_next_residues_handles() {
    let src = "target gfx950
kernel @k(%n = 2) waves 4 {
  %A = buffer workgroup 2048
  %D = buffer workgroup 4096
  %G = buffer global 16384
  %d = view %D[0:2048]
  for %i = 0 to %n max 4 iter(%cur = %A, %nxt = %d) {
    op \"ds_read\" read %nxt[tid + 192]
    barrier
    op \"gather_to_lds\" async write %A[tid + %i * 64], read %G[tid + %i * 512 + 64]
    if uniform %i mod 2 == 0 {
      for %j = 0 to 4 {
        %r = view %D slot (%j + 1) mod 2
        op \"ds_write\" write %r
        barrier
      }
    }
    yield %nxt, %cur
  }
}
";
    let w = warnings(src, Target::Gfx950, false);
    assert!(w.is_empty(), "{w:?}");
    let odd = src.replace("%i mod 2 == 0", "%i mod 2 == 1");
    assert_eq!(warnings(&odd, Target::Gfx950, false).len(), 1);
}
