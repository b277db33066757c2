//! The canonical printer: `parse(print(k))` gives back `k`, and `print` is a fixed point of
//! `fmt`. Comments attached by the parser are printed where they were.

use std::fmt::Write;

use crate::expr::{AffineExpr, Cond, Var};
use crate::kernel::*;
use crate::sync::{FlagId, SyncOp};

pub fn print_file(file: &File) -> String {
    let mut out = String::new();
    for (i, m) in file.chunks.iter().enumerate() {
        if i > 0 {
            out.push_str("\n// -----\n\n");
        }
        // A chunk that only inherits its target does not repeat it.
        let inherited = i > 0 && file.chunks[i - 1].target == m.target && m.target_loc.is_none();
        print_module_into(&mut out, m, !inherited);
    }
    out
}

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    print_module_into(&mut out, m, true);
    out
}

fn print_module_into(out: &mut String, m: &Module, with_target: bool) {
    for c in &m.comments {
        comment(out, 0, c);
    }
    if let (true, Some(t)) = (with_target, &m.target) {
        let _ = writeln!(out, "target {t}");
        if !m.kernels.is_empty() {
            out.push('\n');
        }
    }
    for (i, k) in m.kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_kernel_into(out, k);
    }
    for c in &m.trailing_comments {
        comment(out, 0, c);
    }
}

fn comment(out: &mut String, ind: usize, c: &str) {
    indent(out, ind);
    if c.is_empty() {
        out.push_str("//\n");
    } else {
        let _ = writeln!(out, "// {c}");
    }
}

pub fn print_kernel(k: &Kernel) -> String {
    let mut out = String::new();
    print_kernel_into(&mut out, k);
    out
}

fn print_kernel_into(out: &mut String, k: &Kernel) {
    for c in &k.comments {
        comment(out, 0, c);
    }
    let _ = write!(out, "kernel @{}", k.name);
    if !k.params.is_empty() {
        out.push('(');
        for (i, &p) in k.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "%{}", k.values[p].name);
            if let ValueKind::Param { default: Some(d) } = k.values[p].kind {
                let _ = write!(out, " = {d}");
            }
        }
        out.push(')');
    }
    if let Some(w) = k.waves {
        let _ = write!(out, " waves {w}");
    }
    out.push_str(" {\n");
    // Buffers are declared at the top of the kernel body, in declaration order.
    for b in k.buffers.values() {
        for c in &b.comments {
            comment(out, 1, c);
        }
        indent(out, 1);
        let _ = write!(
            out,
            "%{} = buffer {} {}",
            k.values[b.value].name, b.space, b.size
        );
        match b.placement {
            Placement::Own => {}
            Placement::Aliases(a) => {
                let _ = write!(out, " aliases %{}", k.values[a].name);
            }
            Placement::At { base, offset } => {
                let _ = write!(out, " at %{}", k.values[base].name);
                if offset != 0 {
                    let _ = write!(out, " + {offset}");
                }
            }
        }
        out.push('\n');
    }
    print_block_body(out, k, k.body, 1);
    out.push_str("}\n");
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push_str("  ");
    }
}

fn print_block_body(out: &mut String, k: &Kernel, b: BlockId, ind: usize) {
    let block = &k.blocks[b];
    for &s in &block.stmts {
        print_stmt(out, k, s, ind);
    }
    for c in &block.trailing_comments {
        comment(out, ind, c);
    }
    if !block.yields.is_empty() {
        indent(out, ind);
        out.push_str("yield ");
        names(out, k, &block.yields);
        out.push('\n');
    }
}

fn names(out: &mut String, k: &Kernel, vs: &[ValueId]) {
    for (i, &v) in vs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "%{}", k.values[v].name);
    }
}

