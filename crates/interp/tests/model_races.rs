//! The execution model against the static analysis: generated executable kernels (`gen
//! --executable --ops 20 --seed S`, sm_90) after `insert` (the default pipeline, default
//! options, as `syncopt insert`):
//! - with every inserted barrier kept, no parameter set races and the checksums are
//!   deterministic (seeds 0..99);
//! - the removals that the GPU run of 2026-11-22 (docs/GPU-VALIDATION.md) could not show
//!   because cooperative patterns did not depend on the iteration and had only `waves`
//!   rotations are races of the model now (on that run's insert output, frozen in
//!   tests/data/gen_S.ins.sk: the inserter may place its barriers elsewhere today).

use syncopt_gen::{generate, GenOptions};
use syncopt_targets::Target;

/// The parameter sets scripts/gpu-check runs a generated kernel with (None: its defaults).
const PARAMS: [Option<(i64, i64)>; 5] =
    [None, Some((0, 0)), Some((1, 1)), Some((3, 0)), Some((4, 1))];

/// `syncopt gen --executable --ops 20 --seed S`, then `syncopt insert`, printed.
fn inserted(seed: u64) -> String {
    let text = generate(&GenOptions {
        ops: 20,
        seed,
        target: Target::Sm90,
        executable: true,
    });
    let mut file = syncopt_ir::parse(&text).unwrap_or_else(|d| panic!("seed {seed}: {d:?}"));
    for m in &mut file.chunks {
        for k in &mut m.kernels {
            let t = Target::Sm90;
            let rep = syncopt_passes::run_pipeline(
                k,
                t,
                &syncopt_passes::default_pipeline(t),
                &syncopt_passes::InsertOptions::default(),
            );
            assert!(!rep.has_errors(), "seed {seed}: {:?}", rep.diagnostics);
        }
    }
    syncopt_ir::print_file(&file)
}

