//! The Ascend pipe model (semantics.md 4.2): a path-sensitive dataflow over the structured
//! program that proves every hazard between two pipes ordered by flags or barriers, and every
//! flag balanced on every path.
//!
//! State: a map from a *context* (live flags, induction-variable values or residues, handle
//! bindings) to the set of *pending records*: accesses that some later access may still race
//! with, each with the pipes already ordered after it (vector-clock style) and the live flags
//! that carry it. Joins are unions per context, so the cost is polynomial: no path is ever
//! enumerated. A witness path rides along with each record and context, outside the equality
//! key, so every error comes with a counterexample. See docs/VERIFY-PIPES.md.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use syncopt_ir::{
    AccessKind, AffineExpr, BlockId, Bound, BufferId, Cond, Diagnostic, EntityRef, FlagId, ForData,
    IfData, Kernel, Loc, OpData, Pipe, Placement, Selector, StmtId, StmtKind, SyncOp, ValueId,
    ValueKind, Var, ViewKind,
};
use syncopt_targets::Target;

use crate::Report;

/// Loops with a known trip count up to this are unrolled exactly (iv values known).
const UNROLL_EXACT: u64 = 8;
/// Largest modulus tracked for induction-variable residues (slots, alternating ids).
const MAX_MODULUS: u64 = 64;
/// Iterations explored one by one before a loop falls back to a widening fixpoint.
const CYCLE_CAP: usize = 64;
/// Guard on the widening fixpoint (it is monotone over a finite domain, so this is a backstop).
const WIDEN_CAP: usize = 10_000;
/// Mask of the seven real pipes.
const ALL_PIPES: u8 = 0x7f;

/// A byte range of a root buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Region {
    root: BufferId,
    lo: u64,
    hi: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum IvVal {
    Exact(i64),
    /// The value modulo the iv's tracked modulus (`Checker::iv_mod`).
    Residue(u64),
    Unknown,
}

/// A set flag not yet waited for. `slot` = src pipe * 8 + id.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct LiveFlag {
    slot: u8,
    dst: Pipe,
    set_at: StmtId,
}

/// The part of the state that splits paths: two paths with equal contexts are merged.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
struct Ctx {
    flags: Vec<LiveFlag>,
    ivs: Vec<(ValueId, IvVal)>,
    /// Each handle's possible regions: one for loop-carried handles (kept exact so that
    /// ping-pong buffers stay apart), possibly several for results joined after an if or loop.
    handles: Vec<(ValueId, Vec<Region>)>,
}

/// A pending access.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Rec {
    stmt: StmtId,
    pipe: Pipe,
    kind: AccessKind,
    region: Region,
    /// Pipes whose later ops start only after this access completed.
    ordered: u8,
    /// Live flags (bit = slot) whose wait will order the flag's dst pipe after this access.
    carriers: u64,
}

#[derive(Clone, Debug)]
enum Step {
    /// A loop whose effect was taken from the summary of an earlier visit with the same state.
    Summary {
        stmt: StmtId,
    },
    Iter {
        stmt: StmtId,
        k: u64,
        widened: bool,
    },
    Branch {
        stmt: StmtId,
        then: bool,
    },
}

#[derive(Debug)]
struct PathNode {
    step: Step,
    prev: Path,
}

type Path = Option<Rc<PathNode>>;

fn push_step(p: &Path, step: &Step) -> Path {
    Some(Rc::new(PathNode {
        step: step.clone(),
        prev: p.clone(),
    }))
}

#[derive(Clone, Debug, Default)]
struct CtxState {
    path: Path,
    recs: BTreeMap<Rec, Path>,
}

type State = BTreeMap<Ctx, CtxState>;
type StateKeys = Vec<(Ctx, Vec<Rec>)>;

fn keys_of(st: &State) -> StateKeys {
    st.iter()
        .map(|(c, cs)| (c.clone(), cs.recs.keys().copied().collect()))
        .collect()
}

fn merge_into(st: &mut State, ctx: Ctx, cs: CtxState) {
    match st.get_mut(&ctx) {
        None => {
            st.insert(ctx, cs);
        }
        Some(have) => {
            for (r, p) in cs.recs {
                have.recs.entry(r).or_insert(p);
            }
        }
    }
}

fn union(mut a: State, b: State) -> State {
    for (c, cs) in b {
        merge_into(&mut a, c, cs);
    }
    a
}

/// Equality of the abstract states, witnesses ignored.
fn same_keys(a: &State, b: &State) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((ca, sa), (cb, sb))| {
            ca == cb
                && sa.recs.len() == sb.recs.len()
                && sa.recs.keys().zip(sb.recs.keys()).all(|(x, y)| x == y)
        })
}

fn conflicts(a: AccessKind, b: AccessKind) -> bool {
    (a.writes() || b.writes()) && !(a == AccessKind::Atomic && b == AccessKind::Atomic)
}

fn hazard_name(earlier: AccessKind, later: AccessKind) -> &'static str {
    match (earlier.writes(), later.writes()) {
        (true, false) => "RAW",
        (false, true) => "WAR",
        _ => "WAW",
    }
}

fn kind_word(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
        AccessKind::Atomic => "atomic",
    }
}

fn pipe_from_index(i: u8) -> Pipe {
    Pipe::REAL.get(i as usize).copied().unwrap_or(Pipe::All)
}

fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    if a == 0 || b == 0 {
        0
    } else {
        a / gcd(a, b) * b
    }
}

