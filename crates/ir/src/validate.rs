//! Target-independent well-formedness: byte ranges inside their buffers, and no workgroup
//! barrier in divergent control flow (a hang: semantics.md 4.1).

use crate::diag::Diagnostic;
use crate::kernel::*;
use crate::vocab::Uniformity;

pub fn validate(k: &Kernel) -> Vec<Diagnostic> {
    validate_with(k, &mut |_, _| {})
}

/// [`validate`], also calling `visit` on every statement reachable from the body in program
/// (pre-)order, as [`Kernel::walk`] does: a caller with checks of its own walks a large
/// kernel once instead of twice.
pub fn validate_with(k: &Kernel, visit: &mut impl FnMut(StmtId, &StmtData)) -> Vec<Diagnostic> {
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
    // One walk for both statement checks (a kernel can have a million statements); each
    // check's diagnostics stay together, in program order, effect ranges first.
    let mut barriers = Vec::new();
    check_block(k, k.body, None, &mut diags, &mut barriers, visit);
    diags.append(&mut barriers);
    diags
}

/// Checks the statements of `b` and everything nested in them: effects that end past their
/// buffer go to `ranges`, workgroup barriers under a divergent `if` (naming the `if`) to
/// `barriers`.
fn check_block(
    k: &Kernel,
    b: BlockId,
    divergent_if: Option<Option<Loc>>,
    ranges: &mut Vec<Diagnostic>,
    barriers: &mut Vec<Diagnostic>,
    visit: &mut impl FnMut(StmtId, &StmtData),
) {
    for &s in &k.blocks[b].stmts {
        let d = &k.stmts[s];
        visit(s, d);
        let mut inner = divergent_if;
        match &d.kind {
            StmtKind::Op(op) => check_effect_ranges(k, op, ranges),
            StmtKind::Sync(op) if op.is_workgroup_barrier() => {
                if let Some(if_loc) = divergent_if {
                    barriers.push(
                        Diagnostic::error(
                            d.loc,
                            "barrier inside divergent control flow: waves that skip it never arrive, and the workgroup deadlocks",
                        )
                        .with_note(if_loc, "the divergent condition is here; make it uniform or move the barrier out"),
                    );
                }
            }
            StmtKind::If(i) if i.uniformity == Uniformity::Divergent && divergent_if.is_none() => {
                inner = Some(d.loc);
            }
            _ => {}
        }
        for c in d.kind.child_block_ids() {
            check_block(k, c, inner, ranges, barriers, visit);
        }
    }
}

fn check_effect_ranges(k: &Kernel, op: &OpData, diags: &mut Vec<Diagnostic>) {
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
