//! Per-target tables: wave size, barriers, counters and their limits, Ascend pipes and event
//! ids, and how each sync op is spelled. Sources are cited next to each number:
//!
//! - [AMDGPU]: LLVM "User Guide for AMDGPU Backend" (AMDGPUUsage), memory-model sections for
//!   GFX942, GFX950, GFX12 and GFX1250, and the `s_waitcnt` / `s_wait_*` encodings.
//! - [CDNA3]: AMD Instinct MI300 ISA reference guide (CDNA3), 4.4 "Data dependency resolution"
//!   (vmcnt 6 bits: 0..63; lgkmcnt 4 bits: 0..15; expcnt 3 bits).
//! - [RDNA4]: AMD RDNA4 ISA reference guide, "Dependency checking" (LOADcnt, STOREcnt, DScnt,
//!   each 6 bits: 0..63; KMcnt 5 bits) and "Barriers" (`s_barrier_signal` / `s_barrier_wait`).
//! - [GFX1250]: LLVM AMDGPUUsage for GFX1250 (ASYNCcnt and TENSORcnt 6 bits; named barriers).
//! - [PTX]: NVIDIA PTX ISA 8.x: `bar.sync` / `barrier.sync` (ids 0..15, thread count a
//!   multiple of the warp size), `cp.async.commit_group`, `cp.async.wait_group N`.
//! - [AscendC]: Huawei Ascend C API reference: `SetFlag`/`WaitFlag` (HardEvent, EVENT_ID0..7),
//!   `PipeBarrier<PIPE_V>`, pipe list PIPE_S/V/M/MTE1/MTE2/MTE3/FIX.

use std::fmt;

use syncopt_ir::{
    AsyncSpec, Counter, Diagnostic, Effect, Kernel, OpData, Pipe, Space, StmtKind, SyncOp,
    ValueKind,
};

pub mod check;
pub mod spell;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Gfx942,
    Gfx950,
    Gfx1200,
    Gfx1250,
    Sm80,
    Sm90,
    Ascend910b,
    Ascend950,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    Amd,
    Nvidia,
    Ascend,
}

/// How the default workgroup barrier is built.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BarrierStyle {
    /// One instruction that fences and waits (`amdgpu.lds_barrier`, `bar.sync 0`).
    Monolithic,
    /// Separate arrival and wait (`s_barrier_signal -1` ... `s_barrier_wait -1`).
    Split,
    /// No workgroup barrier: Ascend pipes synchronize with flags.
    None,
}

#[derive(Clone, Debug)]
pub struct TargetInfo {
    pub name: &'static str,
    pub family: Family,
    /// Threads per wave (warp).
    pub wave_size: u32,
    /// Waves per workgroup when the kernel does not say.
    pub default_waves: u32,
    pub barrier: BarrierStyle,
    /// Named barrier ids usable besides the default barrier (inclusive range), if any.
    pub named_barriers: Option<(u32, u32)>,
    /// Counters and the largest value a wait may name.
    pub counters: &'static [(Counter, u32)],
    /// Counter raised by ordinary (synchronous) LDS accesses; `None` where the barrier fences.
    pub lds_counter: Option<Counter>,
    /// Counter raised by async global-to-LDS copies.
    pub async_counter: Option<Counter>,
    /// Counter raised by tensor DMA, where the target has one.
    pub tensor_counter: Option<Counter>,
    /// Workgroup (shared/LDS) memory per workgroup, bytes.
    pub workgroup_bytes: u64,
    /// Ascend: number of event ids per (src pipe, dst pipe) and the ids kept for the runtime.
    pub flag_ids: u32,
    pub reserved_flag_ids: &'static [u32],
    /// Ascend: pipes whose same-pipe data dependences need `pipe_barrier(pipe)`.
    pub same_pipe_barrier: &'static [Pipe],
    /// Whether the target runs AMD warp pipelines (`s_setprio`, conditional barriers).
    pub warp_pipeline: bool,
}

