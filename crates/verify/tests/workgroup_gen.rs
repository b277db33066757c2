//! `syncopt gen` kernels, synchronized by brute force (a barrier after every statement, a
//! `wait C(0)` after every async op), must verify on every GPU target.

#[path = "support/brute_force.rs"]
mod brute_force;

use brute_force::{brute_force, uniform_ifs};
use syncopt_gen::{generate, GenOptions};
use syncopt_ir::{BlockId, Kernel, StmtKind, Uniformity};
use syncopt_targets::Target;

/// The statements nested (at any depth) in divergent ifs, by line, with the outermost
/// divergent if they sit in.
fn divergent_regions(k: &Kernel) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    fn lines(k: &Kernel, b: BlockId, acc: &mut (u32, u32)) {
        for &s in &k.blocks[b].stmts {
            if let Some(l) = k.stmts[s].loc {
                acc.0 = acc.0.min(l.line);
                acc.1 = acc.1.max(l.line);
            }
            for c in k.stmts[s].kind.child_blocks() {
                lines(k, c, acc);
            }
        }
    }
    fn walk(k: &Kernel, b: BlockId, out: &mut Vec<(u32, u32)>) {
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::If(i) if i.uniformity == Uniformity::Divergent => {
                    let mut acc = (u32::MAX, 0);
                    lines(k, i.then_block, &mut acc);
                    if let Some(e) = i.else_block {
                        lines(k, e, &mut acc);
                    }
                    out.push(acc);
                }
                _ => {
                    for c in k.stmts[s].kind.child_blocks() {
                        walk(k, c, out);
                    }
                }
            }
        }
    }
    walk(k, k.body, &mut out);
    out
}

pub fn parse_one(text: &str) -> Kernel {
    let file = syncopt_ir::parse(text)
        .unwrap_or_else(|d| panic!("gen output does not parse: {d:?}\n{text}"));
    file.chunks[0].kernels[0].clone()
}

#[test]
fn brute_force_sync_verifies_on_every_gpu() {
    for &t in Target::GPUS {
        for seed in 0..40 {
            for ops in [8usize, 30, 120] {
                let text = generate(&GenOptions {
                    ops,
                    seed,
                    target: t,
                    executable: false,
                });
                let mut k = parse_one(&text);
                uniform_ifs(&mut k);
                brute_force(&mut k, t);
                let r = syncopt_verify::verify(&k, t);
                assert!(
                    r.is_ok(),
                    "{t} seed {seed} ops {ops}:\n{}\n{:#?}",
                    syncopt_ir::print_kernel(&k),
                    r.diagnostics
                );
            }
        }
    }
}

/// As generated (divergent ifs kept, no barrier inside them): every problem left is a real
/// race between two accesses inside one divergent if, where no barrier may go.
#[test]
fn divergent_leftovers_are_inside_divergent_ifs() {
    let mut seen = 0;
    for &t in Target::GPUS {
        for seed in 0..40 {
            let text = generate(&GenOptions {
                ops: 60,
                seed,
                target: t,
                executable: false,
            });
            let mut k = parse_one(&text);
            let regions = divergent_regions(&k);
            brute_force(&mut k, t);
            let r = syncopt_verify::verify(&k, t);
            for d in r.diagnostics.iter().filter(|d| d.is_error()) {
                assert!(d.message.starts_with("race"), "{t} seed {seed}: {d:?}");
                let ly = d.loc.expect("race has a location").line;
                let lx = d.notes[0].0.expect("other access located").line;
                assert!(
                    regions
                        .iter()
                        .any(|&(a, b)| (a..=b).contains(&lx) && (a..=b).contains(&ly)),
                    "{t} seed {seed}: race outside a divergent if: {d:?}\n{text}"
                );
                seen += 1;
            }
        }
    }
    // gen now keeps only reads under divergent ifs, so nothing should be left at all.
    assert_eq!(seen, 0, "gen writes under divergent ifs again");
}

/// Removing one barrier from a brute-force-synchronized straight-line kernel whose two
/// neighbours conflict must be caught.
#[test]
fn removed_barrier_between_conflicting_neighbours_is_caught() {
    let mut caught = 0;
    for &t in Target::GPUS {
        for seed in 0..30 {
            let text = generate(&GenOptions {
                ops: 20,
                seed,
                target: t,
                executable: false,
            });
            let mut k = parse_one(&text);
            uniform_ifs(&mut k);
            brute_force(&mut k, t);
            let body = k.blocks[k.body].stmts.clone();
            // Find op, barrier(s), op at the top level where the ops conflict directly.
            for w in 0..body.len() {
                let StmtKind::Op(a) = &k.stmts[body[w]].kind else {
                    continue;
                };
                if a.asynchronous.is_some() {
                    continue;
                }
                let mut j = w + 1;
                let mut syncs = Vec::new();
                while j < body.len() && matches!(k.stmts[body[j]].kind, StmtKind::Sync(_)) {
                    syncs.push(body[j]);
                    j += 1;
                }
                if j >= body.len() {
                    continue;
                }
                let StmtKind::Op(b) = &k.stmts[body[j]].kind else {
                    continue;
                };
                let wg = |e: &syncopt_ir::Effect| {
                    syncopt_targets::effect_space(&k, e) == Some(syncopt_ir::Space::Workgroup)
                        && matches!(k.values[e.mem.value].kind, syncopt_ir::ValueKind::Buffer(_))
                        && e.mem.sel == syncopt_ir::Selector::Whole
                };
                let conflict = a.effects.iter().filter(|e| wg(e)).any(|ea| {
                    b.effects.iter().filter(|e| wg(e)).any(|eb| {
                        ea.mem.value == eb.mem.value
                            && (ea.kind.writes() || eb.kind.writes())
                            && !(ea.kind == syncopt_ir::AccessKind::Atomic
                                && eb.kind == syncopt_ir::AccessKind::Atomic)
                    })
                });
                if !conflict {
                    continue;
                }
                let mut k2 = k.clone();
                for s in &syncs {
                    k2.remove_stmt(*s);
                }
                let r = syncopt_verify::verify(&k2, t);
                assert!(
                    r.diagnostics.iter().any(|d| d.message.starts_with("race")),
                    "{t} seed {seed}: removing the barrier between stmts {w} and {j} went unnoticed\n{}",
                    syncopt_ir::print_kernel(&k2)
                );
                caught += 1;
                break;
            }
        }
    }
    assert!(caught > 10, "only {caught} cases exercised");
}
