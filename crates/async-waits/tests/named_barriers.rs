//! Named split barriers (`--named-barriers`, sm_90 and gfx1250): a `barrier.wait ID` publishes
//! what the last `barrier.signal ID` of the same id armed, not what a signal of another id
//! armed in between. The wait for an async copy must go before the signal whose wait publishes
//! it, whatever its id (regression: sm_90 --named-barriers seed 94 of crates/barriers' long
//! campaign put `cp_async.wait` before `barrier.signal 2` while `barrier.wait 1` published it).

mod common;
use common::check;

#[test]
fn sm90_wait_goes_before_the_signal_of_the_id_that_publishes() {
    check(
        "target sm_90\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n\
         op \"cp_async\" async write %A, read %G\n  cp_async.commit\n\
         barrier.signal 1\n  op \"st_shared\" write %B\n  barrier.signal 2\n\
         barrier.wait 1\n  op \"ld_shared\" read %A\n  barrier.wait 2\n\
         op \"ld_shared\" read %B\n}\n",
        &[
            "op \"cp_async\" async write %A, read %G",
            "cp_async.commit",
            "cp_async.wait 0",
            "barrier.signal 1",
            "op \"st_shared\" write %B",
            "barrier.signal 2",
            "barrier.wait 1",
            "op \"ld_shared\" read %A",
            "barrier.wait 2",
            "op \"ld_shared\" read %B",
            "}",
        ],
    );
}

#[test]
fn gfx1250_named_ids_interleaved_each_copy_waited_before_its_own_signal() {
    // %A is published by id 2 (signalled last), %B by id 1: each wait goes before the signal
    // of the id whose wait precedes the consumer, with the largest N there.
    check(
        "target gfx1250\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         op \"tensor_load\" async write %A\n  barrier.signal 1\n\
         op \"tensor_load\" async write %B\n  barrier.signal 2\n\
         barrier.wait 1\n  barrier.wait 2\n  op \"ds_read\" read %A\n  op \"ds_read\" read %B\n}\n",
        &[
            "op \"tensor_load\" async write %A",
            "barrier.signal 1",
            "op \"tensor_load\" async write %B",
            "wait tensorcnt(0)",
            "barrier.signal 2",
            "barrier.wait 1",
            "barrier.wait 2",
            "op \"ds_read\" read %A",
            "op \"ds_read\" read %B",
            "}",
        ],
    );
}

#[test]
fn sm90_seed94_pattern_published_through_id_1_across_a_signal_2() {
    // The shape of the failing campaign kernel: the copy into %B is armed by `signal 1`, a
    // `signal 2` follows before `wait 1`, and the consumer comes after `wait 1` only.
    check(
        "target sm_90\nkernel @k() {\n  %A = buffer workgroup 1024\n  %B = buffer workgroup 1024\n\
         %G = buffer global 4096\n\
         op \"cp_async\" async write %B, read %G\n  cp_async.commit\n  barrier.signal 1\n\
         op \"st_shared\" write %A\n  barrier.signal 2\n  barrier.wait 1\n\
         op \"cp_async\" async write %B, read %G\n  barrier.wait 2\n  op \"ld_shared\" read %A\n}\n",
        &[
            "op \"cp_async\" async write %B, read %G",
            "cp_async.commit",
            "cp_async.wait 0",
            "barrier.signal 1",
            "op \"st_shared\" write %A",
            "barrier.signal 2",
            "barrier.wait 1",
            "op \"cp_async\" async write %B, read %G",
            "barrier.wait 2",
            "op \"ld_shared\" read %A",
            "}",
        ],
    );
}

/// Generated kernels (the sizes of crates/barriers' campaign) through shared-barriers with
/// named ids and this pass: the verifier accepts every result. SYNCOPT_LONG=1 runs 400 seeds.
#[test]
fn generated_kernels_with_named_barriers_verify() {
    use syncopt_analysis::InsertOptions;
    use syncopt_gen::{generate, GenOptions};
    use syncopt_targets::Target;
    let seeds = if std::env::var("SYNCOPT_LONG").is_ok() {
        400
    } else {
        60
    };
    let opts = InsertOptions {
        named_barriers: true,
        ..InsertOptions::default()
    };
    let mut verified = 0;
    let mut failures = Vec::new();
    for seed in 0..seeds {
        for t in [Target::Sm90, Target::Gfx1250] {
            for ops in [3 + (seed % 12) as usize, 40] {
                let src = generate(&GenOptions {
                    ops,
                    seed,
                    target: t,
                    executable: false,
                });
                let Ok(file) = syncopt_ir::parse(&src) else {
                    continue;
                };
                let mut k = file.chunks[0].kernels[0].clone();
                let rb = syncopt_barriers::run(&mut k, t, &opts);
                if rb.has_errors() {
                    continue;
                }
                // Re-parse, as the pipeline hands the barriers' output on.
                let mut k = syncopt_ir::parse(&syncopt_ir::print_kernel(&k))
                    .expect("printed kernel parses")
                    .chunks[0]
                    .kernels[0]
                    .clone();
                let before = syncopt_verify::verify(&k, t);
                let r = syncopt_async_waits::run(&mut k, t, &opts);
                assert!(!r.has_errors(), "{t} seed {seed}: {:?}", r.diagnostics);
                let v = syncopt_verify::verify(&k, t);
                if v.is_ok() {
                    verified += 1;
                } else if before
                    .diagnostics
                    .iter()
                    .any(|d| !d.message.contains("async"))
                {
                    // Races of ordinary accesses (no barrier can order them): not ours.
                    continue;
                } else {
                    failures.push(format!(
                        "{t} ops {ops} seed {seed}:\n{}\n{:?}",
                        syncopt_ir::print_kernel(&k),
                        v.diagnostics.first()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(verified > seeds as usize, "{verified} verified");
}
