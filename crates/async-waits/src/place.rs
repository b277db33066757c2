//! Where an access lands, resolved in the frame of the iteration that runs it, and whether two
//! such places may conflict (across threads, or only within the owning thread).
//!
//! A pending async copy keeps the place it wrote in the frame of its own iteration; when the
//! analysis carries it across a loop's back edge the place is rewritten into the next
//! iteration's frame (rotating handles follow the yield permutation, induction variables shift
//! by the step). That is what lets `T nxt; ...; R cur` see that the copy in flight is not the
//! buffer being read, which a frame-less "cur may be A or B" analysis cannot.

use std::collections::BTreeSet;

use syncopt_ir::{
    AccessKind, AffineExpr, BufferId, Kernel, Placement, Selector, Space, StmtId, StmtKind,
    ValueId, ValueKind, Var, ViewKind,
};

/// What the bytes are relative to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// A root buffer (exact placements folded into offsets).
    Root(BufferId),
    /// A loop-carried handle (an `iter` binding) in the current iteration's frame.
    Handle(ValueId),
    /// Somewhere in one of these root buffers.
    Unknown(Vec<BufferId>),
}

/// A part of a base.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// Bytes `[lo, hi)`; `hi == u64::MAX` when the size is unknown.
    Range(u64, u64),
    /// Slot `index mod count` of `count` equal slots of `[lo, hi)`.
    Slot {
        lo: u64,
        hi: u64,
        count: u32,
        index: AffineExpr,
        /// The slot, when it is the same in every frame (a constant view, possibly written
        /// through the induction variable of a loop it entered).
        fixed: Option<i64>,
        /// Bytes `[a, b)` from the slot's start, when not the whole slot: an access whose
        /// index reaches past the slot (`b` beyond the slot size) touches the bytes after it
        /// (the next slots), as the verifier and the IR take a view.
        span: Option<(u64, u64)>,
    },
    /// One 4-byte word per thread at byte `lo + 4 * index`, owned by the computing thread.
    Word { lo: u64, index: AffineExpr },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Place {
    pub base: Base,
    pub region: Region,
    /// The same bytes seen through a loop handle of the current frame, for comparing with
    /// accesses through handles (a copy into `%A` before `for iter(%cur = %A, ...)` is `%cur`
    /// in the first iteration, `%nxt` in the second, ...), while `base` keeps where it is.
    pub via: Option<Box<Place>>,
    /// Handles of the enclosing loops' current frames that these bytes are known not to
    /// touch (sorted): a copy issued before a loop into none of its inits is not what its
    /// handles name in the first iteration, and the yield carries that on.
    pub apart: Vec<ValueId>,
}

/// How two accesses may interfere.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    None,
    /// Only the thread that owns the address touches it through both accesses.
    SameThread,
    /// Two different threads may touch the same byte.
    CrossThread,
}

/// Facts about the kernel's memory values the resolver needs, computed once.
pub struct Memory {
    /// Root buffer and byte offset of each buffer (following `at` placements).
    root: Vec<(BufferId, u64)>,
    /// Pairs of root buffers declared overlapping (`aliases`), both orders.
    aliases: BTreeSet<(BufferId, BufferId)>,
    /// Possible root buffers of every value (handles and results: over all iterations).
    roots: Vec<BTreeSet<BufferId>>,
    /// Loops whose handles are pairwise disjoint in every iteration: the inits are disjoint
    /// and the yield only permutes the handles.
    disjoint_handles: BTreeSet<syncopt_ir::StmtId>,
    /// Induction variables with a constant start: (start, step).
    ivs: std::collections::BTreeMap<ValueId, (i64, i64)>,
    /// Loops whose induction variable selects a slot of some view.
    slot_loops: BTreeSet<syncopt_ir::StmtId>,
    /// Per loop: the slottings (root buffer, slotted byte range, slot count) of the views over
    /// a root buffer whose slot index reads the loop's induction variable, sorted.
    slot_layouts: std::collections::BTreeMap<syncopt_ir::StmtId, Vec<(BufferId, u64, u64, u32)>>,
    /// Induction variables that appear in some expression (views, indices, conditions).
    used_ivs: BTreeSet<ValueId>,
    /// Per loop: exact trip count, whether the start is constant, induction variable.
    loop_data: std::collections::BTreeMap<syncopt_ir::StmtId, (Option<u64>, bool, ValueId)>,
    /// Threads in the workgroup (0: unknown): bounds the words `tid`-indexed accesses touch.
    pub threads: u64,
}

