//! The Ascend scenarios of shared/scenarios/README.md (PT1..PT7), structure cases, event-id
//! exhaustion and reservation, and one regression test per PyPTO trap (prior-art.md). Every
//! output is also checked by the verifier, and every inserted sync must be needed.

mod common;

use common::*;
use syncopt_analysis::InsertOptions;
use syncopt_ir::Loc;
use syncopt_targets::Target;

const T910: Target = Target::Ascend910b;
const T950: Target = Target::Ascend950;

/// Wraps statements into a kernel with the usual buffers: gm `%gA %gB %gC`, ub `%A %B %C %D`,
/// l1 `%P %Q`, l0a `%L`, l0b `%R`, l0c `%O`.
fn kernel(body: &str) -> String {
    format!(
        "target ascend910b\nkernel @k(%n, %c) {{\n  %gA = buffer gm 4096\n  %gB = buffer gm 4096\n  \
         %gC = buffer gm 4096\n  %A = buffer ub 2048\n  %B = buffer ub 2048\n  %C = buffer ub 2048\n  \
         %D = buffer ub 2048\n  %P = buffer l1 2048\n  %Q = buffer l1 2048\n  %L = buffer l0a 2048\n  \
         %R = buffer l0b 2048\n  %O = buffer l0c 2048\n{body}}}\n"
    )
}

/// Inserts, checks the verifier accepts the output, that a second run adds nothing, and that
/// removing any inserted sync (or any inserted pair, or barrier) makes the verifier reject it.
fn run_checked(
    body: &str,
    target: Target,
    opts: &InsertOptions,
) -> (syncopt_ir::Kernel, syncopt_analysis::PassReport) {
    let src = kernel(body);
    let (k, r) = insert_with(&src, target, opts);
    verify_ok(&k, target).unwrap();
    let printed = syncopt_ir::print_kernel(&k);
    let (k2, _) = insert_with(&printed, target, opts);
    assert_eq!(syncopt_ir::print_kernel(&k2), printed, "not idempotent");
    for (what, c) in each_removed(&k).into_iter().chain(each_pair_removed(&k)) {
        assert!(
            !syncopt_verify::verify(&c, target).is_ok(),
            "removing `{what}` still verifies: it was not needed\n{printed}"
        );
    }
    (k, r)
}

fn lines(body: &str, target: Target) -> Vec<String> {
    let (k, _) = run_checked(body, target, &InsertOptions::default());
    body_lines(&k)
}

fn expect(got: Vec<String>, want: &str) {
    let want: Vec<String> = want
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(got, want, "\ngot:\n{}\n", got.join("\n"));
}

#[test]
fn pt1_one_set_after_second_load() {
    expect(
        lines(
            r#"  op "load" write %A, read %gA
  op "load" write %B, read %gB
  op "add" write %C, read %A, read %B
  op "store" write %gC, read %C
"#,
            T910,
        ),
        r#"op "load" write %A, read %gA
op "load" write %B, read %gB
set_flag MTE2 -> V, 0
wait_flag MTE2 -> V, 0
op "add" write %C, read %A, read %B
set_flag V -> MTE3, 0
wait_flag V -> MTE3, 0
op "store" write %gC, read %C"#,
    );
}

#[test]
fn pt2_same_pipe_vector_barrier_on_910b_not_on_950() {
    let body = r#"  op "add" write %C, read %A, read %B
  op "add" write %D, read %C, read %A
"#;
    expect(
        lines(body, T910),
        r#"op "add" write %C, read %A, read %B
pipe_barrier V
op "add" write %D, read %C, read %A"#,
    );
    // ascend950 keeps V in order in hardware.
    expect(
        lines(body, T950),
        r#"op "add" write %C, read %A, read %B
op "add" write %D, read %C, read %A"#,
    );
}

