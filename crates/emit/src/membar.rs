//! A Membar-style barrier placement (after Triton's `Membar` analysis): the timing baseline
//! for syncopt's placement. It removes every workgroup barrier of the kernel, then walks the
//! program with the set of shared-memory intervals accessed since the last barrier and puts a
//! `barrier` right before every op whose access conflicts with that set (overlapping words,
//! one of them a write). Nothing is hoisted out of loops or merged across branches; threads
//! are not told apart (an indexed access covers its whole operand). Async-copy commits and
//! waits are left where they are; an async copy's writes count again at every later wait
//! (where they land), until a wait for 0.

use syncopt_interp::model::{self, Layout, Mem};
use syncopt_ir::{
    BlockId, Diagnostic, EntityRef, Kernel, ProgramPoint, Selector, StmtKind, SyncOp, ValueId,
    ValueKind, ViewKind,
};

/// `[lo, hi)` words of the shared arena, and whether the access writes.
type Acc = (i64, i64, bool);

/// Replaces the kernel's barriers; returns how many barriers it placed.
pub fn place(k: &mut Kernel) -> Result<usize, Diagnostic> {
    let layout = model::layout(k)?;
    let mut old = Vec::new();
    k.walk(&mut |s, d| {
        if let StmtKind::Sync(op) = &d.kind {
            if op.is_workgroup_barrier() {
                old.push(s);
            }
        }
    });
    for s in old {
        k.remove_stmt(s);
    }
    let mut m = Membar {
        k,
        layout: &layout,
        points: Vec::new(),
    };
    m.block(m.k.body, State::default(), true);
    let mut points = std::mem::take(&mut m.points);
    points.sort();
    points.dedup();
    let n = points.len();
    let items = points
        .into_iter()
        .map(|p| {
            (
                p,
                SyncOp::Barrier {
                    id: 0,
                    fence: true,
                    threads: None,
                },
            )
        })
        .collect();
    k.insert_syncs(items);
    Ok(n)
}

struct Membar<'a> {
    k: &'a Kernel,
    layout: &'a Layout,
    points: Vec<ProgramPoint>,
}

fn conflicts(a: &[Acc], b: &[Acc]) -> bool {
    a.iter()
        .any(|x| b.iter().any(|y| (x.2 || y.2) && x.0 < y.1 && y.0 < x.1))
}

/// Accesses since the last barrier, and async writes issued but maybe not landed.
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    pending: Vec<Acc>,
    inflight: Vec<Acc>,
}

impl State {
    fn join(&self, o: &State) -> State {
        State {
            pending: union(self.pending.clone(), &o.pending),
            inflight: union(self.inflight.clone(), &o.inflight),
        }
    }
}

fn union(mut a: Vec<Acc>, b: &[Acc]) -> Vec<Acc> {
    a.extend_from_slice(b);
    a.sort();
    a.dedup();
    a
}

