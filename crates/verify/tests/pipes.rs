//! The Ascend pipe verifier: scenarios PT1..PT7 of shared/scenarios/README.md, one kernel per
//! problem the model must catch, every PyPTO trap of prior-art.md, and the check that
//! removing any needed sync op of a correct program is caught.

use syncopt_ir::{parse, Kernel, StmtKind, SyncOp};
use syncopt_targets::{check::check_kernel, Target};
use syncopt_verify::{pipes, Report};

const DECLS: &str = "
  %gA = buffer gm 4096
  %gB = buffer gm 4096
  %gC = buffer gm 4096
  %A = buffer ub 4096
  %B = buffer ub 4096
  %C = buffer ub 4096
  %D = buffer ub 4096
  %A2 = buffer ub 8192
  %L1A = buffer l1 4096
  %L1B = buffer l1 4096
  %L0A = buffer l0a 4096
  %L0B = buffer l0b 4096
  %L0C = buffer l0c 4096
";

fn source(target: &str, body: &str) -> String {
    format!("target {target}\n\nkernel @k(%n, %m, %c) {{{DECLS}{body}\n}}\n")
}

fn parse_kernel(target: &str, body: &str) -> (Kernel, Target) {
    let src = source(target, body);
    let file = match parse(&src) {
        Ok(f) => f,
        Err(d) => panic!(
            "test input does not parse: {}\n{src}",
            d.render("t.sk", &src)
        ),
    };
    let k = file.chunks[0].kernels[0].clone();
    let t = Target::from_name(target).unwrap();
    (k, t)
}

/// Verifies a valid kernel (the target checks must pass: inputs are well-formed).
fn run_on(target: &str, body: &str) -> Report {
    let (k, t) = parse_kernel(target, body);
    let bad: Vec<_> = check_kernel(&k, t)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(bad.is_empty(), "test input fails check: {bad:?}");
    pipes::verify(&k, t)
}

fn messages(r: &Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect()
}

#[track_caller]
fn ok_on(target: &str, body: &str) {
    let r = run_on(target, body);
    assert!(
        r.is_ok(),
        "expected to verify on {target}, got:\n{:#?}",
        r.diagnostics
    );
}

#[track_caller]
fn ok(body: &str) {
    ok_on("ascend910b", body);
}

/// Fails, and every needle appears in some error message.
#[track_caller]
fn fails_on(target: &str, body: &str, needles: &[&str]) -> Report {
    let r = run_on(target, body);
    let m = messages(&r);
    assert!(
        !m.is_empty(),
        "expected errors on {target}, verified instead:\n{body}"
    );
    for n in needles {
        assert!(
            m.iter().any(|x| x.contains(n)),
            "no error contains {n:?}; errors:\n{}",
            m.join("\n")
        );
    }
    r
}

#[track_caller]
fn fails(body: &str, needles: &[&str]) -> Report {
    fails_on("ascend910b", body, needles)
}

/// Every sync statement of the kernel, in program order.
fn syncs(k: &Kernel) -> Vec<(syncopt_ir::StmtId, SyncOp)> {
    let mut out = Vec::new();
    k.walk(&mut |s, d| {
        if let StmtKind::Sync(op) = &d.kind {
            out.push((s, op.clone()));
        }
    });
    out
}

/// The body verifies, and removing any one of its sync ops is caught with a diagnostic of
/// the right kind: a missing set leaves a wait without set (or a later set reused while
/// live), a missing wait leaves a race or a flag pending, a missing barrier leaves a race.
#[track_caller]
fn needed_syncs(target: &str, body: &str) {
    ok_on(target, body);
    let (k, t) = parse_kernel(target, body);
    let all = syncs(&k);
    assert!(!all.is_empty());
    for (s, op) in &all {
        let mut k2 = k.clone();
        assert!(k2.remove_stmt(*s));
        let r = pipes::verify(&k2, t);
        let m = messages(&r);
        let good = match op {
            SyncOp::SetFlag { .. } => m
                .iter()
                .any(|x| x.contains("without a matching set_flag") || x.contains("race (")),
            SyncOp::WaitFlag { .. } => m.iter().any(|x| {
                x.contains("race (")
                    || x.contains("still pending at kernel exit")
                    || x.contains("reused while live")
            }),
            SyncOp::PipeBarrier { pipe } => m.iter().any(|x| {
                x.contains("race (")
                    && (x.contains("pipe_barrier") || *pipe == syncopt_ir::Pipe::All)
            }),
            _ => false,
        };
        assert!(good, "removing {op:?} at {:?} gave {m:?}", k.stmts[*s].loc);
    }
    // Removing both halves of a flag pair leaves balance intact, so only a race can catch it.
    for (i, (s, op)) in all.iter().enumerate() {
        let SyncOp::SetFlag { src, dst, id } = op else {
            continue;
        };
        let Some((w, _)) = all[i + 1..].iter().find(|(_, o)| {
            matches!(o, SyncOp::WaitFlag { src: s2, dst: d2, id: i2 } if s2 == src && d2 == dst && i2 == id)
        }) else {
            continue;
        };
        let mut k2 = k.clone();
        k2.remove_stmt(*s);
        k2.remove_stmt(*w);
        let m = messages(&pipes::verify(&k2, t));
        // A pair that is also matched elsewhere (priming before a loop) may unbalance instead.
        assert!(
            m.iter().any(|x| x.contains("race (")
                || x.contains("without a matching set_flag")
                || x.contains("still pending")),
            "removing the pair {op:?} gave {m:?}"
        );
    }
}

