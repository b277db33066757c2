//! The model checker: proves a kernel race-free and deadlock-free under semantics.md
//! sections 4 and 6, or reports counterexamples. It shares the parser, the IR and the target
//! tables with the inserters, and nothing else: one bug must not hide in both.

use syncopt_ir::{Diagnostic, Kernel};
use syncopt_targets::{Family, Target};

mod handles;
pub mod pipes;
pub mod workgroup;

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

/// Verifies one kernel under the execution model of its target's family.
pub fn verify(kernel: &Kernel, target: Target) -> Report {
    match target.family() {
        Family::Ascend => pipes::verify(kernel, target),
        Family::Amd | Family::Nvidia => workgroup::verify(kernel, target),
    }
}
