//! The workgroup model (semantics.md 4.1 and 4.3): races on workgroup memory between waves,
//! barrier deadlocks, and counter waits, for the GPU targets.
//!
//! A path-sensitive dataflow over the structured program. The state maps a *context*
//! (pending split-barrier signals, the cond-barrier phase offset between the two wave groups,
//! handle bindings, induction-variable residues) to a set of *pending records*: dynamic access
//! instances not yet known to be ordered before everything that follows. Every access is
//! checked against the pending records of the same root buffer when it is reached; barriers,
//! fences and counter waits move records towards "published" and drop them once they can no
//! longer matter. docs/VERIFY.md describes the model, what is exact and where it
//! over-approximates.
//!
//! Arrival counts are kept relative to the low group's count of passed default-barrier phases
//! (`n`): a record's `pub_rel` is the phase (minus `n`) at which its data is published, so the
//! record happens before an access of group `g` exactly when `pub_rel <= o_g`, where `o_g` is
//! the group's offset (0 for the low group, the context's `o` for the high group).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use syncopt_ir::{
    AccessKind, AffineExpr, Cond, Counter, Diagnostic, EntityRef, ForData, Group, IfData, Kernel,
    Loc, OpData, Placement, Selector, Space, StmtId, StmtKind, SyncOp, Uniformity, ValueId,
    ValueKind, Var, ViewKind,
};
use syncopt_targets::{Target, TargetInfo};

use crate::Report;

/// The default workgroup barrier (`barrier`, `barrier.signal -1`, `cond_barrier`).
const DEFAULT_ID: i32 = -1;
/// Relative phase numbers saturate here; anything this far back is ordered for good.
const REL_MIN: i8 = -8;
/// The cond-barrier offset is clamped to `[-O_MAX, O_MAX]` (larger only in unbalanced
/// kernels, which are reported anyway).
const O_MAX: i8 = 3;
/// Loops with a known trip count up to this are run iteration by iteration, exactly.
const UNROLL: u64 = 8;
/// Loops whose induction variable matters nowhere run exactly up to this many trips (they
/// usually converge long before).
const EXACT_MAX: u64 = 64;
/// Minimum trip counts are honoured up to this many iterations, then treated as "at least".
const MIN_UNROLL: u64 = 4;
/// Saturation of "ops issued after this one on its counter".
const NEWER_MAX: u8 = 72;
/// Largest workgroup the ownership check enumerates thread by thread.
const MAX_THREADS: u32 = 4096;
const ANY_ROOT: u32 = u32::MAX;
/// Contexts per program point before they are merged.
const CTX_MAX: usize = 6;
/// Contexts kept apart by induction-variable residues alone (slot rings in nested loops).
const CTX_MAX_RESIDUES: usize = 64;
/// Inputs remembered per loop.
const MEMO_PER_LOOP: usize = 16;

pub fn verify(kernel: &Kernel, target: Target) -> Report {
    let mut limit = CTX_MAX;
    let mut inner_first = false;
    let mut run = verify_run(kernel, target, limit, inner_first);
    let mut last_states = run.states;
    // A problem found only where paths were merged may be a false alarm: look again merging
    // the handle groups in the other order (see `group_rank`), then both orders keeping 4
    // times more paths apart, while that stays affordable. Every answer is sound, so a race
    // one of them rules out is no race: what they all agree on stands.
    while run.merged_error() {
        if !inner_first {
            inner_first = true;
        } else if limit < RETRY_LIMIT_MAX
            && last_states.saturating_mul(RETRY_FACTOR) <= RETRY_STATES
        {
            limit *= RETRY_FACTOR;
            inner_first = false;
        } else {
            break;
        }
        let next = verify_run(kernel, target, limit, inner_first);
        last_states = next.states;
        run = run.meet(next);
    }
    run.report()
}

/// One run of the checker: its races by the pair of effects and their kind, its other
/// problems by place and message.
struct Run {
    races: BTreeMap<(u32, u32, Kind), Diagnostic>,
    other: BTreeMap<(Option<Loc>, String), Diagnostic>,
    states: usize,
}

impl Run {
    fn merged_error(&self) -> bool {
        self.races
            .values()
            .chain(self.other.values())
            .any(|d| d.is_error() && d.notes.iter().any(|n| n.1 == MERGED_NOTE))
    }

    fn errors(m: &BTreeMap<impl Ord, Diagnostic>) -> usize {
        m.values().filter(|d| d.is_error()).count()
    }

    /// What two sound runs agree on. A race is found as the same pair of effects by every
    /// sound run: each run's records cover the records of every execution (merging only
    /// adds regions and records), and a race is reported where the later access meets the
    /// earlier one's record. So a pair only one run reports is on no execution. Other
    /// problems are not keyed that way: the run with fewer of them is taken whole.
    fn meet(self, b: Run) -> Run {
        let states = self.states + b.states;
        if Self::errors(&b.races) + Self::errors(&b.other) == 0 {
            return Run { states, ..b };
        }
        let merged = |d: &Diagnostic| d.notes.iter().any(|n| n.1 == MERGED_NOTE);
        let mut theirs = b.races;
        let races = self
            .races
            .into_iter()
            .filter_map(|(k, d)| match theirs.remove(&k) {
                // Said without the merged note by the run that found it on unmerged paths.
                Some(e) if merged(&d) && !merged(&e) => Some((k, e)),
                Some(_) => Some((k, d)),
                None => (!d.is_error()).then_some((k, d)),
            })
            .collect();
        let other = if Self::errors(&b.other) <= Self::errors(&self.other) {
            b.other
        } else {
            self.other
        };
        Run {
            races,
            other,
            states,
        }
    }

    fn report(self) -> Report {
        let mut diagnostics: Vec<Diagnostic> = self
            .other
            .into_values()
            .chain(self.races.into_values())
            .collect();
        diagnostics.sort_by(|a, b| (a.loc, &a.message).cmp(&(b.loc, &b.message)));
        diagnostics.dedup();
        Report {
            diagnostics,
            states: self.states,
        }
    }
}

/// A second look after problems on merged paths keeps this many times more contexts apart...
const RETRY_FACTOR: usize = 4;
/// ... up to this limit ...
const RETRY_LIMIT_MAX: usize = 192;
/// ... when the previous run's states times RETRY_FACTOR stay below this.
const RETRY_STATES: usize = 80_000_000;

/// `verify` with at most `ctx_max` contexts per program point before paths are merged (the
/// default is CTX_MAX). For tests: a tiny limit merges everywhere, a huge one nowhere; the
/// problems found with any limit include those found with a larger one (merging is sound).
#[doc(hidden)]
pub fn verify_with_limit(kernel: &Kernel, target: Target, ctx_max: usize) -> Report {
    verify_run(kernel, target, ctx_max, false).report()
}

/// Like `verify_with_limit`, merging the handles of inner loops before those of outer ones
/// (see `group_rank`).
#[doc(hidden)]
pub fn verify_inner_first(kernel: &Kernel, target: Target, ctx_max: usize) -> Report {
    verify_run(kernel, target, ctx_max, true).report()
}

/// What the two orders agree on at `ctx_max` (what `verify` falls back to).
#[doc(hidden)]
pub fn verify_both_orders(kernel: &Kernel, target: Target, ctx_max: usize) -> Report {
    let a = verify_run(kernel, target, ctx_max, false);
    a.meet(verify_run(kernel, target, ctx_max, true)).report()
}

fn verify_run(kernel: &Kernel, target: Target, ctx_max: usize, inner_first: bool) -> Run {
    let mut c = Checker::new(kernel, target);
    c.ctx_max = ctx_max.max(1);
    c.inner_first = inner_first;
    c.run()
}

// ---------------------------------------------------------------------------------------------
// Values of the abstract state.

/// A resolved piece of memory: bytes `[lo, hi)` of root buffer `root`; `fuzzy` when the
/// placement is only known to overlap somewhere (`aliases`). A fuzzy region reached through
/// an `aliases` buffer keeps `lo..hi` relative to that buffer (`anchor`): two accesses through
/// the same aliasing buffer still compare their byte ranges exactly, since wherever that
/// buffer sits, it sits there for both.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Region {
    root: u32,
    lo: u64,
    hi: u64,
    fuzzy: bool,
    anchor: u32,
}

/// `Region::anchor` of a region not reached through an `aliases` buffer.
const NO_ANCHOR: u32 = u32::MAX;

const TOP: Region = Region {
    root: ANY_ROOT,
    lo: 0,
    hi: u64::MAX,
    fuzzy: true,
    anchor: NO_ANCHOR,
};

impl Region {
    fn overlaps(&self, o: &Region) -> bool {
        if self.root != o.root && self.root != ANY_ROOT && o.root != ANY_ROOT {
            return false;
        }
        if self.root == ANY_ROOT || o.root == ANY_ROOT {
            return true;
        }
        let same_anchor = self.anchor != NO_ANCHOR && self.anchor == o.anchor;
        if (self.fuzzy || o.fuzzy) && !(self.fuzzy && o.fuzzy && same_anchor) {
            return true;
        }
        self.lo < o.hi && o.lo < self.hi
    }
    fn hull(&self, o: &Region) -> Region {
        if self.root != o.root {
            return TOP;
        }
        if self.fuzzy != o.fuzzy || self.anchor != o.anchor {
            return Region {
                root: self.root,
                lo: 0,
                hi: u64::MAX,
                fuzzy: true,
                anchor: NO_ANCHOR,
            };
        }
        Region {
            root: self.root,
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            fuzzy: self.fuzzy,
            anchor: self.anchor,
        }
    }
}

/// Ownership of a word-indexed access: thread `t` touches word `a * t + c + sum(params)` of
/// the root buffer (words of 4 bytes from the root's start).
///
/// `params` are kernel parameters and the induction variables of enclosing loops whose value
/// is not known here, each a symbol for its *current* value: two accesses with the same
/// symbolic terms compare by `a` and `c` alone. A pending record stays exact across its
/// loop's back edge by rewriting its word in terms of the next iteration's value
/// (`iv_old = iv_new - step`, so `c -= coef * step`, see `Checker::shift_ivs`); once its
/// loop exits the symbol means nothing and the ownership is dropped.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Idx {
    a: i64,
    c: i64,
    params: Vec<(u32, i64)>,
    /// Back edges this record's induction-variable terms were carried across (saturates at
    /// IV_SHIFT_MAX, where the ownership is dropped so that the loop fixpoint stays finite).
    shifts: u8,
}

/// Back edges a record keeps its word relation across (then: "every thread, every word").
const IV_SHIFT_MAX: u8 = 4;

/// One dynamic access instance, pending.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Rec {
    region: Region,
    idx: Option<Idx>,
    eff: u32,
    /// 0 = low group (or the only one), 1 = high group.
    group: u8,
    asy: bool,
    /// The access has completed (LDS wait, fence or covering counter wait in its wave).
    done: bool,
    counter: Option<Counter>,
    /// Ops (or cp.async groups) on `counter` issued after this one by the same wave.
    newer: u8,
    /// cp.async: its group has been committed.
    committed: bool,
    /// Default barrier: the phase, relative to `n`, that publishes it; `None` until known.
    pub_rel: Option<i8>,
    /// Named barrier ids it has been signalled on (bit per id).
    sig_named: u32,
    /// Published through a named barrier: ordered before every later access.
    named_pub: bool,
    /// The issuing group's passed phases at issue, relative to `n` (two-group kernels only).
    issue_rel: i8,
    /// Deferred race checks: `(limit, race)`: the race holds unless `pub_rel <= limit`.
    deadlines: Vec<(i8, u32)>,
    /// Threads `[lo, hi)` that can run the access: narrowed by enclosing `if divergent tid
    /// CMP C` conditions, so threads that skip the branch are not counted as accessors.
    tids: (i64, i64),
}