#[test]
fn pt2_cube_barrier_on_both_targets_and_never_on_scalar() {
    for t in [T910, T950] {
        let body = r#"  op "matmul" write %O, read %L, read %R
  op "matmul" write %O, read %L, read %R
"#;
        assert_eq!(
            sync_lines(&run_checked(body, t, &InsertOptions::default()).0),
            ["pipe_barrier M"]
        );
    }
    let body = r#"  op "scalar" write %A
  op "scalar" read %A
"#;
    assert!(lines(body, T910)
        .iter()
        .all(|l| !l.contains("pipe_barrier")));
}

#[test]
fn pt3_each_move_gets_its_own_flag() {
    expect(
        lines(
            r#"  op "load" write %P, read %gA
  op "load" write %Q, read %gB
  op "move" write %L, read %P
  op "move" write %R, read %Q
  op "matmul" write %O, read %L, read %R
  op "store" write %gC, read %O
"#,
            T910,
        ),
        r#"op "load" write %P, read %gA
set_flag MTE2 -> MTE1, 0
op "load" write %Q, read %gB
set_flag MTE2 -> MTE1, 1
wait_flag MTE2 -> MTE1, 0
op "move" write %L, read %P
wait_flag MTE2 -> MTE1, 1
op "move" write %R, read %Q
set_flag MTE1 -> M, 0
wait_flag MTE1 -> M, 0
op "matmul" write %O, read %L, read %R
set_flag M -> FIX, 0
wait_flag M -> FIX, 0
op "store" write %gC, read %O"#,
    );
}

#[test]
fn pt4_one_pair_before_the_if() {
    expect(
        lines(
            r#"  op "load" write %A, read %gA
  if uniform %c {
    op "add" write %B, read %A, read %A
  } else {
    op "mul" write %C, read %A, read %A
  }
"#,
            T910,
        ),
        r#"op "load" write %A, read %gA
set_flag MTE2 -> V, 0
wait_flag MTE2 -> V, 0
if uniform %c {
op "add" write %B, read %A, read %A
} else {
op "mul" write %C, read %A, read %A"#,
    );
}

#[test]
fn pt7_loop_carried_war_balanced_on_every_path() {
    expect(
        lines(
            r#"  for %i = 0 to %n {
    op "load" write %A, read %gA
    op "add" write %C, read %A, read %A
    op "store" write %gC, read %C
  }
"#,
            T910,
        ),
        r#"set_flag V -> MTE2, 0
set_flag MTE3 -> V, 0
for %i = 0 to %n {
wait_flag V -> MTE2, 0
op "load" write %A, read %gA
set_flag MTE2 -> V, 0
wait_flag MTE2 -> V, 0
wait_flag MTE3 -> V, 0
op "add" write %C, read %A, read %A
set_flag V -> MTE3, 1
set_flag V -> MTE2, 0
wait_flag V -> MTE3, 1
op "store" write %gC, read %C
set_flag MTE3 -> V, 0
wait_flag V -> MTE2, 0
wait_flag MTE3 -> V, 0"#,
    );
}

const DOUBLE_BUFFERED: &str = r#"  for %i = 0 to %n {
    %a = view %A slot (%i) mod 2
    %o = view %C slot (%i) mod 2
    op "load" write %a, read %gA
    op "add" write %o, read %a, read %a
    op "store" write %gC, read %o
  }
"#;

#[test]
fn double_buffered_ids_alternate_with_the_iteration() {
    let got = sync_lines(&run_checked(DOUBLE_BUFFERED, T910, &InsertOptions::default()).0);
    expect(
        got,
        r#"set_flag V -> MTE2, 0
set_flag V -> MTE2, 1
set_flag MTE3 -> V, 0
set_flag MTE3 -> V, 1
wait_flag V -> MTE2, 0 + (%i) mod 2
set_flag MTE2 -> V, 0
wait_flag MTE2 -> V, 0
wait_flag MTE3 -> V, 0 + (%i) mod 2
set_flag V -> MTE3, 2
set_flag V -> MTE2, 0 + (%i) mod 2
wait_flag V -> MTE3, 2
set_flag MTE3 -> V, 0 + (%i) mod 2
wait_flag V -> MTE2, 0
wait_flag V -> MTE2, 1
wait_flag MTE3 -> V, 0
wait_flag MTE3 -> V, 1"#,
    );
}

