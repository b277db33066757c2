//! Regression cases of issue 5's maximality work (tests/gen_pipeline.rs): each is a reduced
//! generated kernel whose wait was lower than the largest that verifies. `check` asserts the
//! exact output, that crates/verify accepts it, and that raising any inserted wait by one is
//! rejected.

mod common;
use common::check;
const NESTED: &str = "target gfx950
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {
    for %j = 0 to 4 iter(%h3 = %h1, %h4 = %h2) {
      barrier
      op \"gather_to_lds\" async write %h4, read %G
      op \"global_load\" read %G
      barrier
      op \"ds_read\" read %h3
      barrier
      op \"ds_read\" read %h4
      yield %h4, %h3
    }
    yield %h2, %h1
  }
}
";
/// The inner loop's inits are the outer loop's two handles, disjoint in every outer iteration: the
/// copy into `%h4` in flight at the first barrier is not what `%h3` reads (no wait there).
#[test]
fn inner_loop_handles_from_disjoint_outer_handles_are_disjoint() {
    check(
        NESTED,
        &[
            "for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {",
            "for %j = 0 to 4 iter(%h3 = %h1, %h4 = %h2) {",
            "barrier",
            "op \"gather_to_lds\" async write %h4, read %G",
            "op \"global_load\" read %G",
            "barrier",
            "op \"ds_read\" read %h3",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %h4",
            "yield %h4, %h3",
            "}",
            "yield %h2, %h1",
            "}",
            "}",
        ],
    );
}

const EXIT: &str = "target gfx950
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %C = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {
    barrier
    op \"gather_to_lds\" async write %h2, read %G
    op \"gather_to_lds\" async write %C, read %G
    barrier
    op \"ds_read\" read %h2
    op \"ds_read\" read %C
    for %j = 0 to 2 iter(%h3 = %h1, %h4 = %h2) {
      barrier
      op \"ds_read\" read %h4
      op \"gather_to_lds\" async write %h3, read %G
      yield %h4, %h3
    }
    yield %h2, %h1
  }
}
";
/// The copy into `%h3` of the inner loop's last (second) iteration is `%h2` of the outer frame, so
/// `%h1` of the next outer iteration: the gather into `%h2` there does not wait for it.
#[test]
fn copy_leaving_a_counted_inner_loop_is_a_handle_of_the_outer_frame() {
    check(
        EXIT,
        &[
            "for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {",
            "barrier",
            "op \"gather_to_lds\" async write %h2, read %G",
            "op \"gather_to_lds\" async write %C, read %G",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %h2",
            "op \"ds_read\" read %C",
            "for %j = 0 to 2 iter(%h3 = %h1, %h4 = %h2) {",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %h4",
            "op \"gather_to_lds\" async write %h3, read %G",
            "yield %h4, %h3",
            "}",
            "yield %h2, %h1",
            "}",
            "}",
        ],
    );
}

const RESULT: &str = "target gfx950
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 1048576
  %r1, %r2 = for %i = 0 to 3 iter(%h1 = %A, %h2 = %B) {
    barrier
    op \"ds_read\" read %h1
    yield %h2, %h1
  }
  barrier
  op \"gather_to_lds\" async write %B, read %G
  op \"gather_to_lds\" async write %A, read %G
  barrier
  op \"ds_read\" read %r1
}
";
/// After three trips of a swapping yield `%r1` is `%B`: the read waits for the copy into `%B` only.
#[test]
fn result_of_a_counted_loop_is_the_permuted_init() {
    check(
        RESULT,
        &[
            "%r1, %r2 = for %i = 0 to 3 iter(%h1 = %A, %h2 = %B) {",
            "barrier",
            "op \"ds_read\" read %h1",
            "yield %h2, %h1",
            "}",
            "barrier",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"gather_to_lds\" async write %A, read %G",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %r1",
            "}",
        ],
    );
}

const IDENT: &str = "target gfx950
kernel @k(%n) {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to %n iter(%h1 = %A, %h2 = %B) {
    barrier
    op \"ds_read\" read %h1
    op \"gather_to_lds\" async write %h2, read %G
    yield %h1, %h2
  }
  barrier
  op \"gather_to_lds\" async write %A, read %G
  barrier
  op \"ds_read\" read %B
}
";
/// `%h2` is yielded to itself: `%B` after a loop of unknown trip count, not `%A`.
#[test]
fn handle_passed_on_unchanged_is_its_init_after_any_trip_count() {
    check(
        IDENT,
        &[
            "for %i = 0 to %n iter(%h1 = %A, %h2 = %B) {",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %h1",
            "op \"gather_to_lds\" async write %h2, read %G",
            "yield %h1, %h2",
            "}",
            "barrier",
            "op \"gather_to_lds\" async write %A, read %G",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %B",
            "}",
        ],
    );
}

