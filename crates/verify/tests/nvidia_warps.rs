//! NVIDIA warps are not lockstep (independent thread scheduling since Volta; on the H100,
//! racecheck reports a pair of accesses of two threads of one warp, docs/GPU-VALIDATION.md):
//! there only a thread's own accesses are ordered without a barrier. AMD waves are lockstep:
//! pairs within one wave need none.

use syncopt_targets::Target;

#[path = "support/problems.rs"]
mod support;
use support::problems_on as problems;

/// Thread `t` writes word `31 - t` and reads word `t`: every pair lies within one warp of 32
/// (and one AMD wave of 32 or 64).
const MIRROR_IN_WARP: &str = "kernel @m waves 4 {\n  %B = buffer workgroup 1024\n  op \"st\" write %B[-tid + 31]\n  op \"ld\" read %B[tid]\n}\n";

#[test]
fn pairs_within_one_warp_race_on_nvidia() {
    for t in [Target::Sm80, Target::Sm90] {
        let p = problems(MIRROR_IN_WARP, t);
        assert!(p.iter().any(|m| m.contains("race (RAW)")), "{t:?}: {p:?}");
        assert!(
            p.iter().any(|m| m.contains("warps are not lockstep")),
            "{t:?}: {p:?}"
        );
        let fixed = MIRROR_IN_WARP.replace("  op \"ld\"", "  barrier\n  op \"ld\"");
        assert!(problems(&fixed, t).is_empty(), "{t:?}");
    }
}

#[test]
fn pairs_within_one_wave_are_ordered_on_amd() {
    for t in [
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1250,
    ] {
        assert!(problems(MIRROR_IN_WARP, t).is_empty(), "{t:?}");
    }
    // Words 63 - t: pairs cross 32-wide waves (gfx12) but stay in 64-wide ones (gfx9).
    let wide = MIRROR_IN_WARP.replace("-tid + 31", "-tid + 63");
    assert!(problems(&wide, Target::Gfx942).is_empty());
    assert!(!problems(&wide, Target::Gfx1200).is_empty());
}

/// A thread's own word, written then read: ordered on every target.
#[test]
fn own_words_need_no_barrier_anywhere() {
    let own = MIRROR_IN_WARP.replace("-tid + 31", "tid");
    for &t in Target::GPUS {
        assert!(problems(&own, t).is_empty(), "{t:?}");
    }
}

/// One warp on NVIDIA: its 32 threads still race with each other on a cooperative buffer.
#[test]
fn one_warp_workgroup_still_races_on_nvidia() {
    let src = "kernel @m waves 1 {\n  %B = buffer workgroup 1024\n  op \"st\" write %B\n  op \"ld\" read %B\n}\n";
    assert!(!problems(src, Target::Sm90).is_empty());
    assert!(problems(src, Target::Gfx942).is_empty());
}