fn print_stmt(out: &mut String, k: &Kernel, s: StmtId, ind: usize) {
    let data = &k.stmts[s];
    for c in &data.comments {
        comment(out, ind, c);
    }
    indent(out, ind);
    match &data.kind {
        StmtKind::Op(op) => {
            let _ = write!(out, "op \"{}\"", op.name);
            if let Some(a) = op.asynchronous {
                out.push_str(" async");
                if let Some(c) = a.counter {
                    let _ = write!(out, "({c})");
                }
            }
            if let Some(p) = op.pipe {
                let _ = write!(out, " pipe {p}");
            }
            for (i, e) in op.effects.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                let _ = write!(out, "{} %{}", e.kind, k.values[e.mem.value].name);
                match &e.mem.sel {
                    Selector::Whole => {}
                    Selector::Bytes { lo, hi } => {
                        let _ = write!(out, "[{lo}:{hi}]");
                    }
                    Selector::Index(x) => {
                        out.push('[');
                        expr(out, k, x);
                        out.push(']');
                    }
                }
            }
            out.push('\n');
        }
        StmtKind::View(v) => {
            let view = &k.views[*v];
            let _ = write!(
                out,
                "%{} = view %{}",
                k.values[view.value].name, k.values[view.base].name
            );
            match &view.kind {
                ViewKind::Range { lo, hi } => {
                    let _ = writeln!(out, "[{lo}:{hi}]");
                }
                ViewKind::Slot { count, index } => {
                    out.push_str(" slot (");
                    expr(out, k, index);
                    let _ = writeln!(out, ") mod {count}");
                }
            }
        }
        StmtKind::For(f) => {
            if !f.results.is_empty() {
                names(out, k, &f.results);
                out.push_str(" = ");
            }
            let _ = write!(out, "for %{} = ", k.values[f.iv].name);
            bound(out, k, f.lo);
            out.push_str(" to ");
            bound(out, k, f.hi);
            if f.step != 1 {
                let _ = write!(out, " step {}", f.step);
            }
            if let Some(m) = f.min_trips {
                let _ = write!(out, " min {m}");
            }
            if let Some(m) = f.max_trips {
                let _ = write!(out, " max {m}");
            }
            if !f.iter_args.is_empty() {
                out.push_str(" iter(");
                for (i, (a, init)) in f.iter_args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "%{} = %{}", k.values[*a].name, k.values[*init].name);
                }
                out.push(')');
            }
            out.push_str(" {\n");
            print_block_body(out, k, f.body, ind + 1);
            indent(out, ind);
            out.push_str("}\n");
        }
        StmtKind::If(i) => {
            if !i.results.is_empty() {
                names(out, k, &i.results);
                out.push_str(" = ");
            }
            let _ = write!(out, "if {} ", i.uniformity);
            cond(out, k, &i.cond);
            out.push_str(" {\n");
            print_block_body(out, k, i.then_block, ind + 1);
            indent(out, ind);
            out.push('}');
            if let Some(e) = i.else_block {
                out.push_str(" else {\n");
                print_block_body(out, k, e, ind + 1);
                indent(out, ind);
                out.push('}');
            }
            out.push('\n');
        }
        StmtKind::Sync(op) => {
            sync_op(out, k, op);
            out.push('\n');
        }
        StmtKind::Stage(st) => {
            out.push_str("stage");
            if let Some(p) = st.prio {
                let _ = write!(out, " prio {p}");
            }
            if let Some(g) = st.gap {
                let _ = write!(out, " gap {g}");
            }
            out.push('\n');
        }
        StmtKind::StageEnd => out.push_str("stage.end\n"),
    }
}

