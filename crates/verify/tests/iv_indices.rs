//! Word indices with the induction variable of a loop whose iteration value is unknown
//! (`for %i = 0 to %n`): the verifier keeps `%i` as a symbol, the same for every access of one
//! iteration, carried across the back edge (`%i` grows by the step) and dropped at the loop's
//! exit. Issue 4's executable campaign found the false alarms these fix (sm_90, seeds 245,
//! 404, 469, 521, 919, ...: all threads' words `tid + %i * 32 + c`). Each kernel that must
//! verify has a near variant with a real race that must not, and the interpreter
//! (`syncopt run`'s race check, lockstep schedule, `%n = 3`) confirms that race.

use syncopt_targets::Target;

fn parse(src: &str) -> syncopt_ir::File {
    syncopt_ir::parse(src).unwrap_or_else(|d| panic!("{d:?}\n{src}"))
}

fn problems_on(src: &str, t: Target) -> Vec<String> {
    let file = parse(src);
    let k = &file.chunks[0].kernels[0];
    syncopt_verify::verify(k, t)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let notes: Vec<&str> = d.notes.iter().map(|n| n.1.as_str()).collect();
            format!("{} [{}]", d.message, notes.join("; "))
        })
        .collect()
}

fn problems(src: &str) -> Vec<String> {
    problems_on(src, Target::Sm90)
}

/// Races the interpreter sees in its one (lockstep) execution.
fn interp_races(src: &str) -> usize {
    let file = parse(src);
    let k = &file.chunks[0].kernels[0];
    syncopt_interp::run_with_races(k, Target::Sm90)
        .expect("runs")
        .1
        .len()
}

/// sm_90, 4 warps of 32 threads, `%n = 3`.
fn kernel(body: &str) -> String {
    format!(
        "target sm_90\n\nkernel @k(%n = 3) waves 4 {{\n  %A = buffer workgroup 4096\n  %B = buffer workgroup 4096\n  %G = buffer global 16384\n{body}}}\n"
    )
}

fn assert_verifies(src: &str) {
    let p = problems(src);
    assert!(p.is_empty(), "{p:#?}\n{src}");
    assert_eq!(interp_races(src), 0, "{src}");
}

fn assert_race(src: &str, kind: &str) {
    let p = problems(src);
    assert!(
        p.iter().any(|m| m.contains(&format!("race ({kind})"))),
        "expected a {kind} race: {p:#?}\n{src}"
    );
}

/// Seeds 245/404: within one iteration of the outer loop `%i` is fixed, so each thread
/// rewrites (or reads back) its own word in the inner loop.
#[test]
fn the_outer_variable_is_fixed_within_one_iteration() {
    let waw = |idx: &str| {
        kernel(&format!(
            "  for %i = 0 to %n max 4 {{\n    barrier\n    for %j = 0 to 4 {{\n      op \"w\" write %A[{idx}]\n    }}\n  }}\n"
        ))
    };
    assert_verifies(&waw("tid + %i * 32 + 160"));
    // The word also moves with the inner (known) variable: thread t + 32 rewrites, one
    // inner trip later, the word thread t wrote, in another warp.
    let racy = waw("tid + %i * 32 + %j * 32");
    assert_race(&racy, "WAW");
    assert!(interp_races(&racy) > 0);

    let raw = |idx: &str| {
        kernel(&format!(
            "  for %i = 0 to %n max 4 {{\n    barrier\n    op \"w\" write %A[tid + %i * 32 + 160]\n    op \"r\" read %A[{idx}]\n  }}\n"
        ))
    };
    assert_verifies(&raw("tid + %i * 32 + 160"));
    let racy = raw("tid + %i * 32 + 192");
    assert_race(&racy, "RAW");
    assert!(interp_races(&racy) > 0);
}

/// Seeds 469/836/919: an access of iteration k and one of iteration k + 1 whose words agree
/// once `%i` has grown by the step touch each word from the same thread.
#[test]
fn the_next_iteration_sees_the_variable_grown_by_the_step() {
    let war = |idx: &str| {
        kernel(&format!(
            "  for %i = 0 to %n max 4 {{\n    op \"w\" write %A[tid + %i * 32]\n    barrier\n    op \"r\" read %A[{idx}]\n  }}\n"
        ))
    };
    // Read of iteration k: word t + 32k + 32; write of iteration k + 1: t' + 32k + 32.
    assert_verifies(&war("tid + %i * 32 + 32"));
    // One word further: thread t + 32 overwrites what thread t read, in another warp.
    let racy = war("tid + %i * 32 + 64");
    assert_race(&racy, "WAR");
    assert!(interp_races(&racy) > 0);
    // Or the word of this iteration: iteration k + 1's write of thread t - 32 meets it.
    assert_race(&war("tid + %i * 32"), "WAR");
}

