//! How each sync op is written on each target: the MLIR op (AMD: `amdgpu`/`rocdl` dialects),
//! the PTX instruction (NVIDIA) or the Ascend C call. Used by `--explain`, `emit` and docs.

use syncopt_ir::{Counter, Group, Kernel, Pipe, SyncOp};

use crate::{BarrierStyle, Family, Target};

fn ascend_pipe(p: Pipe) -> String {
    format!("PIPE_{}", p.as_str())
}

/// The target's spelling of `op`.
pub fn spell(target: Target, kernel: &Kernel, op: &SyncOp) -> String {
    let info = target.info();
    match (info.family, op) {
        (Family::Amd, SyncOp::Barrier { fence: true, .. }) => match info.barrier {
            // [AMDGPU] gfx9: amdgpu.lds_barrier lowers to s_waitcnt lgkmcnt(0); s_barrier.
            BarrierStyle::Monolithic => "amdgpu.lds_barrier".into(),
            // gfx12: the LDS wait, then both halves of the split barrier back to back.
            _ => {
                "rocdl.s.wait.dscnt 0; rocdl.s.barrier.signal id = -1; rocdl.s.barrier.wait id = -1"
                    .into()
            }
        },
        (Family::Amd, SyncOp::Barrier { fence: false, .. }) => match info.barrier {
            BarrierStyle::Monolithic => "rocdl.s.barrier".into(),
            _ => "rocdl.s.barrier.signal id = -1; rocdl.s.barrier.wait id = -1".into(),
        },
        (Family::Amd, SyncOp::Signal { id }) => {
            format!("rocdl.s.wait.dscnt 0; rocdl.s.barrier.signal id = {id}")
        }
        (Family::Amd, SyncOp::Wait { id }) => format!("rocdl.s.barrier.wait id = {id}"),
        (Family::Amd, SyncOp::CondBarrier { group }) => {
            let g = match group {
                Group::Low => "low",
                Group::High => "high",
            };
            format!("scf.if %is_{g}_group {{ rocdl.s.barrier }}")
        }
        (Family::Amd, SyncOp::CounterWait { counter, n }) => match counter {
            Counter::Vmcnt | Counter::Lgkmcnt => format!("s_waitcnt {counter}({n})"),
            Counter::Loadcnt => format!("rocdl.s.wait.loadcnt {n}"),
            Counter::Storecnt => format!("rocdl.s.wait.storecnt {n}"),
            Counter::Dscnt => format!("rocdl.s.wait.dscnt {n}"),
            Counter::Asynccnt => format!("rocdl.s.wait.asynccnt {n}"),
            Counter::Tensorcnt => format!("rocdl.s.wait.tensorcnt {n}"),
            Counter::CpAsync => format!("<no cp.async on {}>", info.name),
        },
        (Family::Amd, SyncOp::SchedBarrier { mask }) => format!("rocdl.sched.barrier {mask}"),
        (Family::Amd, SyncOp::SetPrio { prio }) => format!("rocdl.s.setprio {prio}"),
        // [PTX] bar.sync a{, b}: barrier a, b threads participating; it orders shared memory.
        (Family::Nvidia, SyncOp::Barrier { id, threads, .. }) => match threads {
            Some(t) => format!("bar.sync {id}, {t}"),
            None => format!("bar.sync {id}"),
        },
        (Family::Nvidia, SyncOp::Signal { id }) => {
            if *id == -1 {
                "mbarrier.arrive.shared.b64".into()
            } else {
                format!("bar.arrive {id}")
            }
        }
        (Family::Nvidia, SyncOp::Wait { id }) => {
            if *id == -1 {
                "mbarrier.try_wait.parity.shared.b64".into()
            } else {
                format!("bar.sync {id}")
            }
        }
        (Family::Nvidia, SyncOp::CpAsyncCommit) => "cp.async.commit_group".into(),
        (Family::Nvidia, SyncOp::CpAsyncWait { n }) => format!("cp.async.wait_group {n}"),
        (
            Family::Nvidia,
            SyncOp::CounterWait {
                counter: Counter::CpAsync,
                n,
            },
        ) => {
            format!("cp.async.wait_group {n}")
        }
        (Family::Ascend, SyncOp::SetFlag { src, dst, id })
        | (Family::Ascend, SyncOp::WaitFlag { src, dst, id }) => {
            let f = if matches!(op, SyncOp::SetFlag { .. }) {
                "set_flag"
            } else {
                "wait_flag"
            };
            let id = match &id.alternate {
                None => format!("EVENT_ID{}", id.base),
                Some((e, n)) => format!(
                    "(event_t)({} + ({}) % {n})",
                    id.base,
                    syncopt_ir::printer::expr_string(kernel, e)
                ),
            };
            format!("{f}({}, {}, {id})", ascend_pipe(*src), ascend_pipe(*dst))
        }
        (Family::Ascend, SyncOp::PipeBarrier { pipe }) => {
            format!("pipe_barrier({})", ascend_pipe(*pipe))
        }
        _ => format!(
            "<{} has no spelling for {}>",
            info.name,
            syncopt_ir::printer::sync_op_string(kernel, op)
        ),
    }
}