/// The frozen insert output of seed `seed` (tests/data/gen_S.ins.sk): the removals below are
/// barriers of the insert output the GPU ran, which later inserters may place elsewhere.
fn frozen(seed: u64) -> String {
    let path = format!(
        "{}/tests/data/gen_{seed}.ins.sk",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The kernel with `%n` and `%p` defaulting to `n` and `p` (how gpu-check runs `syncopt run`
/// with a parameter set).
fn with_params(text: &str, params: Option<(i64, i64)>) -> String {
    let Some((n, p)) = params else {
        return text.to_string();
    };
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("kernel @") {
            let (head, rest) = line.split_once('(').expect("parameter list");
            let (_, tail) = rest.split_once(')').expect("parameter list");
            assert!(
                rest.starts_with("%n = ") && rest.contains(", %p = "),
                "{line}"
            );
            out.push_str(&format!("{head}(%n = {n}, %p = {p}){tail}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Checksums and races of one run.
fn run(text: &str) -> (Vec<u64>, Vec<String>) {
    let file = syncopt_ir::parse(text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
    let k = &file.chunks[0].kernels[0];
    syncopt_interp::run_with_races(k, Target::Sm90).unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

/// Removes the barrier on the line right before the first line that starts (after its
/// indentation) with `next`; returns the new text and the 1-based line of the barrier.
fn remove_barrier_before(text: &str, next: &str) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(next))
        .unwrap_or_else(|| panic!("no line starting with {next}:\n{text}"));
    assert!(
        at > 0 && lines[at - 1].trim() == "barrier",
        "no barrier before {next}:\n{text}"
    );
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i + 1 != at {
            out.push_str(l);
            out.push('\n');
        }
    }
    (out, at)
}

/// The parameter sets (indices into PARAMS) whose run of `text` races.
fn racing_sets(text: &str) -> Vec<usize> {
    (0..PARAMS.len())
        .filter(|&i| !run(&with_params(text, PARAMS[i])).1.is_empty())
        .collect()
}

/// Removing the barrier before `next` in seed `seed`'s insert output races in the model, and
/// in parameter set `expect` among others; the output itself races in none.
fn removal_races(seed: u64, next: &str, expect: usize) {
    let text = frozen(seed);
    assert_eq!(
        racing_sets(&text),
        Vec::<usize>::new(),
        "seed {seed}:\n{text}"
    );
    let (removed, line) = remove_barrier_before(&text, next);
    let sets = racing_sets(&removed);
    assert!(
        sets.contains(&expect),
        "seed {seed}: removing the barrier at line {line} races in sets {sets:?}, expected {expect}:\n{text}"
    );
}

#[test]
fn gen_34_whole_buffer_write_next_iteration() {
    // Line 15 of the 06:29 run's insert output: `barrier` before `ld_3`. Without it
    // `ds_write_4 write %B` (op ordinal 3: ordinals count from 0) of outer iterations 0 and
    // 1 meet when the inner loop runs zero times (n = 0): steps 3 and 4 rotate by 56 and 72
    // words (T = 128, 8 rotations), so in iteration 1 lanes 16..31 of warp w overwrite the
    // words that lanes 0..15 of warp w + 1 wrote in iteration 0.
    removal_races(34, "op \"ld_3\"", 1);
}

#[test]
fn gen_96_whole_buffer_write_same_slot_later() {
    // Line 23: `barrier` before `ds_write_9 write %w1` (ordinal 8), 8 warps: the same slot
    // two outer iterations later, steps 8 + i and 8 + i + 2: rotations 32 words (a warp)
    // apart (16 rotations), so every word's two writers are in different warps.
    removal_races(96, "op \"ds_write_9\"", 3);
}

#[test]
fn gen_27_two_ops_with_two_warps() {
    // Line 12: `barrier` between `ds_write_1 write %B` and `ds_write_3 write %B` (ordinals 0
    // and 2), 2 warps: steps 0 and 2 rotate by 8 and 40 (4 rotations; the old model had 2,
    // `ordinal mod 2`, and the two ops shared one), so each word's two writers are 32 threads
    // apart: different warps.
    removal_races(27, "op \"ds_write_3\"", 0);
}

#[test]
fn gen_93_reversed_read_crosses_warps_with_two_warps() {
    // Line 32: `barrier` before the loop whose `st_10 write %nxt3[tid]` follows the
    // cooperative read `ds_read_8 read %cur2` of the same words (2 warps): the reversal
    // (47 - t) mod 64 sends lanes 0..15 of each warp to the other warp's words (the old one,
    // (31 - t) mod 64, kept every warp on its own words).
    removal_races(93, "for %i3", 0);
}

#[test]
fn gen_16_is_no_race_while_both_loops_share_n() {
    // Line 14: `barrier` before `ds_write_2 write %r1` in the outer loop `%i1 = 0 to %n`.
    // verify's WAW path needs the inner loop `%i2 = 0 to %n` (whose body has a barrier) to run
    // zero times while the outer loop runs twice: impossible, both run %n times. So no
    // execution races, whatever the model (the analysis does not relate the two trip
    // counts). With the inner loop's bound made 0, the model shows the race: ds_write_2
    // (ordinal 1) of iterations 0 and 2 (same slot) rotate by 24 and 56 words (steps 1 and 3,
    // 8 rotations with 4 warps): a warp apart.
    let text = frozen(16);
    let (removed, _) = remove_barrier_before(&text, "op \"ds_write_2\"");
    assert_eq!(racing_sets(&removed), Vec::<usize>::new(), "{removed}");
    let inner = "for %i2 = 0 to %n max 4";
    assert!(removed.contains(inner), "{removed}");
    let decoupled = removed.replacen(inner, "for %i2 = 0 to 0", 1);
    let races = run(&decoupled).1;
    assert!(
        races
            .iter()
            .any(|r| r.starts_with("WAW") && r.contains("ds_write_2")),
        "{races:?}"
    );
    let kept = text.replacen(inner, "for %i2 = 0 to 0", 1);
    assert!(run(&kept).1.is_empty());
}

fn seeds_race_free_and_deterministic(seeds: std::ops::Range<u64>, all_params: bool) {
    let mut runs = 0;
    for seed in seeds {
        let text = inserted(seed);
        for (i, &p) in PARAMS.iter().enumerate() {
            if !all_params && i > 0 {
                break;
            }
            let k = with_params(&text, p);
            let (a, races) = run(&k);
            assert!(races.is_empty(), "seed {seed} params {p:?}: {races:?}\n{k}");
            assert_eq!(a, run(&k).0, "seed {seed} params {p:?}");
            runs += 1;
        }
    }
    assert!(runs > 0);
}

#[test]
fn inserted_seeds_0_to_99_do_not_race() {
    seeds_race_free_and_deterministic(0..100, true);
}

/// Seeds 100..999, every parameter set (`cargo test -p syncopt-interp --test model_races --
/// --ignored`).
#[test]
#[ignore]
fn inserted_seeds_100_to_999_do_not_race() {
    seeds_race_free_and_deterministic(100..1000, true);
}

/// Every inserted barrier of seeds 0..99 removed in turn: each removal races in the model in
/// some parameter set, or `verify` proves the kernel race-free without the barrier (a
/// redundant barrier), or it is `gen_16` line 14 (see `gen_16_is_no_race_while_both_loops_
/// share_n`). Prints the counts (for docs/GPU-VALIDATION.md; `-- --ignored --nocapture`).
/// Ignored by default: the insert output, and so the lines, follow crates/barriers.
#[test]
#[ignore]
fn removals_of_seeds_0_to_99() {
    let (mut total, mut shown) = (0, 0);
    let mut redundant = Vec::new();
    let mut silent = Vec::new();
    for seed in 0..100u64 {
        let text = inserted(seed);
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if !l.trim_start().starts_with("barrier") {
                continue;
            }
            total += 1;
            let mut removed = String::new();
            for (j, m) in lines.iter().enumerate() {
                if j != i {
                    removed.push_str(m);
                    removed.push('\n');
                }
            }
            let name = format!("gen_{seed} {}", i + 1);
            if !racing_sets(&removed).is_empty() {
                shown += 1;
                continue;
            }
            let file = syncopt_ir::parse(&removed).expect("parses");
            if syncopt_verify::verify(&file.chunks[0].kernels[0], Target::Sm90).is_ok() {
                redundant.push(name);
            } else {
                silent.push(name);
            }
        }
    }
    println!(
        "removals: {total}, race in the model: {shown}, redundant: {}, neither: {}",
        redundant.len(),
        silent.len()
    );
    println!("redundant: {}", redundant.join(", "));
    println!("neither: {}", silent.join(", "));
    assert!(
        silent.iter().all(|s| s == "gen_16 14"),
        "removals neither racing nor redundant: {silent:?}"
    );
}
