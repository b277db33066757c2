//! Issue 5: an index selector on a slot view may reach past the slot (the verifier and the IR
//! take a view as a byte range of its buffer: an index past the view touches the bytes after
//! it, the other slots). The slot holds only when the words of all threads (and of all the
//! values the index's induction variables take) stay in it; else the access may meet a copy
//! in flight into another slot, and the wait must cover that copy.

mod common;

use common::parse_one;
use syncopt_analysis::InsertOptions;
use syncopt_ir::{StmtKind, SyncOp};

/// Barriers then waits (as `syncopt insert`); the printed kernel, which must verify, with
/// maximal waits.
fn insert(src: &str) -> String {
    insert_checked(src, true)
}

/// Like `insert`; the maximality check only when `maximal`.
fn insert_checked(src: &str, maximal: bool) -> String {
    let (mut k, t) = parse_one(src);
    let opts = InsertOptions::default();
    let rb = syncopt_barriers::run(&mut k, t, &opts);
    assert!(!rb.has_errors(), "barriers: {:?}", rb.diagnostics);
    let ra = syncopt_async_waits::run(&mut k, t, &opts);
    assert!(!ra.has_errors(), "waits: {:?}", ra.diagnostics);
    let printed = syncopt_ir::print_kernel(&k);
    let r = syncopt_verify::verify(&k, t);
    assert!(
        r.is_ok(),
        "verifier rejects the output:\n{printed}\n{:?}",
        r.diagnostics
    );
    // Maximal: raising any inserted wait by one no longer verifies.
    for s in k.inserted_syncs().into_iter().filter(|_| maximal) {
        let mut k2 = k.clone();
        if let StmtKind::Sync(SyncOp::CounterWait { counter, n }) = &mut k2.stmts[s].kind {
            if *n < t.counter_max(*counter).unwrap_or(0) {
                *n += 1;
                assert!(
                    !syncopt_verify::verify(&k2, t).is_ok(),
                    "raising {:?} by one still verifies:\n{printed}",
                    k.stmts[s].kind
                );
            }
        }
    }
    printed
}

/// The statement lines from the first `for` on, trimmed.
fn lines(printed: &str) -> Vec<String> {
    printed
        .lines()
        .map(|l| l.trim().to_string())
        .skip_while(|l| !l.starts_with("for"))
        .filter(|l| !l.is_empty() && !l.contains("= view"))
        .collect()
}

/// 128 threads (gfx950, wave64, 2 waves) in 512-byte slots (128 words): `%w1[tid + 32]`
/// reaches words 32..159, past slot `%i1` into slot `%i1 + 1`, which `cp_r` is filling.
fn kernel(index: &str) -> String {
    format!(
        "target gfx950

kernel @slot_words(%n = 1) waves 2 {{
  %A = buffer workgroup 512
  %D = buffer workgroup 1024
  %G = buffer global 4096
  for %i1 = 0 to %n max 4 {{
    %w1 = view %D slot (%i1) mod 2
    %r1 = view %D slot (%i1 + 1) mod 2
    op \"cp_a\" async write %A, read %G[512:1024]
    op \"cp_r\" async write %r1, read %G[0:512]
    op \"ld_w\" read %w1[{index}]
    op \"ld_a\" read %A[tid]
  }}
}}
"
    )
}

#[test]
fn index_leaving_its_slot_waits_for_the_other_slot() {
    let out = insert(&kernel("tid + 32"));
    assert_eq!(
        lines(&out),
        [
            "for %i1 = 0 to %n max 4 {",
            "barrier",
            "op \"cp_a\" async write %A, read %G[512:1024]",
            "op \"cp_r\" async write %r1, read %G[0:512]",
            "wait vmcnt(0)",
            "barrier",
            "op \"ld_w\" read %w1[tid + 32]",
            "op \"ld_a\" read %A[tid]",
            "}",
            "}",
        ],
        "\n{out}"
    );
}

