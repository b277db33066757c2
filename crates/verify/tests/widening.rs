//! More paths than the verifier keeps apart (docs/VERIFY.md, "Merging paths"): independent
//! uniform ifs with handle results multiply the contexts; merging them must keep what decides
//! races (the handles of a buffer-swapping loop never name the same buffer; an if result names
//! one of two buffers, not anything) and stay sound (a real race is still found, and said to
//! be found on merged paths).

use syncopt_targets::Target;

fn diags(src: &str) -> Vec<syncopt_ir::Diagnostic> {
    let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    let k = &file.chunks[0].kernels[0];
    syncopt_verify::verify(k, Target::Gfx950).diagnostics
}

/// `pre`, then `ifs` uniform ifs, each binding `%xI` to `%A` or `%B`, then `body`, then a
/// barrier and a read of every `%xI` (so they stay live through `body`).
fn kernel(pre: &str, ifs: usize, body: &str) -> String {
    let mut s = String::from(
        "kernel @k(%n = 16, %c = 1) waves 2 {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n  %C = buffer workgroup 1024\n  %D = buffer workgroup 1024\n  %E = buffer workgroup 1024\n",
    );
    s += pre;
    for i in 0..ifs {
        s += &format!(
            "  %x{i} = if uniform %c > {i} {{\n    yield %A\n  }} else {{\n    yield %B\n  }}\n"
        );
    }
    s += body;
    s += "  barrier\n";
    for i in 0..ifs {
        s += &format!("  op \"r\" read %x{i}\n");
    }
    s += "}\n";
    s
}

const SWAP_LOOP: &str = "  %p, %q = for %i = 0 to %n iter(%h = %C, %g = %D) {\n    op \"w\" write %h\n    barrier\n    yield %g, %h\n  }\n";

#[test]
fn a_swapping_loop_keeps_its_handles_apart_among_many_paths() {
    // 2^6 paths of if results times the loop's two orders: more than the verifier keeps
    // apart. %p and %q are (C, D) or (D, C), never the same buffer.
    let body = "  op \"w\" write %p\n  op \"r\" read %q\n";
    let d = diags(&kernel(SWAP_LOOP, 6, body));
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn an_if_result_names_one_of_its_buffers_not_anything() {
    // %x0 is %A or %B; a write to it does not touch %E, even after the paths are merged.
    let body =
        "  op \"w\" write %x0\n  op \"r\" read %E\n  op \"w\" write %p\n  op \"r\" read %q\n";
    let d = diags(&kernel(SWAP_LOOP, 7, body));
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn a_real_race_through_swapped_handles_is_still_found() {
    // Each trip writes %h and reads %g with no barrier: the next trip's %g is this trip's
    // %h, so another wave reads what this one wrote, unordered.
    let body = "  %p, %q = for %i = 0 to %n iter(%h = %C, %g = %D) {\n    op \"w\" write %h\n    op \"r\" read %g\n    yield %g, %h\n  }\n";
    let d = diags(&kernel("", 6, body));
    assert!(
        d.iter()
            .any(|d| d.message.contains("race (RAW) on %C")
                || d.message.contains("race (RAW) on %D")),
        "{d:#?}"
    );
}

#[test]
fn a_race_on_merged_paths_says_it_may_be_a_false_alarm() {
    // %x0 may be %A: the write to %x0 and the read of %A race. With 2^9 paths the verifier
    // merges (even on its second look, keeping up to 192 apart), and says so.
    let body = "  op \"w\" write %x0\n  op \"r\" read %A\n";
    let d = diags(&kernel("", 9, body));
    let race = d
        .iter()
        .find(|d| d.message.contains("race (RAW) on %A"))
        .unwrap_or_else(|| panic!("race not found: {d:#?}"));
    assert!(
        race.notes.iter().any(|n| n.1.contains("merged paths")),
        "{race:#?}"
    );
}

#[test]
fn a_race_on_unmerged_paths_has_no_merge_note() {
    let body = "  op \"w\" write %x0\n  op \"r\" read %A\n";
    let d = diags(&kernel("", 2, body));
    let race = d
        .iter()
        .find(|d| d.message.contains("race (RAW) on %A"))
        .unwrap_or_else(|| panic!("race not found: {d:#?}"));
    assert!(
        !race.notes.iter().any(|n| n.1.contains("merged paths")),
        "{race:#?}"
    );
}

#[test]
fn dead_if_results_do_not_multiply_paths() {
    // Forty ifs whose results are read once, right away: each binding dies at its read, so
    // the paths merge exactly and nothing is merged lossily: the race with %E is found
    // without the merge note.
    let mut s = String::from(
        "kernel @k(%c = 1) waves 2 {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n  %E = buffer workgroup 1024\n",
    );
    for i in 0..40 {
        s += &format!(
            "  %x{i} = if uniform %c > {i} {{\n    yield %A\n  }} else {{\n    yield %B\n  }}\n  op \"r\" read %x{i}\n"
        );
    }
    s += "  op \"w\" write %E\n  op \"r\" read %E\n}\n";
    let d = diags(&s);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].message.contains("race (RAW) on %E"), "{d:#?}");
    assert!(
        !d[0].notes.iter().any(|n| n.1.contains("merged paths")),
        "{d:#?}"
    );
}

/// The 100,000-op gfx950 insert output of session 3 (line 132966): a copy issued before a
/// buffer-swapping loop is waited for in the loop's first trip, and only from the second trip
/// on does the loop's handle name the copy's buffer. The first trip runs apart from the later
/// ones, so merging paths at the loop's head (here: at every statement, limit 1) does not put
/// the copy still in flight next to the second trip's handle.
#[test]
fn the_first_trip_is_not_merged_with_the_later_ones() {
    let src = |wait: &str| {
        format!("kernel @k(%n = 16) waves 2 {{\n  %C = buffer workgroup 1024\n  %D = buffer workgroup 1024\n  %G = buffer global 65536\n  op \"gather_to_lds\" async write %C, read %G\n  for %j = 0 to %n {{\n    for %i = 0 to %n iter(%h = %D, %g = %C) {{\n      barrier\n      op \"gather_to_lds\" async write %h, read %G\n{wait}      barrier\n      op \"r\" read %g\n      yield %g, %h\n    }}\n  }}\n}}\n")
    };
    let run = |src: &str, limit: usize| {
        let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
        let k = &file.chunks[0].kernels[0];
        syncopt_verify::workgroup::verify_with_limit(k, Target::Gfx950, limit).diagnostics
    };
    let ok = src("      wait vmcnt(0)\n");
    for limit in [1, 6, usize::MAX] {
        let d = run(&ok, limit);
        assert!(d.is_empty(), "limit {limit}: {d:#?}");
    }
    // Without the wait the copy to %C may still be in flight when the first trip reads %C.
    let racy = src("");
    for limit in [1, 6, usize::MAX] {
        let d = run(&racy, limit);
        assert!(
            d.iter().any(|d| d.message.contains("race (RAW) on %C")),
            "limit {limit}: {d:#?}"
        );
    }
}
