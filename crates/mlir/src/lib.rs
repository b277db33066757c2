//! MLIR in and out: `syncopt insert kernel.mlir` reads a GPU module in custom or generic form
//! (as `mlir-opt` prints it), inserts the synchronization each function needs, and writes the
//! module back with every untouched line as it was.

pub mod lower;
pub mod reader;
pub mod spell;
pub mod types;

use std::collections::BTreeMap;

use syncopt_ir::{Diagnostic, StmtKind};
use syncopt_passes::{InsertOptions, Pass};
use syncopt_targets::Target;

use reader::{MBlock, MOp};

/// The target a module names: `#rocdl.target<chip = "gfx942">` or `#nvvm.target<chip = "sm_90">`.
pub fn module_target(text: &str) -> Option<String> {
    for key in ["rocdl.target<", "nvvm.target<"] {
        if let Some(i) = text.find(key) {
            let tail = &text[i..];
            if let Some(c) = tail.find("chip = \"") {
                let rest = &tail[c + 8..];
                if let Some(e) = rest.find('"') {
                    return Some(rest[..e].to_string());
                }
            }
        }
    }
    None
}

fn functions<'a>(b: &'a MBlock, out: &mut Vec<&'a MOp>) {
    for op in &b.ops {
        if (op.name == "gpu.func" || op.name == "func.func") && !op.regions.is_empty() {
            out.push(op);
        } else {
            for r in &op.regions {
                for blk in &r.blocks {
                    functions(blk, out);
                }
            }
        }
    }
}

/// Reads `text`, inserts synchronization into every function, and returns the new text.
/// `target` overrides the module's target attribute.
pub fn insert(
    text: &str,
    target: Option<&str>,
    passes: Option<&[Pass]>,
    opts: &InsertOptions,
    verify: bool,
) -> Result<String, Vec<Diagnostic>> {
    let name = match target.map(str::to_string).or_else(|| module_target(text)) {
        Some(n) => n,
        None => {
            return Err(vec![Diagnostic::error(
                None,
                "no target: pass --target or give the gpu.module a #rocdl.target / #nvvm.target",
            )])
        }
    };
    let target = Target::from_name(&name).ok_or_else(|| {
        vec![Diagnostic::error(
            None,
            format!(
                "unknown target '{name}'; expected one of {}",
                Target::names()
            ),
        )]
    })?;
    if !target.is_gpu() {
        return Err(vec![Diagnostic::error(
            None,
            format!("MLIR input is for GPU targets, not {target}"),
        )]);
    }
    let top = reader::read(text).map_err(|d| vec![d])?;
    let generic = first_op_generic(&top);
    let mut funcs = Vec::new();
    functions(&top, &mut funcs);
    let lines: Vec<&str> = text.lines().collect();
    // Line index -> lines to insert before it.
    let mut inserts: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut diags = Vec::new();
    for f in funcs {
        let mut lw = match lower::lower_function(f, &lines) {
            Ok(l) => l,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        let pipeline = passes
            .map(|p| p.to_vec())
            .unwrap_or_else(|| syncopt_passes::default_pipeline(target));
        let rep = syncopt_passes::run_pipeline(&mut lw.kernel, target, &pipeline, opts);
        let failed = rep.has_errors();
        diags.extend(rep.diagnostics);
        if failed {
            continue;
        }
        if verify {
            let vr = syncopt_verify::verify(&lw.kernel, target);
            if !vr.is_ok() {
                diags.extend(vr.diagnostics);
                continue;
            }
        }
        splice(&lw, target, generic, &lines, &mut inserts);
    }
    if diags.iter().any(|d| d.is_error()) {
        return Err(diags);
    }
    let mut out = String::with_capacity(text.len() + inserts.len() * 40);
    for (i, line) in lines.iter().enumerate() {
        if let Some(new) = inserts.get(&i) {
            for n in new {
                out.push_str(n);
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

fn first_op_generic(b: &MBlock) -> bool {
    b.ops.first().is_some_and(|o| o.generic)
}

fn indent_of(line: &str) -> String {
    line.chars().take_while(|c| c.is_whitespace()).collect()
}

/// Places each inserted sync op before the MLIR line of the statement that follows it, or
/// before its block's terminator or closing brace.
fn splice(
    lw: &lower::Lowered,
    target: Target,
    generic: bool,
    lines: &[&str],
    inserts: &mut BTreeMap<usize, Vec<String>>,
) {
    let k = &lw.kernel;
    for (b, data) in k.blocks.iter() {
        let mut pending = Vec::new();
        for &s in &data.stmts {
            let st = &k.stmts[s];
            if st.inserted {
                if let StmtKind::Sync(op) = &st.kind {
                    pending.push(op.clone());
                }
                continue;
            }
            if !pending.is_empty() {
                if let Some(&line) = lw.stmt_line.get(&s) {
                    let ind = indent_of(lines[line]);
                    let e = inserts.entry(line).or_default();
                    for op in pending.drain(..) {
                        for t in spell::mlir(target, k, &op, generic) {
                            e.push(format!("{ind}{t}"));
                        }
                    }
                }
            }
        }
        if pending.is_empty() {
            continue;
        }
        let Some(anchor) = lw.anchors.get(&b) else {
            continue;
        };
        let (line, ind) = match anchor.terminator {
            Some(t) => (t, indent_of(lines[t])),
            None => (
                anchor.close_line,
                format!("{}  ", indent_of(lines[anchor.close_line])),
            ),
        };
        let e = inserts.entry(line).or_default();
        for op in pending {
            for t in spell::mlir(target, k, &op, generic) {
                e.push(format!("{ind}{t}"));
            }
        }
    }
}

/// The syncopt kernels of every function in an MLIR module (what `insert` works on).
pub fn to_kernels(text: &str) -> Result<Vec<syncopt_ir::Kernel>, Diagnostic> {
    let top = reader::read(text)?;
    let mut funcs = Vec::new();
    functions(&top, &mut funcs);
    let lines: Vec<&str> = text.lines().collect();
    funcs
        .into_iter()
        .map(|f| lower::lower_function(f, &lines).map(|l| l.kernel))
        .collect()
}