/// Prints one sync op in the text format (no newline).
pub fn sync_op(out: &mut String, k: &Kernel, op: &SyncOp) {
    match op {
        SyncOp::Barrier { id, fence, threads } => {
            out.push_str("barrier");
            if !fence {
                out.push_str(" exec");
            }
            if *id != 0 {
                let _ = write!(out, " id {id}");
                if let Some(t) = threads {
                    let _ = write!(out, " threads {t}");
                }
            }
        }
        SyncOp::Signal { id } => {
            let _ = write!(out, "barrier.signal {id}");
        }
        SyncOp::Wait { id } => {
            let _ = write!(out, "barrier.wait {id}");
        }
        SyncOp::CondBarrier { group } => {
            let _ = write!(out, "cond_barrier {group}");
        }
        SyncOp::CounterWait { counter, n } => {
            let _ = write!(out, "wait {counter}({n})");
        }
        SyncOp::CpAsyncCommit => out.push_str("cp_async.commit"),
        SyncOp::CpAsyncWait { n } => {
            let _ = write!(out, "cp_async.wait {n}");
        }
        SyncOp::SetFlag { src, dst, id } | SyncOp::WaitFlag { src, dst, id } => {
            let kw = if matches!(op, SyncOp::SetFlag { .. }) {
                "set_flag"
            } else {
                "wait_flag"
            };
            let _ = write!(out, "{kw} {src} -> {dst}, ");
            flag_id(out, k, id);
        }
        SyncOp::PipeBarrier { pipe } => {
            let _ = write!(out, "pipe_barrier {pipe}");
        }
        SyncOp::SchedBarrier { mask } => {
            let _ = write!(out, "sched_barrier {mask}");
        }
        SyncOp::SetPrio { prio } => {
            let _ = write!(out, "setprio {prio}");
        }
    }
}

/// A sync op as text, for diagnostics and `--explain`.
pub fn sync_op_string(k: &Kernel, op: &SyncOp) -> String {
    let mut s = String::new();
    sync_op(&mut s, k, op);
    s
}

fn flag_id(out: &mut String, k: &Kernel, id: &FlagId) {
    let _ = write!(out, "{}", id.base);
    if let Some((e, n)) = &id.alternate {
        out.push_str(" + (");
        expr(out, k, e);
        let _ = write!(out, ") mod {n}");
    }
}

fn bound(out: &mut String, k: &Kernel, b: Bound) {
    match b {
        Bound::Const(c) => {
            let _ = write!(out, "{c}");
        }
        Bound::Value(v) => {
            let _ = write!(out, "%{}", k.values[v].name);
        }
    }
}

fn cond(out: &mut String, k: &Kernel, c: &Cond) {
    if c.modulo.is_some()
        && !c.expr.terms.is_empty()
        && (c.expr.terms.len() > 1 || c.expr.constant != 0 || c.expr.terms[0].1 != 1)
    {
        out.push('(');
        expr(out, k, &c.expr);
        out.push(')');
    } else {
        expr(out, k, &c.expr);
    }
    if let Some(m) = c.modulo {
        let _ = write!(out, " mod {m}");
    }
    if let Some((op, rhs)) = c.cmp {
        let _ = write!(out, " {} {rhs}", op.as_str());
    }
}

/// Prints an affine expression: variables in canonical order, then the constant.
pub fn expr(out: &mut String, k: &Kernel, e: &AffineExpr) {
    let mut first = true;
    for &(v, c) in &e.terms {
        let name = match v {
            Var::Tid => "tid".to_string(),
            Var::Value(id) => format!("%{}", k.values[id].name),
        };
        let mag = c.unsigned_abs();
        if first {
            if c < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if c < 0 { " - " } else { " + " });
        }
        if mag == 1 {
            out.push_str(&name);
        } else {
            let _ = write!(out, "{name} * {mag}");
        }
        first = false;
    }
    if first {
        let _ = write!(out, "{}", e.constant);
    } else if e.constant != 0 {
        let _ = write!(
            out,
            " {} {}",
            if e.constant < 0 { "-" } else { "+" },
            e.constant.unsigned_abs()
        );
    }
}

/// An affine expression as text.
pub fn expr_string(k: &Kernel, e: &AffineExpr) -> String {
    let mut s = String::new();
    expr(&mut s, k, e);
    s
}