// [CDNA3] 4.4: vmcnt is 6 bits, lgkmcnt 4 bits on gfx9 (MI300 = gfx942, MI350 = gfx950).
const GFX9_COUNTERS: &[(Counter, u32)] = &[(Counter::Vmcnt, 63), (Counter::Lgkmcnt, 15)];
// [RDNA4] "Dependency checking": LOADcnt, STOREcnt, DScnt are 6 bits.
const GFX12_COUNTERS: &[(Counter, u32)] = &[
    (Counter::Loadcnt, 63),
    (Counter::Storecnt, 63),
    (Counter::Dscnt, 63),
];
// [GFX1250]: adds ASYNCcnt (async global->LDS) and TENSORcnt (tensor DMA), 6 bits each.
const GFX1250_COUNTERS: &[(Counter, u32)] = &[
    (Counter::Loadcnt, 63),
    (Counter::Storecnt, 63),
    (Counter::Dscnt, 63),
    (Counter::Asynccnt, 63),
    (Counter::Tensorcnt, 63),
];
// [PTX] cp.async.wait_group takes an integer constant; we cap it at 7 groups in flight, the
// deepest multistage pipelines CUTLASS configures on sm_80/sm_90.
const NV_COUNTERS: &[(Counter, u32)] = &[(Counter::CpAsync, 7)];

