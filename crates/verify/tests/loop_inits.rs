//! A loop's `iter` inits are bound at its entry from the enclosing loops' induction
//! variables (`iter(%cur = %r)`, `%r` a slot view over `%i3`): the verifier's memo of loop
//! runs must tell those entries apart. Keyed by the body's variables only, the run of
//! iteration 0 was reused in later iterations with the slot of iteration 0: a false race on
//! the `gen --executable --ops 60 --seed 799` insert output (sm_80, sm_90), and a real race
//! missed (the interpreter sees it).

use syncopt_targets::Target;

#[path = "support/problems.rs"]
mod support;

fn problems(src: &str) -> Vec<String> {
    support::problems_on(src, Target::Sm90)
}

fn kernel(trips: u32, before_barrier: &str) -> String {
    format!(
        "target sm_90\n\nkernel @k(%n = 1) waves 2 {{\n  %C = buffer workgroup 512\n  %D = buffer workgroup 1024\n  for %i3 = 0 to {trips} {{\n    %w3 = view %D slot (%i3) mod 2\n    %r3 = view %D slot (%i3 + 1) mod 2\n{before_barrier}    barrier\n    for %i4 = 0 to 2 iter(%cur4 = %r3, %nxt4 = %C) {{\n      op \"st\" write %cur4[tid + 64]\n      yield %nxt4, %cur4\n    }}\n  }}\n}}\n"
    )
}

/// `st` of iteration k writes slot k + 1; the next iteration reads slot k + 2 = k: apart.
#[test]
fn inner_loop_handle_takes_each_iterations_slot() {
    let read_next = "    op \"rd\" read %r3[256:512]\n";
    for trips in [2, 3, 4, 8] {
        assert!(problems(&kernel(trips, read_next)).is_empty(), "{trips}");
    }
}

/// Iteration 2 reads slot 0, which `st` of iteration 1 wrote with no barrier in between.
#[test]
fn race_in_a_later_iteration_is_found() {
    let read_own = "    if uniform %i3 == 2 {\n      op \"rd\" read %w3[256:512]\n    }\n";
    let p = problems(&kernel(4, read_own));
    assert!(p.iter().any(|m| m.contains("race (RAW)")), "{p:?}");
    // With 2 iterations the branch never runs.
    assert!(problems(&kernel(2, read_own)).is_empty());
}
