//! The workgroup model against the scenarios of /work/shared/scenarios/README.md and
//! hand-written racy and deadlocking kernels: every synchronized program verifies, and every
//! program with a needed sync op removed fails with the right kind and both locations.

use syncopt_ir::Diagnostic;
use syncopt_targets::Target;

fn diags(src: &str) -> Vec<Diagnostic> {
    let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("parse error {d:?} in\n{src}"));
    let m = &file.chunks[0];
    let t = Target::from_name(m.target.as_deref().expect("target line")).expect("known target");
    syncopt_verify::verify(&m.kernels[0], t).diagnostics
}

/// Wraps `body` in a kernel with the usual buffers.
fn kernel(target: &str, waves: u32, body: &str) -> String {
    format!(
        "target {target}\n\nkernel @k(%n, %c) waves {waves} {{\n  %A = buffer workgroup 4096\n  %B = buffer workgroup 4096\n  %C = buffer workgroup 4096\n  %D = buffer workgroup 4096\n  %S = buffer workgroup 4096\n  %G = buffer global 65536\n{body}}}\n"
    )
}

fn line_of(src: &str, needle: &str) -> u32 {
    let hits: Vec<_> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .collect();
    assert_eq!(hits.len(), 1, "needle {needle:?} must occur once in\n{src}");
    hits[0].0 as u32 + 1
}

fn render(d: &[Diagnostic], src: &str) -> String {
    d.iter().map(|d| d.render("k.sk", src)).collect()
}

#[track_caller]
fn assert_ok(src: &str) {
    let d = diags(src);
    assert!(
        d.iter().all(|d| !d.is_error()),
        "expected no error, got:\n{}\nin\n{src}",
        render(&d, src)
    );
}

/// A race of `kind` between the access on the line holding `x` and the one holding `y`,
/// reported at `y`.
#[track_caller]
fn assert_race(src: &str, kind: &str, x: &str, y: &str) -> Diagnostic {
    let d = diags(src);
    let (lx, ly) = (line_of(src, x), line_of(src, y));
    let found = d.iter().find(|d| {
        d.is_error()
            && d.message.contains(&format!("race ({kind})"))
            && d.loc.map(|l| l.line) == Some(ly)
            && d.message.contains(&format!(" at {lx}:"))
    });
    match found {
        Some(f) => f.clone(),
        None => panic!(
            "expected race ({kind}) between line {lx} and line {ly}, got:\n{}\nin\n{src}",
            render(&d, src)
        ),
    }
}

/// An error containing `what` at the line holding `at`.
#[track_caller]
fn assert_error(src: &str, what: &str, at: &str) {
    let d = diags(src);
    let l = line_of(src, at);
    assert!(
        d.iter()
            .any(|d| d.is_error() && d.message.contains(what) && d.loc.map(|x| x.line) == Some(l)),
        "expected error {what:?} at line {l}, got:\n{}\nin\n{src}",
        render(&d, src)
    );
}

const MONO: &[&str] = &["gfx942", "gfx950", "sm_80"];
const ALL_GPUS: &[&str] = &["gfx942", "gfx950", "gfx1200", "gfx1250", "sm_80", "sm_90"];

/// `barrier` on monolithic targets, a signal/wait pair on split ones.
fn bar(target: &str) -> &'static str {
    match target {
        "gfx1200" | "gfx1250" => "barrier.signal -1\n  barrier.wait -1",
        _ => "barrier",
    }
}

// ---- workgroup barriers ------------------------------------------------------------------

#[test]
fn tm01_write_then_read() {
    for t in ALL_GPUS {
        let b = bar(t);
        assert_ok(&kernel(
            t,
            4,
            &format!("  op \"wA\" write %A\n  {b}\n  op \"rA\" read %A\n"),
        ));
        let bad = kernel(t, 4, "  op \"wA\" write %A\n  op \"rA\" read %A\n");
        assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    }
}

#[test]
fn tm02_aliasing_buffer() {
    let decl = "  %E = buffer workgroup 1024 aliases %A\n";
    let good = kernel("gfx942", 4, &format!("{decl}  op \"wA\" write %A\n  barrier\n  op \"rA\" read %A\n  barrier\n  op \"wE\" write %E\n"));
    assert_ok(&good);
    let bad = kernel(
        "gfx942",
        4,
        &format!(
            "{decl}  op \"wA\" write %A\n  barrier\n  op \"rA\" read %A\n  op \"wE\" write %E\n"
        ),
    );
    assert_race(&bad, "WAR", "\"rA\"", "\"wE\"");
    // Disjoint placements in one arena never conflict.
    let arena = "  %P = buffer workgroup 512 at %A + 0\n  %Q = buffer workgroup 512 at %A + 512\n";
    assert_ok(&kernel(
        "gfx942",
        4,
        &format!("{arena}  op \"wP\" write %P\n  op \"wQ\" write %Q\n"),
    ));
    let over = "  %P = buffer workgroup 512 at %A + 0\n  %Q = buffer workgroup 512 at %A + 256\n";
    let bad = kernel(
        "gfx942",
        4,
        &format!("{over}  op \"wP\" write %P\n  op \"wQ\" write %Q\n"),
    );
    assert_race(&bad, "WAW", "\"wP\"", "\"wQ\"");
}

