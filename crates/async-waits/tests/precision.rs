//! Precision cases behind the maximality rate of gen_pipeline.rs: a copy in flight on one
//! branch of `%x = if ... yield` only, read through `%x` naming another buffer on that branch;
//! and conditions on the induction variable of a loop with an exact trip count, decided per
//! iteration like the verifier does; a loop's first iteration (its induction variable pinned,
//! prologue copies seen as slots) and handles bound by a parity condition (issue 4). Each has
//! a sound counterpart that must keep its wait.

mod common;
use common::check;

const IF_RESULT: &str = "target gfx1250
kernel @k(%c) {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  op \"tensor_load\" async write %A
  %x = if uniform %c {
    wait tensorcnt(0)
    barrier.signal -1
    barrier.wait -1
    yield %A
  } else {
    yield %ELSE
  }
  barrier.signal -1
  barrier.wait -1
  op \"ds_read\" read %x
}
";

#[test]
fn if_result_naming_another_buffer_on_the_in_flight_branch_needs_no_wait() {
    // Then: the copy completed (input wait). Else: still in flight, but %x is %B there.
    check(
        &IF_RESULT.replace("%ELSE", "%B"),
        &[
            "op \"tensor_load\" async write %A",
            "%x = if uniform %c {",
            "wait tensorcnt(0)",
            "barrier.signal -1",
            "barrier.wait -1",
            "yield %A",
            "} else {",
            "yield %B",
            "}",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %x",
            "}",
        ],
    );
}

#[test]
fn if_result_naming_the_copied_buffer_keeps_the_wait() {
    check(
        &IF_RESULT.replace("%ELSE", "%A"),
        &[
            "op \"tensor_load\" async write %A",
            "%x = if uniform %c {",
            "wait tensorcnt(0)",
            "barrier.signal -1",
            "barrier.wait -1",
            "yield %A",
            "} else {",
            "yield %A",
            "}",
            "wait tensorcnt(0)",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %x",
            "}",
        ],
    );
}

const IV_COND: &str = "target gfx1250
kernel @k() {
  %A = buffer workgroup 1024
  for %i = 0 to 4 {
    op \"ds_read\" read %A
    barrier.signal -1
    barrier.wait -1
    if uniform %i == LAST {
      op \"tensor_load\" async write %A
    }
    barrier.signal -1
    barrier.wait -1
  }
}
";

#[test]
fn copy_only_in_the_last_iteration_is_never_read_again() {
    // `%i == 3` holds in the last of 4 iterations only: no later read of %A follows the copy.
    check(
        &IV_COND.replace("LAST", "3"),
        &[
            "for %i = 0 to 4 {",
            "op \"ds_read\" read %A",
            "barrier.signal -1",
            "barrier.wait -1",
            "if uniform %i == 3 {",
            "op \"tensor_load\" async write %A",
            "}",
            "barrier.signal -1",
            "barrier.wait -1",
            "}",
            "}",
        ],
    );
}

#[test]
fn copy_in_an_earlier_iteration_keeps_the_wait() {
    check(
        &IV_COND.replace("LAST", "2"),
        &[
            "for %i = 0 to 4 {",
            "op \"ds_read\" read %A",
            "barrier.signal -1",
            "barrier.wait -1",
            "if uniform %i == 2 {",
            "op \"tensor_load\" async write %A",
            "}",
            "wait tensorcnt(0)",
            "barrier.signal -1",
            "barrier.wait -1",
            "}",
            "}",
        ],
    );
}

const DIVERGENT: &str = "target gfx1250
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  op \"tensor_load\" async write %A
  %x = if UNIFORMITY {
    wait tensorcnt(0)
    yield %A
  } else {
    yield %B
  }
  barrier.signal -1
  barrier.wait -1
  op \"ds_read\" read %x
}
";

#[test]
fn divergent_if_result_is_either_yield_for_other_waves() {
    // A wave on the else branch still has the copy in flight while a wave on the then branch
    // reads %A through %x: the barrier must wait. Uniform: every wave takes one branch.
    let tail = [
        "barrier.signal -1",
        "barrier.wait -1",
        "op \"ds_read\" read %x",
        "}",
    ];
    let mut want = vec![
        "op \"tensor_load\" async write %A",
        "%x = if divergent tid < 32 {",
        "wait tensorcnt(0)",
        "yield %A",
        "} else {",
        "yield %B",
        "}",
        "wait tensorcnt(0)",
    ];
    want.extend(tail);
    check(
        &DIVERGENT.replace("UNIFORMITY", "divergent tid < 32"),
        &want,
    );
    let mut want = vec![
        "op \"tensor_load\" async write %A",
        "%x = if uniform %c {",
        "wait tensorcnt(0)",
        "yield %A",
        "} else {",
        "yield %B",
        "}",
    ];
    want.extend(tail);
    check(
        &DIVERGENT
            .replace("UNIFORMITY", "uniform %c")
            .replace("@k()", "@k(%c)"),
        &want,
    );
}

