//! Precision cases behind the maximality rate of gen_pipeline.rs: a copy in flight on one
//! branch of `%x = if ... yield` only, read through `%x` naming another buffer on that branch;
//! and conditions on the induction variable of a loop with an exact trip count, decided per
//! iteration like the verifier does. Each has a sound counterpart that must keep its wait.

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
