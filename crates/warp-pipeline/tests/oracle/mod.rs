//! An operational check of converted pipelines, written apart from the pass: it runs the
//! program for the two wave groups (loops unrolled 0..=4 times), records each group's
//! barrier arrivals (fencing or not) and concrete LDS accesses, and looks for a conflicting
//! pair that no fencing arrival orders, or unequal arrival counts (a deadlock).

use std::collections::BTreeMap;

use syncopt_ir::{
    BufferId, Counter, Group, Kernel, Selector, StmtKind, SyncOp, ValueId, ValueKind, Var, ViewKind,
};
use syncopt_targets::Target;

#[derive(Clone, Debug)]
enum Ev {
    Arrive,
    Fence,
    /// An async op on this counter issues.
    Issue(Counter),
    /// `wait counter(n)`.
    Wait(Counter, u32),
    Access {
        op: usize,
        /// Instance: the op's statement and the loop trip numbers around it.
        inst: Vec<i64>,
        write: bool,
        atomic: bool,
        /// Async: completes at a wait on this counter, not at an LDS fence.
        async_counter: Option<Counter>,
        buf: BufferId,
        lo: u64,
        hi: u64,
        /// Per-thread word index, when the access states one.
        owner: Option<syncopt_ir::AffineExpr>,
        text: String,
    },
}

struct Runner<'a> {
    k: &'a Kernel,
    target: Target,
    high: bool,
    env: BTreeMap<ValueId, i64>,
    /// Trip count of each loop, by statement.
    trips: BTreeMap<syncopt_ir::StmtId, i64>,
    out: Vec<Ev>,
    iters: Vec<i64>,
}

impl Runner<'_> {
    fn block(&mut self, b: syncopt_ir::BlockId) {
        for &s in &self.k.blocks[b].stmts.clone() {
            let d = &self.k.stmts[s];
            match &d.kind {
                StmtKind::Op(op) => {
                    let async_counter = op
                        .asynchronous
                        .and_then(|spec| self.target.async_counter(spec, &op.name));
                    if let Some(c) = async_counter {
                        self.out.push(Ev::Issue(c));
                    }
                    for e in &op.effects {
                        if let Some((buf, lo, hi)) = self.range(e.mem.value) {
                            let (lo, hi) = match e.mem.sel {
                                Selector::Bytes { lo: a, hi: z } => (lo + a, lo + z),
                                _ => (lo, hi),
                            };
                            let owner = match &e.mem.sel {
                                Selector::Index(x) => Some(x.clone()),
                                _ => None,
                            };
                            let mut inst = self.iters.clone();
                            inst.push(syncopt_ir::EntityRef::index(s) as i64);
                            self.out.push(Ev::Access {
                                op: syncopt_ir::EntityRef::index(s),
                                inst,
                                write: e.kind.writes(),
                                atomic: e.kind == syncopt_ir::AccessKind::Atomic,
                                async_counter,
                                buf,
                                lo,
                                hi,
                                owner,
                                text: format!("{} at {:?} iters {:?}", op.name, d.loc, self.iters),
                            });
                        }
                    }
                }
                StmtKind::For(f) => {
                    for t in 0..self.trips[&s] {
                        self.env.insert(f.iv, t);
                        self.iters.push(t);
                        self.block(f.body);
                        self.iters.pop();
                    }
                }
                StmtKind::If(i) => {
                    // Test kernels only use conditions true in every wave.
                    self.block(i.then_block);
                }
                StmtKind::Sync(op) => match op {
                    SyncOp::Barrier { fence, .. } => {
                        if *fence {
                            self.out.push(Ev::Fence);
                        }
                        self.out.push(Ev::Arrive);
                    }
                    SyncOp::CondBarrier { group } if (*group == Group::High) == self.high => {
                        self.out.push(Ev::Arrive);
                    }
                    SyncOp::CounterWait { counter, n: 0 }
                        if Some(*counter) == self.target.info().lds_counter =>
                    {
                        self.out.push(Ev::Fence)
                    }
                    SyncOp::CounterWait { counter, n } => self.out.push(Ev::Wait(*counter, *n)),
                    _ => {}
                },
                _ => {}
            }
        }
    }

    fn range(&self, v: ValueId) -> Option<(BufferId, u64, u64)> {
        match self.k.values[v].kind {
            ValueKind::Buffer(b) => {
                if self.k.buffers[b].space != syncopt_ir::Space::Workgroup {
                    return None;
                }
                Some((b, 0, self.k.buffers[b].size))
            }
            ValueKind::View(view) => {
                let vd = &self.k.views[view];
                let (b, lo, hi) = self.range(vd.base)?;
                match &vd.kind {
                    ViewKind::Range { lo: a, hi: z } => Some((b, lo + a, lo + z)),
                    ViewKind::Slot { count, index } => {
                        let s = (hi - lo) / *count as u64;
                        let i = index
                            .eval(|var| match var {
                                Var::Value(x) => *self.env.get(&x).unwrap_or(&0),
                                Var::Tid => 0,
                            })
                            .rem_euclid(*count as i64) as u64;
                        Some((b, lo + i * s, lo + (i + 1) * s))
                    }
                }
            }
            _ => None,
        }
    }
}