#[test]
fn no_double_buffer_option_uses_one_id() {
    let opts = InsertOptions {
        double_buffer: false,
        ..InsertOptions::default()
    };
    let got = sync_lines(&run_checked(DOUBLE_BUFFERED, T910, &opts).0);
    assert!(got.iter().all(|l| !l.contains("mod")), "{got:?}");
    assert!(got.contains(&"wait_flag V -> MTE2, 0".to_string()));
}

#[test]
fn double_buffer_needs_alternating_parity() {
    // Step 2: %i mod 2 never changes, so the ids cannot alternate with it.
    let body = DOUBLE_BUFFERED.replace("for %i = 0 to %n", "for %i = 0 to %n step 2");
    let got = sync_lines(&run_checked(&body, T910, &InsertOptions::default()).0);
    assert!(got.iter().all(|l| !l.contains("mod")), "{got:?}");
}

#[test]
fn nested_loops_keep_inner_and_outer_pairs() {
    let (k, _) = run_checked(
        r#"  for %i = 0 to %n {
    op "load" write %A, read %gA
    for %j = 0 to %n {
      op "add" write %C, read %A, read %C
    }
    op "store" write %gC, read %C
  }
"#,
        T910,
        &InsertOptions::default(),
    );
    let s = sync_lines(&k);
    // load -> add (before the inner loop), add -> store (after it), the V same-pipe chain
    // inside, and the store/add and add/load pairs around the outer ring.
    assert!(s.contains(&"pipe_barrier V".to_string()), "{s:?}");
    assert!(
        s.iter().any(|l| l.starts_with("wait_flag MTE2 -> V")),
        "{s:?}"
    );
    assert!(
        s.iter().any(|l| l.starts_with("wait_flag V -> MTE3")),
        "{s:?}"
    );
    assert!(
        s.iter().any(|l| l.starts_with("wait_flag V -> MTE2")),
        "{s:?}"
    );
}

#[test]
fn if_inside_for() {
    run_checked(
        r#"  for %i = 0 to %n {
    if uniform %c {
      op "load" write %A, read %gA
    } else {
      op "add" write %A, read %B, read %C
    }
    op "add" write %D, read %A, read %A
    op "store" write %gC, read %D
  }
"#,
        T910,
        &InsertOptions::default(),
    );
}

#[test]
fn for_inside_if() {
    run_checked(
        r#"  op "load" write %A, read %gA
  if uniform %c {
    for %i = 0 to %n {
      op "add" write %B, read %A, read %A
      op "store" write %gB, read %B
    }
  }
  op "load" write %A, read %gB
"#,
        T910,
        &InsertOptions::default(),
    );
}

#[test]
fn war_across_iterations_only() {
    // The add reads A; the next iteration's load overwrites it: nothing within one iteration.
    let (k, _) = run_checked(
        r#"  for %i = 0 to %n {
    op "add" write %C, read %A, read %A
    op "load" write %A, read %gA
  }
"#,
        T910,
        &InsertOptions::default(),
    );
    let s = sync_lines(&k);
    assert!(s.iter().any(|l| l == "wait_flag V -> MTE2, 0"), "{s:?}");
    assert!(s.iter().any(|l| l == "wait_flag MTE2 -> V, 0"), "{s:?}");
}

fn many_live_flags() -> String {
    // Nine loads, then their consumers in the same order: nine MTE2 -> MTE1 flags live at once.
    let mut b = String::new();
    for i in 0..9 {
        b.push_str(&format!(
            "  op \"load\" write %P[{}:{}], read %gA\n",
            i * 200,
            i * 200 + 200
        ));
    }
    for i in 0..9 {
        b.push_str(&format!(
            "  op \"move\" write %L[{}:{}], read %P[{}:{}]\n",
            i * 200,
            i * 200 + 200,
            i * 200,
            i * 200 + 200
        ));
    }
    b
}

