//! (being written) CPU interpreter with barrier-synchronous semantics.

use syncopt_ir::{Diagnostic, Kernel};
use syncopt_targets::Target;

/// Runs the kernel; returns one checksum per thread.
pub fn run(kernel: &Kernel, target: Target) -> Result<Vec<u64>, Diagnostic> {
    let _ = target;
    Err(Diagnostic::error(
        Some(kernel.loc),
        "the interpreter is not implemented yet",
    ))
}