impl Membar<'_> {
    /// Shared-arena interval a memory value may cover (the hull over what a handle can hold).
    fn interval(&self, v: ValueId, depth: usize) -> Option<(i64, i64)> {
        if depth > 64 {
            return Some((0, self.layout.shared_words as i64));
        }
        let k = self.k;
        match k.values[v].kind {
            ValueKind::Buffer(b) => {
                let h = self.layout.buffers[b.index()];
                (h.mem == Mem::Shared).then_some((h.off, h.off + h.words))
            }
            ValueKind::View(view) => {
                let (lo, hi) = self.interval(k.views[view].base, depth + 1)?;
                match &k.views[view].kind {
                    ViewKind::Range { lo: a, hi: b } if k.static_root(v).is_some() => {
                        Some((lo + (*a / 4) as i64, lo + b.div_ceil(4) as i64))
                    }
                    _ => Some((lo, hi)),
                }
            }
            ValueKind::IterArg { stmt, index } | ValueKind::Result { stmt, index } => {
                let mut cands = Vec::new();
                match &k.stmts[stmt].kind {
                    StmtKind::For(f) => {
                        if let Some(&(_, init)) = f.iter_args.get(index) {
                            cands.push(init);
                        }
                        if let Some(&y) = k.blocks[f.body].yields.get(index) {
                            cands.push(y);
                        }
                    }
                    StmtKind::If(i) => {
                        for b in std::iter::once(i.then_block).chain(i.else_block) {
                            if let Some(&y) = k.blocks[b].yields.get(index) {
                                cands.push(y);
                            }
                        }
                    }
                    _ => {}
                }
                let mut hull: Option<(i64, i64)> = None;
                for c in cands {
                    if c == v {
                        continue;
                    }
                    if let Some((a, b)) = self.interval(c, depth + 1) {
                        hull = Some(match hull {
                            None => (a, b),
                            Some((x, y)) => (x.min(a), y.max(b)),
                        });
                    }
                }
                hull
            }
            _ => None,
        }
    }

    fn accesses(&self, op: &syncopt_ir::OpData) -> Vec<Acc> {
        let mut out = Vec::new();
        for e in &op.effects {
            if let Some((lo, hi)) = self.interval(e.mem.value, 0) {
                let (lo, hi) = match e.mem.sel {
                    Selector::Bytes { lo: a, hi: b } if hi - lo >= b.div_ceil(4) as i64 => {
                        (lo + (a / 4) as i64, lo + b.div_ceil(4) as i64)
                    }
                    _ => (lo, hi),
                };
                out.push((lo, hi, e.kind.writes()));
            }
        }
        out
    }

    fn collect(&self, b: BlockId, out: &mut Vec<Acc>) {
        self.k.walk_block(b, &mut |_, d| {
            if let StmtKind::Op(op) = &d.kind {
                out.extend(self.accesses(op));
            }
        });
    }

    /// Walks `b` from state `st`; returns the state at its end.
    fn block(&mut self, b: BlockId, mut st: State, record: bool) -> State {
        let k = self.k;
        for (idx, &s) in k.blocks[b].stmts.iter().enumerate() {
            match &k.stmts[s].kind {
                StmtKind::Op(op) => {
                    let acc = self.accesses(op);
                    if conflicts(&acc, &st.pending) {
                        if record {
                            self.points.push(ProgramPoint {
                                block: b,
                                index: idx,
                            });
                        }
                        st.pending.clear();
                    }
                    st.pending = union(st.pending, &acc);
                    if op.asynchronous.is_some() {
                        let writes: Vec<Acc> = acc.iter().copied().filter(|a| a.2).collect();
                        st.inflight = union(st.inflight, &writes);
                    }
                }
                StmtKind::For(f) => {
                    let mut input = st.clone();
                    loop {
                        let out = self.block(f.body, input.clone(), false);
                        let next = input.join(&out);
                        if next == input {
                            break;
                        }
                        input = next;
                    }
                    let out = self.block(f.body, input, record);
                    st = st.join(&out);
                }
                StmtKind::If(i) if i.uniformity == syncopt_ir::Uniformity::Divergent => {
                    // No barrier may go inside: one before the if covers what it conflicts with.
                    let mut inner = Vec::new();
                    for b in std::iter::once(i.then_block).chain(i.else_block) {
                        self.collect(b, &mut inner);
                    }
                    if conflicts(&inner, &st.pending) {
                        if record {
                            self.points.push(ProgramPoint {
                                block: b,
                                index: idx,
                            });
                        }
                        st.pending.clear();
                    }
                    st.pending = union(st.pending, &inner);
                }
                StmtKind::If(i) => {
                    let t = self.block(i.then_block, st.clone(), record);
                    let e = match i.else_block {
                        Some(e) => self.block(e, st.clone(), record),
                        None => st.clone(),
                    };
                    st = t.join(&e);
                }
                StmtKind::Sync(op) if op.is_workgroup_barrier() => st.pending.clear(),
                // Async writes land at a wait: from here they conflict like fresh writes.
                StmtKind::Sync(SyncOp::CpAsyncWait { n } | SyncOp::CounterWait { n, .. }) => {
                    st.pending = union(st.pending, &st.inflight);
                    if *n == 0 {
                        st.inflight.clear();
                    }
                }
                _ => {}
            }
        }
        st
    }
}