#[test]
fn out_of_ids_falls_back_to_pipe_barrier_all_with_warning() {
    let (k, r) = run_checked(&many_live_flags(), T910, &InsertOptions::default());
    let s = sync_lines(&k);
    assert_eq!(
        s.iter()
            .filter(|l| l.as_str() == "pipe_barrier ALL")
            .count(),
        1,
        "{s:?}"
    );
    assert_eq!(
        s.iter().filter(|l| l.starts_with("set_flag")).count(),
        8,
        "{s:?}"
    );
    let warns: Vec<_> = r.diagnostics.iter().filter(|d| !d.is_error()).collect();
    assert_eq!(warns.len(), 1);
    assert!(warns[0].message.contains("out of event ids"));
    // The warning points at the consumer that got the barrier: the last move (line 32), whose
    // flag would have been the ninth live one.
    assert_eq!(warns[0].loc, Some(Loc { line: 32, col: 3 }));
    let lines = body_lines(&k);
    assert_eq!(lines[lines.len() - 2], "pipe_barrier ALL");
    assert!(!r.has_errors());
}

#[test]
fn flag_ids_option_shrinks_the_pool() {
    let opts = InsertOptions {
        flag_ids: Some(2),
        ..InsertOptions::default()
    };
    let (k, r) = run_checked(&many_live_flags(), T910, &opts);
    let s = sync_lines(&k);
    assert_eq!(
        s.iter().filter(|l| l.starts_with("set_flag")).count(),
        2,
        "{s:?}"
    );
    // One barrier before the third move orders every later move too.
    assert_eq!(
        s.iter()
            .filter(|l| l.as_str() == "pipe_barrier ALL")
            .count(),
        1,
        "{s:?}"
    );
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].loc, Some(Loc { line: 26, col: 3 }));
}

#[test]
fn reserved_ids_are_never_used() {
    let opts = InsertOptions {
        reserved_ids: vec![0, 1],
        ..InsertOptions::default()
    };
    let (k, r) = run_checked(&many_live_flags(), T910, &opts);
    let s = sync_lines(&k);
    assert!(
        s.iter().all(|l| !l.ends_with(", 0") && !l.ends_with(", 1")),
        "{s:?}"
    );
    assert_eq!(
        s.iter().filter(|l| l.starts_with("set_flag")).count(),
        6,
        "{s:?}"
    );
    assert_eq!(
        r.diagnostics.len(),
        1,
        "one barrier for the seventh to ninth moves"
    );
}

#[test]
fn flags_in_the_input_are_respected() {
    let body = r#"  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  op "add" write %C, read %A, read %A
  op "load" write %B, read %gB
  op "add" write %D, read %B, read %B
"#;
    let (k, _) = run_checked(body, T910, &InsertOptions::default());
    let s = sync_lines(&k);
    // The first hazard is already ordered; the second must not reuse the input's id 0.
    expect(
        s,
        r#"set_flag MTE2 -> V, 0
wait_flag MTE2 -> V, 0
set_flag MTE2 -> V, 1
wait_flag MTE2 -> V, 1"#,
    );
}

#[test]
fn transitive_pairs_are_not_emitted() {
    // load A -> add (MTE2 -> V), add -> store (V -> MTE3): the store of A's copy after the add
    // is ordered after the load through the add, so no MTE2 -> MTE3 pair.
    let (k, _) = run_checked(
        r#"  op "load" write %A, read %gA
  op "add" write %C, read %A, read %A
  op "store" write %gC, read %C
  op "store" write %gA, read %A
"#,
        T910,
        &InsertOptions::default(),
    );
    let s = sync_lines(&k);
    assert!(s.iter().all(|l| !l.contains("MTE2 -> MTE3")), "{s:?}");
}

// ---- PyPTO traps (prior-art.md) ----

#[test]
fn trap_redundancy_removal_respects_before_after() {
    // A wait placed AFTER the consumer must not count as ordering it: the input's pair sits
    // after the add, so the add still needs its own wait.
    let (k, _) = run_checked(
        r#"  op "load" write %A, read %gA
  op "add" write %C, read %A, read %A
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
"#,
        T910,
        &InsertOptions::default(),
    );
    let lines = body_lines(&k);
    let add = lines
        .iter()
        .position(|l| l.starts_with("op \"add\""))
        .unwrap();
    assert!(
        lines[..add]
            .iter()
            .any(|l| l.starts_with("wait_flag MTE2 -> V")),
        "{lines:?}"
    );
}