struct Checker<'k> {
    k: &'k Kernel,
    target: Target,
    /// Pipes whose same-pipe dependences need `pipe_barrier`.
    barrier_pipes: u8,
    flag_ids: u32,
    /// Residues of ivs are tracked modulo this, per iv (0 or absent: not tracked).
    iv_mod: BTreeMap<ValueId, u64>,
    /// Root buffer and byte offset of every buffer (exact placements followed).
    buf_root: Vec<(BufferId, u64)>,
    /// Alias class of every root buffer (`aliases` joins classes).
    group: Vec<usize>,
    /// The block holding each reachable statement.
    stmt_block: BTreeMap<StmtId, BlockId>,
    pipes: BTreeMap<StmtId, Option<Pipe>>,
    /// Induction variables whose exact value matters (plain conditions, word indices).
    exact_ivs: BTreeSet<ValueId>,
    /// Result handles whose last use is the statement at (block, index).
    dead_after: BTreeMap<(BlockId, usize), Vec<ValueId>>,
    /// Loop summaries: entry state (keys) to exit state (keys). The exit is a deterministic
    /// function of the entry, and so are the diagnostics found inside, so a second visit
    /// with the same entry only needs the exit.
    loop_cache: HashMap<(StmtId, StateKeys), StateKeys>,
    diags: BTreeMap<(Option<Loc>, String), Diagnostic>,
    /// Races already reported (the message is a function of this key), so that racy
    /// programs do not format one diagnostic per visit.
    seen_races: HashSet<(StmtId, StmtId, AccessKind, AccessKind, BufferId, BufferId)>,
    states: usize,
}

/// Proves `kernel` free of pipe races and flag imbalance on `target` (an Ascend target).
pub fn verify(kernel: &Kernel, target: Target) -> Report {
    let mut c = Checker::new(kernel, target);
    let mut entry = State::new();
    entry.insert(Ctx::default(), CtxState::default());
    let out = c.block(kernel.body, entry);
    for (ctx, cs) in &out {
        c.states += 1;
        for f in &ctx.flags {
            let (src, id) = (pipe_from_index(f.slot / 8), f.slot % 8);
            let loc = c.loc(f.set_at);
            let d = Diagnostic::error(
                loc,
                format!(
                    "set_flag {src} -> {}, {id} is still pending at kernel exit: no wait_flag clears it on this path",
                    f.dst
                ),
            )
            .with_note(None, format!("path: {}", c.path_text(&cs.path)));
            c.report(d);
        }
    }
    Report {
        diagnostics: c.diags.into_values().collect(),
        states: c.states,
    }
}

