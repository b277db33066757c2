//! The syncopt kernel IR: data in arenas, the text format (lexer, parser, printer) and
//! diagnostics. Everything else in syncopt depends on this crate and nothing here depends on
//! a target.

pub mod diag;
pub mod entity;
pub mod expr;
pub mod kernel;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod sync;
pub mod validate;
pub mod vocab;

pub use diag::{Diagnostic, Severity};
pub use entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use expr::{AffineExpr, CmpOp, Cond, Var};
pub use kernel::*;
pub use parser::{parse, parse_file};
pub use printer::{print_file, print_kernel, print_module, write_file};
pub use sync::{FlagId, SyncOp};
pub use vocab::{AccessKind, Counter, Group, Pipe, Space, Uniformity};