#[test]
fn wd1_loop_carried_war() {
    for t in ALL_GPUS {
        let b = bar(t);
        let good = kernel(t, 4, &format!("  for %i = 0 to %n {{\n    op \"wA\" write %A\n    {b}\n    op \"rA\" read %A\n    {b}\n  }}\n"));
        assert_ok(&good);
        // The known pass's output: only the first barrier.
        let bad = kernel(t, 4, &format!("  for %i = 0 to %n {{\n    op \"wA\" write %A\n    {b}\n    op \"rA\" read %A\n  }}\n"));
        let d = assert_race(&bad, "WAR", "\"rA\"", "\"wA\"");
        assert!(
            d.notes.iter().any(|n| n.1.contains("next iteration")),
            "path note: {d:?}"
        );
        let bad = kernel(t, 4, &format!("  for %i = 0 to %n {{\n    op \"wA\" write %A\n    op \"rA\" read %A\n    {b}\n  }}\n"));
        assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    }
}

#[test]
fn wd2_wd3_two_buffers() {
    for order in [["rA", "rB"], ["rB", "rA"]] {
        let body = |b1: bool, b2: bool| {
            format!(
                "  for %i = 0 to %n {{\n{}    op \"wA\" write %A\n    op \"wB\" write %B\n{}    op \"{}\" read %{}\n    op \"{}\" read %{}\n  }}\n",
                if b1 { "    barrier\n" } else { "" },
                if b2 { "    barrier\n" } else { "" },
                order[0],
                &order[0][1..],
                order[1],
                &order[1][1..]
            )
        };
        assert_ok(&kernel("gfx950", 4, &body(true, true)));
        assert_race(
            &kernel("gfx950", 4, &body(true, false)),
            "RAW",
            "\"wB\"",
            "\"rB\"",
        );
        assert_race(
            &kernel("gfx950", 4, &body(false, true)),
            "WAR",
            "\"rA\"",
            "\"wA\"",
        );
    }
}

#[test]
fn wd4_barrier_on_every_path() {
    let good = kernel("gfx942", 4, "  op \"wA\" write %A\n  barrier\n  if uniform %c {\n    op \"r1\" read %A\n  }\n  op \"r2\" read %A\n");
    assert_ok(&good);
    // A barrier inside the if leaves the path with c false unordered.
    let bad = kernel("gfx942", 4, "  op \"wA\" write %A\n  if uniform %c {\n    barrier\n    op \"r1\" read %A\n  }\n  op \"r2\" read %A\n");
    let d = assert_race(&bad, "RAW", "\"wA\"", "\"r2\"");
    assert!(d.notes.iter().any(|n| n.1.contains("took else")), "{d:?}");
    assert!(diags(&bad).iter().filter(|d| d.is_error()).count() == 1);
}

#[test]
fn barrier_in_divergent_if_deadlocks() {
    for t in ALL_GPUS {
        let b = bar(t);
        let src = kernel(t, 4, &format!("  op \"wA\" write %A\n  if divergent tid < 64 {{\n    {b} // here\n    op \"r1\" read %A\n  }}\n"));
        assert_error(&src, "divergent", "// here");
    }
}

#[test]
fn wd5_atomics() {
    let good = kernel(
        "gfx942",
        4,
        "  op \"wS\" write %S\n  barrier\n  op \"aS\" atomic %S\n  barrier\n  op \"rS\" read %S\n",
    );
    assert_ok(&good);
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wS\" write %S\n  op \"aS\" atomic %S\n  barrier\n  op \"rS\" read %S\n",
    );
    assert_race(&bad, "WAW", "\"wS\"", "\"aS\"");
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wS\" write %S\n  barrier\n  op \"aS\" atomic %S\n  op \"rS\" read %S\n",
    );
    assert_race(&bad, "RAW", "\"aS\"", "\"rS\"");
    // Two atomics never conflict, even in a loop.
    assert_ok(&kernel(
        "gfx942",
        4,
        "  for %i = 0 to %n {\n    op \"a1\" atomic %S\n    op \"a2\" atomic %S\n  }\n",
    ));
    let good = kernel(
        "gfx942",
        4,
        "  op \"w1\" write %S\n  barrier\n  op \"w2\" write %S\n  barrier\n  op \"rS\" read %S\n",
    );
    assert_ok(&good);
    let bad = kernel(
        "gfx942",
        4,
        "  op \"w1\" write %S\n  op \"w2\" write %S\n  barrier\n  op \"rS\" read %S\n",
    );
    assert_race(&bad, "WAW", "\"w1\"", "\"w2\"");
}

