//! Where an access lands: root buffer, alias class, byte range, and the loop-selected slot
//! layers between them, so that two accesses can be compared at a given iteration distance.

use syncopt_ir::{
    AffineExpr, BufferId, EntityRef, Kernel, Placement, Selector, StmtId, StmtKind, ValueId,
    ValueKind, Var, ViewKind,
};

/// One `slot (expr) mod count` layer: adds `(expr mod count) * size` to the offset.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub count: u32,
    pub size: u64,
    pub index: AffineExpr,
}

/// A byte range of a root buffer: `[off + sum(slot offsets), + len)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Footprint {
    pub root: BufferId,
    /// Buffers that may overlap (`aliases`) share a class; different classes never conflict.
    pub class: u32,
    /// False when the range is unknown: the access may touch all of the class.
    pub exact: bool,
    pub off: u64,
    pub len: u64,
    pub slots: Vec<Slot>,
}

/// Alias classes of the buffers (union of `aliases` and `at` links).
pub fn alias_classes(kernel: &Kernel) -> Vec<u32> {
    let n = kernel.buffers.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for (b, data) in kernel.buffers.iter() {
        let other = match data.placement {
            Placement::Own => None,
            Placement::Aliases(v) | Placement::At { base: v, .. } => root_buffer(kernel, v, 0),
        };
        if let Some(o) = other {
            let (x, y) = (find(&mut parent, b.index()), find(&mut parent, o.index()));
            parent[x] = y;
        }
    }
    (0..n).map(|i| find(&mut parent, i) as u32).collect()
}

/// The buffer a memory value ultimately names (ignoring offsets), if any.
fn root_buffer(kernel: &Kernel, v: ValueId, depth: u32) -> Option<BufferId> {
    if depth > 64 {
        return None;
    }
    match kernel.values.get(v)?.kind {
        ValueKind::Buffer(b) => Some(b),
        ValueKind::View(view) => root_buffer(kernel, kernel.views[view].base, depth + 1),
        _ => None,
    }
}

/// Every footprint a memory value may denote. Handles resolve to each value they may hold
/// (initial and yielded); `through_handle` is set then, since which one a given iteration
/// sees is not tracked.
pub fn footprints(
    kernel: &Kernel,
    classes: &[u32],
    v: ValueId,
    sel: &Selector,
    out: &mut Vec<(Footprint, bool)>,
) {
    let mut seen = Vec::new();
    resolve(kernel, classes, v, sel, false, 0, &mut seen, out);
}

#[allow(clippy::too_many_arguments)]
fn resolve(
    kernel: &Kernel,
    classes: &[u32],
    v: ValueId,
    sel: &Selector,
    handle: bool,
    depth: u32,
    seen: &mut Vec<ValueId>,
    out: &mut Vec<(Footprint, bool)>,
) {
    if depth > 32 || kernel.values.get(v).is_none() {
        return;
    }
    match kernel.values[v].kind {
        ValueKind::Buffer(_) | ValueKind::View(_) => {
            if let Some(fp) = direct(kernel, classes, v, sel) {
                out.push((fp, handle));
            }
        }
        ValueKind::IterArg { stmt, index } | ValueKind::Result { stmt, index } => {
            if seen.contains(&v) {
                return;
            }
            seen.push(v);
            for c in handle_candidates(kernel, stmt, index) {
                resolve(kernel, classes, c, sel, true, depth + 1, seen, out);
            }
        }
        _ => {}
    }
}

fn handle_candidates(kernel: &Kernel, stmt: StmtId, index: usize) -> Vec<ValueId> {
    let mut c = Vec::new();
    match &kernel.stmts[stmt].kind {
        StmtKind::For(f) => {
            if let Some(&(_, init)) = f.iter_args.get(index) {
                c.push(init);
            }
            if let Some(&y) = kernel.blocks[f.body].yields.get(index) {
                c.push(y);
            }
        }
        StmtKind::If(i) => {
            if let Some(&y) = kernel.blocks[i.then_block].yields.get(index) {
                c.push(y);
            }
            if let Some(e) = i.else_block {
                if let Some(&y) = kernel.blocks[e].yields.get(index) {
                    c.push(y);
                }
            }
        }
        _ => {}
    }
    c
}