use syncopt_ir::expr::ALL_TIDS;

fn meet(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    (a.0.max(b.0), a.1.min(b.1))
}

#[derive(Copy, Clone, Debug)]
enum Step {
    Back(StmtId),
    Then(StmtId),
    Else(StmtId),
    ZeroTrip(StmtId),
}

/// How a record got from its issue to where it is (kept out of the record's identity).
#[derive(Debug)]
struct WitNode {
    step: Step,
    prev: Wit,
}
type Wit = Option<Rc<WitNode>>;

type Recs = BTreeMap<Rec, Wit>;

#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Ctx {
    /// Cond-barrier offset: passed default phases of the high group minus the low group's.
    o: i8,
    /// Split-barrier ids with a signal not yet waited for, and the signal.
    pending: Vec<(i32, StmtId)>,
    /// Handles (iter args, results) bound to concrete memory on this path. A handle with
    /// several possible regions (paths merged, or a divergent if) is bound to their hull here
    /// and listed in `alts`.
    binds: Vec<(ValueId, Region)>,
    /// Handles bound to one of a few regions (sorted, 2..=ALTS_MAX of them): what the handle
    /// names is exactly one of them, so an access through it touches one of them.
    alts: Vec<(ValueId, Vec<Region>)>,
    /// Induction variables known modulo their period: `(iv, iv mod period)`.
    res: Vec<(ValueId, u32)>,
    /// Paths that disagreed on handle bindings or residues were merged into this one: a
    /// problem found here may be a false alarm.
    merged: bool,
}

/// Said of a problem found on a path that merged others (see `Checker::widen`).
const MERGED_NOTE: &str =
    "the verifier merged paths here (too many to keep apart); this may be a false alarm";

/// Regions kept per handle after a merge before they become their hull.
const ALTS_MAX: usize = 8;

impl Ctx {
    fn bind(&mut self, v: ValueId, r: Region) {
        match self.binds.binary_search_by_key(&v, |b| b.0) {
            Ok(i) => self.binds[i].1 = r,
            Err(i) => self.binds.insert(i, (v, r)),
        }
        if let Ok(i) = self.alts.binary_search_by_key(&v, |b| b.0) {
            self.alts.remove(i);
        }
    }
    /// Binds `v` to one of `rs` (the hull beyond ALTS_MAX regions).
    fn bind_set(&mut self, v: ValueId, mut rs: Vec<Region>) {
        rs.sort();
        rs.dedup();
        let Some(first) = rs.first().copied() else {
            self.bind(v, TOP);
            return;
        };
        let hull = rs.iter().fold(first, |h, r| h.hull(r));
        self.bind(v, hull);
        if rs.len() > 1 && rs.len() <= ALTS_MAX {
            match self.alts.binary_search_by_key(&v, |b| b.0) {
                Ok(i) => self.alts[i].1 = rs,
                Err(i) => self.alts.insert(i, (v, rs)),
            }
        }
    }
    fn binding(&self, v: ValueId) -> Option<Region> {
        self.binds
            .binary_search_by_key(&v, |b| b.0)
            .ok()
            .map(|i| self.binds[i].1)
    }
    /// Every region `v` may name on this path; `None` when unbound (it may name anything).
    fn binding_set(&self, v: ValueId) -> Option<Vec<Region>> {
        if let Ok(i) = self.alts.binary_search_by_key(&v, |b| b.0) {
            return Some(self.alts[i].1.clone());
        }
        self.binding(v).map(|r| vec![r])
    }
    fn alts_of(&self, v: ValueId) -> Option<&[Region]> {
        self.alts
            .binary_search_by_key(&v, |b| b.0)
            .ok()
            .map(|i| self.alts[i].1.as_slice())
    }
    fn unbind(&mut self, vals: &[ValueId]) {
        self.binds.retain(|b| !vals.contains(&b.0));
        self.alts.retain(|b| !vals.contains(&b.0));
    }
    fn residue(&self, v: ValueId) -> Option<u32> {
        self.res
            .binary_search_by_key(&v, |b| b.0)
            .ok()
            .map(|i| self.res[i].1)
    }
    fn set_residue(&mut self, v: ValueId, r: Option<u32>) {
        match (self.res.binary_search_by_key(&v, |b| b.0), r) {
            (Ok(i), Some(r)) => self.res[i].1 = r,
            (Ok(i), None) => {
                self.res.remove(i);
            }
            (Err(i), Some(r)) => self.res.insert(i, (v, r)),
            (Err(_), None) => {}
        }
    }
}

type State = BTreeMap<Ctx, Recs>;

/// A loop's input (observed induction variables, state) and its output.
type MemoEntry = (Vec<(ValueId, i64)>, State, State);

/// Adds `other` into `st`; returns whether anything new appeared.
fn join_into(st: &mut State, other: State) -> bool {
    let mut grown = false;
    for (ctx, recs) in other {
        match st.get_mut(&ctx) {
            Some(mine) => {
                for (r, w) in recs {
                    if let std::collections::btree_map::Entry::Vacant(e) = mine.entry(r) {
                        e.insert(w);
                        grown = true;
                    }
                }
            }
            None => {
                st.insert(ctx, recs);
                grown = true;
            }
        }
    }
    grown
}

/// Whether every pending record of every context of `b` is in `a` (the join adds nothing).
fn subsumes(a: &State, b: &State) -> bool {
    b.iter().all(|(ctx, recs)| {
        a.get(ctx)
            .is_some_and(|mine| recs.keys().all(|r| mine.contains_key(r)))
    })
}

fn same_state(a: &State, b: &State) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((ca, ra), (cb, rb))| ca == cb && ra.len() == rb.len() && ra.keys().eq(rb.keys()))
}

