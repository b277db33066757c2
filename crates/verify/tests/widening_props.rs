//! Merging paths is sound: whatever the verifier finds when it keeps every path apart, it
//! also finds when it merges them at every statement (limit 1) or at its default limit, in
//! either order of handle groups, and in what the two orders agree on. The
//! kernels are `syncopt gen` kernels synchronized by the insert pipeline with one inserted
//! sync op removed, so most have real races. `SYNCOPT_LONG=1`: more seeds, larger kernels.

use std::collections::BTreeSet;

use syncopt_gen::{generate, GenOptions, Rng};
use syncopt_ir::{Diagnostic, Kernel};
use syncopt_passes::InsertOptions;
use syncopt_targets::Target;

/// A problem by where it is, where its first note points and its kind (the message names a
/// buffer from the first record seen, which merging may change).
fn key(d: &Diagnostic) -> (Option<syncopt_ir::Loc>, Option<syncopt_ir::Loc>, String) {
    let head = d.message.split(':').next().unwrap_or_default();
    let kind = head.split(" on ").next().unwrap_or_default().to_string();
    (d.loc, d.notes.first().and_then(|n| n.0), kind)
}

type Key = (Option<syncopt_ir::Loc>, Option<syncopt_ir::Loc>, String);

fn problems(k: &Kernel, t: Target, limit: usize) -> BTreeSet<Key> {
    keys(syncopt_verify::workgroup::verify_with_limit(k, t, limit))
}

fn keys(r: syncopt_verify::Report) -> BTreeSet<Key> {
    r.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(key)
        .collect()
}

/// The inserted kernel with its `n`-th inserted sync op (mod their count) removed.
fn without_one_sync(t: Target, ops: usize, seed: u64, pick: u64) -> Kernel {
    let text = generate(&GenOptions {
        ops,
        seed,
        target: t,
        executable: false,
    });
    let file = syncopt_ir::parse(&text).expect("gen output parses");
    let mut k = file.chunks[0].kernels[0].clone();
    syncopt_passes::insert(&mut k, t, &InsertOptions::default());
    let syncs = k.inserted_syncs();
    if !syncs.is_empty() {
        let s = syncs[(pick % syncs.len() as u64) as usize];
        let blocks: Vec<_> = k.blocks.keys().collect();
        for b in blocks {
            k.blocks[b].stmts.retain(|&x| x != s);
        }
    }
    k
}

#[test]
fn merging_paths_never_hides_a_problem() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let (seeds, sizes): (u64, &[usize]) = if long {
        (200, &[20, 60, 150, 300, 600])
    } else {
        (16, &[20, 60, 150, 300])
    };
    let mut rng = Rng::new(7);
    let mut found = 0;
    let mut merged_more = 0;
    for &t in Target::GPUS {
        for seed in 0..seeds {
            for &ops in sizes {
                let k = without_one_sync(t, ops, seed, rng.next_u64());
                let exact = problems(&k, t, usize::MAX);
                for limit in [1, 12] {
                    let merged = problems(&k, t, limit);
                    let missed: Vec<_> = exact.difference(&merged).collect();
                    assert!(
                        missed.is_empty(),
                        "{t} ops {ops} seed {seed}, limit {limit}: merging hid {missed:#?}\n{}",
                        syncopt_ir::print_kernel(&k)
                    );
                    if merged.len() > exact.len() {
                        merged_more += 1;
                    }
                    // The other merge order, and what both orders agree on (what `verify`
                    // answers when problems stay on merged paths), are as sound.
                    use syncopt_verify::workgroup::{verify_both_orders, verify_inner_first};
                    for (how, got) in [
                        ("inner first", keys(verify_inner_first(&k, t, limit))),
                        ("both orders", keys(verify_both_orders(&k, t, limit))),
                    ] {
                        let missed: Vec<_> = exact.difference(&got).collect();
                        assert!(
                            missed.is_empty(),
                            "{t} ops {ops} seed {seed}, limit {limit}, {how}: merging hid {missed:#?}\n{}",
                            syncopt_ir::print_kernel(&k)
                        );
                    }
                }
                found += exact.len();
            }
        }
    }
    eprintln!("{found} problems, {merged_more} runs with more after merging");
    assert!(found > 20, "the campaign exercises problems ({found})");
    assert!(merged_more > 0, "the campaign exercises lossy merges");
}