/// Footprint of a buffer or view chain (no handles inside).
fn direct(kernel: &Kernel, classes: &[u32], v: ValueId, sel: &Selector) -> Option<Footprint> {
    // Walk down to the root, collecting range offsets and slot layers.
    let mut off: u64 = 0;
    let mut slots = Vec::new();
    let mut cur = v;
    let size = kernel.static_size(v);
    let mut exact = size.is_some();
    let mut depth = 0;
    let root = loop {
        depth += 1;
        if depth > 64 {
            return None;
        }
        match kernel.values.get(cur)?.kind {
            ValueKind::Buffer(b) => match kernel.buffers[b].placement {
                Placement::At { base, offset } => {
                    off = off.saturating_add(offset);
                    cur = base;
                }
                _ => break b,
            },
            ValueKind::View(view) => {
                let data = &kernel.views[view];
                match &data.kind {
                    ViewKind::Range { lo, .. } => off = off.saturating_add(*lo),
                    ViewKind::Slot { count, index } => match kernel.static_size(data.base) {
                        Some(s) if *count > 0 => slots.push(Slot {
                            count: *count,
                            size: s / *count as u64,
                            index: index.clone(),
                        }),
                        _ => exact = false,
                    },
                }
                cur = data.base;
            }
            // A view of a handle: its place is not tracked here.
            _ => {
                let mut tmp = Vec::new();
                let mut seen = Vec::new();
                resolve(
                    kernel,
                    classes,
                    cur,
                    &Selector::Whole,
                    true,
                    1,
                    &mut seen,
                    &mut tmp,
                );
                let (fp, _) = tmp.into_iter().next()?;
                return Some(Footprint { exact: false, ..fp });
            }
        }
    };
    let mut len = size.unwrap_or(0);
    match sel {
        Selector::Whole => {}
        Selector::Bytes { lo, hi } => {
            off = off.saturating_add(*lo);
            len = hi.saturating_sub(*lo);
        }
        // Per-thread words: ownership does not matter on a single-threaded core; the access
        // may touch any word of the value.
        Selector::Index(_) => {}
    }
    Some(Footprint {
        root,
        class: classes
            .get(root.index())
            .copied()
            .unwrap_or(root.index() as u32),
        exact,
        off,
        len,
        slots,
    })
}

/// How the variables of two accesses relate: `shared` variables take one value for both,
/// `shift` (a loop's iv) is `step * distance` larger for the second access.
pub struct Relation<'a> {
    /// Induction variables of loops enclosing both accesses.
    pub shared: &'a [ValueId],
    /// The iv of the loop the distance is measured in, its step, and the distance.
    pub shift: Option<(ValueId, i64, i64)>,
}

const ENUM_LIMIT: usize = 4096;

/// Whether the two footprints may overlap under `rel`.
pub fn conflict(a: &Footprint, b: &Footprint, rel: &Relation) -> bool {
    if a.class != b.class {
        return false;
    }
    if a.root != b.root || !a.exact || !b.exact {
        return true;
    }
    if a.slots.is_empty() && b.slots.is_empty() {
        return overlaps(a.off, a.len, b.off, b.len);
    }
    // Enumerate the residues of every variable the slot indices use.
    let mut l: u64 = 1;
    for s in a.slots.iter().chain(&b.slots) {
        l = lcm(l, s.count as u64);
        if l > 64 {
            return true;
        }
    }
    let mut vars: Vec<(Var, bool)> = Vec::new(); // (var, shared)
    for s in a.slots.iter().chain(&b.slots) {
        for &(v, _) in &s.index.terms {
            let shared = match v {
                Var::Value(id) => {
                    rel.shared.contains(&id) || rel.shift.is_some_and(|(iv, _, _)| iv == id)
                }
                Var::Tid => false,
            };
            if !vars.iter().any(|x| x.0 == v) {
                vars.push((v, shared));
            }
        }
    }
    // Shared vars take one value; others take independent values on each side.
    let slots_count: usize = vars.iter().map(|&(_, s)| if s { 1 } else { 2 }).sum();
    let combos = (l as usize).checked_pow(slots_count as u32);
    if combos.is_none_or(|c| c > ENUM_LIMIT) {
        return true;
    }
    let combos = combos.unwrap_or(1);
    let mut vals = vec![0i64; slots_count];
    for c in 0..combos {
        let mut x = c;
        for v in vals.iter_mut() {
            *v = (x % l as usize) as i64;
            x /= l as usize;
        }
        let lookup = |side: usize, var: Var| -> i64 {
            let mut k = 0;
            for &(v, shared) in &vars {
                if v == var {
                    let base = if shared { vals[k] } else { vals[k + side] };
                    if side == 1 {
                        if let Some((iv, step, d)) = rel.shift {
                            if Var::Value(iv) == var {
                                return base + step.wrapping_mul(d);
                            }
                        }
                    }
                    return base;
                }
                k += if shared { 1 } else { 2 };
            }
            0
        };
        let oa = slot_off(a, |v| lookup(0, v));
        let ob = slot_off(b, |v| lookup(1, v));
        if overlaps(oa, a.len, ob, b.len) {
            return true;
        }
    }
    false
}

fn slot_off(f: &Footprint, mut lookup: impl FnMut(Var) -> i64) -> u64 {
    let mut o = f.off;
    for s in &f.slots {
        let i = s.index.eval(&mut lookup).rem_euclid(s.count as i64) as u64;
        o = o.saturating_add(i.saturating_mul(s.size));
    }
    o
}

fn overlaps(a: u64, al: u64, b: u64, bl: u64) -> bool {
    al > 0 && bl > 0 && a < b.saturating_add(bl) && b < a.saturating_add(al)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a.max(b);
    }
    a / gcd(a, b) * b
}

/// Largest slot count period in the footprints (distances repeat with it).
pub fn period(a: &Footprint, b: &Footprint) -> u64 {
    let mut l = 1;
    for s in a.slots.iter().chain(&b.slots) {
        l = lcm(l, s.count as u64).min(64);
    }
    l
}
