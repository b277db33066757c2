//! Every synchronization op of every target, as a first-class variant.
//!
//! Spellings per target live in `syncopt-targets`; this is the target-neutral form that the
//! text format prints.

use crate::expr::AffineExpr;
use crate::vocab::{Counter, Group, Pipe};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SyncOp {
    /// Monolithic workgroup barrier. `fence`: wait for the wave's LDS accesses first
    /// (`amdgpu.lds_barrier`, `__syncthreads`); without it, execution-only (`s_barrier`).
    /// `id` 0 is the default barrier; other ids are named barriers (NVIDIA `bar.sync id`),
    /// with an optional participating thread count.
    Barrier {
        id: u32,
        fence: bool,
        threads: Option<u32>,
    },
    /// Split barrier arrival (gfx12 `s_barrier_signal`), after the wave's LDS accesses
    /// completed. Id -1 is the default workgroup barrier; 1.. are named barriers.
    Signal { id: i32 },
    /// Split barrier wait (gfx12 `s_barrier_wait`).
    Wait { id: i32 },
    /// A barrier executed only by the waves of `group`, with no memory fence.
    CondBarrier { group: Group },
    /// Blocks the wave until at most `n` of its ops on `counter` are outstanding.
    CounterWait { counter: Counter, n: u32 },
    /// NVIDIA `cp.async.commit_group`: closes the current group of `cp.async` copies.
    CpAsyncCommit,
    /// NVIDIA `cp.async.wait_group n`.
    CpAsyncWait { n: u32 },
    /// Ascend `set_flag(src, dst, id)`.
    SetFlag { src: Pipe, dst: Pipe, id: FlagId },
    /// Ascend `wait_flag(src, dst, id)`.
    WaitFlag { src: Pipe, dst: Pipe, id: FlagId },
    /// Ascend `pipe_barrier(pipe)`; `Pipe::All` orders everything.
    PipeBarrier { pipe: Pipe },
    /// AMD scheduling wall (`sched_barrier mask`); orders nothing at run time.
    SchedBarrier { mask: u32 },
    /// AMD `s_setprio`.
    SetPrio { prio: u8 },
}

/// An Ascend event id: `base`, plus `(expr mod n)` when it alternates with a loop variable
/// (double-buffered ids: `base + (%i + c) mod 2`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlagId {
    pub base: u32,
    pub alternate: Option<(AffineExpr, u32)>,
}

impl FlagId {
    pub fn fixed(id: u32) -> Self {
        FlagId {
            base: id,
            alternate: None,
        }
    }
    /// Every id this flag can take.
    pub fn possible_ids(&self) -> std::ops::Range<u32> {
        match &self.alternate {
            None => self.base..self.base + 1,
            Some((_, n)) => self.base..self.base + n,
        }
    }
}

impl SyncOp {
    /// Whether the op is an arrival or wait on a workgroup barrier (forbidden in divergent code).
    pub fn is_workgroup_barrier(&self) -> bool {
        matches!(
            self,
            SyncOp::Barrier { .. }
                | SyncOp::Signal { .. }
                | SyncOp::Wait { .. }
                | SyncOp::CondBarrier { .. }
        )
    }
}