// ---------------------------------------------------------------- scenarios PT1..PT7

const PT1: &str = r#"
  op "load" write %A, read %gA
  op "load" write %B, read %gB
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  op "add" write %C, read %A, read %B
  set_flag V -> MTE3, 0
  wait_flag V -> MTE3, 0
  op "store" write %gC, read %C"#;

#[test]
fn pt1() {
    needed_syncs("ascend910b", PT1);
    needed_syncs("ascend950", PT1);
    // One set after the first load only: the add reads B before it landed.
    fails(
        r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  op "load" write %B, read %gB
  wait_flag MTE2 -> V, 0
  op "add" write %C, read %A, read %B
  set_flag V -> MTE3, 0
  wait_flag V -> MTE3, 0
  op "store" write %gC, read %C"#,
        &[
            "race (RAW) on %B: MTE2 write at",
            "no flag orders MTE2 before V",
        ],
    );
}

#[test]
fn pt2() {
    let body = r#"
  op "add" write %C, read %A, read %B
  pipe_barrier V
  op "add" write %D, read %C, read %A"#;
    needed_syncs("ascend910b", body);
    let bare = r#"
  op "add" write %C, read %A, read %B
  op "add" write %D, read %C, read %A"#;
    fails(
        bare,
        &[
            "race (RAW) on %C: V write at",
            "no pipe_barrier(V) between them",
        ],
    );
    // ascend950 orders V in hardware.
    ok_on("ascend950", bare);
}

const PT3: &str = r#"
  op "load" write %L1A, read %gA
  set_flag MTE2 -> MTE1, 0
  op "load" write %L1B, read %gB
  set_flag MTE2 -> MTE1, 1
  wait_flag MTE2 -> MTE1, 0
  op "move" write %L0A, read %L1A
  wait_flag MTE2 -> MTE1, 1
  op "move" write %L0B, read %L1B
  set_flag MTE1 -> M, 0
  wait_flag MTE1 -> M, 0
  op "matmul" write %L0C, read %L0A, read %L0B
  set_flag M -> FIX, 0
  wait_flag M -> FIX, 0
  op "store" write %gC, read %L0C"#;

#[test]
fn pt3() {
    needed_syncs("ascend910b", PT3);
    // Same id for both loads: the second set reuses (MTE2, 0) while the first is live.
    fails(
        &PT3.replace("MTE2 -> MTE1, 1", "MTE2 -> MTE1, 0"),
        &["event id 0 of MTE2 reused while live: set at"],
    );
}

const PT4: &str = r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  if uniform %c {
    op "add" write %B, read %A, read %A
  } else {
    op "mul" write %C, read %A, read %A
  }"#;

#[test]
fn pt4() {
    needed_syncs("ascend910b", PT4);
    // The flag only in the then branch: the else path races.
    let r = fails(
        r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  if uniform %c {
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
  } else {
    op "mul" write %C, read %A, read %A
  }"#,
        &["race (RAW) on %A", "still pending at kernel exit"],
    );
    let race = r
        .diagnostics
        .iter()
        .find(|d| d.message.starts_with("race"))
        .unwrap();
    assert!(
        race.notes.iter().any(|(_, n)| n.contains("else branch")),
        "the counterexample names the else path: {:?}",
        race.notes
    );
}