impl Memory {
    pub fn new(k: &Kernel) -> Memory {
        let mut root = Vec::with_capacity(k.buffers.len());
        for (b, _) in k.buffers.iter() {
            let mut cur = b;
            let mut off = 0u64;
            for _ in 0..64 {
                match k.buffers[cur].placement {
                    Placement::At { base, offset } => match k.values[base].kind {
                        ValueKind::Buffer(nb) if nb != cur => {
                            cur = nb;
                            off = off.saturating_add(offset);
                        }
                        _ => break,
                    },
                    _ => break,
                }
            }
            root.push((cur, off));
        }
        let mut aliases = BTreeSet::new();
        for (b, data) in k.buffers.iter() {
            if let Placement::Aliases(v) = data.placement {
                if let ValueKind::Buffer(o) = k.values[v].kind {
                    let (r1, r2) = (root[idx(b)].0, root[idx(o)].0);
                    aliases.insert((r1, r2));
                    aliases.insert((r2, r1));
                }
            }
        }
        // Two buffers that may each overlap a third may overlap each other (one arena):
        // close the relation transitively.
        let mut class: std::collections::BTreeMap<BufferId, BufferId> = Default::default();
        fn find(c: &std::collections::BTreeMap<BufferId, BufferId>, mut x: BufferId) -> BufferId {
            for _ in 0..10_000 {
                match c.get(&x) {
                    Some(&p) if p != x => x = p,
                    _ => break,
                }
            }
            x
        }
        for &(a, b) in &aliases {
            let (ra, rb) = (find(&class, a), find(&class, b));
            if ra != rb {
                class.insert(ra.max(rb), ra.min(rb));
            }
        }
        let members: Vec<BufferId> = aliases.iter().map(|p| p.0).collect();
        for &a in &members {
            for &b in &members {
                if a != b && find(&class, a) == find(&class, b) {
                    aliases.insert((a, b));
                }
            }
        }
        let mut m = Memory {
            root,
            aliases,
            roots: vec![BTreeSet::new(); k.values.len()],
            disjoint_handles: BTreeSet::new(),
            ivs: Default::default(),
            slot_loops: BTreeSet::new(),
            slot_layouts: Default::default(),
            used_ivs: BTreeSet::new(),
            loop_data: Default::default(),
            threads: 0,
        };
        for (sid, data) in k.stmts.iter() {
            if let StmtKind::For(f) = &data.kind {
                m.loop_data.insert(
                    sid,
                    (
                        f.trips().exact(),
                        matches!(f.lo, syncopt_ir::Bound::Const(_)),
                        f.iv,
                    ),
                );
            }
        }
        let note = |e: &AffineExpr, set: &mut BTreeSet<ValueId>| {
            for &(v, _) in &e.terms {
                if let Var::Value(v) = v {
                    set.insert(v);
                }
            }
        };
        let mut used = BTreeSet::new();
        for (_, view) in k.views.iter() {
            if let ViewKind::Slot { index, .. } = &view.kind {
                note(index, &mut used);
            }
        }
        for (_, st) in k.stmts.iter() {
            match &st.kind {
                StmtKind::Op(op) => {
                    for e in &op.effects {
                        if let Selector::Index(x) = &e.mem.sel {
                            note(x, &mut used);
                        }
                    }
                }
                StmtKind::If(i) => note(&i.cond.expr, &mut used),
                StmtKind::Sync(syncopt_ir::SyncOp::SetFlag { id, .. })
                | StmtKind::Sync(syncopt_ir::SyncOp::WaitFlag { id, .. }) => {
                    if let Some((x, _)) = &id.alternate {
                        note(x, &mut used);
                    }
                }
                _ => {}
            }
        }
        m.used_ivs = used;
        for (_, view) in k.views.iter() {
            if let ViewKind::Slot { index, .. } = &view.kind {
                for &(v, _) in &index.terms {
                    if let Var::Value(v) = v {
                        if let ValueKind::Iv(lp) = k.values[v].kind {
                            m.slot_loops.insert(lp);
                        }
                    }
                }
            }
        }
        for (_, data) in k.stmts.iter() {
            if let StmtKind::For(f) = &data.kind {
                if let syncopt_ir::Bound::Const(lo) = f.lo {
                    m.ivs.insert(f.iv, (lo, f.step));
                }
            }
        }
        m.compute_roots(k);
        m.compute_disjoint(k);
        m.compute_layouts(k);
        m
    }

    fn compute_layouts(&mut self, k: &Kernel) {
        for (_, view) in k.views.iter() {
            let ViewKind::Slot { index, count } = &view.kind else {
                continue;
            };
            if *count == 0 {
                continue;
            }
            let base = self.value_place(k, view.base);
            let (Base::Root(r), Region::Range(a, b), None) = (&base.base, &base.region, &base.via)
            else {
                continue;
            };
            if *b == u64::MAX || b <= a || (b - a) % *count as u64 != 0 {
                continue;
            }
            for &(v, _) in &index.terms {
                if let Var::Value(v) = v {
                    if let ValueKind::Iv(lp) = k.values[v].kind {
                        let l = self.slot_layouts.entry(lp).or_default();
                        let x = (*r, *a, *b, *count);
                        if let Err(i) = l.binary_search(&x) {
                            l.insert(i, x);
                        }
                    }
                }
            }
        }
    }

