//! CPU interpreter with barrier-synchronous semantics (`syncopt run`).
//!
//! The threads of one workgroup run in lockstep, statement by statement: every active thread
//! finishes an op before any starts the next. That is one legal schedule of any kernel, so a
//! race-free kernel computes exactly what the GPU computes, whatever barriers it uses: they
//! are no-ops here. Async copies are the exception: their workgroup writes are held per thread
//! and land only when a wait (`cp_async.wait`, `wait vmcnt(n)`...) completes them, so a
//! kernel that reads a copy before waiting for it reads the old contents. The memory model
//! (which words an access touches, what a store writes, the checksum) is in [`model`] and is
//! shared with the CUDA emitter.

pub mod model;

use std::collections::{BTreeMap, VecDeque};

use model::*;
use syncopt_ir::{
    AccessKind, BlockId, Bound, Counter, Diagnostic, EntityRef, Kernel, Loc, OpData, Selector,
    StmtId, StmtKind, SyncOp, ValueId, ValueKind, ViewKind,
};
use syncopt_targets::Target;

/// Word accesses one run may make before it is stopped (a guard against huge trip counts).
const WORK_BUDGET: u64 = 400_000_000;

/// Runs the kernel; returns one checksum per thread.
pub fn run(kernel: &Kernel, target: Target) -> Result<Vec<u64>, Diagnostic> {
    if !target.is_gpu() {
        return Err(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "'{}' has no workgroup model: run executes GPU targets only",
                target.name()
            ),
        ));
    }
    let (sums, races) = run_with_races(kernel, target)?;
    if std::env::var("SYNCOPT_INTERP_RACES").as_deref() == Ok("1") {
        for r in races.iter().take(20) {
            eprintln!("race: {r}");
        }
        eprintln!("races: {}", races.len());
    }
    Ok(sums)
}

/// Runs the kernel and also reports the races of this execution: two accesses to one shared
/// word from different warps in the same barrier interval (barriers and split-barrier waits
/// end an interval), at least one a write (two atomics never race), with async copies landing
/// at their wait; and an async copy issued while an earlier copy of the same thread to the same
/// word is still in flight (`cp.async` copies are unordered until waited for).
pub fn run_with_races(
    kernel: &Kernel,
    target: Target,
) -> Result<(Vec<u64>, Vec<String>), Diagnostic> {
    if !target.is_gpu() {
        return Err(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "'{}' has no workgroup model: run executes GPU targets only",
                target.name()
            ),
        ));
    }
    let mut m = Machine::new(kernel, target)?;
    let all: Vec<u32> = (0..m.threads).collect();
    m.exec_block(kernel.body, &all)?;
    Ok((m.cs, m.races.found))
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    Atomic,
}

/// Barrier-interval race detector over shared words.
struct Races {
    epoch: u64,
    /// Per word: (interval, warp) of the last plain write.
    last_write: Vec<(u64, u32)>,
    /// Per word: (interval, mask of warps that made atomic updates in it).
    atomics: Vec<(u64, u64)>,
    /// Per word: (interval, mask of warps that read it in that interval).
    readers: Vec<(u64, u64)>,
    /// Per word: (thread + 1, count) of in-flight async copies to it.
    inflight: Vec<(u32, u32)>,
    found: Vec<String>,
}

impl Races {
    fn new(words: usize) -> Self {
        Races {
            epoch: 1,
            last_write: vec![(0, 0); words],
            atomics: vec![(0, 0); words],
            readers: vec![(0, 0); words],
            inflight: vec![(0, 0); words],
            found: Vec::new(),
        }
    }

    fn report(&mut self, msg: String) {
        if self.found.len() < 1000 {
            self.found.push(msg);
        }
    }

