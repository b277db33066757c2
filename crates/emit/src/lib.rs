//! (being written) Emission of runnable code: CUDA for NVIDIA targets.

use syncopt_ir::{Diagnostic, Kernel};
use syncopt_targets::Target;

/// One self-contained `.cu` file: the kernel and a host `main` printing its checksums.
pub fn cuda(kernel: &Kernel, target: Target) -> Result<String, Diagnostic> {
    let _ = target;
    Err(Diagnostic::error(
        Some(kernel.loc),
        "CUDA emission is not implemented yet",
    ))
}