const COND: &str = "target gfx950
kernel @k(%n) {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to %n {
    op \"gather_to_lds\" async write %A, read %G
    op \"gather_to_lds\" async write %B, read %G
    if uniform (%i + 1) mod 2 == 0 {
      op \"global_load\" read %G
    } else {
      if uniform (%i + 1) mod 2 == 0 {
        op \"gather_to_lds\" async write %A, read %G
      }
    }
    barrier
    op \"ds_read\" read %A
    barrier
  }
}
";
/// The inner `if` repeats the outer condition in its else branch: its copy never runs (the verifier
/// decides both from the residue of `%i`), so the read waits for the first copy only.
#[test]
fn if_nested_in_the_other_branch_of_the_same_mod_condition_never_runs() {
    check(
        COND,
        &[
            "for %i = 0 to %n {",
            "op \"gather_to_lds\" async write %A, read %G",
            "op \"gather_to_lds\" async write %B, read %G",
            "if uniform (%i + 1) mod 2 == 0 {",
            "op \"global_load\" read %G",
            "} else {",
            "if uniform (%i + 1) mod 2 == 0 {",
            "op \"gather_to_lds\" async write %A, read %G",
            "}",
            "}",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %A",
            "wait vmcnt(0)",
            "barrier",
            "}",
            "}",
        ],
    );
}

const WITHIN: &str = "target gfx950
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %G = buffer global 1048576
  op \"gather_to_lds\" async write %A[0:512], read %G
  for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {
    op \"gather_to_lds\" async write %h2, read %G
    op \"global_load\" read %G
    barrier
    op \"ds_read\" read %h1
    barrier
    yield %h2, %h1
  }
}
";
/// The copy into `%A[0:512]` before the loop is `%h1[0:512]` in the first iteration: the gather into
/// `%h2` (`%B`) does not wait for it; the read of `%h1` waits with N = 1.
#[test]
fn copy_into_part_of_a_handles_init_is_seen_through_that_handle() {
    check(
        WITHIN,
        &[
            "op \"gather_to_lds\" async write %A[0:512], read %G",
            "for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {",
            "op \"gather_to_lds\" async write %h2, read %G",
            "op \"global_load\" read %G",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %h1",
            "barrier",
            "yield %h2, %h1",
            "}",
            "}",
        ],
    );
}

const APART: &str = "target gfx950
kernel @k(%n) {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %C = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to %n iter(%h1 = %A, %h2 = %B) {
    barrier
    op \"gather_to_lds\" async write %h2, read %G
    op \"ds_write\" write %h1
    for %j = 0 to %n min 1 max 16 iter(%h6 = %B, %h7 = %C) {
      barrier
      op \"gather_to_lds\" async write %h7, read %G
      barrier
      op \"ds_write_b128\" write %h2
      yield %h7, %h6
    }
    yield %h2, %h1
  }
}
";
/// The copy into the outer `%h2` (`%A` or `%B`) is in flight when the inner loop starts; its first
/// iteration writes `%h7`, which is `%C` there: no wait at the inner loop's first barrier.
#[test]
fn copy_before_an_inner_loop_into_none_of_its_inits_is_apart_from_their_handles() {
    check(
        APART,
        &[
            "for %i = 0 to %n iter(%h1 = %A, %h2 = %B) {",
            "barrier",
            "op \"gather_to_lds\" async write %h2, read %G",
            "op \"ds_write\" write %h1",
            "for %j = 0 to %n min 1 max 16 iter(%h6 = %B, %h7 = %C) {",
            "barrier",
            "op \"gather_to_lds\" async write %h7, read %G",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_write_b128\" write %h2",
            "yield %h7, %h6",
            "}",
            "yield %h2, %h1",
            "}",
            "}",
        ],
    );
}

const FRAME: &str = "target gfx950
kernel @k() {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %C = buffer workgroup 1024
  %G = buffer global 1048576
  for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {
    if uniform %i mod 2 == 0 {
      op \"gather_to_lds\" async write %B, read %G
      op \"gather_to_lds\" async write %C, read %G
      barrier
      op \"ds_read\" read %h1
      barrier
      op \"ds_read\" read %B
    }
    barrier
    yield %h2, %h1
  }
}
";
/// Four exact trips, the `if` runs in the first and third, where `%h1` is `%A`: reading it needs
/// no wait for the copy into `%B` (the next barrier's wait does that for the read of `%B`).
#[test]
fn handles_of_an_exactly_unrolled_loop_are_known_in_each_iteration() {
    check(
        FRAME,
        &[
            "for %i = 0 to 4 iter(%h1 = %A, %h2 = %B) {",
            "if uniform %i mod 2 == 0 {",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"gather_to_lds\" async write %C, read %G",
            "barrier",
            "op \"ds_read\" read %h1",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %B",
            "}",
            "wait vmcnt(0)",
            "barrier",
            "yield %h2, %h1",
            "}",
            "}",
        ],
    );
}
