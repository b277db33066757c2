//! Replaying a recorded loop evaluation (same entry state, same waits inside the loop, same
//! pinned induction variables, decided conditions and handle frame) must not change what the
//! pass inserts or reports: on generated kernels of every GPU target, with and without
//! shared-barriers first, `run` and `run_unmemoized` print the same kernel and report the same
//! diagnostics (with their locations), hazard count and explanations. Without barriers the
//! "run shared-barriers first" warnings are compared too: a replay must make the unpublished
//! pairs its evaluation made, also those the analysis had already met. SYNCOPT_LONG=1 runs
//! more seeds and larger kernels.

mod common;

use common::generated_each;
use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_targets::Target;

fn summary(r: &PassReport) -> (Vec<String>, usize, Vec<String>) {
    let diags = r
        .diagnostics
        .iter()
        .map(|d| format!("{:?} {}", d.loc, d.message))
        .collect();
    let explain = r
        .explain
        .iter()
        .map(|e| format!("{:?} {:?}", e.stmt, e.covers))
        .collect();
    (diags, r.hazards, explain)
}

#[test]
fn replays_change_nothing() {
    let long = std::env::var("SYNCOPT_LONG").is_ok();
    let seeds: u64 = if long { 60 } else { 6 };
    let sizes: &[usize] = if long {
        &[300, 1500, 3000]
    } else {
        &[300, 900]
    };
    let targets = Target::GPUS;
    let mut compared = 0;
    let mut warned = 0;
    let mut bad = Vec::new();
    for (seed, ops, target, src) in generated_each(seeds, sizes, targets) {
        let Ok(file) = syncopt_ir::parse(&src) else {
            continue;
        };
        for m in file.chunks {
            for k in m.kernels {
                let opts = InsertOptions {
                    named_barriers: seed % 2 == 1,
                    ..InsertOptions::default()
                };
                let mut with_barriers = k.clone();
                if syncopt_barriers::run(&mut with_barriers, target, &opts).has_errors() {
                    continue;
                }
                // Without barriers the kernel is one segment (slow): the small size.
                let mut inputs = vec![("barriers", with_barriers)];
                if ops <= 300 {
                    inputs.push(("no barriers", k));
                }
                for (what, k) in inputs {
                    let (mut a, mut b) = (k.clone(), k);
                    let ra = syncopt_async_waits::run(&mut a, target, &opts);
                    let rb = syncopt_async_waits::run_unmemoized(&mut b, target, &opts);
                    compared += 1;
                    warned += usize::from(!rb.diagnostics.is_empty());
                    if syncopt_ir::print_kernel(&a) != syncopt_ir::print_kernel(&b)
                        || summary(&ra) != summary(&rb)
                    {
                        bad.push(format!("seed {seed}, {ops} ops, {target}, {what}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "replayed != evaluated: {}", bad.join(", "));
    assert!(compared >= 2 * seeds as usize * targets.len());
    // The comparison covers the warning path.
    assert!(warned > 0);
}

/// Plain gen seed 3905 at 100 ops (gfx942, gfx950, gfx1200), reduced: the first trip of the
/// outer loop is run with its variable pinned (a copy in flight at the entry may meet the slot
/// it picks), and the frame that pin made took id 0, the id of the empty frame with nothing
/// pinned. The inner loop's run in that first trip (no wait: `%v29` is the other slot there)
/// was then replayed in the later trips, where the copy into `%v18` meets the write of
/// `%v29`, and the output raced. The pinned frame has an id of its own now: replayed or
/// evaluated, the same output, and it verifies.
#[test]
fn a_run_under_a_pinned_variable_is_not_replayed_without_it() {
    let src = "target gfx950
kernel @k(%n = 0, %c = 1) waves 8 {
  %A1 = buffer workgroup 2048
  %G = buffer global 1048576
  op \"gather_to_lds\" async write %A1[512:1024], read %G
  %v18 = view %A1[1024:2048]
  %r22, %r23 = for %i19 = 0 to %n max 64 iter(%h20 = %v18, %h21 = %A1) {
    op \"gather_to_lds\" async write %h21, read %G
    op \"ds_read\" read %h20
    for %i24 = 0 to %n {
      if uniform %c {
        op \"v_exp\"
        for %i25 = 0 to %n min 1 max 16 iter(%h26 = %A1, %h27 = %v18) {
          op \"gather_to_lds\" async write %h27, read %G
          yield %h27, %h26
        }
      } else {
        op \"gather_to_lds\" async write %v18, read %G
        %v29 = view %A1 slot (%i19) mod 2
        op \"ds_write_b128\" write %v29
      }
    }
    yield %h21, %h20
  }
}
";
    for target in [Target::Gfx942, Target::Gfx950, Target::Gfx1200] {
        let src = src.replace("target gfx950", &format!("target {}", target.name()));
        let k = syncopt_ir::parse(&src).expect("parses").chunks[0].kernels[0].clone();
        let opts = InsertOptions::default();
        let mut with_barriers = k;
        syncopt_barriers::run(&mut with_barriers, target, &opts);
        let (mut a, mut b) = (with_barriers.clone(), with_barriers);
        syncopt_async_waits::run(&mut a, target, &opts);
        syncopt_async_waits::run_unmemoized(&mut b, target, &opts);
        let text = syncopt_ir::print_kernel(&a);
        assert_eq!(text, syncopt_ir::print_kernel(&b), "{target:?}");
        assert!(
            syncopt_verify::verify(&a, target).is_ok(),
            "{target:?}:\n{text}"
        );
    }
}
