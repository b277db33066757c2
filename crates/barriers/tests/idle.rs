//! Large kernels (20,000 statements and more) drop the placed barriers that order nothing the
//! others do not, in one more coverage run: the final coverage run credits the first of two
//! barriers on a hazard's path, so the idle barriers that are no such first go at once (those
//! that leave a pair unordered come back, nearest before its consumer first), and inserting
//! into the output again adds nothing.

mod common;
use common::*;

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

#[test]
fn large_kernels_drop_idle_barriers_and_still_verify() {
    drops_idle_barriers(Target::Sm90, 25_000, 2);
}

#[test]
fn idle_barriers_in_a_row_come_back_one_by_one() {
    // Dropping the 27 idle barriers that are no "first of two" at once left a pair
    // unordered (three barriers in a row), so all 43 stayed; bringing back the one nearest
    // before that pair's consumer lets the other 26 go.
    drops_idle_barriers(Target::Gfx950, 30_000, 1);
}

fn drops_idle_barriers(t: Target, ops: usize, seed: u64) {
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops,
        seed,
        target: t,
        executable: false,
    });
    let k = kernel_of(&src);
    assert!(k.stmts.len() >= 20_000, "{} statements", k.stmts.len());
    let opts = InsertOptions::default();
    let mut ours = k.clone();
    let rep = syncopt_barriers::run(&mut ours, t, &opts);
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    let mut kept = k.clone();
    let rep = syncopt_barriers::testing::without_double(&mut kept, t, &opts);
    assert!(!rep.has_errors(), "{:?}", rep.diagnostics);
    let (n, m) = (barrier_groups(&ours).len(), barrier_groups(&kept).len());
    assert!(
        n < m,
        "{n} barriers with the idle ones dropped, {m} without"
    );
    let vr = syncopt_verify::verify(&finish(&ours, t, &opts), t);
    assert!(vr.is_ok(), "{:#?}", vr.diagnostics.first());
}

#[test]
fn inserting_into_a_large_output_adds_nothing() {
    // Campaign `gen --ops 30000 --seed 3 --target gfx1250`: inserting again placed 15
    // signal/wait pairs, each right before a pair of the first run's output. The coverage
    // run credits an access to the input's barrier once it crosses one, so the new pairs
    // were idle but "first of two" and stayed; now they go.
    reinserting_adds_nothing(Target::Gfx1250, 30_000, 3, 20_000);
}

#[test]
fn inserting_into_a_very_large_output_adds_nothing() {
    // Above 120,000 statements: `gen --ops 100000 --seed 1 --target gfx1250` added 45 idle
    // signal/wait pairs when inserted into again (the idle ones were never dropped there).
    reinserting_adds_nothing(Target::Gfx1250, 100_000, 1, 120_000);
}

/// The barrier pass's output for `gen --ops ops --seed seed` (at least `stmts` statements)
/// is its own output.
fn reinserting_adds_nothing(t: Target, ops: usize, seed: u64, stmts: usize) {
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops,
        seed,
        target: t,
        executable: false,
    });
    let once = inserted(&src, t);
    assert!(kernel_of(&once).stmts.len() >= stmts);
    let twice = inserted(&once, t);
    assert!(once == twice, "inserting again changed the output");
}
