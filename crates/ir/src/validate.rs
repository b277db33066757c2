//! Target-independent well-formedness: byte ranges inside their buffers, and no workgroup
//! barrier in divergent control flow (a hang: semantics.md 4.1).

use crate::diag::Diagnostic;
use crate::kernel::*;
use crate::vocab::Uniformity;

pub fn validate(k: &Kernel) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for b in k.buffers.values() {
        if let Placement::At { base, offset } = b.placement {
            if let Some(size) = k.static_size(base) {
                if offset.saturating_add(b.size) > size {
                    diags.push(Diagnostic::error(
                        k.values[b.value].loc,
                        format!(
                            "'%{}' is placed at bytes [{offset}:{}] of '%{}', which has only {size} bytes",
                            k.values[b.value].name,
                            offset.saturating_add(b.size),
                            k.values[base].name
                        ),
                    ));
                }
            }
        }
    }
    for v in k.views.values() {
        let name = &k.values[v.value].name;
        let loc = k.values[v.value].loc;
        match &v.kind {
            ViewKind::Range { hi, .. } => {
                if let Some(size) = k.static_size(v.base) {
                    if *hi > size {
                        diags.push(Diagnostic::error(
                            loc,
                            format!(
                                "view '%{name}' ends at byte {hi}, past the {size} bytes of '%{}'",
                                k.values[v.base].name
                            ),
                        ));
                    }
                }
            }
            ViewKind::Slot { count, .. } => {
                if let Some(size) = k.static_size(v.base) {
                    if size % *count as u64 != 0 {
                        diags.push(Diagnostic::error(
                            loc,
                            format!("view '%{name}' cuts {size} bytes into {count} slots, which do not divide evenly"),
                        ));
                    }
                }
            }
        }
    }
    check_effect_ranges(k, &mut diags);
    check_divergent_barriers(k, k.body, None, &mut diags);
    diags
}

fn check_effect_ranges(k: &Kernel, diags: &mut Vec<Diagnostic>) {
    k.walk(&mut |_, d| {
        if let StmtKind::Op(op) = &d.kind {
            for e in &op.effects {
                if let Selector::Bytes { hi, .. } = e.mem.sel {
                    if let Some(size) = k.static_size(e.mem.value) {
                        if hi > size {
                            diags.push(Diagnostic::error(
                                e.loc,
                                format!(
                                    "access ends at byte {hi}, past the {size} bytes of '%{}'",
                                    k.values[e.mem.value].name
                                ),
                            ));
                        }
                    }
                }
            }
        }
    });
}

/// Reports every workgroup barrier under a divergent `if`, naming the `if`.
fn check_divergent_barriers(
    k: &Kernel,
    b: BlockId,
    divergent_if: Option<Option<Loc>>,
    diags: &mut Vec<Diagnostic>,
) {
    for &s in &k.blocks[b].stmts {
        let d = &k.stmts[s];
        match &d.kind {
            StmtKind::Sync(op) if op.is_workgroup_barrier() => {
                if let Some(if_loc) = divergent_if {
                    diags.push(
                        Diagnostic::error(
                            d.loc,
                            "barrier inside divergent control flow: waves that skip it never arrive, and the workgroup deadlocks",
                        )
                        .with_note(if_loc, "the divergent condition is here; make it uniform or move the barrier out"),
                    );
                }
            }
            StmtKind::If(i) => {
                let inner = if i.uniformity == Uniformity::Divergent && divergent_if.is_none() {
                    Some(d.loc)
                } else {
                    divergent_if
                };
                for c in d.kind.child_blocks() {
                    check_divergent_barriers(k, c, inner, diags);
                }
            }
            _ => {
                for c in d.kind.child_blocks() {
                    check_divergent_barriers(k, c, divergent_if, diags);
                }
            }
        }
    }
}
