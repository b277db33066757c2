//! Which handles to merge first when a loop nest has more paths than the verifier keeps
//! apart (docs/VERIFY.md, "Merging paths"): merging a loop's swapped handles makes them look
//! alike, a false alarm wherever the body uses one right after writing the other. Outer
//! loops first is wrong for one kernel, inner loops first for another, so `verify` runs both
//! orders where problems are left on merged paths and keeps the races every run finds (campaign
//! `gen --ops 60000 --seed 9 --target sm_80`: a false alarm under each order, none left).
//! The small limits here force the merges that kernel needed at the default limit.

use syncopt_ir::Kernel;
use syncopt_targets::Target;
use syncopt_verify::workgroup::{verify_both_orders, verify_inner_first, verify_with_limit};

/// An outer loop swapping %A and %B around an inner one swapping %C and %D; each body
/// writes one handle and reads the other, with `outer` / `inner` in between ("" or a
/// barrier), then `extra` at the end of the outer body.
fn nest(outer: &str, inner: &str, extra: &str) -> Kernel {
    let src = format!(
        "kernel @k(%n = 16, %c = 1) waves 2 {{
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %C = buffer workgroup 1024
  %D = buffer workgroup 1024
  %E = buffer workgroup 1024
  for %o = 0 to %n iter(%h = %A, %g = %B) {{
    op \"w\" write %h
{outer}    op \"r\" read %g
    barrier
    for %i = 0 to %n iter(%p = %C, %q = %D) {{
      barrier
      op \"w\" write %p
{inner}      op \"r\" read %q
      yield %q, %p
    }}
    barrier
{extra}    yield %g, %h
  }}
}}
"
    );
    let file = syncopt_ir::parse(&src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    file.chunks[0].kernels[0].clone()
}

const BAR_OUT: &str = "    barrier\n";
const BAR_IN: &str = "      barrier\n";
const T: Target = Target::Gfx950;

fn races(r: syncopt_verify::Report) -> Vec<String> {
    r.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect()
}

fn on(rs: &[String], buf: &str) -> bool {
    rs.iter()
        .any(|m| m.contains(&format!("race (RAW) on {buf}")))
}

#[test]
fn outer_loops_first_confuses_the_outer_handles() {
    let k = nest("", BAR_IN, "");
    assert!(races(verify_with_limit(&k, T, usize::MAX)).is_empty());
    for limit in [2, 3] {
        let a = races(verify_with_limit(&k, T, limit));
        assert!(on(&a, "%A") || on(&a, "%B"), "limit {limit}: {a:?}");
        let b = races(verify_inner_first(&k, T, limit));
        assert!(b.is_empty(), "limit {limit}: {b:?}");
    }
}

#[test]
fn inner_loops_first_confuses_the_inner_handles() {
    let k = nest(BAR_OUT, "", "");
    assert!(races(verify_with_limit(&k, T, usize::MAX)).is_empty());
    for limit in [2, 3] {
        let a = races(verify_with_limit(&k, T, limit));
        assert!(a.is_empty(), "limit {limit}: {a:?}");
        let b = races(verify_inner_first(&k, T, limit));
        assert!(on(&b, "%C") || on(&b, "%D"), "limit {limit}: {b:?}");
    }
}

#[test]
fn each_order_alone_is_wrong_where_both_agree_it_is_right() {
    let k = nest("", "", "");
    assert!(races(verify_with_limit(&k, T, usize::MAX)).is_empty());
    for limit in [2, 3] {
        assert!(!races(verify_with_limit(&k, T, limit)).is_empty());
        assert!(!races(verify_inner_first(&k, T, limit)).is_empty());
        let both = races(verify_both_orders(&k, T, limit));
        assert!(both.is_empty(), "limit {limit}: {both:?}");
    }
}

#[test]
fn a_race_both_orders_find_stays() {
    // Every wave writes %E and reads it with no barrier: a race on every path, found by
    // both orders, so also by what they agree on.
    let k = nest("", "", "    op \"w\" write %E\n    op \"r\" read %E\n");
    for limit in [2, 3, 6, usize::MAX] {
        let both = races(verify_both_orders(&k, T, limit));
        assert!(on(&both, "%E"), "limit {limit}: {both:?}");
        assert!(
            !on(&both, "%A") && !on(&both, "%C"),
            "limit {limit}: {both:?}"
        );
    }
}

#[test]
fn verify_looks_again_in_the_other_order() {
    // The inner loop starts from an `if`'s pair of results (two choices), so its handles
    // take four values: eight paths in the inner body, more than the default six. Each
    // order alone reports a false race at the default limit (outer loops first on the
    // outer handles, inner first on the inner ones); `verify` reports none.
    let src = "kernel @k(%n = 16, %c = 1) waves 2 {
  %A = buffer workgroup 1024
  %B = buffer workgroup 1024
  %C = buffer workgroup 1024
  %D = buffer workgroup 1024
  %E = buffer workgroup 1024
  %F = buffer workgroup 1024
  %x, %y = if uniform %c > 0 {
    yield %C, %D
  } else {
    yield %E, %F
  }
  for %o = 0 to %n iter(%h = %A, %g = %B) {
    op \"w\" write %h
    op \"r\" read %g
    barrier
    for %i = 0 to %n iter(%p = %x, %q = %y) {
      barrier
      op \"w\" write %p
      op \"r\" read %q
      yield %q, %p
    }
    barrier
    yield %g, %h
  }
}
";
    let file = syncopt_ir::parse(src).expect("parses");
    let k = &file.chunks[0].kernels[0];
    assert!(races(verify_with_limit(k, T, usize::MAX)).is_empty());
    let first = races(verify_with_limit(k, T, 6));
    assert!(on(&first, "%A") || on(&first, "%B"), "{first:?}");
    let inner = races(verify_inner_first(k, T, 6));
    assert!(
        on(&inner, "%C") || on(&inner, "%D") || on(&inner, "%E"),
        "{inner:?}"
    );
    assert!(races(verify_both_orders(k, T, 6)).is_empty());
    let r = syncopt_verify::verify(k, T);
    assert!(r.is_ok(), "{:?}", r.diagnostics);
}