#[test]
fn index_staying_in_its_slot_keeps_the_later_wait() {
    for (index, printed) in [
        ("tid", "tid"),
        ("127 - tid", "-tid + 127"),
        ("tid + 96 - 96", "tid"),
    ] {
        let out = insert(&kernel(index));
        assert_eq!(
            lines(&out),
            [
                "for %i1 = 0 to %n max 4 {",
                "wait vmcnt(0)",
                "barrier",
                "op \"cp_a\" async write %A, read %G[512:1024]",
                "op \"cp_r\" async write %r1, read %G[0:512]",
                &format!("op \"ld_w\" read %w1[{printed}]"),
                "wait vmcnt(1)",
                "barrier",
                "op \"ld_a\" read %A[tid]",
                "}",
                "}",
            ],
            "{index}\n{out}"
        );
    }
}

#[test]
fn index_moving_with_a_loop_is_bounded_by_its_trips() {
    // %i2 in 0..2: words tid + 32 * %i2 reach 159 (leaves); in 0..1 only 127 (stays). The
    // source barrier in the inner loop stands for the one the barrier pass should place
    // there (crates/analysis/src/hazard.rs keeps the slot of a direct slot view whose index
    // has an induction variable: a separate issue).
    let src = kernel("tid + 32 * %i2").replace(
        "    op \"ld_w\" read %w1[tid + 32 * %i2]\n",
        "    for %i2 = 0 to 2 {\n      barrier\n      op \"ld_w\" read %w1[tid + 32 * %i2]\n    }\n",
    );
    // `%n` with no stated maximum: the words are not bounded, the slot does not hold. (Sound
    // but not maximal for the verifier, which runs the kernel with `%n` = 1: no maximality
    // check there.)
    for (trips, wait, maximal) in [
        ("2", "wait vmcnt(0)", true),
        ("1", "wait vmcnt(1)", true),
        ("%n", "wait vmcnt(0)", false),
        ("%n max 1", "wait vmcnt(2)", true),
    ] {
        let out = insert_checked(&src.replace("0 to 2", &format!("0 to {trips}")), maximal);
        let l = lines(&out);
        let ld = l.iter().position(|x| x.contains("ld_w")).unwrap();
        assert_eq!(l[ld - 2], wait, "\n{out}");
    }
}

#[test]
fn constant_slot_leaving_its_slot() {
    // A fixed slot: words 64..191 of slot 0 reach into slot 1 (bytes 512..767).
    let src = "target gfx950

kernel @fixed(%n = 1) waves 2 {
  %A = buffer workgroup 512
  %D = buffer workgroup 1024
  %G = buffer global 4096
  %s0 = view %D slot (0) mod 2
  %s1 = view %D slot (1) mod 2
  op \"cp_a\" async write %A, read %G[512:1024]
  op \"cp_1\" async write %s1[0:256], read %G[0:256]
  op \"ld_0\" read %s0[tid + 64]
  op \"ld_a\" read %A[tid]
}
";
    let out = insert(src);
    let l: Vec<String> = out.lines().map(|x| x.trim().to_string()).collect();
    let ld = l.iter().position(|x| x.contains("ld_0")).unwrap();
    assert_eq!(l[ld - 2], "wait vmcnt(0)", "\n{out}");
    let stays = src.replace("%s0[tid + 64]", "%s0[tid]");
    let out = insert(&stays);
    assert!(!out.contains("vmcnt(0)"), "\n{out}");
}

/// The kernel: `syncopt gen --executable --seed 0 --ops 20`, retargeted to gfx950.
#[test]
fn generated_seed_0_on_gfx950() {
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops: 20,
        seed: 0,
        target: syncopt_targets::Target::Sm90,
        executable: true,
    })
    .replace("target sm_90", "target gfx950");
    let out = insert(&src);
    let l: Vec<String> = out.lines().map(|x| x.trim().to_string()).collect();
    let ld = l.iter().position(|x| x.contains("\"ld_6\"")).unwrap();
    assert_eq!(l[ld - 2], "wait vmcnt(0)", "\n{out}");
}

