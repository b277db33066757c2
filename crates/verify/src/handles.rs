//! Where handle bindings die. The workgroup model keeps, per path, the memory that each live
//! handle (`iter` argument, loop or `if` result) names; two paths that differ only in the
//! binding of a handle that nothing reads again are the same path for everything to come, so
//! the checker drops such bindings and lets those paths merge exactly (no precision lost).
//!
//! A handle is read by an effect on it, by a view or placed buffer built on it (views resolve
//! lazily, through their base), by an `iter` initial value and by a `yield`. A read inside a
//! loop that the handle was bound outside of keeps the handle alive until the loop ends (the
//! next iteration reads it again).

use syncopt_ir::{BlockId, EntityRef, Kernel, Placement, StmtId, StmtKind, ValueId, ValueKind};

/// Per statement (by index): the handles whose last read lies inside it, so their bindings
/// can be dropped once it has run.
pub(crate) fn kills(k: &Kernel) -> Vec<Vec<ValueId>> {
    let n = k.stmts.len();
    let mut num = Numbering {
        start: vec![0; n],
        end: vec![0; n],
        parent: vec![None; n],
        seen: vec![false; n],
        ypos: vec![0; k.blocks.len()],
        pos: 0,
    };
    num.block(k, k.body, None);
    let mut last: Vec<Option<u32>> = vec![None; k.values.len()];
    let mut stack = Vec::new();
    uses(k, &num, k.body, &mut stack, &mut last);

    // The innermost statement holding each position (a statement's start, or a block's yield,
    // which belongs to the statement that owns the block).
    let mut owner: Vec<Option<StmtId>> = vec![None; num.pos as usize];
    for s in k.stmts.keys() {
        if num.seen[s.index()] {
            owner[num.start[s.index()] as usize] = Some(s);
        }
    }
    for b in k.blocks.keys() {
        let p = num.ypos[b.index()] as usize;
        if let (Some(s), true) = (k.blocks[b].parent, p < owner.len()) {
            if owner[p].is_none() && num.seen[s.index()] {
                owner[p] = Some(s);
            }
        }
    }
    let mut kills = vec![Vec::new(); n];
    for (v, vd) in k.values.iter() {
        let at = match last[v.index()] {
            Some(p) => owner.get(p as usize).copied().flatten(),
            // Never read: dead as soon as the statement that binds a result has run.
            None => match vd.kind {
                ValueKind::Result { stmt, .. } => Some(stmt),
                _ => None,
            },
        };
        let mut cur = at;
        let mut guard = 0;
        while let Some(s) = cur {
            kills[s.index()].push(v);
            cur = num.parent[s.index()];
            guard += 1;
            if guard > n {
                break;
            }
        }
    }
    kills
}

struct Numbering {
    start: Vec<u32>,
    end: Vec<u32>,
    /// The statement owning the block a statement is in.
    parent: Vec<Option<StmtId>>,
    /// Reachable from the kernel body.
    seen: Vec<bool>,
    /// Position of each block's yield (after its statements).
    ypos: Vec<u32>,
    pos: u32,
}

impl Numbering {
    fn block(&mut self, k: &Kernel, b: BlockId, parent: Option<StmtId>) {
        for &s in &k.blocks[b].stmts {
            self.start[s.index()] = self.pos;
            self.parent[s.index()] = parent;
            self.seen[s.index()] = true;
            self.pos += 1;
            for cb in k.stmts[s].kind.child_block_ids() {
                self.block(k, cb, Some(s));
            }
            self.end[s.index()] = self.pos - 1;
        }
        self.ypos[b.index()] = self.pos;
        self.pos += 1;
    }
}

fn inside(num: &Numbering, s: StmtId, l: StmtId) -> bool {
    let (a, b) = (num.start[l.index()], num.end[l.index()]);
    (a..=b).contains(&num.start[s.index()])
}

/// Whether each trip of loop `l` binds `h` anew (so a read of `h` in `l` is not a read in a
/// later trip of the binding made before).
fn bound_in(k: &Kernel, num: &Numbering, h: ValueId, l: StmtId) -> bool {
    match k.values[h].kind {
        ValueKind::IterArg { stmt, .. } => inside(num, stmt, l),
        ValueKind::Result { stmt, .. } => stmt != l && inside(num, stmt, l),
        _ => true,
    }
}

fn handle_deps(k: &Kernel, v: ValueId, out: &mut Vec<ValueId>, depth: u32) {
    if depth > 64 {
        return;
    }
    match k.values[v].kind {
        ValueKind::IterArg { .. } | ValueKind::Result { .. } => out.push(v),
        ValueKind::View(view) => handle_deps(k, k.views[view].base, out, depth + 1),
        ValueKind::Buffer(b) => match k.buffers[b].placement {
            Placement::At { base, .. } | Placement::Aliases(base) => {
                handle_deps(k, base, out, depth + 1)
            }
            Placement::Own => {}
        },
        _ => {}
    }
}

fn read(
    k: &Kernel,
    num: &Numbering,
    v: ValueId,
    p: u32,
    stack: &[StmtId],
    last: &mut [Option<u32>],
) {
    let mut deps = Vec::new();
    handle_deps(k, v, &mut deps, 0);
    for h in deps {
        let p = stack
            .iter()
            .find(|&&l| !bound_in(k, num, h, l))
            .map(|l| num.end[l.index()])
            .unwrap_or(p);
        let e = &mut last[h.index()];
        *e = Some(e.map_or(p, |q| q.max(p)));
    }
}

fn uses(
    k: &Kernel,
    num: &Numbering,
    b: BlockId,
    stack: &mut Vec<StmtId>,
    last: &mut [Option<u32>],
) {
    for &s in &k.blocks[b].stmts {
        let p = num.start[s.index()];
        match &k.stmts[s].kind {
            StmtKind::Op(od) => {
                for e in &od.effects {
                    read(k, num, e.mem.value, p, stack, last);
                }
            }
            StmtKind::For(f) => {
                for &(_, init) in &f.iter_args {
                    read(k, num, init, p, stack, last);
                }
                stack.push(s);
                uses(k, num, f.body, stack, last);
                for &y in &k.blocks[f.body].yields {
                    read(k, num, y, num.ypos[f.body.index()], stack, last);
                }
                stack.pop();
            }
            StmtKind::If(i) => {
                uses(k, num, i.then_block, stack, last);
                if let Some(e) = i.else_block {
                    uses(k, num, e, stack, last);
                }
                // A divergent if reads both branches' yields after both have run; at the
                // if's last position, no statement inside it drops them.
                let end = num.end[s.index()];
                for cb in [Some(i.then_block), i.else_block].into_iter().flatten() {
                    for &y in &k.blocks[cb].yields {
                        read(k, num, y, end, stack, last);
                    }
                }
            }
            _ => {}
        }
    }
}
