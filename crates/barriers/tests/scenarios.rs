//! The workgroup scenarios of /work/shared/scenarios/README.md (WD*, WT*, TM*) and the traps
//! of prior-art.md (Wave, Triton Membar), each with its expected output. Outputs are compared
//! as skeletons: op names, `BAR` (inserted barrier), `{BAR}` (input barrier), `SIG`/`WAIT`
//! (split halves, `SIG3` for named id 3), `for{ .. }`, `if{ .. }else{ .. }`.

use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_barriers::testing::unordered;
use syncopt_ir::{parse, BlockId, Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;

const MONO: &[Target] = &[Target::Gfx942, Target::Gfx950, Target::Sm80, Target::Sm90];
const SPLIT: &[Target] = &[Target::Gfx1200, Target::Gfx1250];

fn kernel(src: &str) -> Kernel {
    let f = parse(src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    f.chunks[0].kernels[0].clone()
}

fn insert_with(src: &str, t: Target, named: bool) -> (Kernel, PassReport) {
    insert_checked(src, t, named, true)
}

fn insert_checked(src: &str, t: Target, named: bool, verify: bool) -> (Kernel, PassReport) {
    let mut k = kernel(src);
    let opts = InsertOptions {
        named_barriers: named,
        ..InsertOptions::default()
    };
    let rep = syncopt_barriers::run(&mut k, t, &opts);
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    // Every output is sound by our own model and by the verifier, and a second run adds
    // nothing.
    assert!(
        unordered(&k, t).is_empty(),
        "unordered hazards left in\n{}",
        syncopt_ir::print_kernel(&k)
    );
    // The verifier also wants the counter waits of async copies: the pass that runs after us.
    let mut waited = k.clone();
    syncopt_async_waits::run(&mut waited, t, &opts);
    let vr = syncopt_verify::verify(&waited, t);
    assert!(
        !verify || vr.is_ok(),
        "{t:?}: verifier rejects\n{}\n{:?}",
        syncopt_ir::print_kernel(&k),
        vr.diagnostics
    );
    let mut again = k.clone();
    let n = again.inserted_syncs().len();
    let rep2 = syncopt_barriers::run(&mut again, t, &opts);
    assert_eq!(again.inserted_syncs().len(), n, "not idempotent");
    assert!(rep2.explain.is_empty());
    (k, rep)
}

fn sk_block(k: &Kernel, b: BlockId, out: &mut Vec<String>) {
    for &s in &k.blocks[b].stmts {
        let d = &k.stmts[s];
        match &d.kind {
            StmtKind::Op(op) => out.push(op.name.clone()),
            StmtKind::Sync(op) => {
                let t = match op {
                    SyncOp::Barrier { .. } => "BAR".to_string(),
                    SyncOp::Signal { id: -1 } => "SIG".to_string(),
                    SyncOp::Wait { id: -1 } => "WAIT".to_string(),
                    SyncOp::Signal { id } => format!("SIG{id}"),
                    SyncOp::Wait { id } => format!("WAIT{id}"),
                    other => format!("{other:?}"),
                };
                out.push(if d.inserted { t } else { format!("{{{t}}}") });
            }
            StmtKind::For(f) => {
                out.push("for{".into());
                sk_block(k, f.body, out);
                out.push("}".into());
            }
            StmtKind::If(i) => {
                out.push("if{".into());
                sk_block(k, i.then_block, out);
                if let Some(e) = i.else_block {
                    out.push("}else{".into());
                    sk_block(k, e, out);
                }
                out.push("}".into());
            }
            _ => {}
        }
    }
}

fn sk(k: &Kernel) -> String {
    let mut out = Vec::new();
    sk_block(k, k.body, &mut out);
    out.join(" ")
}

/// A kernel with buffers A, B, C, D, E, S (1 KiB each) and parameters %n, %c.
fn src(decls: &str, body: &str) -> String {
    format!(
        "kernel @k(%n, %c) {{\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n  \
         %C = buffer workgroup 1024\n  %D = buffer workgroup 1024\n  %S = buffer workgroup 1024\n  \
         %G = buffer global 65536\n{decls}\n{body}\n}}\n"
    )
}

fn check_mono(s: &str, expected: &str) {
    for &t in MONO {
        let (k, _) = insert_with(s, t, false);
        assert_eq!(sk(&k), expected, "{t:?}");
    }
}

fn check_split(s: &str, expected: &str) {
    for &t in SPLIT {
        let (k, _) = insert_with(s, t, false);
        assert_eq!(sk(&k), expected, "{t:?}");
    }
}

fn check_both(s: &str, mono: &str, split: &str) {
    check_mono(s, mono);
    check_split(s, split);
}

#[test]
fn wd1_loop_write_read_needs_two() {
    let s = src(
        "",
        "for %i = 0 to %n { op \"wa\" write %A\n op \"ra\" read %A }",
    );
    check_both(&s, "for{ BAR wa BAR ra }", "for{ SIG WAIT wa SIG WAIT ra }");
}

#[test]
fn wd2_two_buffers_in_loop() {
    let s = src(
        "",
        "for %i = 0 to %n { op \"wa\" write %A\n op \"wb\" write %B\n op \"ra\" read %A\n op \"rb\" read %B }",
    );
    check_both(
        &s,
        "for{ BAR wa wb BAR ra rb }",
        "for{ SIG WAIT wa wb SIG WAIT ra rb }",
    );
}

#[test]
fn wd3_reads_reversed() {
    let s = src(
        "",
        "for %i = 0 to %n { op \"wa\" write %A\n op \"wb\" write %B\n op \"rb\" read %B\n op \"ra\" read %A }",
    );
    check_both(
        &s,
        "for{ BAR wa wb BAR rb ra }",
        "for{ SIG WAIT wa wb SIG WAIT rb ra }",
    );
}

#[test]
fn wd4_if_both_paths_and_divergent() {
    let s = src(
        "",
        "op \"wa\" write %A\n if uniform %c { op \"ra\" read %A }\n op \"ra2\" read %A",
    );
    check_both(&s, "wa BAR if{ ra } ra2", "wa SIG WAIT if{ ra } ra2");
    let s = src(
        "",
        "op \"wa\" write %A\n if divergent tid < 64 { op \"ra\" read %A }\n op \"ra2\" read %A",
    );
    check_both(&s, "wa BAR if{ ra } ra2", "wa SIG WAIT if{ ra } ra2");
    // A barrier the divergent branch needs goes before the if, never inside.
    let s = src(
        "",
        "op \"wa\" write %A\n if divergent tid < 64 { op \"x\"\n op \"ra\" read %A }",
    );
    check_mono(&s, "wa BAR if{ x ra }");
}

#[test]
fn wd5_atomics_and_waw() {
    check_mono(
        &src(
            "",
            "op \"ws\" write %S\n op \"at\" atomic %S\n op \"rs\" read %S",
        ),
        "ws BAR at BAR rs",
    );
    check_mono(
        &src("", "op \"at\" atomic %S\n op \"at2\" atomic %S"),
        "at at2",
    );
    check_mono(
        &src(
            "",
            "op \"ws\" write %S\n op \"ws2\" write %S\n op \"rs\" read %S",
        ),
        "ws BAR ws2 BAR rs",
    );
    // Trap 5: write -> atomic is a hazard (an atomic reads too).
    check_mono(
        &src("", "op \"ws\" write %S\n op \"at\" atomic %S"),
        "ws BAR at",
    );
}

#[test]
fn wd6_async_copy_published_by_the_barrier() {
    let s = src(
        "",
        "for %i = 0 to %n { op \"ga\" async write %A, read %G\n op \"wb\" write %B\n op \"rb\" read %B\n op \"ra\" read %A }",
    );
    let (k, rep) = insert_with(&s, Target::Gfx950, false);
    assert_eq!(sk(&k), "for{ BAR ga wb BAR rb ra }");
    // Trap 3: the barrier before `rb` covers the async copy -> read of A as well, so the
    // async-waits pass sees it among the hazards of that barrier.
    let second = &rep.explain[1];
    assert!(
        second
            .covers
            .iter()
            .any(|c| c.kind == "RAW" && c.from.map(|l| l.line) == Some(10)),
        "{:?}",
        rep.explain
    );
}

#[test]
fn wd7_input_barrier_kept_and_not_trusted_for_other_hazards() {
    let s = src(
        "",
        "op \"wa\" write %A\n barrier\n op \"wb\" write %B\n op \"ra\" read %A\n op \"rb\" read %B",
    );
    // Latest position: right before the consumer that needs it (`ra` is already ordered).
    check_both(&s, "wa {BAR} wb ra BAR rb", "wa {BAR} wb SIG ra WAIT rb");
}

#[test]
fn wd8a_hoist_or_not() {
    check_both(
        &src(
            "",
            "op \"ra\" read %A\n for %i = 0 to %n { op \"wa\" write %A }",
        ),
        "ra for{ BAR wa }",
        "ra for{ SIG WAIT wa }",
    );
    check_both(
        &src(
            "",
            "op \"ra\" read %A\n for %i = 0 to %n { op \"wa\" write %A[tid] }",
        ),
        "ra BAR for{ wa }",
        "ra SIG WAIT for{ wa }",
    );
}

#[test]
fn wd8b_nothing_in_inner_loop() {
    check_both(
        &src(
            "",
            "for %i = 0 to %n { op \"wa\" write %A\n for %j = 0 to %n { op \"ra\" read %A } }",
        ),
        "for{ BAR wa BAR for{ ra } }",
        "for{ SIG WAIT wa SIG WAIT for{ ra } }",
    );
}

fn quarters(op: &str, kind: &str, buf: &str) -> String {
    (0..4)
        .map(|q| {
            format!(
                "op \"{op}{q}\" {kind} %{buf}[{}:{}]\n",
                q * 256,
                q * 256 + 256
            )
        })
        .collect()
}

fn globals(tag: &str) -> String {
    (0..4)
        .map(|q| format!("op \"{tag}{q}\" read %G\n"))
        .collect()
}

#[test]
fn wt1_disjoint_quarters() {
    let body = format!(
        "{}{}{}{}",
        globals("g"),
        quarters("ws", "write", "S"),
        quarters("rs", "read", "S"),
        globals("h")
    );
    check_both(
        &src("", &body),
        "g0 g1 g2 g3 ws0 ws1 ws2 ws3 BAR rs0 rs1 rs2 rs3 h0 h1 h2 h3",
        "g0 g1 g2 g3 ws0 ws1 ws2 ws3 SIG WAIT rs0 rs1 rs2 rs3 h0 h1 h2 h3",
    );
}

#[test]
fn wt2_loop_with_two_groups() {
    let body = format!(
        "for %i = 0 to %n {{\n{}{}{}{}{}{}op \"x\"\n}}",
        globals("g"),
        quarters("wa", "write", "A"),
        quarters("ra", "read", "A"),
        globals("h"),
        quarters("wb", "write", "B"),
        quarters("rb", "read", "B"),
    );
    let (k, _) = insert_with(&src("", &body), Target::Gfx950, false);
    assert_eq!(
        sk(&k),
        "for{ g0 g1 g2 g3 wa0 wa1 wa2 wa3 BAR ra0 ra1 ra2 ra3 h0 h1 h2 h3 wb0 wb1 wb2 wb3 BAR rb0 rb1 rb2 rb3 x }"
    );
}

#[test]
fn wt4_input_barrier_suffices() {
    let body = format!(
        "{}{}barrier\n{}{}",
        globals("g"),
        quarters("ws", "write", "S"),
        quarters("rs", "read", "S"),
        globals("h")
    );
    check_mono(
        &src("", &body),
        "g0 g1 g2 g3 ws0 ws1 ws2 ws3 {BAR} rs0 rs1 rs2 rs3 h0 h1 h2 h3",
    );
}

#[test]
fn tm01_tm02() {
    check_both(
        &src("", "op \"wa\" write %A\n op \"ra\" read %A"),
        "wa BAR ra",
        "wa SIG WAIT ra",
    );
    // B overlaps A (allocator reuse): the WAR through the alias needs a barrier (a Triton
    // filter skipped it).
    check_mono(
        &src(
            "  %X = buffer workgroup 1024 aliases %A",
            "op \"wa\" write %A\n op \"ra\" read %A\n op \"wx\" write %X",
        ),
        "wa BAR ra BAR wx",
    );
    // Exact placements: disjoint bytes need nothing, overlapping bytes do.
    check_mono(
        &src(
            "  %X = buffer workgroup 256 at %A + 512",
            "op \"wa\" write %A[0:512]\n op \"rx\" read %X",
        ),
        "wa rx",
    );
    check_mono(
        &src(
            "  %X = buffer workgroup 256 at %A + 384",
            "op \"wa\" write %A[0:512]\n op \"rx\" read %X",
        ),
        "wa BAR rx",
    );
}

#[test]
fn tm13_one_barrier_before_the_if() {
    check_both(
        &src("", "op \"wa\" write %A\n if uniform %c { op \"ra\" read %A } else { op \"wb\" write %B }\n op \"ra2\" read %A"),
        "wa BAR if{ ra }else{ wb } ra2",
        "wa SIG WAIT if{ ra }else{ wb } ra2",
    );
}

#[test]
fn tm15_if_results() {
    check_mono(
        &src(
            "",
            "op \"wa\" write %A\n %X = if uniform %c { op \"ra\" read %A\n op \"wb\" write %B\n yield %B } else { op \"ra\" read %A\n op \"wc\" write %C\n yield %C }\n op \"ra2\" read %A\n op \"rx\" read %X",
        ),
        "wa BAR if{ ra wb }else{ ra wc } ra2 BAR rx",
    );
}

#[test]
fn tm19_barrier_before_read_only_loop() {
    check_both(
        &src(
            "",
            "op \"wa\" write %A\n op \"wb\" write %B\n op \"wc\" write %C\n %r:3 = for %i = 0 to %n iter(%a = %A, %b = %B, %cc = %C) { op \"ra\" read %a\n op \"rb\" read %b\n yield %b, %a, %a }",
        )
        .replace("%r:3 =", "%r0, %r1, %r2 ="),
        "wa wb wc BAR for{ ra rb }",
        // The loop never reads C: the signal need not wait for its store.
        "wa wb SIG wc WAIT for{ ra rb }",
    );
}

#[test]
fn tm20_zero_trip_path() {
    check_mono(
        &src(
            "",
            "op \"wa\" write %A\n op \"wb\" write %B\n op \"ra\" read %A\n op \"rb\" read %B\n op \"wd\" write %D\n op \"wc\" write %C\n for %i = 0 to %n { op \"ra2\" read %A\n op \"rb2\" read %B }\n op \"rd\" read %D",
        ),
        "wa wb BAR ra rb wd wc for{ ra2 rb2 } BAR rd",
    );
}

#[test]
fn tm21_waw_through_alias_in_and_across_iterations() {
    let (k, _) = insert_with(
        &src(
            "  %E = buffer workgroup 1024\n  %F = buffer workgroup 1024 aliases %E",
            "op \"wa\" write %A\n op \"wb\" write %B\n op \"ra\" read %A\n op \"rb\" read %B\n op \"wd\" write %D\n op \"wc\" write %C\n for %i = 0 to %n { op \"ra2\" read %A\n op \"rb2\" read %B\n op \"we\" write %E\n op \"ra3\" read %A\n op \"rb3\" read %B\n op \"wf\" write %F }\n op \"rd\" read %D",
        ),
        Target::Gfx950,
        false,
    );
    let s = sk(&k);
    let body = &s[s.find("for{").unwrap()..s.find('}').unwrap()];
    assert_eq!(body.matches("BAR").count(), 2, "{s}");
    let we = body.find("we").unwrap();
    let wf = body.find("wf").unwrap();
    assert!(body[we..wf].contains("BAR"), "{s}");
    assert_eq!(s.matches("BAR").count(), 4, "{s}");
    assert!(s.ends_with("BAR rd"), "{s}");
}

#[test]
fn trap6_slots_every_distance() {
    // Three slots: W of iteration i and R of iteration i + 2 hit the same slot.
    let (k, _) = insert_with(
        &src(
            "",
            "for %i = 0 to %n {\n %w = view %A slot (%i) mod 4\n %r = view %A slot (%i + 2) mod 4\n op \"w\" write %w\n op \"r\" read %r }",
        ),
        Target::Gfx950,
        false,
    );
    assert_eq!(sk(&k).matches("BAR").count(), 1, "{}", sk(&k));
    // Same iteration, different slots: no barrier between them; one per iteration for the
    // loop-carried pairs.
    let (k, _) = insert_with(
        &src(
            "",
            "for %i = 0 to %n {\n %w = view %A slot (%i) mod 2\n %r = view %A slot (%i + 1) mod 2\n op \"w\" write %w\n op \"r\" read %r }",
        ),
        Target::Gfx950,
        false,
    );
    assert_eq!(sk(&k), "for{ BAR w r }");
}

#[test]
fn ownership_per_thread() {
    check_mono(
        &src("", "op \"w\" write %A[tid]\n op \"r\" read %A[tid]"),
        "w r",
    );
    check_mono(
        &src("", "op \"w\" write %A[tid]\n op \"r\" read %A[tid + 1]"),
        "w BAR r",
    );
    check_mono(
        &src(
            "",
            "op \"w\" write %A[tid * 2]\n op \"r\" read %A[tid * 2 + 1]",
        ),
        "w r",
    );
    // Different iterations: the same expression names other words. (The verifier treats
    // indices that depend on a loop variable as touching any word, so it is not asked here.)
    let (k, _) = insert_checked(
        &src(
            "",
            "for %i = 0 to %n { op \"w\" write %A[tid + %i]\n op \"r\" read %A[tid + %i] }",
        ),
        Target::Gfx950,
        false,
        false,
    );
    assert_eq!(sk(&k), "for{ BAR w r }");
}

#[test]
fn known_trips_weigh() {
    // One trip: no loop-carried hazard.
    check_mono(
        &src(
            "",
            "for %i = 0 to 1 { op \"w\" write %A\n op \"r\" read %A }",
        ),
        "for{ w BAR r }",
    );
    // A barrier at the end of the body also covers what the loop leaves at exit.
    check_mono(
        &src("", "for %i = 0 to 4 { op \"w0\" write %A\n op \"r1\" read %B }\n op \"w1\" write %B\n op \"r2\" read %B"),
        "for{ w0 r1 BAR } w1 BAR r2",
    );
}

#[test]
fn warp_pipelined_loops_are_left_alone() {
    let s = src(
        "",
        "op \"wa\" write %A\n for %k = 0 to %n {\n stage\n op \"ra\" read %A\n op \"wb\" write %B\n stage\n op \"rb\" read %B\n }\n op \"rb2\" read %B",
    );
    let mut k = kernel(&s);
    syncopt_barriers::run(&mut k, Target::Gfx950, &InsertOptions::default());
    assert_eq!(sk(&k), "wa BAR for{ ra wb rb } BAR rb2");
}

#[test]
fn input_split_barriers_count() {
    let s = src(
        "",
        "op \"wa\" write %A\n barrier.signal -1\n op \"wb\" write %B\n barrier.wait -1\n op \"ra\" read %A\n op \"rb\" read %B",
    );
    let (k, _) = insert_with(&s, Target::Gfx1250, false);
    // The input phase orders `wa`; `wb` needs one more, whose signal cannot move before the
    // input wait (signals and waits of one id alternate).
    assert_eq!(sk(&k), "wa {SIG} wb {WAIT} SIG ra WAIT rb");
}

#[test]
fn split_overlap_signal_early_wait_late() {
    check_split(
        &src(
            "",
            "op \"wa\" write %A\n op \"x\"\n op \"y\" read %G\n op \"ra\" read %A",
        ),
        "wa SIG x y WAIT ra",
    );
    // In a loop: signal right after the producer, wait right before the consumer.
    check_split(
        &src(
            "",
            "for %i = 0 to %n { op \"wa\" write %A\n op \"x\"\n op \"ra\" read %A\n op \"y\" }",
        ),
        "for{ SIG WAIT wa SIG x WAIT ra y }",
    );
}

#[test]
fn non_gpu_and_explain() {
    let s = src("", "op \"wa\" write %A\n op \"ra\" read %A");
    let mut k = kernel(&s);
    let rep = syncopt_barriers::run(&mut k, Target::Ascend910b, &InsertOptions::default());
    assert!(rep.explain.is_empty() && k.inserted_syncs().is_empty());
    let (_, rep) = insert_with(&s, Target::Gfx950, false);
    assert_eq!(rep.hazards, 1);
    assert_eq!(rep.explain.len(), 1);
    assert_eq!(rep.explain[0].covers[0].kind, "RAW");
}

#[test]
fn named_barriers_independent_chains() {
    let s = src(
        "",
        "op \"wa\" write %A\n op \"wb\" write %B\n op \"ra\" read %A\n op \"rb\" read %B",
    );
    // One barrier: `ra` waits for `wb` too.
    let (k, _) = insert_with(&s, Target::Gfx1250, false);
    assert_eq!(sk(&k), "wa wb SIG WAIT ra rb");
    // With --named-barriers each chain gets its phase: `ra` waits for `wa` only.
    let (k, rep) = insert_with(&s, Target::Gfx1250, true);
    assert_eq!(sk(&k), "wa SIG wb WAIT SIG ra WAIT rb");
    assert_eq!(rep.explain.len(), 4);
    let (k, _) = insert_with(&s, Target::Sm90, true);
    assert_eq!(sk(&k), "wa SIG1 wb WAIT1 SIG1 ra WAIT1 rb");
    // Two barriers that overlap need two ids.
    let s = src(
        "",
        "op \"wa\" write %A\n op \"wb\" write %B\n op \"x\"\n op \"ra\" read %A\n op \"y\"\n op \"rb\" read %B",
    );
    let (k, _) = insert_with(&s, Target::Gfx1250, true);
    assert_eq!(sk(&k), "wa SIG wb SIG1 x WAIT ra y WAIT1 rb");
    // sm_80 has no split barrier: monolithic even when asked.
    let (k, _) = insert_with(&s, Target::Sm80, true);
    assert_eq!(sk(&k), "wa wb x BAR ra y rb");
}

#[test]
fn wa9_double_buffer_refill_needs_a_barrier() {
    let s = "kernel @k(%n) {\n  %A = buffer workgroup 4096\n  %B = buffer workgroup 4096\n  %G = buffer global 65536\n  \
             op \"ta\" async write %A, read %G\n  for %i = 0 to %n iter(%cur = %A, %nxt = %B) {\n    \
             op \"tn\" async write %nxt, read %G\n    barrier\n    op \"rc\" read %cur\n    yield %nxt, %cur\n  }\n}\n";
    let (k, _) = insert_with(s, Target::Gfx1250, false);
    assert_eq!(sk(&k), "ta for{ SIG WAIT tn {BAR} rc }");
    let (k, _) = insert_with(s, Target::Gfx950, false);
    assert_eq!(sk(&k), "ta for{ BAR tn {BAR} rc }");
    // Without the swap the handles stay put (always A and B): the refill never touches the
    // buffer being read and the input barrier orders the rest.
    let (k, _) = insert_with(
        &s.replace("yield %nxt, %cur", "yield %cur, %nxt"),
        Target::Gfx950,
        false,
    );
    assert_eq!(sk(&k), "ta for{ tn {BAR} rc }");
}