impl Target {
    pub const ALL: &'static [Target] = &[
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1250,
        Target::Sm80,
        Target::Sm90,
        Target::Ascend910b,
        Target::Ascend950,
    ];
    /// GPU targets (the workgroup model).
    pub const GPUS: &'static [Target] = &[
        Target::Gfx942,
        Target::Gfx950,
        Target::Gfx1200,
        Target::Gfx1250,
        Target::Sm80,
        Target::Sm90,
    ];

    pub fn from_name(s: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.name() == s)
    }

    pub fn names() -> String {
        Target::ALL
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn info(self) -> TargetInfo {
        match self {
            // [AMDGPU] GFX942: wave64, 64 KiB LDS; `s_waitcnt lgkmcnt(0); s_barrier` is the
            // LDS barrier. Default 4 waves (256 threads), the common workgroup size.
            Target::Gfx942 => TargetInfo {
                name: "gfx942",
                family: Family::Amd,
                wave_size: 64,
                default_waves: 4,
                barrier: BarrierStyle::Monolithic,
                named_barriers: None,
                counters: GFX9_COUNTERS,
                lds_counter: Some(Counter::Lgkmcnt),
                async_counter: Some(Counter::Vmcnt),
                tensor_counter: None,
                workgroup_bytes: 64 * 1024,
                flag_ids: 0,
                reserved_flag_ids: &[],
                same_pipe_barrier: &[],
                warp_pipeline: true,
            },
            // [AMDGPU] GFX950 (MI350): as gfx942 with 160 KiB LDS.
            Target::Gfx950 => TargetInfo {
                name: "gfx950",
                workgroup_bytes: 160 * 1024,
                ..Target::Gfx942.info()
            },
            // [RDNA4] wave32 by default; split barriers; LDS-DMA counts on LOADcnt.
            Target::Gfx1200 => TargetInfo {
                name: "gfx1200",
                family: Family::Amd,
                wave_size: 32,
                default_waves: 8,
                barrier: BarrierStyle::Split,
                named_barriers: None,
                counters: GFX12_COUNTERS,
                lds_counter: Some(Counter::Dscnt),
                async_counter: Some(Counter::Loadcnt),
                tensor_counter: None,
                workgroup_bytes: 64 * 1024,
                flag_ids: 0,
                reserved_flag_ids: &[],
                same_pipe_barrier: &[],
                warp_pipeline: false,
            },
            // [GFX1250] wave32, 320 KiB LDS, named barriers 1..16, ASYNCcnt and TENSORcnt.
            Target::Gfx1250 => TargetInfo {
                name: "gfx1250",
                named_barriers: Some((1, 16)),
                counters: GFX1250_COUNTERS,
                async_counter: Some(Counter::Asynccnt),
                tensor_counter: Some(Counter::Tensorcnt),
                workgroup_bytes: 320 * 1024,
                warp_pipeline: true,
                ..Target::Gfx1200.info()
            },
            // [PTX] bar.sync ids 0..15 (1..15 named); warps of 32; 164 KiB shared on sm_80.
            Target::Sm80 => TargetInfo {
                name: "sm_80",
                family: Family::Nvidia,
                wave_size: 32,
                default_waves: 8,
                barrier: BarrierStyle::Monolithic,
                named_barriers: Some((1, 15)),
                counters: NV_COUNTERS,
                lds_counter: None,
                async_counter: Some(Counter::CpAsync),
                tensor_counter: None,
                workgroup_bytes: 164 * 1024,
                flag_ids: 0,
                reserved_flag_ids: &[],
                same_pipe_barrier: &[],
                warp_pipeline: false,
            },
            // sm_90 (H100): 228 KiB shared; split arrive/wait through mbarriers, which the
            // text format writes as barrier.signal / barrier.wait.
            Target::Sm90 => TargetInfo {
                name: "sm_90",
                workgroup_bytes: 228 * 1024,
                ..Target::Sm80.info()
            },
            // [AscendC] 8 event ids (EVENT_ID0..7) per pipe pair; V and M data dependences on
            // the same pipe need PipeBarrier; S must never take one.
            Target::Ascend910b => TargetInfo {
                name: "ascend910b",
                family: Family::Ascend,
                wave_size: 1,
                default_waves: 1,
                barrier: BarrierStyle::None,
                named_barriers: None,
                counters: &[],
                lds_counter: None,
                async_counter: None,
                tensor_counter: None,
                workgroup_bytes: 0,
                flag_ids: 8,
                reserved_flag_ids: &[],
                same_pipe_barrier: &[Pipe::V, Pipe::M],
                warp_pipeline: false,
            },
            // ascend950 keeps V ordering in hardware: only M needs a same-pipe barrier.
            Target::Ascend950 => TargetInfo {
                name: "ascend950",
                same_pipe_barrier: &[Pipe::M],
                ..Target::Ascend910b.info()
            },
        }
    }

    pub fn family(self) -> Family {
        self.info().family
    }

    pub fn is_gpu(self) -> bool {
        self.family() != Family::Ascend
    }

    /// How many consecutive threads the inserters take as running in lockstep, so that
    /// pairs of accesses only within such a group need no barrier: an AMD wave. NVIDIA warps
    /// are not lockstep (independent thread scheduling since Volta: racecheck reports
    /// pairs within one warp), so there only a thread's own accesses are ordered (1). The
    /// inserters and the verifier both use it (semantics.md 4.1's "no intra-wave hazard"
    /// holds for AMD waves only).
    pub fn lockstep_threads(self) -> u64 {
        if self.family() == Family::Nvidia {
            1
        } else {
            u64::from(self.info().wave_size.max(1))
        }
    }

    /// Largest `n` a wait on `counter` may name, or `None` if the target lacks the counter.
    pub fn counter_max(self, counter: Counter) -> Option<u32> {
        self.info()
            .counters
            .iter()
            .find(|c| c.0 == counter)
            .map(|c| c.1)
    }

    /// Waves per workgroup of `kernel` on this target.
    pub fn waves(self, kernel: &Kernel) -> u32 {
        kernel.waves.unwrap_or(self.info().default_waves)
    }

    /// The counter an async op raises: the one it names, else tensor DMA for ops whose name
    /// says `tensor`, else the target's async copy counter.
    pub fn async_counter(self, spec: AsyncSpec, op_name: &str) -> Option<Counter> {
        let info = self.info();
        spec.counter.or_else(|| {
            if op_name.contains("tensor") && info.tensor_counter.is_some() {
                info.tensor_counter
            } else {
                info.async_counter
            }
        })
    }

    /// The pipe an Ascend op runs on: its `pipe` override, else the op-name table, else the
    /// data movement its effects describe. `None` when neither decides.
    pub fn pipe_of(self, kernel: &Kernel, op: &OpData) -> Option<Pipe> {
        if let Some(p) = op.pipe {
            return Some(p);
        }
        let reads_l0c = op
            .effects
            .iter()
            .any(|e| !e.kind.writes() && effect_space(kernel, e) == Some(Space::L0c));
        let by_name = match op.name.as_str() {
            "load" | "copy_in" | "data_copy_in" | "load_gm" => Some(Pipe::Mte2),
            // A store out of L0C goes through the fixpipe.
            "store" | "copy_out" | "data_copy_out" => {
                Some(if reads_l0c { Pipe::Fix } else { Pipe::Mte3 })
            }
            "move" | "load2d" | "load3d" | "load_l0" => Some(Pipe::Mte1),
            "matmul" | "mmad" | "mma" => Some(Pipe::M),
            "fixpipe" => Some(Pipe::Fix),
            "scalar" | "get_value" | "set_value" => Some(Pipe::S),
            "add" | "sub" | "mul" | "div" | "max" | "min" | "exp" | "ln" | "abs" | "relu"
            | "cast" | "adds" | "muls" | "dup" | "reduce" | "reduce_sum" | "reduce_max"
            | "select" | "compare" | "vadd" | "vmul" | "vector" | "copy_ub" => Some(Pipe::V),
            _ => None,
        };
        by_name.or_else(|| pipe_from_effects(kernel, op))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The memory space an effect touches, when static (handles resolve through their inits).
pub fn effect_space(kernel: &Kernel, e: &Effect) -> Option<Space> {
    value_space(kernel, e.mem.value, 0)
}

/// The memory space of a buffer, view or handle. Handles resolve through their initial value;
/// `depth` guards against cycles in malformed input.
pub fn value_space(kernel: &Kernel, v: syncopt_ir::ValueId, depth: u32) -> Option<Space> {
    if depth > 64 {
        return None;
    }
    match kernel.values[v].kind {
        ValueKind::Buffer(b) => Some(kernel.buffers[b].space),
        ValueKind::View(view) => value_space(kernel, kernel.views[view].base, depth + 1),
        ValueKind::IterArg { stmt, index } => match &kernel.stmts[stmt].kind {
            StmtKind::For(f) => value_space(kernel, f.iter_args[index].1, depth + 1),
            _ => None,
        },
        ValueKind::Result { stmt, index } => match &kernel.stmts[stmt].kind {
            StmtKind::For(f) => value_space(kernel, f.iter_args[index].1, depth + 1),
            StmtKind::If(i) => kernel.blocks[i.then_block]
                .yields
                .get(index)
                .and_then(|&y| value_space(kernel, y, depth + 1)),
            _ => None,
        },
        _ => None,
    }
}

/// Data-movement rule: which pipe moves data between the spaces an op reads and writes.
fn pipe_from_effects(kernel: &Kernel, op: &OpData) -> Option<Pipe> {
    let spaces = |w: bool| -> Vec<Space> {
        op.effects
            .iter()
            .filter(|e| e.kind.writes() == w)
            .filter_map(|e| effect_space(kernel, e))
            .collect()
    };
    let (reads, writes) = (spaces(false), spaces(true));
    let r = |s: Space| reads.contains(&s);
    let w = |s: Space| writes.contains(&s);
    if r(Space::L0c) {
        Some(Pipe::Fix)
    } else if r(Space::Gm) && (w(Space::L1) || w(Space::Ub) || w(Space::L0a) || w(Space::L0b)) {
        Some(Pipe::Mte2)
    } else if r(Space::Ub) && (w(Space::Gm) || w(Space::L1)) {
        Some(Pipe::Mte3)
    } else if r(Space::L1) && (w(Space::L0a) || w(Space::L0b)) {
        Some(Pipe::Mte1)
    } else if (r(Space::L0a) || r(Space::L0b)) && w(Space::L0c) {
        Some(Pipe::M)
    } else if !writes.is_empty() && writes.iter().chain(reads.iter()).all(|&s| s == Space::Ub) {
        Some(Pipe::V)
    } else {
        None
    }
}

/// Resolves the target of a chunk: `--target` wins over the file's `target` line.
pub fn resolve(
    cli: Option<&str>,
    file: Option<&str>,
    file_loc: Option<syncopt_ir::Loc>,
) -> Result<Target, Diagnostic> {
    match (cli, file) {
        (Some(name), _) => Target::from_name(name).ok_or_else(|| {
            Diagnostic::error(
                None,
                format!(
                    "unknown target '{name}'; expected one of {}",
                    Target::names()
                ),
            )
        }),
        (None, Some(name)) => Target::from_name(name).ok_or_else(|| {
            Diagnostic::error(
                file_loc,
                format!(
                    "unknown target '{name}'; expected one of {}",
                    Target::names()
                ),
            )
        }),
        (None, None) => Err(Diagnostic::error(
            None,
            format!(
                "no target: add a 'target NAME' line or pass --target (one of {})",
                Target::names()
            ),
        )),
    }
}

pub use spell::spell;

/// Whether the target can execute `op`; `Err` says why not.
pub fn supports(target: Target, op: &SyncOp) -> Result<(), String> {
    let info = target.info();
    let t = info.name;
    let gpu_only = |what: &str| {
        if info.family == Family::Ascend {
            Err(format!(
                "{what} does not exist on {t}: Ascend pipes synchronize with set_flag/wait_flag"
            ))
        } else {
            Ok(())
        }
    };
    match op {
        SyncOp::Barrier { id, .. } => {
            gpu_only("a workgroup barrier")?;
            if *id != 0 {
                match info.named_barriers {
                    Some((lo, hi))
                        if (lo..=hi).contains(id) && info.barrier == BarrierStyle::Monolithic =>
                    {
                        Ok(())
                    }
                    Some((lo, hi)) if info.barrier == BarrierStyle::Monolithic => Err(format!(
                        "barrier id {id} is out of range on {t} (named ids are {lo}..{hi})"
                    )),
                    _ => Err(format!("{t} has no named monolithic barriers")),
                }
            } else {
                Ok(())
            }
        }
        SyncOp::Signal { id } | SyncOp::Wait { id } => {
            gpu_only("a split barrier")?;
            if info.barrier != BarrierStyle::Split && target != Target::Sm90 {
                return Err(format!("{t} has no split barriers (use 'barrier')"));
            }
            if *id == -1 {
                return Ok(());
            }
            match info.named_barriers {
                Some((lo, hi)) if (lo as i32..=hi as i32).contains(id) => Ok(()),
                Some((lo, hi)) => Err(format!(
                    "barrier id {id} is out of range on {t} (named ids are {lo}..{hi})"
                )),
                None => Err(format!("{t} has no named barriers: use id -1")),
            }
        }
        SyncOp::CondBarrier { .. } => {
            if info.warp_pipeline {
                Ok(())
            } else {
                Err(format!(
                    "conditional barriers (warp pipelining) are not supported on {t}"
                ))
            }
        }
        SyncOp::CounterWait { counter, n } => match target.counter_max(*counter) {
            None => Err(format!("{t} has no {counter} counter")),
            Some(max) if *n > max => Err(format!(
                "{counter}({n}) exceeds the largest value {max} on {t}"
            )),
            Some(_) => Ok(()),
        },
        SyncOp::CpAsyncCommit | SyncOp::CpAsyncWait { .. } => {
            if info.family != Family::Nvidia {
                return Err(format!("cp.async groups are NVIDIA-only, not on {t}"));
            }
            if let SyncOp::CpAsyncWait { n } = op {
                let max = target.counter_max(Counter::CpAsync).unwrap_or(0);
                if *n > max {
                    return Err(format!(
                        "cp_async.wait {n} exceeds the largest value {max} on {t}"
                    ));
                }
            }
            Ok(())
        }
        SyncOp::SetFlag { src, dst, id } | SyncOp::WaitFlag { src, dst, id } => {
            if info.family != Family::Ascend {
                return Err(format!("set_flag/wait_flag are Ascend-only, not on {t}"));
            }
            if *src == Pipe::All || *dst == Pipe::All {
                return Err("a flag connects two real pipes, not ALL".into());
            }
            if src == dst {
                return Err(format!(
                    "a flag from {src} to itself orders nothing: use pipe_barrier({src})"
                ));
            }
            let r = id.possible_ids();
            if r.end > info.flag_ids {
                return Err(format!(
                    "event id {} is out of range on {t} (ids are 0..{})",
                    r.end - 1,
                    info.flag_ids - 1
                ));
            }
            Ok(())
        }
        SyncOp::PipeBarrier { pipe } => {
            if info.family != Family::Ascend {
                return Err(format!("pipe_barrier is Ascend-only, not on {t}"));
            }
            if *pipe == Pipe::S {
                return Err(
                    "pipe_barrier(S) is a hardware error: the scalar pipe never takes a barrier"
                        .into(),
                );
            }
            Ok(())
        }
        SyncOp::SchedBarrier { .. } | SyncOp::SetPrio { .. } => {
            if info.family == Family::Amd {
                Ok(())
            } else {
                Err(format!(
                    "sched_barrier and setprio are AMD-only, not on {t}"
                ))
            }
        }
    }
}