#[test]
fn trap_nested_loops_do_not_fold_positions() {
    // Same statement index (0) in two different loop bodies: the producer is in the outer body,
    // the consumer in the inner one; a pass that compares indices thinks they coincide.
    let (k, _) = run_checked(
        r#"  for %i = 0 to %n {
    op "load" write %A, read %gA
    for %j = 0 to %n {
      op "add" write %C, read %A, read %A
    }
  }
"#,
        T910,
        &InsertOptions::default(),
    );
    let lines = body_lines(&k);
    let inner = lines.iter().position(|l| l.starts_with("for %j")).unwrap();
    assert_eq!(lines[inner - 1], "wait_flag MTE2 -> V, 0", "{lines:?}");
}

#[test]
fn trap_loop_carried_wait_without_trailing_yield() {
    // No yield in the body: the carried wait must still be emitted and every set matched.
    let (k, _) = run_checked(
        r#"  for %i = 0 to %n {
    op "add" write %C, read %A, read %A
    op "load" write %A, read %gA
  }
"#,
        T910,
        &InsertOptions::default(),
    );
    let s = sync_lines(&k);
    let sets = s.iter().filter(|l| l.starts_with("set_flag")).count();
    let waits = s.iter().filter(|l| l.starts_with("wait_flag")).count();
    assert_eq!(sets, waits, "{s:?}");
}

#[test]
fn trap_out_of_ids_is_a_fallback_not_an_error() {
    let opts = InsertOptions {
        flag_ids: Some(1),
        ..InsertOptions::default()
    };
    let (_, r) = run_checked(&many_live_flags(), T910, &opts);
    assert!(!r.has_errors());
    assert!(!r.diagnostics.is_empty());
}

#[test]
fn trap_ids_are_per_source_pipe_not_per_pipe_pair() {
    // MTE2 -> V and MTE2 -> MTE1 live at once: one source pipe, so they need different ids
    // although their pipe pairs differ.
    let (k, _) = run_checked(
        r#"  op "load" write %A, read %gA
  op "load" write %P, read %gB
  op "move" write %L, read %P
  op "add" write %C, read %A, read %A
"#,
        T910,
        &InsertOptions::default(),
    );
    expect(
        sync_lines(&k),
        r#"set_flag MTE2 -> V, 0
set_flag MTE2 -> MTE1, 1
wait_flag MTE2 -> MTE1, 1
wait_flag MTE2 -> V, 0"#,
    );
}

#[test]
fn trap_loop_carried_pairs_overlap_iterations() {
    // The carried pair is set at the end of iteration i and waited at the top of i+1 (with a
    // set before the loop and a wait after it), not set and waited inside one iteration.
    let (k, _) = run_checked(
        r#"  for %i = 0 to %n {
    op "load" write %A, read %gA
    op "add" write %C, read %A, read %A
  }
"#,
        T910,
        &InsertOptions::default(),
    );
    let lines = body_lines(&k);
    assert_eq!(lines[0], "set_flag V -> MTE2, 0");
    assert_eq!(lines[2], "wait_flag V -> MTE2, 0");
    assert_eq!(lines.last().unwrap(), "wait_flag V -> MTE2, 0");
}

#[test]
fn unknown_pipe_is_an_error_not_a_panic() {
    let (_, r) = insert(&kernel("  op \"mystery\" write %O, read %gA\n"), T910);
    assert!(r.has_errors());
    assert!(r.diagnostics[0].loc.is_some());
}

#[test]
fn gpu_targets_are_left_alone() {
    let src = "target gfx950\nkernel @k {\n  %A = buffer workgroup 64\n  op \"w\" write %A\n  op \"r\" read %A\n}\n";
    let mut k = parse_kernel(src);
    let r = syncopt_pipe_flags::run(&mut k, Target::Gfx950, &InsertOptions::default());
    assert_eq!(count_syncs(&k), 0);
    assert_eq!(r.hazards, 0);
}
