//! (being written) Random valid kernels: syncopt's `llvm-stress`.

use syncopt_targets::Target;

pub mod executable;

#[derive(Clone, Debug)]
pub struct GenOptions {
    pub ops: usize,
    pub seed: u64,
    pub target: Target,
    /// Only accesses with concrete per-thread indices, so `run` and `emit` can execute them.
    pub executable: bool,
}

/// A kernel in the text format (with its `target` line).
pub fn generate(opts: &GenOptions) -> String {
    if opts.executable {
        return executable::generate(opts);
    }
    format!(
        "target {}\n\nkernel @gen{} {{\n}}\n",
        opts.target, opts.seed
    )
}