#[test]
fn wd6_async_gather_needs_wait_before_barrier() {
    let good = kernel("gfx950", 4, "  for %i = 0 to %n {\n    barrier\n    op \"gA\" async write %A, read %G\n    op \"wB\" write %B\n    wait vmcnt(0)\n    barrier\n    op \"rB\" read %B\n    op \"rA\" read %A\n  }\n");
    assert_ok(&good);
    // No wait: the barrier publishes nothing of the copy.
    let bad = kernel("gfx950", 4, "  for %i = 0 to %n {\n    barrier\n    op \"gA\" async write %A, read %G\n    op \"wB\" write %B\n    barrier\n    op \"rB\" read %B\n    op \"rA\" read %A\n  }\n");
    let d = assert_race(&bad, "RAW", "\"gA\"", "\"rA\"");
    assert!(
        d.notes
            .iter()
            .any(|n| n.1.contains("not covered by a wait")),
        "{d:?}"
    );
    // Loop-carried WAR: the next copy overwrites what this iteration reads.
    let bad = kernel("gfx950", 4, "  for %i = 0 to %n {\n    op \"gA\" async write %A, read %G\n    op \"wB\" write %B\n    wait vmcnt(0)\n    barrier\n    op \"rB\" read %B\n    op \"rA\" read %A\n  }\n");
    assert_race(&bad, "WAR", "\"rA\"", "\"gA\"");
}

#[test]
fn async_wait_without_barrier() {
    // The issuing wave waited, but other waves need a barrier after the wait.
    let bad = kernel(
        "gfx950",
        4,
        "  op \"gA\" async write %A, read %G\n  wait vmcnt(0)\n  op \"rA\" read %A\n",
    );
    assert_race(&bad, "RAW", "\"gA\"", "\"rA\"");
    // Barrier first, wait second: still not published.
    let bad = kernel(
        "gfx950",
        4,
        "  op \"gA\" async write %A, read %G\n  barrier\n  wait vmcnt(0)\n  op \"rA\" read %A\n",
    );
    assert_race(&bad, "RAW", "\"gA\"", "\"rA\"");
    assert_ok(&kernel(
        "gfx950",
        4,
        "  op \"gA\" async write %A, read %G\n  wait vmcnt(0)\n  barrier\n  op \"rA\" read %A\n",
    ));
}

#[test]
fn async_read_before_wait_same_wave() {
    // Ownership does not help: the wave's own thread reads its word while the copy flies.
    let bad = kernel(
        "gfx950",
        4,
        "  op \"gA\" async write %A[tid], read %G\n  op \"rA\" read %A[tid]\n  wait vmcnt(0)\n",
    );
    assert_race(&bad, "RAW", "\"gA\"", "\"rA\"");
    assert_ok(&kernel(
        "gfx950",
        4,
        "  op \"gA\" async write %A[tid], read %G\n  wait vmcnt(0)\n  op \"rA\" read %A[tid]\n",
    ));
}

#[test]
fn wd7_existing_barrier_respected() {
    let good = kernel("gfx942", 4, "  op \"wA\" write %A\n  barrier\n  op \"wB\" write %B\n  barrier\n  op \"rA\" read %A\n  op \"rB\" read %B\n");
    assert_ok(&good);
    let bad = kernel("gfx942", 4, "  op \"wA\" write %A\n  barrier\n  op \"wB\" write %B\n  op \"rA\" read %A\n  op \"rB\" read %B\n");
    assert_race(&bad, "RAW", "\"wB\"", "\"rB\"");
    assert_eq!(diags(&bad).iter().filter(|d| d.is_error()).count(), 1);
}

#[test]
fn wd8a_read_then_loop_of_writes() {
    assert_ok(&kernel(
        "gfx942",
        4,
        "  op \"rA\" read %A\n  for %i = 0 to %n {\n    barrier\n    op \"wA\" write %A\n  }\n",
    ));
    let bad = kernel(
        "gfx942",
        4,
        "  op \"rA\" read %A\n  barrier\n  for %i = 0 to %n {\n    op \"wA\" write %A\n  }\n",
    );
    assert_race(&bad, "WAW", "\"wA\"", "\"wA\"");
    // Owned per thread: same address, same thread every iteration.
    assert_ok(&kernel(
        "gfx942",
        4,
        "  op \"rA\" read %A\n  barrier\n  for %i = 0 to %n {\n    op \"wA\" write %A[tid]\n  }\n",
    ));
    let bad = kernel(
        "gfx942",
        4,
        "  op \"rA\" read %A\n  for %i = 0 to %n {\n    op \"wA\" write %A[tid]\n  }\n",
    );
    assert_race(&bad, "WAR", "\"rA\"", "\"wA\"");
}

