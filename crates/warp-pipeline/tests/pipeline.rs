//! Scenarios WP1, WP3, WP6, stage counts, phase gaps, flat and back-to-back pipelines, every
//! error, and the checks every conversion must pass: an operational two-group check (the
//! `oracle` module, written apart from the pass), the verifier, idempotence, and the failure
//! of every downgraded fence.

mod oracle;

use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_ir::{Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;
use syncopt_warp_pipeline::{group_predicate, run};

fn parse_one(src: &str) -> (Kernel, Target) {
    let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("parse: {}", d.message));
    let m = &file.chunks[0];
    let t = Target::from_name(m.target.as_deref().expect("target line")).expect("target");
    (m.kernels[0].clone(), t)
}

fn convert(src: &str) -> (Kernel, Target, PassReport) {
    let (mut k, t) = parse_one(src);
    let rep = run(&mut k, t, &InsertOptions::default());
    (k, t, rep)
}

/// Converts `src`, which must succeed; checks the result and returns it printed (without the
/// target line).
fn ok(src: &str) -> String {
    let (input, _) = parse_one(src);
    let given = fences(&input);
    let (k, t, rep) = convert(src);
    assert!(
        !rep.has_errors(),
        "unexpected errors: {:?}",
        rep.diagnostics
            .iter()
            .map(|d| &d.message)
            .collect::<Vec<_>>()
    );
    let text = syncopt_ir::print_kernel(&k);
    oracle::check(&k, t).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        syncopt_verify::verify(&k, t).is_ok(),
        "verifier rejects:\n{text}"
    );
    // Idempotent: converting the printed result again changes nothing.
    let again = format!("target {}\n{text}", t.name());
    let (k2, _, rep2) = convert(&again);
    assert!(!rep2.has_errors());
    assert_eq!(
        syncopt_ir::print_kernel(&k2),
        text,
        "second insert changed the output"
    );
    // Deterministic.
    let (k3, _, _) = convert(src);
    assert_eq!(syncopt_ir::print_kernel(&k3), text);
    // Every fence is needed: each downgraded to `barrier exec` must fail the check.
    for s in fences(&k).into_iter().filter(|s| !given.contains(s)) {
        let mut bad = k.clone();
        if let StmtKind::Sync(SyncOp::Barrier { fence, .. }) = &mut bad.stmts[s].kind {
            *fence = false;
        }
        assert!(
            oracle::check(&bad, t).is_err(),
            "fence {s:?} is not needed:\n{text}"
        );
        assert!(
            !syncopt_verify::verify(&bad, t).is_ok(),
            "the verifier accepts fence {s:?} downgraded:\n{text}"
        );
    }
    text
}

fn fences(k: &Kernel) -> Vec<syncopt_ir::StmtId> {
    let mut out = Vec::new();
    k.walk(&mut |s, d| {
        if matches!(d.kind, StmtKind::Sync(SyncOp::Barrier { fence: true, .. })) {
            out.push(s);
        }
    });
    out
}

/// Converts `src`, which must fail; returns the rendered errors.
fn errors(src: &str) -> String {
    let (k, _, rep) = convert(src);
    assert!(
        rep.has_errors(),
        "expected an error:\n{}",
        syncopt_ir::print_kernel(&k)
    );
    rep.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            assert!(d.loc.is_some(), "error without a location: {}", d.message);
            d.render("t.sk", src)
        })
        .collect()
}

fn count(text: &str, line: &str) -> usize {
    text.lines().filter(|l| l.trim() == line).count()
}

/// The barrier kind at each boundary of the (first) pipelined loop, in body order.
fn boundary_kinds(text: &str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter_map(|l| match l {
            "barrier" => Some("fence"),
            "barrier exec" => Some("exec"),
            _ => None,
        })
        .collect()
}

const WP1: &str = "target gfx950
kernel @wp1(%n) waves 8 {
  for %k = 0 to %n {
    stage
    op \"mfma\"
    stage
    op \"mfma\"
  }
}
";

