//! `syncopt check`: everything the parser cannot see that makes a kernel invalid for a target.

use syncopt_ir::{validate, Diagnostic, Kernel, Space, StmtKind};

use crate::{supports, Family, Target};

/// Target-independent checks (from `syncopt_ir::validate`) plus the target's own.
pub fn check_kernel(kernel: &Kernel, target: Target) -> Vec<Diagnostic> {
    let info = target.info();
    // The statement checks below run in the same walk as the IR's own (one pass over a
    // large kernel instead of two); their diagnostics still come last.
    let mut stmt_diags = Vec::new();
    let mut stage_reported = false;
    let mut diags = validate::validate_with(kernel, &mut |_, data| match &data.kind {
        StmtKind::Sync(op) => {
            if let Err(why) = supports(target, op) {
                stmt_diags.push(Diagnostic::error(data.loc, why));
            }
        }
        StmtKind::Op(op) => {
            if info.family == Family::Ascend {
                if op.asynchronous.is_some() {
                    stmt_diags.push(Diagnostic::error(data.loc, format!("async ops do not exist on {}: every pipe op is asynchronous to the others", info.name)));
                }
                if target.pipe_of(kernel, op).is_none() {
                    stmt_diags.push(Diagnostic::error(
                        data.loc,
                        format!("cannot tell which pipe op \"{}\" runs on; add 'pipe P' (one of S, V, M, MTE1, MTE2, MTE3, FIX)", op.name),
                    ));
                }
                if op.pipe == Some(syncopt_ir::Pipe::All) {
                    stmt_diags.push(Diagnostic::error(
                        data.loc,
                        "an op runs on one pipe, not ALL",
                    ));
                }
            } else {
                if op.pipe.is_some() {
                    stmt_diags.push(Diagnostic::error(
                        data.loc,
                        format!("'pipe' is for Ascend ops; {} has no pipes", info.name),
                    ));
                }
                if let Some(spec) = op.asynchronous {
                    match target.async_counter(spec, &op.name) {
                        Some(c) if target.counter_max(c).is_some() => {}
                        Some(c) => stmt_diags.push(Diagnostic::error(
                            data.loc,
                            format!("{} has no {c} counter", info.name),
                        )),
                        None => stmt_diags.push(Diagnostic::error(
                            data.loc,
                            format!("{} has no async copies", info.name),
                        )),
                    }
                }
            }
        }
        StmtKind::Stage(_) | StmtKind::StageEnd if !info.warp_pipeline && !stage_reported => {
            // Without this, the stages would be left unsynchronized: the warp-pipeline pass
            // does not run on the target and the barrier pass leaves stage loops alone.
            stage_reported = true;
            stmt_diags.push(Diagnostic::error(
                data.loc,
                format!(
                    "warp-pipeline stages are not supported on {}: only gfx942, gfx950 and gfx1250 run warp pipelines",
                    info.name
                ),
            ));
        }
        _ => {}
    });
    let threads = target.waves(kernel) as u64 * info.wave_size as u64;
    if info.family != Family::Ascend && threads > 1024 {
        diags.push(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "{} waves of {} threads is {threads} threads, over the 1024 a workgroup can hold",
                target.waves(kernel),
                info.wave_size
            ),
        ));
    }
    let mut lds = 0u64;
    for b in kernel.buffers.values() {
        let loc = kernel.values[b.value].loc;
        let ok = match info.family {
            Family::Ascend => b.space.is_ascend(),
            _ => !b.space.is_ascend(),
        };
        if !ok {
            diags.push(Diagnostic::error(
                loc,
                format!("memory space '{}' does not exist on {}", b.space, info.name),
            ));
        }
        if b.space == Space::Workgroup && matches!(b.placement, syncopt_ir::Placement::Own) {
            lds += b.size;
        }
    }
    if info.workgroup_bytes > 0 && lds > info.workgroup_bytes {
        diags.push(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "workgroup buffers take {lds} bytes, over the {} bytes of {}",
                info.workgroup_bytes, info.name
            ),
        ));
    }
    diags.append(&mut stmt_diags);
    diags
}
