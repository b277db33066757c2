//! The pass pipeline of `syncopt insert`: named passes, composed on the command line
//! (`--pass warp-pipeline,shared-barriers,async-waits`), or the target's default set.

pub use syncopt_analysis::{Covered, Explain, InsertOptions, PassReport};
use syncopt_ir::Kernel;
use syncopt_targets::{Family, Target};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Converts warp-pipelined loops: stage barriers, phase shift, priorities.
    WarpPipeline,
    /// Workgroup barriers (monolithic or split) for LDS hazards.
    SharedBarriers,
    /// Counter waits (and cp.async groups) before the barriers that publish async copies.
    AsyncWaits,
    /// Ascend set_flag/wait_flag/pipe_barrier.
    PipeFlags,
}

impl Pass {
    pub const ALL: &'static [Pass] = &[
        Pass::WarpPipeline,
        Pass::SharedBarriers,
        Pass::AsyncWaits,
        Pass::PipeFlags,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Pass::WarpPipeline => "warp-pipeline",
            Pass::SharedBarriers => "shared-barriers",
            Pass::AsyncWaits => "async-waits",
            Pass::PipeFlags => "pipe-flags",
        }
    }
    pub fn from_name(s: &str) -> Option<Pass> {
        Pass::ALL.iter().copied().find(|p| p.name() == s)
    }
    pub fn help(self) -> &'static str {
        match self {
            Pass::WarpPipeline => {
                "convert warp-pipelined loops (stage barriers, phase shift, s_setprio)"
            }
            Pass::SharedBarriers => "insert workgroup barriers for LDS/shared-memory hazards",
            Pass::AsyncWaits => "insert counter waits before barriers that publish async copies",
            Pass::PipeFlags => "insert Ascend set_flag/wait_flag/pipe_barrier between pipes",
        }
    }
    /// Whether the pass applies to `target` at all.
    pub fn applies(self, target: Target) -> bool {
        match self {
            Pass::WarpPipeline => target.info().warp_pipeline,
            Pass::SharedBarriers | Pass::AsyncWaits => target.is_gpu(),
            Pass::PipeFlags => target.family() == Family::Ascend,
        }
    }
}

/// The passes `syncopt insert` runs when none are named, in order.
pub fn default_pipeline(target: Target) -> Vec<Pass> {
    Pass::ALL
        .iter()
        .copied()
        .filter(|p| p.applies(target))
        .collect()
}

/// Runs `passes` in order; stops after a pass that reports an error.
pub fn run_pipeline(
    kernel: &mut Kernel,
    target: Target,
    passes: &[Pass],
    opts: &InsertOptions,
) -> PassReport {
    run_pipeline_observed(kernel, target, passes, opts, &mut |_| {})
}

/// [`run_pipeline`], calling `after` with each pass that ran, right after it (the CLI times
/// the passes this way).
pub fn run_pipeline_observed(
    kernel: &mut Kernel,
    target: Target,
    passes: &[Pass],
    opts: &InsertOptions,
    after: &mut dyn FnMut(Pass),
) -> PassReport {
    let mut report = PassReport::default();
    let passes: Vec<Pass> = passes
        .iter()
        .copied()
        .filter(|p| p.applies(target))
        .collect();
    // Async-waits after shared-barriers has no copy to warn about (its warning says "run
    // shared-barriers first"; `syncopt_async_waits::run_after_barriers`).
    let mut barriers_ran = false;
    for &p in &passes {
        let r = match p {
            Pass::WarpPipeline => syncopt_warp_pipeline::run(kernel, target, opts),
            Pass::SharedBarriers => {
                barriers_ran = true;
                syncopt_barriers::run(kernel, target, opts)
            }
            Pass::AsyncWaits if barriers_ran => {
                syncopt_async_waits::run_after_barriers(kernel, target, opts)
            }
            Pass::AsyncWaits => syncopt_async_waits::run(kernel, target, opts),
            Pass::PipeFlags => syncopt_pipe_flags::run(kernel, target, opts),
        };
        after(p);
        let failed = r.has_errors();
        report.merge(r);
        if failed {
            break;
        }
    }
    report
}

/// Inserts everything the target needs: the default pipeline.
pub fn insert(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_pipeline(kernel, target, &default_pipeline(target), opts)
}