#[test]
fn wd8b_nested_loop() {
    assert_ok(&kernel("gfx942", 4, "  for %i = 0 to %n {\n    barrier\n    op \"wA\" write %A\n    barrier\n    for %j = 0 to %n {\n      op \"rA\" read %A\n    }\n  }\n"));
    let bad = kernel("gfx942", 4, "  for %i = 0 to %n {\n    op \"wA\" write %A\n    barrier\n    for %j = 0 to %n {\n      op \"rA\" read %A\n    }\n  }\n");
    assert_race(&bad, "WAR", "\"rA\"", "\"wA\"");
}

#[test]
fn wt1_disjoint_quarters() {
    let mut body = String::new();
    for q in 0..4 {
        body += &format!(
            "  op \"g{q}\" read %G\n  op \"w{q}\" write %S[{}:{}]\n",
            q * 1024,
            q * 1024 + 1024
        );
    }
    let reads: String = (0..4)
        .map(|q| format!("  op \"r{q}\" read %S[{}:{}]\n", q * 1024, q * 1024 + 1024))
        .collect();
    assert_ok(&kernel("gfx942", 4, &format!("{body}  barrier\n{reads}")));
    let bad = kernel("gfx942", 4, &format!("{body}{reads}"));
    assert_race(&bad, "RAW", "\"w0\"", "\"r0\"");
    assert_race(&bad, "RAW", "\"w3\"", "\"r3\"");
    // Disjoint: no race between w0 and r1.
    let d = diags(&bad);
    assert!(!d.iter().any(|d| d
        .message
        .contains(&format!(" at {}:", line_of(&bad, "\"w0\"")))
        && d.loc.map(|l| l.line) == Some(line_of(&bad, "\"r1\""))));
}

#[test]
fn tm13_if_else() {
    assert_ok(&kernel("gfx942", 4, "  op \"wA\" write %A\n  barrier\n  if uniform %c {\n    op \"r1\" read %A\n  } else {\n    op \"wB\" write %B\n  }\n  op \"r2\" read %A\n"));
    let bad = kernel("gfx942", 4, "  op \"wA\" write %A\n  if uniform %c {\n    barrier\n    op \"r1\" read %A\n  } else {\n    op \"wB\" write %B\n  }\n  op \"r2\" read %A\n");
    assert_race(&bad, "RAW", "\"wA\"", "\"r2\"");
    // Through the then branch.
    let bad = kernel("gfx942", 4, "  op \"wA\" write %A\n  if uniform %c {\n    op \"r1\" read %A\n  } else {\n    barrier\n  }\n");
    let d = assert_race(&bad, "RAW", "\"wA\"", "\"r1\"");
    let _ = d;
}

#[test]
fn tm15_if_results() {
    let good = kernel("gfx942", 4, "  op \"wA\" write %A\n  barrier\n  %X = if uniform %c {\n    op \"r1\" read %A\n    op \"wB\" write %B\n    yield %B\n  } else {\n    op \"r2\" read %A\n    op \"wC\" write %C\n    yield %C\n  }\n  barrier\n  op \"r3\" read %A\n  op \"rX\" read %X\n");
    assert_ok(&good);
    let bad = good.replacen("  }\n  barrier\n", "  }\n", 1);
    assert_race(&bad, "RAW", "\"wB\"", "\"rX\"");
    assert_race(&bad, "RAW", "\"wC\"", "\"rX\"");
    // Per path: the result is B on one path only, so wB never meets a read of C.
    let precise = kernel("gfx942", 4, "  %X = if uniform %c {\n    yield %B\n  } else {\n    yield %C\n  }\n  op \"wB\" write %B\n  barrier\n  op \"rX\" read %X\n");
    assert_ok(&precise);
}

#[test]
fn tm19_loop_only_reads_handles() {
    let good = kernel("gfx942", 4, "  op \"wA\" write %A\n  op \"wB\" write %B\n  op \"wC\" write %C\n  barrier\n  for %i = 0 to %n iter(%a = %A, %b = %B, %d = %C) {\n    op \"ra\" read %a\n    op \"rb\" read %b\n    yield %b, %a, %a\n  }\n");
    assert_ok(&good);
    let bad = good.replace("  barrier\n", "");
    assert_race(&bad, "RAW", "\"wA\"", "\"ra\"");
    assert_race(&bad, "RAW", "\"wB\"", "\"rb\"");
}

#[test]
fn tm20_zero_trip_path() {
    let good = kernel("gfx942", 4, "  op \"wA\" write %A\n  op \"wB\" write %B\n  barrier\n  op \"rA\" read %A\n  op \"rB\" read %B\n  op \"wD\" write %D\n  op \"wC\" write %C\n  barrier\n  for %i = 0 to %n {\n    op \"r1\" read %A\n    op \"r2\" read %B\n  }\n  op \"rD\" read %D\n");
    assert_ok(&good);
    let bad = kernel("gfx942", 4, "  op \"wA\" write %A\n  op \"wB\" write %B\n  barrier\n  op \"rA\" read %A\n  op \"rB\" read %B\n  op \"wD\" write %D\n  op \"wC\" write %C\n  for %i = 0 to %n {\n    barrier\n    op \"r1\" read %A\n    op \"r2\" read %B\n  }\n  op \"rD\" read %D\n");
    let d = assert_race(&bad, "RAW", "\"wD\"", "\"rD\"");
    assert!(d.notes.iter().any(|n| n.1.contains("zero times")), "{d:?}");
    // With at least one trip, the barrier in the loop covers it.
    let ok = bad.replace("for %i = 0 to %n {", "for %i = 0 to %n min 1 {");
    assert_ok(&ok);
}