#[test]
fn wp1_wave64() {
    let out = ok(WP1);
    assert_eq!(
        out,
        "kernel @wp1(%n) waves 8 {
  wait lgkmcnt(0)
  cond_barrier high
  for %k = 0 to %n {
    stage
    op \"mfma\"
    sched_barrier 0
    barrier exec
    sched_barrier 0
    stage
    op \"mfma\"
    sched_barrier 0
    barrier exec
    sched_barrier 0
  }
  cond_barrier low
}
"
    );
    assert_eq!(group_predicate(Target::Gfx950, 8), "tid / 256");
    assert_eq!(group_predicate(Target::Gfx942, 8), "tid / 256");
}

#[test]
fn wp1_wave32() {
    let out = ok(&WP1.replace("gfx950", "gfx1250"));
    // gfx1250's local fence waits on DScnt; everything else is as on wave64.
    assert!(out.starts_with("kernel @wp1(%n) waves 8 {\n  wait dscnt(0)\n  cond_barrier high\n"));
    assert_eq!(count(&out, "barrier exec"), 2);
    assert_eq!(count(&out, "cond_barrier low"), 1);
    assert_eq!(group_predicate(Target::Gfx1250, 8), "tid / 128");
    // Four waves: two per group.
    assert_eq!(group_predicate(Target::Gfx950, 4), "tid / 128");
}

const WP3: &str = "target gfx950
kernel @wp3(%n) waves 8 {
  %A = buffer workgroup 16384
  %B = buffer workgroup 16384
  for %k = 0 to %n {
    stage
    op \"ds_read\" read %A[0:4096], read %B[0:4096]
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A[4096:8192], read %B[4096:8192]
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A[8192:16384], read %B[8192:16384]
    stage
    op \"mfma\"
    stage
    op \"ds_write\" write %A, write %B
    stage
    op \"mfma\"
  }
}
";

#[test]
fn wp3() {
    let out = ok(WP3);
    // Boundaries in body order: before c1, c2, ..., c7, then the wrap (before c0).
    assert_eq!(
        boundary_kinds(&out),
        ["exec", "exec", "exec", "exec", "fence", "exec", "fence", "exec"]
    );
    let expected_tail = "    stage
    op \"ds_read\" read %A[8192:16384], read %B[8192:16384]
    sched_barrier 0
    barrier
    sched_barrier 0
    stage
    op \"mfma\"
    sched_barrier 0
    barrier exec
    sched_barrier 0
    stage
    op \"ds_write\" write %A, write %B
    sched_barrier 0
    barrier
    sched_barrier 0
    stage
    op \"mfma\"
    sched_barrier 0
    barrier exec
    sched_barrier 0
  }
  cond_barrier low
}
";
    assert!(out.ends_with(expected_tail), "{out}");
    assert!(out.contains("  wait lgkmcnt(0)\n  cond_barrier high\n  for"));
}

