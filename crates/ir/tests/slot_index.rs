//! `Kernel::slot_index`: the terms of a slot index that never move the slot fold into its
//! constant, the others stay.

use syncopt_ir::{parse, ViewKind};

/// The slot indices of the kernel's slot views, folded, as (terms left, constant).
fn folded(src: &str) -> Vec<(usize, i64)> {
    let k = &parse(src).expect("kernel parses").chunks[0].kernels[0];
    k.views
        .values()
        .filter_map(|v| match &v.kind {
            ViewKind::Slot { count, index } => {
                let f = k.slot_index(index, *count);
                Some((f.terms.len(), f.constant))
            }
            ViewKind::Range { .. } => None,
        })
        .collect()
}

fn kernel(lo: i64, step: i64, index: &str, count: u32) -> String {
    format!(
        "target gfx950\nkernel @k(%n = 3) {{\n  %A = buffer workgroup 4096\n  \
         for %i = {lo} to 64 step {step} {{\n    %v = view %A slot ({index}) mod {count}\n    \
         op \"ds_read\" read %v\n  }}\n}}\n"
    )
}

#[test]
fn a_step_that_is_a_multiple_of_the_count_fixes_the_slot() {
    assert_eq!(folded(&kernel(0, 4, "%i + 1", 2)), vec![(0, 1)]);
    assert_eq!(folded(&kernel(1, 4, "%i + 1", 2)), vec![(0, 0)]);
    assert_eq!(folded(&kernel(0, 3, "2 * %i + 5", 3)), vec![(0, 2)]);
    // Negative constants reduce into 0..count.
    assert_eq!(folded(&kernel(0, 4, "%i - 3", 4)), vec![(0, 1)]);
}

#[test]
fn a_step_that_moves_the_slot_keeps_the_term() {
    assert_eq!(folded(&kernel(0, 1, "%i + 1", 2)), vec![(1, 1)]);
    assert_eq!(folded(&kernel(0, 2, "%i", 4)), vec![(1, 0)]);
}

#[test]
fn an_unknown_start_keeps_the_term() {
    let src = kernel(0, 4, "%i + 1", 2).replace("for %i = 0 to", "for %i = %n to");
    assert_eq!(folded(&src), vec![(1, 1)]);
}