    fn access(&mut self, w: usize, warp: u32, kind: Access, what: &str) {
        let e = self.epoch;
        let bit = 1u64 << (warp % 64);
        let (we, ww) = self.last_write[w];
        let plain_other = we == e && ww != warp;
        let (ae, amask) = self.atomics[w];
        let atomic_other = ae == e && amask & !bit != 0;
        let (re, rmask) = self.readers[w];
        let read_other = re == e && rmask & !bit != 0;
        let hazard = match kind {
            Access::Read => (plain_other || atomic_other).then_some("RAW"),
            Access::Write => {
                if plain_other || atomic_other {
                    Some("WAW")
                } else {
                    read_other.then_some("WAR")
                }
            }
            // Two atomics never race; an atomic and a plain access do.
            Access::Atomic => {
                if plain_other {
                    Some("WAW")
                } else {
                    read_other.then_some("WAR")
                }
            }
        };
        if let Some(k) = hazard {
            self.report(format!(
                "{k} on shared word {w}: warp {warp} touches it ('{what}') after another warp in the same barrier interval"
            ));
        }
        match kind {
            Access::Read => {
                let r = &mut self.readers[w];
                if r.0 != e {
                    *r = (e, 0);
                }
                r.1 |= bit;
            }
            Access::Write => self.last_write[w] = (e, warp),
            Access::Atomic => {
                let a = &mut self.atomics[w];
                if a.0 != e {
                    *a = (e, 0);
                }
                a.1 |= bit;
            }
        }
    }

    fn issued(&mut self, w: usize, t: u32, what: &str) {
        let (owner, n) = self.inflight[w];
        if n > 0 && owner == t + 1 {
            self.report(format!(
                "async WAW on shared word {w}: thread {t} issues '{what}' while its earlier copy to the word is in flight"
            ));
        }
        self.inflight[w] = if owner == t + 1 {
            (owner, n + 1)
        } else {
            (t + 1, 1)
        };
    }

    fn landed(&mut self, w: usize) {
        let c = &mut self.inflight[w];
        c.1 = c.1.saturating_sub(1);
    }
}

/// Program-order ordinal of every op statement (the `op` input of [`model::store_value`]);
/// `u32::MAX` for other statements. Inserted sync ops do not shift it.
pub fn op_ordinals(k: &Kernel) -> Vec<u32> {
    let mut ord = vec![u32::MAX; k.stmts.len()];
    let mut n = 0u32;
    k.walk(&mut |s, d| {
        if matches!(d.kind, StmtKind::Op(_)) {
            ord[s.index()] = n;
            n += 1;
        }
    });
    ord
}

/// Threads per workgroup of `k` on `target`.
pub fn thread_count(k: &Kernel, target: Target) -> Result<(u32, u32), Diagnostic> {
    let wave = target.info().wave_size;
    let waves = target.waves(k);
    let threads = waves.checked_mul(wave).filter(|&t| (1..=1024).contains(&t));
    match threads {
        Some(t) => Ok((t, wave)),
        None => Err(Diagnostic::error(
            Some(k.loc),
            format!(
                "{waves} waves of {wave} threads: not a launchable workgroup (1 to 1024 threads)"
            ),
        )),
    }
}

/// The value of every parameter: its default (run and emit need one).
pub fn param_values(k: &Kernel) -> Result<Vec<(ValueId, i64)>, Diagnostic> {
    k.params
        .iter()
        .map(|&p| match k.values[p].kind {
            ValueKind::Param { default: Some(d) } => Ok((p, d)),
            _ => Err(Diagnostic::error(
                k.values[p].loc,
                format!(
                    "parameter '%{}' has no default value; write '%{} = N' to execute the kernel",
                    k.value_name(p),
                    k.value_name(p)
                ),
            )),
        })
        .collect()
}

type Copy = Vec<(usize, u32)>;

struct Machine<'k> {
    k: &'k Kernel,
    target: Target,
    threads: u32,
    wave: u32,
    layout: Layout,
    shared: Vec<u32>,
    gout: Vec<u32>,
    cs: Vec<u64>,
    ints: Vec<Option<i64>>,
    handles: Vec<Option<Handle>>,
    ivs: Vec<i64>,
    op_ord: Vec<u32>,
    /// Per thread: cp.async copies issued since the last commit.
    open: Vec<Copy>,
    /// Per thread and counter: outstanding units, oldest first.
    queues: Vec<BTreeMap<Counter, VecDeque<Copy>>>,
    /// Which op instance last wrote each shared word, and which thread: one instance writing a
    /// word from two threads is a result that depends on timing.
    stamp: Vec<u64>,
    writer: Vec<u32>,
    instance: u64,
    work: u64,
    races: Races,
}