const PT7: &str = r#"
  set_flag V -> MTE2, 0
  set_flag MTE3 -> V, 0
  for %i = 0 to %n {
    wait_flag V -> MTE2, 0
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    wait_flag MTE3 -> V, 0
    op "add" write %C, read %A, read %A
    set_flag V -> MTE2, 0
    set_flag V -> MTE3, 1
    wait_flag V -> MTE3, 1
    op "store" write %gC, read %C
    set_flag MTE3 -> V, 0
  }
  wait_flag V -> MTE2, 0
  wait_flag MTE3 -> V, 0"#;

#[test]
fn pt7() {
    needed_syncs("ascend910b", PT7);
    // Known counts and ranges too.
    ok(&PT7.replace("0 to %n", "0 to 5"));
    ok(&PT7.replace("0 to %n", "0 to 100"));
    ok(&PT7.replace("0 to %n", "0 to %n min 1 max 3"));
    // The loop-carried WAR left unsynchronized (the store of i before the add of i+1).
    fails(
        r#"
  set_flag V -> MTE2, 0
  for %i = 0 to %n {
    wait_flag V -> MTE2, 0
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    op "add" write %C, read %A, read %A
    set_flag V -> MTE2, 0
    set_flag V -> MTE3, 1
    wait_flag V -> MTE3, 1
    op "store" write %gC, read %C
  }
  wait_flag V -> MTE2, 0"#,
        &[
            "race (WAR) on %C: MTE3 read at",
            "no flag orders MTE3 before V",
        ],
    );
    // The same id for V->MTE2 and V->MTE3: two live flags share (V, 0).
    fails(
        &PT7.replace("V -> MTE3, 1", "V -> MTE3, 0"),
        &["event id 0 of V reused while live"],
    );
}

// ---------------------------------------------------------------- hazards

