//! The async scenarios of shared/scenarios/README.md (WA2, WA3, WA6, WA9, WD6) and the cases
//! of the task: multi-buffering, ifs, the counter cap, input waits, the union over hazards,
//! cp.async groups, missing barriers. Inputs hold the barriers the shared-barriers pass places;
//! this pass only adds waits (and cp.async commits).

mod common;
use common::{check, run};

#[test]
fn wa2_tensor_then_barrier_then_other_tensor_needs_no_wait() {
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         op \"tensor_load\" async write %A\n  barrier.signal -1\n  barrier.wait -1\n\
         op \"tensor_load\" async write %B\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"tensor_load\" async write %B",
            "}",
        ],
    );
}

#[test]
fn wa3_tensor_read_after_barrier_waits_for_zero() {
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n\
         op \"tensor_load\" async write %A\n  barrier.signal -1\n  barrier.wait -1\n\
         op \"ds_read\" read %A\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "wait tensorcnt(0)",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn wa3_monolithic_gfx950_uses_vmcnt() {
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A, read %G\n  barrier\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn wa6_younger_tensor_may_stay_in_flight() {
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         op \"tensor_load\" async write %A\n  op \"tensor_load\" async write %B\n\
         barrier.signal -1\n  barrier.wait -1\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "op \"tensor_load\" async write %B",
            "wait tensorcnt(1)",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

const WA9: &str = "target gfx1250
kernel @k(%n) {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  op \"tensor_load\" async write %A
  for %i = 0 to %n iter(%cur = %A, %nxt = %B) {
    barrier.signal -1
    barrier.wait -1
    op \"tensor_load\" async write %nxt
    barrier.signal -1
    barrier.wait -1
    op \"ds_read\" read %cur
    yield %nxt, %cur
  }
}
";

#[test]
fn wa9_double_buffer_rotating_handles_waits_for_one() {
    // The first barrier (placed by shared-barriers for the WAR refill race) needs no wait: the
    // copy it precedes goes to the other buffer, and the one before was covered last iteration.
    check(
        WA9,
        &[
            "op \"tensor_load\" async write %A",
            "for %i = 0 to %n iter(%cur = %A, %nxt = %B) {",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"tensor_load\" async write %nxt",
            "wait tensorcnt(1)",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %cur",
            "yield %nxt, %cur",
            "}",
            "}",
        ],
    );
}

#[test]
fn wd6_gather_in_loop_gets_vmcnt_zero_once() {
    check(
        "target gfx950\nkernel @k(%n) {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n  for %i = 0 to %n {\n    barrier\n\
         op \"gather_to_lds\" async write %A, read %G\n    op \"ds_write\" write %B\n    barrier\n\
         op \"ds_read\" read %B\n    op \"ds_read\" read %A\n  }\n}\n",
        &[
            "for %i = 0 to %n {",
            "barrier",
            "op \"gather_to_lds\" async write %A, read %G",
            "op \"ds_write\" write %B",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %B",
            "op \"ds_read\" read %A",
            "}",
            "}",
        ],
    );
}

#[test]
fn triple_buffer_rotating_handles_waits_for_two() {
    check(
        "target gfx950\nkernel @k(%n) {\n  %A = buffer workgroup 3072\n  %G = buffer global 4096\n\
         %a0 = view %A[0:1024]\n  %a1 = view %A[1024:2048]\n  %a2 = view %A[2048:3072]\n\
         op \"gather_to_lds\" async write %a0, read %G\n  op \"gather_to_lds\" async write %a1, read %G\n\
         for %i = 0 to %n iter(%x = %a0, %y = %a1, %z = %a2) {\n\
         op \"gather_to_lds\" async write %z, read %G\n    barrier\n    op \"ds_read\" read %x\n\
         barrier\n    yield %y, %z, %x\n  }\n}\n",
        &[
            "op \"gather_to_lds\" async write %a0, read %G",
            "op \"gather_to_lds\" async write %a1, read %G",
            "for %i = 0 to %n iter(%x = %a0, %y = %a1, %z = %a2) {",
            "op \"gather_to_lds\" async write %z, read %G",
            "wait vmcnt(2)",
            "barrier",
            "op \"ds_read\" read %x",
            "barrier",
            "yield %y, %z, %x",
            "}",
            "}",
        ],
    );
}

#[test]
fn double_buffer_slot_views_waits_for_one() {
    check(
        "target gfx950\nkernel @k(%n) {\n  %A = buffer workgroup 2048\n  %G = buffer global 4096\n\
         %s0 = view %A slot (0) mod 2\n  op \"gather_to_lds\" async write %s0, read %G\n\
         for %i = 0 to %n {\n    %w = view %A slot (%i + 1) mod 2\n    %r = view %A slot (%i) mod 2\n\
         barrier\n    op \"gather_to_lds\" async write %w, read %G\n    barrier\n\
         op \"ds_read\" read %r\n  }\n}\n",
        &[
            "%s0 = view %A slot (0) mod 2",
            "op \"gather_to_lds\" async write %s0, read %G",
            "for %i = 0 to %n {",
            "%w = view %A slot (%i + 1) mod 2",
            "%r = view %A slot (%i) mod 2",
            "barrier",
            "op \"gather_to_lds\" async write %w, read %G",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %r",
            "}",
            "}",
        ],
    );
}

#[test]
fn triple_buffer_slot_views_waits_for_two() {
    check(
        "target gfx950\nkernel @k(%n) {\n  %A = buffer workgroup 3072\n  %G = buffer global 4096\n\
         %s0 = view %A slot (0) mod 3\n  %s1 = view %A slot (1) mod 3\n\
         op \"gather_to_lds\" async write %s0, read %G\n  op \"gather_to_lds\" async write %s1, read %G\n\
         for %i = 0 to %n {\n    %w = view %A slot (%i + 2) mod 3\n    %r = view %A slot (%i) mod 3\n\
         op \"gather_to_lds\" async write %w, read %G\n    barrier\n    op \"ds_read\" read %r\n\
         barrier\n  }\n}\n",
        &[
            "%s0 = view %A slot (0) mod 3",
            "%s1 = view %A slot (1) mod 3",
            "op \"gather_to_lds\" async write %s0, read %G",
            "op \"gather_to_lds\" async write %s1, read %G",
            "for %i = 0 to %n {",
            "%w = view %A slot (%i + 2) mod 3",
            "%r = view %A slot (%i) mod 3",
            "op \"gather_to_lds\" async write %w, read %G",
            "wait vmcnt(2)",
            "barrier",
            "op \"ds_read\" read %r",
            "barrier",
            "}",
            "}",
        ],
    );
}

#[test]
fn copies_in_ifs_the_path_with_fewer_later_copies_decides() {
    check(
        "target gfx950\nkernel @k(%c) {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %C = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A, read %G\n  if uniform %c {\n\
         op \"gather_to_lds\" async write %B, read %G\n    op \"gather_to_lds\" async write %C, read %G\n\
         } else {\n    op \"gather_to_lds\" async write %B, read %G\n  }\n  barrier\n\
         op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "if uniform %c {",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"gather_to_lds\" async write %C, read %G",
            "} else {",
            "op \"gather_to_lds\" async write %B, read %G",
            "}",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn copy_inside_if_without_else_counts_the_empty_path() {
    check(
        "target gfx950\nkernel @k(%c) {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %C = buffer workgroup 1024\n  %G = buffer global 4096\n  if uniform %c {\n    op \"gather_to_lds\" async write %A, read %G\n\
         }\n  op \"gather_to_lds\" async write %B, read %G\n  op \"gather_to_lds\" async write %C, read %G\n\
         barrier\n  op \"ds_read\" read %A\n}\n",
        &[
            "if uniform %c {",
            "op \"gather_to_lds\" async write %A, read %G",
            "}",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"gather_to_lds\" async write %C, read %G",
            "wait vmcnt(2)",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn more_copies_in_flight_than_the_counter_counts_caps_at_max() {
    // 70 later copies, each to its own 16 bytes of B; vmcnt counts to 63.
    let mut src = String::from(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1120\n\
         %G = buffer global 4096\n  op \"gather_to_lds\" async write %A, read %G\n",
    );
    let mut want = vec!["op \"gather_to_lds\" async write %A, read %G".to_string()];
    for i in 0..70 {
        let line = format!(
            "op \"gather_to_lds\" async write %B[{}:{}], read %G",
            i * 16,
            i * 16 + 16
        );
        src.push_str(&format!("  {line}\n"));
        want.push(line);
    }
    src.push_str("  barrier\n  op \"ds_read\" read %A\n}\n");
    want.extend(
        ["wait vmcnt(63)", "barrier", "op \"ds_read\" read %A", "}"]
            .iter()
            .map(|s| s.to_string()),
    );
    let want: Vec<&str> = want.iter().map(|s| s.as_str()).collect();
    check(&src, &want);
}

#[test]
fn known_trip_count_counts_every_iteration() {
    // Exactly 3 trips: 3 copies (to 3 different slots) follow the first one on every path.
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 3072\n\
         %G = buffer global 4096\n  op \"gather_to_lds\" async write %A, read %G\n\
         for %i = 0 to 3 {\n    %w = view %B slot (%i) mod 3\n    op \"gather_to_lds\" async write %w, read %G\n  }\n\
         barrier\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "for %i = 0 to 3 {",
            "%w = view %B slot (%i) mod 3",
            "op \"gather_to_lds\" async write %w, read %G",
            "}",
            "wait vmcnt(3)",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn input_waits_are_kept_and_not_repeated() {
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n  op \"gather_to_lds\" async write %A, read %G\n\
         op \"gather_to_lds\" async write %B, read %G\n  wait vmcnt(1)\n  barrier\n\
         op \"ds_read\" read %A\n  barrier\n  op \"ds_read\" read %B\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "op \"gather_to_lds\" async write %B, read %G",
            "wait vmcnt(1)",
            "barrier",
            "op \"ds_read\" read %A",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %B",
            "}",
        ],
    );
}

#[test]
fn input_wait_that_covers_everything_leaves_nothing_to_add() {
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A, read %G\n  wait vmcnt(0)\n  barrier\n\
         barrier\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "wait vmcnt(0)",
            "barrier",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn earlier_inserted_wait_makes_a_later_one_redundant() {
    // The vmcnt(0) for B also completes A: the second barrier needs nothing.
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n  op \"gather_to_lds\" async write %A, read %G\n\
         op \"gather_to_lds\" async write %B, read %G\n  barrier\n  op \"ds_read\" read %B\n\
         barrier\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "op \"gather_to_lds\" async write %B, read %G",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %B",
            "barrier",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn barrier_gets_the_union_of_every_hazard_it_covers() {
    // Prior-art trap 3: the barrier covers A (count 2) and C (count 0): it must wait for 0.
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %C = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A, read %G\n  op \"gather_to_lds\" async write %B, read %G\n\
         op \"gather_to_lds\" async write %C, read %G\n  barrier\n  op \"ds_read\" read %A\n\
         op \"ds_read\" read %C\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"gather_to_lds\" async write %C, read %G",
            "wait vmcnt(0)",
            "barrier",
            "op \"ds_read\" read %A",
            "op \"ds_read\" read %C",
            "}",
        ],
    );
}

#[test]
fn union_over_two_counters_on_gfx1250() {
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %C = buffer workgroup 1024\n  %G = buffer global 4096\n  op \"tensor_load\" async write %A\n\
         op \"gather_to_lds\" async write %B, read %G\n  op \"tensor_load\" async write %C\n\
         barrier.signal -1\n  barrier.wait -1\n  op \"ds_read\" read %A[512:1024]\n\
         op \"ds_read\" read %B\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "op \"gather_to_lds\" async write %B, read %G",
            "op \"tensor_load\" async write %C",
            "wait asynccnt(0)",
            "wait tensorcnt(1)",
            "barrier.signal -1",
            "barrier.wait -1",
            "op \"ds_read\" read %A[512:1024]",
            "op \"ds_read\" read %B",
            "}",
        ],
    );
}

#[test]
fn split_barrier_wait_goes_before_the_signal_not_the_wait() {
    check(
        "target gfx1200\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A, read %G\n  barrier.signal -1\n  op \"mfma\"\n\
         barrier.wait -1\n  op \"ds_read\" read %A\n}\n",
        &[
            "op \"gather_to_lds\" async write %A, read %G",
            "wait loadcnt(0)",
            "barrier.signal -1",
            "op \"mfma\"",
            "barrier.wait -1",
            "op \"ds_read\" read %A",
            "}",
        ],
    );
}

#[test]
fn cp_async_groups_get_commits_and_group_waits() {
    check(
        "target sm_80\nkernel @k(%n) {\n  %A = buffer workgroup 2048\n  %G = buffer global 4096\n\
         %a0 = view %A[0:1024]\n  %a1 = view %A[1024:2048]\n\
         op \"cp_async\" async write %a0, read %G\n\
         for %i = 0 to %n iter(%cur = %a0, %nxt = %a1) {\n    barrier\n\
         op \"cp_async\" async write %nxt[0:512], read %G\n    op \"cp_async\" async write %nxt[512:1024], read %G\n\
         barrier\n    op \"ld_shared\" read %cur\n    yield %nxt, %cur\n  }\n}\n",
        &[
            "op \"cp_async\" async write %a0, read %G",
            "cp_async.commit",
            "for %i = 0 to %n iter(%cur = %a0, %nxt = %a1) {",
            "barrier",
            "op \"cp_async\" async write %nxt[0:512], read %G",
            "op \"cp_async\" async write %nxt[512:1024], read %G",
            "cp_async.commit",
            "cp_async.wait 1",
            "barrier",
            "op \"ld_shared\" read %cur",
            "yield %nxt, %cur",
            "}",
            "}",
        ],
    );
}

#[test]
fn cp_async_existing_commit_is_reused() {
    check(
        "target sm_90\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n  op \"cp_async\" async write %A, read %G\n  cp_async.commit\n\
         op \"cp_async\" async write %B, read %G\n  cp_async.commit\n  barrier\n\
         op \"ld_shared\" read %A\n}\n",
        &[
            "op \"cp_async\" async write %A, read %G",
            "cp_async.commit",
            "op \"cp_async\" async write %B, read %G",
            "cp_async.commit",
            "cp_async.wait 1",
            "barrier",
            "op \"ld_shared\" read %A",
            "}",
        ],
    );
}

#[test]
fn own_words_read_back_by_the_issuing_thread_wait_before_the_read() {
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"gather_to_lds\" async write %A[tid], read %G\n  op \"mfma\"\n\
         op \"ds_read\" read %A[tid]\n}\n",
        &[
            "op \"gather_to_lds\" async write %A[tid], read %G",
            "op \"mfma\"",
            "wait vmcnt(0)",
            "op \"ds_read\" read %A[tid]",
            "}",
        ],
    );
}

#[test]
fn consumer_without_barrier_warns_and_names_copy_and_consumer() {
    let src = "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n  op \"gather_to_lds\" async write %A, read %G\n  op \"ds_read\" read %A\n}\n";
    let (out, r) = run(src);
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    let d = &r.diagnostics[0];
    assert!(!d.is_error());
    assert_eq!(d.loc, Some(syncopt_ir::Loc { line: 6, col: 3 }));
    assert!(
        d.message.contains("5:3") && d.message.contains("6:3"),
        "{}",
        d.message
    );
    assert!(d.message.contains("shared-barriers"), "{}", d.message);
    // No barrier invented; the issuing wave still waits before its own read.
    assert!(!out.contains("barrier"), "{out}");
    assert!(out.contains("wait vmcnt(0)\n  op \"ds_read\""), "{out}");
}

#[test]
fn war_on_async_destination_needs_no_wait() {
    // Read, then barrier, then the copy overwrites: the barrier alone orders it.
    check(
        "target gfx950\nkernel @k() {\n  %A = buffer workgroup 1024\n  %G = buffer global 4096\n\
         op \"ds_read\" read %A\n  barrier\n  op \"gather_to_lds\" async write %A, read %G\n}\n",
        &[
            "op \"ds_read\" read %A",
            "barrier",
            "op \"gather_to_lds\" async write %A, read %G",
            "}",
        ],
    );
}

#[test]
fn ascend_targets_are_left_alone() {
    let src = "target ascend910b\nkernel @k() {\n  %A = buffer ub 1024\n  %B = buffer gm 1024\n  op \"load\" write %A, read %B\n}\n";
    let (out, r) = run(src);
    assert!(r.diagnostics.is_empty());
    assert!(!out.contains("wait"));
}
