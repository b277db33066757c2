//! `if divergent tid CMP C` says which threads run each branch: accesses inside it are only
//! made by those threads. The tree-reduction step (threads below 128 read their partner at
//! `tid + 128` and write their own word) is race-free; widen the condition and it is not.

use syncopt_targets::Target;

#[path = "support/problems.rs"]
mod support;

fn problems(src: &str) -> Vec<String> {
    support::problems_on(src, Target::Gfx942)
}

fn reduction_step(cond: &str) -> String {
    format!(
        "kernel @r waves 4 {{\n  %S = buffer workgroup 1024\n  op \"w\" write %S[tid]\n  barrier\n  if divergent {cond} {{\n    op \"r\" read %S[tid + 128]\n    op \"w\" write %S[tid]\n  }}\n}}\n"
    )
}

#[test]
fn only_the_threads_of_the_branch_access() {
    assert!(problems(&reduction_step("tid < 128")).is_empty());
    // Threads 128..191 now write words their partners 0..63 read.
    let p = problems(&reduction_step("tid < 192"));
    assert!(p.iter().any(|m| m.contains("race (WAR)")), "{p:?}");
    // The same condition spelled from the other side.
    assert!(problems(&reduction_step("tid <= 127")).is_empty());
}

#[test]
fn the_else_branch_runs_on_the_other_threads() {
    // Threads >= 128 run the else branch and write words 128..255, which the then branch
    // (threads < 128) reads: a cross-branch race between waves.
    let src = "kernel @r waves 4 {\n  %S = buffer workgroup 1024\n  if divergent tid < 128 {\n    op \"r\" read %S[tid + 128]\n  } else {\n    op \"w\" write %S[tid]\n  }\n}\n";
    let p = problems(src);
    assert!(p.iter().any(|m| m.contains("race (WAR)")), "{p:?}");
    // Written in place by the thread that owns the word: no race.
    let src = "kernel @r waves 4 {\n  %S = buffer workgroup 1024\n  if divergent tid < 128 {\n    op \"r\" read %S[tid]\n  } else {\n    op \"w\" write %S[tid]\n  }\n}\n";
    assert!(problems(src).is_empty());
}

#[test]
fn a_branch_run_by_one_wave_has_no_cross_wave_race() {
    // wave64: threads 0..63 are wave 0 alone; whole-buffer accesses inside stay in one wave.
    let one = "kernel @r waves 4 {\n  %S = buffer workgroup 1024\n  if divergent tid < 64 {\n    op \"r\" read %S\n    op \"w\" write %S\n  }\n}\n";
    assert!(problems(one).is_empty());
    let two = one.replace("tid < 64", "tid < 65");
    let p = problems(&two);
    assert!(p.iter().any(|m| m.contains("race (WAR)")), "{p:?}");
}

#[test]
fn conditions_not_on_the_thread_id_restrict_nothing() {
    let src = "kernel @r(%c) waves 4 {\n  %S = buffer workgroup 1024\n  if divergent %c < 64 {\n    op \"r\" read %S\n    op \"w\" write %S\n  }\n}\n";
    let p = problems(src);
    assert!(p.iter().any(|m| m.contains("race (WAR)")), "{p:?}");
}
