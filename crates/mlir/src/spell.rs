//! Sync ops as MLIR ops, in custom or generic form, as MLIR 22 spells them.

use syncopt_ir::{Counter, Kernel, SyncOp};
use syncopt_targets::{BarrierStyle, Family, Target};

/// The gfx9 `s_waitcnt` bitfield waiting on one counter: vmcnt in bits [3:0] and [15:14],
/// expcnt [6:4], lgkmcnt [11:8]; the counters not waited on are left at their maximum.
pub fn gfx9_waitcnt(counter: Counter, n: u32) -> u32 {
    let (vm, lgkm) = match counter {
        Counter::Vmcnt => (n.min(63), 15),
        _ => (63, n.min(15)),
    };
    (vm & 0xf) | ((vm >> 4) << 14) | (7 << 4) | (lgkm << 8)
}

fn op(generic: bool, name: &str, attr: Option<(&str, i64, &str)>, custom_arg: &str) -> String {
    if generic {
        match attr {
            Some((k, v, ty)) => format!("\"{name}\"() <{{{k} = {v} : {ty}}}> : () -> ()"),
            None => format!("\"{name}\"() : () -> ()"),
        }
    } else if custom_arg.is_empty() {
        name.to_string()
    } else {
        format!("{name} {custom_arg}")
    }
}

/// MLIR lines for `s` on `target`.
pub fn mlir(target: Target, _k: &Kernel, s: &SyncOp, generic: bool) -> Vec<String> {
    let info = target.info();
    let nv = info.family == Family::Nvidia;
    let split = info.barrier == BarrierStyle::Split;
    let signal = |id: i32| {
        op(
            generic,
            "rocdl.s.barrier.signal",
            Some(("id", id as i64, "i32")),
            &format!("id = {id}"),
        )
    };
    let wait = |id: i32| {
        op(
            generic,
            "rocdl.s.barrier.wait",
            Some(("id", id as i64, "i16")),
            &format!("id = {id}"),
        )
    };
    let dscnt0 = || {
        op(
            generic,
            "rocdl.s.wait.dscnt",
            Some(("count", 0, "i16")),
            "0",
        )
    };
    match s {
        SyncOp::Barrier { fence: true, .. } if nv => vec![op(generic, "gpu.barrier", None, "")],
        SyncOp::Barrier { fence: true, .. } if split => vec![dscnt0(), signal(-1), wait(-1)],
        SyncOp::Barrier { fence: true, .. } => vec![op(generic, "amdgpu.lds_barrier", None, "")],
        SyncOp::Barrier { fence: false, .. } if split => vec![signal(-1), wait(-1)],
        SyncOp::Barrier { fence: false, .. } => vec![op(generic, "rocdl.s.barrier", None, "")],
        SyncOp::Signal { id } => vec![dscnt0(), signal(*id)],
        SyncOp::Wait { id } => vec![wait(*id)],
        SyncOp::CounterWait {
            counter: c @ (Counter::Vmcnt | Counter::Lgkmcnt),
            n,
        } => {
            let bits = gfx9_waitcnt(*c, *n) as i64;
            vec![op(
                generic,
                "rocdl.s.waitcnt",
                Some(("bitfield", bits, "i32")),
                &bits.to_string(),
            )]
        }
        SyncOp::CounterWait {
            counter: Counter::CpAsync,
            n,
        }
        | SyncOp::CpAsyncWait { n } => {
            vec![op(
                generic,
                "nvvm.cp.async.wait.group",
                Some(("n", *n as i64, "i32")),
                &n.to_string(),
            )]
        }
        SyncOp::CounterWait { counter, n } => {
            let name = format!("rocdl.s.wait.{counter}");
            vec![op(
                generic,
                &name,
                Some(("count", *n as i64, "i16")),
                &n.to_string(),
            )]
        }
        SyncOp::CpAsyncCommit => vec![op(generic, "nvvm.cp.async.commit.group", None, "")],
        SyncOp::SchedBarrier { mask } => {
            vec![op(
                generic,
                "rocdl.sched.barrier",
                Some(("mask", *mask as i64, "i32")),
                &mask.to_string(),
            )]
        }
        SyncOp::SetPrio { prio } => {
            vec![op(
                generic,
                "rocdl.s.setprio",
                Some(("priority", *prio as i64, "i16")),
                &prio.to_string(),
            )]
        }
        // Warp-pipeline group barriers and Ascend ops have no MLIR form here.
        other => vec![format!("// syncopt: no MLIR spelling for {other:?}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waitcnt_bitfields() {
        // vmcnt(0), expcnt(7), lgkmcnt(15): what `s_waitcnt vmcnt(0)` encodes to on gfx9.
        assert_eq!(gfx9_waitcnt(Counter::Vmcnt, 0), 0x0f70);
        assert_eq!(gfx9_waitcnt(Counter::Vmcnt, 63), 0xcf7f);
        assert_eq!(gfx9_waitcnt(Counter::Lgkmcnt, 0), 0xc07f);
        assert_eq!(gfx9_waitcnt(Counter::Vmcnt, 17), 0x4f71);
    }
}