#[test]
fn wp6_priorities() {
    let out = ok("target gfx950
kernel @wp6(%n) waves 8 {
  %A = buffer workgroup 8192
  for %k = 0 to %n {
    stage prio 3
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
");
    assert_eq!(
        out,
        "kernel @wp6(%n) waves 8 {
  %A = buffer workgroup 8192
  wait lgkmcnt(0)
  cond_barrier high
  setprio 3
  for %k = 0 to %n {
    stage prio 3
    op \"ds_read\" read %A
    sched_barrier 0
    barrier exec
    sched_barrier 0
    setprio 0
    stage
    op \"mfma\"
    sched_barrier 0
    barrier exec
    sched_barrier 0
    setprio 3
  }
  setprio 0
  cond_barrier low
}
"
    );
}

#[test]
fn no_priorities_means_no_setprio() {
    let out = ok(WP1);
    assert_eq!(out.matches("setprio").count(), 0);
    // Equal priorities: set once before the loop, reset after it.
    let out = ok("target gfx950
kernel @p(%n) waves 8 {
  for %k = 0 to %n {
    stage prio 2
    op \"mfma\"
    stage prio 2
    op \"mfma\"
    stage prio 1
    op \"mfma\"
  }
}
");
    assert_eq!(count(&out, "setprio 2"), 2, "{out}"); // prelude and the wrap boundary
    assert_eq!(count(&out, "setprio 1"), 1, "{out}");
    assert_eq!(count(&out, "setprio 0"), 1, "{out}");
}

#[test]
fn two_stages_with_lds() {
    // Stage 0 writes this iteration's slot and reads the other; the pair two stages apart
    // (the next iteration) needs the fence before stage 1.
    let out = ok("target gfx950
kernel @s2(%n) waves 8 {
  %A = buffer workgroup 8192
  for %k = 0 to %n {
    stage
    %cur = view %A slot (%k) mod 2
    %nxt = view %A slot (%k + 1) mod 2
    op \"ds_write\" write %cur
    op \"ds_read\" read %nxt
    stage
    op \"mfma\"
  }
}
");
    assert_eq!(boundary_kinds(&out), ["fence", "exec"]);
}

#[test]
fn three_stages() {
    let out = ok("target gfx950
kernel @s3(%n) waves 8 {
  %A = buffer workgroup 8192
  for %k = 0 to %n {
    stage
    %s = view %A slot (%k) mod 2
    op \"ds_write\" write %s
    stage
    op \"mfma\"
    stage
    %t = view %A slot (%k) mod 2
    op \"ds_read\" read %t
  }
}
");
    assert_eq!(boundary_kinds(&out), ["fence", "exec", "exec"]);
}

#[test]
fn four_stages() {
    let out = ok("target gfx942
kernel @s4(%n) waves 8 {
  %A = buffer workgroup 8192
  %B = buffer workgroup 8192
  for %k = 0 to %n {
    stage
    %s = view %A slot (%k) mod 2
    op \"ds_write\" write %s
    stage
    op \"ds_read\" read %B
    stage
    %t = view %A slot (%k) mod 2
    op \"ds_read\" read %t
    stage
    op \"mfma\"
  }
}
");
    assert_eq!(boundary_kinds(&out), ["fence", "exec", "exec", "exec"]);
}

#[test]
fn eight_stages_wave32() {
    let out = ok(&WP3.replace("gfx950", "gfx1250"));
    assert_eq!(
        boundary_kinds(&out),
        ["exec", "exec", "exec", "exec", "fence", "exec", "fence", "exec"]
    );
    assert!(out.contains("wait dscnt(0)"));
}

#[test]
fn phase_gap_two() {
    // With gap 2 the low group runs stage 1 of an iteration before the high group runs its
    // stage 0: a write in stage 0 and a read in stage 1 need fences at both boundaries.
    let out = ok("target gfx950
kernel @g2(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage gap 2
    op \"ds_write\" write %A
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
    stage
    op \"mfma\"
  }
}
");
    assert_eq!(count(&out, "cond_barrier high"), 2);
    assert_eq!(count(&out, "cond_barrier low"), 2);
    assert_eq!(boundary_kinds(&out), ["fence", "fence", "exec", "exec"]);
}

#[test]
fn phase_gap_two_without_lds() {
    let out = ok("target gfx1250
kernel @g2(%n) waves 8 {
  for %k = 0 to %n {
    stage gap 2
    op \"mfma\"
    stage
    stage
    op \"mfma\"
  }
}
");
    assert_eq!(count(&out, "cond_barrier high"), 2);
    assert_eq!(boundary_kinds(&out), ["exec", "exec", "exec"]);
}

#[test]
fn phase_gap_two_hazard_at_the_gap_is_an_error() {
    let e = errors(
        "target gfx950
kernel @g2(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage gap 2
    op \"ds_write\" write %A
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(e.contains("stage 0 and stage 2"), "{e}");
}

const FLAT: &str = "target gfx950
kernel @flat() waves 8 {
  %A = buffer workgroup 4096
  stage
  op \"ds_write\" write %A
  stage
  op \"mfma\"
  stage
  op \"ds_read\" read %A
  stage.end
}
";

#[test]
fn flat_pipeline() {
    let out = ok(FLAT);
    assert_eq!(
        out,
        "kernel @flat waves 8 {
  %A = buffer workgroup 4096
  wait lgkmcnt(0)
  cond_barrier high
  stage
  op \"ds_write\" write %A
  sched_barrier 0
  barrier
  sched_barrier 0
  stage
  op \"mfma\"
  sched_barrier 0
  barrier exec
  sched_barrier 0
  stage
  op \"ds_read\" read %A
  stage.end
  cond_barrier low
}
"
    );
}

#[test]
fn flat_pipeline_in_a_loop_body() {
    let out = ok("target gfx950
kernel @f(%n) waves 8 {
  %A = buffer workgroup 4096
  for %i = 0 to %n {
    stage
    op \"mfma\"
    stage
    op \"mfma\"
    stage.end
  }
}
");
    assert!(
        out.contains("  for %i = 0 to %n {\n    wait lgkmcnt(0)\n    cond_barrier high\n"),
        "{out}"
    );
    assert!(
        out.contains("    stage.end\n    cond_barrier low\n  }"),
        "{out}"
    );
}

#[test]
fn back_to_back_loops_merge() {
    let src = "target gfx950
kernel @b2b(%n, %m) waves 8 {
  %A = buffer workgroup 4096
  %B = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
  for %j = 0 to %m {
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
";
    let out = ok(src);
    assert_eq!(count(&out, "cond_barrier high"), 1, "{out}");
    assert_eq!(count(&out, "cond_barrier low"), 1, "{out}");
    assert!(
        out.contains("  }\n  for %j"),
        "nothing between the loops:\n{out}"
    );
}

#[test]
fn back_to_back_loops_with_a_hazard_keep_the_pair() {
    // The first loop's last stage writes what the second loop's first stage reads: merged,
    // the high group would still be writing while the low group reads.
    let src = "target gfx950
kernel @b2b(%n, %m) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"mfma\"
    stage
    op \"ds_write\" write %A
  }
  op \"sync_point\"
  for %j = 0 to %m {
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
"
    .replace("  op \"sync_point\"\n", "");
    let (k, _, rep) = convert(&src);
    assert!(!rep.has_errors());
    let out = syncopt_ir::print_kernel(&k);
    assert_eq!(count(&out, "cond_barrier high"), 2, "{out}");
    assert_eq!(count(&out, "cond_barrier low"), 2, "{out}");
    assert!(
        out.contains("  }\n  cond_barrier low\n  wait lgkmcnt(0)\n  cond_barrier high\n  for %j"),
        "{out}"
    );
    // Dropping the pair would race: the oracle agrees.
    let mut merged = k.clone();
    let mut drop = Vec::new();
    let mut seen_low = false;
    for &s in &merged.blocks[merged.body].stmts {
        match merged.stmts[s].kind {
            StmtKind::Sync(SyncOp::CondBarrier { .. }) if !seen_low => {
                if matches!(
                    merged.stmts[s].kind,
                    StmtKind::Sync(SyncOp::CondBarrier {
                        group: syncopt_ir::Group::Low
                    })
                ) {
                    seen_low = true;
                    drop.push(s);
                }
            }
            StmtKind::Sync(SyncOp::CondBarrier {
                group: syncopt_ir::Group::High,
            }) if seen_low => drop.push(s),
            _ => {}
        }
    }
    assert_eq!(drop.len(), 2);
    for s in drop {
        merged.remove_stmt(s);
    }
    assert!(oracle::check(&merged, Target::Gfx950).is_err());
}

#[test]
fn back_to_back_flat_pipelines() {
    let out = ok("target gfx950
kernel @f() waves 8 {
  %A = buffer workgroup 4096
  stage
  op \"ds_write\" write %A
  stage
  op \"mfma\"
  stage.end
  stage
  op \"mfma\"
  stage
  op \"ds_read\" read %A
  stage.end
}
");
    assert_eq!(count(&out, "cond_barrier high"), 1, "{out}");
    assert_eq!(count(&out, "cond_barrier low"), 1, "{out}");
    // The junction is one boundary; the write three stages before the read needs one fence.
    assert_eq!(
        count(&out, "barrier") + count(&out, "barrier exec"),
        3,
        "{out}"
    );
    assert_eq!(count(&out, "barrier"), 1, "{out}");
}

#[test]
fn back_to_back_flat_pipelines_with_adjacent_hazard_stay_apart() {
    let src = "target gfx950
kernel @f() waves 8 {
  %A = buffer workgroup 4096
  stage
  op \"mfma\"
  stage
  op \"ds_write\" write %A
  stage.end
  stage
  op \"ds_read\" read %A
  stage
  op \"mfma\"
  stage.end
}
";
    let (k, _, rep) = convert(src);
    assert!(!rep.has_errors());
    let out = syncopt_ir::print_kernel(&k);
    assert_eq!(count(&out, "cond_barrier high"), 2, "{out}");
    assert_eq!(count(&out, "cond_barrier low"), 2, "{out}");
}

#[test]
fn existing_exec_barrier_is_upgraded_not_trusted() {
    let out = ok("target gfx950
kernel @u(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_write\" write %A
    barrier exec
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
");
    // The user's `barrier exec` before stage 1 became the fence, with walls around it.
    assert!(out.contains("    op \"ds_write\" write %A\n    sched_barrier 0\n    barrier\n    sched_barrier 0\n    stage\n"), "{out}");
    assert_eq!(count(&out, "barrier") + count(&out, "barrier exec"), 4);
}

#[test]
fn existing_wait_is_not_a_fence() {
    let out = ok("target gfx950
kernel @u(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_write\" write %A
    wait lgkmcnt(1)
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
");
    assert!(
        out.contains("    wait lgkmcnt(1)\n    sched_barrier 0\n    barrier\n"),
        "{out}"
    );
}

#[test]
fn existing_fence_is_respected() {
    // The write in stage 0 and the read in stage 3 need a fence before stage 1 or stage 2;
    // alone the pass takes the later one, but the input already fences before stage 1.
    let src = "target gfx950
kernel @u(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_write\" write %A
    FENCE
    stage
    op \"mfma\"
    stage
    op \"mfma\"
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
";
    let out = ok(&src.replace("    FENCE\n", ""));
    assert_eq!(
        boundary_kinds(&out),
        ["exec", "fence", "exec", "fence", "exec"],
        "{out}"
    );
    let out = ok(&src.replace("FENCE", "barrier"));
    assert_eq!(
        boundary_kinds(&out),
        ["fence", "exec", "exec", "fence", "exec"],
        "{out}"
    );
}

#[test]
fn nested_in_an_outer_loop() {
    let out = ok("target gfx950
kernel @n(%n, %m) waves 8 {
  %A = buffer workgroup 4096
  for %o = 0 to %m {
    for %k = 0 to %n {
      stage
      op \"ds_write\" write %A
      stage
      op \"mfma\"
      stage
      op \"ds_read\" read %A
      stage
    }
  }
}
");
    assert!(
        out.contains("  for %o = 0 to %m {\n    wait lgkmcnt(0)\n    cond_barrier high\n"),
        "{out}"
    );
    assert_eq!(
        boundary_kinds(&out),
        ["fence", "exec", "fence", "exec"],
        "{out}"
    );
}

#[test]
fn ownership_removes_the_hazard() {
    // Each thread writes and reads its own word: no cross-thread conflict, no fence.
    let out = ok("target gfx950
kernel @o(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"st\" write %A[tid]
    stage
    op \"ld\" read %A[tid]
  }
}
");
    assert_eq!(boundary_kinds(&out), ["exec", "exec"]);
}

// ------------------------------------------------------------------------------ errors

#[test]
fn error_loop_inside_a_stage() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage
    for %i = 0 to 4 {
      op \"mfma\"
    }
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(e.contains("t.sk:5:5: error: loop inside stage 0"), "{e}");
}

#[test]
fn error_fewer_than_two_stages() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(
        e.contains("t.sk:4:5: error: a warp pipeline needs at least two stages"),
        "{e}"
    );
    let e = errors(
        "target gfx950
kernel @e() waves 8 {
  stage
  op \"mfma\"
  stage.end
}
",
    );
    assert!(
        e.contains("t.sk:3:3: error: a warp pipeline needs at least two stages"),
        "{e}"
    );
}

#[test]
fn error_op_before_the_first_marker() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    op \"mfma\"
    stage
    op \"mfma\"
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(
        e.contains("t.sk:4:5: error: unexpected statement before the first stage marker"),
        "{e}"
    );
}

#[test]
fn error_stray_stage_end() {
    let e = errors(
        "target gfx950
kernel @e() waves 8 {
  op \"mfma\"
  stage.end
}
",
    );
    assert!(
        e.contains("t.sk:4:3: error: 'stage.end' without a pipeline"),
        "{e}"
    );
}

#[test]
fn error_flat_pipeline_not_ended() {
    let e = errors(
        "target gfx950
kernel @e() waves 8 {
  stage
  op \"mfma\"
  stage
  op \"mfma\"
}
",
    );
    assert!(
        e.contains("t.sk:3:3: error: flat warp pipeline is not ended"),
        "{e}"
    );
}

#[test]
fn error_bad_gap() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage gap 3
    op \"mfma\"
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(e.contains("t.sk:4:5: error: phase gap 3"), "{e}");
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage
    op \"mfma\"
    stage gap 1
    op \"mfma\"
  }
}
",
    );
    assert!(
        e.contains("t.sk:6:5: error: a phase gap is given only on the first stage"),
        "{e}"
    );
}

#[test]
fn error_gap_two_on_flat() {
    let e = errors(
        "target gfx950
kernel @e() waves 8 {
  stage gap 2
  op \"mfma\"
  stage
  op \"mfma\"
  stage.end
}
",
    );
    assert!(
        e.contains("t.sk:3:3: error: phase gap 2 on a flat pipeline"),
        "{e}"
    );
}

#[test]
fn error_target_without_warp_pipelining() {
    for t in ["gfx1200", "sm_80", "sm_90"] {
        let e = errors(&WP1.replace("gfx950", t));
        assert!(
            e.contains("t.sk:4:5: error: warp-pipeline stages are not supported"),
            "{e}"
        );
    }
}

#[test]
fn error_adjacent_cross_group_hazard() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_write\" write %A
    stage
    op \"ds_read\" read %A
  }
}
",
    );
    assert!(
        e.contains("cross-group hazard between stage 0 and stage 1"),
        "{e}"
    );
    assert!(e.contains("t.sk:6:19: error:"), "{e}");
    // Around the ring too: the last stage against the first of the next iteration.
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_read\" read %A
    stage
    op \"mfma\"
    stage
    op \"ds_write\" write %A
  }
}
",
    );
    assert!(
        e.contains("cross-group hazard between stage 2 and stage 0"),
        "{e}"
    );
}

#[test]
fn multi_buffering_fixes_the_adjacent_hazard() {
    // The same shape as the ring error, with the write going to the other slot.
    ok("target gfx950
kernel @m(%n) waves 8 {
  %A = buffer workgroup 8192
  for %k = 0 to %n {
    stage
    %cur = view %A slot (%k) mod 2
    op \"ds_read\" read %cur
    stage
    op \"mfma\"
    stage
    %nxt = view %A slot (%k + 1) mod 2
    op \"ds_write\" write %nxt
    stage
    op \"mfma\"
  }
}
");
}

#[test]
fn error_hazard_inside_one_stage() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    stage
    op \"ds_write\" write %A
    op \"ds_read\" read %A
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(e.contains("accesses in stage 0 conflict"), "{e}");
}

#[test]
fn error_barrier_inside_a_stage_and_double_barrier() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage
    barrier
    op \"mfma\"
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(e.contains("t.sk:5:5: error: barrier inside stage 0"), "{e}");
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  for %k = 0 to %n {
    stage
    op \"mfma\"
    barrier
    barrier exec
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(
        e.contains("t.sk:7:5: error: two barriers at the boundary"),
        "{e}"
    );
}

#[test]
fn error_stage_marker_in_an_if() {
    let e = errors(
        "target gfx950
kernel @e(%n, %c) waves 8 {
  for %k = 0 to %n {
    stage
    if uniform %c {
      stage
      op \"mfma\"
    }
    stage
    op \"mfma\"
  }
}
",
    );
    assert!(
        e.contains("t.sk:6:7: error: stage marker nested inside a stage"),
        "{e}"
    );
}

#[test]
fn kernels_without_stages_are_untouched() {
    let (k, t) = parse_one(
        "target gfx950
kernel @plain(%n) waves 8 {
  %A = buffer workgroup 4096
  for %k = 0 to %n {
    op \"ds_write\" write %A
    op \"ds_read\" read %A
  }
}
",
    );
    let before = syncopt_ir::print_kernel(&k);
    let mut k2 = k.clone();
    let rep = run(&mut k2, t, &InsertOptions::default());
    assert!(rep.diagnostics.is_empty());
    assert_eq!(syncopt_ir::print_kernel(&k2), before);
}

#[test]
fn error_pipeline_under_divergent_if() {
    let e = errors(
        "target gfx950
kernel @e(%n) waves 8 {
  if divergent tid < 64 {
    for %k = 0 to %n {
      stage
      op \"mfma\"
      stage
      op \"mfma\"
    }
  }
}
",
    );
    assert!(
        e.contains("t.sk:5:7: error: warp-pipeline stage inside divergent control flow"),
        "{e}"
    );
    assert!(e.contains("t.sk:3:3: note: the divergent condition"), "{e}");
    // Under a uniform if it converts, inside the if.
    let out = ok("target gfx950
kernel @u(%n, %c) waves 8 {
  if uniform %c {
    for %k = 0 to %n {
      stage
      op \"mfma\"
      stage
      op \"mfma\"
    }
  }
}
");
    assert!(
        out.contains("  if uniform %c {\n    wait lgkmcnt(0)\n    cond_barrier high\n"),
        "{out}"
    );
}

#[test]
fn error_odd_wave_count() {
    let e = errors(&WP1.replace("waves 8", "waves 3"));
    assert!(e.contains("needs an even number of waves"), "{e}");
}

#[test]
fn async_copies_get_a_counter_wait_before_their_barrier() {
    let src = "target gfx950
kernel @a(%n) waves 8 {
  %A = buffer workgroup 16384
  %G = buffer global 1048576
  for %k = 0 to %n {
    stage
    %s = view %A slot (%k) mod 2
    op \"gather_to_lds\" async write %s, read %G
    stage
    op \"mfma\"
    stage
    %t = view %A slot (%k) mod 2
    op \"ds_read\" read %t
    stage
    op \"mfma\"
  }
}
";
    let out = ok(src);
    // The copy must have landed before the barrier that lets the other group read it; an
    // LDS fence does not wait for it.
    assert!(
        out.contains("    op \"gather_to_lds\" async write %s, read %G\n    sched_barrier 0\n    wait vmcnt(0)\n    barrier exec\n"),
        "{out}"
    );
    let (k, t, _) = convert(src);
    let mut no_wait = k.clone();
    let w = k
        .inserted_syncs()
        .into_iter()
        .find(|&s| matches!(k.stmts[s].kind, StmtKind::Sync(SyncOp::CounterWait { n: 0, counter }) if counter == syncopt_ir::Counter::Vmcnt))
        .expect("a vmcnt wait");
    no_wait.remove_stmt(w);
    assert!(oracle::check(&no_wait, t).is_err());
    assert!(!syncopt_verify::verify(&no_wait, t).is_ok());
    // gfx1250 waits on ASYNCcnt; a newer copy may stay in flight.
    let out = ok(&src
        .replace("gfx950", "gfx1250")
        .replace(
            "    op \"mfma\"\n    stage\n    %t",
            "    op \"gather_to_lds\" async write %B, read %G\n    stage\n    %t",
        )
        .replace(
            "  %G = buffer",
            "  %B = buffer workgroup 1024\n  %G = buffer",
        ));
    assert!(
        out.contains("wait asynccnt(0)") || out.contains("wait asynccnt(1)"),
        "{out}"
    );
}

#[test]
fn check_rejects_stages_where_the_pass_does_not_run() {
    // `syncopt insert` skips this pass on targets without warp pipelining, so `check`
    // (run before every insert) must reject the stages there.
    for t in ["gfx1200", "sm_80", "sm_90"] {
        let (k, target) = parse_one(&WP1.replace("gfx950", t));
        let diags = syncopt_targets::check::check_kernel(&k, target);
        assert_eq!(
            diags
                .iter()
                .filter(|d| d
                    .message
                    .starts_with("warp-pipeline stages are not supported"))
                .count(),
            1,
            "{t}"
        );
    }
    let (k, target) = parse_one(WP1);
    assert!(syncopt_targets::check::check_kernel(&k, target).is_empty());
}
