//! Large kernels (20,000 statements and more) drop the placed barriers that order nothing the
//! others do not, in one more coverage run: the final coverage run credits the first of two
//! barriers on a hazard's path, so the idle barriers that are no such first go at once.

mod common;
use common::*;

use syncopt_analysis::InsertOptions;
use syncopt_targets::Target;

#[test]
fn large_kernels_drop_idle_barriers_and_still_verify() {
    let t = Target::Sm90;
    let src = syncopt_gen::generate(&syncopt_gen::GenOptions {
        ops: 25_000,
        seed: 2,
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