#[test]
fn cross_pipe_raw_war_waw() {
    fails(
        r#"
  op "load" write %A, read %gA
  op "add" write %B, read %A, read %A"#,
        &[
            "race (RAW) on %A: MTE2 write at",
            "and V read at",
            "no flag orders MTE2 before V",
        ],
    );
    fails(
        r#"
  op "add" write %B, read %A, read %A
  op "load" write %A, read %gA"#,
        &[
            "race (WAR) on %A: V read at",
            "no flag orders V before MTE2",
        ],
    );
    fails(
        r#"
  op "load" write %A, read %gA
  op "dup" write %A"#,
        &[
            "race (WAW) on %A: MTE2 write at",
            "no flag orders MTE2 before V",
        ],
    );
    // Reads never conflict; disjoint buffers never do.
    ok(r#"
  op "add" write %B, read %A, read %A
  op "store" write %gA, read %A
  op "load" write %C, read %gB"#);
    // Global memory is a buffer too: a store and a load of the same gm bytes race.
    fails(
        r#"
  op "store" write %gA, read %A
  op "load" write %B, read %gA"#,
        &[
            "race (RAW) on %gA: MTE3 write at",
            "no flag orders MTE3 before MTE2",
        ],
    );
}

#[test]
fn same_pipe_barriers() {
    let bare = r#"
  op "add" write %C, read %A, read %B
  op "mul" write %C, read %D, read %D"#;
    fails(
        bare,
        &["race (WAW) on %C", "no pipe_barrier(V) between them"],
    );
    ok_on("ascend950", bare);
    ok(&bare.replace("\n  op \"mul\"", "\n  pipe_barrier V\n  op \"mul\""));
    ok(&bare.replace("\n  op \"mul\"", "\n  pipe_barrier ALL\n  op \"mul\""));
    // A barrier of another pipe does not help.
    fails(
        &bare.replace("\n  op \"mul\"", "\n  pipe_barrier M\n  op \"mul\""),
        &["no pipe_barrier(V)"],
    );
    // M needs one on both targets.
    let mm = r#"
  op "matmul" write %L0C, read %L0A, read %L0B
  op "matmul" write %L0C, read %L0A, read %L0B"#;
    fails_on(
        "ascend950",
        mm,
        &["race (WAW) on %L0C", "no pipe_barrier(M)"],
    );
    ok_on(
        "ascend950",
        &mm.replace(
            "\n  op \"matmul\" write %L0C, read %L0A, read %L0B\n  op",
            "\n  op \"matmul\" write %L0C, read %L0A, read %L0B\n  pipe_barrier M\n  op",
        ),
    );
    // MTE2 runs its ops in order: two loads into one buffer need nothing.
    ok(r#"
  op "load" write %A, read %gA
  op "load" write %A, read %gB"#);
    // pipe_barrier S is a hardware error.
    let (mut k, t) = parse_kernel("ascend910b", "  op \"add\" write %C, read %A, read %B");
    let body = k.body;
    k.insert_syncs(vec![(
        syncopt_ir::ProgramPoint {
            block: body,
            index: 0,
        },
        SyncOp::PipeBarrier {
            pipe: syncopt_ir::Pipe::S,
        },
    )]);
    let m = messages(&pipes::verify(&k, t));
    assert!(
        m.iter()
            .any(|x| x.contains("pipe_barrier(S) is a hardware error")),
        "{m:?}"
    );
}

#[test]
fn pipe_barrier_all_orders_everything() {
    ok(r#"
  op "load" write %A, read %gA
  pipe_barrier ALL
  op "add" write %B, read %A, read %A
  pipe_barrier ALL
  op "store" write %gA, read %B
  pipe_barrier ALL
  op "load" write %A, read %gA"#);
}

#[test]
fn transitive_through_two_flags() {
    // MTE2 -> MTE1, then MTE1 -> M set after the first wait: M is ordered after the load.
    let good = r#"
  op "load" write %L1A, read %gA
  set_flag MTE2 -> MTE1, 0
  wait_flag MTE2 -> MTE1, 0
  op "move" write %L0A, read %L1B
  set_flag MTE1 -> M, 0
  wait_flag MTE1 -> M, 0
  op "mmad" pipe M write %L0C, read %L1A"#;
    needed_syncs("ascend910b", good);
    // The MTE1 -> M set before MTE1 waited for MTE2: it carries nothing of the load.
    fails(
        r#"
  op "load" write %L1A, read %gA
  set_flag MTE2 -> MTE1, 0
  set_flag MTE1 -> M, 0
  wait_flag MTE2 -> MTE1, 0
  op "move" write %L0A, read %L1B
  wait_flag MTE1 -> M, 0
  op "mmad" pipe M write %L0C, read %L1A"#,
        &[
            "race (RAW) on %L1A: MTE2 write at",
            "no flag orders MTE2 before M",
        ],
    );
    // Three hops: MTE2 -> V -> MTE3 -> MTE2 orders a load after everything.
    ok(r#"
  op "add" write %B, read %A, read %A
  op "load" write %C, read %gA
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  set_flag V -> MTE3, 0
  wait_flag V -> MTE3, 0
  set_flag MTE3 -> MTE2, 0
  wait_flag MTE3 -> MTE2, 0
  op "load" write %A, read %gA"#);
}

#[test]
fn views_ranges_and_aliases() {
    // Disjoint byte ranges of one buffer do not conflict; overlapping ones do.
    ok(r#"
  op "load" write %A[0:2048], read %gA
  op "add" write %B, read %A[2048:4096], read %A[2048:4096]"#);
    fails(
        r#"
  op "load" write %A[0:2048], read %gA
  op "add" write %B, read %A[2000:4096], read %A[2048:4096]"#,
        &["race (RAW) on %A"],
    );
    // Views of views, resolved to root bytes.
    ok(r#"
  %lo = view %A2[0:4096]
  %hi = view %A2[4096:8192]
  %hh = view %hi[0:1024]
  op "load" write %lo, read %gA
  op "add" write %B, read %hh, read %hh"#);
    fails(
        r#"
  %lo = view %A2[0:4096]
  %lh = view %lo[1024:2048]
  op "load" write %lo, read %gA
  op "add" write %B, read %lh, read %lh"#,
        &["race (RAW) on %A2"],
    );
}

#[test]
fn allocator_aliases() {
    let src = r#"target ascend910b

kernel @k() {
  %gA = buffer gm 4096
  %X = buffer ub 8192
  %Y = buffer ub 4096 aliases %X
  %P = buffer ub 1024 at %X + 0
  %Q = buffer ub 1024 at %X + 1024
  %B = buffer ub 4096
  %B2 = buffer ub 4096
  op "load" write %Y, read %gA
  op "add" write %B, read %X[4096:8192], read %X[4096:8192]
  op "load" write %P, read %gA
  op "add" write %B2, read %Q, read %Q
  pipe_barrier ALL
  op "load" write %P, read %gA
  op "add" write %B, read %X[512:600], read %X[512:600]
}
"#;
    let f = parse(src).unwrap();
    let k = &f.chunks[0].kernels[0];
    let m = messages(&pipes::verify(k, Target::Ascend910b));
    // %Y may overlap %X anywhere, so also %Q, placed inside %X.
    assert!(
        m.iter().any(|x| x.starts_with(
            "race (RAW) on %Y and %X (declared to alias): MTE2 write at 11:3 and V read at 12:3"
        )),
        "{m:?}"
    );
    assert!(
        m.iter()
            .any(|x| x.contains("MTE2 write at 11:3 and V read at 14:3")),
        "{m:?}"
    );
    // %P at bytes [0:1024] and %Q at [1024:2048] of %X are disjoint ...
    assert!(
        !m.iter().any(|x| x.contains("at 13:3 and V read at 14:3")),
        "{m:?}"
    );
    // ... but %P overlaps %X[512:600].
    assert!(
        m.iter()
            .any(|x| x.contains("MTE2 write at 16:3 and V read at 17:3")),
        "{m:?}"
    );
    // The pipe_barrier ALL ordered everything before it.
    assert_eq!(m.len(), 3, "{m:?}");
}

// ---------------------------------------------------------------- balance

#[test]
fn set_twice_wait_without_set_pending_at_exit() {
    fails(
        r#"
  set_flag MTE2 -> V, 3
  set_flag MTE2 -> V, 3
  wait_flag MTE2 -> V, 3"#,
        &["event id 3 of MTE2 reused while live: set at 18:3"],
    );
    fails(
        r#"
  wait_flag MTE2 -> V, 0"#,
        &["wait_flag MTE2 -> V, 0 without a matching set_flag on some path"],
    );
    fails(
        r#"
  set_flag MTE2 -> V, 0"#,
        &["set_flag MTE2 -> V, 0 is still pending at kernel exit"],
    );
    fails(
        r#"
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> MTE1, 0"#,
        &["waits for a flag that set_flag at"],
    );
    // Out-of-range ids (PyPTO trap: running out of ids must fall back to pipe_barrier ALL,
    // never to an id the hardware does not have).
    let (mut k, t) = parse_kernel("ascend910b", "");
    let body = k.body;
    k.insert_syncs(vec![(
        syncopt_ir::ProgramPoint {
            block: body,
            index: 0,
        },
        SyncOp::SetFlag {
            src: syncopt_ir::Pipe::Mte2,
            dst: syncopt_ir::Pipe::V,
            id: syncopt_ir::FlagId::fixed(8),
        },
    )]);
    let m = messages(&pipes::verify(&k, t));
    assert!(
        m.iter()
            .any(|x| x.contains("event id 8 of MTE2 is out of range")),
        "{m:?}"
    );
}

#[test]
fn zero_trip_paths() {
    // One trip balances; zero trips leave the set pending.
    let body = r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  for %i = 0 to %n max 1 {
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
  }"#;
    let r = fails(
        body,
        &["set_flag MTE2 -> V, 0 is still pending at kernel exit"],
    );
    assert_eq!(
        messages(&r).len(),
        1,
        "only the zero-trip path fails: {:?}",
        messages(&r)
    );
    ok(&body.replace("max 1", "min 1 max 1"));
    // Two or more trips wait without a set.
    fails(
        &body.replace("max 1", "max 2"),
        &["wait_flag MTE2 -> V, 0 without a matching set_flag"],
    );
    // The synchronization lives only inside the loop: the read after it races on zero trips
    // (scenario TM20's Ascend twin).
    let r = fails(
        r#"
  op "load" write %A, read %gA
  for %i = 0 to %n {
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
    set_flag V -> MTE2, 0
    wait_flag V -> MTE2, 0
  }
  op "add" write %C, read %A, read %A"#,
        &["race (RAW) on %A: MTE2 write at 18:3 and V read at 26:3"],
    );
    assert_eq!(messages(&r).len(), 1, "{:?}", messages(&r));
    let race = &r.diagnostics[0];
    assert!(
        race.notes
            .iter()
            .any(|(_, n)| n.contains("path: straight-line")),
        "zero trips: no iteration on the path: {:?}",
        race.notes
    );
    ok(r#"
  op "load" write %A, read %gA
  for %i = 0 to %n min 1 {
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
    set_flag V -> MTE2, 0
    wait_flag V -> MTE2, 0
  }
  op "add" write %C, read %A, read %A"#);
}

#[test]
fn unbalanced_branches() {
    fails(
        r#"
  if uniform %c {
    set_flag MTE2 -> V, 0
  }
  wait_flag MTE2 -> V, 0"#,
        &["wait_flag MTE2 -> V, 0 without a matching set_flag"],
    );
    fails(
        r#"
  set_flag MTE2 -> V, 0
  if uniform %c {
    wait_flag MTE2 -> V, 0
  }"#,
        &["still pending at kernel exit"],
    );
    ok(r#"
  op "load" write %A, read %gA
  if uniform %c {
    set_flag MTE2 -> V, 0
  } else {
    set_flag MTE2 -> V, 0
  }
  wait_flag MTE2 -> V, 0
  op "add" write %B, read %A, read %A"#);
    // Conditions on the induction variable are decided per iteration.
    ok(r#"
  for %i = 0 to %n {
    if uniform (%i) mod 2 == 0 {
      set_flag MTE2 -> V, 0
    } else {
      wait_flag MTE2 -> V, 0
    }
  }
  if uniform %c {
  }"#
    .replace("for %i = 0 to %n {", "for %i = 0 to 6 {")
    .as_str());
    let alternating = r#"
  for %i = 0 to TRIPS {
    if uniform (%i) mod 2 == 0 {
      set_flag MTE2 -> V, 0
    } else {
      wait_flag MTE2 -> V, 0
    }
  }"#;
    // 100 trips (past the exact unrolling: the residue of %i decides, and the exit is taken
    // at the 100th state of the periodic sequence) is balanced; 101 or unknown is not.
    ok(&alternating.replace("TRIPS", "100"));
    ok(&alternating.replace("TRIPS", "%n min 2 max 2"));
    fails(
        &alternating.replace("TRIPS", "101"),
        &["still pending at kernel exit"],
    );
    fails(
        &alternating.replace("TRIPS", "%n"),
        &["still pending at kernel exit"],
    );
}

// ---------------------------------------------------------------- alternating ids

#[test]
fn double_buffered_alternating_ids() {
    let good = r#"
  set_flag V -> MTE2, 0
  set_flag V -> MTE2, 1
  for %i = 0 to %n {
    %a = view %A2 slot (%i) mod 2
    wait_flag V -> MTE2, 0 + (%i) mod 2
    op "load" write %a, read %gA
    set_flag MTE2 -> V, 0 + (%i) mod 2
    wait_flag MTE2 -> V, 0 + (%i) mod 2
    op "reduce" read %a
    set_flag V -> MTE2, 0 + (%i) mod 2
  }
  wait_flag V -> MTE2, 0
  wait_flag V -> MTE2, 1"#;
    needed_syncs("ascend910b", good);
    ok(&good.replace("0 to %n", "0 to 7"));
    ok(&good.replace("0 to %n", "1 to %n"));
    // One buffer for both ids: iteration i waits only for the read of i-2, not i-1.
    fails(
        &good.replace("%a = view %A2 slot (%i) mod 2", "%a = view %A2[0:4096]"),
        &[
            "race (WAR) on %A2: V read at",
            "no flag orders V before MTE2",
        ],
    );
    // Slots and ids out of step: iteration i refills slot i mod 2 after waiting for the
    // other slot's reader only.
    let r = fails(
        &good.replace("%a = view %A2 slot (%i) mod 2", "%a = view %A2 slot (%i + 1) mod 2")
            .replace("wait_flag V -> MTE2, 0 + (%i) mod 2", "wait_flag V -> MTE2, 0 + (%i + 1) mod 2")
            .replace("set_flag V -> MTE2, 0 + (%i) mod 2", "set_flag V -> MTE2, 0 + (%i + 1) mod 2")
            .replace("\n    op \"reduce\" read %a\n", "\n    op \"reduce\" read %a\n    %b = view %A2 slot (%i) mod 2\n    op \"reduce\" read %b\n"),
        &["race (WAR) on %A2"],
    );
    assert!(
        r.diagnostics[0]
            .notes
            .iter()
            .any(|(_, n)| n.contains("iteration")),
        "the counterexample names iterations: {:?}",
        r.diagnostics[0].notes
    );
    // Alternating ids with one fixed-id wait: unbalanced.
    fails(
        &good.replace(
            "wait_flag MTE2 -> V, 0 + (%i) mod 2",
            "wait_flag MTE2 -> V, 0",
        ),
        &["without a matching set_flag"],
    );
    // An id alternating with an unknown start cannot be resolved.
    fails(
        &good.replace("0 to %n", "%m to %n"),
        &["cannot resolve this event id"],
    );
}

// ---------------------------------------------------------------- control flow

const NESTED: &str = r#"
  set_flag V -> MTE2, 0
  for %i = 0 to %n {
    wait_flag V -> MTE2, 0
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    for %j = 0 to %m {
      op "reduce" read %A
    }
    set_flag V -> MTE2, 0
  }
  wait_flag V -> MTE2, 0"#;

#[test]
fn nested_loops() {
    needed_syncs("ascend910b", NESTED);
    // PyPTO trap: nested loops folded the outer loop's positions and lost the outer
    // loop-carried WAR (inner reads of iteration i against the load of i+1).
    let r = fails(
        r#"
  for %i = 0 to %n {
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    for %j = 0 to %m {
      op "reduce" read %A
    }
  }"#,
        &["race (WAR) on %A: V read at 23:7 and MTE2 write at 19:5"],
    );
    let notes = &r.diagnostics[0].notes;
    assert!(
        notes.iter().any(|(_, n)| n.contains("iteration 2")),
        "the counterexample reaches the second outer iteration: {notes:?}"
    );
    // Known inner count.
    ok(&NESTED.replace("0 to %m", "0 to 3"));
    ok(&NESTED.replace("0 to %m", "0 to 40"));
}

#[test]
fn if_inside_for_and_for_inside_if() {
    let body = r#"
  set_flag V -> MTE2, 0
  for %i = 0 to %n {
    wait_flag V -> MTE2, 0
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    if uniform %c {
      wait_flag MTE2 -> V, 0
      op "add" write %B, read %A, read %A
    } else {
      wait_flag MTE2 -> V, 0
    }
    set_flag V -> MTE2, 0
  }
  wait_flag V -> MTE2, 0"#;
    needed_syncs("ascend910b", body);
    // The else branch skips its wait: unbalanced on the next set.
    fails(
        &body.replace("} else {\n      wait_flag MTE2 -> V, 0\n    }", "}"),
        &["event id 0 of MTE2 reused while live"],
    );
    let body2 = r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  if uniform %c {
    wait_flag MTE2 -> V, 0
    for %i = 0 to %n {
      op "reduce" read %A
    }
  } else {
    wait_flag MTE2 -> V, 0
  }
  op "load" write %A, read %gB"#;
    fails(body2, &["race (WAR) on %A: V read at"]);
    let fixed = body2.replace(
        "\n  op \"load\" write %A, read %gB",
        "\n  set_flag V -> MTE2, 0\n  wait_flag V -> MTE2, 0\n  op \"load\" write %A, read %gB",
    );
    needed_syncs("ascend910b", &fixed);
}

#[test]
fn loop_carried_handles() {
    // Ping-pong through iter args: the load fills %nxt while V reads %cur.
    let good = r#"
  %P0 = view %A2[0:4096]
  %P1 = view %A2[4096:8192]
  op "load" write %P0, read %gA
  set_flag MTE2 -> V, 0
  set_flag V -> MTE2, 1
  for %i = 0 to %n iter(%cur = %P0, %nxt = %P1) {
    wait_flag V -> MTE2, 1
    op "load" write %nxt, read %gA
    wait_flag MTE2 -> V, 0
    op "reduce" read %cur
    set_flag V -> MTE2, 1
    set_flag MTE2 -> V, 0
    yield %nxt, %cur
  }
  wait_flag MTE2 -> V, 0
  wait_flag V -> MTE2, 1"#;
    ok(good);
    // Without the swap, the next load overwrites what V still reads... no: it writes %P1
    // while V reads %P0 every time, so it is still race-free; but reading %nxt races.
    fails(
        &good.replace("op \"reduce\" read %cur", "op \"reduce\" read %nxt"),
        &["race (RAW) on %A2: MTE2 write at"],
    );
    // A result handle used after the loop.
    ok(r#"
  %P0 = view %A2[0:4096]
  %P1 = view %A2[4096:8192]
  %x, %y = for %i = 0 to %n iter(%cur = %P0, %nxt = %P1) {
    yield %nxt, %cur
  }
  op "load" write %x, read %gA
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  op "reduce" read %x"#);
}

#[test]
fn joined_result_handles() {
    // %x is %P0 or %P1 after the if: a load into %x races a read of either without a flag.
    let body = r#"
  %P0 = view %A2[0:4096]
  %P1 = view %A2[4096:8192]
  %x = if uniform %c {
    yield %P0
  } else {
    yield %P1
  }
  op "reduce" read %P1
  op "load" write %x, read %gA
  op "reduce" read %P0"#;
    let r = fails(
        body,
        &[
            "race (WAR) on %A2: V read at",
            "race (RAW) on %A2: MTE2 write at",
        ],
    );
    assert_eq!(messages(&r).len(), 2, "{:?}", messages(&r));
    // Many ifs in a row stay one context each (no 2^n blow-up), and stay sound.
    let mut many = String::from("\n  %P0 = view %A2[0:4096]\n  %P1 = view %A2[4096:8192]");
    for i in 0..40 {
        many.push_str(&format!(
            "\n  %x{i} = if uniform %c {{\n    yield %P0\n  }} else {{\n    yield %P1\n  }}"
        ));
    }
    for i in 0..40 {
        many.push_str(&format!(
            "\n  op \"load\" write %x{i}, read %gA\n  pipe_barrier ALL"
        ));
    }
    let r = run_on("ascend910b", &many);
    assert!(r.is_ok(), "{:?}", r.diagnostics);
    assert!(r.states < 10_000, "{} states", r.states);
    fails(
        &many.replace("\n  pipe_barrier ALL", "\n  op \"reduce\" read %x3"),
        &["race (RAW) on %A2"],
    );
}

// ---------------------------------------------------------------- PyPTO traps

#[test]
fn pypto_redundancy_removal_dropped_a_needed_wait() {
    // The wait after the first load was taken to cover the add, though the add also reads
    // what the second load writes after that wait.
    fails(
        r#"
  op "load" write %A, read %gA
  set_flag MTE2 -> V, 0
  wait_flag MTE2 -> V, 0
  op "load" write %B, read %gB
  op "add" write %C, read %A, read %B"#,
        &["race (RAW) on %B: MTE2 write at 21:3 and V read at 22:3"],
    );
}

#[test]
fn pypto_loop_without_trailing_yield_lost_its_wait() {
    // The loop-carried wait at the top of the body was lost: every iteration sets V->MTE2
    // again while the previous one is live, and the last one is left pending.
    fails(
        r#"
  for %i = 0 to %n {
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
    set_flag V -> MTE2, 0
  }"#,
        &[
            "event id 0 of V reused while live",
            "set_flag V -> MTE2, 0 is still pending at kernel exit",
            "race (WAR) on %A: V read at",
        ],
    );
}

#[test]
fn pypto_ids_pooled_per_pipe_pair() {
    fails(
        r#"
  op "load" write %A, read %gA
  op "load" write %L1A, read %gB
  set_flag MTE2 -> V, 0
  set_flag MTE2 -> MTE1, 0
  wait_flag MTE2 -> V, 0
  wait_flag MTE2 -> MTE1, 0"#,
        &["event id 0 of MTE2 reused while live: set at 20:3, set again at 21:3"],
    );
}

#[test]
fn pypto_pipe_all_fallback_verifies() {
    // Where ids run out the fallback is pipe_barrier ALL, which the verifier accepts.
    let mut body = String::new();
    for i in 0..10 {
        body.push_str(&format!(
            "\n  op \"load\" write %A[{lo}:{hi}], read %gA",
            lo = i * 256,
            hi = i * 256 + 256
        ));
    }
    body.push_str("\n  pipe_barrier ALL\n  op \"add\" write %B, read %A, read %A");
    ok(&body);
}

#[test]
fn pypto_loop_carried_pairs_inside_the_iteration_are_correct() {
    // Synchronizing a loop-carried pair inside one iteration loses overlap but is sound.
    ok(r#"
  for %i = 0 to %n {
    op "load" write %A, read %gA
    set_flag MTE2 -> V, 0
    wait_flag MTE2 -> V, 0
    op "add" write %B, read %A, read %A
    set_flag V -> MTE2, 0
    wait_flag V -> MTE2, 0
    pipe_barrier V
  }"#);
}

// ---------------------------------------------------------------- output

#[test]
fn deterministic_output_and_counterexample_notes() {
    let body = r#"
  op "load" write %A, read %gA
  op "load" write %B, read %gB
  for %i = 0 to %n {
    op "add" write %C, read %A, read %B
    op "store" write %gA, read %C
  }"#;
    let a = run_on("ascend910b", body);
    let b = run_on("ascend910b", body);
    assert_eq!(a.diagnostics, b.diagnostics);
    assert!(a.diagnostics.len() >= 4, "{:#?}", a.diagnostics);
    // Sorted by location.
    let locs: Vec<_> = a.diagnostics.iter().map(|d| d.loc).collect();
    let mut sorted = locs.clone();
    sorted.sort();
    assert_eq!(locs, sorted);
    for d in &a.diagnostics {
        assert!(
            d.notes.iter().any(|(l, _)| l.is_some()),
            "the other access: {d:?}"
        );
        assert!(
            d.notes.iter().any(|(_, n)| n.starts_with("path: ")),
            "{d:?}"
        );
        assert!(d.notes.iter().any(|(_, n)| n.contains("flag")), "{d:?}");
    }
    assert!(a.states > 0);
}