/// The step matters: with step 2, `%i * 16` moves by 32 words per trip.
#[test]
fn the_shift_is_the_step_times_the_coefficient() {
    let src = |step: &str| {
        kernel(&format!(
            "  for %i = 0 to %n{step} max 4 {{\n    op \"w\" write %A[tid + %i * 16]\n    barrier\n    op \"r\" read %A[tid + %i * 16 + 32]\n  }}\n"
        ))
    };
    let stepped = src(" step 2");
    assert!(problems(&stepped).is_empty(), "{:#?}", problems(&stepped));
    // Step 1: the next write is 16 words on, thread t + 16 (another warp for t >= 16).
    assert_race(&src(""), "WAR");
}

/// Seed 521: an async copy rewrites its thread's words in the next inner trip, after a wait
/// for the previous copy (%i fixed inside the inner loop).
#[test]
fn an_async_copy_rewrites_its_own_words_after_a_wait() {
    let src = |wait: &str| {
        kernel(&format!(
            "  for %i = 0 to %n max 4 {{\n    for %j = 0 to %n max 4 {{\n{wait}      op \"cp\" async write %B[tid + %i * 32 + 32], read %G[tid + %j * 256]\n      cp_async.commit\n    }}\n    cp_async.wait 0\n    barrier\n  }}\n"
        ))
    };
    assert!(problems(&src("      cp_async.wait 0\n")).is_empty());
    // Without the wait the previous copy may still be in flight: the issuing thread itself
    // races with it.
    assert_race(&src(""), "WAW");
}

/// The symbol means "this run's value": once the loop exits, a later run of it (the next
/// iteration of an outer loop) starts `%i` afresh, and the last read of the previous run
/// (word t + 32(k + 1)) meets the first write of the next (word t'): another warp.
#[test]
fn a_later_run_of_the_loop_starts_the_variable_afresh() {
    let src = |after: &str| {
        kernel(&format!(
            "  for %j = 0 to %n max 4 {{\n    for %i = 0 to %n max 4 {{\n      op \"w\" write %A[tid + %i * 32]\n      barrier\n      op \"r\" read %A[tid + %i * 32 + 32]\n    }}\n{after}  }}\n"
        ))
    };
    assert_verifies(&src("    barrier\n"));
    let racy = src("");
    assert_race(&racy, "WAR");
    assert!(interp_races(&racy) > 0);
}

/// A record carried across more back edges than the verifier follows exactly loses its
/// ownership (sound): words `32 t + 7 k` of threads t and t' meet only 32 trips apart
/// (t - t' = 7, e.g. threads 37 and 30, two warps), and that race is found.
#[test]
fn a_race_many_iterations_apart_is_found() {
    let src = "target sm_90\n\nkernel @k(%n = 40) waves 4 {\n  %A = buffer workgroup 32768\n  for %i = 0 to %n {\n    op \"w\" write %A[tid * 32 + %i * 7]\n  }\n}\n";
    assert_race(src, "WAW");
    assert!(interp_races(src) > 0);
    // A stride of 128 words (the workgroup's threads): each word belongs to one thread at any
    // distance. With at most 3 trips no record is carried further than the verifier follows
    // exactly, so this verifies; with an unbounded trip count the relation is dropped after
    // a few trips (a sound false alarm, the price of a finite fixpoint).
    let apart = "target sm_90\n\nkernel @k(%n = 3) waves 4 {\n  %A = buffer workgroup 65536\n  for %i = 0 to %n max 3 {\n    op \"w\" write %A[tid + %i * 128]\n  }\n}\n";
    assert!(problems(apart).is_empty(), "{:#?}", problems(apart));
    assert_eq!(interp_races(apart), 0);
}

/// The same terms of `%i` on both sides cancel; different coefficients are compared
/// conservatively ("may touch any word"), and here the race is real.
#[test]
fn different_coefficients_are_compared_conservatively() {
    let src = |idx: &str| {
        kernel(&format!(
            "  for %i = 0 to %n max 4 {{\n    barrier\n    op \"w\" write %A[tid + %i * 32]\n    op \"r\" read %A[{idx}]\n  }}\n"
        ))
    };
    assert!(problems(&src("tid + %i * 32")).is_empty());
    // At %i = 1 thread t reads word t + 64, which thread t + 32 (another warp) wrote.
    let racy = src("tid + %i * 64");
    assert_race(&racy, "RAW");
    assert!(interp_races(&racy) > 0);
}

/// AMD wave64 too: the same kernel with 64-word strides.
#[test]
fn wave64_targets_keep_the_relation_too() {
    let src = |c: &str| {
        format!(
            "target gfx950\n\nkernel @k(%n = 3) waves 4 {{\n  %A = buffer workgroup 8192\n  for %i = 0 to %n max 4 {{\n    op \"w\" write %A[tid + %i * 64]\n    barrier\n    op \"r\" read %A[tid + %i * 64 + {c}]\n  }}\n}}\n"
        )
    };
    let ok = problems_on(&src("64"), Target::Gfx950);
    assert!(ok.is_empty(), "{ok:#?}");
    let racy = problems_on(&src("128"), Target::Gfx950);
    assert!(racy.iter().any(|m| m.contains("race (WAR)")), "{racy:#?}");
}