    fn compute_roots(&mut self, k: &Kernel) {
        // A small fixpoint: handles take the roots of their inits and of what is yielded.
        for _ in 0..(k.values.len() + 2).min(64) {
            let mut changed = false;
            for (v, data) in k.values.iter() {
                // Sets only grow: a value whose sources add nothing keeps its set (checked
                // before building a new one, which most values never need).
                let cur = &self.roots[idx(v)];
                let adds = |u: ValueId| !self.roots[idx(u)].is_subset(cur);
                let stale = match data.kind {
                    ValueKind::Buffer(_) => cur.is_empty(),
                    ValueKind::View(view) => adds(k.views[view].base),
                    ValueKind::IterArg { stmt, index } => match &k.stmts[stmt].kind {
                        StmtKind::For(f) => {
                            f.iter_args.get(index).is_some_and(|&(_, init)| adds(init))
                                || k.blocks[f.body].yields.get(index).is_some_and(|&y| adds(y))
                        }
                        _ => false,
                    },
                    ValueKind::Result { stmt, index } => match &k.stmts[stmt].kind {
                        StmtKind::For(f) => f.iter_args.get(index).is_some_and(|&(a, _)| adds(a)),
                        StmtKind::If(i) => std::iter::once(i.then_block)
                            .chain(i.else_block)
                            .any(|b| k.blocks[b].yields.get(index).is_some_and(|&y| adds(y))),
                        _ => false,
                    },
                    _ => false,
                };
                if !stale {
                    continue;
                }
                let mut set: BTreeSet<BufferId> = BTreeSet::new();
                match data.kind {
                    ValueKind::Buffer(b) => {
                        set.insert(self.root[idx(b)].0);
                    }
                    ValueKind::View(view) => {
                        set.extend(self.roots[idx(k.views[view].base)].iter().copied())
                    }
                    ValueKind::IterArg { stmt, index } => {
                        if let StmtKind::For(f) = &k.stmts[stmt].kind {
                            if let Some(&(_, init)) = f.iter_args.get(index) {
                                set.extend(self.roots[idx(init)].iter().copied());
                            }
                            if let Some(&y) = k.blocks[f.body].yields.get(index) {
                                set.extend(self.roots[idx(y)].iter().copied());
                            }
                        }
                    }
                    ValueKind::Result { stmt, index } => match &k.stmts[stmt].kind {
                        StmtKind::For(f) => {
                            if let Some(&(arg, _)) = f.iter_args.get(index) {
                                set.extend(self.roots[idx(arg)].iter().copied());
                            }
                        }
                        StmtKind::If(i) => {
                            let mut blocks = vec![i.then_block];
                            blocks.extend(i.else_block);
                            for b in blocks {
                                if let Some(&y) = k.blocks[b].yields.get(index) {
                                    set.extend(self.roots[idx(y)].iter().copied());
                                }
                            }
                        }
                        _ => {}
                    },
                    _ => {}
                }
                if set.len() > self.roots[idx(v)].len() {
                    self.roots[idx(v)] = set;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Anything still without a root (malformed input) may be any workgroup buffer.
        let all: BTreeSet<BufferId> = k.buffers.iter().map(|(b, _)| self.root[idx(b)].0).collect();
        for (v, data) in k.values.iter() {
            if data.kind.is_memory() && self.roots[idx(v)].is_empty() {
                self.roots[idx(v)] = all.clone();
            }
        }
    }

    fn compute_disjoint(&mut self, k: &Kernel) {
        // Inits that are handles of an enclosing loop are disjoint when that loop's are: a
        // few rounds, outer loops first, until nothing is added.
        // Only a loop with two inits that are both handles can change its answer in a later
        // round (the disjoint handles of other loops decide nothing else): the rounds after
        // the first look at those alone.
        let mut retry = Vec::new();
        let all: Vec<StmtId> = k.stmts.iter().map(|(s, _)| s).collect();
        for round in 0..8 {
            let before = self.disjoint_handles.len();
            let todo = if round == 0 { &all } else { &retry };
            let more = self.disjoint_round(k, todo);
            if round == 0 {
                retry = more;
            }
            if self.disjoint_handles.len() == before {
                break;
            }
        }
    }

    /// One round over the loops `todo`; returns those that failed with two handle inits.
    fn disjoint_round(&mut self, k: &Kernel, todo: &[StmtId]) -> Vec<StmtId> {
        let mut retry = Vec::new();
        for &s in todo {
            if self.disjoint_handles.contains(&s) {
                continue;
            }
            let StmtKind::For(f) = &k.stmts[s].kind else {
                continue;
            };
            if f.iter_args.len() < 2 {
                continue;
            }
            let yields = &k.blocks[f.body].yields;
            let args: Vec<ValueId> = f.iter_args.iter().map(|a| a.0).collect();
            if yields.len() != args.len() {
                continue;
            }
            let mut seen = BTreeSet::new();
            let perm = yields.iter().all(|y| args.contains(y) && seen.insert(*y));
            if !perm {
                continue;
            }
            let inits: Vec<Place> = f
                .iter_args
                .iter()
                .map(|&(_, init)| self.value_place(k, init))
                .collect();
            let mut ok = true;
            for i in 0..inits.len() {
                for j in i + 1..inits.len() {
                    if self.overlap_k(k, &inits[i], &inits[j]) != Conflict::None {
                        ok = false;
                    }
                }
            }
            if ok {
                self.disjoint_handles.insert(s);
            } else if inits
                .iter()
                .filter(|p| matches!(p.base, Base::Handle(_)))
                .count()
                >= 2
            {
                retry.push(s);
            }
        }
        retry
    }

    fn unknown(&self, v: ValueId) -> Place {
        Place {
            base: Base::Unknown(self.roots[idx(v)].iter().copied().collect()),
            region: Region::Range(0, u64::MAX),
            via: None,
            apart: Vec::new(),
        }
    }

    /// The place a whole memory value names, in the current frame.
    pub fn value_place(&self, k: &Kernel, v: ValueId) -> Place {
        self.value_place_depth(k, v, 0, None, &[])
    }

    /// The yielded value that result `v` of `if` statement `g.0` takes on branch `g.1` (0: then,
    /// 1: else), when `v` is one of that `if`'s results.
    fn branch_value(k: &Kernel, v: ValueId, g: Option<(StmtId, u8)>) -> Option<ValueId> {
        let (ifs, b) = g?;
        let ValueKind::Result { stmt, index } = k.values[v].kind else {
            return None;
        };
        if stmt != ifs {
            return None;
        }
        let StmtKind::If(i) = &k.stmts[stmt].kind else {
            return None;
        };
        let block = if b == 0 {
            Some(i.then_block)
        } else {
            i.else_block
        }?;
        k.blocks[block].yields.get(index).copied()
    }

    fn value_place_depth(
        &self,
        k: &Kernel,
        v: ValueId,
        depth: u32,
        guard: Option<(StmtId, u8)>,
        frame: &[(ValueId, ValueId)],
    ) -> Place {
        if depth > 32 {
            return self.unknown(v);
        }
        if let Some(y) = Self::branch_value(k, v, guard) {
            return self.value_place_depth(k, y, depth + 1, guard, frame);
        }
        match k.values[v].kind {
            ValueKind::Buffer(b) => {
                let (r, off) = self.root[idx(b)];
                Place {
                    base: Base::Root(r),
                    region: Region::Range(off, off.saturating_add(k.buffers[b].size)),
                    via: None,
                    apart: Vec::new(),
                }
            }
            ValueKind::IterArg { .. } if frame.iter().any(|f| f.0 == v) => {
                let init = frame.iter().rev().find(|f| f.0 == v).map_or(v, |f| f.1);
                self.value_place_depth(k, init, depth + 1, guard, frame)
            }
            ValueKind::IterArg { .. } => Place {
                base: Base::Handle(v),
                region: Region::Range(0, u64::MAX),
                via: None,
                apart: Vec::new(),
            },
            ValueKind::Result { stmt, index } => match self.result_init(k, stmt, index) {
                Some(init) => self.value_place_depth(k, init, depth + 1, guard, frame),
                None => self.unknown(v),
            },
            ValueKind::View(view) => {
                let data = &k.views[view];
                let inner = self.value_place_depth(k, data.base, depth + 1, guard, frame);
                let Region::Range(a, b) = inner.region else {
                    return self.unknown(v);
                };
                if matches!(inner.base, Base::Unknown(_)) {
                    return inner;
                }
                let region = match &data.kind {
                    ViewKind::Range { lo, hi } => Region::Range(
                        a.saturating_add(*lo),
                        a.saturating_add(*hi).min(b.max(a.saturating_add(*lo))),
                    ),
                    ViewKind::Slot { count, index } => {
                        if b == u64::MAX || *count == 0 {
                            // Slots of a handle of unknown size: keep the whole handle.
                            Region::Range(a, b)
                        } else {
                            // A slot no iteration moves is fixed (`Kernel::slot_index`).
                            let folded = k.slot_index(index, *count);
                            let index = if folded.is_constant() {
                                folded
                            } else {
                                let mut index = index.clone();
                                index.constant = index.constant.rem_euclid(*count as i64);
                                index
                            };
                            let fixed = index.is_constant().then_some(index.constant);
                            Region::Slot {
                                lo: a,
                                hi: b,
                                count: *count,
                                index,
                                fixed,
                                span: None,
                            }
                        }
                    }
                };
                Place {
                    base: inner.base,
                    region,
                    via: None,
                    apart: Vec::new(),
                }
            }
            _ => self.unknown(v),
        }
    }

    /// The init that result `index` of loop `lp` is, when the loop runs an exact count (as
    /// `exact_trips` takes it) and its yield permutes the handles: after `n` trips result `i`
    /// is `init` of `perm^n(i)`.
    fn result_init(&self, k: &Kernel, lp: StmtId, index: usize) -> Option<ValueId> {
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            return None;
        };
        if index >= f.iter_args.len() {
            return None;
        }
        let perm = yield_perm(k, f)?;
        let mut j = index;
        if perm[j] != j {
            let n = self.exact_trips(lp)?;
            if n > 4096 {
                return None;
            }
            for _ in 0..n {
                j = perm[j];
            }
        }
        Some(f.iter_args[j].1)
    }

    /// The place an effect touches.
    pub fn effect_place(&self, k: &Kernel, v: ValueId, sel: &Selector) -> Place {
        self.effect_place_on(k, v, sel, None)
    }

    /// The place an effect touches on the paths through branch `guard.1` of `if` `guard.0`
    /// (in the scope of that `if`'s results): its results are the branch's yields.
    pub fn effect_place_on(
        &self,
        k: &Kernel,
        v: ValueId,
        sel: &Selector,
        guard: Option<(StmtId, u8)>,
    ) -> Place {
        self.effect_place_full(k, v, sel, guard, &[])
    }

    /// The place an effect touches in an iteration of exactly unrolled loops whose handles
    /// are known values: `frame` maps each such handle to the value it is there.
    pub fn effect_place_full(
        &self,
        k: &Kernel,
        v: ValueId,
        sel: &Selector,
        guard: Option<(StmtId, u8)>,
        frame: &[(ValueId, ValueId)],
    ) -> Place {
        let p = self.value_place_depth(k, v, 0, guard, frame);
        if matches!(p.base, Base::Unknown(_)) {
            return p;
        }
        let region = match (sel, &p.region) {
            (Selector::Whole, r) => r.clone(),
            (Selector::Bytes { lo, hi }, Region::Range(a, b)) => {
                let l = a.saturating_add(*lo);
                Region::Range(l, a.saturating_add(*hi).min(*b).max(l))
            }
            (Selector::Bytes { lo, hi }, r @ Region::Slot { .. }) => match slot_range(r) {
                Some((a, b)) => {
                    let l = a.saturating_add(*lo);
                    Region::Range(l, a.saturating_add(*hi).min(b).max(l))
                }
                None => bytes_on_slot(r, *lo, *hi),
            },
            (Selector::Index(e), Region::Range(a, _)) => Region::Word {
                lo: *a,
                index: e.clone(),
            },
            (Selector::Index(e), r @ Region::Slot { .. }) => self.index_on_slot(k, e, r),
            (_, r) => r.clone(),
        };
        Place {
            base: p.base,
            region,
            via: None,
            apart: Vec::new(),
        }
    }

    /// The words `index` touches over all threads and the values its induction variables
    /// take (`[min, max]`), when it depends on nothing else and the thread count is known.
    fn index_words(&self, k: &Kernel, index: &AffineExpr) -> Option<(i128, i128)> {
        if self.threads == 0 || self.threads > 1 << 20 {
            return None;
        }
        let (w0, w1) = syncopt_analysis::hazard::index_words(k, index, (0, self.threads as i64))?;
        // Far past any buffer: not worth bounding (and keeps the byte arithmetic in range).
        (w0 > -(1i128 << 64) && w1 < 1i128 << 64).then_some((w0, w1))
    }

    /// The region an index selector touches in a slot region: the slot itself when the words
    /// of all threads provably stay in it; else (an index past the slot reaches the bytes
    /// after it, as the verifier and the IR take a view) the words from the slot's start
    /// (a word region when the slot is known, a slot span when not), or, when the words are
    /// not bounded, everything from the slotted range's start.
    fn index_on_slot(&self, k: &Kernel, e: &AffineExpr, r: &Region) -> Region {
        let Region::Slot { lo, hi, count, .. } = r else {
            return r.clone();
        };
        if *count == 0 || hi < lo || *hi == u64::MAX {
            return Region::Range(0, u64::MAX);
        }
        let size = (hi - lo) / *count as u64;
        let words = self.index_words(k, e);
        if let Some((w0, w1)) = words {
            if w0 >= 0 && 4 * w1 + 4 <= size as i128 {
                return r.clone();
            }
            if w0 < 0 {
                // Before the slotted range: not modelled, take the whole base.
                return Region::Range(0, u64::MAX);
            }
        }
        if let Some((s0, _)) = slot_range(r) {
            return Region::Word {
                lo: s0,
                index: e.clone(),
            };
        }
        match words {
            Some((w0, w1)) if 4 * w1 + 4 <= u64::MAX as i128 => {
                bytes_on_slot(r, (4 * w0) as u64, (4 * w1 + 4) as u64)
            }
            _ => Region::Range(*lo, u64::MAX),
        }
    }

    fn root_set(&self, b: &Base) -> Option<BTreeSet<BufferId>> {
        match b {
            Base::Root(r) => Some([*r].into_iter().collect()),
            Base::Handle(h) => Some(self.roots[idx(*h)].clone()),
            Base::Unknown(v) => Some(v.iter().copied().collect()),
        }
    }

    fn roots_meet(&self, a: &BTreeSet<BufferId>, b: &BTreeSet<BufferId>) -> bool {
        a.iter()
            .any(|x| b.contains(x) || b.iter().any(|y| self.aliases.contains(&(*x, *y))))
    }

    /// Whether two places may share a byte, and if so whether only within one thread.
    pub fn overlap(&self, p: &Place, q: &Place) -> Conflict {
        let same_base = match (&p.base, &q.base) {
            (Base::Root(a), Base::Root(b)) => {
                // Inside an alias class byte ranges are not trusted (the verifier merges the
                // class into one buffer): any two accesses to it may overlap.
                if a == b && self.aliases.iter().any(|p| p.0 == *a) {
                    return Conflict::CrossThread;
                }
                if a != b {
                    return if self.aliases.contains(&(*a, *b)) {
                        Conflict::CrossThread
                    } else {
                        Conflict::None
                    };
                }
                true
            }
            (Base::Handle(a), Base::Handle(b)) if a == b => true,
            _ => false,
        };
        if !same_base {
            let (Some(ra), Some(rb)) = (self.root_set(&p.base), self.root_set(&q.base)) else {
                return Conflict::CrossThread;
            };
            return if self.roots_meet(&ra, &rb) {
                Conflict::CrossThread
            } else {
                Conflict::None
            };
        }
        self.region_overlap(&p.region, &q.region)
    }

    /// Like `overlap`, with the kernel at hand to see which loop binds each handle.
    pub fn overlap_k(&self, k: &Kernel, p: &Place, q: &Place) -> Conflict {
        if let Base::Handle(h) = &q.base {
            if p.apart.binary_search(h).is_ok() {
                return Conflict::None;
            }
        }
        if let Base::Handle(h) = &p.base {
            if q.apart.binary_search(h).is_ok() {
                return Conflict::None;
            }
        }
        if let (Some(v), Base::Handle(_)) = (&p.via, &q.base) {
            return self.overlap_k(k, v, q);
        }
        if let (Base::Handle(_), Some(v)) = (&p.base, &q.via) {
            return self.overlap_k(k, p, v);
        }
        if let (Base::Handle(a), Base::Handle(b)) = (&p.base, &q.base) {
            if a != b {
                if let (ValueKind::IterArg { stmt: s1, .. }, ValueKind::IterArg { stmt: s2, .. }) =
                    (k.values[*a].kind, k.values[*b].kind)
                {
                    if s1 == s2 && self.disjoint_handles.contains(&s1) {
                        return Conflict::None;
                    }
                }
            }
        }
        self.overlap(p, q)
    }

    /// The trip count the analysis takes as exact: a known count, when small enough to run
    /// iteration by iteration (8; 64 when the induction variable appears nowhere). Larger
    /// counts are taken as "at least a few" (see `min_trips`), like the verifier does: a
    /// count beyond what the verifier models would give an N it cannot confirm.
    pub fn exact_trips(&self, lp: syncopt_ir::StmtId) -> Option<u64> {
        let f = self.loop_data.get(&lp)?;
        let (n, lo_const, iv) = *f;
        let n = n?;
        let small = n <= 8 || (!self.used_ivs.contains(&iv) && n <= 64);
        (lo_const && small).then_some(n)
    }

    /// Whether loop `lp`'s induction variable is known in its first iteration (a constant
    /// start) and picks a slot of some view.
    pub fn first_iv(&self, k: &Kernel, lp: StmtId) -> Option<(ValueId, i64)> {
        if !self.slot_loops.contains(&lp) {
            return None;
        }
        match &k.stmts[lp].kind {
            StmtKind::For(f) => match f.lo {
                syncopt_ir::Bound::Const(lo) => Some((f.iv, lo)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The fewest trips the analysis relies on for a loop without an exact count.
    pub fn min_trips(&self, min: u64) -> u64 {
        min.min(4)
    }

    /// Rewrites a place from iteration i's frame into iteration i+1's frame of loop `lp`.
    pub fn across_back_edge(&self, k: &Kernel, lp: syncopt_ir::StmtId, p: &Place) -> Place {
        if let Some(v) = &p.via {
            let nv = self.across_back_edge(k, lp, v);
            let mut main = self.across_back_edge(
                k,
                lp,
                &Place {
                    via: None,
                    ..p.clone()
                },
            );
            main.via = matches!(nv.base, Base::Handle(_)).then(|| Box::new(nv));
            return main;
        }
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            return p.clone();
        };
        let base = match &p.base {
            Base::Handle(h) if is_arg_of(k, *h, lp) => {
                let yields = &k.blocks[f.body].yields;
                let targets: Vec<usize> = yields
                    .iter()
                    .enumerate()
                    .filter(|(_, y)| **y == *h)
                    .map(|(i, _)| i)
                    .collect();
                match targets.as_slice() {
                    [i] if *i < f.iter_args.len() => Base::Handle(f.iter_args[*i].0),
                    _ => return self.degrade(p),
                }
            }
            b => b.clone(),
        };
        let iv = Var::Value(f.iv);
        let region = match &p.region {
            Region::Slot {
                lo,
                hi,
                count,
                index,
                fixed,
                span,
            } => {
                let mut index = shift(index, iv, f.step);
                // Slots repeat every `count`: keep the constant reduced so the places stay
                // finitely many and the loop's fixpoint terminates.
                index.constant = index.constant.rem_euclid((*count).max(1) as i64);
                Region::Slot {
                    lo: *lo,
                    hi: *hi,
                    count: *count,
                    index,
                    fixed: *fixed,
                    span: *span,
                }
            }
            // A word index that moves with the loop would give a new place every iteration;
            // the previous iterations' words are kept as a plain range (no ownership).
            Region::Word { lo, index } if index.coef(iv) != 0 => Region::Range(*lo, u64::MAX),
            r => r.clone(),
        };
        // Handle j of the next frame is what the yield passes as j: apart from these bytes
        // when that is a handle they were apart from.
        let mut apart: Vec<ValueId> = p
            .apart
            .iter()
            .copied()
            .filter(|h| !is_arg_of(k, *h, lp))
            .collect();
        let yields = &k.blocks[f.body].yields;
        for (j, &(arg, _)) in f.iter_args.iter().enumerate() {
            if yields.get(j).is_some_and(|y| p.apart.contains(y)) {
                apart.push(arg);
            }
        }
        apart.sort();
        apart.dedup();
        Place {
            base,
            region,
            via: None,
            apart,
        }
    }

    /// Rewrites a place for the code after loop `lp`: its handles and induction variable are
    /// gone, so what depended on them widens.
    pub fn out_of_loop(&self, k: &Kernel, lp: syncopt_ir::StmtId, p: &Place) -> Place {
        if let Some(v) = &p.via {
            let mut main = self.out_of_loop(
                k,
                lp,
                &Place {
                    via: None,
                    ..p.clone()
                },
            );
            let nv = match &v.base {
                Base::Handle(h) if is_arg_of(k, *h, lp) => None,
                _ => Some(Box::new(self.out_of_loop(k, lp, v))),
            };
            main.via = nv.filter(|x| matches!(x.base, Base::Handle(_)));
            return main;
        }
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            return p.clone();
        };
        if let Base::Handle(h) = &p.base {
            if is_arg_of(k, *h, lp) {
                return match self.handle_at_exit(k, lp, f, *h, &p.region) {
                    // The last iteration's buffer, and its induction variable as below: the
                    // index keeps naming the loop's variable, which the loop's next entry
                    // (an outer loop's next iteration) takes from its start again (campaign
                    // seed 571: the last copy was taken for the same thread's words as the
                    // first copy of the next entry).
                    Some(q) => self.out_of_loop(
                        k,
                        lp,
                        &Place {
                            apart: p.apart.clone(),
                            ..q
                        },
                    ),
                    None => self.degrade(p),
                };
            }
        }
        let iv = Var::Value(f.iv);
        // With a known trip count the last iteration's induction variable is known: the
        // place is taken in that frame.
        let last_iv = match (f.lo, self.exact_trips(lp)) {
            (syncopt_ir::Bound::Const(lo), Some(n)) if n > 0 => {
                Some(lo.wrapping_add((n as i64 - 1).wrapping_mul(f.step)))
            }
            _ => None,
        };
        let region = match &p.region {
            r @ Region::Slot {
                lo,
                hi,
                count,
                index,
                fixed,
                span,
            } if index.coef(iv) != 0 => match (fixed, last_iv) {
                (Some(c), _) => Region::Slot {
                    lo: *lo,
                    hi: *hi,
                    count: *count,
                    index: AffineExpr::constant(*c),
                    fixed: Some(*c),
                    span: *span,
                },
                (None, Some(v)) => {
                    let mut e = index.clone();
                    let c = e.coef(iv);
                    e.add_term(iv, -c);
                    e.constant = e
                        .constant
                        .wrapping_add(c.wrapping_mul(v))
                        .rem_euclid((*count).max(1) as i64);
                    let fixed = Some(e.constant);
                    Region::Slot {
                        lo: *lo,
                        hi: *hi,
                        count: *count,
                        index: e,
                        fixed,
                        span: *span,
                    }
                }
                (None, None) => {
                    let (a, b) = slot_hull(r);
                    Region::Range(a, b)
                }
            },
            Region::Word { lo, index } if index.coef(iv) != 0 => Region::Range(*lo, u64::MAX),
            r => r.clone(),
        };
        Place {
            base: p.base.clone(),
            region,
            via: None,
            apart: apart_outside(k, lp, &p.apart),
        }
    }

    /// With a known trip count and a yield that permutes the handles, the handle of the last
    /// iteration is a known initial value: `arg_j` at iteration t is `init` of `perm^t(j)`.
    fn handle_at_exit(
        &self,
        k: &Kernel,
        lp: syncopt_ir::StmtId,
        f: &syncopt_ir::ForData,
        h: ValueId,
        region: &Region,
    ) -> Option<Place> {
        let perm = yield_perm(k, f)?;
        let mut j = f.iter_args.iter().position(|a| a.0 == h)?;
        // A handle the yield passes on unchanged is its init in every iteration, whatever
        // the trip count.
        if perm[j] != j {
            let n = self.exact_trips(lp)?;
            if n == 0 || n > 4096 {
                return None;
            }
            for _ in 0..n - 1 {
                j = perm[j];
            }
        }
        let init = self.value_place(k, f.iter_args[j].1);
        let Region::Range(x, y) = init.region else {
            return None;
        };
        // A handle of an enclosing loop names the same bytes in the frame after this loop
        // (the enclosing iteration goes on).
        if matches!(init.base, Base::Unknown(_)) {
            return None;
        }
        let region = match region {
            Region::Range(a, b) => Region::Range(
                x.saturating_add(*a),
                x.saturating_add(*b).min(y).max(x.saturating_add(*a)),
            ),
            Region::Slot {
                lo,
                hi,
                count,
                index,
                fixed,
                span,
            } => Region::Slot {
                lo: x.saturating_add(*lo),
                hi: x.saturating_add(*hi).min(y),
                count: *count,
                index: index.clone(),
                fixed: *fixed,
                span: *span,
            },
            Region::Word { lo, index } => Region::Word {
                lo: x.saturating_add(*lo),
                index: index.clone(),
            },
        };
        Some(Place {
            base: init.base,
            region,
            via: None,
            apart: Vec::new(),
        })
    }

    /// Whether root buffer `b` is declared overlapping another (its byte ranges are not
    /// trusted: the verifier merges the class into one buffer).
    pub fn aliased(&self, b: BufferId) -> bool {
        self.aliases.iter().any(|p| p.0 == b)
    }

    /// The coarsest place with the same possible root buffers.
    pub fn degrade(&self, p: &Place) -> Place {
        let roots = self.root_set(&p.base).unwrap_or_default();
        Place {
            base: Base::Unknown(roots.into_iter().collect()),
            region: Region::Range(0, u64::MAX),
            via: None,
            apart: Vec::new(),
        }
    }
}

/// The handles of `apart` that are not loop `lp`'s (those end with it).
/// A loop's handle permutation: for each handle, the index of the handle its yield passes on
/// (None when a yield is not one of the loop's own handles).
pub(crate) fn yield_perm(k: &Kernel, f: &syncopt_ir::ForData) -> Option<Vec<usize>> {
    let yields = &k.blocks[f.body].yields;
    if yields.len() != f.iter_args.len() {
        return None;
    }
    yields
        .iter()
        .map(|y| f.iter_args.iter().position(|a| a.0 == *y))
        .collect()
}

fn apart_outside(k: &Kernel, lp: StmtId, apart: &[ValueId]) -> Vec<ValueId> {
    apart
        .iter()
        .copied()
        .filter(|h| !is_arg_of(k, *h, lp))
        .collect()
}

fn is_arg_of(k: &Kernel, h: ValueId, lp: syncopt_ir::StmtId) -> bool {
    matches!(k.values[h].kind, ValueKind::IterArg { stmt, .. } if stmt == lp)
}

/// `p` with the induction variables of `pins` fixed to their values in slot indices (of
/// `p` and of the handle place it is seen through).
pub fn pin_place(p: &Place, pins: &[(ValueId, i64)]) -> Place {
    let mut out = p.clone();
    if let Region::Slot {
        count,
        index,
        fixed,
        ..
    } = &mut out.region
    {
        let mut changed = false;
        for &(iv, x) in pins {
            let c = index.coef(Var::Value(iv));
            if c != 0 {
                index.add_term(Var::Value(iv), -c);
                index.constant = index.constant.wrapping_add(c.wrapping_mul(x));
                changed = true;
            }
        }
        if changed {
            index.constant = index.constant.rem_euclid((*count).max(1) as i64);
            if fixed.is_none() && index.is_constant() {
                *fixed = Some(index.constant);
            }
        }
    }
    if let Some(v) = &p.via {
        out.via = Some(Box::new(pin_place(v, pins)));
    }
    out
}

/// The expression in the next iteration's frame: `iv_old = iv_new - step`.
fn shift(e: &AffineExpr, iv: Var, step: i64) -> AffineExpr {
    let c = e.coef(iv);
    let mut out = e.clone();
    out.constant = out.constant.wrapping_sub(c.wrapping_mul(step));
    out
}

/// The size of one slot of a slot region (0 when unknown).
fn slot_size(r: &Region) -> u64 {
    match r {
        Region::Slot { lo, hi, count, .. } if *count > 0 && hi >= lo && *hi != u64::MAX => {
            (hi - lo) / *count as u64
        }
        _ => 0,
    }
}

/// The bytes a slot region touches from its slot's start: its span, or the whole slot.
fn slot_span(r: &Region) -> (u64, u64) {
    match r {
        Region::Slot {
            span: Some(span), ..
        } => *span,
        _ => (0, slot_size(r)),
    }
}

/// The bytes a slot region touches, when its slot is known.
fn slot_range(r: &Region) -> Option<(u64, u64)> {
    if let Region::Slot {
        lo,
        count,
        index,
        fixed,
        ..
    } = r
    {
        let c = fixed.or(index.is_constant().then_some(index.constant));
        if let (Some(c), true) = (c, *count > 0) {
            let size = slot_size(r);
            let i = c.rem_euclid(*count as i64) as u64;
            let start = lo.saturating_add(i.saturating_mul(size));
            let (a, b) = slot_span(r);
            return Some((start.saturating_add(a), start.saturating_add(b)));
        }
    }
    None
}

/// The bytes a slot region may touch, whichever its slot: the slotted range, or with a span
/// the span from every slot's start.
fn slot_hull(r: &Region) -> (u64, u64) {
    match r {
        Region::Slot {
            lo,
            hi,
            count,
            span: Some((a, b)),
            ..
        } if *count > 0 && *hi != u64::MAX => {
            let last = lo.saturating_add((*count as u64 - 1).saturating_mul(slot_size(r)));
            (lo.saturating_add(*a), last.saturating_add(*b))
        }
        Region::Slot {
            lo, hi, span: None, ..
        } => (*lo, *hi),
        Region::Slot { lo, .. } => (*lo, u64::MAX),
        Region::Range(a, b) => (*a, *b),
        Region::Word { lo, .. } => (*lo, u64::MAX),
    }
}

/// Bytes `[a, b)` of a slot whose index is not known: the slot when they stay in it, else
/// those bytes from the slot's start (reaching into the next slots).
fn bytes_on_slot(r: &Region, a: u64, b: u64) -> Region {
    let size = slot_size(r);
    match r {
        Region::Slot {
            lo,
            hi,
            count,
            index,
            fixed,
            ..
        } if size > 0 => {
            if b <= size {
                return r.clone();
            }
            Region::Slot {
                lo: *lo,
                hi: *hi,
                count: *count,
                index: index.clone(),
                fixed: *fixed,
                span: Some((a, b.max(a))),
            }
        }
        _ => Region::Range(0, u64::MAX),
    }
}

fn bytes_of(m: &Memory, r: &Region) -> (u64, u64) {
    match r {
        Region::Range(a, b) => (*a, *b),
        Region::Slot { .. } => slot_range(r).unwrap_or_else(|| slot_hull(r)),
        Region::Word { lo, index } => word_bytes(m.threads, *lo, index).unwrap_or((*lo, u64::MAX)),
    }
}

/// The bytes `lo + 4 * index` spans over the workgroup's threads, when the index depends on
/// the thread id alone (as the verifier bounds it).
fn word_bytes(threads: u64, lo: u64, index: &AffineExpr) -> Option<(u64, u64)> {
    if threads == 0 || threads > 1 << 20 || index.terms.iter().any(|&(v, _)| v != Var::Tid) {
        return None;
    }
    let a = index.coef(Var::Tid) as i128;
    let c = index.constant as i128;
    let last = threads as i128 - 1;
    let (w0, w1) = (c, c + a * last);
    let (wmin, wmax) = (w0.min(w1), w0.max(w1));
    if wmin < 0 {
        return None;
    }
    let a = lo as i128 + 4 * wmin;
    let b = lo as i128 + 4 * wmax + 4;
    (b <= u64::MAX as i128).then_some((a as u64, b as u64))
}

impl Memory {
    /// A slot-index difference as a constant mod `count`, when it is one: an induction
    /// variable whose step is a multiple of the period contributes only its start.
    fn slot_diff(&self, d: &AffineExpr, count: i64) -> Option<i64> {
        let mut c = d.constant;
        for &(v, coef) in &d.terms {
            let Var::Value(v) = v else {
                return None;
            };
            let &(lo, step) = self.ivs.get(&v)?;
            if coef.wrapping_mul(step).rem_euclid(count) != 0 {
                return None;
            }
            c = c.wrapping_add(coef.wrapping_mul(lo));
        }
        Some(c.rem_euclid(count))
    }

    /// Re-expresses a constant slot index through the induction variable of loop `lp`, so
    /// that the slot keeps its identity as the loop's frames advance: at the first iteration
    /// `iv == lo`, so `iv + (c - lo)` names slot `c`.
    pub fn entering_loop(&self, k: &Kernel, lp: syncopt_ir::StmtId, p: &Place) -> Place {
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            return p.clone();
        };
        let (syncopt_ir::Bound::Const(lo), 1) = (f.lo, f.step) else {
            return p.clone();
        };
        if !self.slot_loops.contains(&lp) {
            // Nothing in the loop picks a slot by its induction variable: keep the place
            // constant, so it survives the loop's exit intact.
            return p.clone();
        }
        if let (Base::Root(r), Region::Range(x, y), None) = (&p.base, &p.region, &p.via) {
            // Bytes inside one slot of a slotting the loop picks by its induction variable
            // are that slot: its identity then follows the frames like a constant view's.
            if let Some(q) = self.range_as_slot(lp, *r, *x, *y, f.iv, lo) {
                return Place {
                    base: p.base.clone(),
                    region: q,
                    via: None,
                    apart: Vec::new(),
                };
            }
        }
        match &p.region {
            Region::Slot {
                lo: a,
                hi,
                count,
                index,
                fixed,
                span,
            } if index.is_constant() => {
                let mut e = AffineExpr::var(Var::Value(f.iv));
                e.constant = (index.constant.wrapping_sub(lo)).rem_euclid((*count).max(1) as i64);
                Place {
                    base: p.base.clone(),
                    region: Region::Slot {
                        lo: *a,
                        hi: *hi,
                        count: *count,
                        index: e,
                        fixed: fixed.or(Some(index.constant)),
                        span: *span,
                    },
                    via: None,
                    apart: Vec::new(),
                }
            }
            _ => p.clone(),
        }
    }

    /// Bytes `[x, y)` of root `r` as a slot region of the first slotting of loop `lp` that
    /// holds them in one slot (`fixed` to it, the index through `iv`, which starts at
    /// `iv_lo`, with step 1), when there is one.
    fn range_as_slot(
        &self,
        lp: StmtId,
        r: BufferId,
        x: u64,
        y: u64,
        iv: ValueId,
        iv_lo: i64,
    ) -> Option<Region> {
        if x >= y || y == u64::MAX || self.aliased(r) {
            return None;
        }
        let layouts = self.slot_layouts.get(&lp)?;
        for &(root, lo, hi, count) in layouts {
            if root != r || x < lo || y > hi {
                continue;
            }
            let size = (hi - lo) / count as u64;
            if size == 0 {
                continue;
            }
            let j = (x - lo) / size;
            let start = lo + j * size;
            if y > start + size || j >= count as u64 {
                continue;
            }
            let mut e = AffineExpr::var(Var::Value(iv));
            e.constant = (j as i64).wrapping_sub(iv_lo).rem_euclid(count as i64);
            let span = (x != start || y != start + size).then_some((x - start, y - start));
            return Some(Region::Slot {
                lo,
                hi,
                count,
                index: e,
                fixed: Some(j as i64),
                span,
            });
        }
        None
    }

    fn region_overlap(&self, p: &Region, q: &Region) -> Conflict {
        region_overlap(self, p, q)
    }
}

fn region_overlap(m: &Memory, p: &Region, q: &Region) -> Conflict {
    match (p, q) {
        (Region::Word { lo: l1, index: e1 }, Region::Word { lo: l2, index: e2 }) => {
            if let (Some((a1, b1)), Some((a2, b2))) = (
                word_bytes(m.threads, *l1, e1),
                word_bytes(m.threads, *l2, e2),
            ) {
                if b1 <= a2 || b2 <= a1 {
                    return Conflict::None;
                }
            }
            let mut d = e1.clone();
            for &(v, c) in &e2.terms {
                d.add_term(v, -c);
            }
            d.constant = d.constant.wrapping_sub(e2.constant);
            let c = e1.coef(Var::Tid);
            let lo_diff = *l1 as i128 - *l2 as i128;
            if !d.is_constant() || c == 0 || lo_diff % 4 != 0 || c != e2.coef(Var::Tid) {
                return Conflict::CrossThread;
            }
            let dd = lo_diff / 4 + d.constant as i128;
            if dd == 0 {
                Conflict::SameThread
            } else if dd % (c as i128) != 0 {
                Conflict::None
            } else {
                Conflict::CrossThread
            }
        }
        (
            Region::Slot {
                lo: a1,
                hi: b1,
                count: n1,
                index: i1,
                fixed: f1,
                span: s1,
            },
            Region::Slot {
                lo: a2,
                hi: b2,
                count: n2,
                index: i2,
                fixed: f2,
                span: s2,
            },
        ) if a1 == a2 && b1 == b2 && n1 == n2 => {
            let spans = s1.is_some() || s2.is_some();
            if let (Some(x), Some(y)) = (f1, f2) {
                if spans {
                    return match (slot_range(p), slot_range(q)) {
                        (Some((x0, x1)), Some((y0, y1))) if x1 <= y0 || y1 <= x0 => Conflict::None,
                        _ => Conflict::CrossThread,
                    };
                }
                let n = (*n1).max(1) as i64;
                return if x.rem_euclid(n) == y.rem_euclid(n) {
                    Conflict::CrossThread
                } else {
                    Conflict::None
                };
            }
            let mut d = i1.clone();
            for &(v, c) in &i2.terms {
                d.add_term(v, -c);
            }
            d.constant = d.constant.wrapping_sub(i2.constant);
            let n = (*n1).max(1) as i64;
            match m.slot_diff(&d, n) {
                // Slot of `p` = slot of `q` + x (mod n): a span reaching past its slot may
                // meet the other in any placement of the pair, tried one by one.
                Some(x) if spans => {
                    let size = slot_size(p);
                    if size == 0 || n > 1024 {
                        return Conflict::CrossThread;
                    }
                    let (pa, pb) = slot_span(p);
                    let (qa, qb) = slot_span(q);
                    for sq in 0..n {
                        let sp = (sq + x).rem_euclid(n);
                        let p0 = sp as u128 * size as u128;
                        let q0 = sq as u128 * size as u128;
                        if p0 + (pa as u128) < q0 + qb as u128
                            && q0 + (qa as u128) < p0 + pb as u128
                        {
                            return Conflict::CrossThread;
                        }
                    }
                    Conflict::None
                }
                Some(x) if x != 0 => Conflict::None,
                _ => Conflict::CrossThread,
            }
        }
        _ => {
            let (a1, b1) = bytes_of(m, p);
            let (a2, b2) = bytes_of(m, q);
            if a1 < b2 && a2 < b1 {
                Conflict::CrossThread
            } else {
                Conflict::None
            }
        }
    }
}

/// Whether an access of `a` followed by one of `b` is a hazard (one writes; atomics pair up).
pub fn kinds_conflict(a: AccessKind, b: AccessKind) -> bool {
    if a == AccessKind::Atomic && b == AccessKind::Atomic {
        return false;
    }
    a.writes() || b.writes()
}

/// Whether an effect on `v` is in workgroup memory (or may be: unknown spaces count).
pub fn is_workgroup(k: &Kernel, v: ValueId) -> bool {
    matches!(
        syncopt_targets::value_space(k, v, 0),
        Some(Space::Workgroup) | None
    )
}

fn idx<T: syncopt_ir::EntityRef>(x: T) -> usize {
    x.index()
}
