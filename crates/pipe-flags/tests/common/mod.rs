//! Helpers shared by the pipe-flags tests: parse, insert, print, verify.
#![allow(dead_code)]

use syncopt_analysis::{InsertOptions, PassReport};
use syncopt_ir::{Kernel, StmtKind, SyncOp};
use syncopt_targets::Target;

pub fn parse_kernel(src: &str) -> Kernel {
    let file = syncopt_ir::parse(src).unwrap_or_else(|d| panic!("parse error: {d:?}\n{src}"));
    file.chunks
        .into_iter()
        .next()
        .unwrap()
        .kernels
        .into_iter()
        .next()
        .unwrap()
}

/// Kernel `body` (the lines inside `kernel @k(...) { }`) on `target`, through the pass.
pub fn insert_with(src: &str, target: Target, opts: &InsertOptions) -> (Kernel, PassReport) {
    let mut k = parse_kernel(src);
    let r = syncopt_pipe_flags::run(&mut k, target, opts);
    (k, r)
}

pub fn insert(src: &str, target: Target) -> (Kernel, PassReport) {
    insert_with(src, target, &InsertOptions::default())
}

/// The printed statements of the kernel body, one per line, trimmed, without buffers.
pub fn body_lines(k: &Kernel) -> Vec<String> {
    syncopt_ir::print_kernel(k)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && !l.contains("= buffer") && !l.starts_with("kernel"))
        .filter(|l| l != "}")
        .collect()
}

/// Only the sync lines (and structure openers), to compare placements compactly.
pub fn sync_lines(k: &Kernel) -> Vec<String> {
    body_lines(k)
        .into_iter()
        .filter(|l| {
            l.starts_with("set_flag") || l.starts_with("wait_flag") || l.starts_with("pipe_barrier")
        })
        .collect()
}

pub fn verify_ok(k: &Kernel, target: Target) -> Result<(), String> {
    let r = syncopt_verify::verify(k, target);
    if r.is_ok() {
        Ok(())
    } else {
        Err(format!(
            "{}\n{:#?}",
            syncopt_ir::print_kernel(k),
            r.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        ))
    }
}

pub fn count_syncs(k: &Kernel) -> usize {
    let mut n = 0;
    k.walk(&mut |_, d| {
        if matches!(d.kind, StmtKind::Sync(_)) {
            n += 1;
        }
    });
    n
}

/// Every sync the pass inserted, with the kernel minus that one statement.
pub fn each_removed(k: &Kernel) -> Vec<(String, Kernel)> {
    k.inserted_syncs()
        .into_iter()
        .map(|s| {
            let mut c = k.clone();
            let text = match &k.stmts[s].kind {
                StmtKind::Sync(op) => syncopt_ir::printer::sync_op_string(k, op),
                _ => String::new(),
            };
            c.remove_stmt(s);
            (text, c)
        })
        .collect()
}

/// Every inserted flag pair (set and wait with the same source pipe, destination and id in
/// one block, the set before the wait) removed together, plus every inserted pipe barrier.
pub fn each_pair_removed(k: &Kernel) -> Vec<(String, Kernel)> {
    let mut out = Vec::new();
    for (_, b) in k.blocks.iter() {
        for (i, &s) in b.stmts.iter().enumerate() {
            let d = &k.stmts[s];
            if !d.inserted {
                continue;
            }
            match &d.kind {
                StmtKind::Sync(SyncOp::SetFlag { src, dst, id }) => {
                    let w = b.stmts[i + 1..].iter().copied().find(|&t| {
                        matches!(&k.stmts[t].kind,
                            StmtKind::Sync(SyncOp::WaitFlag { src: s2, dst: d2, id: i2 })
                            if s2 == src && d2 == dst && i2 == id)
                    });
                    if let Some(w) = w {
                        let mut c = k.clone();
                        c.remove_stmt(s);
                        c.remove_stmt(w);
                        out.push((
                            format!(
                                "pair {}",
                                syncopt_ir::printer::sync_op_string(
                                    k,
                                    match &d.kind {
                                        StmtKind::Sync(op) => op,
                                        _ => unreachable!(),
                                    }
                                )
                            ),
                            c,
                        ));
                    }
                }
                StmtKind::Sync(op @ SyncOp::PipeBarrier { .. }) => {
                    let mut c = k.clone();
                    c.remove_stmt(s);
                    out.push((syncopt_ir::printer::sync_op_string(k, op), c));
                }
                _ => {}
            }
        }
    }
    out
}