#[test]
fn tm21_aliased_writes_in_loop() {
    let decl = "  %E = buffer workgroup 1024 aliases %A\n  %F = buffer workgroup 1024 aliases %E\n";
    let good = kernel("gfx942", 4, &format!("{decl}  for %i = 0 to %n {{\n    barrier\n    op \"wE\" write %E\n    barrier\n    op \"wF\" write %F\n  }}\n"));
    assert_ok(&good);
    let bad = kernel("gfx942", 4, &format!("{decl}  for %i = 0 to %n {{\n    op \"wE\" write %E\n    barrier\n    op \"wF\" write %F\n  }}\n"));
    assert_race(&bad, "WAW", "\"wF\"", "\"wE\"");
}

// ---- async copies --------------------------------------------------------------------------

#[test]
fn wa2_wa3_wa6_tensor() {
    assert_ok(&kernel("gfx1250", 4, "  op \"tensor_a\" async write %A\n  barrier.signal -1\n  barrier.wait -1\n  op \"tensor_b\" async write %B\n  wait tensorcnt(0)\n"));
    let good = kernel("gfx1250", 4, "  op \"tensor_a\" async write %A\n  wait tensorcnt(0)\n  barrier.signal -1\n  barrier.wait -1\n  op \"rA\" read %A\n");
    assert_ok(&good);
    let bad = good.replace("  wait tensorcnt(0)\n", "");
    assert_race(&bad, "RAW", "\"tensor_a\"", "\"rA\"");
    let good = kernel("gfx1250", 4, "  op \"tensor_a\" async write %A\n  op \"tensor_b\" async write %B\n  wait tensorcnt(1)\n  barrier.signal -1\n  barrier.wait -1\n  op \"rA\" read %A\n  wait tensorcnt(0)\n");
    assert_ok(&good);
    let bad = good.replace("tensorcnt(1)", "tensorcnt(2)");
    assert_race(&bad, "RAW", "\"tensor_a\"", "\"rA\"");
    // tensorcnt(1) leaves tensor_b in flight.
    let bad = good.replace("op \"rA\" read %A", "op \"rB\" read %B");
    assert_race(&bad, "RAW", "\"tensor_b\"", "\"rB\"");
}

#[test]
fn wa9_double_buffer() {
    let good = kernel("gfx1250", 4, "  op \"tensor_0\" async write %A\n  for %i = 0 to %n iter(%cur = %A, %nxt = %B) {\n    barrier.signal -1\n    barrier.wait -1\n    op \"tensor_n\" async write %nxt\n    wait tensorcnt(1)\n    barrier.signal -1\n    barrier.wait -1\n    op \"rc\" read %cur\n    yield %nxt, %cur\n  }\n  wait tensorcnt(0)\n");
    assert_ok(&good);
    // The known pass's output: right wait count, but no barrier before refilling.
    let bad = good.replacen(
        "    barrier.signal -1\n    barrier.wait -1\n    op \"tensor_n\"",
        "    op \"tensor_n\"",
        1,
    );
    assert_race(&bad, "WAR", "\"rc\"", "\"tensor_n\"");
    let bad = good.replace("tensorcnt(1)", "tensorcnt(2)");
    assert_race(&bad, "RAW", "\"tensor_n\"", "\"rc\"");
}

#[test]
fn nvidia_cp_async_groups() {
    let good = kernel("sm_80", 8, "  op \"cp\" async write %A, read %G\n  cp_async.commit\n  cp_async.wait 0\n  barrier\n  op \"rA\" read %A\n");
    assert_ok(&good);
    let bad = good.replace("  cp_async.commit\n", "");
    let d = assert_race(&bad, "RAW", "\"cp\"", "\"rA\"");
    assert!(d.notes.iter().any(|n| n.1.contains("commit")), "{d:?}");
    // wait 1 leaves the newest group in flight.
    let two = kernel("sm_80", 8, "  op \"cp\" async write %A, read %G\n  cp_async.commit\n  op \"cq\" async write %B, read %G\n  cp_async.commit\n  cp_async.wait 1\n  barrier\n  op \"rA\" read %A\n  op \"rB\" read %B\n");
    assert_race(&two, "RAW", "\"cq\"", "\"rB\"");
    let d = diags(&two);
    assert!(
        !d.iter()
            .any(|d| d.loc.map(|l| l.line) == Some(line_of(&two, "\"rA\""))),
        "{}",
        render(&d, &two)
    );
}

// ---- barriers of other kinds ---------------------------------------------------------------