fn add_step(st: &mut State, step: Step) {
    for recs in st.values_mut() {
        for w in recs.values_mut() {
            *w = Some(Rc::new(WitNode {
                step,
                prev: w.take(),
            }));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The checker.

struct EffInfo {
    loc: Option<Loc>,
    kind: AccessKind,
    asy: bool,
    op: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Raw,
    War,
    Waw,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Raw => "RAW",
            Kind::War => "WAR",
            Kind::Waw => "WAW",
        }
    }
}

/// A race whose verdict waits for a later publication.
#[derive(Clone)]
struct Deferred {
    x: u32,
    y: u32,
    kind: Kind,
    gx: u8,
    gy: u8,
    shift: i8,
    /// Root buffer, for the message.
    root: u32,
    why: String,
    /// Found on a merged path.
    merged: bool,
}

#[derive(Default)]
struct Env {
    /// Induction variables with a known value (loops run iteration by iteration).
    exact: Vec<(ValueId, i64)>,
}

impl Env {
    fn value(&self, v: ValueId) -> Option<i64> {
        self.exact.iter().rev().find(|e| e.0 == v).map(|e| e.1)
    }
}

enum Tri {
    True,
    False,
    Defer(i8),
}

struct Checker<'k> {
    k: &'k Kernel,
    t: Target,
    info: TargetInfo,
    groups: u8,
    waves: u32,
    threads: u32,
    /// Threads that run in lockstep and see each other's accesses in order: an AMD wave; one
    /// thread on NVIDIA, whose warps are not lockstep (independent thread scheduling since
    /// Volta: racecheck reports pairs within one warp on the H100, docs/GPU-VALIDATION.md).
    lockstep: i64,
    /// Threads that can reach the statement being checked (see `Rec::tids`).
    tids: (i64, i64),
    omin: i8,
    effs: Vec<EffInfo>,
    /// First effect id of each statement (ops only).
    eff_base: Vec<u32>,
    races: BTreeMap<(u32, u32, Kind), Diagnostic>,
    other: BTreeMap<(Option<Loc>, String), Diagnostic>,
    deferred: Vec<Deferred>,
    deferred_ids: BTreeMap<(u32, u32, Kind, u8, u8), u32>,
    /// Period tracked for induction variables used under `mod`.
    iv_mod: BTreeMap<ValueId, u32>,
    /// Induction variables whose value matters somewhere (slots, conditions, indices).
    iv_used: BTreeSet<ValueId>,
    /// Per counter, one more than the largest count any wait on it names: "newer" counts
    /// saturate there, since every wait covers a record that old.
    newer_cap: BTreeMap<Counter, u8>,
    /// Loop results by input: nested fixpoints re-run inner loops on inputs already seen.
    memo: BTreeMap<StmtId, Vec<MemoEntry>>,
    /// Memory values referenced anywhere (effects, view bases, yields, iter inits): only
    /// handles among them are worth a binding in the context.
    used_vals: BTreeSet<ValueId>,
    /// Per loop: the induction variables whose values its body can observe (the memo key).
    body_ivs: BTreeMap<StmtId, BTreeSet<ValueId>>,
    /// Per statement: handles read for the last time inside it (their bindings are dropped
    /// after it, so paths differing only there merge exactly).
    kills: Vec<Vec<ValueId>>,
    /// Whether contexts were merged (precision lost, still sound).
    widened: bool,
    /// Program-order index of each statement.
    order: Vec<usize>,
    /// Contexts per program point before they are merged.
    ctx_max: usize,
    /// Handle groups of inner loops are merged before those of outer ones (`group_rank`).
    inner_first: bool,
    states: usize,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<'k> Checker<'k> {
    fn new(k: &'k Kernel, t: Target) -> Self {
        let info = t.info();
        let waves = t.waves(k).max(1);
        let threads = waves.saturating_mul(info.wave_size.max(1));
        let mut effs = Vec::new();
        let mut eff_base = vec![0u32; k.stmts.len()];
        let mut cond_low = 0i8;
        let mut has_cond = false;
        let mut iv_mod: BTreeMap<ValueId, u32> = BTreeMap::new();
        let mut iv_used = BTreeSet::new();
        let mut note_expr = |e: &AffineExpr, m: Option<i64>| {
            for &(v, _) in &e.terms {
                if let Var::Value(v) = v {
                    if matches!(k.values[v].kind, ValueKind::Iv(_)) {
                        iv_used.insert(v);
                        if let Some(m) = m.filter(|&m| m > 0 && m <= 64) {
                            let cur = *iv_mod.get(&v).unwrap_or(&1) as u64;
                            let l = cur / gcd(cur, m as u64) * m as u64;
                            if l <= 64 {
                                iv_mod.insert(v, l as u32);
                            }
                        }
                    }
                }
            }
        };
        for view in k.views.values() {
            if let ViewKind::Slot { count, index } = &view.kind {
                note_expr(index, Some(*count as i64));
            }
        }
        k.walk(&mut |s, d| match &d.kind {
            StmtKind::Op(od) => {
                eff_base[s.index()] = effs.len() as u32;
                for e in &od.effects {
                    effs.push(EffInfo {
                        loc: e.loc.or(d.loc),
                        kind: e.kind,
                        asy: od.asynchronous.is_some(),
                        op: od.name.clone(),
                    });
                    // Only workgroup accesses make the value of an index matter.
                    let wg =
                        syncopt_targets::value_space(k, e.mem.value, 0) == Some(Space::Workgroup);
                    if let (Selector::Index(x), true) = (&e.mem.sel, wg) {
                        note_expr(x, None);
                    }
                }
            }
            StmtKind::If(i) => note_expr(&i.cond.expr, i.cond.modulo),
            StmtKind::Sync(SyncOp::CondBarrier { group }) => {
                has_cond = true;
                if *group == Group::Low {
                    cond_low = cond_low.saturating_add(1);
                }
            }
            _ => {}
        });
        let groups = if has_cond { 2 } else { 1 };
        let mut used_vals = BTreeSet::new();
        for v in k.views.values() {
            used_vals.insert(v.base);
        }
        for b in k.blocks.values() {
            used_vals.extend(b.yields.iter().copied());
        }
        k.walk(&mut |_, d| match &d.kind {
            StmtKind::Op(od) => used_vals.extend(od.effects.iter().map(|e| e.mem.value)),
            StmtKind::For(f) => used_vals.extend(f.iter_args.iter().map(|a| a.1)),
            _ => {}
        });
        let mut newer_cap: BTreeMap<Counter, u8> = BTreeMap::new();
        k.walk(&mut |_, d| {
            let (c, n) = match &d.kind {
                StmtKind::Sync(SyncOp::CounterWait { counter, n }) => (*counter, *n),
                StmtKind::Sync(SyncOp::CpAsyncWait { n }) => (Counter::CpAsync, *n),
                _ => return,
            };
            let cap = (n.min(NEWER_MAX as u32 - 1) + 1) as u8;
            let e = newer_cap.entry(c).or_insert(0);
            *e = (*e).max(cap);
        });
        Checker {
            k,
            t,
            info,
            groups,
            waves,
            threads,
            lockstep: t.lockstep_threads().clamp(1, i64::MAX as u64) as i64,
            tids: ALL_TIDS,
            // The lowest offset any later point can have: a cond_barrier low in a loop runs
            // many times, so the static count alone is not a bound; the clamp is.
            omin: if has_cond {
                if cond_low > 0 {
                    -O_MAX
                } else {
                    0
                }
            } else {
                0
            },
            effs,
            eff_base,
            races: BTreeMap::new(),
            other: BTreeMap::new(),
            deferred: Vec::new(),
            deferred_ids: BTreeMap::new(),
            iv_mod,
            iv_used,
            newer_cap,
            memo: BTreeMap::new(),
            used_vals,
            body_ivs: BTreeMap::new(),
            kills: crate::handles::kills(k),
            widened: false,
            ctx_max: CTX_MAX,
            inner_first: false,
            order: {
                let mut order = vec![0; k.stmts.len()];
                let mut i = 0;
                k.walk(&mut |s, _| {
                    order[s.index()] = i;
                    i += 1;
                });
                order
            },
            states: 0,
        }
    }

    fn run(&mut self) -> Run {
        self.static_checks();
        let mut env = Env::default();
        let mut st = State::new();
        st.insert(Ctx::default(), Recs::new());
        let st = self.block(self.k.body, &mut env, st);
        self.exit_checks(&st);
        Run {
            races: std::mem::take(&mut self.races),
            other: std::mem::take(&mut self.other),
            states: self.states,
        }
    }

    fn error(&mut self, loc: Option<Loc>, msg: String, notes: Vec<(Option<Loc>, String)>) {
        let key = (loc, msg.clone());
        self.other.entry(key).or_insert_with(|| {
            let mut d = Diagnostic::error(loc, msg);
            d.notes = notes;
            d
        });
    }

    // ---- checks that need no state ----------------------------------------------------------

    fn static_checks(&mut self) {
        let mut found = Vec::new();
        self.walk_div(self.k.body, None, &mut found);
        for (s, why) in found {
            self.error(s.1, s.0, why);
        }
        let mut waits = Vec::new();
        self.k.walk(&mut |_, d| {
            if let StmtKind::Sync(op) = &d.kind {
                match op {
                    SyncOp::CounterWait { counter, n } => waits.push((d.loc, *counter, *n)),
                    SyncOp::CpAsyncWait { n } => waits.push((d.loc, Counter::CpAsync, *n)),
                    _ => {}
                }
            }
        });
        for (loc, c, n) in waits {
            match self.t.counter_max(c) {
                None => self.error(
                    loc,
                    format!(
                        "{} has no {c} counter: this wait cannot be executed",
                        self.t
                    ),
                    vec![],
                ),
                Some(m) if n > m => self.error(
                    loc,
                    format!(
                        "counter wait {c}({n}) exceeds the largest value {m} on {}",
                        self.t
                    ),
                    vec![],
                ),
                _ => {}
            }
        }
    }

    /// Workgroup barriers inside divergent ifs (deadlock).
    #[allow(clippy::type_complexity)]
    fn walk_div(
        &self,
        b: syncopt_ir::BlockId,
        div: Option<Option<Loc>>,
        out: &mut Vec<((String, Option<Loc>), Vec<(Option<Loc>, String)>)>,
    ) {
        for &s in &self.k.blocks[b].stmts {
            let d = &self.k.stmts[s];
            match &d.kind {
                StmtKind::Sync(op) if op.is_workgroup_barrier() => {
                    if let Some(if_loc) = div {
                        out.push((
                            (
                                format!(
                                    "deadlock: workgroup barrier '{}' inside a divergent if: waves that skip it never arrive",
                                    sync_name(op)
                                ),
                                d.loc,
                            ),
                            vec![(if_loc, "the divergent condition is here".to_string())],
                        ));
                    }
                }
                StmtKind::If(i) => {
                    let inner = if i.uniformity == Uniformity::Divergent {
                        div.or(Some(d.loc))
                    } else {
                        div
                    };
                    self.walk_div(i.then_block, inner, out);
                    if let Some(e) = i.else_block {
                        self.walk_div(e, inner, out);
                    }
                }
                StmtKind::For(f) => self.walk_div(f.body, div, out),
                _ => {}
            }
        }
    }

    fn exit_checks(&mut self, st: &State) {
        let mut pend = BTreeSet::new();
        let mut unbalanced = BTreeSet::new();
        let mut late = BTreeSet::new();
        for (ctx, recs) in st {
            for &(id, s) in &ctx.pending {
                pend.insert((id, s));
            }
            if ctx.o != 0 {
                unbalanced.insert(ctx.o);
            }
            for r in recs.keys() {
                for &(_, d) in &r.deadlines {
                    late.insert(d);
                }
            }
        }
        for (id, s) in pend {
            let loc = self.k.stmts[s].loc;
            self.error(
                loc,
                format!("deadlock: barrier.signal {id} is still pending at kernel exit (no barrier.wait {id} follows on some path)"),
                vec![],
            );
        }
        if let Some(&o) = unbalanced.iter().next() {
            let mut first = None;
            self.k.walk(&mut |_, d| {
                if first.is_none() && matches!(d.kind, StmtKind::Sync(SyncOp::CondBarrier { .. })) {
                    first = Some(d.loc);
                }
            });
            let loc = first.flatten().or(Some(self.k.loc));
            self.error(
                loc,
                format!(
                    "deadlock: unequal arrival counts at kernel exit: the high group makes {o} more default-barrier arrival(s) than the low group on some path (cond_barrier high and low do not balance)"
                ),
                vec![],
            );
        }
        for d in late {
            self.report_deferred(
                d,
                "the access is never published by a barrier before kernel exit",
            );
        }
    }

    // ---- resolution -------------------------------------------------------------------------

    fn eval_mod(&self, e: &AffineExpr, m: Option<i64>, env: &Env, ctx: &Ctx) -> Option<i64> {
        let mut acc = e.constant;
        for &(v, c) in &e.terms {
            let Var::Value(v) = v else { return None };
            let val = if let Some(x) = env.value(v) {
                x
            } else {
                let m = m?;
                let r = ctx.residue(v)?;
                let l = *self.iv_mod.get(&v)? as i64;
                if l % m != 0 {
                    return None;
                }
                r as i64
            };
            acc = acc.wrapping_add(c.wrapping_mul(val));
        }
        Some(match m {
            Some(m) if m > 0 => acc.rem_euclid(m),
            _ => acc,
        })
    }

    fn eval_cond(&self, c: &Cond, env: &Env, ctx: &Ctx) -> Option<bool> {
        let mut v = self.eval_mod(&c.expr, c.modulo, env, ctx)?;
        if let Some(m) = c.modulo {
            if m > 0 {
                v = v.rem_euclid(m);
            }
        }
        Some(match c.cmp {
            None => v != 0,
            Some((op, rhs)) => op.holds(v, rhs),
        })
    }

    /// The handle a value's memory comes from (through views and placements), if any.
    fn terminal(&self, mut v: ValueId) -> Option<ValueId> {
        for _ in 0..64 {
            v = match self.k.values[v].kind {
                ValueKind::IterArg { .. } | ValueKind::Result { .. } => return Some(v),
                ValueKind::View(view) => self.k.views[view].base,
                ValueKind::Buffer(b) => match self.k.buffers[b].placement {
                    Placement::At { base, .. } | Placement::Aliases(base) => base,
                    Placement::Own => return None,
                },
                _ => return None,
            };
        }
        None
    }

    /// The choices of one access's handle: `[None]` when it has one region on this path,
    /// else one override per region the handle may name.
    fn choices(&self, v: ValueId, ctx: &Ctx) -> Vec<Option<(ValueId, Region)>> {
        if ctx.alts.is_empty() {
            return vec![None];
        }
        match self
            .terminal(v)
            .and_then(|h| ctx.alts_of(h).map(|a| (h, a)))
        {
            Some((h, alts)) => alts.iter().map(|&r| Some((h, r))).collect(),
            None => vec![None],
        }
    }

    /// Every region `v` may name on this path.
    fn resolve_all(&self, v: ValueId, env: &Env, ctx: &Ctx) -> Vec<Region> {
        self.choices(v, ctx)
            .into_iter()
            .map(|o| self.resolve_o(v, env, ctx, 0, o))
            .collect()
    }

    /// `resolve`, with handle `over.0` taken to name `over.1`.
    fn resolve_o(
        &self,
        v: ValueId,
        env: &Env,
        ctx: &Ctx,
        depth: u32,
        over: Option<(ValueId, Region)>,
    ) -> Region {
        if depth > 64 {
            return TOP;
        }
        match self.k.values[v].kind {
            ValueKind::Buffer(b) => {
                let bd = &self.k.buffers[b];
                match bd.placement {
                    Placement::Own => Region {
                        root: b.index() as u32,
                        lo: 0,
                        hi: bd.size,
                        fuzzy: false,
                        anchor: NO_ANCHOR,
                    },
                    Placement::At { base, offset } => {
                        let r = self.resolve_o(base, env, ctx, depth + 1, over);
                        Region {
                            root: r.root,
                            lo: r.lo.saturating_add(offset),
                            hi: r.lo.saturating_add(offset).saturating_add(bd.size),
                            fuzzy: r.fuzzy,
                            anchor: r.anchor,
                        }
                    }
                    Placement::Aliases(base) => {
                        let r = self.resolve_o(base, env, ctx, depth + 1, over);
                        Region {
                            root: r.root,
                            lo: 0,
                            hi: bd.size,
                            fuzzy: true,
                            anchor: b.index() as u32,
                        }
                    }
                }
            }
            ValueKind::View(view) => {
                let vd = &self.k.views[view];
                let r = self.resolve_o(vd.base, env, ctx, depth + 1, over);
                if r.root == ANY_ROOT || r.hi == u64::MAX {
                    return r;
                }
                match &vd.kind {
                    ViewKind::Range { lo, hi } => Region {
                        root: r.root,
                        lo: r.lo.saturating_add(*lo),
                        hi: r.lo.saturating_add(*hi),
                        fuzzy: r.fuzzy,
                        anchor: r.anchor,
                    },
                    ViewKind::Slot { count, index } => {
                        let n = (*count).max(1) as u64;
                        let size = r.hi.saturating_sub(r.lo) / n;
                        match self.eval_mod(index, Some(n as i64), env, ctx) {
                            Some(s) => Region {
                                root: r.root,
                                lo: r.lo.saturating_add(size.saturating_mul(s as u64)),
                                hi: r.lo.saturating_add(size.saturating_mul(s as u64 + 1)),
                                fuzzy: r.fuzzy,
                                anchor: r.anchor,
                            },
                            None => r,
                        }
                    }
                }
            }
            ValueKind::IterArg { .. } | ValueKind::Result { .. } => match over {
                Some((h, r)) if h == v => r,
                _ => ctx.binding(v).unwrap_or(TOP),
            },
            _ => TOP,
        }
    }

    /// The values induction variable `v` takes (`ForData::iv_range`); `None` for anything
    /// else (a kernel parameter, an unbounded loop).
    fn iv_range(&self, v: ValueId) -> Option<(i128, i128)> {
        let ValueKind::Iv(s) = self.k.values[v].kind else {
            return None;
        };
        let StmtKind::For(f) = &self.k.stmts[s].kind else {
            return None;
        };
        f.iv_range()
    }

    fn is_workgroup(&self, v: ValueId) -> bool {
        syncopt_targets::value_space(self.k, v, 0) == Some(Space::Workgroup)
    }

    /// The region and ownership of one effect.
    fn access(
        &self,
        e: &syncopt_ir::Effect,
        env: &Env,
        ctx: &Ctx,
        over: Option<(ValueId, Region)>,
    ) -> (Region, Option<Idx>) {
        let r = self.resolve_o(e.mem.value, env, ctx, 0, over);
        match &e.mem.sel {
            Selector::Whole => (r, None),
            Selector::Bytes { lo, hi } => {
                if r.root == ANY_ROOT || r.hi == u64::MAX {
                    (r, None)
                } else {
                    (
                        Region {
                            root: r.root,
                            lo: r.lo.saturating_add(*lo),
                            hi: r
                                .lo
                                .saturating_add(*hi)
                                .min(r.hi.max(r.lo.saturating_add(*hi))),
                            fuzzy: r.fuzzy,
                            anchor: r.anchor,
                        },
                        None,
                    )
                }
            }
            Selector::Index(x) => {
                // Through an `aliases` buffer the bytes are its own (`Region::anchor`): the
                // words are counted from its start the same way, and stay fuzzy (no ownership).
                let anchored = r.fuzzy && r.anchor != NO_ANCHOR;
                if (r.fuzzy && !anchored) || !r.lo.is_multiple_of(4) {
                    return (r, None);
                }
                let mut idx = Idx {
                    a: 0,
                    c: x.constant.wrapping_add((r.lo / 4) as i64),
                    params: Vec::new(),
                    shifts: 0,
                };
                for &(v, coef) in &x.terms {
                    match v {
                        Var::Tid => idx.a = coef,
                        Var::Value(v) => match self.k.values[v].kind {
                            // An unknown iteration value: a symbol, the same for every
                            // access of this iteration (see `Idx`).
                            ValueKind::Iv(_) => match env.value(v) {
                                Some(val) => idx.c = idx.c.wrapping_add(coef.wrapping_mul(val)),
                                None => idx.params.push((v.index() as u32, coef)),
                            },
                            _ => idx.params.push((v.index() as u32, coef)),
                        },
                    }
                }
                // The words an index names, wherever they fall: past the end of its view or
                // slot (into the bytes after it), or before its start; words before the root
                // buffer's start are taken as its first ones. Unknown variables count with
                // every value their loop gives them; with none known, the whole root.
                let region = if self.threads <= MAX_THREADS {
                    // Only the threads that can run the access touch words (a divergent
                    // `if tid < C` narrows them).
                    let (t0, t1) = meet((0, self.threads.max(1) as i64), self.tids);
                    let (first, last) = if t0 < t1 {
                        (t0, t1 - 1)
                    } else {
                        (0, self.threads.max(1) as i64 - 1)
                    };
                    let (w0, w1) = (
                        idx.c as i128 + idx.a as i128 * first as i128,
                        idx.c as i128 + idx.a as i128 * last as i128,
                    );
                    let mut span = Some((w0.min(w1), w0.max(w1)));
                    for &(v, coef) in &idx.params {
                        span = match (span, self.iv_range(ValueId::new(v as usize))) {
                            (Some((a, b)), Some((x0, x1))) => {
                                let (p0, p1) = (coef as i128 * x0, coef as i128 * x1);
                                Some((a + p0.min(p1), b + p0.max(p1)))
                            }
                            _ => None,
                        };
                    }
                    match span {
                        Some((wmin, wmax)) if wmax >= 0 && wmax < (u64::MAX / 8) as i128 => {
                            Region {
                                root: r.root,
                                lo: wmin.max(0) as u64 * 4,
                                hi: wmax as u64 * 4 + 4,
                                fuzzy: false,
                                anchor: NO_ANCHOR,
                            }
                        }
                        Some((_, wmax)) if wmax < 0 => Region {
                            root: r.root,
                            lo: 0,
                            hi: 4,
                            fuzzy: false,
                            anchor: NO_ANCHOR,
                        },
                        _ => Region {
                            root: r.root,
                            lo: 0,
                            hi: u64::MAX,
                            fuzzy: false,
                            anchor: NO_ANCHOR,
                        },
                    }
                } else {
                    r
                };
                if anchored {
                    return (
                        Region {
                            fuzzy: true,
                            anchor: r.anchor,
                            ..region
                        },
                        None,
                    );
                }
                (region, Some(idx))
            }
        }
    }

    // ---- the transfer functions ---------------------------------------------------------------

    fn block(&mut self, b: syncopt_ir::BlockId, env: &mut Env, mut st: State) -> State {
        for &s in &self.k.blocks[b].stmts {
            if st.is_empty() {
                break;
            }
            self.states += st.len();
            st = self.stmt(s, env, st);
            st = self.drop_dead(s, st);
            if b == self.k.body {
                // No loop inside a finished top-level statement runs again: its memo is
                // only memory.
                self.memo.clear();
            }
            if st.len() > self.ctx_max {
                st = self.widen(st);
            }
        }
        st
    }

    /// Drops the bindings of handles that nothing reads after statement `s`.
    fn drop_dead(&self, s: StmtId, st: State) -> State {
        let dead = &self.kills[s.index()];
        if dead.is_empty()
            || !st
                .keys()
                .any(|c| c.binds.iter().any(|b| dead.contains(&b.0)))
        {
            return st;
        }
        self.forget(st, dead)
    }

    /// Too many paths. First, handles bound by one statement (a loop's results, an if's
    /// results, a loop's iter args) are merged as a group, one group at a time, until the
    /// paths fit: contexts that agree on everything else become one, and each handle of the
    /// group keeps the set of regions it had (not their hull). The group that keeps the most
    /// apart is chosen first, avoiding groups whose members never overlapped on any path but
    /// would after the merge (a loop that swaps two buffers: merging it would make its two
    /// handles look alike). Only if that is not enough are the contexts that agree on the
    /// barrier state merged whole (every handle's regions, then residues past
    /// CTX_MAX_RESIDUES). Sound: a handle's set only grows, records are unioned.
    fn widen(&mut self, mut st: State) -> State {
        self.widened = true;
        // Paths that differ only in whether they merged others before lose nothing by
        // becoming one (the merged note stays): without this, each merge doubled the paths
        // it left and forced the next.
        st = self.merge_by(st, |c| {
            let mut k = c.clone();
            k.merged = false;
            k
        });
        while st.len() > self.ctx_max {
            let Some(group) = self.pick_group(&st) else {
                break;
            };
            st = self.merge_by(st, |c| {
                let mut k = c.clone();
                k.unbind(&group);
                k.merged = false;
                k
            });
        }
        if st.len() > self.ctx_max {
            // No single group helps (handles that vary together, like a loop's results and a
            // later loop started from them, or groups that would be confused): merge groups
            // cumulatively: those that would not be confused first, then the others; results
            // before iter args (those of the loops being run are what the next statements
            // use); older statements first.
            let all: Vec<&Ctx> = st.keys().collect();
            let mut groups: Vec<(bool, (bool, usize), Vec<ValueId>)> = self
                .handle_groups(&st)
                .into_iter()
                .map(|g| (Self::confuses(&all, &g), self.group_rank(g[0]), g))
                .collect();
            groups.sort();
            let groups: Vec<Vec<ValueId>> = groups.into_iter().map(|g| g.2).collect();
            let mut gone: Vec<ValueId> = Vec::new();
            for g in groups {
                if st.len() <= self.ctx_max {
                    break;
                }
                gone.extend(g);
                st = self.merge_by(st, |c| {
                    let mut k = c.clone();
                    k.unbind(&gone);
                    k.merged = false;
                    k
                });
            }
        }
        if st.len() > self.ctx_max {
            // Bindings first (residues decide slots, keep them while we can).
            st = self.merge_by(st, |c| Ctx {
                o: c.o,
                pending: c.pending.clone(),
                res: c.res.clone(),
                ..Ctx::default()
            });
            if st.len() > CTX_MAX_RESIDUES {
                st = self.merge_by(st, |c| Ctx {
                    o: c.o,
                    pending: c.pending.clone(),
                    ..Ctx::default()
                });
            }
        }
        st
    }

    /// Merge order of a handle's group: results before iter args, older statements first;
    /// with `inner_first`, the iter args of inner loops before those of the loops around
    /// them. Neither order is best everywhere: merging a loop's swapped handles confuses
    /// them where the body uses one right after writing the other, and which loop does that
    /// is the kernel's choice (campaign sm_80 60k seed 9 has both), so `verify` runs the
    /// other order where the first leaves problems on merged paths.
    fn group_rank(&self, v: ValueId) -> (bool, usize) {
        match self.k.values[v].kind {
            ValueKind::IterArg { stmt, .. } => {
                let o = self.order[stmt.index()];
                (true, if self.inner_first { usize::MAX - o } else { o })
            }
            ValueKind::Result { stmt, .. } => (false, self.order[stmt.index()]),
            _ => (false, 0),
        }
    }

    /// Bound handles by the statement that binds them together (a loop's results, an if's
    /// results, a loop's iter args).
    fn handle_groups(&self, st: &State) -> Vec<Vec<ValueId>> {
        let mut groups: BTreeMap<(StmtId, bool), BTreeSet<ValueId>> = BTreeMap::new();
        for c in st.keys() {
            for &(v, _) in &c.binds {
                let key = match self.k.values[v].kind {
                    ValueKind::IterArg { stmt, .. } => (stmt, false),
                    ValueKind::Result { stmt, .. } => (stmt, true),
                    _ => continue,
                };
                groups.entry(key).or_default().insert(v);
            }
        }
        groups
            .into_values()
            .map(|g| g.into_iter().collect())
            .collect()
    }

    /// The handle group to merge next: the one whose merge leaves the fewest contexts, among
    /// those that do not make two of its handles overlap that never did; `None` when merging
    /// no such group alone reduces the count.
    fn pick_group(&self, st: &State) -> Option<Vec<ValueId>> {
        use std::hash::{Hash, Hasher};
        let groups = self.handle_groups(st);
        let mut best: Option<(usize, Vec<ValueId>)> = None;
        let first = st.keys().next()?;
        // Contexts are compared by hash here (the choice is a heuristic; the merge itself
        // compares exactly): the hash of a context without a group is its total minus the
        // hashes of the group's bindings.
        let hash = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x(&mut h);
            h.finish()
        };
        let ctxs: Vec<(&Ctx, u64, Vec<u64>)> = st
            .keys()
            .map(|c| {
                let entries: Vec<u64> = c
                    .binds
                    .iter()
                    .map(|&(v, r)| {
                        hash(&|h| {
                            v.hash(h);
                            r.hash(h);
                            c.alts_of(v).hash(h);
                        })
                    })
                    .collect();
                let base = hash(&|h| {
                    c.o.hash(h);
                    c.pending.hash(h);
                    c.res.hash(h);
                });
                let total = entries.iter().fold(base, |a, &e| a.wrapping_add(e));
                (c, total, entries)
            })
            .collect();
        for vals in groups {
            // A group every context agrees on merges nothing.
            if st.keys().all(|c| {
                vals.iter()
                    .all(|&v| c.binding(v) == first.binding(v) && c.alts_of(v) == first.alts_of(v))
            }) {
                continue;
            }
            let mut keyed: BTreeMap<u64, Vec<&Ctx>> = BTreeMap::new();
            for (c, total, entries) in &ctxs {
                let mut k = *total;
                for &v in &vals {
                    if let Ok(i) = c.binds.binary_search_by_key(&v, |b| b.0) {
                        k = k.wrapping_sub(entries[i]);
                    }
                }
                keyed.entry(k).or_default().push(c);
            }
            let n = keyed.len();
            if n >= st.len() {
                continue;
            }
            let confuses = vals.len() > 1
                && keyed
                    .values()
                    .filter(|items| items.len() > 1)
                    .any(|items| Self::confuses(items, &vals));
            if confuses {
                continue;
            }
            if best.as_ref().is_none_or(|b| n < b.0) {
                best = Some((n, vals));
            }
        }
        best.map(|b| b.1)
    }

    /// Whether merging `items` makes two of `vals` possibly overlap on a path where they did
    /// not.
    fn confuses(items: &[&Ctx], vals: &[ValueId]) -> bool {
        let sets: Vec<Vec<Option<Vec<Region>>>> = items
            .iter()
            .map(|c| vals.iter().map(|&v| c.binding_set(v)).collect())
            .collect();
        let meets = |a: &[Region], b: &[Region]| a.iter().any(|x| b.iter().any(|y| x.overlaps(y)));
        for i in 0..vals.len() {
            for j in i + 1..vals.len() {
                let mut apart = false;
                let mut ui: Vec<Region> = Vec::new();
                let mut uj: Vec<Region> = Vec::new();
                for s in &sets {
                    if let (Some(a), Some(b)) = (&s[i], &s[j]) {
                        apart |= !meets(a, b);
                        ui.extend(a.iter().copied());
                        uj.extend(b.iter().copied());
                    }
                }
                if apart && meets(&ui, &uj) {
                    return true;
                }
            }
        }
        false
    }

    /// Merges the contexts with the same `key`: the key's fields, each handle bound on every
    /// merged path to the set of its regions there (unbound if unbound on one), residues
    /// kept where all agree, records unioned.
    fn merge_by(&self, st: State, key: impl Fn(&Ctx) -> Ctx) -> State {
        let mut groups: BTreeMap<Ctx, Vec<(Ctx, Recs)>> = BTreeMap::new();
        for (ctx, recs) in st {
            groups.entry(key(&ctx)).or_default().push((ctx, recs));
        }
        let mut out = State::new();
        for (mut ctx, items) in groups {
            if items.len() == 1 {
                let (c, r) = items.into_iter().next().expect("one item");
                join_into(&mut out, BTreeMap::from([(c, r)]));
                continue;
            }
            let first = &items[0].0;
            let mut sets: Vec<(ValueId, Vec<Region>)> = Vec::new();
            for &(v, _) in &first.binds {
                if ctx.binding(v).is_some() {
                    continue;
                }
                let mut all = Vec::new();
                let mut everywhere = true;
                for (c, _) in &items {
                    match c.binding_set(v) {
                        Some(rs) => all.extend(rs),
                        None => {
                            everywhere = false;
                            break;
                        }
                    }
                }
                if everywhere {
                    sets.push((v, all));
                }
            }
            for (v, rs) in sets {
                ctx.bind_set(v, rs);
            }
            for &(v, r) in &first.res {
                if ctx.residue(v).is_none() && items.iter().all(|(c, _)| c.residue(v) == Some(r)) {
                    ctx.set_residue(v, Some(r));
                }
            }
            ctx.merged = true;
            let mut recs = Recs::new();
            for (_, r) in items {
                for (k, w) in r {
                    recs.entry(k).or_insert(w);
                }
            }
            join_into(&mut out, BTreeMap::from([(ctx, recs)]));
        }
        out
    }

    fn stmt(&mut self, s: StmtId, env: &mut Env, mut st: State) -> State {
        let k = self.k;
        let d = &k.stmts[s];
        match &d.kind {
            StmtKind::Op(od) => {
                for (ctx, recs) in st.iter_mut() {
                    self.op(s, od, env, ctx, recs);
                }
                st
            }
            StmtKind::Sync(op) => {
                let mut done: Vec<(Ctx, Recs)> = Vec::with_capacity(st.len());
                for (ctx, recs) in st {
                    done.push(self.sync(s, op, d.loc, ctx, recs));
                }
                // Usually no context changes: rebuild the map from the sorted run.
                if done.windows(2).all(|w| w[0].0 < w[1].0) {
                    return done.into_iter().collect();
                }
                let mut out = State::new();
                for (c, r) in done {
                    join_into(&mut out, BTreeMap::from([(c, r)]));
                }
                out
            }
            StmtKind::For(f) => {
                if !self.body_ivs.contains_key(&s) {
                    let mut ivs = BTreeSet::new();
                    // The loop's own `iter` inits are bound from the environment at its
                    // entry (`iter(%cur = %r)` with `%r` a slot view over an outer
                    // variable): they are part of what the run observes.
                    for &(_, init) in &f.iter_args {
                        self.ivs_of_value(init, &mut ivs, 0);
                    }
                    self.ivs_of_block(f.body, &mut ivs);
                    self.body_ivs.insert(s, ivs);
                }
                let seen = &self.body_ivs[&s];
                let key_env: Vec<(ValueId, i64)> = env
                    .exact
                    .iter()
                    .filter(|e| seen.contains(&e.0))
                    .copied()
                    .collect();
                if let Some(list) = self.memo.get(&s) {
                    if let Some(hit) = list
                        .iter()
                        .find(|(e, i, _)| *e == key_env && same_state(i, &st))
                    {
                        return hit.2.clone();
                    }
                }
                let key = (key_env, st.clone());
                let out = self.run_for(s, f, env, st);
                let list = self.memo.entry(s).or_default();
                if list.len() < MEMO_PER_LOOP {
                    list.push((key.0, key.1, out.clone()));
                }
                out
            }
            StmtKind::If(i) => self.run_if(s, i, env, st),
            StmtKind::View(_) | StmtKind::Stage(_) | StmtKind::StageEnd => st,
        }
    }

    fn cap(&self, c: Counter) -> u8 {
        self.newer_cap.get(&c).copied().unwrap_or(1)
    }

    /// Induction variables an expression, or the memory a value names, depends on.
    fn ivs_of_expr(&self, e: &AffineExpr, out: &mut BTreeSet<ValueId>) {
        for &(v, _) in &e.terms {
            if let Var::Value(v) = v {
                if matches!(self.k.values[v].kind, ValueKind::Iv(_)) {
                    out.insert(v);
                }
            }
        }
    }

    fn ivs_of_value(&self, v: ValueId, out: &mut BTreeSet<ValueId>, depth: u32) {
        if depth > 64 {
            return;
        }
        match self.k.values[v].kind {
            ValueKind::View(view) => {
                let vd = &self.k.views[view];
                if let ViewKind::Slot { index, .. } = &vd.kind {
                    self.ivs_of_expr(index, out);
                }
                self.ivs_of_value(vd.base, out, depth + 1);
            }
            ValueKind::Buffer(b) => match self.k.buffers[b].placement {
                Placement::At { base, .. } | Placement::Aliases(base) => {
                    self.ivs_of_value(base, out, depth + 1)
                }
                Placement::Own => {}
            },
            _ => {}
        }
    }

    fn ivs_of_block(&self, b: syncopt_ir::BlockId, out: &mut BTreeSet<ValueId>) {
        for &y in &self.k.blocks[b].yields {
            self.ivs_of_value(y, out, 0);
        }
        for &s in &self.k.blocks[b].stmts {
            match &self.k.stmts[s].kind {
                StmtKind::Op(od) => {
                    for e in &od.effects {
                        self.ivs_of_value(e.mem.value, out, 0);
                        if let Selector::Index(x) = &e.mem.sel {
                            self.ivs_of_expr(x, out);
                        }
                    }
                }
                StmtKind::For(f) => {
                    for &(_, init) in &f.iter_args {
                        self.ivs_of_value(init, out, 0);
                    }
                    self.ivs_of_block(f.body, out);
                }
                StmtKind::If(i) => {
                    self.ivs_of_expr(&i.cond.expr, out);
                    self.ivs_of_block(i.then_block, out);
                    if let Some(e) = i.else_block {
                        self.ivs_of_block(e, out);
                    }
                }
                StmtKind::View(view) => {
                    self.ivs_of_value(self.k.views[*view].value, out, 0);
                }
                _ => {}
            }
        }
    }

    fn group_offset(&self, ctx: &Ctx, g: u8) -> i8 {
        if g == 0 {
            0
        } else {
            ctx.o
        }
    }

    /// Whether two threads of groups `gx` and `gy` exist that are not in lockstep (two
    /// different waves; two different threads on NVIDIA).
    fn cross_waves(&self, gx: u8, gy: u8) -> bool {
        if gx != gy {
            return true;
        }
        let per_group = i64::from(self.threads / self.groups.max(1) as u32);
        per_group > self.lockstep
    }

    fn thread_range(&self, g: u8) -> (i64, i64) {
        let t = self.threads as i64;
        if self.groups == 1 {
            (0, t)
        } else if g == 0 {
            (0, t / 2)
        } else {
            (t / 2, t)
        }
    }

    /// Whether two different waves can run accesses of groups `gx`/`gy` restricted to the
    /// thread intervals `tx`/`ty`: not when one side has no thread, nor when both sides lie in
    /// one and the same wave (a wave sees its own accesses in order).
    fn cross_waves_in(&self, gx: u8, tx: (i64, i64), gy: u8, ty: (i64, i64)) -> bool {
        let (x0, x1) = meet(self.thread_range(gx), tx);
        let (y0, y1) = meet(self.thread_range(gy), ty);
        if x0 >= x1 || y0 >= y1 {
            return false;
        }
        let ws = self.lockstep;
        let one_wave = |a: i64, b: i64| a / ws == (b - 1) / ws;
        if one_wave(x0, x1) && one_wave(y0, y1) && x0 / ws == y0 / ws {
            return false;
        }
        self.cross_waves(gx, gy)
    }

    /// Whether a thread of group `gx` (within threads `tx`) and a thread of another wave in
    /// group `gy` (within `ty`) touch the same word.
    fn idx_conflict(
        &self,
        x: &Idx,
        (gx, tx): (u8, (i64, i64)),
        y: &Idx,
        (gy, ty): (u8, (i64, i64)),
    ) -> bool {
        if x.params != y.params || self.threads > MAX_THREADS {
            return true;
        }
        if x.a == y.a && x.c == y.c && x.a != 0 {
            // Word a*t + c belongs to thread t alone.
            return false;
        }
        let ws = self.lockstep;
        let (x0, x1) = meet(self.thread_range(gx), tx);
        let (y0, y1) = meet(self.thread_range(gy), ty);
        for t in x0..x1 {
            let v = x.a.wrapping_mul(t).wrapping_add(x.c).wrapping_sub(y.c);
            if y.a == 0 {
                if v == 0 && self.cross_waves(gx, gy) {
                    return true;
                }
            } else if v % y.a == 0 {
                let t2 = v / y.a;
                if t2 >= y0 && t2 < y1 && t2 / ws != t / ws {
                    return true;
                }
            }
        }
        false
    }

    fn op(&mut self, s: StmtId, od: &OpData, env: &Env, ctx: &Ctx, recs: &mut Recs) {
        let base = self.eff_base[s.index()];
        let mut accesses = Vec::new();
        for (i, e) in od.effects.iter().enumerate() {
            if !self.is_workgroup(e.mem.value) {
                continue;
            }
            // A handle that may name one of several regions: one access per choice (each
            // checked, each left pending: one of them happens).
            let choices = self.choices(e.mem.value, ctx);
            let mut seen = Vec::with_capacity(choices.len());
            for over in choices {
                let (region, idx) = self.access(e, env, ctx, over);
                if !seen.contains(&(region, idx.clone())) {
                    seen.push((region, idx.clone()));
                    accesses.push((base + i as u32, e.kind, region, idx));
                }
            }
        }
        if accesses.is_empty() {
            return;
        }
        let asy = od.asynchronous.is_some();
        // Deadlines to attach: to existing records, and to the new records of this op.
        let mut x_dead: Vec<(Rec, i8, u32)> = Vec::new();
        let mut y_dead: BTreeMap<(u32, u8), Vec<(i8, u32)>> = BTreeMap::new();
        for &(yeff, ykind, yreg, ref yidx) in &accesses {
            for gy in 0..self.groups {
                for (x, wit) in recs.iter() {
                    let xi = &self.effs[x.eff as usize];
                    let kind = match (xi.kind.writes(), ykind.writes()) {
                        (true, false) => Kind::Raw,
                        (false, true) => Kind::War,
                        (true, true) => Kind::Waw,
                        (false, false) => continue,
                    };
                    if xi.kind == AccessKind::Atomic && ykind == AccessKind::Atomic {
                        continue;
                    }
                    if !x.region.overlaps(&yreg) {
                        continue;
                    }
                    if x.asy && !x.done {
                        let why = self.why_async(x);
                        self.race_now(x, wit, yeff, kind, x.group, gy, ctx, why);
                        continue;
                    }
                    if !self.cross_waves_in(x.group, x.tids, gy, self.tids) {
                        continue;
                    }
                    if let (Some(a), Some(b)) = (&x.idx, yidx) {
                        if !self.idx_conflict(a, (x.group, x.tids), b, (gy, self.tids)) {
                            continue;
                        }
                    }
                    if x.named_pub {
                        continue;
                    }
                    let ox = self.group_offset(ctx, x.group);
                    let oy = self.group_offset(ctx, gy);
                    let shift = oy - ox;
                    let a = match x.pub_rel {
                        Some(p) if p <= oy => Tri::False,
                        Some(_) => Tri::True,
                        None if shift <= 0 => Tri::True,
                        None => Tri::Defer(oy),
                    };
                    let d = (ox as i16 - x.issue_rel as i16) + shift as i16;
                    let b = if self.groups == 1 || d >= 0 {
                        Tri::True
                    } else {
                        Tri::Defer(x.issue_rel)
                    };
                    let why = self.why(x, ctx, gy);
                    match (a, b) {
                        (Tri::False, _) | (_, Tri::False) => {}
                        (Tri::True, Tri::True) => {
                            self.race_now(x, wit, yeff, kind, x.group, gy, ctx, why)
                        }
                        (Tri::Defer(lim), _) => {
                            let id = self.defer(x, yeff, kind, gy, shift, why, ctx.merged);
                            x_dead.push((x.clone(), lim, id));
                        }
                        (Tri::True, Tri::Defer(lim)) => {
                            let id = self.defer(x, yeff, kind, gy, shift, why, ctx.merged);
                            y_dead.entry((yeff, gy)).or_default().push((lim, id));
                        }
                    }
                }
            }
        }
        for (x, lim, id) in x_dead {
            if let Some(w) = recs.remove(&x) {
                let mut nx = x.clone();
                if !nx.deadlines.contains(&(lim, id)) {
                    nx.deadlines.push((lim, id));
                    nx.deadlines.sort();
                }
                recs.insert(nx, w);
            }
        }
        // Issuing raises the op's counter in each wave.
        let counter = if asy {
            od.asynchronous
                .and_then(|spec| self.t.async_counter(spec, &od.name))
        } else {
            self.info.lds_counter
        };
        if let Some(c) = counter {
            let cap = self.cap(c);
            if c != Counter::CpAsync
                && recs
                    .keys()
                    .any(|r| r.counter == Some(c) && !r.done && r.newer < cap)
            {
                let old = std::mem::take(recs);
                *recs = old
                    .into_iter()
                    .map(|(mut r, w)| {
                        if r.counter == Some(c) && !r.done {
                            r.newer = r.newer.saturating_add(1).min(cap);
                        }
                        (r, w)
                    })
                    .collect();
            }
        }
        for (yeff, _, region, idx) in accesses {
            for g in 0..self.groups {
                let mut deadlines = y_dead.get(&(yeff, g)).cloned().unwrap_or_default();
                deadlines.sort();
                deadlines.dedup();
                let r = Rec {
                    region,
                    idx: idx.clone(),
                    eff: yeff,
                    group: g,
                    asy,
                    done: false,
                    counter,
                    newer: 0,
                    committed: false,
                    pub_rel: None,
                    sig_named: 0,
                    named_pub: false,
                    issue_rel: self.group_offset(ctx, g),
                    deadlines,
                    tids: self.tids,
                };
                recs.entry(r).or_insert(None);
            }
        }
    }

    fn sync(
        &mut self,
        s: StmtId,
        op: &SyncOp,
        loc: Option<Loc>,
        mut ctx: Ctx,
        recs: Recs,
    ) -> (Ctx, Recs) {
        let mut recs = recs;
        let all: &[u8] = if self.groups == 2 { &[0, 1] } else { &[0] };
        match op {
            SyncOp::Barrier { id, fence, threads } => {
                let bid = if *id == 0 { DEFAULT_ID } else { *id as i32 };
                if *fence {
                    recs = self.fence(recs);
                }
                let partial = threads.is_some_and(|n| n < self.threads);
                if !partial {
                    recs = self.arrive(bid, all, &ctx, recs);
                    recs = self.pass(bid, all, &mut ctx, recs);
                }
            }
            SyncOp::Signal { id } => {
                if let Some(&(_, prev)) = ctx.pending.iter().find(|p| p.0 == *id) {
                    self.error(
                        loc,
                        format!("deadlock: two barrier.signal {id} in a row without a barrier.wait {id} between them"),
                        vec![(self.k.stmts[prev].loc, "the earlier signal".to_string())],
                    );
                } else {
                    ctx.pending.push((*id, s));
                    ctx.pending.sort();
                }
                recs = self.fence(recs);
                recs = self.arrive(*id, all, &ctx, recs);
            }
            SyncOp::Wait { id } => {
                if let Some(p) = ctx.pending.iter().position(|p| p.0 == *id) {
                    ctx.pending.remove(p);
                } else {
                    self.error(
                        loc,
                        format!("deadlock: barrier.wait {id} with no pending barrier.signal {id} on some path"),
                        vec![],
                    );
                }
                recs = self.pass(*id, all, &mut ctx, recs);
            }
            SyncOp::CondBarrier { group } => {
                let g: &[u8] = if *group == Group::Low { &[0] } else { &[1] };
                recs = self.arrive(DEFAULT_ID, g, &ctx, recs);
                recs = self.pass(DEFAULT_ID, g, &mut ctx, recs);
            }
            SyncOp::CounterWait { counter, n } => {
                let (c, n) = (*counter, *n);
                recs = recs
                    .into_iter()
                    .map(|(mut r, w)| {
                        if r.counter == Some(c) && !r.done {
                            let covered = if c == Counter::CpAsync {
                                r.committed && r.newer as u32 >= n
                            } else {
                                r.newer as u32 >= n
                            };
                            if covered {
                                r.done = true;
                                r.newer = 0;
                            }
                        }
                        (r, w)
                    })
                    .collect();
            }
            SyncOp::CpAsyncCommit => {
                let cap = self.cap(Counter::CpAsync);
                recs = recs
                    .into_iter()
                    .map(|(mut r, w)| {
                        if r.counter == Some(Counter::CpAsync) && !r.done {
                            if r.committed {
                                r.newer = r.newer.saturating_add(1).min(cap);
                            } else {
                                r.committed = true;
                                r.newer = 0;
                            }
                        }
                        (r, w)
                    })
                    .collect();
            }
            SyncOp::CpAsyncWait { n } => {
                let n = *n;
                recs = recs
                    .into_iter()
                    .map(|(mut r, w)| {
                        if r.counter == Some(Counter::CpAsync)
                            && !r.done
                            && r.committed
                            && r.newer as u32 >= n
                        {
                            r.done = true;
                            r.newer = 0;
                        }
                        (r, w)
                    })
                    .collect();
            }
            _ => {}
        }
        (ctx, recs)
    }

    /// The LDS fence of a barrier: the wave's ordinary LDS accesses (and async ops on the LDS
    /// counter) have completed.
    fn fence(&self, recs: Recs) -> Recs {
        let lds = self.info.lds_counter;
        if !recs
            .keys()
            .any(|r| !r.done && (!r.asy || (lds.is_some() && r.counter == lds)))
        {
            return recs;
        }
        recs.into_iter()
            .map(|(mut r, w)| {
                if !r.asy || (lds.is_some() && r.counter == lds) {
                    r.done = true;
                    r.newer = 0;
                }
                (r, w)
            })
            .collect()
    }

    /// Arrival of `groups` at barrier `id`: completed records get their publishing phase.
    fn arrive(&mut self, id: i32, groups: &[u8], ctx: &Ctx, recs: Recs) -> Recs {
        let mut out = Recs::new();
        let mut failed = Vec::new();
        for (mut r, w) in recs {
            if groups.contains(&r.group) && r.done {
                if id == DEFAULT_ID {
                    if r.pub_rel.is_none() {
                        let p = self.group_offset(ctx, r.group) + 1;
                        r.pub_rel = Some(p);
                        for &(lim, d) in &r.deadlines {
                            if p > lim {
                                failed.push(d);
                            }
                        }
                        r.deadlines.clear();
                    }
                } else if !r.named_pub {
                    r.sig_named |= named_bit(id);
                }
            }
            out.entry(r).or_insert(w);
        }
        for d in failed {
            self.report_deferred(d, "it is published only after the other access ran");
        }
        out
    }

    /// `groups` pass barrier `id` (its wait, or the whole monolithic barrier).
    fn pass(&mut self, id: i32, groups: &[u8], ctx: &mut Ctx, recs: Recs) -> Recs {
        if id != DEFAULT_ID {
            let bit = named_bit(id);
            return self.normalize(
                recs.into_iter()
                    .map(|(mut r, w)| {
                        if r.sig_named & bit != 0 {
                            r.sig_named &= !bit;
                            r.named_pub = true;
                        }
                        (r, w)
                    })
                    .collect(),
            );
        }
        let low = groups.contains(&0);
        let high = groups.contains(&1) || self.groups == 1;
        match (low, high) {
            (true, false) => ctx.o = (ctx.o - 1).max(-O_MAX),
            (false, true) => ctx.o = (ctx.o + 1).min(O_MAX),
            _ => {}
        }
        if !low {
            return self.normalize(recs);
        }
        let two = self.groups == 2;
        let shifted = recs
            .into_iter()
            .map(|(mut r, w)| {
                r.pub_rel = r.pub_rel.map(|p| (p - 1).max(REL_MIN));
                if two {
                    r.issue_rel = (r.issue_rel - 1).max(REL_MIN);
                    for d in r.deadlines.iter_mut() {
                        d.0 = (d.0 - 1).max(REL_MIN);
                    }
                }
                (r, w)
            })
            .collect();
        self.normalize(shifted)
    }

    /// Fails deadlines that can no longer be met and drops records that are ordered before
    /// everything to come.
    fn normalize(&mut self, recs: Recs) -> Recs {
        let mut out = Recs::new();
        let mut failed = Vec::new();
        for (mut r, w) in recs {
            if !r.deadlines.is_empty() && r.pub_rel.is_none() {
                let floor = self.omin + 1;
                r.deadlines.retain(|&(lim, d)| {
                    if lim < floor {
                        failed.push(d);
                        false
                    } else {
                        true
                    }
                });
            }
            let ordered = r.named_pub || r.pub_rel.is_some_and(|p| p <= self.omin);
            if ordered && r.deadlines.is_empty() {
                continue;
            }
            out.entry(r).or_insert(w);
        }
        for d in failed {
            self.report_deferred(d, "the lagging group cannot be published in time");
        }
        out
    }

    // ---- loops and ifs ------------------------------------------------------------------------

    fn run_for(&mut self, s: StmtId, f: &ForData, env: &mut Env, st: State) -> State {
        let trips = f.trips();
        let lo = match f.lo {
            syncopt_ir::Bound::Const(c) => Some(c),
            _ => None,
        };
        let used = self.iv_used.contains(&f.iv);
        // Entry: bind iter args to their initial values.
        let mut cur = State::new();
        for (mut ctx, recs) in st {
            let inits: Vec<_> = f
                .iter_args
                .iter()
                .map(|&(a, init)| (a, self.resolve_all(init, env, &ctx)))
                .collect();
            for (a, r) in inits {
                ctx.bind_set(a, r);
            }
            join_into(&mut cur, BTreeMap::from([(ctx, recs)]));
        }
        let exact = trips
            .exact()
            .filter(|&n| lo.is_some() && (n <= UNROLL || (!used && n <= EXACT_MAX)));
        let out = if let Some(n) = exact {
            let lo = lo.unwrap_or(0);
            // When the induction variable matters nowhere, the states after 0, 1, 2, ...
            // trips form a sequence that becomes periodic (rotating handles give period 2):
            // find the cycle and jump to the state after exactly n trips.
            let mut history: Vec<State> = Vec::new();
            let mut s_cur = cur;
            let mut k = 0;
            while k < n {
                if !used {
                    if let Some(j) = history.iter().position(|h| same_state(h, &s_cur)) {
                        let period = k - j as u64;
                        let idx = j as u64 + (n - j as u64) % period;
                        s_cur = history.swap_remove(idx as usize);
                        break;
                    }
                    history.push(s_cur.clone());
                }
                if used {
                    env.exact
                        .push((f.iv, lo.wrapping_add((k as i64).wrapping_mul(f.step))));
                }
                let body = self.block(f.body, env, s_cur);
                s_cur = self.back_edge(s, f, env, body, None);
                if used {
                    env.exact.pop();
                }
                k += 1;
            }
            s_cur
        } else {
            let period = self.iv_mod.get(&f.iv).copied();
            // Residue of the induction variable at the first iteration.
            let mut s0 = State::new();
            for (ctx, recs) in cur {
                match (period, lo) {
                    (Some(l), Some(lo)) => {
                        let mut c = ctx.clone();
                        c.set_residue(f.iv, Some(lo.rem_euclid(l as i64) as u32));
                        join_into(&mut s0, BTreeMap::from([(c, recs)]));
                    }
                    (Some(l), None) => {
                        for r in 0..l {
                            let mut c = ctx.clone();
                            c.set_residue(f.iv, Some(r));
                            join_into(&mut s0, BTreeMap::from([(c, recs.clone())]));
                        }
                    }
                    _ => {
                        join_into(&mut s0, BTreeMap::from([(ctx, recs)]));
                    }
                }
            }
            let m = trips.min.min(MIN_UNROLL);
            let mut s_cur = s0;
            let zero = m == 0;
            for _ in 0..m {
                let body = self.block(f.body, env, s_cur);
                s_cur = self.back_edge(s, f, env, body, period);
            }
            // The next trip runs apart from the later ones: what is pending on entry (or
            // after the unrolled trips) and the handles' first values stay apart from the
            // states of the back edge, so merging paths at the head of the loop does not mix
            // them (a copy issued before the loop and waited for in its first trip is never
            // in flight while a later trip's handle names its buffer).
            // When the first trip leads back into the entry state, that state is the whole
            // fixpoint (the common case with barriers everywhere: no extra trip).
            let mut head = s_cur;
            let body = self.block(f.body, env, head.clone());
            let mut acc = self.back_edge(s, f, env, body, period);
            if subsumes(&head, &acc) {
                acc = State::new();
            }
            // The join over every further trip count: iterate to a fixpoint.
            for _ in 0..256 {
                if acc.is_empty() {
                    break;
                }
                let body = self.block(f.body, env, acc.clone());
                let next = self.back_edge(s, f, env, body, period);
                if !join_into(&mut acc, next) {
                    break;
                }
            }
            if zero {
                add_step(&mut head, Step::ZeroTrip(s));
            }
            join_into(&mut acc, head);
            let mut out = State::new();
            for (mut ctx, recs) in acc {
                ctx.set_residue(f.iv, None);
                join_into(&mut out, BTreeMap::from([(ctx, recs)]));
            }
            out
        };
        // Results: the handles' values after the loop.
        let mut fin = State::new();
        for (mut ctx, recs) in out {
            // The induction variable is out of scope: its symbol in pending words is unknown
            // from here on (a later run of the loop starts it afresh).
            let recs = shift_ivs(recs, f.iv, f.step, Shift::Exit);
            for (i, &res) in f.results.iter().enumerate() {
                let r = f
                    .iter_args
                    .get(i)
                    .and_then(|a| ctx.binding_set(a.0))
                    .unwrap_or_else(|| vec![TOP]);
                if self.used_vals.contains(&res) {
                    ctx.bind_set(res, r);
                }
            }
            join_into(&mut fin, BTreeMap::from([(ctx, recs)]));
        }
        let scoped: Vec<ValueId> = f.iter_args.iter().map(|a| a.0).collect();
        self.forget(fin, &scoped)
    }

    /// The back edge: iter args take the yielded values, the residue advances.
    fn back_edge(
        &mut self,
        s: StmtId,
        f: &ForData,
        env: &Env,
        st: State,
        period: Option<u32>,
    ) -> State {
        let yields = &self.k.blocks[f.body].yields;
        let mut out = State::new();
        for (mut ctx, recs) in st {
            let new: Vec<_> = f
                .iter_args
                .iter()
                .zip(yields.iter())
                .map(|(&(a, _), &y)| (a, self.resolve_all(y, env, &ctx)))
                .collect();
            for (a, r) in new {
                ctx.bind_set(a, r);
            }
            if let Some(l) = period {
                if let Some(r) = ctx.residue(f.iv) {
                    let nr = (r as i64 + f.step).rem_euclid(l as i64) as u32;
                    ctx.set_residue(f.iv, Some(nr));
                }
            }
            let recs = shift_ivs(recs, f.iv, f.step, Shift::Back(f.trips().max));
            join_into(&mut out, BTreeMap::from([(ctx, recs)]));
        }
        let mut out = self.forget(out, &self.block_results(f.body));
        add_step(&mut out, Step::Back(s));
        out
    }

    /// Drops the bindings of `vals` (handles whose scope ended) and merges the contexts
    /// that become equal.
    fn forget(&self, st: State, vals: &[ValueId]) -> State {
        if vals.is_empty() {
            return st;
        }
        let mut out = State::new();
        for (mut ctx, recs) in st {
            ctx.unbind(vals);
            join_into(&mut out, BTreeMap::from([(ctx, recs)]));
        }
        out
    }

    /// Results of the statements of block `b`: their scope ends with the block.
    fn block_results(&self, b: syncopt_ir::BlockId) -> Vec<ValueId> {
        let mut out = Vec::new();
        for &s in &self.k.blocks[b].stmts {
            match &self.k.stmts[s].kind {
                StmtKind::For(f) => out.extend(f.results.iter().copied()),
                StmtKind::If(i) => out.extend(i.results.iter().copied()),
                _ => {}
            }
        }
        out
    }

    fn bind_results(&self, i: &IfData, b: syncopt_ir::BlockId, env: &Env, st: State) -> State {
        let st = self.bind_if_results(i, b, env, st);
        self.forget(st, &self.block_results(b))
    }

    fn bind_if_results(&self, i: &IfData, b: syncopt_ir::BlockId, env: &Env, st: State) -> State {
        if i.results.iter().all(|r| !self.used_vals.contains(r)) {
            return st;
        }
        let yields = &self.k.blocks[b].yields;
        let mut out = State::new();
        for (mut ctx, recs) in st {
            let rs: Vec<_> = i
                .results
                .iter()
                .zip(yields.iter())
                .map(|(&res, &y)| (res, self.resolve_all(y, env, &ctx)))
                .collect();
            for (res, r) in rs {
                ctx.bind_set(res, r);
            }
            join_into(&mut out, BTreeMap::from([(ctx, recs)]));
        }
        out
    }

    fn run_if(&mut self, s: StmtId, i: &IfData, env: &mut Env, st: State) -> State {
        if i.uniformity == Uniformity::Uniform {
            let mut t_in = State::new();
            let mut e_in = State::new();
            for (ctx, recs) in st {
                match self.eval_cond(&i.cond, env, &ctx) {
                    Some(true) => {
                        t_in.insert(ctx, recs);
                    }
                    Some(false) => {
                        e_in.insert(ctx, recs);
                    }
                    None => {
                        t_in.insert(ctx.clone(), recs.clone());
                        e_in.insert(ctx, recs);
                    }
                }
            }
            let mut t_out = if t_in.is_empty() {
                t_in
            } else {
                let o = self.block(i.then_block, env, t_in);
                self.bind_results(i, i.then_block, env, o)
            };
            add_step(&mut t_out, Step::Then(s));
            let mut e_out = match i.else_block {
                Some(b) if !e_in.is_empty() => {
                    let o = self.block(b, env, e_in);
                    self.bind_results(i, b, env, o)
                }
                _ => e_in,
            };
            add_step(&mut e_out, Step::Else(s));
            join_into(&mut t_out, e_out);
            t_out
        } else {
            // Each wave takes one branch; waves on the two branches run in the same phase, so
            // the else branch also sees what the then branch left pending. A condition on the
            // thread id also says which threads run each branch.
            let outer = self.tids;
            let (t_tids, e_tids) = i.cond.tid_split();
            self.tids = meet(outer, t_tids);
            let t_out = self.block(i.then_block, env, st.clone());
            let mut mid = st.clone();
            join_into(&mut mid, t_out.clone());
            self.tids = meet(outer, e_tids);
            let e_out = match i.else_block {
                Some(b) => self.block(b, env, mid),
                None => st,
            };
            self.tids = outer;
            let mut out = t_out;
            join_into(&mut out, e_out);
            let mut scoped = self.block_results(i.then_block);
            if let Some(b) = i.else_block {
                scoped.extend(self.block_results(b));
            }
            if i.results.iter().all(|r| !self.used_vals.contains(r)) {
                return self.forget(out, &scoped);
            }
            // Different waves may hold different handles: bind either.
            let ty = &self.k.blocks[i.then_block].yields;
            let ey: &[ValueId] = i
                .else_block
                .map(|b| self.k.blocks[b].yields.as_slice())
                .unwrap_or(&[]);
            let mut fin = State::new();
            for (mut ctx, recs) in out {
                for (j, &res) in i.results.iter().enumerate() {
                    let mut r = Vec::new();
                    for y in [ty.get(j), ey.get(j)].into_iter().flatten() {
                        r.extend(self.resolve_all(*y, env, &ctx));
                    }
                    if r.is_empty() {
                        r.push(TOP);
                    }
                    ctx.bind_set(res, r);
                }
                join_into(&mut fin, BTreeMap::from([(ctx, recs)]));
            }
            self.forget(fin, &scoped)
        }
    }

    // ---- diagnostics ----------------------------------------------------------------------------

    fn buffer_name(&self, root: u32) -> String {
        if root == ANY_ROOT {
            return "workgroup memory".to_string();
        }
        let b = syncopt_ir::BufferId::new(root as usize);
        format!("%{}", self.k.value_name(self.k.buffers[b].value))
    }

    fn access_word(&self, eff: u32) -> String {
        let e = &self.effs[eff as usize];
        let w = e.kind.as_str();
        if e.asy {
            format!("async {w}")
        } else {
            w.to_string()
        }
    }

    fn groups_note(&self, gx: u8, gy: u8, shift: i8) -> String {
        if self.groups == 1 && self.lockstep < i64::from(self.info.wave_size) {
            format!(
                "threads: two different threads of the {} in the workgroup, also two of one warp (warps are not lockstep)",
                self.threads
            )
        } else if self.groups == 1 {
            format!(
                "waves: two different waves of the {} in the workgroup (e.g. waves 0 and 1)",
                self.waves
            )
        } else {
            let name = |g: u8| if g == 0 { "low" } else { "high" };
            let per = (self.waves / 2).max(1);
            let wave = |g: u8, other: bool| g as u32 * per + other as u32;
            format!(
                "waves: wave {} of the {} group and wave {} of the {} group, phase shift {}",
                wave(gx, false),
                name(gx),
                wave(gy, gx == gy),
                name(gy),
                shift
            )
        }
    }

    fn why_async(&self, x: &Rec) -> String {
        let c = x
            .counter
            .map(|c| c.as_str().to_string())
            .unwrap_or_else(|| "its counter".to_string());
        if x.counter == Some(Counter::CpAsync) && !x.committed {
            "async copy not covered by a wait: its cp.async group was never committed (cp_async.commit), so no cp_async.wait covers it".to_string()
        } else if x.newer > 0 {
            format!("async copy not covered by a wait: {} newer op(s) on {c} were issued after it, and no wait on {c} with a small enough count follows it", x.newer)
        } else {
            format!("async copy not covered by a wait: no wait on {c} follows it, so it may still be in flight")
        }
    }

    fn why(&self, x: &Rec, ctx: &Ctx, gy: u8) -> String {
        let xw = self.access_word(x.eff);
        if !x.done {
            if x.asy {
                return self.why_async(x);
            }
            return format!("no fencing barrier between them: the {xw} is not known to have completed at any barrier arrival ('barrier exec' and 'cond_barrier' do not fence; an LDS wait before them would)");
        }
        match x.pub_rel {
            None => format!("no barrier arrival (barrier or barrier.signal) follows the completed {xw} before the other access"),
            Some(p) if p > self.group_offset(ctx, gy) && self.groups == 1 => {
                format!("the {xw} was signalled (barrier.signal) but no barrier.wait follows before the other access")
            }
            Some(_) => "the lagging wave group is not yet past the barrier phase that publishes it".to_string(),
        }
    }

    fn path_note(&self, wit: &Wit) -> Option<String> {
        let mut steps = Vec::new();
        let mut cur = wit.clone();
        while let Some(n) = cur {
            steps.push(n.step);
            cur = n.prev.clone();
        }
        if steps.is_empty() {
            return None;
        }
        steps.reverse();
        let loc = |s: StmtId| {
            self.k.stmts[s]
                .loc
                .map(|l| l.to_string())
                .unwrap_or_else(|| "?".to_string())
        };
        let mut parts: Vec<String> = steps
            .iter()
            .map(|st| match *st {
                Step::Back(s) => format!("next iteration of the loop at {}", loc(s)),
                Step::Then(s) => format!("the if at {} took then", loc(s)),
                Step::Else(s) => format!("the if at {} took else", loc(s)),
                Step::ZeroTrip(s) => format!("the loop at {} may run zero times", loc(s)),
            })
            .collect();
        if parts.len() > 8 {
            let n = parts.len() - 8;
            parts.drain(..n);
            parts.insert(0, "...".to_string());
        }
        Some(format!("path: {}", parts.join("; ")))
    }

    #[allow(clippy::too_many_arguments)]
    fn race_now(
        &mut self,
        x: &Rec,
        wit: &Wit,
        y: u32,
        kind: Kind,
        gx: u8,
        gy: u8,
        ctx: &Ctx,
        why: String,
    ) {
        let key = (x.eff, y, kind);
        if self.races.contains_key(&key) {
            return;
        }
        let shift = self.group_offset(ctx, gy) - self.group_offset(ctx, gx);
        let mut notes = Vec::new();
        let xi = &self.effs[x.eff as usize];
        notes.push((
            xi.loc,
            format!("the {} ('{}') is here", self.access_word(x.eff), xi.op),
        ));
        if let Some(p) = self.path_note(wit) {
            notes.push((None, p));
        }
        if x.asy && !x.done {
            notes.push((None, "the access may be in the issuing wave itself: its own later access also needs the wait".to_string()));
        } else {
            notes.push((None, self.groups_note(gx, gy, shift)));
        }
        notes.push((None, format!("why: {why}")));
        if ctx.merged {
            notes.push((None, MERGED_NOTE.to_string()));
        }
        let d = self.race_diag(x.eff, y, kind, x.region.root, notes);
        self.races.insert(key, d);
    }

    fn race_diag(
        &self,
        x: u32,
        y: u32,
        kind: Kind,
        root: u32,
        notes: Vec<(Option<Loc>, String)>,
    ) -> Diagnostic {
        let (xi, yi) = (&self.effs[x as usize], &self.effs[y as usize]);
        let at = |l: Option<Loc>| l.map(|l| l.to_string()).unwrap_or_else(|| "?".into());
        let mut d = Diagnostic::error(
            yi.loc,
            format!(
                "race ({}) on {}: {} at {} and {} at {} are not ordered by a barrier",
                kind.as_str(),
                self.buffer_name(root),
                self.access_word(x),
                at(xi.loc),
                self.access_word(y),
                at(yi.loc)
            ),
        );
        d.notes = notes;
        d
    }

    #[allow(clippy::too_many_arguments)]
    fn defer(
        &mut self,
        x: &Rec,
        y: u32,
        kind: Kind,
        gy: u8,
        shift: i8,
        why: String,
        merged: bool,
    ) -> u32 {
        let key = (x.eff, y, kind, x.group, gy);
        if let Some(&id) = self.deferred_ids.get(&key) {
            self.deferred[id as usize].merged |= merged;
            return id;
        }
        let id = self.deferred.len() as u32;
        self.deferred.push(Deferred {
            x: x.eff,
            y,
            kind,
            gx: x.group,
            gy,
            shift,
            root: x.region.root,
            why,
            merged,
        });
        self.deferred_ids.insert(key, id);
        id
    }

    fn report_deferred(&mut self, id: u32, extra: &str) {
        let Some(d) = self.deferred.get(id as usize).cloned() else {
            return;
        };
        let key = (d.x, d.y, d.kind);
        if self.races.contains_key(&key) {
            return;
        }
        let xi = &self.effs[d.x as usize];
        let mut notes = vec![
            (
                xi.loc,
                format!("the {} ('{}') is here", self.access_word(d.x), xi.op),
            ),
            (None, self.groups_note(d.gx, d.gy, d.shift)),
            (None, format!("why: {}; {extra}", d.why)),
        ];
        if d.merged {
            notes.push((None, MERGED_NOTE.to_string()));
        }
        let diag = self.race_diag(d.x, d.y, d.kind, d.root, notes);
        self.races.insert(key, diag);
    }
}

