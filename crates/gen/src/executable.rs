//! (being written) Executable kernels for `gen --executable`.

use crate::GenOptions;

pub fn generate(opts: &GenOptions) -> String {
    format!("target {}\n\nkernel @exec{} {{\n}}\n", opts.target, opts.seed)
}