impl<'k> Checker<'k> {
    fn new(k: &'k Kernel, target: Target) -> Self {
        let info = target.info();
        let barrier_pipes = info.same_pipe_barrier.iter().fold(0u8, |m, p| m | p.bit());
        let nbuf = k.buffers.len();
        let mut buf_root = Vec::with_capacity(nbuf);
        for b in k.buffers.keys() {
            let v = k.buffers[b].value;
            buf_root.push(k.static_root(v).unwrap_or((b, 0)));
        }
        // Union-find over buffers for `aliases`.
        let mut parent: Vec<usize> = (0..nbuf).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for b in k.buffers.keys() {
            if let Placement::Aliases(other) = k.buffers[b].placement {
                if let Some(ob) = root_buffer_of(k, other, 0) {
                    let x = buf_root[b.index()].0.index();
                    let y = buf_root[ob.index()].0.index();
                    let (rx, ry) = (find(&mut parent, x), find(&mut parent, y));
                    parent[rx] = ry;
                }
            }
        }
        let group = (0..nbuf).map(|i| find(&mut parent, i)).collect();

        let mut stmt_block = BTreeMap::new();
        collect_blocks(k, k.body, &mut stmt_block);
        // Every `expr mod n` of the kernel: the residues of its ivs are what matters.
        let mut mods: Vec<(AffineExpr, u64)> = Vec::new();
        let mut exact_ivs = BTreeSet::new();
        fn vars_of(e: &AffineExpr) -> impl Iterator<Item = ValueId> + '_ {
            e.terms.iter().filter_map(|(v, _)| match v {
                Var::Value(v) => Some(*v),
                Var::Tid => None,
            })
        }
        for v in k.views.values() {
            if let ViewKind::Slot { count, index } = &v.kind {
                mods.push((index.clone(), *count as u64));
            }
        }
        k.walk(&mut |_, d| match &d.kind {
            StmtKind::Sync(SyncOp::SetFlag { id, .. } | SyncOp::WaitFlag { id, .. }) => {
                if let Some((e, n)) = &id.alternate {
                    mods.push((e.clone(), *n as u64));
                }
            }
            StmtKind::If(i) => match i.cond.modulo {
                Some(m) if m > 0 => mods.push((i.cond.expr.clone(), m as u64)),
                _ => exact_ivs.extend(vars_of(&i.cond.expr)),
            },
            StmtKind::Op(op) => {
                for e in &op.effects {
                    if let Selector::Index(x) = &e.mem.sel {
                        exact_ivs.extend(vars_of(x));
                    }
                }
            }
            _ => {}
        });
        // Per iv, the lcm of the moduli it appears under (0: too large to track, so small
        // known-count loops over it are unrolled exactly instead).
        let mut iv_mod: BTreeMap<ValueId, u64> = BTreeMap::new();
        for (e, n) in &mods {
            if *n == 0 {
                continue;
            }
            for v in vars_of(e) {
                let m = iv_mod.entry(v).or_insert(1);
                if *m > 0 {
                    *m = lcm(*m, *n);
                    if *m > MAX_MODULUS {
                        *m = 0;
                    }
                }
            }
        }
        for (v, m) in &iv_mod {
            if *m == 0 {
                exact_ivs.insert(*v);
            }
        }
        Checker {
            k,
            target,
            exact_ivs,
            iv_mod,
            dead_after: dead_after(k),
            loop_cache: HashMap::new(),
            seen_races: HashSet::new(),
            barrier_pipes,
            flag_ids: info.flag_ids,
            buf_root,
            group,
            stmt_block,
            pipes: BTreeMap::new(),
            diags: BTreeMap::new(),
            states: 0,
        }
    }

    fn loc(&self, s: StmtId) -> Option<Loc> {
        self.k.stmts[s].loc
    }

    fn loc_text(&self, s: StmtId) -> String {
        match self.loc(s) {
            Some(l) => l.to_string(),
            None => "an inserted statement".to_string(),
        }
    }

    fn report(&mut self, d: Diagnostic) {
        self.diags.entry((d.loc, d.message.clone())).or_insert(d);
    }

    fn path_text(&self, p: &Path) -> String {
        let mut steps = Vec::new();
        let mut cur = p.clone();
        while let Some(n) = cur {
            steps.push(n.step.clone());
            cur = n.prev.clone();
        }
        if steps.is_empty() {
            return "straight-line code (no branch or loop iteration before this point)".into();
        }
        steps.reverse();
        let total = steps.len();
        const SHOW: usize = 24;
        let mut parts = Vec::new();
        if total > SHOW {
            parts.push(format!("... {} earlier steps", total - SHOW));
        }
        for st in &steps[total.saturating_sub(SHOW)..] {
            parts.push(match st {
                Step::Iter { stmt, k, widened } => {
                    if *widened {
                        format!("loop at {}, iteration {}+", self.loc_text(*stmt), k)
                    } else {
                        format!("loop at {}, iteration {}", self.loc_text(*stmt), k)
                    }
                }
                Step::Summary { stmt } => {
                    format!("loop at {} (0 or more iterations)", self.loc_text(*stmt))
                }
                Step::Branch { stmt, then } => format!(
                    "if at {}: {} branch",
                    self.loc_text(*stmt),
                    if *then { "then" } else { "else" }
                ),
            });
        }
        parts.join(" -> ")
    }

    fn flags_text(&self, ctx: &Ctx) -> String {
        if ctx.flags.is_empty() {
            return "no flag is live here".into();
        }
        let v: Vec<String> = ctx
            .flags
            .iter()
            .map(|f| {
                format!(
                    "{} -> {}, {} (set at {})",
                    pipe_from_index(f.slot / 8),
                    f.dst,
                    f.slot % 8,
                    self.loc_text(f.set_at)
                )
            })
            .collect();
        format!("live flags here: {}", v.join("; "))
    }

    fn buffer_name(&self, b: BufferId) -> String {
        format!("%{}", self.k.value_name(self.k.buffers[b].value))
    }

    fn overlap(&self, a: &Region, b: &Region) -> bool {
        if a.lo >= a.hi || b.lo >= b.hi {
            return false;
        }
        if a.root == b.root {
            a.lo < b.hi && b.lo < a.hi
        } else {
            self.group[a.root.index()] == self.group[b.root.index()]
        }
    }

    // ---- expressions ----

    fn iv_modulus(&self, v: ValueId) -> u64 {
        self.iv_mod.get(&v).copied().unwrap_or(0)
    }

    fn iv(&self, ctx: &Ctx, v: ValueId) -> Option<IvVal> {
        ctx.ivs.iter().rev().find(|x| x.0 == v).map(|x| x.1)
    }

    /// `expr mod n`, when the context determines it.
    fn eval_mod(&self, ctx: &Ctx, e: &AffineExpr, n: u64) -> Option<u64> {
        if n == 0 {
            return None;
        }
        let n = n as i128;
        let mut acc = (e.constant as i128).rem_euclid(n);
        for &(var, coef) in &e.terms {
            let Var::Value(v) = var else { return None };
            let x = match self.iv(ctx, v)? {
                IvVal::Exact(x) => x as i128,
                IvVal::Residue(r)
                    if self.iv_modulus(v) > 0 && (self.iv_modulus(v) as i128) % n == 0 =>
                {
                    r as i128
                }
                _ => return None,
            };
            acc = (acc + (coef as i128).rem_euclid(n) * x.rem_euclid(n)).rem_euclid(n);
        }
        Some(acc as u64)
    }

    fn eval_exact(&self, ctx: &Ctx, e: &AffineExpr) -> Option<i64> {
        let mut acc = e.constant as i128;
        for &(var, coef) in &e.terms {
            let Var::Value(v) = var else { return None };
            match self.iv(ctx, v)? {
                IvVal::Exact(x) => acc += coef as i128 * x as i128,
                _ => return None,
            }
        }
        i64::try_from(acc).ok()
    }

    /// Whether the condition holds: `None` when the context does not decide it.
    fn eval_cond(&self, ctx: &Ctx, c: &Cond) -> Option<bool> {
        let v = match c.modulo {
            Some(m) if m > 0 => self.eval_mod(ctx, &c.expr, m as u64)? as i64,
            Some(_) => return None,
            None => self.eval_exact(ctx, &c.expr)?,
        };
        Some(match c.cmp {
            None => v != 0,
            Some((op, rhs)) => op.holds(v, rhs),
        })
    }

    // ---- memory ----

    /// The regions `v` may name (several through a joined handle; empty when not memory).
    fn resolve(&self, ctx: &Ctx, v: ValueId, depth: u32) -> Vec<Region> {
        if depth > 64 {
            return Vec::new();
        }
        match self.k.values[v].kind {
            ValueKind::Buffer(b) => {
                let (root, off) = self.buf_root[b.index()];
                let size = self.k.buffers[b].size;
                vec![Region {
                    root,
                    lo: off,
                    hi: off.saturating_add(size),
                }]
            }
            ValueKind::View(view) => {
                let vd = &self.k.views[view];
                let bases = self.resolve(ctx, vd.base, depth + 1);
                bases
                    .into_iter()
                    .map(|base| match &vd.kind {
                        ViewKind::Range { lo, hi } => Region {
                            root: base.root,
                            lo: base.lo.saturating_add(*lo),
                            hi: base.lo.saturating_add(*hi),
                        },
                        ViewKind::Slot { count, index } => {
                            let c = (*count as u64).max(1);
                            let size = base.hi.saturating_sub(base.lo) / c;
                            match self.eval_mod(ctx, index, c) {
                                Some(i) => Region {
                                    root: base.root,
                                    lo: base.lo.saturating_add(i.saturating_mul(size)),
                                    hi: base.lo.saturating_add((i + 1).saturating_mul(size)),
                                },
                                // Unknown slot: any of them.
                                None => base,
                            }
                        }
                    })
                    .collect()
            }
            ValueKind::IterArg { stmt, index } | ValueKind::Result { stmt, index } => {
                if let Some((_, r)) = ctx.handles.iter().find(|h| h.0 == v) {
                    return r.clone();
                }
                // Unbound (malformed input): fall back to the initial value.
                match &self.k.stmts[stmt].kind {
                    StmtKind::For(f) => f
                        .iter_args
                        .get(index)
                        .map(|&(_, init)| self.resolve(ctx, init, depth + 1))
                        .unwrap_or_default(),
                    StmtKind::If(i) => self.k.blocks[i.then_block]
                        .yields
                        .get(index)
                        .map(|&y| self.resolve(ctx, y, depth + 1))
                        .unwrap_or_default(),
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn effect_region(&self, ctx: &Ctx, sel: &Selector, base: Region) -> Region {
        match sel {
            Selector::Whole => base,
            Selector::Bytes { lo, hi } => Region {
                root: base.root,
                lo: base.lo.saturating_add(*lo),
                hi: base.lo.saturating_add(*hi),
            },
            Selector::Index(e) => match self.eval_exact(ctx, e) {
                Some(w) if w >= 0 => {
                    let lo = base.lo.saturating_add((w as u64).saturating_mul(4));
                    Region {
                        root: base.root,
                        lo,
                        hi: lo.saturating_add(4),
                    }
                }
                _ => base,
            },
        }
    }

    fn is_within(&self, s: StmtId, ancestor: StmtId) -> bool {
        let mut cur = Some(s);
        let mut guard = 0;
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            guard += 1;
            if guard > 10_000 {
                return false;
            }
            cur = self
                .stmt_block
                .get(&c)
                .and_then(|b| self.k.blocks[*b].parent);
        }
        false
    }

    /// Drops bindings of handles declared inside `s` (out of scope after it).
    fn drop_scoped(&self, ctx: &mut Ctx, s: StmtId) {
        ctx.handles.retain(|(v, _)| match self.k.values[*v].kind {
            ValueKind::IterArg { stmt, .. } => !self.is_within(stmt, s),
            ValueKind::Result { stmt, .. } => stmt == s || !self.is_within(stmt, s),
            _ => true,
        });
    }

    fn bind(ctx: &mut Ctx, v: ValueId, r: Vec<Region>) {
        match ctx.handles.binary_search_by_key(&v, |h| h.0) {
            Ok(i) => ctx.handles[i].1 = r,
            Err(i) => ctx.handles.insert(i, (v, r)),
        }
    }

    // ---- statements ----

    fn block(&mut self, b: BlockId, mut st: State) -> State {
        let stmts = self.k.blocks[b].stmts.clone();
        for (i, s) in stmts.into_iter().enumerate() {
            if st.is_empty() {
                break;
            }
            st = self.stmt(s, st);
            if let Some(dead) = self.dead_after.get(&(b, i)) {
                // Bindings no later statement reads would only split contexts.
                let mut out = State::new();
                for (mut ctx, cs) in st {
                    ctx.handles.retain(|(v, _)| !dead.contains(v));
                    merge_into(&mut out, ctx, cs);
                }
                st = out;
            }
        }
        st
    }

    fn stmt(&mut self, s: StmtId, st: State) -> State {
        self.states += st.len();
        match &self.k.stmts[s].kind {
            StmtKind::Op(op) => self.op(s, op, st),
            StmtKind::Sync(sync) => self.sync(s, sync, st),
            StmtKind::For(f) => self.for_loop(s, f, st),
            StmtKind::If(i) => self.if_stmt(s, i, st),
            StmtKind::View(_) | StmtKind::Stage(_) | StmtKind::StageEnd => st,
        }
    }

    fn pipe(&mut self, s: StmtId, op: &OpData) -> Option<Pipe> {
        if let Some(p) = self.pipes.get(&s) {
            return *p;
        }
        let p = self.target.pipe_of(self.k, op).filter(|p| *p != Pipe::All);
        if p.is_none() {
            self.report(Diagnostic::error(
                self.loc(s),
                format!(
                    "cannot tell which pipe op \"{}\" runs on; the verifier ignores it",
                    op.name
                ),
            ));
        }
        self.pipes.insert(s, p);
        p
    }

    fn op(&mut self, s: StmtId, op: &OpData, mut st: State) -> State {
        let Some(pipe) = self.pipe(s, op) else {
            return st;
        };
        let pbit = pipe.bit();
        for (ctx, cs) in st.iter_mut() {
            // (kind, region, whether the access surely touches it)
            let mut accesses: Vec<(AccessKind, Region, bool)> = Vec::new();
            for e in &op.effects {
                let bases = self.resolve(ctx, e.mem.value, 0);
                let sure = bases.len() == 1;
                for base in bases {
                    accesses.push((e.kind, self.effect_region(ctx, &e.mem.sel, base), sure));
                }
            }
            for &(kind, region, _) in &accesses {
                for (rec, _) in cs.recs.iter() {
                    if rec.ordered & pbit != 0
                        || !conflicts(rec.kind, kind)
                        || !self.overlap(&rec.region, &region)
                    {
                        continue;
                    }
                    let key = (s, rec.stmt, rec.kind, kind, region.root, rec.region.root);
                    if self.seen_races.insert(key) {
                        let d = self.race((s, pipe, kind, &region), rec, ctx, &cs.path);
                        self.report(d);
                    }
                }
            }
            for &(kind, region, _) in accesses.iter().filter(|a| a.2) {
                // A record this access covers, and that is ordered before it, adds nothing:
                // whatever is ordered after this access is ordered after it too.
                // So is an earlier access of the same pipe: every later set_flag or barrier
                // that orders this access orders it too (same pipe, and its ordered set
                // contains this one's).
                cs.recs.retain(|rec, _| {
                    !((rec.ordered & pbit != 0 || rec.pipe == pipe)
                        && rec.region.root == region.root
                        && region.lo <= rec.region.lo
                        && rec.region.hi <= region.hi
                        && [AccessKind::Read, AccessKind::Write, AccessKind::Atomic]
                            .iter()
                            .all(|&c| !conflicts(rec.kind, c) || conflicts(kind, c)))
                });
            }
            for &(kind, region, _) in &accesses {
                let ordered = if self.barrier_pipes & pbit != 0 {
                    0
                } else {
                    pbit
                };
                let rec = Rec {
                    stmt: s,
                    pipe,
                    kind,
                    region,
                    ordered,
                    carriers: 0,
                };
                cs.recs.entry(rec).or_insert_with(|| cs.path.clone());
            }
        }
        st
    }

    /// The error for `rec` racing the later access `(s, pipe, kind, region)`.
    fn race(
        &self,
        (s, pipe, kind, region): (StmtId, Pipe, AccessKind, &Region),
        rec: &Rec,
        ctx: &Ctx,
        path: &Path,
    ) -> Diagnostic {
        let hz = hazard_name(rec.kind, kind);
        let why = if rec.pipe == pipe {
            format!("no pipe_barrier({pipe}) between them")
        } else {
            format!("no flag orders {} before {}", rec.pipe, pipe)
        };
        let on = if rec.region.root == region.root {
            self.buffer_name(region.root)
        } else {
            format!(
                "{} and {} (declared to alias)",
                self.buffer_name(rec.region.root),
                self.buffer_name(region.root)
            )
        };
        let msg = format!(
            "race ({hz}) on {on}: {} {} at {} and {} {} at {}: {why}",
            rec.pipe,
            kind_word(rec.kind),
            self.loc_text(rec.stmt),
            pipe,
            kind_word(kind),
            self.loc_text(s),
        );
        let mut d = Diagnostic::error(self.loc(s), msg)
            .with_note(
                self.loc(rec.stmt),
                format!(
                    "the earlier {} {} of bytes [{}:{}]",
                    rec.pipe,
                    kind_word(rec.kind),
                    rec.region.lo,
                    rec.region.hi
                ),
            )
            .with_note(None, format!("path: {}", self.path_text(path)))
            .with_note(None, self.flags_text(ctx));
        if rec.carriers != 0 {
            let mut carried = Vec::new();
            for f in &ctx.flags {
                if rec.carriers & (1u64 << f.slot) != 0 {
                    carried.push(format!(
                        "{} -> {}, {}",
                        pipe_from_index(f.slot / 8),
                        f.dst,
                        f.slot % 8
                    ));
                }
            }
            d = d.with_note(
                None,
                format!(
                    "set_flag {} carries the earlier access, but no wait_flag on {} comes before the later one",
                    carried.join(", "),
                    pipe
                ),
            );
        }
        d
    }

    fn flag_slot(&mut self, s: StmtId, ctx: &Ctx, src: Pipe, id: &FlagId) -> Option<(u8, u32)> {
        let n = match &id.alternate {
            None => Some(id.base),
            Some((e, n)) => self
                .eval_mod(ctx, e, *n as u64)
                .map(|r| id.base.saturating_add(r as u32)),
        };
        let Some(n) = n else {
            self.report(Diagnostic::error(
                self.loc(s),
                "cannot resolve this event id: it depends on a value the verifier does not track (only induction variables with constant start are tracked)",
            ));
            return None;
        };
        if n >= self.flag_ids.min(8) || src == Pipe::All {
            self.report(Diagnostic::error(
                self.loc(s),
                format!(
                    "event id {n} of {src} is out of range on {} (ids are 0..{})",
                    self.target,
                    self.flag_ids.min(8).saturating_sub(1)
                ),
            ));
            return None;
        }
        Some((src as u8 * 8 + n as u8, n))
    }

    fn sync(&mut self, s: StmtId, sync: &SyncOp, st: State) -> State {
        let mut out = State::new();
        match sync {
            SyncOp::SetFlag { src, dst, id } => {
                for (mut ctx, mut cs) in st {
                    let Some((slot, n)) = self.flag_slot(s, &ctx, *src, id) else {
                        merge_into(&mut out, ctx, cs);
                        continue;
                    };
                    let bit = 1u64 << slot;
                    match ctx.flags.binary_search_by_key(&slot, |f| f.slot) {
                        Ok(i) => {
                            let prev = ctx.flags[i].set_at;
                            let d = Diagnostic::error(
                                self.loc(s),
                                format!(
                                    "event id {n} of {src} reused while live: set at {}, set again at {}",
                                    self.loc_text(prev),
                                    self.loc_text(s)
                                ),
                            )
                            .with_note(self.loc(prev), "the earlier set_flag, not yet waited for")
                            .with_note(None, format!("path: {}", self.path_text(&cs.path)));
                            self.report(d);
                            ctx.flags[i] = LiveFlag {
                                slot,
                                dst: *dst,
                                set_at: s,
                            };
                        }
                        Err(i) => ctx.flags.insert(
                            i,
                            LiveFlag {
                                slot,
                                dst: *dst,
                                set_at: s,
                            },
                        ),
                    }
                    let sbit = src.bit();
                    cs.recs = std::mem::take(&mut cs.recs)
                        .into_iter()
                        .map(|(mut r, p)| {
                            if r.pipe == *src || r.ordered & sbit != 0 {
                                r.carriers |= bit;
                            } else {
                                r.carriers &= !bit;
                            }
                            (r, p)
                        })
                        .collect();
                    merge_into(&mut out, ctx, cs);
                }
            }
            SyncOp::WaitFlag { src, dst, id } => {
                for (mut ctx, mut cs) in st {
                    let Some((slot, n)) = self.flag_slot(s, &ctx, *src, id) else {
                        merge_into(&mut out, ctx, cs);
                        continue;
                    };
                    let bit = 1u64 << slot;
                    match ctx.flags.binary_search_by_key(&slot, |f| f.slot) {
                        Err(_) => {
                            let d = Diagnostic::error(
                                self.loc(s),
                                format!(
                                    "wait_flag {src} -> {dst}, {n} without a matching set_flag on some path: the pipe {dst} would wait forever"
                                ),
                            )
                            .with_note(None, format!("path: {}", self.path_text(&cs.path)))
                            .with_note(None, self.flags_text(&ctx));
                            self.report(d);
                            merge_into(&mut out, ctx, cs);
                            continue;
                        }
                        Ok(i) => {
                            let f = ctx.flags.remove(i);
                            let dst_ok = f.dst == *dst;
                            if !dst_ok {
                                let d = Diagnostic::error(
                                    self.loc(s),
                                    format!(
                                        "wait_flag {src} -> {dst}, {n} waits for a flag that set_flag at {} raised for {}",
                                        self.loc_text(f.set_at),
                                        f.dst
                                    ),
                                )
                                .with_note(self.loc(f.set_at), "the set_flag")
                                .with_note(None, format!("path: {}", self.path_text(&cs.path)));
                                self.report(d);
                            }
                            let dbit = dst.bit();
                            let mut recs = BTreeMap::new();
                            for (mut r, p) in std::mem::take(&mut cs.recs) {
                                if r.carriers & bit != 0 && dst_ok {
                                    r.ordered |= dbit;
                                }
                                r.carriers &= !bit;
                                if r.ordered & ALL_PIPES != ALL_PIPES {
                                    recs.entry(r).or_insert(p);
                                }
                            }
                            cs.recs = recs;
                            merge_into(&mut out, ctx, cs);
                        }
                    }
                }
            }
            SyncOp::PipeBarrier { pipe } => {
                if *pipe == Pipe::S {
                    self.report(Diagnostic::error(
                        self.loc(s),
                        "pipe_barrier(S) is a hardware error: the scalar pipe never takes a barrier",
                    ));
                }
                for (ctx, mut cs) in st {
                    if *pipe == Pipe::All {
                        cs.recs.clear();
                    } else {
                        let pb = pipe.bit();
                        cs.recs = std::mem::take(&mut cs.recs)
                            .into_iter()
                            .map(|(mut r, p)| {
                                if r.pipe == *pipe {
                                    r.ordered |= pb;
                                }
                                (r, p)
                            })
                            .filter(|(r, _)| r.ordered & ALL_PIPES != ALL_PIPES)
                            .collect();
                    }
                    merge_into(&mut out, ctx, cs);
                }
            }
            other => {
                self.report(Diagnostic::error(
                    self.loc(s),
                    format!(
                        "{other:?} is not an Ascend sync op; on {} pipes synchronize with set_flag/wait_flag/pipe_barrier",
                        self.target
                    ),
                ));
                return st;
            }
        }
        out
    }

    fn add_step(st: State, step: &Step) -> State {
        st.into_iter()
            .map(|(c, cs)| {
                let recs = cs
                    .recs
                    .into_iter()
                    .map(|(r, p)| (r, push_step(&p, step)))
                    .collect();
                (
                    c,
                    CtxState {
                        path: push_step(&cs.path, step),
                        recs,
                    },
                )
            })
            .collect()
    }

    fn if_stmt(&mut self, s: StmtId, i: &IfData, st: State) -> State {
        let mut then_in = State::new();
        let mut else_in = State::new();
        for (ctx, cs) in st {
            match self.eval_cond(&ctx, &i.cond) {
                Some(true) => merge_into(&mut then_in, ctx, cs),
                Some(false) => merge_into(&mut else_in, ctx, cs),
                None => {
                    merge_into(&mut then_in, ctx.clone(), cs.clone());
                    merge_into(&mut else_in, ctx, cs);
                }
            }
        }
        let mut out = State::new();
        let branches = [
            (true, Some(i.then_block), then_in),
            (false, i.else_block, else_in),
        ];
        for (then, block, input) in branches {
            if input.is_empty() {
                continue;
            }
            let input = Self::add_step(input, &Step::Branch { stmt: s, then });
            let end = match block {
                Some(b) => self.block(b, input),
                None => input,
            };
            let yields: Vec<ValueId> = block
                .map(|b| self.k.blocks[b].yields.clone())
                .unwrap_or_default();
            for (mut ctx, cs) in end {
                let bound: Vec<(ValueId, Vec<Region>)> = i
                    .results
                    .iter()
                    .zip(&yields)
                    .map(|(&r, &y)| (r, self.resolve(&ctx, y, 0)))
                    .collect();
                self.drop_scoped(&mut ctx, s);
                for (r, reg) in bound {
                    if !reg.is_empty() {
                        Self::bind(&mut ctx, r, reg);
                    }
                }
                merge_into(&mut out, ctx, cs);
            }
        }
        self.join_results(out)
    }

    /// Merges contexts that differ only in the bindings of result handles, binding each to
    /// the union of its regions: results would otherwise split contexts at every if and loop
    /// (2^n contexts after n of them). Loop-carried handles stay exact.
    fn join_results(&self, st: State) -> State {
        if st.len() <= 1 {
            return st;
        }
        type Group = (BTreeMap<ValueId, BTreeSet<Region>>, Vec<CtxState>);
        let mut groups: BTreeMap<Ctx, Group> = BTreeMap::new();
        for (mut ctx, cs) in st {
            let mut res = Vec::new();
            ctx.handles.retain(|(v, r)| {
                if matches!(self.k.values[*v].kind, ValueKind::Result { .. }) {
                    res.push((*v, r.clone()));
                    false
                } else {
                    true
                }
            });
            let g = groups.entry(ctx).or_default();
            for (v, r) in res {
                g.0.entry(v).or_default().extend(r);
            }
            g.1.push(cs);
        }
        let mut out = State::new();
        for (mut ctx, (res, states)) in groups {
            for (v, r) in res {
                Self::bind(&mut ctx, v, r.into_iter().collect());
            }
            for cs in states {
                merge_into(&mut out, ctx.clone(), cs);
            }
        }
        out
    }

    fn set_iv(ctx: &mut Ctx, iv: ValueId, val: IvVal) {
        match ctx.ivs.iter().position(|x| x.0 == iv) {
            Some(i) => ctx.ivs[i].1 = val,
            None => ctx.ivs.push((iv, val)),
        }
    }

    /// One trip of the body, from `st` (the state at the top of iteration `k`).
    fn iterate(&mut self, s: StmtId, f: &ForData, st: State, k: u64, widened: bool) -> State {
        let st = Self::add_step(
            st,
            &Step::Iter {
                stmt: s,
                k,
                widened,
            },
        );
        let end = self.block(f.body, st);
        let yields = self.k.blocks[f.body].yields.clone();
        let mut out = State::new();
        for (mut ctx, cs) in end {
            let bound: Vec<(ValueId, Vec<Region>)> = f
                .iter_args
                .iter()
                .zip(&yields)
                .map(|(&(h, _), &y)| (h, self.resolve(&ctx, y, 0)))
                .collect();
            for (h, reg) in bound {
                if !reg.is_empty() {
                    Self::bind(&mut ctx, h, reg);
                }
            }
            if let Some(pos) = ctx.ivs.iter().position(|x| x.0 == f.iv) {
                ctx.ivs[pos].1 = match ctx.ivs[pos].1 {
                    IvVal::Exact(x) => IvVal::Exact(x.saturating_add(f.step)),
                    IvVal::Residue(r) => IvVal::Residue(
                        ((r as i128 + f.step as i128)
                            .rem_euclid(self.iv_modulus(f.iv).max(1) as i128))
                            as u64,
                    ),
                    IvVal::Unknown => IvVal::Unknown,
                };
            }
            merge_into(&mut out, ctx, cs);
        }
        out
    }

    fn for_loop(&mut self, s: StmtId, f: &ForData, st: State) -> State {
        let trips = f.trips();
        let exact = match (trips.exact(), f.lo) {
            (Some(n), Bound::Const(_)) if n <= UNROLL_EXACT && self.exact_ivs.contains(&f.iv) => {
                Some(n)
            }
            _ => None,
        };
        let key = (s, keys_of(&st));
        if let Some(out) = self.loop_cache.get(&key) {
            return Self::from_summary(s, &st, out);
        }
        let mut entry = State::new();
        for (mut ctx, cs) in st {
            let bound: Vec<(ValueId, Vec<Region>)> = f
                .iter_args
                .iter()
                .map(|&(h, init)| (h, self.resolve(&ctx, init, 0)))
                .collect();
            for (h, reg) in bound {
                if !reg.is_empty() {
                    Self::bind(&mut ctx, h, reg);
                }
            }
            let val = match (f.lo, exact) {
                (Bound::Const(c), Some(_)) => IvVal::Exact(c),
                (Bound::Const(c), None) if self.iv_modulus(f.iv) > 0 => {
                    IvVal::Residue((c as i128).rem_euclid(self.iv_modulus(f.iv) as i128) as u64)
                }
                _ => IvVal::Unknown,
            };
            Self::set_iv(&mut ctx, f.iv, val);
            merge_into(&mut entry, ctx, cs);
        }

        let exits: State = if let Some(n) = exact {
            let mut cur = entry;
            for k in 1..=n {
                cur = self.iterate(s, f, cur, k, false);
            }
            cur
        } else {
            self.loop_fixpoint(s, f, entry, trips.min, trips.max)
        };

        let mut out = State::new();
        for (mut ctx, cs) in exits {
            let bound: Vec<(ValueId, Vec<Region>)> = f
                .iter_args
                .iter()
                .zip(&f.results)
                .map(|(&(h, _), &r)| {
                    let b = ctx.handles.iter().find(|x| x.0 == h);
                    (r, b.map(|x| x.1.clone()).unwrap_or_default())
                })
                .collect();
            ctx.ivs.retain(|x| x.0 != f.iv);
            self.drop_scoped(&mut ctx, s);
            for (r, reg) in bound {
                if !reg.is_empty() {
                    Self::bind(&mut ctx, r, reg);
                }
            }
            merge_into(&mut out, ctx, cs);
        }
        let out = self.join_results(out);
        self.loop_cache.insert(key, keys_of(&out));
        out
    }

    /// Rebuilds a loop's exit from its summary. Witnesses: a context continues the path of
    /// an entry context (the same one when it is still there), a record keeps its entry
    /// witness when it passed through unchanged.
    fn from_summary(s: StmtId, st: &State, out: &StateKeys) -> State {
        let step = Step::Summary { stmt: s };
        let any_path = st.values().next().map(|cs| cs.path.clone()).unwrap_or(None);
        let mut res = State::new();
        for (ctx, recs) in out {
            let entry = st.get(ctx);
            let base = entry.map_or(any_path.clone(), |cs| cs.path.clone());
            let path = push_step(&base, &step);
            let recs = recs
                .iter()
                .map(|r| {
                    let p = entry
                        .and_then(|cs| cs.recs.get(r).cloned())
                        .unwrap_or_else(|| path.clone());
                    (*r, p)
                })
                .collect();
            res.insert(ctx.clone(), CtxState { path, recs });
        }
        res
    }

    /// The states at loop exit: iterates one trip at a time until the sequence of states
    /// repeats (it is a deterministic function of the previous state, so it is then periodic),
    /// and takes the exits at every trip count in `[min, max]`.
    fn loop_fixpoint(
        &mut self,
        s: StmtId,
        f: &ForData,
        entry: State,
        min: u64,
        max: Option<u64>,
    ) -> State {
        let hi = max.unwrap_or(u64::MAX);
        let mut hist: Vec<State> = vec![entry];
        loop {
            let k = hist.len() as u64 - 1;
            if k >= hi {
                // Every trip count up to max is in hand.
                let mut out = State::new();
                for (i, st) in hist.into_iter().enumerate() {
                    if i as u64 >= min {
                        out = union(out, st);
                    }
                }
                return out;
            }
            let next = self.iterate(s, f, hist[k as usize].clone(), k + 1, false);
            if let Some(j) = hist.iter().position(|h| same_keys(h, &next)) {
                let p = hist.len() as u64 - j as u64;
                let j = j as u64;
                let mut idx = BTreeSet::new();
                let mut t = min;
                while t <= hi {
                    if t < j {
                        idx.insert(t);
                    } else if !idx.insert(j + (t - j) % p) {
                        break;
                    }
                    t = match t.checked_add(1) {
                        Some(x) => x,
                        None => break,
                    };
                }
                let mut out = State::new();
                for (i, st) in hist.into_iter().enumerate() {
                    if idx.contains(&(i as u64)) {
                        out = union(out, st);
                    }
                }
                return out;
            }
            hist.push(next);
            if hist.len() > CYCLE_CAP {
                break;
            }
        }
        // No period found: widen. Every state from trip `from` on is a possible exit.
        let last = hist.len() as u64 - 1;
        let from = min.min(last);
        let mut acc = State::new();
        for (i, st) in hist.into_iter().enumerate() {
            if i as u64 >= from {
                acc = union(acc, st);
            }
        }
        for _ in 0..WIDEN_CAP {
            let next = self.iterate(s, f, acc.clone(), last + 1, true);
            let grown = union(acc.clone(), next);
            if same_keys(&grown, &acc) {
                return acc;
            }
            acc = grown;
        }
        self.report(Diagnostic::error(
            self.loc(s),
            "the verifier did not reach a fixpoint on this loop; the result is not proven",
        ));
        acc
    }
}

fn collect_blocks(k: &Kernel, b: BlockId, out: &mut BTreeMap<StmtId, BlockId>) {
    for &s in &k.blocks[b].stmts {
        out.insert(s, b);
        for c in k.stmts[s].kind.child_block_ids() {
            collect_blocks(k, c, out);
        }
    }
}

fn root_buffer_of(k: &Kernel, v: ValueId, depth: u32) -> Option<BufferId> {
    if depth > 64 {
        return None;
    }
    match k.values[v].kind {
        ValueKind::Buffer(b) => Some(b),
        ValueKind::View(view) => root_buffer_of(k, k.views[view].base, depth + 1),
        _ => None,
    }
}

/// For each result handle (of a `for` or `if`), the statement of its defining block after
/// which nothing reads it: uses in nested blocks count at their enclosing statement, and a
/// use through a view counts as a use of the view's base.
fn dead_after(k: &Kernel) -> BTreeMap<(BlockId, usize), Vec<ValueId>> {
    // Where each result handle is defined: (block, index of the defining statement).
    let mut def: BTreeMap<ValueId, (BlockId, usize)> = BTreeMap::new();
    let mut last: BTreeMap<ValueId, usize> = BTreeMap::new();
    fn deps(k: &Kernel, mut v: ValueId, out: &mut Vec<ValueId>) {
        for _ in 0..64 {
            match k.values[v].kind {
                ValueKind::View(view) => v = k.views[view].base,
                ValueKind::Result { .. } => {
                    out.push(v);
                    return;
                }
                _ => return,
            }
        }
    }
    fn walk(
        k: &Kernel,
        b: BlockId,
        anc: &mut Vec<(BlockId, usize)>,
        def: &mut BTreeMap<ValueId, (BlockId, usize)>,
        last: &mut BTreeMap<ValueId, usize>,
    ) {
        let use_value = |v: ValueId,
                         anc: &Vec<(BlockId, usize)>,
                         def: &BTreeMap<ValueId, (BlockId, usize)>,
                         last: &mut BTreeMap<ValueId, usize>| {
            let mut hs = Vec::new();
            deps(k, v, &mut hs);
            for h in hs {
                if let Some(&(db, _)) = def.get(&h) {
                    if let Some(&(_, i)) = anc.iter().rev().find(|(ab, _)| *ab == db) {
                        let e = last.entry(h).or_insert(i);
                        *e = (*e).max(i);
                    }
                }
            }
        };
        let n = k.blocks[b].stmts.len();
        for (i, &s) in k.blocks[b].stmts.iter().enumerate() {
            anc.push((b, i));
            match &k.stmts[s].kind {
                StmtKind::Op(op) => {
                    for e in &op.effects {
                        use_value(e.mem.value, anc, def, last);
                    }
                }
                StmtKind::For(f) => {
                    for &(_, init) in &f.iter_args {
                        use_value(init, anc, def, last);
                    }
                }
                _ => {}
            }
            for c in k.stmts[s].kind.child_block_ids() {
                walk(k, c, anc, def, last);
            }
            let results: &[ValueId] = match &k.stmts[s].kind {
                StmtKind::For(f) => &f.results,
                StmtKind::If(x) => &x.results,
                _ => &[],
            };
            for &r in results {
                def.insert(r, (b, i));
                last.insert(r, i);
            }
            anc.pop();
        }
        // Yields read at the end of the block: keep those handles to the end.
        anc.push((b, n));
        for &y in &k.blocks[b].yields {
            use_value(y, anc, def, last);
        }
        anc.pop();
    }
    walk(k, k.body, &mut Vec::new(), &mut def, &mut last);
    let mut out: BTreeMap<(BlockId, usize), Vec<ValueId>> = BTreeMap::new();
    for (h, i) in last {
        if let Some(&(b, _)) = def.get(&h) {
            if i < k.blocks[b].stmts.len() {
                out.entry((b, i)).or_default().push(h);
            }
        }
    }
    out
}