/// Where a loop's induction variable moves (see `shift_ivs`).
#[derive(Copy, Clone)]
enum Shift {
    /// The back edge, with the loop's largest trip count if known.
    Back(Option<u64>),
    /// The loop's exit.
    Exit,
}

/// The records whose words depend on induction variable `iv` (unknown value), rewritten for
/// the loop's next iteration (`iv` grows by `step`: the same word is `coef * step` lower in
/// terms of the new value). Past IV_SHIFT_MAX back edges, and at the loop's exit, they lose
/// their ownership (sound: every thread may touch every word of the region). A record
/// carried across more back edges than the loop has trips exists on no execution: dropped.
fn shift_ivs(recs: Recs, iv: ValueId, step: i64, how: Shift) -> Recs {
    let key = iv.index() as u32;
    let dep = |r: &Rec| {
        r.idx
            .as_ref()
            .is_some_and(|x| x.params.iter().any(|p| p.0 == key))
    };
    if !recs.keys().any(dep) {
        return recs;
    }
    let mut out = Recs::new();
    for (mut r, w) in recs {
        if dep(&r) {
            let x = r.idx.as_mut().expect("dep: has an index");
            match how {
                Shift::Exit => r.idx = None,
                Shift::Back(max) => {
                    if max.is_some_and(|m| x.shifts as u64 >= m) {
                        continue;
                    }
                    if x.shifts >= IV_SHIFT_MAX && max.is_none_or(|m| m > IV_SHIFT_MAX as u64) {
                        r.idx = None;
                    } else {
                        let coef = x.params.iter().find(|p| p.0 == key).map_or(0, |p| p.1);
                        x.c = x.c.wrapping_sub(coef.wrapping_mul(step));
                        x.shifts += 1;
                    }
                }
            }
        }
        out.entry(r).or_insert(w);
    }
    out
}

fn named_bit(id: i32) -> u32 {
    if (0..31).contains(&id) {
        1 << id
    } else {
        1 << 31
    }
}

fn sync_name(op: &SyncOp) -> &'static str {
    match op {
        SyncOp::Barrier { fence: true, .. } => "barrier",
        SyncOp::Barrier { fence: false, .. } => "barrier exec",
        SyncOp::Signal { .. } => "barrier.signal",
        SyncOp::Wait { .. } => "barrier.wait",
        SyncOp::CondBarrier { .. } => "cond_barrier",
        _ => "sync",
    }
}
