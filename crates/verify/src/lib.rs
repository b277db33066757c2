//! (being written) The model checker: proves a kernel race-free and deadlock-free.

use syncopt_ir::{Diagnostic, Kernel};
use syncopt_targets::Target;

/// What `verify` found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One error per race or deadlock, each with its counterexample in the notes.
    pub diagnostics: Vec<Diagnostic>,
    /// Abstract states explored, for the summary line.
    pub states: usize,
}

impl Report {
    pub fn is_ok(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.is_error())
    }
}

pub fn verify(kernel: &Kernel, target: Target) -> Report {
    let _ = (kernel, target);
    Report::default()
}