impl<'k> Machine<'k> {
    fn new(k: &'k Kernel, target: Target) -> Result<Self, Diagnostic> {
        let (threads, wave) = thread_count(k, target)?;
        let layout = model::layout(k)?;
        let nv = k.values.len();
        let mut ints = vec![None; nv];
        let mut handles = vec![None; nv];
        for (p, d) in param_values(k)? {
            ints[p.index()] = Some(d);
        }
        for (v, data) in k.values.iter() {
            if let ValueKind::Buffer(b) = data.kind {
                handles[v.index()] = Some(layout.buffers[b.index()]);
            }
        }
        let t = threads as usize;
        let layout_words = layout.shared_words as usize;
        Ok(Machine {
            k,
            target,
            threads,
            wave,
            shared: vec![0; layout.shared_words as usize],
            gout: vec![0; layout.global_words as usize],
            stamp: vec![0; layout.shared_words as usize],
            writer: vec![0; layout.shared_words as usize],
            layout,
            cs: (0..threads).map(checksum_init).collect(),
            ints,
            handles,
            ivs: Vec::new(),
            op_ord: op_ordinals(k),
            open: vec![Vec::new(); t],
            queues: vec![BTreeMap::new(); t],
            instance: 0,
            work: 0,
            races: Races::new(layout_words),
        })
    }

    fn loc(&self, s: StmtId) -> Option<Loc> {
        self.k.stmts[s].loc.or(Some(self.k.loc))
    }

    fn int(&self, v: ValueId) -> Option<i64> {
        self.ints[v.index()]
    }

    fn eval(
        &self,
        e: &syncopt_ir::AffineExpr,
        tid: u32,
        loc: Option<Loc>,
    ) -> Result<i64, Diagnostic> {
        eval_expr(e, tid, |v| self.int(v), self.k, loc)
    }

    fn handle(&self, v: ValueId, loc: Option<Loc>) -> Result<Handle, Diagnostic> {
        self.handles[v.index()].ok_or_else(|| {
            Diagnostic::error(
                loc,
                format!("'%{}' has no memory value here", self.k.value_name(v)),
            )
        })
    }

