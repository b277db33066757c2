//! (being written) MLIR in and out.

use syncopt_ir::Diagnostic;
use syncopt_passes::{InsertOptions, Pass};

/// Reads an MLIR module, inserts its synchronization and prints it back.
pub fn insert(
    text: &str,
    target: Option<&str>,
    passes: Option<&[Pass]>,
    opts: &InsertOptions,
    verify: bool,
) -> Result<String, Vec<Diagnostic>> {
    let _ = (text, target, passes, opts, verify);
    Err(vec![Diagnostic::error(
        None,
        "MLIR input is not implemented yet",
    )])
}