#[test]
fn execution_only_barrier_needs_fence() {
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A\n  barrier exec\n  op \"rA\" read %A\n",
    );
    let d = assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    assert!(d.notes.iter().any(|n| n.1.contains("fence")), "{d:?}");
    assert_ok(&kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A\n  wait lgkmcnt(0)\n  barrier exec\n  op \"rA\" read %A\n",
    ));
    assert_ok(&kernel("gfx1200", 4, "  op \"wA\" write %A\n  wait dscnt(0)\n  barrier.signal -1\n  barrier.wait -1\n  op \"rA\" read %A\n"));
}

#[test]
fn split_barrier_signal_is_not_enough() {
    let bad = kernel(
        "gfx1200",
        4,
        "  op \"wA\" write %A\n  barrier.signal -1\n  op \"rA\" read %A\n  barrier.wait -1\n",
    );
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    // Overlap: the read of a different buffer between signal and wait is fine.
    assert_ok(&kernel("gfx1200", 4, "  op \"wA\" write %A\n  barrier.signal -1\n  op \"rB\" read %B\n  barrier.wait -1\n  op \"rA\" read %A\n"));
}

#[test]
fn split_barrier_deadlocks() {
    let src = kernel("gfx1200", 4, "  barrier.wait -1 // w\n");
    assert_error(&src, "no pending barrier.signal", "// w");
    let src = kernel(
        "gfx1200",
        4,
        "  barrier.signal -1\n  barrier.signal -1 // s2\n  barrier.wait -1\n",
    );
    assert_error(&src, "two barrier.signal", "// s2");
    let src = kernel(
        "gfx1200",
        4,
        "  barrier.signal -1 // s\n  op \"rA\" read %A\n",
    );
    assert_error(&src, "pending at kernel exit", "// s");
    // Only on one path: the zero-trip path skips the wait.
    let src = kernel("gfx1200", 4, "  barrier.signal -1 // s\n  for %i = 0 to %n {\n    barrier.wait -1\n    barrier.signal -1\n  }\n  barrier.wait -1\n");
    assert_ok(&src);
    let src = kernel(
        "gfx1200",
        4,
        "  barrier.signal -1 // s\n  if uniform %c {\n    barrier.wait -1\n  }\n",
    );
    assert_error(&src, "pending at kernel exit", "// s");
}

#[test]
fn named_barriers_gfx1250() {
    let good = kernel("gfx1250", 4, "  op \"wA\" write %A\n  barrier.signal 1\n  op \"wB\" write %B\n  barrier.signal -1\n  barrier.wait 1\n  op \"rA\" read %A\n  barrier.wait -1\n  op \"rB\" read %B\n");
    assert_ok(&good);
    // Waiting on barrier 1 does not publish what only barrier -1 signalled.
    let bad = kernel("gfx1250", 4, "  op \"wA\" write %A\n  barrier.signal 1\n  op \"wB\" write %B\n  barrier.signal -1\n  barrier.wait 1\n  op \"rB\" read %B\n  barrier.wait -1\n");
    assert_race(&bad, "RAW", "\"wB\"", "\"rB\"");
    let src = kernel(
        "gfx1250",
        4,
        "  barrier.signal 2\n  barrier.wait 3 // w3\n  barrier.wait 2\n",
    );
    assert_error(&src, "no pending barrier.signal 3", "// w3");
}

#[test]
fn counter_wait_beyond_max() {
    let src = kernel("gfx942", 4, "  wait vmcnt(64) // v\n");
    assert_error(&src, "exceeds the largest value 63", "// v");
    let src = kernel("gfx942", 4, "  wait lgkmcnt(16) // l\n");
    assert_error(&src, "exceeds the largest value 15", "// l");
    let src = kernel("sm_80", 8, "  cp_async.wait 8 // c\n");
    assert_error(&src, "exceeds the largest value 7", "// c");
    assert_ok(&kernel(
        "gfx942",
        4,
        "  wait vmcnt(63)\n  wait lgkmcnt(15)\n",
    ));
}

// ---- ownership, divergence, slots ----------------------------------------------------------

#[test]
fn ownership() {
    // Every thread reads the word it wrote: no cross-wave pair.
    assert_ok(&kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A[tid]\n  op \"rA\" read %A[tid]\n",
    ));
    assert_ok(&kernel(
        "gfx942",
        4,
        "  for %i = 0 to %n {\n    op \"wA\" write %A[tid]\n    op \"rA\" read %A[tid]\n  }\n",
    ));
    // Thread 63 reads word 64, written by thread 64 of the next wave.
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A[tid]\n  op \"rA\" read %A[tid + 1]\n",
    );
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    // Shifted by a whole-wave-aligned amount inside the wave? tid + 64 is another wave's word.
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A[tid]\n  op \"rA\" read %A[tid + 64]\n",
    );
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    // Words of different halves never meet.
    assert_ok(&kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A[tid]\n  op \"rA\" read %A[tid + 256]\n",
    ));
    // Ownership on one side only does not help.
    let bad = kernel(
        "gfx942",
        4,
        "  op \"wA\" write %A[tid]\n  op \"rA\" read %A\n",
    );
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    // Loop-carried with iteration-dependent words, loop unrolled exactly.
    let bad = kernel(
        "gfx942",
        4,
        "  for %i = 0 to 2 {\n    op \"wA\" write %A[tid + %i * 64]\n  }\n",
    );
    assert_race(&bad, "WAW", "\"wA\"", "\"wA\"");
}

