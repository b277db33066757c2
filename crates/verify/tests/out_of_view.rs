//! Word indices that leave their view or slot: an index with an unknown induction variable
//! touches the words it names for every value the loop gives the variable, past the end of
//! the view (into the next slot) if need be. The verifier took such an index as confined to
//! its view, and proved a kernel free of races that is not (the barrier pass's hazard
//! analysis, and the hardware, put those words in the next slot: gfx950 `gen --executable`
//! seed 43, where a needed barrier was reported removable).

use syncopt_targets::Target;

#[path = "support/problems.rs"]
mod support;

/// "b" writes slot `%i` at words `tid + 32 %i + 32`: with 256 threads (gfx950) the last
/// waves' words run past the slot into slot `%i + 1`, which "a" writes at words `tid` in the
/// same iteration. The barrier at the end of the body orders "b" before the next
/// iteration's "a" (which writes the slot "b" wrote); `barrier` adds one between them.
fn kernel(max: u32, barrier: bool, shift: u32) -> String {
    let bar = if barrier { "    barrier\n" } else { "" };
    format!(
        "target gfx950\n\nkernel @k(%n = 2) waves 4 {{\n  %D = buffer workgroup 2048\n  for %i = 0 to %n max {max} {{\n    %w = view %D slot (%i) mod 2\n    %r = view %D slot (%i + 1) mod 2\n    op \"a\" write %r[tid]\n{bar}    op \"b\" write %w[tid + %i * 32 + {shift}]\n    barrier\n  }}\n}}\n"
    )
}

#[test]
fn words_past_the_slot_meet_the_next_slot() {
    let p = support::problems_on(&kernel(4, false, 32), Target::Gfx950);
    assert!(p.iter().any(|m| m.contains("race (WAW)")), "{p:?}");
    // With a barrier between them the kernel is race free.
    let p = support::problems_on(&kernel(4, true, 32), Target::Gfx950);
    assert!(p.is_empty(), "{p:?}");
}

/// Words that stay in their slot (`tid`): "a" and "b" write different slots, no race.
#[test]
fn words_inside_the_slot_stay_apart() {
    let src = kernel(4, false, 0).replace("tid + %i * 32 + 0", "tid");
    let p = support::problems_on(&src, Target::Gfx950);
    assert!(p.is_empty(), "{p:?}");
}

/// An unknown variable the loop does not bound (a kernel parameter) may name any word: the
/// whole buffer.
#[test]
fn unbounded_index_is_the_whole_buffer() {
    let src = "target gfx950\n\nkernel @k(%n = 2, %p = 0) waves 4 {\n  %A = buffer workgroup 4096\n  op \"a\" write %A[tid + 512]\n  op \"b\" read %A[tid + %p]\n}\n";
    let p = support::problems_on(src, Target::Gfx950);
    assert!(p.iter().any(|m| m.contains("race (RAW)")), "{p:?}");
}

/// Through an `aliases` buffer: words past the end of a view reach the buffer's bytes after
/// it (they were taken as the view's bytes alone, and this race was missed). 256 threads,
/// words 400..655 of a view at byte 0: bytes 1600..2624, which meet `[2048:3072]`.
#[test]
fn words_past_a_view_of_an_aliasing_buffer() {
    let src = "target gfx950\n\nkernel @k(%n = 0) waves 4 {\n  %A0 = buffer workgroup 2048\n  %A1 = buffer workgroup 3072 aliases %A0\n  %v = view %A1[0:1024]\n  op \"st\" write %v[tid + 400]\n  op \"ld\" read %A1[2048:3072]\n}\n";
    let p = support::problems_on(src, Target::Gfx950);
    assert!(p.iter().any(|m| m.contains("race (RAW)")), "{p:?}");
    // Words 100..355 end at byte 1424: apart.
    let p = support::problems_on(&src.replace("tid + 400", "tid + 100"), Target::Gfx950);
    assert!(p.is_empty(), "{p:?}");
    // The threads' words bound the bytes of the whole buffer too: 12..1036 against the last
    // kilobyte.
    let whole = src.replace("%v[tid + 400]", "%A1[tid + 3]");
    let p = support::problems_on(&whole, Target::Gfx950);
    assert!(p.is_empty(), "{p:?}");
}
