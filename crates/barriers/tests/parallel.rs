//! The parallel paths give the one-thread result: access collection in chunks, and the
//! kernel body simulated in lanes (`SYNCOPT_BAR_THREADS`).

use syncopt_analysis::hazard::Accesses;
use syncopt_analysis::InsertOptions;
use syncopt_gen::{generate, GenOptions};
use syncopt_ir::{parse, Kernel};
use syncopt_targets::Target;

fn kernel(ops: usize, seed: u64, target: Target) -> Kernel {
    let src = generate(&GenOptions {
        ops,
        seed,
        target,
        executable: false,
    });
    parse(&src).expect("generated kernel parses").chunks[0].kernels[0].clone()
}

#[test]
fn chunked_collection_equals_one_pass() {
    for seed in 0..12 {
        let k = kernel(400 + 50 * seed as usize, seed, Target::Gfx950);
        let one = Accesses::collect_with_threads(&k, Some(256));
        for (workers, chunk) in [(1, 7), (3, 7), (4, 64), (2, 1)] {
            let par = Accesses::collect_chunked(&k, Some(256), workers, chunk);
            assert_eq!(
                one.descs, par.descs,
                "seed {seed} workers {workers} chunk {chunk}"
            );
            assert_eq!(one.by_stmt, par.by_stmt, "seed {seed}");
            assert_eq!(one.accesses, par.accesses, "seed {seed}");
        }
    }
}

/// Inserts with `threads` lanes (the variable is read by the pass on every run).
fn insert(k: &Kernel, t: Target, named: bool, threads: &str) -> String {
    std::env::set_var("SYNCOPT_BAR_THREADS", threads);
    let mut kk = k.clone();
    let rep = syncopt_barriers::run(
        &mut kk,
        t,
        &InsertOptions {
            named_barriers: named,
            ..InsertOptions::default()
        },
    );
    std::env::remove_var("SYNCOPT_BAR_THREADS");
    format!(
        "{}\n{}\n{:?}\n{:?}",
        syncopt_ir::print_kernel(&kk),
        rep.hazards,
        rep.diagnostics,
        rep.explain
    )
}

#[test]
fn lanes_give_the_one_lane_result() {
    // One test owns the variable: no other test of this binary reads it.
    for (seed, t) in [
        (1, Target::Gfx950),
        (2, Target::Gfx1250),
        (3, Target::Sm80),
        (4, Target::Gfx942),
        (5, Target::Sm90),
    ] {
        let k = kernel(1500, seed, t);
        // The lanes do meet: later lanes' work is used, not redone by the first.
        std::env::set_var("SYNCOPT_BAR_THREADS", "3");
        let (lanes, used) = syncopt_barriers::testing::lanes(&k, t);
        std::env::remove_var("SYNCOPT_BAR_THREADS");
        assert_eq!(lanes, 3, "{t:?} seed {seed}");
        assert!(used >= 2, "{t:?} seed {seed}: lanes never met");
        let one = insert(&k, t, false, "1");
        for lanes in ["2", "3", "7"] {
            assert_eq!(
                one,
                insert(&k, t, false, lanes),
                "{t:?} seed {seed} lanes {lanes}"
            );
        }
        if matches!(t, Target::Gfx1250 | Target::Sm90) {
            let one = insert(&k, t, true, "1");
            assert_eq!(one, insert(&k, t, true, "4"), "{t:?} seed {seed} named");
        }
    }
}

fn report_text(k: &Kernel, rep: &syncopt_analysis::PassReport) -> String {
    format!(
        "{}\n{}\n{:?}\n{:?}",
        syncopt_ir::print_kernel(k),
        rep.hazards,
        rep.diagnostics,
        rep.explain
    )
}

/// The pass with and without memoized what-if runs gives the same kernel and report.
fn memo_agrees(k: &Kernel, t: Target, named: bool, what: &str) {
    let opts = InsertOptions {
        named_barriers: named,
        ..InsertOptions::default()
    };
    let mut a = k.clone();
    let ra = syncopt_barriers::run(&mut a, t, &opts);
    let mut b = k.clone();
    let rb = syncopt_barriers::testing::without_memo(&mut b, t, &opts);
    assert_eq!(
        report_text(&a, &ra),
        report_text(&b, &rb),
        "{what} named {named}"
    );
}

/// Memoized what-if runs of loops and ifs (reused by entry state) give exactly what
/// simulating them again gives: same kernel, hazard count, diagnostics and explain lists.
/// Sizes cover all three what-if depths (3 up to 5,000 statements, 2 up to 20,000, 1 above).
#[test]
fn memoized_runs_give_the_simulated_result() {
    let mut hits = 0;
    let cases = [
        (Target::Gfx950, 300),
        (Target::Gfx1250, 600),
        (Target::Sm80, 900),
        (Target::Gfx942, 1200),
        (Target::Sm90, 700),
        (Target::Gfx1200, 500),
        (Target::Gfx950, 6000),
        (Target::Gfx1250, 21000),
    ];
    for (i, &(t, ops)) in cases.iter().enumerate() {
        for seed in 0..3u64 {
            let seed = seed + 10 * i as u64;
            let k = kernel(ops, seed, t);
            hits += syncopt_barriers::testing::memo_hits(&k, t);
            let named_too = matches!(t, Target::Gfx1250 | Target::Sm90) && ops < 5000;
            for named in [false, true] {
                if named && !named_too {
                    continue;
                }
                memo_agrees(&k, t, named, &format!("{t:?} ops {ops} seed {seed}"));
            }
        }
    }
    // The comparison means something only if runs were reused.
    assert!(hits > 100, "memo hits {hits}");
}

/// `memoized_runs_give_the_simulated_result` on many more kernels (long: run with
/// `cargo test -p syncopt-barriers --test parallel -- --ignored`).
#[test]
#[ignore]
fn memo_campaign() {
    let targets = Target::GPUS;
    for seed in 0..120u64 {
        for (i, &t) in targets.iter().enumerate() {
            let ops = 200 + ((seed as usize * 7 + i * 13) % 30) * 100;
            let k = kernel(ops, 1000 + seed, t);
            let named = matches!(t, Target::Gfx1250 | Target::Sm90) && seed % 2 == 0;
            memo_agrees(
                &k,
                t,
                named,
                &format!("{t:?} ops {ops} seed {}", 1000 + seed),
            );
        }
    }
}