#[test]
fn divergent_if_cross_branch() {
    let bad = kernel("gfx942", 4, "  if divergent tid < 64 {\n    op \"wA\" write %A\n  } else {\n    op \"rA\" read %A\n  }\n");
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
    assert_ok(&kernel("gfx942", 4, "  if divergent tid < 64 {\n    op \"wA\" write %A\n  } else {\n    op \"rB\" read %B\n  }\n  barrier\n  op \"rA\" read %A\n"));
    let bad = kernel(
        "gfx942",
        4,
        "  if divergent tid < 64 {\n    op \"wA\" write %A\n  }\n  op \"rA\" read %A\n",
    );
    assert_race(&bad, "RAW", "\"wA\"", "\"rA\"");
}

#[test]
fn slots_distance_one_and_two() {
    // Two slots: iteration i reads the slot iteration i+1 writes, with no barrier between.
    let bad = kernel("gfx942", 4, "  for %i = 0 to %n {\n    %w = view %A slot (%i) mod 2\n    %r = view %A slot (%i + 1) mod 2\n    op \"wS\" write %w\n    barrier\n    op \"rS\" read %r\n  }\n");
    assert_race(&bad, "WAR", "\"rS\"", "\"wS\"");
    // Three slots: the slot read in iteration i is rewritten at distance 2, after a barrier.
    let good = kernel("gfx942", 4, "  for %i = 0 to %n {\n    %w = view %A slot (%i) mod 3\n    %r = view %A slot (%i + 2) mod 3\n    op \"wS\" write %w\n    barrier\n    op \"rS\" read %r\n  }\n");
    assert_ok(&good);
    // Distance 2 race: barrier only on odd iterations.
    let bad = kernel("gfx942", 4, "  for %i = 0 to %n {\n    %w = view %A slot (%i) mod 3\n    %r = view %A slot (%i + 2) mod 3\n    op \"wS\" write %w\n    if uniform (%i) mod 2 == 1 {\n      barrier\n    }\n    op \"rS\" read %r\n  }\n");
    assert_race(&bad, "WAR", "\"rS\"", "\"wS\"");
    // Known trip count with a parameterless start: exact.
    let good = kernel("gfx942", 4, "  for %i = 0 to 6 {\n    %w = view %A slot (%i) mod 2\n    op \"wS\" write %w\n    barrier\n    op \"rS\" read %w\n    barrier\n  }\n");
    assert_ok(&good);
}

// ---- warp pipelines ----------------------------------------------------------------------

fn pipeline(boundaries: [&str; 4], target: &str) -> String {
    kernel(
        target,
        8,
        &format!(
            "  barrier\n  cond_barrier high\n  for %k = 0 to %n {{\n    stage prio 3 gap 1\n    op \"r0\" read %A\n    {}\n    stage\n    op \"d1\"\n    {}\n    stage\n    op \"w2\" write %A\n    {}\n    stage\n    op \"d3\"\n    {}\n  }}\n  cond_barrier low\n",
            boundaries[0], boundaries[1], boundaries[2], boundaries[3]
        ),
    )
}

#[test]
fn wp1_no_lds_traffic() {
    for t in ["gfx942", "gfx950", "gfx1250"] {
        let src = kernel(t, 8, "  barrier\n  cond_barrier high\n  for %k = 0 to %n {\n    stage gap 1\n    op \"mfma\"\n    sched_barrier 0\n    barrier exec\n    sched_barrier 0\n    stage\n    op \"mfma\"\n    sched_barrier 0\n    barrier exec\n    sched_barrier 0\n  }\n  cond_barrier low\n");
        assert_ok(&src);
    }
}

#[test]
fn wp_fences_where_needed() {
    // Fences after the read stage and after the write stage; execution-only elsewhere.
    let good = pipeline(
        ["barrier", "barrier exec", "barrier", "barrier exec"],
        "gfx942",
    );
    assert_ok(&good);
    // Without the fence after the write, the next iteration's read (of the lagging group too)
    // may miss the write.
    let bad = pipeline(
        ["barrier", "barrier exec", "barrier exec", "barrier exec"],
        "gfx942",
    );
    assert_race(&bad, "RAW", "\"w2\"", "\"r0\"");
    let bad = pipeline(
        ["barrier exec", "barrier exec", "barrier", "barrier exec"],
        "gfx942",
    );
    assert_race(&bad, "WAR", "\"r0\"", "\"w2\"");
}