    fn bound(&self, b: Bound, loc: Option<Loc>) -> Result<i64, Diagnostic> {
        match b {
            Bound::Const(c) => Ok(c),
            Bound::Value(v) => self.int(v).ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    format!("loop bound '%{}' has no value here", self.k.value_name(v)),
                )
            }),
        }
    }

    fn charge(&mut self, n: u64, loc: Option<Loc>) -> Result<(), Diagnostic> {
        self.work += n;
        if self.work > WORK_BUDGET {
            return Err(Diagnostic::error(
                loc,
                format!("the run exceeds {WORK_BUDGET} word accesses; lower the trip counts"),
            ));
        }
        Ok(())
    }

    fn exec_block(&mut self, block: BlockId, active: &[u32]) -> Result<(), Diagnostic> {
        if active.is_empty() {
            return Ok(());
        }
        let k = self.k;
        for &s in &k.blocks[block].stmts {
            let loc = self.loc(s);
            match &k.stmts[s].kind {
                StmtKind::Op(op) => self.exec_op(s, op, active)?,
                StmtKind::For(f) => {
                    let lo = self.bound(f.lo, loc)?;
                    let hi = self.bound(f.hi, loc)?;
                    for &(arg, init) in &f.iter_args {
                        self.handles[arg.index()] = Some(self.handle(init, loc)?);
                    }
                    let mut i = lo;
                    while f.step > 0 && i < hi {
                        self.charge(1, loc)?;
                        self.ints[f.iv.index()] = Some(i);
                        self.ivs.push(i);
                        self.exec_block(f.body, active)?;
                        self.ivs.pop();
                        let ys = &k.blocks[f.body].yields;
                        let next: Vec<Handle> = ys
                            .iter()
                            .map(|&y| self.handle(y, loc))
                            .collect::<Result<_, _>>()?;
                        for (&(arg, _), h) in f.iter_args.iter().zip(next) {
                            self.handles[arg.index()] = Some(h);
                        }
                        i = match i.checked_add(f.step) {
                            Some(n) => n,
                            None => break,
                        };
                    }
                    self.ints[f.iv.index()] = None;
                    for (j, &r) in f.results.iter().enumerate() {
                        if let Some(&(arg, _)) = f.iter_args.get(j) {
                            self.handles[r.index()] = self.handles[arg.index()];
                        }
                    }
                }
                StmtKind::If(i) => {
                    let mut then_t = Vec::new();
                    let mut else_t = Vec::new();
                    for &t in active {
                        let mut err = None;
                        let taken = i.cond.eval(|v| match v {
                            syncopt_ir::Var::Tid => t as i64,
                            syncopt_ir::Var::Value(id) => self.int(id).unwrap_or_else(|| {
                                err = Some(id);
                                0
                            }),
                        });
                        if let Some(id) = err {
                            return Err(Diagnostic::error(
                                loc,
                                format!("'%{}' has no integer value here", k.value_name(id)),
                            ));
                        }
                        if i.cond.modulo == Some(0) {
                            return Err(Diagnostic::error(loc, "condition takes 'mod 0'"));
                        }
                        if taken {
                            then_t.push(t);
                        } else {
                            else_t.push(t);
                        }
                    }
                    if !i.results.is_empty() && !then_t.is_empty() && !else_t.is_empty() {
                        return Err(Diagnostic::error(
                            loc,
                            "threads disagree on an 'if' that yields memory: not executable",
                        ));
                    }
                    self.exec_block(i.then_block, &then_t)?;
                    if let Some(e) = i.else_block {
                        self.exec_block(e, &else_t)?;
                    }
                    let taken = if !then_t.is_empty() {
                        Some(i.then_block)
                    } else {
                        i.else_block
                    };
                    if let Some(b) = taken {
                        let ys = k.blocks[b].yields.clone();
                        for (&r, &y) in i.results.iter().zip(&ys) {
                            self.handles[r.index()] = Some(self.handle(y, loc)?);
                        }
                    }
                }
                StmtKind::View(view) => {
                    let vd = &k.views[*view];
                    let base = self.handle(vd.base, loc)?;
                    let h = match &vd.kind {
                        ViewKind::Range { lo, hi } => range_view(base, *lo, *hi, loc)?,
                        ViewKind::Slot { count, index } => {
                            if index.mentions_tid() {
                                return Err(Diagnostic::error(
                                    loc,
                                    "a slot index that depends on 'tid' is not executable",
                                ));
                            }
                            let idx = self.eval(index, 0, loc)?;
                            slot_view(base, *count, idx, loc)?
                        }
                    };
                    self.handles[vd.value.index()] = Some(h);
                }
                StmtKind::Sync(op) => self.exec_sync(op, active, loc)?,
                StmtKind::Stage(_) | StmtKind::StageEnd => {}
            }
        }
        Ok(())
    }

    fn exec_sync(
        &mut self,
        op: &SyncOp,
        active: &[u32],
        loc: Option<Loc>,
    ) -> Result<(), Diagnostic> {
        match op {
            // Lockstep execution already orders everything a barrier orders; the race detector
            // starts a new interval.
            SyncOp::Barrier { .. } | SyncOp::Wait { .. } => {
                self.races.epoch += 1;
                Ok(())
            }
            SyncOp::Signal { .. }
            | SyncOp::CondBarrier { .. }
            | SyncOp::SchedBarrier { .. }
            | SyncOp::SetPrio { .. } => Ok(()),
            SyncOp::CpAsyncCommit => {
                for &t in active {
                    let g = std::mem::take(&mut self.open[t as usize]);
                    self.queues[t as usize]
                        .entry(Counter::CpAsync)
                        .or_default()
                        .push_back(g);
                }
                Ok(())
            }
            SyncOp::CpAsyncWait { n } => {
                self.drain(Counter::CpAsync, *n, active);
                Ok(())
            }
            SyncOp::CounterWait { counter, n } => {
                self.drain(*counter, *n, active);
                Ok(())
            }
            SyncOp::SetFlag { .. } | SyncOp::WaitFlag { .. } | SyncOp::PipeBarrier { .. } => Err(
                Diagnostic::error(loc, "Ascend pipe flags are not executable on a GPU target"),
            ),
        }
    }

    fn drain(&mut self, counter: Counter, n: u32, active: &[u32]) {
        for &t in active {
            let Some(q) = self.queues[t as usize].get_mut(&counter) else {
                continue;
            };
            while q.len() > n as usize {
                let unit = q.pop_front().expect("non-empty");
                for (w, v) in unit {
                    self.shared[w] = v;
                    self.races.landed(w);
                    self.races
                        .access(w, t / self.wave, Access::Write, "async copy landing");
                }
            }
        }
    }

    /// Word indices (relative to `h`) that thread `t` touches through `sel`.
    fn words(
        &self,
        h: Handle,
        sel: &Selector,
        reversed: bool,
        step: u32,
        t: u32,
        loc: Option<Loc>,
    ) -> Result<Vec<i64>, Diagnostic> {
        match sel {
            Selector::Index(e) => {
                let w = self.eval(e, t, loc)?;
                if w < 0 || w >= h.words {
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "thread {t} touches word {w}, outside the {} words of the operand",
                            h.words
                        ),
                    ));
                }
                Ok(vec![w])
            }
            Selector::Whole | Selector::Bytes { .. } => {
                let (a, b) = sel_range(h, sel, loc)?;
                let start = a + pattern_start(t, self.threads, self.wave, step, reversed);
                Ok((start..b).step_by(self.threads as usize).collect())
            }
        }
    }

    fn exec_op(&mut self, s: StmtId, op: &OpData, active: &[u32]) -> Result<(), Diagnostic> {
        let k = self.k;
        let loc = self.loc(s);
        let ord = self.op_ord[s.index()];
        let iter = iter_key(&self.ivs);
        let step = rotation_step(ord, &self.ivs);
        self.instance += 1;
        let mut handles = Vec::with_capacity(op.effects.len());
        for e in &op.effects {
            handles.push(self.handle(e.mem.value, e.loc.or(loc))?);
        }
        let writes_shared = op
            .effects
            .iter()
            .zip(&handles)
            .any(|(e, h)| e.kind.writes() && h.mem == Mem::Shared);
        let counter = match op.asynchronous {
            Some(spec) => Some(self.target.async_counter(spec, &op.name).ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    format!("'{}' has no async counter", self.target.name()),
                )
            })?),
            None => None,
        };
        let source = op
            .effects
            .iter()
            .zip(&handles)
            .find(|(e, h)| e.kind == AccessKind::Read && h.mem == Mem::Global)
            .map(|(e, h)| (*h, e.mem.sel.clone()));
        // The source of an async copy is only copied, not loaded: it does not feed the checksum.
        let source_idx = op
            .effects
            .iter()
            .zip(&handles)
            .position(|(e, h)| e.kind == AccessKind::Read && h.mem == Mem::Global)
            .filter(|_| counter.is_some());
        let mut pending: Vec<Copy> = vec![Vec::new(); active.len()];
        for (ei, (e, &h)) in op.effects.iter().zip(&handles).enumerate() {
            if Some(ei) == source_idx {
                continue;
            }
            let eloc = e.loc.or(loc);
            let reversed = e.kind == AccessKind::Read && !writes_shared;
            for (ti, &t) in active.iter().enumerate() {
                let ws = self.words(h, &e.mem.sel, reversed, step, t, eloc)?;
                self.charge(ws.len() as u64, eloc)?;
                for (kk, &rel) in ws.iter().enumerate() {
                    let abs = (h.off + rel) as usize;
                    let value = store_value(ord, t, iter, kk as u32);
                    match (e.kind, h.mem) {
                        (AccessKind::Read, Mem::Shared) => {
                            self.cs[t as usize] = fold(self.cs[t as usize], self.shared[abs]);
                            self.races
                                .access(abs, t / self.wave, Access::Read, &op.name);
                        }
                        (AccessKind::Read, Mem::Global) => {
                            self.cs[t as usize] = fold(self.cs[t as usize], gin_value(abs as u64));
                        }
                        (AccessKind::Write, Mem::Shared) if counter.is_some() => {
                            let src = self.async_source(rel, source.as_ref(), t, eloc)?;
                            pending[ti].push((abs, gin_value(src as u64)));
                            self.races.issued(abs, t, &op.name);
                            // The copy may land at any time from its issue on: it meets other
                            // warps' accesses of the barrier interval too (a read
                            // before the issue and no barrier between: WAR on the hardware).
                            self.races
                                .access(abs, t / self.wave, Access::Write, &op.name);
                        }
                        (AccessKind::Write, Mem::Shared) => {
                            if self.stamp[abs] == self.instance && self.writer[abs] != t {
                                return Err(Diagnostic::error(
                                    eloc,
                                    format!(
                                        "threads {} and {t} both write shared word {abs} in one instance of op '{}': the result would depend on timing",
                                        self.writer[abs], op.name
                                    ),
                                ));
                            }
                            self.stamp[abs] = self.instance;
                            self.writer[abs] = t;
                            self.shared[abs] = value;
                            self.races
                                .access(abs, t / self.wave, Access::Write, &op.name);
                        }
                        (AccessKind::Write, Mem::Global) => self.gout[abs] = value,
                        (AccessKind::Atomic, Mem::Shared) => {
                            self.shared[abs] = self.shared[abs].wrapping_add(value);
                            self.races
                                .access(abs, t / self.wave, Access::Atomic, &op.name);
                        }
                        (AccessKind::Atomic, Mem::Global) => {
                            self.gout[abs] = self.gout[abs].wrapping_add(value)
                        }
                    }
                }
            }
        }
        if let Some(c) = counter {
            for (ti, &t) in active.iter().enumerate() {
                let unit = std::mem::take(&mut pending[ti]);
                if c == Counter::CpAsync {
                    self.open[t as usize].extend(unit);
                } else {
                    self.queues[t as usize]
                        .entry(c)
                        .or_default()
                        .push_back(unit);
                }
            }
        }
        let _ = k;
        Ok(())
    }

    /// The `gin` word an async write of word `dst_rel` (relative to its operand) copies.
    fn async_source(
        &self,
        dst_rel: i64,
        source: Option<&(Handle, Selector)>,
        t: u32,
        loc: Option<Loc>,
    ) -> Result<i64, Diagnostic> {
        match source {
            None => Ok(dst_rel.rem_euclid(self.layout.global_words as i64)),
            Some((h, sel)) => match sel {
                Selector::Index(_) => Ok(h.off + self.words(*h, sel, false, 0, t, loc)?[0]),
                _ => {
                    let (a, b) = sel_range(*h, sel, loc)?;
                    if b <= a {
                        return Err(Diagnostic::error(loc, "the copy's source range is empty"));
                    }
                    Ok(h.off + a + dst_rel.rem_euclid(b - a))
                }
            },
        }
    }
}

