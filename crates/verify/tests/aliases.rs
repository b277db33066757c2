//! `aliases` says where a buffer may sit, not that its own bytes overlap each other: accesses
//! through one aliasing buffer compare their byte ranges exactly, while accesses through
//! different names of the same memory may overlap anywhere.

use syncopt_targets::Target;

#[path = "support/problems.rs"]
mod support;

fn problems(src: &str) -> Vec<String> {
    support::problems_on(src, Target::Gfx950)
}

#[test]
fn disjoint_ranges_of_one_aliasing_buffer_do_not_race() {
    // Found by `syncopt gen | syncopt insert --verify`: a false race on disjoint bytes.
    let p = problems(
        "kernel @k {\n  %A0 = buffer workgroup 3072\n  %A1 = buffer workgroup 3072 aliases %A0\n  %G = buffer global 1048576\n  op \"gather_to_lds\" async write %A1[2304:2688], read %G\n  for %i = 0 to 2 {\n    op \"ds_read\" read %A1[768:2304]\n  }\n}\n",
    );
    assert!(p.is_empty(), "{p:?}");
}

#[test]
fn views_of_one_aliasing_buffer_compare_exactly() {
    let p = problems(
        "kernel @k {\n  %A0 = buffer workgroup 3072\n  %A1 = buffer workgroup 3072 aliases %A0\n  %lo = view %A1[0:1024]\n  %hi = view %A1[1024:2048]\n  op \"w\" write %lo\n  op \"r\" read %hi\n  op \"r\" read %lo[0:16]\n}\n",
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("race (RAW)"), "{p:?}");
    assert!(
        p[0].contains("8:"),
        "the race is with the read of %lo at line 8: {p:?}"
    );
}

#[test]
fn the_aliased_buffer_and_its_alias_may_overlap_anywhere() {
    let p = problems(
        "kernel @k {\n  %A0 = buffer workgroup 3072\n  %A1 = buffer workgroup 3072 aliases %A0\n  op \"w\" write %A0[2048:3072]\n  op \"r\" read %A1[0:16]\n}\n",
    );
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("race (RAW)"), "{p:?}");
}