const WORDS: &str = "target gfx950
kernel @k() waves 4 {
  %A = buffer workgroup 4096
  %G = buffer global 4096
  op \"gather_to_lds\" async write %A[0:1024], read %G
  op \"gather_to_lds\" async write %A[2048:3072], read %G
  barrier
  op \"ds_read\" read %A[INDEX]
}
";

#[test]
fn thread_indexed_words_are_bounded_by_the_workgroup_size() {
    // 4 waves of 64 threads: `%A[tid]` is bytes [0, 1024), so only the older copy is read;
    // `%A[tid * 8]` reaches byte 8164 and reads the younger one too.
    for (index, n) in [("tid", "1"), ("tid * 8", "0")] {
        let src = WORDS.replace("INDEX", index);
        let read = format!("op \"ds_read\" read %A[{index}]");
        let wait = format!("wait vmcnt({n})");
        check(
            &src,
            &[
                "op \"gather_to_lds\" async write %A[0:1024], read %G",
                "op \"gather_to_lds\" async write %A[2048:3072], read %G",
                &wait,
                "barrier",
                &read,
                "}",
            ],
        );
    }
}

/// crates/emit/tests/data/cp_async_pipeline_sm_80.sk: the prologue copies are slots 0 and 1
/// of the loop's slotting; %nxt is slot 2 in the first iteration (pinned `%k = 0`) and slot 0
/// in the second, where the in-loop `cp_async.wait 2; barrier` of the first has published
/// the copy of slot 0. Nothing to add, nothing to warn about.
const PIPE: &str = include_str!("../../emit/tests/data/cp_async_pipeline_sm_80.sk");

#[test]
fn prologue_copies_into_slots_the_first_iteration_misses_need_nothing() {
    check(
        PIPE,
        &[
            "op \"cp\" async write %S[0:2048], read %G[0:2048]",
            "cp_async.commit",
            "op \"cp\" async write %S[2048:4096], read %G[2048:4096]",
            "cp_async.commit",
            "for %k = 0 to %n {",
            "%cur = view %S slot (%k) mod 3",
            "%nxt = view %S slot (%k + 2) mod 3",
            "op \"cp\" async write %nxt[tid], read %G[tid + %k * 128]",
            "cp_async.commit",
            "cp_async.wait 2",
            "barrier",
            "op \"ld\" read %cur",
            "barrier",
            "}",
            "}",
        ],
    );
}

#[test]
fn prologue_copy_into_the_first_iterations_slot_is_a_hazard() {
    // %nxt is slot 1 in the first iteration: the second prologue copy's, still in flight and
    // not published: the wait, and the warning.
    let (out, r) = common::run(&PIPE.replace("(%k + 2) mod 3", "(%k + 1) mod 3"));
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    assert!(
        r.diagnostics[0].message.contains("at 9:3"),
        "{:?}",
        r.diagnostics
    );
    assert!(
        out.contains("cp_async.wait 0\n    op \"cp\" async write %nxt[tid]"),
        "{out}"
    );
}

/// The barrier pass's sm_80 seed 214 (crates/barriers/tests/minimal.rs): the `if` runs in odd
/// iterations, where %h2 is %A1, which the copy into %A4 does not touch; the next
/// iteration's "ds_read" of %h2 (%A4 again) needs the copy, published by the barrier at the
/// end of the body.
const PARITY: &str = "target sm_80

kernel @parity(%n = 3) waves 2 {
  %A0 = buffer workgroup 8192
  %A1 = buffer workgroup 2048
  %A4 = buffer workgroup 4096 at %A0 + 4096
  %G = buffer global 1048576
  %r4, %r5 = for %i1 = 0 to %n iter(%h2 = %A4, %h3 = %A1) {
    op \"ds_read\" read %h2
    barrier
    if uniform (%i1 + 1) mod 2 == PARITY {
      op \"cp_async\" async write %A4[3072:4096], read %G[tid + %i1 + 4]
      op \"st_shared\" write %h2
    }
    barrier
    yield %h3, %h2
  }
}
";

#[test]
fn handles_bound_by_a_parity_condition_miss_the_copy() {
    check(
        &PARITY.replace("PARITY", "0"),
        &[
            "%r4, %r5 = for %i1 = 0 to %n iter(%h2 = %A4, %h3 = %A1) {",
            "op \"ds_read\" read %h2",
            "barrier",
            "if uniform (%i1 + 1) mod 2 == 0 {",
            "op \"cp_async\" async write %A4[3072:4096], read %G[tid + %i1 + 4]",
            "op \"st_shared\" write %h2",
            "}",
            "cp_async.commit",
            "cp_async.wait 0",
            "barrier",
            "yield %h3, %h2",
            "}",
            "}",
        ],
    );
}

#[test]
fn handles_bound_by_the_other_parity_meet_the_copy() {
    // Even iterations: %h2 is %A4, written by the copy right before: the warning.
    let (_, r) = common::run(&PARITY.replace("PARITY", "1"));
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    assert!(
        r.diagnostics[0].message.contains("at 13:7"),
        "{:?}",
        r.diagnostics
    );
}