/// The relative word range `[a, b)` of a cooperative selector on `h`.
pub fn sel_range(h: Handle, sel: &Selector, loc: Option<Loc>) -> Result<(i64, i64), Diagnostic> {
    let (a, b) = match sel {
        Selector::Whole => (0, h.words),
        Selector::Bytes { lo, hi } => byte_range_words(*lo, *hi),
        Selector::Index(_) => unreachable!("index selectors have no range"),
    };
    if b > h.words {
        return Err(Diagnostic::error(
            loc,
            format!(
                "bytes up to {} are outside the {} bytes of the operand",
                b * 4,
                h.words * 4
            ),
        ));
    }
    Ok((a, b))
}

pub fn range_view(base: Handle, lo: u64, hi: u64, loc: Option<Loc>) -> Result<Handle, Diagnostic> {
    if !lo.is_multiple_of(4) || !hi.is_multiple_of(4) || hi < lo {
        return Err(Diagnostic::error(
            loc,
            format!("view [{lo}:{hi}] is not word aligned: not executable"),
        ));
    }
    let (a, b) = ((lo / 4) as i64, (hi / 4) as i64);
    if b > base.words {
        return Err(Diagnostic::error(
            loc,
            format!(
                "view [{lo}:{hi}] is outside the {} bytes of its base",
                base.words * 4
            ),
        ));
    }
    Ok(Handle {
        mem: base.mem,
        off: base.off + a,
        words: b - a,
    })
}

pub fn slot_view(
    base: Handle,
    count: u32,
    idx: i64,
    loc: Option<Loc>,
) -> Result<Handle, Diagnostic> {
    if count == 0 {
        return Err(Diagnostic::error(loc, "a slot view of 0 slots"));
    }
    let words = base.words / count as i64;
    Ok(Handle {
        mem: base.mem,
        off: base.off + idx.rem_euclid(count as i64) * words,
        words,
    })
}

#[cfg(test)]
mod tests;