/// Spans past the slot compared slot by slot: `cp_r` writes words 64..191 from the start of
/// slot `%i1 + 1` (into the next slot's words 0..63). A read of words 64..191 from slot `%i1`
/// (`tid + 64`) ends in slot `%i1 + 1`'s words 0..63: apart from the copy, whose own words
/// there start at 64 (and from the next iteration's copy): `cp_a` alone is waited for. With
/// `tid + 96` the read reaches word 95 of slot `%i1 + 1`: it waits for `cp_r` too.
#[test]
fn spans_past_the_slot_compared_slot_by_slot() {
    let src = |index: &str| {
        format!(
            "target gfx950

kernel @span(%n = 1) waves 2 {{
  %A = buffer workgroup 512
  %D = buffer workgroup 1024
  %G = buffer global 4096
  for %i1 = 0 to %n max 4 {{
    %w1 = view %D slot (%i1) mod 2
    %r1 = view %D slot (%i1 + 1) mod 2
    op \"cp_a\" async write %A, read %G[512:1024]
    op \"cp_r\" async write %r1[tid + 64], read %G[0:512]
    op \"ld_a\" read %A[tid]
    op \"ld_w\" read %w1[{index}]
  }}
}}
"
        )
    };
    for (index, wait) in [("tid + 64", "wait vmcnt(1)"), ("tid + 96", "wait vmcnt(0)")] {
        let out = insert(&src(index));
        let l = lines(&out);
        let ld = l.iter().position(|x| x.contains("ld_a")).unwrap();
        assert_eq!(l[ld - 2], wait, "{index}\n{out}");
        assert_eq!(
            l.iter().filter(|x| x.starts_with("wait")).count(),
            1,
            "\n{out}"
        );
    }
}

/// `gen --executable` kernels retargeted to the wave64 targets (128 threads in 512-byte slots:
/// `tid + 32` words leave their slot): through shared-barriers and this pass, the verifier
/// finds no copy left in flight. (Races the barrier pass leaves are counted, not failed:
/// crates/analysis/src/hazard.rs keeps the slot of a direct slot view indexed by an induction
/// variable.) Seeds 0..40 by default; 0..1000 with `-- --ignored`.
fn no_copy_in_flight(seeds: u64) {
    let mut bad = Vec::new();
    let mut barrier_only = 0;
    for seed in 0..seeds {
        let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
            ops: 20,
            seed,
            target: syncopt_targets::Target::Sm90,
            executable: true,
        });
        for t in ["gfx950", "gfx942"] {
            let src = src.replace("target sm_90", &format!("target {t}"));
            let (mut k, t) = parse_one(&src);
            let opts = InsertOptions::default();
            if syncopt_barriers::run(&mut k, t, &opts).has_errors()
                || syncopt_async_waits::run(&mut k, t, &opts).has_errors()
            {
                bad.push(format!("seed {seed} {t}: pass error"));
                continue;
            }
            // As `syncopt insert | syncopt verify -`: the printed output, parsed again.
            let (k, t) = parse_one(&format!("target {t}\n\n{}", syncopt_ir::print_kernel(&k)));
            let r = syncopt_verify::verify(&k, t);
            let in_flight = r.diagnostics.iter().any(|d| {
                d.notes
                    .iter()
                    .any(|(_, n)| n.contains("async copy not covered by a wait"))
            });
            if in_flight {
                bad.push(format!("seed {seed} {t}"));
            } else if !r.is_ok() {
                barrier_only += 1;
            }
        }
    }
    eprintln!(
        "{} kernels, {barrier_only} rejected for a barrier only",
        2 * seeds
    );
    assert!(bad.is_empty(), "copies left in flight: {bad:?}");
}

#[test]
fn generated_wave64_no_copy_in_flight() {
    no_copy_in_flight(40);
}

#[test]
#[ignore]
fn generated_wave64_no_copy_in_flight_long() {
    no_copy_in_flight(1000);
}