#[test]
fn wp_adjacent_stages_cannot_be_fixed() {
    // The lagging group reads stage 0 while the leading group writes stage 1.
    let src = kernel("gfx942", 8, "  barrier\n  cond_barrier high\n  for %k = 0 to %n {\n    stage gap 1\n    op \"r0\" read %A\n    barrier\n    stage\n    op \"w1\" write %A\n    barrier\n  }\n  cond_barrier low\n");
    let d = diags(&src);
    assert!(
        d.iter().any(|d| d.is_error() && d.message.contains("race")),
        "{}",
        render(&d, &src)
    );
}

#[test]
fn unbalanced_cond_barrier() {
    let src = kernel(
        "gfx942",
        8,
        "  cond_barrier high // c\n  for %k = 0 to %n {\n    barrier exec\n  }\n",
    );
    assert_error(&src, "unequal arrival counts", "// c");
    let src = kernel(
        "gfx942",
        8,
        "  cond_barrier high // c\n  if uniform %c {\n    cond_barrier low\n  }\n",
    );
    assert_error(&src, "unequal arrival counts", "// c");
}

#[test]
fn monolithic_targets_all_agree() {
    for t in MONO {
        assert_ok(&kernel(
            t,
            4,
            "  op \"wA\" write %A\n  barrier\n  op \"rA\" read %A\n",
        ));
    }
}

#[test]
fn deterministic_output() {
    let bad = kernel("gfx942", 4, "  for %i = 0 to %n {\n    op \"wA\" write %A\n    op \"wB\" write %B\n    op \"rA\" read %A\n    op \"rB\" read %B\n  }\n");
    let a = diags(&bad);
    let b = diags(&bad);
    assert_eq!(a, b);
    assert!(a.len() >= 4);
}

#[test]
fn nested_slot_rings_with_unknown_starts_stay_exact() {
    // Two rings of four slots in nested loops starting at a parameter: 16 residue
    // combinations, all kept apart, so the ring's distance-3 reuse is proven safe.
    let good = kernel("gfx942", 4, "  for %i = %c to %n {\n    %u = view %B slot (%i) mod 4\n    op \"wU\" write %u\n    barrier\n    for %j = %c to %n {\n      %w = view %A slot (%j) mod 4\n      %r = view %A slot (%j + 3) mod 4\n      op \"wS\" write %w\n      barrier\n      op \"rS\" read %r\n    }\n    %v = view %B slot (%i + 3) mod 4\n    op \"rV\" read %v\n  }\n");
    assert_ok(&good);
    let bad = good.replace("slot (%j + 3) mod 4", "slot (%j + 1) mod 4");
    assert_race(&bad, "WAR", "\"rS\"", "\"wS\"");
}

/// WP3: 8 stages; c0 reads slice 0 of A and B, c2 slice 1, c4 slices 2 and 3, c6 writes A and
/// B, odd stages compute. `fences[b]` says whether the boundary after stage b fences.
fn wp3(fences: [bool; 8]) -> String {
    let stage_body = [
        "    op \"c0a\" read %A[0:1024]\n    op \"c0b\" read %B[0:1024]\n",
        "    op \"dot1\"\n",
        "    op \"c2a\" read %A[1024:2048]\n    op \"c2b\" read %B[1024:2048]\n",
        "    op \"dot3\"\n",
        "    op \"c4a\" read %A[2048:4096]\n    op \"c4b\" read %B[2048:4096]\n",
        "    op \"dot5\"\n",
        "    op \"c6a\" write %A\n    op \"c6b\" write %B\n",
        "    op \"dot7\"\n",
    ];
    let mut body = String::from("  barrier\n  cond_barrier high\n  for %k = 0 to %n {\n");
    for (s, text) in stage_body.iter().enumerate() {
        body += if s == 0 {
            "    stage gap 1\n"
        } else {
            "    stage\n"
        };
        body += text;
        body += &format!(
            "    sched_barrier 0\n    {} // after c{s}\n    sched_barrier 0\n",
            if fences[s] { "barrier" } else { "barrier exec" }
        );
    }
    body += "  }\n  cond_barrier low\n";
    kernel("gfx950", 8, &body)
}

#[test]
fn wp3_fences_exactly_before_c5_and_c7() {
    // Boundaries before c5 and before c7 are the ones after c4 and after c6.
    let mut f = [false; 8];
    f[4] = true;
    f[6] = true;
    assert_ok(&wp3(f));
    let mut no5 = f;
    no5[4] = false;
    assert_race(&wp3(no5), "WAR", "\"c4a\"", "\"c6a\"");
    let mut no7 = f;
    no7[6] = false;
    assert_race(&wp3(no7), "RAW", "\"c6a\"", "\"c0a\"");
    // The fence one boundary too late for the reads of c4 (after c5) leaves c4 -> c6 open.
    let mut late = f;
    late[4] = false;
    late[5] = true;
    assert_race(&wp3(late), "WAR", "\"c4a\"", "\"c6a\"");
}