/// Per access position: the phase whose completion publishes it (the first arrival after
/// the first fence after it), and the number of arrivals before it.
fn phases(tr: &[Ev]) -> Vec<(usize, usize)> {
    let mut out = vec![(usize::MAX, 0); tr.len()];
    let mut arrivals = 0;
    for (i, e) in tr.iter().enumerate() {
        if matches!(e, Ev::Access { .. }) {
            out[i].1 = arrivals;
        }
        if matches!(e, Ev::Arrive) {
            arrivals += 1;
        }
    }
    let mut publish = usize::MAX;
    let mut arr_after = 0;
    let total = arrivals;
    for i in (0..tr.len()).rev() {
        match tr[i] {
            Ev::Arrive => arr_after += 1,
            Ev::Fence => {
                // The next arrival after this fence: phase number (1-based).
                publish = if arr_after == 0 {
                    usize::MAX
                } else {
                    total - arr_after + 1
                };
            }
            Ev::Access {
                async_counter: None,
                ..
            } => out[i].0 = publish,
            Ev::Access { .. } | Ev::Issue(_) | Ev::Wait(..) => {}
        }
    }
    // An async access completes at the first `wait counter(n)` issued once at least n newer
    // ops went out on its counter (in-order completion: only the n newest may still be in
    // flight); the first arrival after that publishes it.
    for i in 0..tr.len() {
        let Ev::Access {
            async_counter: Some(c),
            ..
        } = tr[i]
        else {
            continue;
        };
        let mut newer = 0u32;
        let mut done = None;
        for (j, e) in tr.iter().enumerate().skip(i + 1) {
            match e {
                Ev::Issue(x) if *x == c => newer += 1,
                Ev::Wait(x, n) if *x == c && newer >= *n => {
                    done = Some(j);
                    break;
                }
                _ => {}
            }
        }
        out[i].0 = match done {
            Some(j) => {
                let before = tr[..j].iter().filter(|e| matches!(e, Ev::Arrive)).count();
                if before == total {
                    usize::MAX
                } else {
                    before + 1
                }
            }
            None => usize::MAX,
        };
    }
    out
}

/// `Err` describes the first race or deadlock found.
pub fn check(k: &Kernel, target: Target) -> Result<(), String> {
    let mut loops = Vec::new();
    k.walk(&mut |s, d| {
        if matches!(d.kind, StmtKind::For(_)) {
            loops.push(s);
        }
    });
    // Every combination of 0..=4 trips per loop (the same count for all past three loops).
    let combos: Vec<Vec<i64>> = if loops.len() <= 3 {
        let mut out = vec![Vec::new()];
        for _ in &loops {
            out = out
                .into_iter()
                .flat_map(|c: Vec<i64>| {
                    (0..=4).map(move |t| {
                        let mut c = c.clone();
                        c.push(t);
                        c
                    })
                })
                .collect();
        }
        out
    } else {
        (0..=4).map(|t| vec![t; loops.len()]).collect()
    };
    for combo in combos {
        let trips: BTreeMap<_, _> = loops.iter().copied().zip(combo.iter().copied()).collect();
        let trace = |high| {
            let mut r = Runner {
                k,
                target,
                high,
                env: BTreeMap::new(),
                trips: trips.clone(),
                out: Vec::new(),
                iters: Vec::new(),
            };
            r.block(k.body);
            r.out
        };
        let (lo, hi) = (trace(false), trace(true));
        let count = |t: &[Ev]| t.iter().filter(|e| matches!(e, Ev::Arrive)).count();
        if count(&lo) != count(&hi) {
            return Err(format!(
                "deadlock at trips {combo:?}: low arrives {} times, high {}",
                count(&lo),
                count(&hi)
            ));
        }
        let (plo, phi) = (phases(&lo), phases(&hi));
        let groups = [(&lo, &plo), (&hi, &phi)];
        for (ga, (ta, pa)) in groups.iter().enumerate() {
            for (gb, (tb, pb)) in groups.iter().enumerate() {
                for (i, x) in ta.iter().enumerate() {
                    for (j, y) in tb.iter().enumerate() {
                        let (
                            Ev::Access {
                                op: ox,
                                inst: ix,
                                write: wx,
                                atomic: ax,
                                async_counter: _,
                                buf: bx,
                                lo: lx,
                                hi: hx,
                                owner: ox_own,
                                text: tx,
                            },
                            Ev::Access {
                                op: oy,
                                inst: iy,
                                write: wy,
                                atomic: ay,
                                async_counter: _,
                                buf: by,
                                lo: ly,
                                hi: hy,
                                owner: oy_own,
                                text: ty,
                            },
                        ) = (x, y)
                        else {
                            continue;
                        };
                        if !(*wx || *wy) || bx != by || !(lx < hy && ly < hx) {
                            continue;
                        }
                        if *ax && *ay {
                            continue; // two atomics never conflict
                        }
                        if ox == oy && ix == iy {
                            continue; // one instance never conflicts with itself
                        }
                        // The same word index with only `tid` in it: each thread keeps to
                        // its own words.
                        if let (Some(a), Some(b)) = (ox_own, oy_own) {
                            if a == b && a.terms.iter().all(|t| t.0 == Var::Tid) {
                                continue;
                            }
                        }
                        // x before y (in time) when x's publishing phase is at most the
                        // number of arrivals y's wave made before y.
                        let x_then_y = pa[i].0 <= pb[j].1;
                        let y_then_x = pb[j].0 <= pa[i].1;
                        if !x_then_y && !y_then_x {
                            return Err(format!(
                                "race at trips {combo:?}: {tx} ({}) and {ty} ({})",
                                ["low", "high"][ga],
                                ["low", "high"][gb]
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}
