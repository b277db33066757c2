//! Workgroup-memory access descriptors and the may-conflict test of semantics.md sections 2-3,
//! for the inserters (the verifier has its own model).
//!
//! Every effect on a `workgroup` buffer becomes an [`Access`] whose [`Desc`] says which bytes
//! of which alias class it may touch, whether it reads, writes or is atomic, and (with a word
//! index) which thread owns each address. Identical descriptors are interned, so dataflow
//! states can be sets of small integers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A fast non-cryptographic hasher (FxHash) for the interning and memo tables: none of them
/// is iterated, so the hash never shows in any output.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

use syncopt_ir::{
    AccessKind, AffineExpr, BufferId, EntityRef, Kernel, Loc, Placement, Selector, Space, StmtId,
    StmtKind, ValueId, ValueKind, Var, ViewKind,
};

/// How an access touches memory. Async writes are writes (they land at completion, but the
/// barrier that publishes them is placed as for a store).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Read,
    Write,
    Atomic,
}

impl Mode {
    fn writes(self) -> bool {
        !matches!(self, Mode::Read)
    }
}

/// Slot `index mod count` of `count` equal slots starting at byte `lo` of the root.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SlotInfo {
    pub lo: u64,
    pub size: u64,
    pub count: u32,
    pub index: AffineExpr,
    /// The bytes of the slot the access may touch, relative to the slot's start (the whole
    /// slot unless a byte range or thread-bounded words narrow it).
    pub inner: (u64, u64),
    /// The index is not known: a form out of the loop whose variable moved it
    /// (`Accesses::bind_loop_exits`). Any slot of the slotting, at the same bytes in it; no
    /// rule that compares indices reads `index` (then 0).
    pub any: bool,
}

/// Bytes of one alias class an access may touch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// Alias class (index of its representative buffer).
    pub root: u32,
    /// `None`: anywhere in the class.
    pub range: Option<(u64, u64)>,
    /// When the range is one loop-selected slot of `range`.
    pub slot: Option<SlotInfo>,
    /// Reached through loop-carried handle `index` of the loop `stmt` whose handles rotate
    /// (the yields permute them) over pairwise disjoint initial values: in one iteration,
    /// two different handles of that loop never denote the same memory.
    /// `(loop, handle index, index of the handle it takes next iteration from)`.
    pub handle: Option<(StmtId, usize, usize)>,
    /// The handle this region was reached through in a loop around `handle`'s (an inner
    /// loop's handle, or a result of a loop that runs once, that starts from an outer loop's
    /// handle or another such result): `(outer loop, handle index, its induction variable)`.
    /// In one iteration of the outer loop the rule of `handle` holds for it too
    /// (`outer_apart`); a form fixed to one value of that variable drops it (`remove_iv`).
    pub outer: Option<(StmtId, usize, ValueId)>,
    /// For a buffer that `aliases` another (no known offset in its class): the buffer and the
    /// bytes of it the access may touch (views and byte ranges only). Two accesses to
    /// disjoint bytes of the same such buffer never overlap, wherever the buffer lies.
    pub local: Option<(u32, u64, u64)>,
    /// `range` is the hull of a slot that was dropped (a handle or loop result that may be
    /// one of several slots): the bytes touched lie somewhere in it, starting anywhere.
    pub hull: bool,
    /// The slot was kept through a loop handle or result: an access must be shown to stay
    /// in it (else the slot is dropped, see `make_desc`).
    pub kept: bool,
    /// Reached through a handle of a loop whose initial values are told apart only by their
    /// slot indices: the handle test holds only while the access stays in its slot.
    pub apart: bool,
    /// A slot the bytes start in but run past (`inner` may end beyond `size`): `range` is
    /// its hull, and once the index is a constant (an induction variable fixed, see
    /// `fix_iv`) the bytes are known exactly (`slot_bytes`). No other slot rule uses it.
    pub over: Option<SlotInfo>,
    /// A result (`.1`) of loop `.0`, which runs an unknown number of trips inside another
    /// loop and rotates its handles over pairwise disjoint initial values: two different
    /// results of one run of it never denote the same memory. No rule of `desc_conflict`
    /// reads it (an access may meet one of another run); the barrier pass tells apart
    /// accesses made since that run's start (`Accesses::run_apart`, `Key::run`). Kernels of
    /// at most `TOP_SMALL_KERNEL` statements only (see `Resolver::regions`).
    pub run: Option<(StmtId, usize)>,
    /// `handle` is of a loop inside loop `.0`, bound in its iteration `.1` (a form that fixed
    /// `.0`'s variable, `handles_in_iteration`), where that loop's initial values are
    /// pairwise disjoint though they may overlap in other iterations: its handle rule holds
    /// only against a region bound in the same iteration, compared in one iteration of the
    /// handle's loop (one run of it: forms of two iterations of `.0` are two runs).
    pub within: Option<(StmtId, u64)>,
}

/// `r`, an initial value of an inner loop's handle about to take that handle: the outer
/// loop's handle it was reached through becomes `Region::outer`.
fn keep_outer(k: &Kernel, r: &mut Region) {
    if let Some((l, h, _)) = r.handle.filter(|h| h.1 != OVERLAP) {
        if let StmtKind::For(f) = &k.stmts[l].kind {
            r.outer = Some((l, h, f.iv));
        }
    }
}

/// Forgets the slot of `r`, whose range then only bounds the bytes touched.
fn drop_slot(r: &mut Region) {
    if r.slot.take().is_some() {
        r.hull = true;
    }
}

/// Per-thread ownership: thread `tid` touches the 4-byte word at `base + 4 * expr(tid)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Owner {
    pub base: u64,
    pub expr: AffineExpr,
}

/// An interned access descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Desc {
    pub mode: Mode,
    pub regions: Vec<Region>,
    pub owner: Option<Owner>,
    /// Values (induction variables) the slot index or word index depends on: once an access
    /// crosses a back edge or exit of one of their loops it is "carried" and compared
    /// conservatively.
    pub ivs: Vec<ValueId>,
    /// Step of each loop of `ivs`, in the same order.
    pub steps: Vec<i64>,
    /// Where the access comes from, when some region is reached through a rotating loop
    /// handle: the handle can then be bound to one iteration's value (see `Accesses::binds`).
    pub bind: Option<Box<BindSrc>>,
    /// The word index of an indexed access, whatever its regions (see `Lane`).
    pub lane: Option<Box<Lane>>,
    /// Iterations of exact loops (`exact_ivs`) the access can run in, when `if` conditions on
    /// the loop's induction variable rule some out: (variable, bit `k` for iteration `k`).
    /// The variable is then in `ivs` too, so the access is carried past the loop's back edge
    /// like one whose address depends on it (see `Accesses::bind_parity`).
    pub only: Vec<(ValueId, u64)>,
    /// For an access through a result of a uniform `if` on one induction variable: that
    /// result. No rule of `desc_conflict` reads it; it keeps the descriptor apart from those
    /// of other accesses to the same bytes, so that a pass may bind it to one branch's yield
    /// in the iterations that take that branch (the barrier pass's residue forms).
    pub via: Option<ValueId>,
    /// The loop (and its induction variable) of the rotating handles the regions go through,
    /// when they are all of one loop: an access through them has the innermost loop's
    /// distance (`dist_iv`) like one through a buffer, and `desc_conflict` knows whether the
    /// handle rule compares that loop's iterations or one iteration of a loop around it (exec
    /// seeds 314 at 200 ops, 444 at 100). Only `handle_loop` reads it; a form that rebinds
    /// the handles keeps it, and `handle_loop` checks it against the regions the form has.
    pub rot: Option<(StmtId, ValueId)>,
}

/// Per-thread words of an indexed access in each of its regions: in region `i`, thread `tid`
/// touches the 4-byte word at `bases[i] + 4 * expr(tid)` (`None`: a slot or an aliasing
/// buffer, no known start). Unlike `Owner` it also holds through rotating handles (one
/// region per value the handle may take). Only the cross-wave queries use it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lane {
    pub expr: AffineExpr,
    pub bases: Vec<Option<u64>>,
    /// The threads `[lo, hi)` that can run the access, when known and `expr` depends on
    /// `tid` alone.
    pub tids: Option<(i64, i64)>,
    /// In a slot region `i`: the start of the words relative to the slot's start (`None`
    /// elsewhere). Two equal slottings put two such accesses in one slot (the same start) or
    /// in two disjoint ones.
    pub slot_bases: Vec<Option<u64>>,
    /// The threads that can run the access, when the workgroup size is known (`tids` once
    /// `expr` depends on `tid` alone, which fixing an induction variable can make it).
    pub threads: Option<(i64, i64)>,
}

/// A selector in hashable form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sel {
    Whole,
    Bytes(u64, u64),
    Index(AffineExpr),
}

impl Sel {
    fn of(s: &Selector) -> Sel {
        match s {
            Selector::Whole => Sel::Whole,
            Selector::Bytes { lo, hi } => Sel::Bytes(*lo, *hi),
            Selector::Index(e) => Sel::Index(e.clone()),
        }
    }
    fn selector(&self) -> Selector {
        match self {
            Sel::Whole => Selector::Whole,
            Sel::Bytes(lo, hi) => Selector::Bytes { lo: *lo, hi: *hi },
            Sel::Index(e) => Selector::Index(e.clone()),
        }
    }
}

/// The memory value, selector and threads of an access through a rotating loop handle.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BindSrc {
    pub value: ValueId,
    pub sel: Sel,
    pub threads: Option<(i64, i64)>,
    /// Induction variables fixed in the descriptor since it was made (`fix_iv`, and
    /// `slot_form_where` in slot indices alone: `false`), in that order: the regions the
    /// handle resolves to in an iteration (`handles_in_iteration`) take them too (exec seed
    /// 112 at 200 ops: a handle started from a slot view of the outer variable, fixed to the
    /// even residue's slot inside a branch, resolved again to either slot).
    pub fixed: Vec<(ValueId, i64, bool)>,
}

impl BindSrc {
    /// `fixed` applied to `regions` (resolved from `value`): slot indices take each value.
    fn fix_regions(&self, regions: &mut [Region]) {
        for &(iv, x, _) in &self.fixed {
            for r in regions.iter_mut() {
                for s in [&mut r.slot, &mut r.over].into_iter().flatten() {
                    let mut e = s.index.clone();
                    if fix_var(&mut e, Var::Value(iv), x).is_some() {
                        s.index = e;
                    }
                }
                fix_local_slot(r);
            }
        }
    }

    /// The selector with the variables `fixed` in words too fixed.
    fn fixed_selector(&self) -> Selector {
        let mut sel = self.sel.selector();
        if let Selector::Index(e) = &mut sel {
            for &(iv, x, words) in &self.fixed {
                let mut f = e.clone();
                if words && fix_var(&mut f, Var::Value(iv), x).is_some() {
                    *e = f;
                }
            }
        }
        sel
    }

    fn note_fixed(&mut self, iv: ValueId, x: i64, words: bool) {
        self.fixed.retain(|f| f.0 != iv);
        self.fixed.push((iv, x, words));
    }
}

/// A descriptor with the handles of one rotating loop bound to the values they have in one
/// iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bind {
    /// The loop.
    pub lp: StmtId,
    /// The descriptor in the loop's first iteration (handles = initial values).
    pub first: u32,
    /// In its last iteration, when the trip count is known and not 0 (else `u32::MAX`).
    pub last: u32,
    /// Out of the loop, made in an unknown iteration of it (the trip count unknown to the
    /// verifier): the loop's handles take any value of their orbits, the handles of rotating
    /// loops around it that their initial values name stay those loops' handles (`u32::MAX`:
    /// no such handle, or `last` is known). See `Accesses::bind_exits`.
    pub exit: u32,
}

/// One static access: an effect of an op on workgroup memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub stmt: StmtId,
    pub loc: Option<Loc>,
    pub desc: u32,
    pub mode: Mode,
}

/// The access ids of each statement. A statement's accesses are collected together, so its
/// ids are one run of consecutive numbers: one table of every id and a span per statement
/// (a vector per statement was a million small allocations at 1M statements).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByStmt {
    ids: Vec<u32>,
    spans: Vec<(u32, u32)>,
}

impl ByStmt {
    fn new(n: usize, spans: Vec<(u32, u32)>) -> ByStmt {
        ByStmt {
            ids: (0..n as u32).collect(),
            spans,
        }
    }

    /// The access ids of statement index `s`; `None` past the statements collected.
    pub fn get(&self, s: usize) -> Option<&[u32]> {
        let &(lo, hi) = self.spans.get(s)?;
        Some(&self.ids[lo as usize..hi as usize])
    }
}

impl std::ops::Index<usize> for ByStmt {
    type Output = [u32];

    fn index(&self, s: usize) -> &[u32] {
        let (lo, hi) = self.spans[s];
        &self.ids[lo as usize..hi as usize]
    }
}

/// Every workgroup access of a kernel.
#[derive(Clone, Debug, Default)]
pub struct Accesses {
    pub descs: Vec<Desc>,
    pub accesses: Vec<Access>,
    /// Access ids of each statement (indexed by statement index; ops only).
    pub by_stmt: ByStmt,
    /// Per descriptor with rotating-loop handles: its bound forms, one per loop (indexed by
    /// descriptor; empty for the others and for the bound forms themselves).
    pub binds: Vec<Vec<Bind>>,
    /// Per descriptor (indexed by descriptor; empty for most): its forms in each iteration
    /// of the exact loops (`exact_ivs`) its address or conditions depend on (see
    /// `Accesses::bind_first_ivs`). `conflict` enumerates them.
    pub iv_forms: Vec<Vec<IvForms>>,
    /// Per descriptor (indexed by descriptor; empty for most): its forms in each iteration
    /// of an exact loop its address does not name, around an inner loop whose handle it goes
    /// through and which started from that loop's handle (`Region::outer`): they bind the
    /// inner loop's initial values. Only `outer_forms_conflict` reads them, as a second look.
    pub outer_iv_forms: Vec<Vec<IvForms>>,
    /// (descriptor, exact loop's variable) -> its form in that loop's last iteration, for a
    /// descriptor no variable's forms are made for (none in its address: an inner loop's
    /// exit form) that goes through an inner loop's handle started from that loop's
    /// (`Region::outer`). Only the barrier pass's `State::leave_outer_last` reads it, for a
    /// key it knows was made in that iteration: such a descriptor does not move with the
    /// loop's variable, so a key of it crossing the loop's back edge keeps its distance, and
    /// a pairing by iteration would meet an older one as if in the same (the rule that bound
    /// it in every comparison was unsound: exec seed 10935 at 100 ops).
    pub outer_last: BTreeMap<(u32, ValueId), u32>,
    /// Per descriptor (indexed by descriptor; empty for most): its forms in each residue of
    /// the iteration number of loops with a constant start whose trip count the verifier
    /// does not know, modulo a period after which the loop's handles and the slots its
    /// variable picks repeat (`Accesses::bind_periodic`). `forms[r]` holds in every
    /// iteration `t` with `t mod period == r`.
    pub periodic: Vec<Vec<IvForms>>,
    /// `exact_ivs` of the kernel, once `bind_parity` or `bind_first_ivs` needed it.
    exact: Option<BTreeMap<ValueId, (StmtId, i64, i64, u64)>>,
    /// `exact_loops` of the kernel, once made (a walk over every statement).
    rotating: std::sync::OnceLock<LoopInfo>,
    /// The ops `bind_parity` found in parity branches, (op, loop, residue), once it ran.
    parity_ops: Option<Vec<(StmtId, StmtId, u64)>>,
    /// (descriptor, loop, form) sorted: a descriptor whose address does not move with the
    /// loop's variable except in its words, and its form without the variable (and without
    /// words where they move), for what it leaves pending when the loop ends: made in some
    /// iteration of it, in the same iteration of the loops around. Two kinds: one that runs
    /// only in some iterations of an exact loop (`Desc::only`, see `bind_parity`), and one
    /// whose words move with a loop of unknown trips (`bind_loop_exits`).
    loop_exits: Vec<(u32, StmtId, u32)>,
    /// Every loop's induction variable is numbered after those of the loops around it (as
    /// the parser numbers them): the innermost loop of a descriptor's `ivs` is its last one
    /// (`dist_iv`).
    pub nested_ivs: bool,
    /// Per descriptor `bind_residue_slots` made: the (variable, `if`, branch) bindings that
    /// fixed its slots, in the order applied, so that forms made again from its `bind`
    /// source (`forms_in_residues`) fix them too.
    residue_binds: FxMap<u32, Vec<(ValueId, StmtId, bool)>>,
    /// Per exit form `bind_exits` made (it carries no `bind` source): the loop it leaves and
    /// the source it was resolved from with that loop opened, for its forms in the residues
    /// of the loops around (`forms_in_residues`); `None` where two sources made the same form.
    exit_srcs: FxMap<u32, Option<(StmtId, BindSrc)>>,
    /// Per descriptor `bind_parity` rebound with handles left (of loops inside the one it
    /// was bound in): that loop and residue (or iteration). The op runs there only, so the
    /// descriptor's forms in the iterations and residues of the other loops take that binding
    /// too (`bound_again`). Only these ids: an equal descriptor made elsewhere is not one.
    parity_of: FxMap<u32, (StmtId, u64)>,
}

/// Whether every loop's induction variable has a larger id than those of the loops around it.
fn ivs_in_nesting_order(k: &Kernel) -> bool {
    let mut stack: Vec<(syncopt_ir::BlockId, Option<ValueId>)> = vec![(k.body, None)];
    while let Some((b, outer)) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::For(f) => {
                    if outer.is_some_and(|o| f.iv <= o) {
                        return false;
                    }
                    stack.push((f.body, Some(f.iv)));
                }
                StmtKind::If(i) => {
                    stack.push((i.then_block, outer));
                    if let Some(e) = i.else_block {
                        stack.push((e, outer));
                    }
                }
                _ => {}
            }
        }
    }
    true
}

/// A descriptor in each iteration of one exact loop: `forms[k]` is it with the induction
/// variable fixed to its value in iteration `k` (`lo + k * step`), or `EMPTY_FORM` where a
/// condition keeps the access from running in that iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IvForms {
    pub iv: ValueId,
    pub forms: Vec<u32>,
}

/// `IvForms::forms` entry of an iteration the access does not run in.
pub const EMPTY_FORM: u32 = u32::MAX;

/// What `Accesses::forms_conflict_in` knows of `b`'s iteration of one exact loop: (its
/// variable, `r`, `q`): not the first, and `r` modulo `q` where `q > 0`.
type Later = Option<(ValueId, u8, u8)>;

/// The iteration of an exact loop `b` was put in by an earlier level of
/// `Accesses::forms_conflict_in` (its variable, the iteration's index), with the levels above.
/// A form of `b` in another loop may have forms of its own in this one (an inner trip's form
/// through an outer loop's handle has one per outer trip): only this iteration's is `b` there
/// (exec seed 13745 at 100 ops: the outer trip's write met the inner trip's write through the
/// outer handle in the outer trip that handle held the other buffer).
#[derive(Clone, Copy)]
struct Pinned<'p> {
    iv: ValueId,
    it: usize,
    up: Pin<'p>,
}

/// `Pinned` levels, innermost first; `None` at the top.
type Pin<'p> = Option<&'p Pinned<'p>>;

/// The iteration of `iv`'s loop a level of `pin` put `b` in.
fn pinned(mut pin: Pin, iv: ValueId) -> Option<usize> {
    while let Some(p) = pin {
        if p.iv == iv {
            return Some(p.it);
        }
        pin = p.up;
    }
    None
}

/// Whether iteration `j` of the loop of `iv` is one `later` rules out by its residue.
fn off_residue(later: Later, iv: ValueId, j: usize) -> bool {
    later.is_some_and(|(v, r, q)| v == iv && q > 0 && j % q as usize != r as usize)
}

/// Loops the verifier runs iteration by iteration, knowing the induction variable's value:
/// a constant lower bound and a known trip count of 1 to this.
const EXACT_TRIPS: u64 = 8;

/// `Accesses::conflict`'s `a_carried`: some iterations earlier of `dist_iv`'s loop, the same
/// iteration of the loops around it (a key that crossed that loop's back edge twice).
pub const CARRIED_IN_LOOP: u8 = 3;

/// Iteration sets (`Desc::only`) are bit masks of at most this many iterations.
const _: () = assert!(EXACT_TRIPS <= 64);

/// The induction variables of the loops the verifier runs exactly (`EXACT_TRIPS`), each with
/// its loop, lower bound, step and trip count.
fn exact_ivs(k: &Kernel) -> BTreeMap<ValueId, (StmtId, i64, i64, u64)> {
    let mut out = BTreeMap::new();
    for (s, d) in k.stmts.iter() {
        if let StmtKind::For(f) = &d.kind {
            if let (syncopt_ir::Bound::Const(lo), Some(n)) = (f.lo, f.trips().exact()) {
                if (1..=EXACT_TRIPS).contains(&n) {
                    out.insert(f.iv, (s, lo, f.step, n));
                }
            }
        }
    }
    out
}

impl Accesses {
    /// Collects the workgroup accesses of every op reachable from the kernel body.
    pub fn collect(k: &Kernel) -> Accesses {
        Self::collect_with_threads(k, None)
    }

    /// Like `collect`, knowing the workgroup has `threads` threads: a word index affine in
    /// `tid` alone then touches a known byte range.
    pub fn collect_with_threads(k: &Kernel, threads: Option<u64>) -> Accesses {
        Self::collect_parallel(k, threads, 1)
    }

    /// `collect_with_threads` on up to `workers` threads: the ops are cut into fixed chunks
    /// (the same for any number of workers), each described on its own, and the chunks'
    /// descriptors interned in chunk order, so ids come out in first-seen order as from one
    /// pass.
    pub fn collect_parallel(k: &Kernel, threads: Option<u64>, workers: usize) -> Accesses {
        Self::collect_chunked(k, threads, workers, 1 << 16)
    }

    /// `collect_parallel` with chunks of `chunk` ops (tests use small ones).
    #[doc(hidden)]
    pub fn collect_chunked(
        k: &Kernel,
        threads: Option<u64>,
        workers: usize,
        chunk: usize,
    ) -> Accesses {
        let mut out = Self::collect_unbound(k, threads, workers, chunk);
        out.bind_handles(k, workers);
        out
    }

    fn collect_unbound(k: &Kernel, threads: Option<u64>, workers: usize, chunk: usize) -> Accesses {
        let chunk = chunk.max(1);
        let exact = exact_loops(k);
        // Each op with the threads that can run it: `if divergent tid < C` narrows them.
        let mut ops = Vec::new();
        ops_with_tids(k, k.body, syncopt_ir::expr::ALL_TIDS, &mut ops);
        // An op no thread runs (`if divergent tid < 64` around an else branch of the same
        // test) accesses nothing.
        let limit = threads.map_or(i64::MAX, |t| i64::try_from(t).unwrap_or(i64::MAX));
        ops.retain(|&(_, (lo, hi))| lo < hi.min(limit));
        let parts: Vec<Part> = if workers <= 1 || ops.len() < 2 * chunk {
            vec![describe(k, threads, &ops, &exact)]
        } else {
            let chunks: Vec<&[(StmtId, syncopt_ir::expr::TidRange)]> = ops.chunks(chunk).collect();
            let done = on_threads(chunks.len(), workers, &|i| {
                describe(k, threads, chunks[i], &exact)
            });
            if done.iter().any(|d| d.is_none()) {
                // A chunk no thread took: one pass instead.
                vec![describe(k, threads, &ops, &exact)]
            } else {
                done.into_iter().flatten().collect()
            }
        };
        let mut out = Accesses {
            nested_ivs: ivs_in_nesting_order(k),
            ..Accesses::default()
        };
        let mut spans = vec![(0u32, 0u32); k.stmts.len()];
        let _ = out.rotating.set(exact.clone());
        if parts.len() == 1 {
            let Some(p) = parts.into_iter().next() else {
                return out;
            };
            out.descs = p.descs;
            out.accesses = p.accesses;
            for (s, lo, hi) in p.ops {
                spans[s.index()] = (lo, hi);
            }
            out.by_stmt = ByStmt::new(out.accesses.len(), spans);
            return out;
        }
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        for p in parts {
            let map: Vec<u32> = p
                .descs
                .into_iter()
                .map(|d| match intern.get(&d) {
                    Some(&id) => id,
                    None => {
                        let n = out.descs.len() as u32;
                        out.descs.push(d.clone());
                        intern.insert(d, n);
                        n
                    }
                })
                .collect();
            let base = out.accesses.len() as u32;
            out.accesses.extend(p.accesses.into_iter().map(|mut a| {
                a.desc = map[a.desc as usize];
                a
            }));
            for (s, lo, hi) in p.ops {
                spans[s.index()] = (base + lo, base + hi);
            }
        }
        out.by_stmt = ByStmt::new(out.accesses.len(), spans);
        out
    }

    /// Adds the bound forms of every descriptor reached through rotating loop handles: with
    /// the loop's handles fixed to their values in its first iteration (the initial values)
    /// and, when the trip count `T` is known, in its last one (rotation by `T - 1`). Bound
    /// forms are interned like the others (their own handles of other loops stay unbound).
    fn bind_handles(&mut self, k: &Kernel, workers: usize) {
        self.binds = vec![Vec::new(); self.descs.len()];
        if !self.descs.iter().any(|d| d.bind.is_some()) {
            return;
        }
        let exact = self.rotating.get_or_init(|| exact_loops(k)).clone();
        // A bound form through a handle of a loop around the bound one (`%h10` of an inner
        // loop started from `%h7`) is bound again in that loop, a few levels deep.
        let mut from = 0;
        for _ in 0..NESTED_BIND_LEVELS {
            let n = self.descs.len();
            self.bind_handles_from(k, workers, &exact, from);
            if !self.descs[n..].iter().any(|d| d.bind.is_some()) {
                break;
            }
            from = n;
        }
        self.bind_exits(k, &exact, workers);
    }

    /// `bind_handles` for the descriptors from `from` on.
    fn bind_handles_from(&mut self, k: &Kernel, workers: usize, exact: &LoopInfo, from: usize) {
        // Every (descriptor, loop, first/last iteration, iteration) to bind, in the order
        // their forms are interned.
        let mut tasks: Vec<(usize, StmtId, usize, u64)> = Vec::new();
        for (d, desc) in self.descs.iter().enumerate().skip(from) {
            if desc.bind.is_none() {
                continue;
            }
            let loops = handle_loops(desc, |_| true);
            for &lp in &loops {
                let last_iter = exact.get(&lp).and_then(|t| t.checked_sub(1));
                for (slot, it) in [(0usize, Some(0u64)), (1, last_iter)] {
                    if let Some(it) = it {
                        tasks.push((d, lp, slot, it));
                    }
                }
            }
            // The loop around an `OVERLAP` rotation whose handle its initial value came
            // through (`Region::outer`) binds it in its first trip too: there the inner
            // handle takes that handle's initial value among its own (exec seed 18468 at 100
            // ops: an inner handle started from the outer `%nxt`, which holds `%C` in the
            // first outer trip as the other inner handle does, met a write of `%B` before
            // the loop as if the outer handle could hold `%B` there). Not in its last trip:
            // such a descriptor names no variable of that loop, so a key's distance does not
            // tell it was made in the last trip (exec seed 4949 at 20 ops: a write of an
            // earlier outer trip, past an inner loop that ran no trip, left the loop as if in
            // the last one's form).
            let mut outer: Vec<StmtId> = desc
                .regions
                .iter()
                .filter(|r| r.handle.is_some())
                .filter_map(|r| r.outer.map(|o| o.0))
                .filter(|l| !loops.contains(l))
                .collect();
            outer.sort_unstable();
            outer.dedup();
            for lp in outer {
                tasks.push((d, lp, 0, 0));
            }
        }
        // One resolver per (loop, iteration): its memo holds values under that binding. The
        // resolvers are independent: each runs its own tasks in the order above (as in one
        // pass over them), the groups on several threads.
        let mut groups: BTreeMap<(StmtId, u64), Vec<usize>> = BTreeMap::new();
        for (i, t) in tasks.iter().enumerate() {
            groups.entry((t.1, t.3)).or_default().push(i);
        }
        let groups: Vec<((StmtId, u64), Vec<usize>)> = groups.into_iter().collect();
        let n_groups = groups.len();
        let groups_ref = &groups;
        let descs = &self.descs;
        let tasks_ref = &tasks;
        let exact_ref = exact;
        let run_group = move |g: usize| -> Vec<(usize, Option<Desc>)> {
            let ((lp, it), ids) = &groups_ref[g];
            let mut r = Resolver::new(k, exact_ref);
            r.fix = Some((*lp, *it));
            let mut out = Vec::with_capacity(ids.len());
            for &i in ids {
                let d = &descs[tasks_ref[i].0];
                let Some(src) = d.bind.as_deref() else {
                    out.push((i, None));
                    continue;
                };
                let Some(regions) = r.bound_regions(src.value) else {
                    out.push((i, None));
                    continue;
                };
                let desc = make_desc(k, d.mode, regions, &src.sel.selector(), src.threads);
                let mut desc = fit_ivs(k, desc, &d.ivs, *lp);
                // The last iteration's form has the loop's variable at its last value too:
                // it leaves the loop as those words, in the same iteration of the loops
                // around (exec seed 156 at 200 ops: a slot of the outer variable written
                // through an inner loop's handle).
                let mut last_fixed = None;
                if let (1, StmtKind::For(f)) = (tasks_ref[i].2, &k.stmts[*lp].kind) {
                    if let syncopt_ir::Bound::Const(lo) = f.lo {
                        let x = i64::try_from(*it)
                            .ok()
                            .and_then(|t| f.step.checked_mul(t))
                            .and_then(|t| t.checked_add(lo));
                        if let (Some(x), Some(nd)) = (x, desc.as_ref()) {
                            if nd.ivs.contains(&f.iv) {
                                if let Some(fixed) = fix_iv(nd, f.iv, x) {
                                    desc = Some(fixed);
                                    last_fixed = Some((f.iv, x));
                                }
                            }
                        }
                    }
                }
                // The handle itself, bound: the initial value it holds in that iteration is
                // the source of the form's own bindings (its handles of other loops).
                if let Some(nd) = desc
                    .as_mut()
                    .filter(|nd| nd.regions.iter().any(|g| g.handle.is_some()))
                {
                    // Bound again in a loop around, the form stays in this loop's last
                    // iteration, its variable fixed in the words too (exec seed 2070 at 100
                    // ops: the read of the last inner trip, bound in the outer loop's first
                    // trip, took the words of every inner trip and lost its lane).
                    if let Some(ns) = initial_src(k, &mut r, src, *lp, *it, last_fixed) {
                        nd.bind = Some(Box::new(ns));
                    }
                }
                out.push((i, desc));
            }
            out
        };
        let mut results: Vec<Option<Desc>> = (0..tasks.len()).map(|_| None).collect();
        let done = if workers > 1 && n_groups >= 64 {
            on_threads(n_groups, workers, &run_group)
        } else {
            (0..n_groups).map(|_| None).collect()
        };
        // Groups no thread took are run here.
        for (g, out) in done.into_iter().enumerate() {
            for (i, d) in out.unwrap_or_else(|| run_group(g)) {
                results[i] = d;
            }
        }
        // Interned in task order, as one pass would. Descriptors are looked up by hash
        // (colliding ids chained in `next`), without a copy of each.
        let hash = |d: &Desc| {
            let mut h = FxHasher::default();
            d.hash(&mut h);
            h.finish()
        };
        let mut first: FxMap<u64, u32> = FxMap::default();
        let mut next: Vec<u32> = Vec::with_capacity(self.descs.len() + tasks.len());
        for (i, d) in self.descs.iter().enumerate() {
            let prev = first.insert(hash(d), i as u32).unwrap_or(u32::MAX);
            next.push(prev);
        }
        let mut t = 0;
        while t < tasks.len() {
            let (d, lp) = (tasks[t].0, tasks[t].1);
            let mut ids = [u32::MAX; 2];
            while t < tasks.len() && tasks[t].0 == d && tasks[t].1 == lp {
                let slot = tasks[t].2;
                if let Some(desc) = results[t].take() {
                    let h = hash(&desc);
                    let mut e = first.get(&h).copied().unwrap_or(u32::MAX);
                    while e != u32::MAX && self.descs[e as usize] != desc {
                        e = next[e as usize];
                    }
                    ids[slot] = if e != u32::MAX {
                        e
                    } else {
                        let id = self.descs.len() as u32;
                        self.descs.push(desc);
                        self.binds.push(Vec::new());
                        next.push(first.insert(h, id).unwrap_or(u32::MAX));
                        id
                    };
                }
                t += 1;
            }
            if ids != [u32::MAX; 2] {
                self.binds[d].push(Bind {
                    lp,
                    first: if ids[0] == u32::MAX { d as u32 } else { ids[0] },
                    last: ids[1],
                    exit: u32::MAX,
                });
            }
        }
    }

    /// Exit forms (`Bind::exit`) for the accesses through the handles of a rotating loop whose
    /// last iteration is not known: made in some iteration of it, the access is at one of the
    /// handles' values. Where an initial value of the handle is a handle of a rotating loop
    /// around it (`for .. iter(%h6 = %A3, %h7 = %h1)` inside the loop of `%h1`): after the
    /// inner loop, a write through `%h7` is `%A3` or the outer loop's `%h1` of that iteration,
    /// which its `%h2` (and the result its last iteration yields `%h2` to) never is; where it
    /// is a slot of an outer variable, the form keeps that slot, and drops the loop's own
    /// variable where only the words move with it (`drop_own_iv`). The exit form carries no
    /// `bind` source (nothing binds it further but the outer loops' first and last
    /// iterations, made here), so no other binding resolves it with the inner handles back
    /// in. (Until session 16 only loops started from another loop's handles had them.)
    fn bind_exits(&mut self, k: &Kernel, exact: &LoopInfo, workers: usize) {
        // Every (descriptor, loop) to make an exit form for, grouped by loop: one group's
        // resolvers (one per fixed outer iteration) hold values under its loop opened.
        let mut nested: FxMap<StmtId, bool> = FxMap::default();
        let mut groups: BTreeMap<StmtId, Vec<u32>> = BTreeMap::new();
        for (d, desc) in self.descs.iter().enumerate() {
            if desc.bind.is_none() {
                continue;
            }
            // Loops of known trips too: their last trip has its own form (`Bind::last`),
            // the exit form is for a key made some trips before it (plain gen seed 3163 on
            // gfx1250 at 100 ops: a read through an inner handle started from an outer one
            // left its loop unbound and met the next outer trip's copy at any distance).
            // Not where the address moves with the loop's variable: the exit form drops it,
            // the iteration distance tells more (exec seed 176 at 200 ops: the words of one
            // thread's earlier trip).
            let inner = |lp: StmtId| {
                let moves = || match &k.stmts[lp].kind {
                    StmtKind::For(f) => address_uses_iv(desc, f.iv),
                    _ => true,
                };
                (!exact.contains_key(&lp) || !moves())
                    && (!exact.top.contains(&lp)
                        || *nested
                            .entry(lp)
                            .or_insert_with(|| starts_from_loop(k, exact, lp)))
            };
            for lp in handle_loops(desc, inner) {
                groups.entry(lp).or_default().push(d as u32);
            }
        }
        let groups: Vec<(StmtId, Vec<u32>)> = groups.into_iter().collect();
        // Per descriptor of a group: its exit form and the outer loops' first and last
        // iteration forms of it.
        type Made = Vec<(
            u32,
            Desc,
            Vec<(StmtId, Option<Desc>, Option<Desc>)>,
            BindSrc,
        )>;
        let descs = &self.descs;
        let run_group = |g: usize| -> Made {
            let (lp, ids) = &groups[g];
            let lp = *lp;
            let mut resolvers: BTreeMap<Option<(StmtId, u64)>, Resolver> = BTreeMap::new();
            let mut out = Vec::new();
            for &d in ids {
                let desc = &descs[d as usize];
                let Some(src) = desc.bind.as_deref() else {
                    continue;
                };
                let mut form = |fix: Option<(StmtId, u64)>| -> Option<Desc> {
                    let r = resolvers.entry(fix).or_insert_with(|| {
                        let mut r = Resolver::new(k, exact);
                        r.open = Some(lp);
                        r.fix = fix;
                        r
                    });
                    let regions = r.bound_regions(src.value)?;
                    let nd = make_desc(k, desc.mode, regions, &src.sel.selector(), src.threads);
                    fit_ivs(k, nd, &desc.ivs, lp).map(|nd| drop_own_iv(k, nd, lp))
                };
                let Some(exit) = form(None) else {
                    continue;
                };
                let outer = handle_loops(&exit, |l| l != lp);
                if through_loop(&exit, lp) {
                    continue;
                }
                // The outer loops' first and last iterations, as `bind_handles` makes them.
                let binds = outer
                    .into_iter()
                    .map(|l| {
                        let first = form(Some((l, 0)));
                        let last = exact
                            .get(&l)
                            .and_then(|t| t.checked_sub(1))
                            .and_then(|it| form(Some((l, it))));
                        (l, first, last)
                    })
                    .collect();
                out.push((d, exit, binds, src.clone()));
            }
            out
        };
        let made: Vec<Option<Made>> = if workers > 1 && groups.len() >= 64 {
            on_threads(groups.len(), workers, &run_group)
        } else {
            (0..groups.len()).map(|_| None).collect()
        };
        let made: Vec<Made> = made
            .into_iter()
            .enumerate()
            .map(|(g, m)| m.unwrap_or_else(|| run_group(g)))
            .collect();
        // Interned in group order, as one pass would.
        let mut index: Option<DescIndex> = None;
        for (g, m) in made.into_iter().enumerate() {
            let lp = groups[g].0;
            for (d, exit, binds, src) in m {
                let ix = index.get_or_insert_with(|| DescIndex::new(&self.descs));
                let id = ix.intern(&mut self.descs, &mut self.binds, exit);
                if self.descs[id as usize].bind.is_none() {
                    let e = self.exit_srcs.entry(id).or_insert(Some((lp, src.clone())));
                    if e.as_ref().is_some_and(|x| *x != (lp, src)) {
                        *e = None;
                    }
                }
                for (l, first, last) in binds {
                    let mut put = |f: Desc| ix.intern(&mut self.descs, &mut self.binds, f);
                    let first = first.map_or(id, &mut put);
                    let last = last.map_or(u32::MAX, &mut put);
                    if !self.binds[id as usize].iter().any(|b| b.lp == l) {
                        self.binds[id as usize].push(Bind {
                            lp: l,
                            first,
                            last,
                            exit: u32::MAX,
                        });
                    }
                }
                set_exit(&mut self.binds[d as usize], lp, d, id);
            }
        }
        self.bind_top_exits(k, exact, &mut index);
        self.bind_run_lasts(k, exact, &mut index);
    }

    /// Last-trip forms (`Bind::last`) for the accesses through the handles of a loop of
    /// unknown trips inside another whose results are told apart within one run
    /// (`Region::run`, small kernels only): made in the last trip, handle `i` is the result
    /// `j` that trip yields it to, marked as that run's (plain gen seed 3049 on gfx1250: a
    /// write in the last trip and one to the other result after the loop). Only the last
    /// trip's: an access some trips before holds another value (`Bind::exit` covers those).
    fn bind_run_lasts(&mut self, k: &Kernel, exact: &LoopInfo, index: &mut Option<DescIndex>) {
        if k.stmts.len() > TOP_SMALL_KERNEL {
            return;
        }
        let runs = |l: StmtId| {
            !exact.contains_key(&l) && !exact.top.contains(&l) && !exact.outermost.contains(&l)
        };
        let forms = YieldedForms {
            loops: &runs,
            bound_only: true,
            has: &|b: &Bind| b.last != u32::MAX,
            retag: |g: &mut Region, lp, _, j| {
                if g.outer.is_some() {
                    return false;
                }
                g.handle = None;
                g.run = Some((lp, j));
                true
            },
            set: |b: &mut Vec<Bind>, lp, d, id| match b.iter_mut().find(|x| x.lp == lp) {
                Some(x) => x.last = id,
                None => b.push(Bind {
                    lp,
                    first: d,
                    last: id,
                    exit: u32::MAX,
                }),
            },
        };
        self.bind_yielded(k, exact, &forms, index);
    }

    /// Exit forms (`Bind::exit`) for the accesses through the handles of a loop of unknown
    /// trips whose results are told apart (`LoopInfo::top`: the results are the handles of
    /// the iteration after the last, see `Resolver::regions`): made in the last iteration,
    /// handle `i` is the handle `j` of that next iteration that takes its value from `i`.
    /// Where the access names the loop's variable only through the handles, the form drops
    /// the variable: it meets what comes after the loop in the same (next) iteration.
    fn bind_top_exits(&mut self, k: &Kernel, exact: &LoopInfo, index: &mut Option<DescIndex>) {
        if exact.top.is_empty() {
            return;
        }
        let forms = YieldedForms {
            loops: &|l| exact.top.contains(&l),
            bound_only: false,
            has: &|b: &Bind| b.exit != u32::MAX,
            retag: |g: &mut Region, lp, i, j| {
                g.handle = Some((lp, j, i));
                true
            },
            set: set_exit,
        };
        self.bind_yielded(k, exact, &forms, index);
    }

    /// The forms `f` describes, for every descriptor through the handles of a loop `f.loops`
    /// takes whose rotation tells its values apart: each region through handle `i` of that
    /// loop retagged for the result `j` its last trip yields it to, the loop's variable
    /// dropped; not where the address moves with that variable.
    fn bind_yielded(
        &mut self,
        k: &Kernel,
        exact: &LoopInfo,
        f: &YieldedForms,
        index: &mut Option<DescIndex>,
    ) {
        let mut r = Resolver::new(k, exact);
        let mut inverse: BTreeMap<StmtId, Option<Vec<usize>>> = BTreeMap::new();
        for d in 0..self.descs.len() {
            if f.bound_only && self.descs[d].bind.is_none() {
                continue;
            }
            for lp in handle_loops(&self.descs[d], f.loops) {
                let StmtKind::For(fd) = &k.stmts[lp].kind else {
                    continue;
                };
                let inv = inverse.entry(lp).or_insert_with(|| {
                    let rot = r.rotation(lp, fd).filter(|x| !x.apart && !x.overlap)?;
                    let mut inv = vec![usize::MAX; rot.sigma.len()];
                    for (j, &i) in rot.sigma.iter().enumerate() {
                        inv[i] = j;
                    }
                    Some(inv)
                });
                let Some(inv) = inv.as_ref() else {
                    continue;
                };
                let desc = &self.descs[d];
                if uses_iv(desc, fd.iv) || self.binds[d].iter().any(|b| b.lp == lp && (f.has)(b)) {
                    continue;
                }
                let mut nd = desc.clone();
                let mut ok = true;
                for g in &mut nd.regions {
                    if let Some((l, i, _)) = g.handle {
                        if l == lp {
                            match inv.get(i) {
                                Some(&j) if j != usize::MAX => ok &= (f.retag)(g, lp, i, j),
                                _ => ok = false,
                            }
                        }
                    }
                }
                if !ok {
                    continue;
                }
                remove_iv(&mut nd, fd.iv);
                note_slot_ivs(k, &mut nd);
                nd.bind = None;
                let ix = index.get_or_insert_with(|| DescIndex::new(&self.descs));
                let id = ix.intern(&mut self.descs, &mut self.binds, nd);
                (f.set)(&mut self.binds[d], lp, d as u32, id);
            }
        }
    }

    /// `desc`'s id in `map`, or a new one at the end of the table (with no bindings).
    fn intern_in(&mut self, map: &mut FxMap<Desc, u32>, desc: Desc) -> u32 {
        if let Some(&id) = map.get(&desc) {
            return id;
        }
        let id = self.descs.len() as u32;
        map.insert(desc.clone(), id);
        self.descs.push(desc);
        self.binds.push(Vec::new());
        id
    }

    /// A form of a rebound descriptor (no access has it, nothing maps it back).
    fn intern_form(&mut self, map: &mut FxMap<Desc, u32>, nd: Desc) -> u32 {
        if let Some(&id) = map.get(&nd) {
            return id;
        }
        let id = self.descs.len() as u32;
        self.descs.push(nd.clone());
        self.binds.push(Vec::new());
        map.insert(nd, id);
        id
    }

    /// The handle forms of `d` (first, last, exit iterations of its loops with handles), each
    /// taken through `f` where it applies (interned in `forms`), for a descriptor made from
    /// `d` the same way.
    fn map_binds(
        &mut self,
        d: u32,
        forms: &mut FxMap<Desc, u32>,
        f: impl Fn(&Desc) -> Option<Desc>,
    ) -> Vec<Bind> {
        let mut b = self.binds[d as usize].clone();
        for x in &mut b {
            for g in [&mut x.first, &mut x.last, &mut x.exit] {
                if *g == u32::MAX {
                    continue;
                }
                if let Some(nf) = self.descs.get(*g as usize).and_then(&f) {
                    *g = self.intern_form(forms, nf);
                }
            }
        }
        b
    }

    /// A new descriptor `nd` standing for `old` (one per pair: never shared with an access
    /// that is not rebound), recorded in `orig` as (new, old).
    fn intern_rebound(
        &mut self,
        map: &mut FxMap<(Desc, u32), u32>,
        nd: Desc,
        old: u32,
        orig: &mut Vec<(u32, u32)>,
    ) -> u32 {
        let key = (nd, old);
        if let Some(&id) = map.get(&key) {
            return id;
        }
        let id = self.descs.len() as u32;
        self.descs.push(key.0.clone());
        self.binds.push(Vec::new());
        orig.push((id, old));
        map.insert(key, id);
        id
    }

    /// The ops that run only in iterations of one residue of a loop with rotating handles
    /// (inside `if uniform (%i + c) mod m == r`, as `bind_parity` finds them): (op, loop,
    /// residue of the iteration number modulo the handles' period, that period). What such an
    /// op leaves pending meets the loop's next iteration with its handles one step further
    /// (`residue_forms`). Used by the barrier pass and async-waits' warning check.
    pub fn residue_ops(&self, k: &Kernel) -> Vec<(StmtId, StmtId, u64, u64)> {
        let fixes = match &self.parity_ops {
            Some(f) => f.clone(),
            None => {
                let mut f = Vec::new();
                parity_fixes(k, k.body, &mut Vec::new(), &mut f);
                f
            }
        };
        residues_of(k, fixes)
    }

    /// The ops that run only in iterations of one residue of a loop without rotating handles
    /// and with a constant start (inside `if uniform (%i + c) mod m == r` on its variable):
    /// (op, loop, residue of the iteration number modulo the variable's period in
    /// `periods`, that period), the innermost such `if` deciding. Their descriptors have that
    /// residue's forms in `plain_residue_forms`. Used by async-waits' warning check, whose
    /// copies in such branches the barrier pass keys by residue too.
    pub fn plain_residue_ops(
        k: &Kernel,
        periods: &BTreeMap<ValueId, u64>,
    ) -> Vec<(StmtId, StmtId, u64, u64)> {
        let fix = |c: &syncopt_ir::Cond, v: bool| {
            let (lp, r, _) = iv_residue(k, c, v, periods)?;
            let StmtKind::For(f) = &k.stmts[lp].kind else {
                return None;
            };
            if permutation(k, lp, f).is_some_and(|(o, _)| rotation_period(&o).is_some()) {
                return None;
            }
            r.map(|r| (lp, r))
        };
        let mut fixes = Vec::new();
        branch_fixes(k, k.body, &mut Vec::new(), &fix, &mut fixes);
        fixes
            .into_iter()
            .filter_map(|(op, lp, r)| match &k.stmts[lp].kind {
                StmtKind::For(f) => Some((op, lp, r, *periods.get(&f.iv)?)),
                _ => None,
            })
            .collect()
    }

    /// For each descriptor through the rotating handles of one of `loops` (loop, period):
    /// its form in each residue of the iteration number, the handles bound to that residue's
    /// values (as `bind_parity` binds them), keyed by (descriptor, loop index, residue). Used
    /// by the barrier pass for the accesses an op of `residue_ops` meets in the next
    /// iteration. Sorted by key.
    pub fn residue_forms(
        &mut self,
        k: &Kernel,
        loops: &[(StmtId, u64)],
    ) -> Vec<((u32, u32, u32), u32)> {
        self.forms_in_residues(k, loops, false)
    }

    /// For the loops of `loops` (loop, period) inside no loop whose results are told apart
    /// (`LoopInfo::top`): each descriptor through their results (or through handles of other
    /// loops started from them), with the results taken after a trip count congruent to `t`
    /// modulo the period, for each `t` where that differs. Keyed (descriptor, loop index, `t`)
    /// and sorted. Used by the barrier pass for what an access made in a known residue of
    /// such a loop's last trip meets after it (the verifier keeps one context per residue of
    /// the trip count of such a loop).
    pub fn top_exit_forms(
        &mut self,
        k: &Kernel,
        loops: &[(StmtId, u64)],
    ) -> Vec<((u32, u32, u32), u32)> {
        let exact = self.rotating.get_or_init(|| exact_loops(k)).clone();
        let loops: Vec<(StmtId, u64)> = loops
            .iter()
            .copied()
            .filter(|&(lp, q)| {
                // The handles' values after `T` trips repeat with their period: `T` modulo
                // `q` tells them when the period divides `q`.
                let period = match &k.stmts[lp].kind {
                    StmtKind::For(f) => {
                        permutation(k, lp, f).and_then(|(o, _)| rotation_period(&o))
                    }
                    _ => None,
                };
                exact.top.contains(&lp)
                    && (1..=64).contains(&q)
                    && period.is_some_and(|p| q % p == 0)
            })
            .collect();
        let mut out: Vec<((u32, u32, u32), u32)> = Vec::new();
        if loops.is_empty() {
            return out;
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        let n0 = self.descs.len();
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        let mut resolvers: BTreeMap<(StmtId, u64), Resolver> = BTreeMap::new();
        for d in 0..n0 {
            if !self.descs[d].regions.iter().any(|r| r.handle.is_some()) {
                continue;
            }
            let Some(src) = self.descs[d].bind.as_deref().cloned() else {
                continue;
            };
            let (mode, ivs) = (self.descs[d].mode, self.descs[d].ivs.clone());
            for &(lp, q) in &loops {
                for t in 0..q {
                    let r = resolvers.entry((lp, t)).or_insert_with(|| {
                        let mut r = Resolver::new(k, &exact);
                        r.fix_exit = Some((lp, t));
                        r
                    });
                    let regions = r.regions(src.value);
                    if regions.is_empty() {
                        continue;
                    }
                    let mut nd = make_desc(k, mode, regions, &src.sel.selector(), src.threads);
                    // The loop's own variable goes with its handles' marks.
                    if nd.ivs.iter().any(|v| !ivs.contains(v)) {
                        continue;
                    }
                    if nd.regions.iter().any(|g| g.handle.is_some()) {
                        nd.bind = Some(Box::new(src.clone()));
                    }
                    if nd == self.descs[d] {
                        continue;
                    }
                    let id = self.intern_in(&mut intern, nd);
                    out.push(((d as u32, lp.index() as u32, t as u32), id));
                }
            }
        }
        self.bind_exact_ivs_from(k, n0);
        out.sort_unstable();
        out
    }

    /// `nd`, a form of descriptor `d` made again from its `bind` source, with the slots
    /// `bind_residue_slots` fixed in `d` fixed the same way (exec seed 239 at 200 ops: an
    /// inner loop's handle started from a slot of the outer variable, read in one residue of
    /// the outer loop, took the other residue's slot too once bound to the inner residue).
    fn with_residue_binds(&self, k: &Kernel, d: u32, mut nd: Desc) -> Desc {
        let Some(chain) = self.residue_binds.get(&d) else {
            return nd;
        };
        for &(iv, st, v) in chain {
            let (StmtKind::If(i), ValueKind::Iv(lp)) = (&k.stmts[st].kind, &k.values[iv].kind)
            else {
                continue;
            };
            let StmtKind::For(f) = &k.stmts[*lp].kind else {
                continue;
            };
            let syncopt_ir::Bound::Const(lo) = f.lo else {
                continue;
            };
            if let Some(x) = residue_slot_form(&nd, iv, &i.cond, v, lo, f.step) {
                nd = x;
            }
        }
        nd
    }

    /// `residue_forms` for loops `loops` that are not the innermost loop with handles around
    /// the branch: the descriptors through handles of a loop inside one of them (or of the
    /// loop itself), with that loop's handles bound to each residue's values (an inner loop
    /// started from them follows); only forms that differ. Keyed and sorted as
    /// `residue_forms`. Used by the barrier pass for the accesses made in the current
    /// iteration of an inner loop with handles when a branch on the outer loop's variable is
    /// entered.
    pub fn nested_residue_forms(
        &mut self,
        k: &Kernel,
        loops: &[(StmtId, u64)],
    ) -> Vec<((u32, u32, u32), u32)> {
        self.forms_in_residues(k, loops, true)
    }

    /// For loops without handles `loops` (loop, period of the iteration number, constant
    /// lower bound): each descriptor whose slot indices alone name the loop's variable, in
    /// each residue of the iteration number modulo the period where every such iteration
    /// picks the same slots, with the variable fixed to one of them (as `bind_residue_slots`
    /// fixes it inside a branch). Keyed and sorted as `residue_forms`. Used by the barrier
    /// pass for what an iteration whose residue the path tells makes and meets (the verifier
    /// tracks the variable's residue).
    pub fn plain_residue_forms(
        &mut self,
        k: &Kernel,
        loops: &[(StmtId, u64)],
    ) -> Vec<((u32, u32, u32), u32)> {
        let mut out: Vec<((u32, u32, u32), u32)> = Vec::new();
        let mut by_iv: BTreeMap<ValueId, (StmtId, u64, i64, i64)> = BTreeMap::new();
        for &(lp, q) in loops {
            let StmtKind::For(f) = &k.stmts[lp].kind else {
                continue;
            };
            if let (syncopt_ir::Bound::Const(lo), 2..=64) = (f.lo, q) {
                by_iv.insert(f.iv, (lp, q, lo, f.step));
            }
        }
        if by_iv.is_empty() {
            return out;
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        let n0 = self.descs.len();
        for d in 0..n0 {
            if self.descs[d].ivs.is_empty() {
                continue;
            }
            for i in 0..self.descs[d].ivs.len() {
                let iv = self.descs[d].ivs[i];
                let Some(&(lp, q, lo, step)) = by_iv.get(&iv) else {
                    continue;
                };
                for r in 0..q {
                    let r64 = r as i64;
                    let q64 = q as i64;
                    let Some(nd) =
                        slot_form_where(&self.descs[d], iv, (q, lo, step), false, |t, _| {
                            t.rem_euclid(q64) == r64
                        })
                    else {
                        break;
                    };
                    let id = self.intern_form(&mut intern, nd);
                    out.push(((d as u32, lp.index() as u32, r as u32), id));
                }
            }
        }
        self.finish_forms(k, n0, out, loops)
    }

    /// `residue_forms` (`nested`: `nested_residue_forms`).
    fn forms_in_residues(
        &mut self,
        k: &Kernel,
        loops: &[(StmtId, u64)],
        nested: bool,
    ) -> Vec<((u32, u32, u32), u32)> {
        let mut out: Vec<((u32, u32, u32), u32)> = Vec::new();
        if loops.is_empty() {
            return out;
        }
        let exact = self.rotating.get_or_init(|| exact_loops(k)).clone();
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        // The innermost loop around each statement (`nested` only).
        let mut around = vec![u32::MAX; if nested { k.stmts.len() } else { 0 }];
        if nested {
            let mut stack = vec![(k.body, u32::MAX)];
            while let Some((b, lp)) = stack.pop() {
                for &s in &k.blocks[b].stmts {
                    around[s.index()] = lp;
                    match &k.stmts[s].kind {
                        StmtKind::For(f) => stack.push((f.body, s.index() as u32)),
                        kind => stack.extend(kind.child_block_ids().map(|c| (c, lp))),
                    }
                }
            }
        }
        let inside = |mut h: u32, lp: u32| {
            while h != u32::MAX {
                if h == lp {
                    return true;
                }
                h = around[h as usize];
            }
            false
        };
        let n0 = self.descs.len();
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        let mut resolvers: BTreeMap<(StmtId, u64), Resolver> = BTreeMap::new();
        let mut open_resolvers: BTreeMap<(StmtId, u64, StmtId), Resolver> = BTreeMap::new();
        let mut loops = loops.to_vec();
        loops.sort_unstable();
        for d in 0..n0 {
            // An exit form: resolved again from its source with the loop it leaves opened.
            let (src, open) = match (&self.descs[d].bind, self.exit_srcs.get(&(d as u32))) {
                (Some(src), _) => (src.as_ref().clone(), None),
                (None, Some(Some((elp, src)))) => (src.clone(), Some(*elp)),
                _ => continue,
            };
            // Through an inner loop's handle started from an outer loop's (`Region::outer`):
            // that outer loop's residue binds it too.
            let handles: Vec<StmtId> = self.descs[d]
                .regions
                .iter()
                .flat_map(|r| {
                    r.handle
                        .map(|h| h.0)
                        .into_iter()
                        .chain(r.outer.map(|o| o.0))
                })
                .collect();
            // The loops of `loops` the descriptor's handles belong to (or lie inside).
            let mine: Vec<(StmtId, u64)> = loops
                .iter()
                .copied()
                .filter(|&(lp, _)| {
                    handles.iter().any(|&h| {
                        if nested {
                            inside(h.index() as u32, lp.index() as u32)
                        } else {
                            h == lp
                        }
                    })
                })
                .collect();
            let (mode, ivs) = (self.descs[d].mode, self.descs[d].ivs.clone());
            let parity = self.parity_of.get(&(d as u32)).copied();
            for (lp, q) in mine {
                for res in 0..q {
                    let nd = match open {
                        None => bound_in(k, &exact, &mut resolvers, (mode, &ivs), &src, lp, res),
                        Some(elp) => open_bound_in(
                            k,
                            &exact,
                            &mut open_resolvers,
                            (mode, &ivs),
                            &src,
                            (lp, res),
                            elp,
                        ),
                    };
                    let Some(nd) = nd else {
                        continue;
                    };
                    let nd = bound_again(k, &exact, &mut resolvers, nd, lp, parity);
                    let nd = self.with_residue_binds(k, d as u32, nd);
                    if nested && nd == self.descs[d] {
                        continue;
                    }
                    let id = self.intern_in(&mut intern, nd);
                    out.push(((d as u32, lp.index() as u32, res as u32), id));
                }
            }
        }
        self.finish_forms(k, n0, out, &loops)
    }

    /// The descriptors made from `n0` on get their forms in each iteration of the exact
    /// loops their variables name (exec seed 190: a word on the variable of a two-trip loop,
    /// in its even residue); `out` comes back sorted.
    fn finish_forms(
        &mut self,
        k: &Kernel,
        n0: usize,
        mut out: Vec<((u32, u32, u32), u32)>,
        loops: &[(StmtId, u64)],
    ) -> Vec<((u32, u32, u32), u32)> {
        self.bind_exact_ivs_from(k, n0);
        if self.iv_forms.len() < self.descs.len() {
            self.iv_forms.resize(self.descs.len(), Vec::new());
        }
        // A residue's form holds in that residue's iterations only: its forms in the others
        // are none (executable seed 94 at 200 ops: the even form's second iteration met a
        // write the odd one never makes). Every form from `n0` on is this call's own.
        let mut allowed: BTreeMap<(u32, u32), u64> = BTreeMap::new();
        for &((_, lp, r), id) in &out {
            if id as usize >= n0 && r < 64 {
                *allowed.entry((id, lp)).or_default() |= 1 << r;
            }
        }
        for ((id, lp), mask) in allowed {
            let lp = StmtId::new(lp as usize);
            let (Some(&(_, q)), StmtKind::For(f)) =
                (loops.iter().find(|x| x.0 == lp), &k.stmts[lp].kind)
            else {
                continue;
            };
            if q == 0 {
                continue;
            }
            for g in self.iv_forms[id as usize]
                .iter_mut()
                .filter(|g| g.iv == f.iv)
            {
                for (i, x) in g.forms.iter_mut().enumerate() {
                    if mask & (1 << (i as u64 % q)) == 0 {
                        *x = EMPTY_FORM;
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Accesses through the results of a uniform `if` (a view of one, or one itself): per
    /// access, the `if` and its descriptor with the results taken from the then branch and
    /// from the else branch alone, as (access, `if`, [then form, else form]), sorted. An
    /// access made after a path took one branch sees that branch's yields there (the path
    /// crossed the `if` after the pending access, so it is the latest run of the `if`).
    ///
    /// Second, the accesses through a handle of a loop whose initial value is (a view of) a
    /// result of a uniform `if`: per access, the loop, the `if`, and its descriptor in the
    /// loop's first iteration with the `if`'s results taken from the then branch and from the
    /// else branch alone, as (access, loop, `if`, [then form, else form]), sorted. A path that
    /// crossed the `if` and then entered the loop sees that branch's value in the handle's
    /// first iteration (`iter(%h = %x)` after `%x = if ..`).
    ///
    /// Used by the barrier pass only. `threads`: the workgroup's, as the accesses were
    /// collected.
    pub fn branch_forms(
        &mut self,
        k: &Kernel,
        threads: Option<u64>,
    ) -> (BranchForms, FirstBranchForms) {
        let all = self.if_forms(k, threads);
        let mut plain = Vec::new();
        let mut first = Vec::new();
        for (a, lp, st, f) in all {
            match lp {
                None => plain.push((a, st, f)),
                Some(l) => first.push((a, l, st, f)),
            }
        }
        (plain, first)
    }

    /// Both lists of `branch_forms` in one walk, sorted: the loop of the handle is `None` in
    /// the first.
    fn if_forms(
        &mut self,
        k: &Kernel,
        threads: Option<u64>,
    ) -> Vec<(u32, Option<StmtId>, StmtId, [u32; 2])> {
        let mut out = Vec::new();
        // The `if` whose result the memory value is, through views.
        let if_of = |mut v: ValueId| -> Option<StmtId> {
            loop {
                match k.values[v].kind {
                    ValueKind::View(view) => v = k.views[view].base,
                    ValueKind::Result { stmt, .. } => {
                        return match &k.stmts[stmt].kind {
                            StmtKind::If(i) if i.uniformity == syncopt_ir::Uniformity::Uniform => {
                                Some(stmt)
                            }
                            // A loop that may run no trip: side 0, its initial values.
                            StmtKind::For(f) if f.trips().min == 0 => Some(stmt),
                            _ => None,
                        };
                    }
                    _ => return None,
                }
            }
        };
        // The loop whose handle the value is (through views), and the `if` its initial value
        // is a result of.
        let first = |mut v: ValueId| -> Option<(Option<StmtId>, StmtId)> {
            loop {
                match k.values[v].kind {
                    ValueKind::View(view) => v = k.views[view].base,
                    ValueKind::IterArg { stmt, index } => {
                        let StmtKind::For(f) = &k.stmts[stmt].kind else {
                            return None;
                        };
                        return Some((Some(stmt), if_of(f.iter_args.get(index)?.1)?));
                    }
                    _ => return None,
                }
            }
        };
        let sources = |v: ValueId| [if_of(v).map(|st| (None, st)), first(v)];
        let relevant = |s: StmtId| match &k.stmts[s].kind {
            StmtKind::Op(op) => op
                .effects
                .iter()
                .any(|e| sources(e.mem.value).iter().any(Option::is_some)),
            _ => false,
        };
        if !k.stmts.iter().any(|(s, _)| relevant(s)) {
            return out;
        }
        let exact = self.rotating.get_or_init(|| exact_loops(k)).clone();
        let mut ops = Vec::new();
        ops_with_tids(k, k.body, syncopt_ir::expr::ALL_TIDS, &mut ops);
        let mut plain = Resolver::new(k, &exact);
        let mut resolvers: BTreeMap<(StmtId, usize, Option<StmtId>), Resolver> = BTreeMap::new();
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        // Most such effects repeat one seen before (as in `describe`); one table per list.
        let mut seen: [FormsSeen; 2] = Default::default();
        for (s, tids) in ops {
            if !relevant(s) {
                continue;
            }
            let StmtKind::Op(op) = &k.stmts[s].kind else {
                continue;
            };
            let ids: Vec<u32> = match self.by_stmt.get(s.index()) {
                Some(v) if !v.is_empty() => v.to_vec(),
                _ => continue,
            };
            // The op's accesses are its effects with workgroup regions, in order.
            let made: Vec<usize> = (0..op.effects.len())
                .filter(|&i| !plain.regions(op.effects[i].mem.value).is_empty())
                .collect();
            if made.len() != ids.len() {
                continue;
            }
            let th = threads.map(|t| (tids.0.max(0), tids.1.min(t as i64)));
            for ((&i, &a), which) in made.iter().zip(&ids).flat_map(|x| [(x, 0usize), (x, 1)]) {
                let e = &op.effects[i];
                let Some((lp, st)) = sources(e.mem.value)[which] else {
                    continue;
                };
                let seen = &mut seen[which];
                let mode = self.accesses[a as usize].mode;
                let key = sel_key(e, mode, th);
                if let Some(forms) = seen_before(seen, &key, &e.mem.sel) {
                    if forms.iter().all(|&f| f != u32::MAX) {
                        out.push((a, lp, st, forms));
                    }
                    continue;
                }
                let ivs = match lp {
                    Some(_) => self.descs[self.accesses[a as usize].desc as usize]
                        .ivs
                        .clone(),
                    None => Vec::new(),
                };
                let mut forms = [u32::MAX; 2];
                // The handle itself (no view of it): its initial value, resolved by the
                // branch's own resolver (a resolver per loop as well: 220 ms instead of
                // 145 ms at 1M).
                let direct = match (lp, k.values[e.mem.value].kind) {
                    (Some(l), ValueKind::IterArg { stmt, index }) if stmt == l => {
                        match &k.stmts[l].kind {
                            StmtKind::For(f) => Some((l, f, index)),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                for (side, form) in forms.iter_mut().enumerate() {
                    let key = (st, side, if direct.is_some() { None } else { lp });
                    let r = resolvers.entry(key).or_insert_with(|| {
                        let mut r = Resolver::new(k, &exact);
                        r.fix_if = Some((st, side));
                        // The loop's first iteration: its handles hold their initial values.
                        r.fix = key.2.map(|l| (l, 0));
                        r
                    });
                    let regions = match direct {
                        // As `Resolver::regions` takes a handle of the fixed loop in its
                        // first iteration.
                        Some((l, f, index)) => match r.rotation(l, f) {
                            Some(rot) => {
                                let mut v = r.regions(f.iter_args[rot.orbits[index][0]].1);
                                for g in &mut v {
                                    g.kept |= g.slot.is_some();
                                }
                                v
                            }
                            None => continue,
                        },
                        None => r.regions(e.mem.value),
                    };
                    if regions.is_empty() || std::mem::take(&mut r.unbound) {
                        continue;
                    }
                    let mut desc = make_desc(k, mode, regions, &e.mem.sel, th);
                    if let Some(l) = lp {
                        let Some(d) = fit_ivs(k, desc, &ivs, l) else {
                            continue;
                        };
                        desc = d;
                    }
                    if desc.regions.iter().any(|r| r.handle.is_some()) {
                        desc.bind = Some(Box::new(BindSrc {
                            value: e.mem.value,
                            sel: Sel::of(&e.mem.sel),
                            threads: th,
                            fixed: Vec::new(),
                        }));
                    }
                    *form = self.intern_in(&mut intern, desc);
                }
                seen.entry(key)
                    .or_default()
                    .push((e.mem.sel.clone(), forms));
                if forms.iter().all(|&f| f != u32::MAX) {
                    out.push((a, lp, st, forms));
                }
            }
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        if self.iv_forms.len() < self.descs.len() {
            self.iv_forms.resize(self.descs.len(), Vec::new());
        }
        out.sort_unstable();
        out
    }

    /// Inside a uniform `if` whose condition is on the induction variable of a loop with
    /// rotating handles alone, modulo a constant (`(%i + 1) mod 2 == 0`), with a constant
    /// lower bound: where the branch runs only in iterations in which every handle of the
    /// loop holds one and the same initial value, the accesses through those handles are
    /// replaced by that value's (the verifier tracks the residue of such a variable and the
    /// handles' values together). Async copies too: they write the bytes of the iteration
    /// that issues them. Used by the barrier pass and async-waits' warning check. The
    /// rebound descriptors are new ones (never shared with an access that is not rebound).
    pub fn bind_parity(&mut self, k: &Kernel) {
        let exact = self.rotating.get_or_init(|| exact_loops(k)).clone();
        // For binding, the residue of every loop around the op that a branch tells, innermost
        // first (exec seed 5218 at 100 ops: a read in the even branch of an inner loop, in
        // the odd branch of the outer one, took the inner loop's residue alone and kept both
        // values of the outer loop's handle); the innermost (each op's first) is the op's
        // residue (`residue_ops`, as `parity_fixes` finds it).
        let mut fixes: Vec<(StmtId, StmtId, u64)> = Vec::new();
        branch_fixes_of(
            k,
            k.body,
            &mut Vec::new(),
            &|c, v| parity_fix(k, c, v),
            &mut fixes,
            true,
        );
        let mut innermost = fixes.clone();
        innermost.dedup_by_key(|f| f.0);
        self.parity_ops = Some(innermost);
        let mut orig: Vec<(u32, u32)> = Vec::new();
        let ivs_exact = self.exact.take().unwrap_or_else(|| exact_ivs(k));
        let conds = if ivs_exact.is_empty() {
            Vec::new()
        } else {
            cond_fixes(k, &ivs_exact)
        };
        if fixes.is_empty() && conds.is_empty() {
            self.exact = Some(ivs_exact);
            return;
        }
        // An op that runs in one iteration of an exact loop alone holds that iteration's
        // handles there, as an op in a parity branch holds its residue's (plain gen seed 1163
        // at 100 ops: a loop started from the outer loop's handle in its first trip only).
        for (op, masks) in &conds {
            for &(iv, mask) in masks {
                if mask.count_ones() != 1 || fixes.iter().any(|f| f.0 == *op) {
                    continue;
                }
                if let Some(&(lp, ..)) = ivs_exact.get(&iv) {
                    fixes.push((*op, lp, u64::from(mask.trailing_zeros())));
                }
            }
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        let mut intern: FxMap<(Desc, u32), u32> = FxMap::default();
        let mut resolvers: BTreeMap<(StmtId, u64), Resolver> = BTreeMap::new();
        // (rebound descriptor, the one it was bound from, loop, iteration).
        let mut rebound: Vec<(u32, u32, StmtId, u64)> = Vec::new();
        for (op, lp, it) in fixes {
            let ids = match self.by_stmt.get(op.index()) {
                Some(v) => v.to_vec(),
                None => continue,
            };
            for a in ids {
                let d = self.accesses[a as usize].desc as usize;
                let desc = &self.descs[d];
                let Some(src) = desc.bind.as_deref().cloned() else {
                    continue;
                };
                let own = through_loop(desc, lp);
                // Handles of `lp`, or of loops inside it whose initial values are `lp`'s
                // handles (those of loops around `lp` come out unchanged).
                if !own && !desc.regions.iter().any(|r| r.handle.is_some()) {
                    continue;
                }
                let (mode, ivs) = (desc.mode, desc.ivs.clone());
                let Some(nd) = bound_in(k, &exact, &mut resolvers, (mode, &ivs), &src, lp, it)
                else {
                    continue;
                };
                // Handles left (of loops inside `lp`): its forms there are bound in `lp` too.
                let nd_binds = nd.bind.is_some();
                // (Bound in one iteration of `lp`, an inner loop's initial values may be apart
                // where unbound they may overlap: `desc_conflict` applies no handle rule
                // between an `OVERLAP` handle and another.)
                if !own && nd == *desc {
                    continue;
                }
                let fresh = self.descs.len() as u32;
                let id = self.intern_rebound(&mut intern, nd, d as u32, &mut orig);
                if id == fresh {
                    rebound.push((id, d as u32, lp, it));
                    if nd_binds {
                        self.parity_of.insert(id, (lp, it));
                    }
                }
                self.accesses[a as usize].desc = id;
            }
        }
        // The rebound descriptors' forms in the first and last trips of the other loops
        // whose handles they go through (loops inside `lp` started from its handles): the
        // unbound descriptor's forms there, bound in the same iteration of `lp` (plain gen
        // seed 139 at 200 ops on sm_90: a two-trip loop in a parity branch, started from the
        // outer loop's handles). The first trip alone of a loop of unknown trip count (exec
        // seed 22879 at 100 ops: an inner loop in the even branch, started from the outer
        // handle that holds `%B` there, wrote `%D` in its first trip alone).
        for (id, old, lp, it) in rebound {
            let binds: Vec<Bind> = self.binds[old as usize]
                .iter()
                .filter(|b| b.lp != lp)
                .cloned()
                .collect();
            for b in binds {
                // `None` where the form keeps handles it cannot bind there (no source): the
                // rebound descriptor itself then, as without the form (exec seed 19211 at 100
                // ops: an outer loop's first-trip form of a copy in an inner loop's even
                // trips took both values of the inner handle there).
                let mut form = |f: u32| -> Option<u32> {
                    let desc = &self.descs[f as usize];
                    let Some(src) = desc.bind.as_deref().cloned() else {
                        // No handle left to bind: the form as it is.
                        return desc.regions.iter().all(|r| r.handle.is_none()).then_some(f);
                    };
                    let (mode, ivs) = (desc.mode, desc.ivs.clone());
                    let nd = bound_in(k, &exact, &mut resolvers, (mode, &ivs), &src, lp, it)?;
                    Some(if nd != self.descs[f as usize] {
                        self.intern_rebound(&mut intern, nd, f, &mut orig)
                    } else {
                        f
                    })
                };
                let mut form_of = |f: u32, or: u32| {
                    if f == u32::MAX {
                        f
                    } else {
                        form(f).unwrap_or(or)
                    }
                };
                let (first, last) = (form_of(b.first, id), form_of(b.last, id));
                let exit = form_of(b.exit, u32::MAX);
                self.binds[id as usize].push(Bind {
                    lp: b.lp,
                    first,
                    last,
                    exit,
                });
            }
        }
        // Ops that conditions on the induction variable of an exact loop keep from running
        // in some of its iterations: with one iteration left, the variable takes its value
        // there; and the iterations are recorded (`Desc::only`, see `restrict`), which
        // `conflict` and the first/last-iteration forms (`bind_first_ivs`) go by.
        let unbound: FxMap<u32, u32> = orig.iter().copied().collect();
        let mut forms: FxMap<Desc, u32> = FxMap::default();
        // Each (descriptor, iteration sets) is restricted once.
        let mut sets: FxMap<Vec<(ValueId, u64)>, u32> = FxMap::default();
        let mut done: FxMap<(u32, u32), u32> = FxMap::default();
        for (op, masks) in conds {
            let ids = match self.by_stmt.get(op.index()) {
                Some(v) if !v.is_empty() => v.to_vec(),
                _ => continue,
            };
            let n_sets = sets.len() as u32;
            let set = *sets.entry(masks.clone()).or_insert(n_sets);
            for a in ids {
                let d = self.accesses[a as usize].desc;
                if let Some(&id) = done.get(&(d, set)) {
                    self.accesses[a as usize].desc = id;
                    continue;
                }
                let old = unbound.get(&d).copied().unwrap_or(d);
                let Some(nd) = restrict(&self.descs[d as usize], &masks, &ivs_exact) else {
                    done.insert((d, set), d);
                    continue;
                };
                if nd == self.descs[d as usize] {
                    done.insert((d, set), d);
                    continue;
                }
                let id = self.intern_rebound(&mut intern, nd, old, &mut orig);
                if self.binds[id as usize].is_empty() && !self.binds[d as usize].is_empty() {
                    // The handle forms `bind_handles` made for `d` (first, last, exit
                    // iterations of the loops with handles), restricted the same way: the
                    // op runs in those iterations only, whichever form it takes (seed 698).
                    self.binds[id as usize] =
                        self.map_binds(d, &mut forms, |x| restrict(x, &masks, &ivs_exact));
                }
                done.insert((d, set), id);
                self.accesses[a as usize].desc = id;
            }
        }
        // Out of the loop, the iterations a descriptor ran in no longer matter where its
        // address does not move with them (plain gen seed 42 at 200 ops: a write in the last
        // two of four trips, through a handle bound in the last one, before a read of the
        // other result of an earlier loop).
        let mut exits = Vec::new();
        for d in 0..self.descs.len() {
            for &(iv, _) in &self.descs[d].only {
                let Some(&(lp, ..)) = ivs_exact.get(&iv) else {
                    continue;
                };
                let desc = &self.descs[d];
                if address_uses_iv(desc, iv) || through_loop(desc, lp) {
                    continue;
                }
                exits.push((d as u32, lp, out_of_loop(desc, iv, false), iv));
            }
        }
        for (d, lp, e, iv) in exits {
            let id = self.intern_form(&mut forms, e);
            self.loop_exits.push((d, lp, id));
            // The handle forms of `d` leave the loop the same way (plain gen seed 1583 at 100
            // ops on gfx1250: a read through an outer loop's handle in some trips of an
            // inner loop, out of it, lost that handle's last-trip and exit forms and met the
            // next outer trip's copy through the other handle).
            if id != d && self.binds[id as usize].is_empty() && !self.binds[d as usize].is_empty() {
                self.binds[id as usize] =
                    self.map_binds(d, &mut forms, |x| Some(out_of_loop(x, iv, false)));
            }
        }
        self.loop_exits.sort_unstable();
        self.exact = Some(ivs_exact);
    }

    /// `d` in the last of `n` iterations of the exact loop of `iv` (its iteration form
    /// there, `iv_forms`), when it has one and runs in it.
    pub fn last_iv_form(&self, d: u32, iv: ValueId, n: u64) -> Option<u32> {
        let f = self.forms_of(d).iter().find(|f| f.iv == iv)?;
        let len = f.forms.len() as u64;
        if len == 0 || n == 0 {
            return None;
        }
        Some(f.forms[((n - 1) % len) as usize]).filter(|&x| x != EMPTY_FORM)
    }

    /// `d`'s iteration forms in the exact loop of `iv` (`n` trips) before the last: in the
    /// one just before it (`one`), or in each of them; the iterations it does not run in
    /// left out. `None` when `d` has no forms there, or runs in none of those iterations.
    pub fn earlier_iv_forms(&self, d: u32, iv: ValueId, n: u64, one: bool) -> Option<Vec<u32>> {
        let f = self.forms_of(d).iter().find(|f| f.iv == iv)?;
        let len = f.forms.len() as u64;
        if len == 0 || n < 2 {
            return None;
        }
        let from = if one { n - 2 } else { 0 };
        let mut out: Vec<u32> = (from..n - 1)
            .map(|j| f.forms[(j % len) as usize])
            .filter(|&x| x != EMPTY_FORM)
            .collect();
        out.sort_unstable();
        out.dedup();
        (!out.is_empty()).then_some(out)
    }

    /// Whether `d` goes through a rotating handle with neither a binding source nor bound
    /// forms (an iteration form through a handle of a loop around the fixed one).
    pub fn unbindable(&self, d: u32) -> bool {
        let desc = &self.descs[d as usize];
        desc.bind.is_none()
            && self.binds.get(d as usize).is_none_or(|b| b.is_empty())
            && desc.regions.iter().any(|r| r.handle.is_some())
    }

    /// Every (descriptor, its form out of some loop) of `loop_exits`.
    pub fn loop_exit_forms(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.loop_exits.iter().map(|x| (x.0, x.2))
    }

    /// `d` out of loop `lp`, made in some iteration of it (`loop_exits`).
    pub fn loop_exit(&self, d: u32, lp: StmtId) -> Option<u32> {
        if self.loop_exits.is_empty() {
            return None;
        }
        let i = self.loop_exits.partition_point(|x| (x.0, x.1) < (d, lp));
        self.loop_exits
            .get(i)
            .filter(|x| (x.0, x.1) == (d, lp))
            .map(|x| x.2)
    }

    /// `loop_exits`: a descriptor whose words move with the loop's variable, through no
    /// rotating handle of the loop and in no slot index, leaves it as its words' regions
    /// (exec seed 119 at 200 ops: words of an outer slot read in an inner loop, met by the
    /// next outer iteration's write to the other slot); and one whose address does not
    /// move with it (through an `OVERLAP` handle of it at most) leaves it as it is, without
    /// the variable (exec seed 368 at 100 ops). Before `bind_first_ivs`, so that the forms
    /// get iteration forms in the exact loops around. Used by the barrier pass.
    pub fn bind_loop_exits(&mut self, k: &Kernel) {
        let mut forms: FxMap<Desc, u32> = FxMap::default();
        let mut made = Vec::new();
        for d in 0..self.descs.len() {
            let desc = &self.descs[d];
            for &iv in &desc.ivs {
                let ValueKind::Iv(lp) = k.values[iv].kind else {
                    continue;
                };
                if !matches!(k.stmts[lp].kind, StmtKind::For(_)) {
                    continue;
                }
                // Exact loops too: the key made in the last iteration takes that iteration's
                // form first (the barrier pass's `State::leave_last`), those made some
                // iterations back take this one (exec seeds 2113 and 4536 at 100 ops: the
                // earlier trips' reads of an inner loop, carried past the outer back edge to
                // an unknown distance, met the next outer trip's write to the other slot).
                // A handle of an `OVERLAP` rotation is every value it may take in any
                // iteration.
                // Ran only in some iterations (`Desc::only`), its address not moving: as
                // if it ran in any.
                let only = desc.only.iter().any(|o| o.0 == iv);
                if (only && address_uses_iv(desc, iv))
                    || desc.regions.iter().any(|r| {
                        r.handle.is_some_and(|h| h.0 == lp && h.1 != OVERLAP)
                            || r.over
                                .as_ref()
                                .is_some_and(|x| x.index.coef(Var::Value(iv)) != 0)
                    })
                {
                    continue;
                }
                // A slot index that moves with the variable leaves as any slot, the words
                // in it kept where they do not move (exec seed 13536 at 100 ops: an inner
                // loop's copies into the slot of its variable, at words of the outer
                // variable, met the next outer trip's copy by the same threads).
                let words = words_use_iv(desc, iv);
                made.push((d as u32, lp, exit_form(desc, iv, words), iv, words));
            }
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        for (d, lp, e, iv, words) in made {
            let id = self.intern_form(&mut forms, e);
            self.loop_exits.push((d, lp, id));
            // The handle forms of the descriptor (first, last, exit trips of its loops with
            // handles) leave the loop the same way (plain gen seed 1583 at 100 ops on
            // gfx1250: a read through an outer loop's handle in some trips of an inner
            // loop, out of it, lost that handle's last-trip form and met the next outer
            // trip's copy through the other handle).
            if id != d && self.binds[id as usize].is_empty() && !self.binds[d as usize].is_empty() {
                self.binds[id as usize] =
                    self.map_binds(d, &mut forms, |x| Some(exit_form(x, iv, words)));
            }
        }
        self.loop_exits.sort_unstable();
        self.loop_exits.dedup_by_key(|x| (x.0, x.1));
        if self.iv_forms.len() < self.descs.len() {
            self.iv_forms.resize(self.descs.len(), Vec::new());
        }
    }

    /// Inside a uniform `if` on a loop's induction variable modulo a constant (constant start,
    /// `if uniform (%i + 1) mod 2 == 0`): an access whose slot indices depend on that variable
    /// alone, and name one slot in every iteration the branch runs in, gets that slot (the
    /// variable fixed to one such iteration's value; where it occurs in word indices too,
    /// only the slot indices take it). Only through no handle, and where the verifier tracks
    /// its residue: the lcm of every `mod` on it (slot counts, conditions) at most 64. Async
    /// copies too (the slot of the iteration that issues them). Used by the barrier pass and
    /// async-waits' warning check.
    pub fn bind_residue_slots(&mut self, k: &Kernel) {
        let mut out: Vec<(u32, u32)> = Vec::new();
        // The residue modulus each variable is tracked with, as the verifier forms it.
        let mut modulus: BTreeMap<ValueId, u64> = BTreeMap::new();
        let mut note = |e: &AffineExpr, m: Option<i64>| {
            for (v, _) in &e.terms {
                if let (Var::Value(v), Some(m)) = (v, m) {
                    if matches!(k.values[*v].kind, ValueKind::Iv(_)) && m > 0 {
                        let cur = modulus.entry(*v).or_insert(1);
                        *cur = lcm(*cur, m as u64).min(u64::MAX / 2);
                    }
                }
            }
        };
        for view in k.views.values() {
            if let ViewKind::Slot { count, index } = &view.kind {
                note(index, Some(*count as i64));
            }
        }
        let mut any = false;
        for (_, d) in k.stmts.iter() {
            if let StmtKind::If(i) = &d.kind {
                note(&i.cond.expr, i.cond.modulo);
                any |= i.cond.modulo.is_some();
            }
        }
        if !any {
            return;
        }
        // (op, variable, condition, branch) for ops under a uniform `if` on one
        // tracked variable modulo a constant.
        type Known<'a> = (ValueId, StmtId, &'a syncopt_ir::Cond, bool);
        let mut found: Vec<(StmtId, Known)> = Vec::new();
        let mut stack: Vec<(syncopt_ir::BlockId, Vec<Known>)> = vec![(k.body, Vec::new())];
        while let Some((b, known)) = stack.pop() {
            for &s in &k.blocks[b].stmts {
                match &k.stmts[s].kind {
                    StmtKind::Op(_) => {
                        for &x in known.iter().rev() {
                            found.push((s, x));
                        }
                    }
                    StmtKind::If(i) => {
                        let iv = match (i.uniformity, i.cond.expr.terms.as_slice(), i.cond.modulo) {
                            (syncopt_ir::Uniformity::Uniform, [(Var::Value(iv), _)], Some(m))
                                if m > 0
                                    && matches!(k.values[*iv].kind, ValueKind::Iv(_))
                                    && modulus.get(iv).is_some_and(|&q| q <= 64) =>
                            {
                                Some(*iv)
                            }
                            _ => None,
                        };
                        for (blk, v) in [(Some(i.then_block), true), (i.else_block, false)] {
                            let Some(blk) = blk else {
                                continue;
                            };
                            let mut kn = known.clone();
                            if let Some(iv) = iv {
                                kn.push((iv, s, &i.cond, v));
                            }
                            stack.push((blk, kn));
                        }
                    }
                    kind => {
                        for c in kind.child_block_ids() {
                            stack.push((c, known.clone()));
                        }
                    }
                }
            }
        }
        if found.is_empty() {
            return;
        }
        if self.binds.len() < self.descs.len() {
            self.binds.resize(self.descs.len(), Vec::new());
        }
        let mut intern: FxMap<(Desc, u32), u32> = FxMap::default();
        let mut forms: FxMap<Desc, u32> = FxMap::default();
        let mut done: FxMap<(u32, StmtId, bool), u32> = FxMap::default();
        for (op, (iv, st, c, v)) in found {
            let ids = match self.by_stmt.get(op.index()) {
                Some(x) if !x.is_empty() => x.to_vec(),
                _ => continue,
            };
            let ValueKind::Iv(lp) = k.values[iv].kind else {
                continue;
            };
            let StmtKind::For(f) = &k.stmts[lp].kind else {
                continue;
            };
            let syncopt_ir::Bound::Const(lo) = f.lo else {
                continue;
            };
            for a in ids {
                let d = self.accesses[a as usize].desc;
                let key = (d, st, v);
                if let Some(&id) = done.get(&key) {
                    self.accesses[a as usize].desc = id;
                    continue;
                }
                let fixed = residue_slot_form(&self.descs[d as usize], iv, c, v, lo, f.step);
                let id = match fixed {
                    Some(nd) if nd != self.descs[d as usize] => {
                        self.intern_rebound(&mut intern, nd, d, &mut out)
                    }
                    _ => d,
                };
                if id != d && !self.residue_binds.contains_key(&id) {
                    let mut chain = self.residue_binds.get(&d).cloned().unwrap_or_default();
                    chain.push((iv, st, v));
                    self.residue_binds.insert(id, chain);
                }
                if id != d
                    && self.binds[id as usize].is_empty()
                    && !self.binds[d as usize].is_empty()
                {
                    // Through handles: the forms `bind_handles` made (first, last, exit
                    // iterations of their loops) take the slot too, where they keep the
                    // variable (exec seed 112 at 200 ops: an inner loop's handle started
                    // from a slot of the outer variable, in a parity branch of it).
                    self.binds[id as usize] = self.map_binds(d, &mut forms, |x| {
                        residue_slot_form(x, iv, c, v, lo, f.step)
                    });
                }
                done.insert(key, id);
                self.accesses[a as usize].desc = id;
            }
        }
        if self.iv_forms.len() < self.descs.len() {
            self.iv_forms.resize(self.descs.len(), Vec::new());
        }
    }

    /// Adds first-iteration bound forms for descriptors whose slot indices depend on the
    /// induction variable of a loop with a constant lower bound `lo`: the index with the
    /// variable fixed to `lo` (a constant index names one slot's bytes). Only where
    /// the variable occurs in slot indices alone (not in word indices), and not for loops
    /// whose rotating handles the descriptor goes through. Returns the (descriptor, loop)
    /// pairs bound this way, sorted. Used by the barrier pass only (the verifier knows the
    /// induction variable's residue in a loop's first trip when its lower bound is constant).
    pub fn bind_first_ivs(&mut self, k: &Kernel) -> Vec<(u32, StmtId)> {
        let mut added: Vec<(u32, StmtId)> = Vec::new();
        let n0 = self.descs.len();
        if self.binds.len() < n0 {
            self.binds.resize(n0, Vec::new());
        }
        let mut intern: Option<DescIndex> = None;
        let exact = self.exact.take().unwrap_or_else(|| exact_ivs(k));
        for d in 0..n0 {
            if self.descs[d].ivs.is_empty() {
                continue;
            }
            let ivs = self.descs[d].ivs.clone();
            for iv in ivs {
                let lp = match k.values[iv].kind {
                    ValueKind::Iv(st) => st,
                    _ => continue,
                };
                let lo = match &k.stmts[lp].kind {
                    StmtKind::For(f) => match f.lo {
                        syncopt_ir::Bound::Const(c) => c,
                        _ => continue,
                    },
                    _ => continue,
                };
                if self.binds[d].iter().any(|b| b.lp == lp) {
                    continue;
                }
                // An exact loop's first trip gets its form with the words too
                // (`bind_exact_ivs`), where they move with the loop.
                if exact.contains_key(&iv) && words_move_with(&self.descs[d], iv) {
                    continue;
                }
                let Some(desc) = first_iv_form(&self.descs[d], iv, lo) else {
                    continue;
                };
                // Hashes, not copies, of the descriptors (`DescIndex`): a few forms are
                // made among many (8 of 100K in the 1M-op kernel).
                let ix = intern.get_or_insert_with(|| DescIndex::new(&self.descs));
                let id = ix.intern(&mut self.descs, &mut self.binds, desc);
                self.binds[d].push(Bind {
                    lp,
                    first: id,
                    last: u32::MAX,
                    exit: u32::MAX,
                });
                added.push((d as u32, lp));
            }
        }
        // Through a handle whose initial value is a slot view of an exact loop around the
        // handle's loop, the slot index names that loop's variable, which `make_desc` leaves
        // out of `ivs` (no access through the handle meets another trip of that loop without
        // leaving the handle's loop first). Its first and last trips still fix the slot: forms
        // there (`Bind::first`, `Bind::last`) for the keys pending since before that loop, or
        // in the second of its two trips (exec seed 10482 at 100 ops).
        for d in 0..n0 {
            let desc = &self.descs[d];
            let mut slot_ivs: Vec<ValueId> = desc
                .regions
                .iter()
                .filter(|r| r.handle.is_some())
                .filter_map(|r| r.slot.as_ref())
                .flat_map(|s| s.index.terms.iter())
                .filter_map(|(v, _)| match v {
                    Var::Value(v) if !desc.ivs.contains(v) => Some(*v),
                    _ => None,
                })
                .collect();
            slot_ivs.sort();
            slot_ivs.dedup();
            for iv in slot_ivs {
                let Some(&(lp, lo, step, n)) = exact.get(&iv) else {
                    continue;
                };
                if self.binds[d].iter().any(|b| b.lp == lp) {
                    continue;
                }
                let last = trip_value(lo, step, n - 1);
                let (Some(f0), Some(f1)) = (
                    fix_iv(&self.descs[d], iv, lo),
                    last.and_then(|x| fix_iv(&self.descs[d], iv, x)),
                ) else {
                    continue;
                };
                let ix = intern.get_or_insert_with(|| DescIndex::new(&self.descs));
                let first = ix.intern(&mut self.descs, &mut self.binds, f0);
                let last = ix.intern(&mut self.descs, &mut self.binds, f1);
                self.binds[d].push(Bind {
                    lp,
                    first,
                    last,
                    exit: u32::MAX,
                });
            }
        }
        self.exact = Some(exact);
        self.bind_exact_ivs(k);
        added.sort();
        added
    }

    /// The forms of every descriptor in each iteration of the exact loops (`exact_ivs`) its
    /// `ivs` name (`iv_forms`), forms of forms included, and from them its bound forms in
    /// those loops' first and last iterations (`binds`; a first-iteration form from
    /// `bind_first_ivs` stays). Not for loops whose rotating handles the descriptor goes
    /// through (those are bound by `bind_handles`). The verifier runs these loops iteration
    /// by iteration and knows the variable's value in each.
    fn bind_exact_ivs(&mut self, k: &Kernel) {
        self.bind_exact_ivs_from(k, 0);
    }

    /// `bind_exact_ivs` for the descriptors from `start` on (forms made later, e.g.
    /// `residue_forms`: their iteration forms tell what one iteration touches).
    fn bind_exact_ivs_from(&mut self, k: &Kernel, start: usize) {
        let exact = self.exact.take().unwrap_or_else(|| exact_ivs(k));
        if exact.is_empty()
            || !self.descs[start.min(self.descs.len())..]
                .iter()
                .any(|d| !d.ivs.is_empty() || outer_exit(d))
        {
            self.exact = Some(exact);
            return;
        }
        let n0 = self.descs.len();
        // Forms beyond this many new descriptors are not made (the pass stays linear).
        let budget = n0.saturating_mul(8).max(1 << 12);
        // Descriptors are looked up by hash (colliding ids chained in `next`), without a
        // copy of each.
        let hash = |d: &Desc| {
            let mut h = FxHasher::default();
            d.hash(&mut h);
            h.finish()
        };
        let mut first: FxMap<u64, u32> = FxMap::default();
        let mut next: Vec<u32> = Vec::with_capacity(n0 + 64);
        for (i, d) in self.descs.iter().enumerate() {
            // A descriptor of `parity_of` has forms of its own: an equal form is another one.
            if self.parity_of.contains_key(&(i as u32)) {
                next.push(u32::MAX);
                continue;
            }
            next.push(first.insert(hash(d), i as u32).unwrap_or(u32::MAX));
        }
        let mut add = |descs: &mut Vec<Desc>, binds: &mut Vec<Vec<Bind>>, d: Desc| -> u32 {
            let h = hash(&d);
            // The first equal one (as interning in id order would find).
            let mut e = first.get(&h).copied().unwrap_or(u32::MAX);
            let mut found = u32::MAX;
            while e != u32::MAX {
                if descs[e as usize] == d {
                    found = e;
                }
                e = next[e as usize];
            }
            if found != u32::MAX {
                return found;
            }
            let id = descs.len() as u32;
            next.push(first.insert(h, id).unwrap_or(u32::MAX));
            descs.push(d);
            binds.push(Vec::new());
            id
        };
        let empty = add(&mut self.descs, &mut self.binds, empty_desc());
        self.iv_forms.resize(self.descs.len(), Vec::new());
        // Async copies through a handle get per-iteration forms too (their last iteration's
        // is one place: executable seeds 189, 102, 320, 167); async-waits, which shares these
        // tables, takes them alike. (Left out until session 14, when async-waits compared
        // them by root buffers.)
        let rotating = self.rotating.get_or_init(|| exact_loops(k)).clone();
        let mut resolvers: BTreeMap<StmtId, Resolver> = BTreeMap::new();
        let mut parity_resolvers: BTreeMap<(StmtId, u64), Resolver> = BTreeMap::new();
        let mut q = start;
        while q < self.descs.len() {
            let d = q;
            q += 1;
            if self.descs[d].ivs.is_empty() && !outer_exit(&self.descs[d]) {
                continue;
            }
            let mut ivs = self.descs[d].ivs.clone();
            let own = ivs.len();
            // Where `ivs` holds the own variables again (`slotted`), if it does.
            let mut again_from = usize::MAX;
            // The variable of an exact loop whose handle an inner loop's handle started from
            // (`Region::outer`) moves no address, but binds that inner loop's initial values
            // in each of its iterations (exec seed 11226 at 100 ops): `outer_iv_forms`.
            if self.descs[d].bind.is_some() {
                for r in &self.descs[d].regions {
                    if let Some((_, _, v)) = r.outer {
                        if !ivs.contains(&v) {
                            ivs.push(v);
                        }
                    }
                }
                // Its own variables again, for the forms that fix one while resolving where an
                // inner loop's handle may take a slot view of that loop (`slotted` below): a
                // second look too, for they have no forms of their own in the inner loop,
                // which the usual forms keep (exec seed 3585 at 100 ops).
                if self.descs[d]
                    .regions
                    .iter()
                    .any(|r| r.handle.is_some_and(|h| h.1 == OVERLAP))
                {
                    again_from = ivs.len();
                    ivs.extend_from_within(..own);
                }
            }
            for (ix, iv) in ivs.into_iter().enumerate() {
                let Some(&(lp, lo, step, n)) = exact.get(&iv) else {
                    continue;
                };
                let desc = &self.descs[d];
                let through = through_loop(desc, lp);
                let outer_only = ix >= own;
                if outer_only && through {
                    continue;
                }
                if self.descs.len() - n0 > budget || (through && desc.bind.is_none()) {
                    continue;
                }
                if through && !rotating.contains_key(&lp) {
                    continue;
                }
                // Through an inner loop's handle started from this loop's (`Region::outer`):
                // bound in each iteration where that resolves, the variable fixed alone
                // where not (exec seed 266 at 200 ops: the inner handle held this loop's
                // handle, another buffer in each iteration).
                let outer = !through
                    && desc.bind.is_some()
                    && rotating.contains_key(&lp)
                    && desc
                        .regions
                        .iter()
                        .any(|r| r.outer.is_some_and(|o| o.0 == lp));
                // Through an inner loop's handle started from a slot view of this loop, which
                // has no handles: bound in each iteration where the slot index, fixed, keeps
                // the inner loop's initial values apart (`Region::within`; exec seed 11978 at
                // 100 ops: an inner loop started from this trip's slot and the other half).
                let again = ix >= again_from;
                let slotted = again
                    && !through
                    && !outer
                    && desc.bind.is_some()
                    && !rotating.contains_key(&lp)
                    && desc.regions.iter().any(|r| {
                        r.handle
                            .is_some_and(|h| h.1 == OVERLAP && loop_inside(k, h.0, lp))
                    });
                if again && !slotted {
                    continue;
                }
                let desc = &self.descs[d];
                let mask = desc
                    .only
                    .iter()
                    .find(|o| o.0 == iv)
                    .map_or(u64::MAX, |o| o.1);
                // Through the handles alone (the variable in no index, no condition): the
                // forms repeat with the handles' rotation, so one period of them is made.
                let period = if through && !uses_iv(desc, iv) {
                    match &k.stmts[lp].kind {
                        StmtKind::For(f) => permutation(k, lp, f)
                            .and_then(|(o, _)| rotation_period(&o))
                            .map_or(n, |q| q.min(n)),
                        _ => n,
                    }
                } else {
                    n
                };
                let mut fixed = Vec::with_capacity(n as usize);
                for it in 0..period {
                    if mask & (1 << it) == 0 {
                        fixed.push(None);
                        continue;
                    }
                    let x = trip_value(lo, step, it);
                    let bound = match (through || outer || slotted, x) {
                        (true, Some(x)) => {
                            // One resolver per loop (its rotation does not depend on the
                            // iteration); what it resolved under another iteration is
                            // forgotten.
                            let r = resolvers
                                .entry(lp)
                                .or_insert_with(|| Resolver::new(k, &rotating));
                            if r.fix != Some((lp, it)) {
                                r.memo.clear();
                                // A loop inside this one may rotate over disjoint initial
                                // values in some of its iterations only.
                                r.rotations.retain(|&l, _| !loop_inside(k, l, lp));
                                r.fix = Some((lp, it));
                                r.fix_var = slotted.then_some((iv, x));
                            }
                            handles_in_iteration(k, desc, r, iv, x)
                                .or_else(|| (own == 0).then(|| outer_in_iteration(desc, r))?)
                        }
                        _ => None,
                    };
                    if through && bound.is_none() {
                        break;
                    }
                    match x.and_then(|x| fix_iv(bound.as_ref().unwrap_or(desc), iv, x)) {
                        Some(f) => fixed.push(Some(f)),
                        None => break,
                    }
                }
                if fixed.len() != period as usize {
                    // Bound in the first iteration only (a later one's handles could not be
                    // bound): that form still refines `bind_handles`' first-iteration one,
                    // which leaves the variable free (executable seed 50).
                    if let (true, Some(Some(f0))) = (through, fixed.into_iter().next()) {
                        let f0 = add(&mut self.descs, &mut self.binds, f0);
                        self.iv_forms.resize(self.descs.len(), Vec::new());
                        if let Some(b) = self.binds[d].iter_mut().find(|b| b.lp == lp) {
                            b.first = f0;
                        }
                    }
                    continue;
                }
                // A descriptor `bind_parity` bound in one residue of a loop around: its forms
                // here run there too (`bound_again`).
                let parity = self.parity_of.get(&(d as u32)).copied();
                let one: Vec<u32> = fixed
                    .into_iter()
                    .map(|f| match f {
                        Some(f) => {
                            let f = bound_again(k, &rotating, &mut parity_resolvers, f, lp, parity);
                            add(&mut self.descs, &mut self.binds, f)
                        }
                        None => EMPTY_FORM,
                    })
                    .collect();
                let forms: Vec<u32> = (0..n as usize).map(|it| one[it % one.len()]).collect();
                self.iv_forms.resize(self.descs.len(), Vec::new());
                if outer_only && own == 0 {
                    let last = one[(n as usize - 1) % one.len()];
                    if last != EMPTY_FORM {
                        self.outer_last.insert((d as u32, iv), last);
                    }
                    continue;
                }
                if outer_only {
                    self.outer_iv_forms.resize(self.descs.len(), Vec::new());
                    self.outer_iv_forms[d].push(IvForms { iv, forms });
                    continue;
                }
                let bound = |f: u32| if f == EMPTY_FORM { empty } else { f };
                let (first, last) = (bound(forms[0]), bound(forms[n as usize - 1]));
                // A form through a handle of a loop around this one has no binding of that
                // handle: `bind_handles`' first and last forms, which bind it in the loop
                // around too, stay, their variable fixed.
                let around = |f: u32| {
                    f != EMPTY_FORM
                        && self.descs[f as usize].regions.iter().any(|g| {
                            g.handle
                                .is_some_and(|h| h.0 != lp && loop_inside(k, lp, h.0))
                        })
                };
                if through && !one.iter().any(|&f| around(f)) {
                    // The first and last iterations' forms refine `bind_handles`' bindings
                    // (which leave the variable free).
                    if let Some(b) = self.binds[d].iter_mut().find(|b| b.lp == lp) {
                        b.first = first;
                        if b.last != u32::MAX {
                            b.last = last;
                        }
                    }
                    self.iv_forms[d].push(IvForms { iv, forms });
                    continue;
                }
                if through {
                    let last_x = trip_value(lo, step, n - 1);
                    if let Some(i) = self.binds[d].iter().position(|b| b.lp == lp) {
                        let b = self.binds[d][i];
                        for (which, g, x) in [(0, b.first, Some(lo)), (1, b.last, last_x)] {
                            let Some(x) = x.filter(|_| g != u32::MAX) else {
                                continue;
                            };
                            let Some(nf) = fix_iv(&self.descs[g as usize], iv, x) else {
                                continue;
                            };
                            let id = add(&mut self.descs, &mut self.binds, nf);
                            // With `g`'s bindings to the loops around, the variable fixed
                            // in them too.
                            if id != g && self.binds[id as usize].is_empty() {
                                let old = self.binds[g as usize].clone();
                                let nb = binds_fixed(
                                    (&mut self.descs, &mut self.binds),
                                    &mut add,
                                    &old,
                                    (iv, x),
                                );
                                self.binds[id as usize] = nb;
                            }
                            let b = &mut self.binds[d][i];
                            if which == 0 {
                                b.first = id;
                            } else {
                                b.last = id;
                            }
                        }
                    }
                    self.iv_forms.resize(self.descs.len(), Vec::new());
                    self.iv_forms[d].push(IvForms { iv, forms });
                    continue;
                }
                // A new form keeps `d`'s bindings to the handles of other loops, the variable
                // fixed in them too: leaving such a loop from this loop's last iteration, the
                // form takes that loop's last-trip handles (exec seed 436 at 200 ops: an
                // inner loop's last write through the outer loop's handle, after the outer
                // loop, still named both of its buffers).
                let other: Vec<Bind> = self.binds[d]
                    .iter()
                    .filter(|b| b.lp != lp)
                    .copied()
                    .collect();
                if !other.is_empty() {
                    for (it, &f) in one.iter().enumerate() {
                        if f == EMPTY_FORM || !self.binds[f as usize].is_empty() {
                            continue;
                        }
                        let Some(x) = trip_value(lo, step, it as u64) else {
                            continue;
                        };
                        let nb = binds_fixed(
                            (&mut self.descs, &mut self.binds),
                            &mut add,
                            &other,
                            (iv, x),
                        );
                        self.binds[f as usize] = nb;
                    }
                    self.iv_forms.resize(self.descs.len(), Vec::new());
                }
                match self.binds[d].iter_mut().find(|b| b.lp == lp) {
                    // A first-iteration form of `bind_first_ivs` (slot indices alone) stays:
                    // async producers use it (see its callers).
                    Some(b) => b.last = last,
                    None => self.binds[d].push(Bind {
                        lp,
                        first,
                        last,
                        exit: u32::MAX,
                    }),
                }
                self.iv_forms[d].push(IvForms { iv, forms });
            }
        }
        self.iv_forms.resize(self.descs.len(), Vec::new());
        self.exact = Some(exact);
    }

    /// Each descriptor through the rotating handles of a loop with a constant start and a
    /// trip count the verifier does not know, or whose slot indices name that loop's
    /// variable, in each residue of the iteration number modulo a period after which both
    /// repeat (`periodic`): the handles bound to the residue's values, the slot indices
    /// fixed (words on the variable still move). Only loops with a slot on their variable:
    /// the handle rule already tells handles apart (plain gen seeds 1324 and 1530 at 100
    /// ops: a handle and a slot view that take the same buffer every other iteration, never
    /// in the same one). Call after `bind_first_ivs`.
    pub fn bind_periodic(&mut self, k: &Kernel) {
        let exact = self.exact.take().unwrap_or_else(|| exact_ivs(k));
        let rotating = self.rotating.get_or_init(|| exact_loops(k)).clone();
        // Candidate loops by variable: (loop, lower bound, step, handles' period).
        let mut loops: BTreeMap<ValueId, (StmtId, i64, i64, u64)> = BTreeMap::new();
        for (s, d) in k.stmts.iter() {
            if let StmtKind::For(f) = &d.kind {
                let syncopt_ir::Bound::Const(lo) = f.lo else {
                    continue;
                };
                if exact.contains_key(&f.iv) || f.step == 0 {
                    continue;
                }
                let p = if f.iter_args.is_empty() {
                    Some(1)
                } else {
                    permutation(k, s, f).and_then(|(o, _)| rotation_period(&o))
                };
                if let Some(p) = p {
                    loops.insert(f.iv, (s, lo, f.step, p));
                }
            }
        }
        self.exact = Some(exact);
        if loops.is_empty() {
            return;
        }
        let n0 = self.descs.len();
        fn var_slots(d: &Desc, iv: ValueId) -> impl Iterator<Item = &SlotInfo> {
            let var = Var::Value(iv);
            d.regions
                .iter()
                .filter_map(|r| r.slot.as_ref())
                .filter(move |x| x.index.coef(var) != 0)
        }
        // Each loop's period: its handles' and every slot count on its variable.
        let mut period: BTreeMap<ValueId, Option<u64>> = BTreeMap::new();
        for d in &self.descs {
            for &iv in &d.ivs {
                let Some(&(_, _, _, p)) = loops.get(&iv) else {
                    continue;
                };
                let mut slots = var_slots(d, iv).peekable();
                if slots.peek().is_none() {
                    continue;
                }
                let e = period.entry(iv).or_insert(Some(p));
                for x in slots {
                    *e = e
                        .and_then(|q| Some(lcm(q, u64::from(x.count).max(1))).filter(|&q| q <= 64));
                }
            }
        }
        if period.values().all(|p| p.is_none()) {
            return;
        }
        let budget = n0.saturating_mul(8).max(1 << 12);
        // `intern_in` pushes one binding list per new descriptor.
        if self.binds.len() < n0 {
            self.binds.resize(n0, Vec::new());
        }
        let mut intern: FxMap<Desc, u32> = FxMap::default();
        let mut resolvers: BTreeMap<(StmtId, u64), Resolver> = BTreeMap::new();
        let mut made: Vec<(u32, IvForms)> = Vec::new();
        for d in 0..n0 {
            if self.descs[d].ivs.is_empty() {
                continue;
            }
            for i in 0..self.descs[d].ivs.len() {
                if self.descs.len() - n0 > budget {
                    break;
                }
                let iv = self.descs[d].ivs[i];
                let (Some(&(lp, lo, step, _)), Some(&Some(q))) = (loops.get(&iv), period.get(&iv))
                else {
                    continue;
                };
                let desc = &self.descs[d];
                let through = through_loop(desc, lp);
                if desc.only.iter().any(|o| o.0 == iv)
                    || desc
                        .regions
                        .iter()
                        .any(|r| r.outer.is_some_and(|o| o.0 == lp))
                    || (through && desc.bind.is_none())
                {
                    continue;
                }
                let (mode, ivs) = (desc.mode, desc.ivs.clone());
                let src = desc.bind.as_deref().cloned();
                let mut forms = Vec::with_capacity(q as usize);
                for r in 0..q {
                    let bound = match (&src, through) {
                        (Some(src), true) => {
                            bound_in(k, &rotating, &mut resolvers, (mode, &ivs), src, lp, r)
                        }
                        _ => Some(self.descs[d].clone()),
                    };
                    let Some(bound) = bound else {
                        break;
                    };
                    let form = if var_slots(&bound, iv).next().is_some() {
                        let (q64, r64) = (q as i64, r as i64);
                        slot_form_where(&bound, iv, (q, lo, step), true, |t, _| {
                            t.rem_euclid(q64) == r64
                        })
                    } else if address_uses_iv(&bound, iv) {
                        Some(bound)
                    } else {
                        let mut b = bound;
                        remove_iv(&mut b, iv);
                        Some(b)
                    };
                    let Some(form) = form else {
                        break;
                    };
                    forms.push(self.intern_in(&mut intern, form));
                }
                if forms.len() == q as usize {
                    made.push((d as u32, IvForms { iv, forms }));
                }
            }
        }
        if made.is_empty() {
            return;
        }
        self.periodic.resize(self.descs.len(), Vec::new());
        for (d, f) in made {
            self.periodic[d as usize].push(f);
        }
        if self.iv_forms.len() < self.descs.len() {
            self.iv_forms.resize(self.descs.len(), Vec::new());
        }
    }

    /// `d` in the first iteration of loop `lp` (`d` itself when it has no handle of `lp`).
    #[inline]
    pub fn first_bound(&self, d: u32, lp: StmtId) -> u32 {
        match self.binds.get(d as usize) {
            Some(b) if !b.is_empty() => b.iter().find(|x| x.lp == lp).map_or(d, |x| x.first),
            _ => d,
        }
    }

    /// `d` in the last of `iv`'s exact loop's iterations (`outer_last`).
    pub fn outer_last_form(&self, d: u32, iv: ValueId) -> Option<u32> {
        self.outer_last.get(&(d, iv)).copied()
    }

    /// `d` in the last iteration of loop `lp`, when it has handles of `lp` and the trip count
    /// is known.
    #[inline]
    pub fn last_bound(&self, d: u32, lp: StmtId) -> Option<u32> {
        let b = self.binds.get(d as usize)?;
        b.iter()
            .find(|x| x.lp == lp && x.last != u32::MAX)
            .map(|x| x.last)
    }

    /// Whether `d` names one fixed place: no induction variable; or none in its address and
    /// no handle but one its loop yields to itself (a variable only its conditions name,
    /// `Desc::only`, tells which iterations
    /// run it, not where it goes). The form a loose async copy takes from a loop's last
    /// iteration is where it wrote only then (barrier pass and async-waits alike).
    pub fn one_place(&self, d: u32) -> bool {
        let d = &self.descs[d as usize];
        d.ivs.is_empty()
            || (d.regions.iter().all(|r| {
                // A handle that takes its next value from itself holds its initial value in
                // every iteration (gen seed 482 on gfx1200).
                r.handle
                    .is_none_or(|(_, h, next)| h == next && h != OVERLAP)
                    && r.outer.is_none()
            }) && d.ivs.iter().all(|&v| !address_uses_iv(d, v)))
    }

    /// `one_place` for an access at statement `at` (or leaving loop `at`): the marks of a
    /// loop inside no other whose results are told apart (`LoopInfo::top`) name one fixed
    /// place too where `at` lies outside that loop, for they are its results, and it runs
    /// once (plain gen seed 1244 at 100 ops on sm: a copy through one result left an inner
    /// loop and met the read of the other result).
    pub fn one_place_at(&self, k: &Kernel, d: u32, at: StmtId) -> bool {
        self.one_place_within(k, d, at, false, false)
    }

    /// `one_place_at` for the form `d` an access of loop `lp`'s last trip leaves it in, where
    /// the variables of the loops around `lp` may move its address too: they keep their
    /// values past `lp`'s exit, and an access that moves with them is compared as one made
    /// there (plain gen seed 1713 on gfx1250: a copy into a slot on the outer loop's
    /// variable left an inner loop and met a copy into the other half of the buffer).
    /// With `outer_handles`, the handles of the loops around `lp` too (fixed while `lp` runs;
    /// plain gen seeds 3771 and 3842 on sm: a copy of an inner loop's last trip into an outer
    /// loop's handle). For a last-trip form only (`Bind::last`): an exit form that names an
    /// outer handle is several places, which the barrier pass and async-waits' check follow
    /// through one more loop's last trip only (plain gen seed 144 at 1,000 ops on sm_90;
    /// the barrier pass's `PIN_EXIT`).
    pub fn one_place_leaving(&self, k: &Kernel, d: u32, lp: StmtId, outer_handles: bool) -> bool {
        self.one_place_within(k, d, lp, true, outer_handles)
    }

    /// `one_place_at`, and with `outer_ivs` `one_place_leaving`.
    fn one_place_within(
        &self,
        k: &Kernel,
        d: u32,
        at: StmtId,
        outer_ivs: bool,
        outer_handles: bool,
    ) -> bool {
        if self.one_place(d) {
            return true;
        }
        let top = |l: StmtId| self.rotating.get().is_some_and(|i| i.top.contains(&l));
        let around = |v: ValueId| {
            outer_ivs
                && matches!(k.values[v].kind, ValueKind::Iv(l) if l != at && loop_inside(k, at, l))
        };
        let d = &self.descs[d as usize];
        let around_loop = |l: StmtId| outer_handles && l != at && loop_inside(k, at, l);
        d.ivs.iter().all(|&v| !address_uses_iv(d, v) || around(v))
            && d.regions.iter().all(|r| {
                r.outer.is_none()
                    && r.handle.is_none_or(|(l, h, next)| {
                        h != OVERLAP
                            && (h == next
                                || (top(l) && l != at && !loop_inside(k, at, l))
                                || around_loop(l))
                    })
            })
    }

    /// `d` made in some iteration of loop `lp`, after the loop (`Bind::exit`), when it has
    /// such a form.
    #[inline]
    pub fn exit_bound(&self, d: u32, lp: StmtId) -> Option<u32> {
        let b = self.binds.get(d as usize)?;
        b.iter()
            .find(|x| x.lp == lp && x.exit != u32::MAX)
            .map(|x| x.exit)
    }

    /// Whether every region of `a` that overlaps one of `b` is a different result of the
    /// same loop (`Region::run`): in one run of that loop they never meet.
    pub fn run_apart(&self, a: u32, b: u32) -> bool {
        let (a, b) = (&self.descs[a as usize], &self.descs[b as usize]);
        let mut any = false;
        for r1 in &a.regions {
            for r2 in &b.regions {
                if !regions_overlap(r1, r2) {
                    continue;
                }
                match (r1.run, r2.run) {
                    (Some((l1, i1)), Some((l2, i2))) if l1 == l2 && i1 != i2 => any = true,
                    _ => return false,
                }
            }
        }
        any
    }

    /// Whether descriptor `d` goes through a result of a loop (`Region::run`).
    pub fn has_run(&self, d: u32) -> bool {
        self.descs[d as usize]
            .regions
            .iter()
            .any(|r| r.run.is_some())
    }

    /// Whether an instance of `a` and a later instance of `b` may conflict. `a_carried` says
    /// how `a` relates to the iterations of the loops its addresses depend on: 0, the same
    /// iteration as `b`; 1, exactly one iteration earlier of its only such loop (`dist_iv`);
    /// `CARRIED_IN_LOOP`, some iterations earlier of that loop, the same iteration of the
    /// others; 2, unknown.
    pub fn conflict(&self, a: u32, a_carried: u8, b: u32) -> bool {
        let n = self.nested_ivs;
        let test = |x: &Desc, c: u8, y: &Desc| desc_conflict(x, c, y, n);
        test(&self.descs[a as usize], a_carried, &self.descs[b as usize])
            && self.forms_conflict(a, a_carried, b, &test)
            && self.periodic_conflict(a, a_carried, b, &test)
            && self.outer_forms_conflict(a, a_carried, b, &test, None)
    }

    /// Whether `test` finds a conflict between the forms of `a` and `b` in residues of a
    /// loop both have periodic forms in (`Accesses::periodic`) that the iteration distance
    /// `a_carried` pairs: the same residue (distance 0, or one iteration earlier of an inner
    /// loop), or the next one (one iteration earlier of that loop, its `dist_iv`); true
    /// where no such loop tells (the other tests decide).
    fn periodic_conflict(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
    ) -> bool {
        if self.periodic.is_empty() {
            return true;
        }
        let of = |d: u32| {
            self.periodic
                .get(d as usize)
                .map_or(&[][..], |v| v.as_slice())
        };
        let (pa, pb) = (of(a), of(b));
        if pa.is_empty() || pb.is_empty() {
            return true;
        }
        for f in pa {
            let Some(g) = pb.iter().find(|g| g.iv == f.iv) else {
                continue;
            };
            let n = f.forms.len();
            if n == 0 || g.forms.len() != n {
                continue;
            }
            let dist = self.dist_iv(a);
            let shift = match a_carried {
                0 => 0,
                1 if dist == Some(f.iv) => 1,
                1 | CARRIED_IN_LOOP if dist.is_some_and(|v| v != f.iv) => 0,
                _ => continue,
            };
            let meets = (0..n).any(|r| {
                let (x, y) = (f.forms[r], g.forms[(r + shift) % n]);
                let dx = &self.descs[x as usize];
                // The distance the form is left with: none once no variable is left; one
                // iteration of this loop where its words still move with it; the inner
                // loop's otherwise.
                let c = if dx.ivs.is_empty() || (a_carried == 0) {
                    0
                } else if shift == 1 {
                    u8::from(dx.ivs.contains(&f.iv))
                } else {
                    a_carried
                };
                test(dx, c, &self.descs[y as usize])
            });
            if !meets {
                return false;
            }
        }
        true
    }

    /// The induction variable in which an instance of `d` carried past a loop's back edge
    /// (`a_carried == 1`) is one iteration earlier: its innermost loop's (the others are the
    /// loops around it, in the same iteration). `None` when not known: that key is carried
    /// to an unknown distance.
    pub fn dist_iv(&self, d: u32) -> Option<ValueId> {
        dist_iv(&self.descs[d as usize], self.nested_ivs).map(|x| x.0)
    }

    /// Whether `d` has a form in each iteration of the exact loop of `iv` (`iv_forms`).
    pub fn has_iteration_forms(&self, d: u32, iv: ValueId) -> bool {
        self.forms_of(d).iter().any(|f| f.iv == iv)
    }

    /// The forms of `d` in the iterations of exact loops (`iv_forms`).
    #[inline]
    fn forms_of(&self, d: u32) -> &[IvForms] {
        self.iv_forms.get(d as usize).map_or(&[], |v| v.as_slice())
    }

    /// Whether `test` finds a conflict between some pair of iteration forms of `a` and `b`
    /// the iteration distance `a_carried` allows (see `conflict`); `test` itself where
    /// neither has forms. The induction variable of an exact loop takes each of its values
    /// in turn: in `a`'s iteration `k`, `b` (when it has forms in that loop) is in iteration
    /// `k` (distance 0), `k + 1` (distance 1, that loop being `a`'s only one) or any
    /// (unknown). A form that fixed every variable of `a` is the same in every iteration:
    /// the rest is compared at distance 0.
    fn forms_conflict(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
    ) -> bool {
        let (fa, fb) = (self.forms_of(a), self.forms_of(b));
        if fa.is_empty() && fb.is_empty() {
            // The callers tested the two descriptors themselves already.
            return true;
        }
        self.forms_conflict_top(a, a_carried, b, test, None)
    }

    /// `forms_conflict_in` at the first level, where `a` has forms in two or more exact
    /// loops: in the same iteration (`a_carried` 0), each loop's forms first, a conflict
    /// needing all (each holds alone). The forms a loop's iteration fixes may have none of
    /// their own in another loop, whose pairing the other order keeps (exec seed 4586: the
    /// outer trip's form of a write through an inner handle started from the outer one lost
    /// the inner trips, and met the same inner trip's write of another thread's word).
    fn forms_conflict_top(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
        later: Later,
    ) -> bool {
        let groups = self.forms_of(a).len();
        self.forms_conflict_from(a, a_carried, b, test, (later, None), 0)
            && (a_carried != 0
                || (1..groups).all(|g| self.forms_conflict_from(a, 0, b, test, (later, None), g)))
    }

    /// `forms_conflict` below its first level: `test` where neither has forms.
    fn forms_conflict_in(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
        later: Later,
        pin: Pin,
    ) -> bool {
        self.forms_conflict_from(a, a_carried, b, test, (later, pin), 0)
    }

    /// `forms_conflict_in` with `a`'s forms in its `group`-th exact loop taken first.
    fn forms_conflict_from(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
        (later, pin): (Later, Pin),
        group: usize,
    ) -> bool {
        let (fa, fb) = (self.forms_of(a), self.forms_of(b));
        if let Some(f) = fa.get(group) {
            let da = &self.descs[a as usize];
            let gb = fb.iter().find(|g| g.iv == f.iv);
            let n = f.forms.len();
            let live = |x: u32| x != EMPTY_FORM;
            let carried = |x: u32| {
                if self.descs[x as usize].ivs.is_empty() {
                    0
                } else {
                    a_carried
                }
            };
            // `b`'s iteration `j` of this loop, where `later` tells its residue: none of
            // another (exec seed 4417 at 100 ops: a write of the even trip met the next
            // trip's write, which the path put in the odd residue, as if in the third); nor
            // where an earlier level put `b` in another iteration (`Pinned`).
            let off =
                |j: usize| off_residue(later, f.iv, j) || pinned(pin, f.iv).is_some_and(|p| p != j);
            // The level below: `b` in iteration `j` of this loop.
            let at = |j: usize| Pinned {
                iv: f.iv,
                it: j,
                up: pin,
            };
            match a_carried {
                0 => {
                    for (i, &x) in f.forms.iter().enumerate() {
                        let y = gb.map_or(b, |g| g.forms.get(i).copied().unwrap_or(EMPTY_FORM));
                        if live(x)
                            && live(y)
                            && !off(i)
                            && self.forms_conflict_in(x, 0, y, test, later, Some(&at(i)))
                        {
                            return true;
                        }
                    }
                }
                // One iteration earlier of this loop, the loops around in the same one
                // (`dist_iv`; also where a slot of an outer loop's variable is in the address:
                // exec seed 11309 at 100 ops).
                1 if da.ivs.as_slice() == [f.iv] || self.dist_iv(a) == Some(f.iv) => {
                    for (i, &x) in f.forms.iter().enumerate().take(n.saturating_sub(1)) {
                        let y = gb.map_or(b, |g| g.forms.get(i + 1).copied().unwrap_or(EMPTY_FORM));
                        if live(x)
                            && live(y)
                            && !off(i + 1)
                            && self.forms_conflict_in(x, 0, y, test, later, Some(&at(i + 1)))
                        {
                            return true;
                        }
                    }
                }
                // One iteration (or some, `CARRIED_IN_LOOP`) earlier in an inner loop
                // (`dist_iv`), the same iteration of this one: each form meets the other's
                // form of the same iteration.
                1 | CARRIED_IN_LOOP if self.dist_iv(a).is_some_and(|v| v != f.iv) => {
                    for (i, &x) in f.forms.iter().enumerate() {
                        let y = gb.map_or(b, |g| g.forms.get(i).copied().unwrap_or(EMPTY_FORM));
                        if live(x)
                            && live(y)
                            && !off(i)
                            && self.forms_conflict_in(x, carried(x), y, test, later, Some(&at(i)))
                        {
                            return true;
                        }
                    }
                }
                _ => {
                    // Not the first iteration where `later` names this loop (executable
                    // seed 94 at 200 ops), as below.
                    let from = gb.map_or(0, |g| {
                        usize::from(later.is_some_and(|l| l.0 == g.iv)).min(g.forms.len())
                    });
                    let ys: &[u32] = gb.map_or(std::slice::from_ref(&b), |g| &g.forms[from..]);
                    // Some iterations of this loop alone: each form fixes its variable, the
                    // loops around are in the same iteration, and `b`'s iteration is a later
                    // one than `a`'s (exec seed 296 at 200 ops: a write of iteration 0 met
                    // iteration 0's other write of the same branch).
                    let alone = a_carried == CARRIED_IN_LOOP && self.dist_iv(a) == Some(f.iv);
                    for (i, &x) in f.forms.iter().enumerate().filter(|&(_, &x)| live(x)) {
                        // `b` with no forms of its own here is still in a later iteration of
                        // this run than `a`'s `i`, which `later` may rule out (exec seed 9571
                        // at 100 ops: the last trip's copy met the current trip's read, which
                        // `later` put in that last trip).
                        if alone && gb.is_none() && (i + 1..n).all(off) {
                            continue;
                        }
                        let c = if carried(x) == 0 || alone { 0 } else { 2 };
                        for (j, &y) in ys.iter().enumerate().filter(|&(_, &y)| live(y)) {
                            if gb.is_some() && ((alone && from + j <= i) || off(from + j)) {
                                continue;
                            }
                            let here = at(from + j);
                            let pin = if gb.is_some() { Some(&here) } else { pin };
                            // Without forms of its own, `b` is in an iteration earlier levels
                            // may have put it in.
                            if self.forms_conflict_in(x, c, y, test, later, pin) {
                                return true;
                            }
                        }
                    }
                }
            }
            return false;
        }
        if let Some(g) = fb.first() {
            // `a` depends on no exact loop's variable: `b` may be in any iteration of it (any
            // but the first where `later` names the loop's variable, the one an earlier level
            // put it in where one did).
            let from = usize::from(later.is_some_and(|l| l.0 == g.iv));
            for (j, &y) in g.forms.iter().enumerate().skip(from).filter(|&(j, &y)| {
                y != EMPTY_FORM
                    && !off_residue(later, g.iv, j)
                    && pinned(pin, g.iv).is_none_or(|p| p == j)
            }) {
                let pin = Pinned {
                    iv: g.iv,
                    it: j,
                    up: pin,
                };
                if self.forms_conflict_in(a, a_carried, y, test, later, Some(&pin)) {
                    return true;
                }
            }
            return false;
        }
        test(&self.descs[a as usize], a_carried, &self.descs[b as usize])
    }

    /// `conflict_across_waves` where `b` is in a later iteration than the first of the exact
    /// loop of `iv` (`a` was made in that loop's run, before its current iteration), and with
    /// `res` `(r, q)`, one that is `r` modulo `q` (counted from 0 at the loop's first
    /// iteration).
    pub fn conflict_across_waves_later(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        wave: u64,
        (iv, res): (ValueId, Option<(u8, u8)>),
    ) -> bool {
        let (r, q) = res.unwrap_or((0, 0));
        self.across_waves(a, a_carried, b, wave, Some((iv, r, q)))
    }

    /// `conflict` between two different waves of `wave` threads: not when every pair of
    /// threads touching a common byte lies in one wave (`same_wave_only`). For barriers only:
    /// a wave's own later access to an async copy's bytes still needs a counter wait.
    pub fn conflict_across_waves(&self, a: u32, a_carried: u8, b: u32, wave: u64) -> bool {
        self.across_waves(a, a_carried, b, wave, None)
    }

    /// `conflict_across_waves`; with `later`, `b` is in a later iteration than the first of
    /// the exact loop of that variable.
    fn across_waves(&self, a: u32, a_carried: u8, b: u32, wave: u64, later: Later) -> bool {
        let (da, db) = (&self.descs[a as usize], &self.descs[b as usize]);
        let n = self.nested_ivs;
        if !desc_conflict(da, a_carried, db, n) || same_wave_only(da, db, wave) {
            return false;
        }
        let (fa, fb) = (self.forms_of(a), self.forms_of(b));
        // The descriptors themselves were tested above.
        let test =
            |x: &Desc, c: u8, y: &Desc| desc_conflict(x, c, y, n) && !same_wave_only(x, y, wave);
        (fa.is_empty() && fb.is_empty() || self.forms_conflict_top(a, a_carried, b, &test, later))
            && self.periodic_conflict(a, a_carried, b, &test)
            && self.outer_forms_conflict(a, a_carried, b, &test, later)
    }

    /// The forms of `d` in the iterations of exact loops around the inner loops whose
    /// handles it goes through (`outer_iv_forms`).
    #[inline]
    fn outer_of(&self, d: u32) -> &[IvForms] {
        self.outer_iv_forms
            .get(d as usize)
            .map_or(&[], |v| v.as_slice())
    }

    /// A second look at two instances in the same iteration of an exact loop around them,
    /// one of which has forms in that loop's iterations around an inner loop whose handle
    /// started from that loop's (`outer_iv_forms`): both forms of each iteration, paired.
    /// It and `forms_conflict_in`'s pairing each hold alone; a conflict needs both (exec seed
    /// 780 at 100 ops: pairing the outer loop's forms first lost the inner loop's pairing,
    /// which told the accesses apart). The same iteration: `a_carried` 0, or 1 where `a` is
    /// one trip earlier in a loop inside that one (`dist_iv`; exec seed 6250: a read and
    /// the next inner trip's write through one inner handle); true (no second look) else.
    fn outer_forms_conflict(
        &self,
        a: u32,
        a_carried: u8,
        b: u32,
        test: &dyn Fn(&Desc, u8, &Desc) -> bool,
        later: Later,
    ) -> bool {
        let (oa, ob) = (self.outer_of(a), self.outer_of(b));
        if oa.is_empty() && ob.is_empty() {
            return true;
        }
        let inner = match a_carried {
            0 => None,
            1 => match self.dist_iv(a) {
                Some(v) => Some(v),
                None => return true,
            },
            _ => return true,
        };
        // A descriptor's second-look forms where it has them (`slotted`), its usual ones else.
        let group = |d: u32, iv: ValueId| {
            self.outer_of(d)
                .iter()
                .chain(self.forms_of(d))
                .find(|g| g.iv == iv)
        };
        for g in oa.iter().chain(ob) {
            // One trip earlier in this loop itself: no longer its same iteration.
            if inner == Some(g.iv) {
                continue;
            }
            let (Some(ga), Some(gb)) = (group(a, g.iv), group(b, g.iv)) else {
                continue;
            };
            if ga.forms.len() != gb.forms.len() {
                continue;
            }
            // Not the first iteration where `later` names this loop.
            let from = usize::from(later.is_some_and(|l| l.0 == g.iv));
            let meets =
                ga.forms
                    .iter()
                    .zip(&gb.forms)
                    .enumerate()
                    .skip(from)
                    .any(|(i, (&x, &y))| {
                        x != EMPTY_FORM
                            && y != EMPTY_FORM
                            && !off_residue(later, g.iv, i)
                            && self.forms_conflict_in(x, a_carried, y, test, later, None)
                    });
            if !meets {
                return false;
            }
        }
        true
    }
}

fn sel_hash(sel: &Selector) -> u64 {
    let mut h = FxHasher::default();
    match sel {
        Selector::Whole => h.write_u64(0),
        Selector::Bytes { lo, hi } => {
            h.write_u64(1);
            h.write_u64(*lo);
            h.write_u64(*hi);
        }
        Selector::Index(e) => {
            h.write_u64(2);
            e.hash(&mut h);
        }
    }
    h.finish()
}

/// The accesses of some ops, with descriptors numbered from 0 in first-seen order.
struct Part {
    descs: Vec<Desc>,
    accesses: Vec<Access>,
    /// Each op with accesses and the range of its access ids.
    ops: Vec<(StmtId, u32, u32)>,
}

/// An effect's memory value, mode, threads and selector hash: effects that repeat one seen
/// before are looked up by it (`describe`, `Accesses::branch_forms`), the selectors kept to
/// compare.
type SelKey = (ValueId, u8, (i64, i64), u64);

/// `Accesses::branch_forms`'s forms of the effects met so far, by `SelKey`.
type FormsSeen = FxMap<SelKey, Vec<(Selector, [u32; 2])>>;

/// (access, `if`, [then form, else form]), sorted: `Accesses::branch_forms`.
pub type BranchForms = Vec<(u32, StmtId, [u32; 2])>;

/// (access, loop, `if`, [then form, else form]), sorted: `Accesses::branch_forms`.
pub type FirstBranchForms = Vec<(u32, StmtId, StmtId, [u32; 2])>;

fn sel_key(e: &syncopt_ir::Effect, mode: Mode, th: Option<(i64, i64)>) -> SelKey {
    (
        e.mem.value,
        mode as u8,
        th.unwrap_or((i64::MIN, i64::MIN)),
        sel_hash(&e.mem.sel),
    )
}

/// What `seen` holds for an effect of key `key` and selector `sel`.
fn seen_before<T: Copy>(
    seen: &FxMap<SelKey, Vec<(Selector, T)>>,
    key: &SelKey,
    sel: &Selector,
) -> Option<T> {
    seen.get(key)
        .and_then(|v| v.iter().find(|x| x.0 == *sel).map(|x| x.1))
}

/// Whether `v` is a result of a uniform `if` whose condition names one induction variable
/// and constants (`Desc::via`).
fn result_of_iv_if(k: &Kernel, v: ValueId) -> bool {
    let ValueKind::Result { stmt, .. } = k.values[v].kind else {
        return false;
    };
    match &k.stmts[stmt].kind {
        StmtKind::If(i) => {
            i.uniformity == syncopt_ir::Uniformity::Uniform
                && matches!(i.cond.expr.terms.as_slice(),
                    [(Var::Value(x), _)] if matches!(k.values[*x].kind, ValueKind::Iv(_)))
        }
        _ => false,
    }
}

fn describe(
    k: &Kernel,
    threads: Option<u64>,
    ops: &[(StmtId, syncopt_ir::expr::TidRange)],
    exact: &LoopInfo,
) -> Part {
    let mut r = Resolver::new(k, exact);
    let mut out = Part {
        descs: Vec::new(),
        accesses: Vec::with_capacity(ops.len()),
        ops: Vec::with_capacity(ops.len()),
    };
    let mut intern: FxMap<Desc, u32> = FxMap::default();
    // Most effects repeat a (memory value, mode, selector, threads) seen before: their
    // descriptor is looked up without resolving regions or building a `Desc`. Keyed by a
    // hash of the selector, with the selectors themselves kept to compare.
    let mut seen: FxMap<SelKey, Vec<(Selector, u32)>> = FxMap::default();
    for &(s, tids) in ops {
        let StmtKind::Op(op) = &k.stmts[s].kind else {
            continue;
        };
        let sloc = k.stmts[s].loc;
        let lo = out.accesses.len() as u32;
        for e in &op.effects {
            let mode = match e.kind {
                AccessKind::Read => Mode::Read,
                AccessKind::Write => Mode::Write,
                AccessKind::Atomic => Mode::Atomic,
            };
            let th = threads.map(|t| (tids.0.max(0), tids.1.min(t as i64)));
            let key = sel_key(e, mode, th);
            let id = match seen_before(&seen, &key, &e.mem.sel) {
                Some(u32::MAX) => continue,
                Some(id) => id,
                None => {
                    let regions = r.regions(e.mem.value);
                    let id = if regions.is_empty() {
                        u32::MAX
                    } else {
                        let mut desc = make_desc(k, mode, regions, &e.mem.sel, th);
                        if desc.regions.iter().any(|r| r.handle.is_some()) {
                            desc.bind = Some(Box::new(BindSrc {
                                value: e.mem.value,
                                sel: Sel::of(&e.mem.sel),
                                threads: th,
                                fixed: Vec::new(),
                            }));
                        }
                        if result_of_iv_if(k, e.mem.value) {
                            desc.via = Some(e.mem.value);
                        }
                        match intern.get(&desc) {
                            Some(&id) => id,
                            None => {
                                let n = intern.len() as u32;
                                out.descs.push(desc.clone());
                                intern.insert(desc, n);
                                n
                            }
                        }
                    };
                    seen.entry(key).or_default().push((e.mem.sel.clone(), id));
                    if id == u32::MAX {
                        continue;
                    }
                    id
                }
            };
            out.accesses.push(Access {
                stmt: s,
                loc: e.loc.or(sloc),
                desc: id,
                mode,
            });
        }
        let hi = out.accesses.len() as u32;
        if hi > lo {
            out.ops.push((s, lo, hi));
        }
    }
    out
}

/// Ops reachable from `b` in program order, each with the threads `[lo, hi)` that can run it.
/// Ops that never run (a branch an enclosing `if` decides: `if C { if C {} else { dead } }`)
/// have no accesses, for uniform conditions on induction variables modulo a constant (which
/// the verifier evaluates on every path; it explores both branches of one on parameters).
fn ops_with_tids(
    k: &Kernel,
    b: syncopt_ir::BlockId,
    tids: syncopt_ir::expr::TidRange,
    out: &mut Vec<(StmtId, syncopt_ir::expr::TidRange)>,
) {
    ops_known(k, b, tids, &mut Vec::new(), out);
}

/// `ops_with_tids` knowing the value of the conditions of the enclosing `if`s (`known`).
fn ops_known(
    k: &Kernel,
    b: syncopt_ir::BlockId,
    tids: syncopt_ir::expr::TidRange,
    known: &mut Vec<(syncopt_ir::Cond, bool)>,
    out: &mut Vec<(StmtId, syncopt_ir::expr::TidRange)>,
) {
    for &s in &k.blocks[b].stmts {
        match &k.stmts[s].kind {
            StmtKind::Op(_) => out.push((s, tids)),
            StmtKind::If(i) => {
                let (t, e) = if i.uniformity == syncopt_ir::Uniformity::Divergent {
                    i.cond.tid_split()
                } else {
                    (syncopt_ir::expr::ALL_TIDS, syncopt_ir::expr::ALL_TIDS)
                };
                let meet = |r: syncopt_ir::expr::TidRange| (tids.0.max(r.0), tids.1.min(r.1));
                let decided = i.uniformity == syncopt_ir::Uniformity::Uniform
                    && i.cond.modulo.is_some_and(|m| m > 0)
                    && i.cond.expr.terms.iter().all(|(v, _)| match v {
                        Var::Value(v) => matches!(k.values[*v].kind, ValueKind::Iv(_)),
                        Var::Tid => false,
                    });
                let value = if decided {
                    cond_value(known, &i.cond)
                } else {
                    None
                };
                let branches = [(i.then_block, t, true)]
                    .into_iter()
                    .chain(i.else_block.map(|eb| (eb, e, false)));
                for (blk, r, v) in branches {
                    if value.is_some_and(|x| x != v) {
                        continue;
                    }
                    if decided {
                        known.push((i.cond.clone(), v));
                    }
                    ops_known(k, blk, meet(r), known, out);
                    if decided {
                        known.pop();
                    }
                }
            }
            kind => {
                for c in kind.child_block_ids() {
                    ops_known(k, c, tids, known, out);
                }
            }
        }
    }
}

/// The value of `c` where the conditions `known` have the values given, when they decide
/// it: the same condition, or one of the same expression (and modulus) once an enclosing
/// one fixed its value (`e == x` true or `e != x` false). The variables of a condition are
/// those of loops around its `if`, which keep their values inside it.
fn cond_value(known: &[(syncopt_ir::Cond, bool)], c: &syncopt_ir::Cond) -> Option<bool> {
    use syncopt_ir::expr::CmpOp;
    for (kc, kv) in known.iter().rev() {
        if kc == c {
            return Some(*kv);
        }
        if kc.expr != c.expr || kc.modulo != c.modulo {
            continue;
        }
        let x = match (kc.cmp, *kv) {
            (Some((CmpOp::Eq, x)), true) | (Some((CmpOp::Ne, x)), false) => x,
            _ => continue,
        };
        return Some(match c.cmp {
            None => x != 0,
            Some((op, rhs)) => op.holds(x, rhs),
        });
    }
    None
}

/// `threads`: the threads `[lo, hi)` that can run the access, when the workgroup size is known.
fn make_desc(
    k: &Kernel,
    mode: Mode,
    mut regions: Vec<Region>,
    sel: &Selector,
    threads: Option<(i64, i64)>,
) -> Desc {
    let mut owner = None;
    let mut lane = None;
    match sel {
        Selector::Whole => {}
        Selector::Bytes { lo, hi } => {
            for r in &mut regions {
                narrow(r, *lo, *hi);
            }
        }
        Selector::Index(e) => {
            // Words from a slot of an aliasing buffer kept aside may run past it: not kept.
            for r in &mut regions {
                if r.local.is_some() && r.range.is_none() {
                    r.over = None;
                }
            }
            let tid_only = e.terms.iter().all(|(v, _)| *v == Var::Tid);
            lane = Some(Box::new(Lane {
                expr: e.clone(),
                bases: regions
                    .iter()
                    .map(|r| match (r.range, &r.slot, r.local, r.hull) {
                        (Some((lo, _)), None, None, false) => Some(lo),
                        _ => None,
                    })
                    .collect(),
                tids: threads.filter(|_| tid_only),
                threads,
                slot_bases: regions
                    .iter()
                    .map(|r| match (&r.slot, r.hull) {
                        (Some(s), false) => Some(s.inner.0),
                        _ => None,
                    })
                    .collect(),
            }));
            if let [Region {
                range: Some((lo, _)),
                slot: None,
                handle: None,
                hull: false,
                ..
            }] = regions.as_slice()
            {
                owner = Some(Owner {
                    base: *lo,
                    expr: e.clone(),
                });
            }
            // Words touched: [min, max] over threads and the values of the induction
            // variables of the index (loops with a constant lower bound and a known maximum
            // trip count).
            // Words touched: [min, max] over threads and the values of the induction
            // variables of the index (loops with a constant lower bound and a known maximum
            // trip count). The verifier takes an index whose values it knows as the words it
            // names, past the end of the view or slot if need be.
            let mut in_slot = false;
            if let Some((w0, w1)) = threads.and_then(|t| index_words(k, e, t)) {
                let huge = w1 >= (u64::MAX / 8) as i128;
                in_slot = w0 >= 0 && !huge;
                let bases: Vec<Option<u64>> = lane.as_ref().map_or(Vec::new(), |l| l.bases.clone());
                for (i, r) in regions.iter_mut().enumerate() {
                    // Through an aliasing buffer: the words' bytes from the view's start, in or
                    // past the view (set after the narrowing below, which stops at its end).
                    // A hull (an unknown slot of the view): from any start in it.
                    let hull = r.hull;
                    let local = r.local.take().and_then(|(buf, a, b)| {
                        let lo = i128::from(a) + 4 * w0;
                        let hi = i128::from(if hull { b } else { a }) + 4 * w1 + 4;
                        match (u64::try_from(lo), u64::try_from(hi)) {
                            (Ok(lo), Ok(hi)) if !huge => Some((buf, lo, hi)),
                            _ => None,
                        }
                    });
                    if huge {
                        r.range = None;
                    } else if w1 >= 0 {
                        reach(r, 4 * w1 as u64 + 4);
                    }
                    // Negative words lie before the start of the view; from a known start,
                    // the last word still bounds the bytes.
                    if let (true, Some((a, b))) = (w0 < 0, r.range) {
                        let back =
                            u64::try_from(w0.unsigned_abs().saturating_mul(4)).unwrap_or(u64::MAX);
                        let end = match (bases.get(i).copied().flatten(), huge) {
                            (Some(base), false) if base == a => {
                                let last = base as i128 + 4 * w1 + 4;
                                b.min(u64::try_from(last.max(0)).unwrap_or(b))
                            }
                            _ => b,
                        };
                        let start = a.saturating_sub(back);
                        r.range = Some((start, end.max(start)));
                        drop_slot(r);
                    }
                    if in_slot {
                        narrow(r, 4 * w0 as u64, 4 * w1 as u64 + 4);
                    }
                    r.local = local;
                }
            }
            // Words not known to stay in a slot may reach the slots around it (a view is a
            // byte range of its buffer): the slot says nothing about them.
            if !in_slot {
                for r in &mut regions {
                    drop_slot(r);
                }
            }
        }
    }
    // A slot kept through a handle or loop result holds only for an access shown to stay in
    // it (a byte range or the words of all threads that fit the slot): else it is dropped,
    // and so is a handle whose values are told apart only by their slots.
    for r in &mut regions {
        if !(r.kept || r.apart) {
            continue;
        }
        let stays = r.slot.is_some();
        if !stays {
            drop_slot(r);
            if r.apart {
                r.handle = None;
                r.outer = None;
            }
        }
    }
    let mut ivs = Vec::new();
    let mut note = |e: &AffineExpr| {
        for (v, _) in &e.terms {
            if let Var::Value(v) = v {
                if matches!(k.values[*v].kind, ValueKind::Iv(_)) && !ivs.contains(v) {
                    ivs.push(*v);
                }
            }
        }
    };
    // The slot of a region reached through a rotating handle is chosen by a loop around the
    // handle's loop (the slot view is an initial value): no access through the handle meets
    // another iteration of that loop without leaving the handle's loop first, which makes
    // it carried to an unknown distance, so its induction variable is not needed here.
    for r in &regions {
        if let (Some(s), None) | (None, Some(s)) = (&r.slot, &r.over) {
            if r.handle.is_none() {
                note(&s.index);
            }
        }
    }
    if let Some(o) = &owner {
        note(&o.expr);
    }
    // Per-thread words through handles too (`Lane`): their variables are tracked, so that the
    // words are compared at the distance callers pass.
    if let Some(l) = &lane {
        note(&l.expr);
    }
    for r in &regions {
        if let Some((st, _, _)) = r.handle {
            if let StmtKind::For(f) = &k.stmts[st].kind {
                if !ivs.contains(&f.iv) {
                    ivs.push(f.iv);
                }
            }
        }
    }
    ivs.sort();
    let mut rotating = regions
        .iter()
        .filter_map(|r| r.handle.filter(|h| h.1 != OVERLAP).map(|h| h.0));
    let rot = rotating
        .next()
        .filter(|&l| rotating.all(|m| m == l))
        .and_then(|l| match &k.stmts[l].kind {
            StmtKind::For(f) => Some((l, f.iv)),
            _ => None,
        });
    // The iteration distances callers pass are about `ivs`: words that move with another
    // induction variable would be compared at a wrong distance.
    let tracked = |e: &AffineExpr| {
        e.terms.iter().all(|(v, _)| match v {
            Var::Value(v) => !matches!(k.values[*v].kind, ValueKind::Iv(_)) || ivs.contains(v),
            _ => true,
        })
    };
    if lane.as_ref().is_some_and(|l| !tracked(&l.expr)) {
        lane = None;
    }
    let steps = ivs
        .iter()
        .map(|v| match k.values[*v].kind {
            ValueKind::Iv(st) => match &k.stmts[st].kind {
                StmtKind::For(f) => f.step,
                _ => 0,
            },
            _ => 0,
        })
        .collect();
    Desc {
        mode,
        regions,
        owner,
        ivs,
        steps,
        bind: None,
        lane,
        only: Vec::new(),
        via: None,
        rot,
    }
}

/// The loop whose induction variable `v` is, with its data and constant lower bound; `None`
/// when `v` is no induction variable or its loop starts at a parameter.
fn const_start_loop(k: &Kernel, v: ValueId) -> Option<(StmtId, &syncopt_ir::ForData, i64)> {
    let ValueKind::Iv(st) = k.values[v].kind else {
        return None;
    };
    let StmtKind::For(f) = &k.stmts[st].kind else {
        return None;
    };
    let syncopt_ir::Bound::Const(lo) = f.lo else {
        return None;
    };
    Some((st, f, lo))
}

/// The words `[min, max]` an index may take over threads `[t0, t1)` and the values of its
/// induction variables (each loop's from a constant lower bound over its maximum trip count);
/// `None` when a variable is unbounded. Also async-waits' test of whether an index stays in
/// its slot.
pub fn index_words(k: &Kernel, e: &AffineExpr, (t0, t1): (i64, i64)) -> Option<(i128, i128)> {
    let (mut w0, mut w1) = (e.constant as i128, e.constant as i128);
    for &(v, a) in &e.terms {
        let (x0, x1) = match v {
            Var::Tid => (t0 as i128, (t1 as i128 - 1).max(t0 as i128)),
            Var::Value(v) => const_start_loop(k, v)?.1.iv_range()?,
        };
        let a = a as i128;
        let (y0, y1) = (a * x0, a * x1);
        w0 += y0.min(y1);
        w1 += y0.max(y1);
    }
    Some((w0, w1))
}

/// Widens `r` to the bytes words up to `end` (bytes from the start of the view, slot or
/// hull) reach past its end: the verifier takes an index with known values as it is, not
/// cut to the view it indexes.
fn reach(r: &mut Region, end: u64) {
    let Some((a, b)) = r.range else {
        return;
    };
    let far = match (&r.slot, r.hull) {
        (None, false) => a.saturating_add(end),
        (Some(s), false) => {
            s.lo.saturating_add(u64::from(s.count.saturating_sub(1)).saturating_mul(s.size))
                .saturating_add(s.inner.0)
                .saturating_add(end)
        }
        // A hull's bytes start anywhere in it.
        (_, true) => b.saturating_add(end),
    };
    if far > b {
        r.range = Some((a, far));
    }
}

fn narrow(r: &mut Region, lo: u64, hi: u64) {
    match (r.range, r.slot.take()) {
        // A sub-range of a slot stays in the slotted range; the slot test is kept only when
        // the sub-range fits one slot, which then records the bytes it touches.
        (Some(_), Some(mut s)) if s.inner.0.saturating_add(hi) <= s.size => {
            let nlo = s.inner.0.saturating_add(lo).min(s.inner.1);
            let nhi = s.inner.0.saturating_add(hi).min(s.inner.1).max(nlo);
            s.inner = (nlo, nhi);
            r.slot = Some(s);
        }
        // The sub-range spans slots: it starts at an unknown slot's start (the slot it
        // starts in is kept aside, see `Region::over`).
        (Some(_), Some(mut s)) => {
            r.hull = true;
            let a = s.inner.0.saturating_add(lo);
            s.inner = (a, s.inner.0.saturating_add(hi).max(a));
            r.over = Some(s);
        }
        // A hull's bytes start anywhere in it: offsets from its start say nothing.
        (Some(_), None) if r.hull => {}
        (Some((a, b)), None) => {
            let nlo = a.saturating_add(lo).min(b);
            let nhi = a.saturating_add(hi).min(b).max(nlo);
            r.range = Some((nlo, nhi));
        }
        // A slot of an aliasing buffer kept aside (`Region::over` with `local`): the
        // sub-range within the slot, while it fits.
        (None, None) if r.hull && r.local.is_some() => {
            if let Some(s) = r.over.as_mut() {
                if s.inner.0.saturating_add(hi) <= s.size {
                    let a = s.inner.0.saturating_add(lo).min(s.inner.1);
                    s.inner = (a, s.inner.0.saturating_add(hi).min(s.inner.1).max(a));
                } else {
                    r.over = None;
                }
            }
        }
        (None, None) if r.hull => {}
        (None, None) => {
            if let Some((buf, a, b)) = r.local {
                let nlo = a.saturating_add(lo).min(b);
                let nhi = a.saturating_add(hi).min(b).max(nlo);
                r.local = Some((buf, nlo, nhi));
            }
        }
        _ => {}
    }
}

/// Whether two regions may share a byte.
fn regions_overlap(r1: &Region, r2: &Region) -> bool {
    if r1.root != r2.root || !overlap(r1.range, r2.range) {
        return false;
    }
    // Two regions without a slot: their ranges were compared above.
    let slotted = |r: &Region| r.slot.is_some() || r.over.is_some();
    if (slotted(r1) || slotted(r2)) && !overlap(slot_bytes(r1), slot_bytes(r2)) {
        return false;
    }
    // A slot of a variable index against bytes of no slot: slot by slot, the bytes it may
    // touch in each (exec seed 152 at 200 ops: the upper halves of two slots against the
    // lower half of the first).
    let apart_by_slot = |a: &Region, b: &Region| {
        b.slot.is_none()
            && b.over.is_none()
            && a.over.is_none()
            && a.slot
                .as_ref()
                .is_some_and(|s| s.count <= 64 && each_slot(s, b.range, |_| false))
    };
    if apart_by_slot(r1, r2) || apart_by_slot(r2, r1) {
        return false;
    }
    // Disjoint bytes within equal slots of one slotted range: whatever the two slot indices,
    // they never share a byte.
    if let (Some(s1), Some(s2)) = (&r1.slot, &r2.slot) {
        if s1.lo == s2.lo
            && s1.size == s2.size
            && s1.count == s2.count
            && !(s1.inner.0 < s2.inner.1 && s2.inner.0 < s1.inner.1)
        {
            return false;
        }
    }
    match (r1.local, r2.local) {
        (Some((b1, l1, h1)), Some((b2, l2, h2))) if b1 == b2 => {
            l1 < h2 && l2 < h1 && local_slots_meet(r1, r2) && local_slots_meet(r2, r1)
        }
        _ => true,
    }
}

/// For two regions of one aliasing buffer (`Region::local`): whether some slot `r1` keeps
/// aside (`Region::over`, any index) may share a byte with `r2`'s bytes, or, both slots of
/// one slotting, whether their bytes within a slot meet. True when `r1` keeps no slot.
fn local_slots_meet(r1: &Region, r2: &Region) -> bool {
    fn local_slot(r: &Region) -> Option<&SlotInfo> {
        r.over.as_ref().filter(|_| r.range.is_none())
    }
    let Some(s1) = local_slot(r1) else {
        return true;
    };
    if let Some(s2) = local_slot(r2) {
        if (s1.lo, s1.size, s1.count) == (s2.lo, s2.size, s2.count)
            && !(s1.inner.0 < s2.inner.1 && s2.inner.0 < s1.inner.1)
        {
            return false;
        }
    }
    let Some((_, l2, h2)) = r2.local else {
        return true;
    };
    s1.count > 64 || !each_slot(s1, Some((l2, h2)), |_| false)
}

/// Whether two regions are different slots of one slotting whatever the values of the
/// variables of their indices, as long as both take the same values (the same point).
fn slots_apart(r1: &Region, r2: &Region) -> bool {
    match (&r1.slot, &r2.slot) {
        (Some(s1), Some(s2)) => {
            indices_compare(s1, s2)
                && (s1.index.constant as i128 - s2.index.constant as i128)
                    .rem_euclid(s1.count.max(1) as i128)
                    != 0
        }
        _ => false,
    }
}

/// Whether two slots' indices tell them apart by their constants: one slotting, both indices
/// known (`SlotInfo::any`) with the same variable terms.
fn indices_compare(s1: &SlotInfo, s2: &SlotInfo) -> bool {
    !s1.any
        && !s2.any
        && s1.lo == s2.lo
        && s1.size == s2.size
        && s1.count == s2.count
        && s1.index.terms == s2.index.terms
}

/// The bytes a region may touch: for a slot whose index is a constant, the bytes of that one
/// slot it may touch; else its range.
fn slot_bytes(r: &Region) -> Option<(u64, u64)> {
    let bytes = fixed_slot_bytes;
    match (&r.slot, &r.over) {
        (Some(s), _) if s.index.terms.is_empty() && !s.any && !r.hull => bytes(s).or(r.range),
        (None, Some(s)) if s.index.terms.is_empty() && r.range.is_some() => bytes(s).or(r.range),
        _ => r.range,
    }
}

/// The bytes slot `s` touches when its index is the constant `s.index.constant`.
fn fixed_slot_bytes(s: &SlotInfo) -> Option<(u64, u64)> {
    let j = s.index.constant.rem_euclid(i64::from(s.count.max(1))) as u64;
    let start = s.lo.checked_add(j.checked_mul(s.size)?)?;
    Some((start.checked_add(s.inner.0)?, start.checked_add(s.inner.1)?))
}

fn overlap(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> bool {
    match (a, b) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => true,
    }
}

fn same_terms_except_tid(a: &AffineExpr, b: &AffineExpr) -> bool {
    let fa = a.terms.iter().filter(|t| t.0 != Var::Tid);
    let fb = b.terms.iter().filter(|t| t.0 != Var::Tid);
    fa.eq(fb)
}

/// Whether per-thread ownership rules a conflict out: the two accesses touch the same word
/// only from the same thread, or never overlap at all.
fn owners_exclude(o1: &Owner, o2: &Owner, shift: i64) -> bool {
    words_exclude((o1.base, &o1.expr), (o2.base, &o2.expr), shift)
}

/// `owners_exclude` for words `base + 4 * expr(tid)`.
fn words_exclude((b1, e1): (u64, &AffineExpr), (b2, e2): (u64, &AffineExpr), shift: i64) -> bool {
    let a = e1.coef(Var::Tid);
    if a == 0 || a != e2.coef(Var::Tid) || !same_terms_except_tid(e1, e2) {
        return false;
    }
    let p1 = b1 as i128 + 4 * e1.constant as i128;
    let p2 = b2 as i128 + 4 * (e2.constant as i128 + shift as i128);
    let diff = p2 - p1; // address1(t1) == address2(t2) + ... : 4a(t1 - t2) = diff
    let step = 4 * a as i128;
    // Any k != 0 with |step * k - diff| < 4 lets two different threads share a byte.
    let q = diff.div_euclid(step);
    for k in [q - 1, q, q + 1, q + 2] {
        if k != 0 && (step * k - diff).abs() < 4 {
            return false;
        }
    }
    true
}

type Words<'a> = (u64, &'a AffineExpr);

/// The words of region `i` of `a` and region `j` of `b`, when both have a known start; or,
/// in two slots of one slotting, relative to the slot's start when the words of both stay in
/// their slot (with the same slot they share its start; with two different ones no byte).
/// Both indices must depend on `tid` alone (the same words in every iteration).
fn lane_words<'a>(a: &'a Desc, i: usize, b: &'a Desc, j: usize) -> Option<(Words<'a>, Words<'a>)> {
    let (l1, l2) = (a.lane.as_ref()?, b.lane.as_ref()?);
    if let (Some(b1), Some(b2)) = (*l1.bases.get(i)?, *l2.bases.get(j)?) {
        return Some(((b1, &l1.expr), (b2, &l2.expr)));
    }
    let (s1, s2) = (
        a.regions.get(i)?.slot.as_ref()?,
        b.regions.get(j)?.slot.as_ref()?,
    );
    if (s1.lo, s1.size, s1.count) != (s2.lo, s2.size, s2.count) {
        return None;
    }
    let b1 = (*l1.slot_bases.get(i)?)?;
    let b2 = (*l2.slot_bases.get(j)?)?;
    (stays_in_slot(l1, s1, b1) && stays_in_slot(l2, s2, b2))
        .then_some(((b1, &l1.expr), (b2, &l2.expr)))
}

/// Threads a workgroup may have for `same_wave_only` to look at each of them.
const MAX_LANE_THREADS: i64 = 4096;

/// Whether every pair of threads of two accesses that touch a common byte lies in one and the
/// same wave of `wave` threads (a wave sees its own accesses in order: no barrier between
/// them), in every pair of their regions that may overlap. Both indices depend on `tid`
/// alone, so the answer holds at any iteration distance. `false` when unknown.
pub fn same_wave_only(a: &Desc, b: &Desc, wave: u64) -> bool {
    let (Some(l1), Some(l2)) = (&a.lane, &b.lane) else {
        return false;
    };
    let (Some(x), Some(y)) = (l1.tids, l2.tids) else {
        return false;
    };
    for (i, r1) in a.regions.iter().enumerate() {
        for (j, r2) in b.regions.iter().enumerate() {
            if !regions_overlap(r1, r2) {
                continue;
            }
            let same = match lane_words(a, i, b, j) {
                Some((w1, w2)) => words_same_wave(w1, x, w2, y, wave),
                // A slot against a known start, slot by slot (the loop picks one of them).
                None => match (l1.bases.get(i).copied(), l2.bases.get(j).copied()) {
                    (Some(Some(b1)), Some(None)) => {
                        slot_words(b, l2, j).is_some_and(|(s2, sb2)| {
                            each_slot(&s2, r1.range, |start| {
                                words_same_wave((b1, &l1.expr), x, (start + sb2, &l2.expr), y, wave)
                            })
                        })
                    }
                    (Some(None), Some(Some(b2))) => {
                        slot_words(a, l1, i).is_some_and(|(s1, sb1)| {
                            each_slot(&s1, r2.range, |start| {
                                words_same_wave((start + sb1, &l1.expr), x, (b2, &l2.expr), y, wave)
                            })
                        })
                    }
                    _ => false,
                },
            };
            if !same {
                return false;
            }
        }
    }
    true
}

/// Region `x` of `d` as a slot whose words (`l`) stay in it: the slot and the words' start
/// in it.
fn slot_words(d: &Desc, l: &Lane, x: usize) -> Option<(SlotInfo, u64)> {
    let s = d.regions.get(x)?.slot.clone()?;
    let sb = (*l.slot_bases.get(x)?)?;
    stays_in_slot(l, &s, sb).then_some((s, sb))
}

/// Whether threads `x` touching words `w1` and threads `y` touching words `w2` share a byte
/// only within one wave of `wave` threads.
fn words_same_wave(
    (base1, e1): Words,
    (x0, x1): (i64, i64),
    (base2, e2): Words,
    (y0, y1): (i64, i64),
    wave: u64,
) -> bool {
    if wave == 0 || x1 - x0 > MAX_LANE_THREADS || y1 - y0 > MAX_LANE_THREADS {
        return false;
    }
    let ws = wave.min(i64::MAX as u64) as i64;
    let (x0, y0) = (x0.max(0), y0.max(0));
    let (a1, c1) = (e1.coef(Var::Tid) as i128, e1.constant as i128);
    let (a2, c2) = (e2.coef(Var::Tid) as i128, e2.constant as i128);
    let addr2 = |t: i64| base2 as i128 + 4 * (a2 * t as i128 + c2);
    for t in x0..x1 {
        let p1 = base1 as i128 + 4 * (a1 * t as i128 + c1);
        if a2 == 0 {
            // One word for every thread of y: another wave among them shares it.
            let apart = (addr2(y0) - p1).abs() >= 4;
            let in_t_wave = y0 / ws == t / ws && (y1 - 1) / ws == t / ws;
            if !apart && y0 < y1 && !in_t_wave {
                return false;
            }
            continue;
        }
        // Threads t2 whose word starts within 4 bytes of p1: around (p1 - addr2(0)) / 4a2.
        let q = (p1 - addr2(0)).div_euclid(4 * a2);
        for d in -1..=2 {
            let t2 = q + d;
            if t2 < y0 as i128 || t2 >= y1 as i128 {
                continue;
            }
            let t2 = t2 as i64;
            if (addr2(t2) - p1).abs() < 4 && t2 / ws != t / ws {
                return false;
            }
        }
    }
    true
}

/// (op, loop, iteration) of `parity_fixes` as (op, loop, residue, the handles' period).
fn residues_of(k: &Kernel, fixes: Vec<(StmtId, StmtId, u64)>) -> Vec<(StmtId, StmtId, u64, u64)> {
    let mut out = Vec::new();
    for (op, lp, it) in fixes {
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            continue;
        };
        let Some(q) = permutation(k, lp, f).and_then(|(o, _)| rotation_period(&o)) else {
            continue;
        };
        out.push((op, lp, it % q, q));
    }
    out
}

/// The ops under `b` that `Accesses::bind_parity` rebinds: (op, loop, iteration residue).
/// `known`: the decided conditions of the enclosing `if`s and the branch taken.
fn parity_fixes<'k>(
    k: &'k Kernel,
    b: syncopt_ir::BlockId,
    known: &mut Vec<(&'k syncopt_ir::Cond, bool)>,
    out: &mut Vec<(StmtId, StmtId, u64)>,
) {
    branch_fixes(k, b, known, &|c, v| parity_fix(k, c, v), out);
}

/// The ops under `b` with the loop and iteration residue `fix` gives for the innermost
/// decided condition (of `known`, then of the uniform `if`s on one induction variable around
/// them: modulo a constant, or in a loop the verifier unrolls) it gives one for.
fn branch_fixes<'k>(
    k: &'k Kernel,
    b: syncopt_ir::BlockId,
    known: &mut Vec<(&'k syncopt_ir::Cond, bool)>,
    fix: &impl Fn(&syncopt_ir::Cond, bool) -> Option<(StmtId, u64)>,
    out: &mut Vec<(StmtId, StmtId, u64)>,
) {
    branch_fixes_of(k, b, known, fix, out, false);
}

/// `branch_fixes`; with `every`, one per loop for each decided condition around the op that
/// gives one (innermost first), not only the innermost.
fn branch_fixes_of<'k>(
    k: &'k Kernel,
    b: syncopt_ir::BlockId,
    known: &mut Vec<(&'k syncopt_ir::Cond, bool)>,
    fix: &impl Fn(&syncopt_ir::Cond, bool) -> Option<(StmtId, u64)>,
    out: &mut Vec<(StmtId, StmtId, u64)>,
    every: bool,
) {
    for &s in &k.blocks[b].stmts {
        match &k.stmts[s].kind {
            StmtKind::Op(_) => {
                let start = out.len();
                for &(c, v) in known.iter().rev() {
                    if let Some((lp, it)) = fix(c, v) {
                        if out[start..].iter().any(|f| f.1 == lp) {
                            continue;
                        }
                        out.push((s, lp, it));
                        if !every {
                            break;
                        }
                    }
                }
            }
            StmtKind::If(i) => {
                let decided = i.uniformity == syncopt_ir::Uniformity::Uniform
                    && i.cond.modulo.is_none_or(|m| m > 0)
                    && i.cond.expr.terms.len() == 1
                    && matches!(
                        i.cond.expr.terms[0].0,
                        Var::Value(v) if matches!(k.values[v].kind, ValueKind::Iv(_))
                    );
                let branches = [(i.then_block, true)]
                    .into_iter()
                    .chain(i.else_block.map(|eb| (eb, false)));
                for (blk, v) in branches {
                    if decided {
                        known.push((&i.cond, v));
                    }
                    branch_fixes_of(k, blk, known, fix, out, every);
                    if decided {
                        known.pop();
                    }
                }
            }
            kind => {
                for c in kind.child_block_ids() {
                    branch_fixes_of(k, c, known, fix, out, every);
                }
            }
        }
    }
}

/// The ops whose enclosing uniform `if`s keep them from running in some iterations of an
/// exact loop (`exact_ivs`): (op, [(induction variable, iterations it can run in as a bit
/// mask)]), by op, for `Accesses::bind_parity`. Only conditions on one induction variable
/// count (the verifier, which runs such a loop iteration by iteration, evaluates them
/// exactly). Async copies too: they write in the iterations that issue them (executable
/// seeds 115, 194; a copy through an inner loop's handle keeps that loop as its distance,
/// `dist_iv`, gen seed 861 on gfx1250). Only the subtrees of such `if`s are walked.
fn cond_fixes(
    k: &Kernel,
    exact: &BTreeMap<ValueId, (StmtId, i64, i64, u64)>,
) -> Vec<(StmtId, Vec<(ValueId, u64)>)> {
    let mut masks: BTreeMap<StmtId, Vec<(ValueId, u64)>> = BTreeMap::new();
    let mut stack: Vec<syncopt_ir::BlockId> = Vec::new();
    for (_, d) in k.stmts.iter() {
        let StmtKind::If(i) = &d.kind else {
            continue;
        };
        let (syncopt_ir::Uniformity::Uniform, [(Var::Value(iv), _)]) =
            (i.uniformity, i.cond.expr.terms.as_slice())
        else {
            continue;
        };
        let Some(&(_, lo, step, n)) = exact.get(iv) else {
            continue;
        };
        if i.cond.modulo.is_some_and(|m| m <= 0) {
            continue;
        }
        let full = (1u64 << n) - 1;
        let mut then_mask = 0u64;
        for it in 0..n {
            let x = lo.wrapping_add(step.wrapping_mul(it as i64));
            if i.cond.eval(|_| x) {
                then_mask |= 1 << it;
            }
        }
        let branches = [
            (Some(i.then_block), then_mask),
            (i.else_block, full & !then_mask),
        ];
        for (blk, m) in branches {
            let Some(blk) = blk else {
                continue;
            };
            stack.push(blk);
            while let Some(b) = stack.pop() {
                for &s in &k.blocks[b].stmts {
                    match &k.stmts[s].kind {
                        StmtKind::Op(_) => {
                            let v = masks.entry(s).or_default();
                            match v.iter_mut().find(|e| e.0 == *iv) {
                                Some(e) => e.1 &= m,
                                None => v.push((*iv, m)),
                            }
                        }
                        kind => stack.extend(kind.child_block_ids()),
                    }
                }
            }
        }
    }
    masks
        .into_iter()
        .filter_map(|(s, mut v)| {
            v.retain(|&(iv, m)| exact.get(&iv).is_some_and(|e| m != (1u64 << e.3) - 1));
            v.sort();
            (!v.is_empty()).then_some((s, v))
        })
        .collect()
}

/// The loop and iteration residue (modulo the period of its handles' rotation) in which
/// condition `c` has value `v`, when there is just one.
fn parity_fix(k: &Kernel, c: &syncopt_ir::Cond, v: bool) -> Option<(StmtId, u64)> {
    let (Var::Value(iv), _) = *c.expr.terms.first()? else {
        return None;
    };
    let (lp, f, lo) = const_start_loop(k, iv)?;
    let (orbits, _) = permutation(k, lp, f)?;
    let q = rotation_period(&orbits)?;
    residue_where(c, v, (lo, f.step, unrolled_trips(f)), q).map(|it| (lp, it))
}

/// For condition `c` on the variable of a loop with a constant start alone (modulo a
/// constant), whose period in `periods` (the lcm of the moduli it appears under) is 2 to 64:
/// that loop, the residue of the iteration number modulo the period of every iteration where
/// `c` is `v` (`None` when several), and the period. The residue branches async-waits'
/// check and dataflow follow.
pub fn iv_residue(
    k: &Kernel,
    c: &syncopt_ir::Cond,
    v: bool,
    periods: &BTreeMap<ValueId, u64>,
) -> Option<(StmtId, Option<u64>, u64)> {
    let [(Var::Value(iv), _)] = c.expr.terms.as_slice() else {
        return None;
    };
    let q = *periods.get(iv).filter(|&&q| (2..=64).contains(&q))?;
    let (lp, f, lo) = const_start_loop(k, *iv)?;
    Some((
        lp,
        residue_where(c, v, (lo, f.step, unrolled_trips(f)), q),
        q,
    ))
}

/// Loops whose trips the verifier runs one by one, the induction variable known in each:
/// a constant start and a known trip count up to this (`syncopt-verify`'s `UNROLL`).
pub const VERIFIER_UNROLL: u64 = 8;

/// The trip count of loop `f` when the verifier runs it trip by trip (`VERIFIER_UNROLL`).
pub fn unrolled_trips(f: &syncopt_ir::ForData) -> Option<u64> {
    let syncopt_ir::Bound::Const(_) = f.lo else {
        return None;
    };
    f.trips()
        .exact()
        .filter(|&n| (1..=VERIFIER_UNROLL).contains(&n))
}

/// The residue modulo `q` of the iteration number of a loop starting at `lo` by `step` in
/// every iteration where `c`, a condition on its induction variable modulo a constant (at
/// most 64), or any condition where the loop runs `unrolled` trips the verifier takes one
/// by one, is `v`; `None` when several residues (or none) have such iterations. The
/// handles' residue of a parity branch (`bind_parity`, and the barrier pass's branch entry).
pub fn residue_where(
    c: &syncopt_ir::Cond,
    v: bool,
    (lo, step, unrolled): (i64, i64, Option<u64>),
    q: u64,
) -> Option<u64> {
    let period = match c.modulo {
        Some(m) => lcm(q, u64::try_from(m).ok().filter(|&m| m > 0 && m <= 64)?),
        // Any other condition in a loop the verifier runs trip by trip (`unrolled_trips`),
        // which evaluates it in each (plain gen seed 3235 on sm: `%i17 < 2`, step 4, runs
        // in the first of four trips alone, residue 0). Elsewhere the verifier takes either
        // branch in any trip: no residue (a loop of 16 trips would not verify).
        None => unrolled?,
    };
    let mut residue: Option<u64> = None;
    for it in 0..period {
        let x = lo.checked_add(step.checked_mul(it as i64)?)?;
        if c.eval(|_| x) == v {
            let res = it % q;
            match residue {
                None => residue = Some(res),
                Some(r0) if r0 == res => {}
                Some(_) => return None,
            }
        }
    }
    residue
}

/// The value a loop's variable (start `lo`, step `step`) takes in its trip `it` (from 0).
fn trip_value(lo: i64, step: i64, it: u64) -> Option<i64> {
    i64::try_from(it).ok()?.checked_mul(step)?.checked_add(lo)
}

/// Whether the per-thread words of `d` (its owner or lane index) name `iv`.
fn words_move_with(d: &Desc, iv: ValueId) -> bool {
    let var = Var::Value(iv);
    d.owner.as_ref().is_some_and(|o| o.expr.coef(var) != 0)
        || d.lane.as_ref().is_some_and(|l| l.expr.coef(var) != 0)
}

/// `d` with induction variable `iv` fixed to `lo` in its slot indices (see
/// `Accesses::bind_first_ivs`; a constant index is one known slot, see `slot_bytes`), without
/// its per-thread words where they name `iv` too; `None` when `iv` occurs in no slot index.
fn first_iv_form(d: &Desc, iv: ValueId, lo: i64) -> Option<Desc> {
    let var = Var::Value(iv);
    if d.bind.is_some() || d.regions.iter().any(|r| r.handle.is_some()) || !d.ivs.contains(&iv) {
        return None;
    }
    // Words that move with the loop too: the slot alone is fixed, the words are any in it
    // (exec seed 2868 at 100 ops: a write to slot `(%i + 1) mod 2` at words of `%i`, in a
    // loop of unknown trips, meets only slot 1 in its first trip). The verifier follows the
    // slot's index from the loop's entry, not the words' (gen seed 427 at 20 ops).
    let mut out = d.clone();
    if words_move_with(d, iv) {
        out.owner = None;
        out.lane = None;
    }
    let mut changed = false;
    for r in out.regions.iter_mut() {
        let Some(s) = r.slot.as_mut() else {
            continue;
        };
        let c = s.index.coef(var);
        if c == 0 {
            continue;
        }
        let add = c.checked_mul(lo)?;
        s.index.constant = s.index.constant.checked_add(add)?;
        s.index.terms.retain(|t| t.0 != var);
        changed = true;
    }
    if !changed {
        return None;
    }
    remove_iv(&mut out, iv);
    out.bind = None;
    Some(out)
}

/// `Accesses::bind_residue_slots`: `d` with `iv` fixed to the value of one iteration where
/// condition `c` is `v`, when `iv` occurs in slot indices (index terms on `iv` only; where it
/// occurs in the words too, only the slot indices are fixed), through no handle, and every
/// such iteration picks the same slots; `None` otherwise.
fn residue_slot_form(
    d: &Desc,
    iv: ValueId,
    c: &syncopt_ir::Cond,
    v: bool,
    lo: i64,
    step: i64,
) -> Option<Desc> {
    let m = u64::try_from(c.modulo?)
        .ok()
        .filter(|&m| m > 0 && m <= 64)?;
    slot_form_where(d, iv, (m, lo, step), true, |_, x| c.eval(|_| x) == v)
}

/// `residue_slot_form` for the iterations `runs` picks, by iteration number `t` (from 0)
/// and the variable's value `x` there; `runs` repeats with period `m` in `t`.
fn slot_form_where(
    d: &Desc,
    iv: ValueId,
    (m, lo, step): (u64, i64, i64),
    handles: bool,
    runs: impl Fn(i64, i64) -> bool,
) -> Option<Desc> {
    let var = Var::Value(iv);
    // Words on the variable too: only the slot indices are fixed (the words still move).
    let words = d.owner.as_ref().is_some_and(|o| o.expr.coef(var) != 0)
        || d.lane.as_ref().is_some_and(|l| l.expr.coef(var) != 0);
    if d.only.iter().any(|o| o.0 == iv)
        || (!handles && d.bind.is_some())
        || d.regions.iter().any(|r| {
            (!handles && r.handle.is_some())
                || r.over.as_ref().is_some_and(|s| s.index.coef(var) != 0)
        })
    {
        return None;
    }
    let slots: Vec<&SlotInfo> = d
        .regions
        .iter()
        .filter_map(|r| r.slot.as_ref())
        .filter(|s| s.index.coef(var) != 0)
        .collect();
    if slots.is_empty()
        || slots
            .iter()
            .any(|s| s.index.terms.len() != 1 || s.count == 0)
    {
        return None;
    }
    let period = slots.iter().try_fold(m, |p, s| {
        Some(lcm(p, s.count as u64)).filter(|&p| p <= 4096)
    })?;
    let mut rep: Option<(i64, Vec<i64>)> = None;
    for t in 0..period as i64 {
        let x = lo.checked_add(step.checked_mul(t)?)?;
        if !runs(t, x) {
            continue;
        }
        let picked: Vec<i64> = slots
            .iter()
            .map(|s| {
                let i = s
                    .index
                    .coef(var)
                    .checked_mul(x)?
                    .checked_add(s.index.constant)?;
                Some(i.rem_euclid(s.count as i64))
            })
            .collect::<Option<_>>()?;
        match &rep {
            None => rep = Some((x, picked)),
            Some((_, p)) if *p == picked => {}
            Some(_) => return None,
        }
    }
    let (x, _) = rep?;
    if !words {
        return fix_iv(d, iv, x);
    }
    let mut out = d.clone();
    for r in out.regions.iter_mut() {
        if let Some(s) = r.slot.as_mut() {
            fix_var(&mut s.index, var, x)?;
        }
    }
    if let Some(b) = out.bind.as_mut() {
        b.note_fixed(iv, x, false);
    }
    Some(out)
}

/// The bindings `old` with induction variable `iv` fixed to `x` in each of their forms
/// (interned through `add`). A binding whose first form cannot be fixed is left out (the
/// form meets that loop's first iteration unbound); a later form that cannot be is none.
fn binds_fixed(
    (descs, binds): (&mut Vec<Desc>, &mut Vec<Vec<Bind>>),
    add: &mut impl FnMut(&mut Vec<Desc>, &mut Vec<Vec<Bind>>, Desc) -> u32,
    old: &[Bind],
    (iv, x): (ValueId, i64),
) -> Vec<Bind> {
    let mut nb = Vec::with_capacity(old.len());
    'bind: for b in old {
        let mut b = *b;
        for (i, g) in [&mut b.first, &mut b.last, &mut b.exit]
            .into_iter()
            .enumerate()
        {
            if *g == u32::MAX {
                continue;
            }
            match fix_iv(&descs[*g as usize], iv, x) {
                Some(nf) => *g = add(descs, binds, nf),
                None if i == 0 => continue 'bind,
                None => *g = u32::MAX,
            }
        }
        nb.push(b);
    }
    nb
}

/// `e` with `var` fixed to `x`; `None` on overflow.
fn fix_var(e: &mut AffineExpr, var: Var, x: i64) -> Option<()> {
    let c = e.coef(var);
    if c != 0 {
        e.constant = e.constant.checked_add(c.checked_mul(x)?)?;
        e.terms.retain(|t| t.0 != var);
    }
    Some(())
}

/// A descriptor with no variable in its address whose forms in an exact loop's last
/// iteration `outer_last` holds: through an inner loop's handle started from that loop's.
fn outer_exit(d: &Desc) -> bool {
    d.ivs.is_empty() && d.bind.is_some() && d.regions.iter().any(|r| r.outer.is_some())
}

/// `d` with induction variable `iv` fixed to `x` wherever it occurs (slot indices of every
/// region, also those of handles' initial values, the owner's and the lane's word index),
/// and no longer among `ivs` nor `only`. `None` on overflow.
fn fix_iv(d: &Desc, iv: ValueId, x: i64) -> Option<Desc> {
    let var = Var::Value(iv);
    let mut out = d.clone();
    for r in out.regions.iter_mut() {
        if let Some(s) = r.slot.as_mut() {
            fix_var(&mut s.index, var, x)?;
        }
        if let Some(s) = r.over.as_mut() {
            fix_var(&mut s.index, var, x)?;
        }
    }
    if let Some(o) = out.owner.as_mut() {
        fix_var(&mut o.expr, var, x)?;
    }
    if let Some(l) = out.lane.as_mut() {
        fix_var(&mut l.expr, var, x)?;
        if l.expr.terms.iter().all(|(v, _)| *v == Var::Tid) {
            l.tids = l.threads;
        }
    }
    if let Some(l) = out.lane.as_deref() {
        narrow_to_words(&mut out.regions, l);
    }
    for r in out.regions.iter_mut() {
        fix_local_slot(r);
    }
    remove_iv(&mut out, iv);
    out.only.retain(|o| o.0 != iv);
    if let Some(b) = out.bind.as_mut() {
        b.note_fixed(iv, x, true);
    }
    Some(out)
}

/// Slot `index` of `count` equal slots of bytes `[a, b)`, all of its bytes.
fn whole_slot((a, b): (u64, u64), count: u32, index: &AffineExpr) -> SlotInfo {
    let c = count.max(1);
    let size = b.saturating_sub(a) / u64::from(c);
    SlotInfo {
        lo: a,
        size,
        count: c,
        index: index.clone(),
        inner: (0, size),
        any: false,
    }
}

/// A slot of an aliasing buffer kept aside (`Region::over` beside `local`) whose index is now
/// a constant: the bytes of the buffer the region touches are that slot's.
fn fix_local_slot(r: &mut Region) {
    let (Some((buf, _, _)), None, Some(s)) = (r.local, r.range, r.over.as_ref()) else {
        return;
    };
    if !s.index.terms.is_empty() {
        return;
    }
    if let Some((lo, hi)) = fixed_slot_bytes(s) {
        r.local = Some((buf, lo, hi));
        r.over = None;
    }
}

/// `f`, a form of a descriptor in an iteration or residue of loop `lp`, with the binding
/// `bind_parity` gave that descriptor (`parity`: iteration or residue `pit` of another loop
/// `plp`, from `Accesses::parity_of`) applied again: the op runs there only, so the form does
/// too (exec seed 14133 at 100 ops: the trips of an inner loop in the even branch took the
/// outer loop's handle again, both of its buffers, and met the odd trip's write to the other
/// one). `f` itself where there is no such binding.
fn bound_again<'k>(
    k: &'k Kernel,
    exact: &'k LoopInfo,
    resolvers: &mut BTreeMap<(StmtId, u64), Resolver<'k>>,
    f: Desc,
    lp: StmtId,
    parity: Option<(StmtId, u64)>,
) -> Desc {
    let Some((plp, pit)) = parity.filter(|p| p.0 != lp) else {
        return f;
    };
    let Some(src) = f.bind.as_deref() else {
        return f;
    };
    bound_in(k, exact, resolvers, (f.mode, &f.ivs), src, plp, pit).unwrap_or(f)
}

/// The descriptor of the access `src` (of mode `mode`) with the handles of loop `lp` bound
/// to their values in iteration `it` (or any iteration of that residue), by the resolver for
/// (`lp`, `it`) kept in `resolvers`; `None` when they cannot be bound.
fn bound_in<'k>(
    k: &'k Kernel,
    exact: &'k LoopInfo,
    resolvers: &mut BTreeMap<(StmtId, u64), Resolver<'k>>,
    (mode, ivs): (Mode, &[ValueId]),
    src: &BindSrc,
    lp: StmtId,
    it: u64,
) -> Option<Desc> {
    let r = resolvers.entry((lp, it)).or_insert_with(|| {
        let mut r = Resolver::new(k, exact);
        r.fix = Some((lp, it));
        r
    });
    let mut regions = r.bound_regions(src.value)?;
    // The variables the descriptor was made with fixed stay fixed in its forms, as
    // `handles_in_iteration` keeps them (exec seed 7520 at 100 ops: the odd trip's write
    // through an inner handle, at words `tid + 512` there, took words of every outer trip in
    // its residue forms and met the outer loop's write of words `tid`).
    src.fix_regions(&mut regions);
    let mut nd = fit_ivs(
        k,
        make_desc(k, mode, regions, &src.fixed_selector(), src.threads),
        ivs,
        lp,
    )?;
    if nd.regions.iter().any(|g| g.handle.is_some()) {
        let mut ns = src.clone();
        // A handle of `lp` itself holds one initial value there (of a loop around, when an
        // inner handle starts from one): the form binds on from that value, as
        // `bind_handles` does (exec seed 5013 at 100 ops: bound in the inner loop's first
        // trip, then in the outer loop's, the read resolved the inner handle again).
        if let (ValueKind::IterArg { stmt, index }, StmtKind::For(f)) =
            (k.values[src.value].kind, &k.stmts[lp].kind)
        {
            if stmt == lp {
                if let Some(rot) = r.rotation(lp, f) {
                    if let Some(orbit) = rot.orbits.get(index) {
                        ns.value = f.iter_args[init_at(orbit, it)].1;
                    }
                }
            }
        }
        nd.bind = Some(Box::new(ns));
    }
    Some(nd)
}

/// `bound_in` for an exit form of loop `elp` (`bind_exits`): `src` resolved with iteration
/// `it` of loop `lp` fixed and `elp` opened, as the exit form was made, its own variable
/// dropped the same way. No `bind` source, as exit forms have none.
fn open_bound_in<'k>(
    k: &'k Kernel,
    exact: &'k LoopInfo,
    resolvers: &mut BTreeMap<(StmtId, u64, StmtId), Resolver<'k>>,
    (mode, ivs): (Mode, &[ValueId]),
    src: &BindSrc,
    (lp, it): (StmtId, u64),
    elp: StmtId,
) -> Option<Desc> {
    let r = resolvers.entry((lp, it, elp)).or_insert_with(|| {
        let mut r = Resolver::new(k, exact);
        r.open = Some(elp);
        r.fix = Some((lp, it));
        r
    });
    let mut regions = r.bound_regions(src.value)?;
    src.fix_regions(&mut regions);
    let nd = drop_own_iv(
        k,
        make_desc(k, mode, regions, &src.fixed_selector(), src.threads),
        elp,
    );
    let nd = fit_ivs(k, nd, ivs, lp)?;
    if through_loop(&nd, elp) {
        return None;
    }
    Some(nd)
}

/// Whether `d`'s address or conditions name induction variable `iv` itself (not only
/// through a handle of its loop).
fn uses_iv(d: &Desc, iv: ValueId) -> bool {
    d.only.iter().any(|o| o.0 == iv) || address_uses_iv(d, iv)
}

/// Whether `iv` occurs in an index of `d` (words or slots).
fn address_uses_iv(d: &Desc, iv: ValueId) -> bool {
    let var = Var::Value(iv);
    words_use_iv(d, iv)
        || d.regions.iter().any(|r| {
            r.slot.as_ref().is_some_and(|s| s.index.coef(var) != 0)
                || r.over.as_ref().is_some_and(|s| s.index.coef(var) != 0)
        })
}

/// Whether `iv` occurs in the word index of `d` (its lane or owner), slots aside.
fn words_use_iv(d: &Desc, iv: ValueId) -> bool {
    let var = Var::Value(iv);
    d.lane.as_ref().is_some_and(|l| l.expr.coef(var) != 0)
        || d.owner.as_ref().is_some_and(|o| o.expr.coef(var) != 0)
}

/// After how many iterations every handle of a rotation holds its initial value again (the
/// lcm of its orbits' lengths), when at most 64.
fn rotation_period(orbits: &[Vec<usize>]) -> Option<u64> {
    orbits.iter().try_fold(1u64, |q, o| {
        Some(lcm(q, o.len().max(1) as u64)).filter(|&q| q <= 64)
    })
}

/// The least common multiple of `a` and `b` (the barrier pass's residue periods too).
pub fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    a / gcd(a, b).max(1) * b
}

/// `handles_in_iteration` for an inner loop's exit form (`outer_exit`), whose selector may
/// still name the inner loop's variable: its regions through the outer loop's handle
/// (`Region::outer`) of an alias class that the inner handle holds in none of its values in
/// the resolver's iteration are dropped (exec seed 14627 at 100 ops: the last outer trip's
/// inner handle held `%D` alone, the form still named `%A` through the outer handle).
fn outer_in_iteration(d: &Desc, r: &mut Resolver) -> Option<Desc> {
    let src = d.bind.as_deref()?;
    let mut held = r.bound_regions(src.value)?;
    src.fix_regions(&mut held);
    let keep: Vec<bool> = d
        .regions
        .iter()
        .map(|g| g.outer.is_none() || held.iter().any(|h| h.root == g.root))
        .collect();
    if keep.iter().all(|&x| x) || !keep.iter().any(|&x| x) {
        return None;
    }
    // The lane's tables are per region, in the regions' order.
    fn kept<T: Clone>(v: &[T], keep: &[bool]) -> Vec<T> {
        v.iter()
            .zip(keep)
            .filter(|x| *x.1)
            .map(|x| x.0.clone())
            .collect()
    }
    let mut out = d.clone();
    out.regions = kept(&d.regions, &keep);
    if let Some(l) = out.lane.as_deref_mut() {
        if l.bases.len() != keep.len() || l.slot_bases.len() != keep.len() {
            return None;
        }
        l.bases = kept(&l.bases, &keep);
        l.slot_bases = kept(&l.slot_bases, &keep);
    }
    Some(out)
}

/// `d` with the handles of the loop `r` is fixed to bound to their values in that iteration
/// and its induction variable `iv` to `x` in the word index (restrictions and the other
/// variables kept); `None` when they cannot be bound, or when handles of another loop are
/// left (their binding would have to start again from the unbound value).
fn handles_in_iteration(
    k: &Kernel,
    d: &Desc,
    r: &mut Resolver,
    iv: ValueId,
    x: i64,
) -> Option<Desc> {
    let src = d.bind.as_deref()?;
    let mut regions = r.bound_regions(src.value)?;
    src.fix_regions(&mut regions);
    // A handle of a loop inside the fixed one rotates in each of its runs: the form takes
    // every value it may hold (`OVERLAP`, no handle rule), as the unbound descriptor does;
    // forms of two iterations of the fixed loop are two runs of that loop, which its handle
    // rule does not span (exec seed 266 at 200 ops: an inner loop started from the outer
    // loop's handle read the outer iteration's words, which only the fixed variable told).
    // Where that loop's initial values, bound in this iteration, are pairwise disjoint, the
    // handle keeps its rule against forms of the same iteration alone (`Region::within`;
    // exec seed 11226 at 100 ops: an inner loop's handles started from `%B` and the outer
    // handle, apart in the trips where that held `%A`).
    let fixed = r.fix.map(|f| f.0);
    for g in &mut regions {
        if let Some((l, h, _)) = g.handle {
            match fixed {
                Some(lp) if l != lp && loop_inside(k, l, lp) => {
                    if h == OVERLAP || g.within.is_some() {
                        g.handle = Some((l, OVERLAP, OVERLAP));
                    } else {
                        g.within = r.fix;
                    }
                }
                // A handle of a loop around the fixed one (an inner handle started from it,
                // `Region::outer`) keeps its rule: in one iteration of that loop it is one of
                // its values (exec seeds 2573 and 5050 at 100 ops: the trip that held the
                // outer handle wrote words no other trip's did).
                Some(lp) if l != lp && loop_inside(k, lp, l) => {}
                _ => return None,
            }
        }
    }
    let mut sel = src.fixed_selector();
    if let Selector::Index(e) = &mut sel {
        fix_var(e, Var::Value(iv), x)?;
    }
    let mut nd = make_desc(k, d.mode, regions, &sel, src.threads);
    // The iteration distances callers pass are about `d.ivs`: a bound form that depends on
    // another variable (a word index through the handle that moves with an inner loop)
    // would be compared at a wrong distance. A variable of a loop around the fixed one (a
    // slot view the handle starts from) is tracked from the binding on, as `fit_ivs` does:
    // an access through the handle leaves the fixed loop bound or carried to an unknown
    // distance (exec seed 1837 at 100 ops: the first trip's write into the outer loop's
    // slot had no form, and crossing the outer back edge it met the next outer trip's
    // write into the other slot).
    let around = |v: ValueId| match (k.values[v].kind, fixed) {
        (ValueKind::Iv(l), Some(lp)) => l != lp && loop_inside(k, lp, l),
        _ => false,
    };
    if nd
        .ivs
        .iter()
        .any(|v| *v != iv && !d.ivs.contains(v) && !around(*v))
    {
        return None;
    }
    for (&v, &st) in d.ivs.iter().zip(&d.steps) {
        add_iv(&mut nd, v, st);
    }
    nd.only = d.only.clone();
    // Still through a handle (of a loop around the fixed one): the initial value the fixed
    // loop's handle holds in this iteration is the source of the form's own bindings, its
    // variable fixed, as `bind_handles_from` makes them (exec seed 4586: an inner trip's
    // form through the outer handle had no source, so no forms in the outer trips, and met
    // the same trip's write of another thread's word in the outer trip that held `%A`).
    if let (Some((lp, it)), true) = (r.fix, nd.regions.iter().any(|g| g.handle.is_some())) {
        if let Some(ns) = initial_src(k, r, src, lp, it, Some((iv, x))) {
            nd.bind = Some(Box::new(ns));
        }
    }
    Some(nd)
}

/// The bind source of a form bound in iteration `it` of loop `lp` through `src`'s handle:
/// the initial value that handle holds there, with `fixed` noted (in the words too). `None`
/// where `src` is no handle of `lp` or `lp`'s handles do not rotate.
fn initial_src(
    k: &Kernel,
    r: &mut Resolver,
    src: &BindSrc,
    lp: StmtId,
    it: u64,
    fixed: Option<(ValueId, i64)>,
) -> Option<BindSrc> {
    let (ValueKind::IterArg { stmt, index }, StmtKind::For(f)) =
        (k.values[src.value].kind, &k.stmts[lp].kind)
    else {
        return None;
    };
    if stmt != lp {
        return None;
    }
    let rot = r.rotation(lp, f)?;
    let m = init_at(&rot.orbits[index], it);
    let mut ns = BindSrc {
        value: f.iter_args[m].1,
        sel: src.sel.clone(),
        threads: src.threads,
        fixed: src.fixed.clone(),
    };
    if let Some((v, x)) = fixed {
        ns.note_fixed(v, x, true);
    }
    Some(ns)
}

/// A bound form `nd` (handles of loop `lp` fixed) of a descriptor whose induction variables
/// are `ivs`. The iteration distances callers pass (`Key::carried` in the barrier pass) were
/// tracked for `ivs` only: where binding gave words or slots that move with the variable of
/// a loop inside `lp` (an index through the handle that names an inner loop's variable), a
/// pending access bound at `lp`'s back edge or exit has left that inner loop with its
/// distance untracked. The form then keeps its byte ranges (they hold for every value) but
/// not the per-thread words, which would be compared at a wrong distance (seed 2975: the last
/// inner iteration's write met the next outer iteration's read as the same thread's); `None`
/// when a slot moves with such a variable. Variables of loops around `lp` are tracked from
/// the binding on.
fn fit_ivs(k: &Kernel, mut nd: Desc, ivs: &[ValueId], lp: StmtId) -> Option<Desc> {
    let inner = |v: &ValueId| match k.values[*v].kind {
        ValueKind::Iv(l) => l != lp && loop_inside(k, l, lp),
        _ => false,
    };
    let extra: Vec<ValueId> = nd
        .ivs
        .iter()
        .copied()
        .filter(|v| !ivs.contains(v) && inner(v))
        .collect();
    if extra.is_empty() {
        return Some(nd);
    }
    let moves = |e: &AffineExpr| extra.iter().any(|&v| e.coef(Var::Value(v)) != 0);
    if nd.regions.iter().any(|r| {
        r.slot.as_ref().is_some_and(|x| moves(&x.index))
            || r.over.as_ref().is_some_and(|x| moves(&x.index))
    }) || nd.only.iter().any(|o| extra.contains(&o.0))
    {
        return None;
    }
    nd.owner = None;
    nd.lane = None;
    for &v in &extra {
        remove_iv(&mut nd, v);
    }
    Some(nd)
}

/// `d`, made in some iteration of loop `lp`, without `lp`'s variable where that variable
/// only moves its words (no slot index, no condition): the form then holds for every
/// iteration, as in the same iteration of the loops around (exec seed 119 at 200 ops: the
/// slot of an outer variable read through an inner loop's handle). Its words are dropped.
fn drop_own_iv(k: &Kernel, mut d: Desc, lp: StmtId) -> Desc {
    let StmtKind::For(f) = &k.stmts[lp].kind else {
        return d;
    };
    let iv = f.iv;
    let moves = |e: &AffineExpr| e.coef(Var::Value(iv)) != 0;
    if !d.ivs.contains(&iv)
        || d.regions.iter().any(|r| {
            r.slot.as_ref().is_some_and(|x| moves(&x.index))
                || r.over.as_ref().is_some_and(|x| moves(&x.index))
        })
        || d.only.iter().any(|o| o.0 == iv)
    {
        return d;
    }
    d.owner = None;
    d.lane = None;
    remove_iv(&mut d, iv);
    d
}

/// Whether some region of `d` is reached through a handle of loop `lp`.
fn through_loop(d: &Desc, lp: StmtId) -> bool {
    d.regions
        .iter()
        .any(|r| r.handle.is_some_and(|h| h.0 == lp))
}

/// The loops whose handles `d` goes through that `keep` keeps, sorted, without repeats.
fn handle_loops(d: &Desc, mut keep: impl FnMut(StmtId) -> bool) -> Vec<StmtId> {
    let mut loops: Vec<StmtId> = d
        .regions
        .iter()
        .filter_map(|r| r.handle.map(|h| h.0))
        .filter(|&l| keep(l))
        .collect();
    loops.sort();
    loops.dedup();
    loops
}

/// `f(0..n)` on up to `workers` threads taking the next index as they go: each index's result,
/// in order, `None` where no thread could be started to take it (the caller runs those).
fn on_threads<T: Send>(
    n: usize,
    workers: usize,
    f: &(dyn Fn(usize) -> T + Sync),
) -> Vec<Option<T>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found: std::sync::Mutex<Vec<(usize, T)>> = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        let work = || loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= n {
                break;
            }
            let out = f(i);
            if let Ok(mut v) = found.lock() {
                v.push((i, out));
            }
        };
        let hs: Vec<_> = (0..workers.min(n))
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(sc, work).ok())
            .collect();
        for h in hs {
            let _ = h.join();
        }
    });
    let mut out: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for (i, x) in found.into_inner().unwrap_or_default() {
        out[i] = Some(x);
    }
    out
}

/// How many times `Accesses::bind_handles` binds the forms it made (loops nested this deep,
/// each starting its handles from the loop around it).
const NESTED_BIND_LEVELS: usize = 3;

/// Whether an initial value of loop `lp`'s handles is (a view of) a handle of another loop,
/// or a result of one whose results are not told apart (not in `LoopInfo::top`): only then do
/// its handles' exit forms name another loop's handles; a loop of `LoopInfo::top` that does
/// not takes its exit forms from `bind_top_exits` (its results told apart) instead of
/// `Accesses::bind_exits` (a loop started from a top loop's results: plain gen seed 2183 on
/// sm, whose exit form kept either result).
fn starts_from_loop(k: &Kernel, exact: &LoopInfo, lp: StmtId) -> bool {
    let StmtKind::For(f) = &k.stmts[lp].kind else {
        return false;
    };
    f.iter_args.iter().any(|&(_, init)| {
        let mut v = init;
        for _ in 0..64 {
            match k.values[v].kind {
                ValueKind::View(view) => v = k.views[view].base,
                ValueKind::IterArg { stmt, .. } => {
                    return stmt != lp && matches!(k.stmts[stmt].kind, StmtKind::For(_));
                }
                ValueKind::Result { stmt, .. } => {
                    return stmt != lp
                        && matches!(k.stmts[stmt].kind, StmtKind::For(_))
                        && !exact.top.contains(&stmt);
                }
                _ => return false,
            }
        }
        false
    })
}

/// What `Accesses::bind_yielded` makes: for the loops `loops` takes (descriptors with
/// `Desc::bind` only, with `bound_only`), a form per descriptor that has none yet (`has`),
/// each region retagged by `retag(region, loop, handle, result)` (`false`: no form), and
/// recorded by `set(binds, loop, descriptor, form)`.
struct YieldedForms<'a> {
    loops: &'a dyn Fn(StmtId) -> bool,
    bound_only: bool,
    has: &'a dyn Fn(&Bind) -> bool,
    retag: fn(&mut Region, StmtId, usize, usize) -> bool,
    set: SetBind,
}

/// Records a form in a descriptor's bindings: (bindings, loop, descriptor, form).
type SetBind = fn(&mut Vec<Bind>, StmtId, u32, u32);

/// Descriptor ids by hash (ids of one hash chained), to intern new descriptors without a copy
/// of every existing one.
struct DescIndex {
    first: FxMap<u64, u32>,
    next: Vec<u32>,
}

impl DescIndex {
    fn hash(d: &Desc) -> u64 {
        let mut h = FxHasher::default();
        d.hash(&mut h);
        h.finish()
    }

    fn new(descs: &[Desc]) -> Self {
        let mut ix = DescIndex {
            first: FxMap::default(),
            next: Vec::with_capacity(descs.len() + 64),
        };
        for (i, d) in descs.iter().enumerate() {
            let prev = ix.first.insert(Self::hash(d), i as u32);
            ix.next.push(prev.unwrap_or(u32::MAX));
        }
        ix
    }

    /// The first id of a descriptor equal to `d`, or a new one at the end of the tables.
    fn intern(&mut self, descs: &mut Vec<Desc>, binds: &mut Vec<Vec<Bind>>, d: Desc) -> u32 {
        let h = Self::hash(&d);
        let mut e = self.first.get(&h).copied().unwrap_or(u32::MAX);
        let mut found = u32::MAX;
        while e != u32::MAX {
            if descs[e as usize] == d {
                found = e;
            }
            e = self.next[e as usize];
        }
        if found != u32::MAX {
            return found;
        }
        let id = descs.len() as u32;
        self.next.push(self.first.insert(h, id).unwrap_or(u32::MAX));
        descs.push(d);
        if binds.len() < descs.len() {
            binds.resize(descs.len(), Vec::new());
        }
        id
    }
}

/// Records `exit` as the exit form of descriptor `d` (with bindings `b`) for loop `lp`.
fn set_exit(b: &mut Vec<Bind>, lp: StmtId, d: u32, exit: u32) {
    match b.iter_mut().find(|x| x.lp == lp) {
        Some(x) => x.exit = exit,
        None => b.push(Bind {
            lp,
            first: d,
            last: u32::MAX,
            exit,
        }),
    }
}

/// `d` without induction variable `iv` in `ivs` (and its step).
fn remove_iv(d: &mut Desc, iv: ValueId) {
    for r in &mut d.regions {
        if r.outer.is_some_and(|o| o.2 == iv) {
            r.outer = None;
        }
    }
    if let Some(pos) = d.ivs.iter().position(|&v| v == iv) {
        d.ivs.remove(pos);
        if pos < d.steps.len() {
            d.steps.remove(pos);
        }
    }
}

/// Whether loop `l` lies in the body of loop `outer` (at any depth).
fn loop_inside(k: &Kernel, l: StmtId, outer: StmtId) -> bool {
    let StmtKind::For(f) = &k.stmts[outer].kind else {
        return false;
    };
    let mut stack = vec![f.body];
    while let Some(b) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            if s == l {
                return true;
            }
            match &k.stmts[s].kind {
                StmtKind::For(g) => stack.push(g.body),
                StmtKind::If(i) => {
                    stack.push(i.then_block);
                    stack.extend(i.else_block);
                }
                _ => {}
            }
        }
    }
    false
}

/// Once a word index depends on `tid` alone (its induction variables fixed), the regions
/// with a known start shrink to the words its threads touch: the bytes the index reached over
/// every value of the variables are more than one iteration's.
fn narrow_to_words(regions: &mut [Region], l: &Lane) {
    let (Some((t0, t1)), true) = (l.threads, l.expr.terms.iter().all(|(v, _)| *v == Var::Tid))
    else {
        return;
    };
    if t1 <= t0 {
        return;
    }
    let (a, c) = (l.expr.coef(Var::Tid) as i128, l.expr.constant as i128);
    let (x0, x1) = (c + a * t0 as i128, c + a * (t1 as i128 - 1));
    let (w0, w1) = (x0.min(x1), x0.max(x1));
    for (r, base) in regions.iter_mut().zip(&l.bases) {
        let (Some(base), Some((r0, r1))) = (*base, r.range) else {
            continue;
        };
        let (lo, hi) = (base as i128 + 4 * w0, base as i128 + 4 * w1 + 4);
        if lo < 0 || hi > u64::MAX as i128 {
            continue;
        }
        let nlo = r0.max(lo as u64);
        r.range = Some((nlo, r1.min(hi as u64).max(nlo)));
    }
    // In a slot, the bytes relative to its start (exec seeds 3233 and 3593 at 100 ops: a
    // write of one trip of an exact loop, its variable fixed, still spanned the words of
    // every trip and met a read of the slot's other half).
    for (r, sb) in regions.iter_mut().zip(&l.slot_bases) {
        let (Some(sb), false, Some(s)) = (*sb, r.hull, r.slot.as_mut()) else {
            continue;
        };
        let (lo, hi) = (sb as i128 + 4 * w0, sb as i128 + 4 * w1 + 4);
        if lo < 0 || hi > u64::MAX as i128 {
            continue;
        }
        let nlo = s.inner.0.max(lo as u64);
        s.inner = (nlo, s.inner.1.min(hi as u64).max(nlo));
    }
}

/// `out_of_loop` for `Accesses::bind_loop_exits`: a slot whose index moves with `iv` becomes
/// any slot of its slotting (`SlotInfo::any`).
fn exit_form(d: &Desc, iv: ValueId, words: bool) -> Desc {
    let mut e = out_of_loop(d, iv, words);
    let var = Var::Value(iv);
    for r in &mut e.regions {
        if let Some(s) = r.slot.as_mut().filter(|s| s.index.coef(var) != 0) {
            s.index = AffineExpr::default();
            s.any = true;
        }
    }
    e
}

/// `d` made in some iteration of the loop of `iv`, out of it: without the variable and the
/// iterations it ran in (`Desc::only`), and without per-thread words where `words` moved
/// with it (`Accesses::loop_exit`).
fn out_of_loop(d: &Desc, iv: ValueId, words: bool) -> Desc {
    let mut e = d.clone();
    if words {
        e.owner = None;
        e.lane = None;
    }
    remove_iv(&mut e, iv);
    e.only.retain(|o| o.0 != iv);
    e
}

/// Adds to `d.ivs` the variables of the slot indices of its regions reached through no
/// handle. `make_desc` leaves out those of a slot through a rotating handle (an access
/// through it meets another iteration of the slot's loop only after leaving the handle's
/// loop, carried to an unknown distance); a form that takes the handle out of a region
/// (`Region::run`) leaves the loop in the same iteration of the loops around, so the slot's
/// variable must be tracked there (exec seed 1830 at 60 ops on sm: a write of an inner
/// loop's last trip to the next outer iteration's slot, met by that iteration's read, was
/// compared as in one iteration).
fn note_slot_ivs(k: &Kernel, d: &mut Desc) {
    let mut found = Vec::new();
    for r in &d.regions {
        if r.handle.is_some() {
            continue;
        }
        for s in [&r.slot, &r.over].into_iter().flatten() {
            for (v, _) in &s.index.terms {
                if let Var::Value(v) = v {
                    if let ValueKind::Iv(st) = k.values[*v].kind {
                        if let StmtKind::For(f) = &k.stmts[st].kind {
                            found.push((*v, f.step));
                        }
                    }
                }
            }
        }
    }
    for (v, step) in found {
        add_iv(d, v, step);
    }
}

/// Adds `iv` (of a loop with step `step`) to `d.ivs`, kept sorted with `steps` alongside.
fn add_iv(d: &mut Desc, iv: ValueId, step: i64) {
    if let Err(pos) = d.ivs.binary_search(&iv) {
        d.ivs.insert(pos, iv);
        if pos <= d.steps.len() {
            d.steps.insert(pos, step);
        }
    }
}

/// `d` for an access that runs only in the iterations `masks` of exact loops (see
/// `Accesses::bind_parity`); `None` on overflow.
fn restrict(
    d: &Desc,
    masks: &[(ValueId, u64)],
    exact: &BTreeMap<ValueId, (StmtId, i64, i64, u64)>,
) -> Option<Desc> {
    let mut nd = d.clone();
    for &(iv, mask) in masks {
        let Some(&(_, lo, step, n)) = exact.get(&iv) else {
            continue;
        };
        let mask = mask & ((1u64 << n) - 1);
        if mask == 0 {
            // Never runs (the branch is dead in every iteration).
            return Some(empty_desc());
        }
        if mask.count_ones() == 1 {
            let x = lo.checked_add(step.checked_mul(mask.trailing_zeros() as i64)?)?;
            nd = fix_iv(&nd, iv, x)?;
        }
        // Carried past the back edge of `iv`'s loop like an access whose address depends on
        // the variable: pending at the exit without being carried, it comes from the last
        // iteration, and `Accesses::bind_first_ivs` binds it there.
        add_iv(&mut nd, iv, step);
        if let Err(pos) = nd.only.binary_search_by_key(&iv, |o| o.0) {
            nd.only.insert(pos, (iv, mask));
        }
    }
    Some(nd)
}

/// The descriptor of an access that runs in no iteration: it conflicts with nothing.
fn empty_desc() -> Desc {
    Desc {
        mode: Mode::Read,
        regions: Vec::new(),
        owner: None,
        ivs: Vec::new(),
        steps: Vec::new(),
        bind: None,
        lane: None,
        only: Vec::new(),
        via: None,
        rot: None,
    }
}

/// How much the value of `e` grows from one iteration to the next of the loop of `iv`.
fn shift_of(e: &AffineExpr, iv: ValueId, step: i64) -> i64 {
    e.coef(Var::Value(iv)).wrapping_mul(step)
}

/// `Accesses::dist_iv`, with its step: the only variable, or (`nested`: variables numbered in
/// nesting order) the last one of a descriptor reached through no handle, or through the
/// handles of one loop (`handle_loop`; `desc_conflict` then knows which loop's iterations the
/// handle rule compares: handles of several loops keep no distance).
fn dist_iv(d: &Desc, nested: bool) -> Option<(ValueId, i64)> {
    if d.ivs.len() > 1 && !d.only.is_empty() && d.regions.iter().any(|r| r.handle.is_some()) {
        // Through a handle (which the rule below gives no distance): a variable only a
        // condition names (`Desc::only`, not in the address) does not move the access, the
        // distance is the other one's (gen seed 861: a copy through an inner loop's handle in
        // a branch on the outer variable).
        let mut moved = d
            .ivs
            .iter()
            .zip(&d.steps)
            .filter(|&(&v, _)| !d.only.iter().any(|o| o.0 == v) || address_uses_iv(d, v));
        if let (Some((&v, &st)), None) = (moved.next(), moved.next()) {
            return Some((v, st));
        }
    }
    // An `OVERLAP` handle takes no handle rule (`desc_conflict`): its regions are every value
    // it may take, in any iteration, and the innermost loop's distance holds for it as for
    // a buffer (exec seed 37 at 500 ops: an inner loop's handles both starting at `%B`).
    let rotates = d
        .regions
        .iter()
        .any(|r| r.handle.is_some_and(|h| h.1 != OVERLAP));
    match (d.ivs.as_slice(), d.steps.as_slice()) {
        ([v], [st]) => Some((*v, *st)),
        ([.., v], [.., st]) if nested && (!rotates || handle_loop(d).is_some()) => Some((*v, *st)),
        _ => None,
    }
}

/// The induction variable of the one loop whose handles `d` goes through (`Desc::rot`).
/// Where it is the innermost loop's (`dist_iv`), the handle rule compares iterations of that
/// loop; where it is a loop around, that loop stays in one iteration at the innermost loop's
/// distances, and its handles with it (exec seeds 314 at 200 ops and 444 at 100). Handles
/// started from an outer loop's (`Region::outer`) too: at a distance in the loop of the
/// handles, the outer loop stays in its iteration, so their initial values stay apart (exec
/// seed 12520 at 100 ops: an inner loop's write through a handle started from the outer
/// one, one trip before the copy through the other handle).
fn handle_loop(d: &Desc) -> Option<ValueId> {
    let (lp, iv) = d.rot?;
    d.regions
        .iter()
        .all(|r| r.handle.is_none_or(|h| h.0 == lp))
        .then_some(iv)
}

fn desc_conflict(a: &Desc, a_carried: u8, b: &Desc, nested: bool) -> bool {
    if !a.mode.writes() && !b.mode.writes() {
        return false;
    }
    if a.mode == Mode::Atomic && b.mode == Mode::Atomic {
        return false;
    }
    // Iteration distance between the two instances, when known: 0, or 1 of a's only loop;
    // some iterations of that loop alone (`CARRIED_IN_LOOP`) where `a`'s address does not
    // move with it (and no handle of it can differ): as in the same iteration.
    // Where only `a`'s words move with that loop (no slot index), its regions and slots are
    // as in the same iteration, its words anywhere (exec seed 41 at 200 ops: a read of the
    // next slot in an inner loop against a copy into this iteration's slot).
    let mut words_move = false;
    // Some iterations apart in the loop of `a`'s handles: which value each handle holds is
    // not known, so no handle rule (exec seed 314 at 200 ops).
    let mut handles_unknown = false;
    // At a distance in an inner loop of the one whose handles `a` goes through: that loop,
    // and its handles, in the same iteration.
    let mut handles_fixed = false;
    let hl = if a_carried == 0 { None } else { handle_loop(a) };
    let dist: Option<(ValueId, i64)> = match (a_carried, dist_iv(a, nested)) {
        (0, _) => None,
        (1, Some(x)) => {
            handles_fixed = hl.is_some_and(|h| h != x.0);
            Some(x)
        }
        (CARRIED_IN_LOOP, Some((v, _)))
            if a.regions
                .iter()
                .all(|r| r.handle.is_none() && r.outer.is_none())
                || hl.is_some() =>
        {
            handles_unknown = hl == Some(v) && a.regions.iter().any(|r| r.handle.is_some());
            let moves = |e: &AffineExpr| e.coef(Var::Value(v)) != 0;
            if a.regions.iter().any(|r| {
                r.slot.as_ref().is_some_and(|x| moves(&x.index))
                    || r.over.as_ref().is_some_and(|x| moves(&x.index))
            }) {
                return slot_unknown_conflict(a, b, v);
            }
            words_move = address_uses_iv(a, v);
            None
        }
        _ => {
            return conservative(a, b);
        }
    };
    for (i, r1) in a.regions.iter().enumerate() {
        for (j, r2) in b.regions.iter().enumerate() {
            if !regions_overlap(r1, r2) {
                continue;
            }
            if let (Some((l1, h1, _)), Some((l2, h2, next2)), false) =
                (r1.handle, r2.handle, handles_unknown)
            {
                // An `OVERLAP` handle against a handle of the same loop bound apart (in one
                // iteration of a loop around it, see `Accesses::bind_parity`): no rule.
                // A handle bound in one iteration of a loop around (`Region::within`): only
                // against one bound in the same, in one run of the handle's loop: no
                // distance, or one in that loop alone, the loops around it staying in their
                // iteration (exec seed 6250).
                let one_run = dist.is_none() || hl.is_some() && dist.map(|x| x.0) == hl;
                let within = r1.within == r2.within && (r1.within.is_none() || one_run);
                if l1 == l2
                    && within
                    && h1 != OVERLAP
                    && h2 != OVERLAP
                    && (if dist.is_none() || handles_fixed {
                        h1 != h2
                    } else {
                        h1 != next2
                    })
                {
                    continue;
                }
            }
            // Through an inner loop's handle started from an outer loop's handle (`outer`):
            // while the outer loop stays in one iteration (no distance, or one of a loop
            // inside it), that loop's handle rule, against its handles or others so started.
            if outer_apart(r1, r2, dist) {
                continue;
            }
            if let (Some(s1), Some(s2)) = (&r1.slot, &r2.slot) {
                if indices_compare(s1, s2) {
                    let shift = dist.map_or(0, |(iv, st)| shift_of(&s2.index, iv, st));
                    let diff = s1.index.constant - s2.index.constant - shift;
                    if diff.rem_euclid(s1.count as i64) != 0 {
                        continue;
                    }
                }
            }
            if words_move {
                return true;
            }
            if let (Some(o1), Some(o2)) = (&a.owner, &b.owner) {
                let shift = dist.map_or(0, |(iv, st)| shift_of(&o2.expr, iv, st));
                if owners_exclude(o1, o2, shift) {
                    continue;
                }
            }
            if lanes_exclude(a, i, b, j, dist) {
                continue;
            }
            return true;
        }
    }
    false
}

/// `desc_conflict`'s handle rule through `Region::outer`: the two regions are reached
/// through two different handles of one loop, at least one of them as the initial value of an
/// inner loop's handle, in one iteration of that loop (`dist` is about another loop, or none).
/// An access through an inner loop's handle runs inside that loop: it leaves it only bound
/// (`Accesses::last_bound`, no inner handle left) or carried to an unknown distance, so a
/// pair compared here is in one run of the inner loop, or, for the results of a loop that
/// runs once (`LoopInfo::top`), of fixed values.
fn outer_apart(r1: &Region, r2: &Region, dist: Option<(ValueId, i64)>) -> bool {
    if r1.outer.is_none() && r2.outer.is_none() || r1.within != r2.within {
        return false;
    }
    let tags = |r: &Region| {
        [
            r.handle.map(|h| (h.0, h.1, None)),
            r.outer.map(|o| (o.0, o.1, Some(o.2))),
        ]
    };
    tags(r1).into_iter().flatten().any(|(l1, h1, v1)| {
        tags(r2).into_iter().flatten().any(|(l2, h2, v2)| {
            let Some(iv) = v1.or(v2) else {
                return false;
            };
            l1 == l2
                && h1 != h2
                && h1 != OVERLAP
                && h2 != OVERLAP
                && dist.is_none_or(|(d, _)| d != iv)
        })
    })
}

/// Per-thread ownership in one pair of regions (`Lane`): the words of region `i` of `a` and
/// region `j` of `b` are shared only by one thread (or by none). Both starts known; or two
/// equal slottings whose words stay in their slot (the same slot: the same start; two: no
/// byte); or a slot against a known start, slot by slot (the loop picks one of them).
fn lanes_exclude(a: &Desc, i: usize, b: &Desc, j: usize, dist: Option<(ValueId, i64)>) -> bool {
    let (Some(l1), Some(l2)) = (a.lane.as_deref(), b.lane.as_deref()) else {
        return false;
    };
    let shift = dist.map_or(0, |(iv, st)| shift_of(&l2.expr, iv, st));
    let (Some(&base1), Some(&base2)) = (l1.bases.get(i), l2.bases.get(j)) else {
        return false;
    };
    if let (Some(b1), Some(b2)) = (base1, base2) {
        return words_exclude((b1, &l1.expr), (b2, &l2.expr), shift);
    }
    let slot = slot_words;
    match (base1, base2) {
        (None, None) => {
            let (Some((s1, sb1)), Some((s2, sb2))) = (slot(a, l1, i), slot(b, l2, j)) else {
                return false;
            };
            (s1.lo, s1.size, s1.count) == (s2.lo, s2.size, s2.count)
                && words_exclude((sb1, &l1.expr), (sb2, &l2.expr), shift)
        }
        // Slot by slot: the words of slot `k` start at its start plus the view's offset in it.
        (Some(b1), None) => slot(b, l2, j).is_some_and(|(s2, sb2)| {
            each_slot(&s2, a.regions[i].range, |start| {
                words_exclude((b1, &l1.expr), (start + sb2, &l2.expr), shift)
            })
        }),
        (None, Some(b2)) => slot(a, l1, i).is_some_and(|(s1, sb1)| {
            each_slot(&s1, b.regions[j].range, |start| {
                words_exclude((start + sb1, &l1.expr), (b2, &l2.expr), shift)
            })
        }),
        (Some(_), Some(_)) => unreachable!("handled above"),
    }
}

/// Whether `apart(start)` holds for the start of every slot of `s` whose touched bytes meet
/// `range`.
fn each_slot(s: &SlotInfo, range: Option<(u64, u64)>, apart: impl Fn(u64) -> bool) -> bool {
    (0..u64::from(s.count)).all(|k| {
        let start = s.lo + k * s.size;
        !bytes_meet(range, (start + s.inner.0, start + s.inner.1)) || apart(start)
    })
}

/// Whether bytes `[lo, hi)` meet `range` (`None`: anywhere).
fn bytes_meet(range: Option<(u64, u64)>, (lo, hi): (u64, u64)) -> bool {
    range.is_none_or(|(a, b)| a < hi && lo < b)
}

/// Whether every thread of `l` touches words inside its slot (`sb`: the words' start relative
/// to the slot's): then its address is the slot's start plus `sb` plus the word offset.
fn stays_in_slot(l: &Lane, s: &SlotInfo, sb: u64) -> bool {
    let Some((t0, t1)) = l.tids else {
        // Words over induction variables too: `make_desc` kept the slot only where the words
        // of every thread, for every value of the variables, fit it, and `inner` records the
        // bytes they touch (executable seed 36 at 200 ops).
        return l.threads.is_some() && sb <= s.inner.0 && s.inner.1 <= s.size;
    };
    if t1 <= t0 {
        return true;
    }
    let (a, c) = (l.expr.coef(Var::Tid) as i128, l.expr.constant as i128);
    let (x0, x1) = (c + a * t0 as i128, c + a * (t1 as i128 - 1));
    let (w0, w1) = (x0.min(x1), x0.max(x1));
    sb as i128 + 4 * w0 >= 0 && sb as i128 + 4 * w1 + 4 <= s.size as i128
}

/// `desc_conflict` some iterations apart in the loop of `v`, where `a`'s slot index moves
/// with it: neither instance's slot is known. Words that do not move with that loop and stay
/// in their slot are still each thread's own in two equal slottings (the same slot: the same
/// words; two: no byte), or slot by slot against a known start, whatever the indices
/// (`lanes_exclude`, region by region: a handle's every value); the loops around are in the
/// same iteration, so the words' other variables are the same values (exec seeds 1040 and
/// 5909 at 100 ops: a slot of an inner loop's variable, words of the outer one's, in an outer
/// loop of unknown trips).
fn slot_unknown_conflict(a: &Desc, b: &Desc, v: ValueId) -> bool {
    let var = Var::Value(v);
    let plain = |d: &Desc| {
        d.lane.as_ref().is_some_and(|l| l.expr.coef(var) == 0)
            && d.owner.as_ref().is_none_or(|o| o.expr.coef(var) == 0)
            && d.regions
                .iter()
                .all(|r| r.over.as_ref().is_none_or(|x| x.index.coef(var) == 0))
    };
    if !plain(a) || !plain(b) {
        return conservative(a, b);
    }
    for (i, r1) in a.regions.iter().enumerate() {
        for (j, r2) in b.regions.iter().enumerate() {
            if regions_overlap(r1, r2) && !lanes_exclude(a, i, b, j, None) {
                return true;
            }
        }
    }
    false
}

/// At an unknown iteration distance, only facts that hold in every iteration apply.
fn conservative(a: &Desc, b: &Desc) -> bool {
    // Words that depend on `tid` alone are the same in every iteration.
    let tid_only = |d: &Desc| d.lane.as_ref().is_some_and(|l| l.tids.is_some());
    let lanes = tid_only(a) && tid_only(b);
    for (i, r1) in a.regions.iter().enumerate() {
        for (j, r2) in b.regions.iter().enumerate() {
            if !regions_overlap(r1, r2) {
                continue;
            }
            if a.ivs.is_empty() && b.ivs.is_empty() {
                if let (Some(o1), Some(o2)) = (&a.owner, &b.owner) {
                    if owners_exclude(o1, o2, 0) {
                        continue;
                    }
                }
            }
            if lanes && lanes_exclude(a, i, b, j, None) {
                continue;
            }
            return true;
        }
    }
    false
}

/// A loop whose yields permute its handles.
#[derive(Clone, Debug)]
struct Rotation {
    /// For each handle, the indices of the initial values it takes in turn.
    orbits: Vec<Vec<usize>>,
    /// The handle each one takes its next value from.
    sigma: Vec<usize>,
    /// Two initial values are told apart only by their slot indices.
    apart: bool,
    /// Two initial values may overlap: the handles are bound in each iteration, but never
    /// told apart (`OVERLAP`).
    overlap: bool,
}

/// The handle index of a region reached through a handle of a loop whose initial values may
/// overlap (`Region::handle`): equal for every handle, so the handle rule never holds.
const OVERLAP: usize = usize::MAX;

/// What `exact_loops` finds: the exact loops with their trip counts (what the map derefs to),
/// and the loops with handles and an unknown trip count inside no other loop (each runs at
/// most once: its results are fixed), when there are at most `TOP_MAX` of them.
#[derive(Clone, Debug, Default)]
struct LoopInfo {
    trips: BTreeMap<StmtId, u64>,
    top: BTreeSet<StmtId>,
    /// Every loop with handles and an unknown trip count inside no other loop (`top` before
    /// the limit on contexts): their results are told apart only as `top` says.
    outermost: BTreeSet<StmtId>,
    /// Per loop with two handles or more inside uniform `if`s on one induction variable
    /// modulo a constant: those `if`s and the branch taken (true: then), innermost last.
    /// The handles' initial values are taken where the conditions hold (`Resolver::rotation`).
    guards: FxMap<StmtId, Vec<(StmtId, bool)>>,
}

impl std::ops::Deref for LoopInfo {
    type Target = BTreeMap<StmtId, u64>;
    fn deref(&self) -> &Self::Target {
        &self.trips
    }
}

/// Resolves memory values to the regions of workgroup alias classes they may denote.
struct Resolver<'k> {
    k: &'k Kernel,
    /// Loops with iter args whose trip count binds their handles exactly (`exact_loops`).
    exact: &'k LoopInfo,
    class: Vec<u32>,
    memo: FxMap<ValueId, Vec<Region>>,
    busy: Vec<ValueId>,
    /// Set when a result was cut short by a cycle of handles (and so may not be memoized).
    cut: bool,
    rotations: FxMap<StmtId, Option<Rotation>>,
    /// Handles of loop `.0` bound to their values in iteration `.1`.
    fix: Option<(StmtId, u64)>,
    /// The induction variable of a loop without handles fixed to a value: slot indices on it
    /// pick one slot (`Accesses::bind_exact_ivs_from`, inner handles started from its slot
    /// views).
    fix_var: Option<(ValueId, i64)>,
    /// The results of `if` `.0` taken from branch `.1` alone (0: then, 1: else); of loop
    /// `.0` with side 0, its initial values (no trip ran).
    fix_if: Option<(StmtId, usize)>,
    /// The results of loop `.0` after a trip count congruent to `.1` modulo its handles'
    /// period: its initial values rotated that far (`Accesses::top_exit_forms`).
    fix_exit: Option<(StmtId, u64)>,
    /// Set when the fixed loop's handles could not be bound (they do not rotate).
    unbound: bool,
    /// A rotating loop whose handles take any value of their orbits without becoming its
    /// handles (the regions keep the handles of the loops around it their values name).
    open: Option<StmtId>,
}

impl<'k> Resolver<'k> {
    fn new(k: &'k Kernel, exact: &'k LoopInfo) -> Self {
        let n = k.buffers.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn find(p: &mut [u32], x: u32) -> u32 {
            let mut x = x;
            while p[x as usize] != x {
                p[x as usize] = p[p[x as usize] as usize];
                x = p[x as usize];
            }
            x
        }
        for (b, d) in k.buffers.iter() {
            let other = match d.placement {
                Placement::Own => None,
                Placement::Aliases(v) | Placement::At { base: v, .. } => buffer_of(k, v),
            };
            if let Some(o) = other {
                let x = find(&mut parent, b.index() as u32);
                let y = find(&mut parent, o.index() as u32);
                if x != y {
                    parent[x.max(y) as usize] = x.min(y);
                }
            }
        }
        let class = (0..n as u32).map(|i| find(&mut parent, i)).collect();
        Resolver {
            k,
            exact,
            class,
            memo: FxMap::default(),
            busy: Vec::new(),
            cut: false,
            rotations: FxMap::default(),
            fix: None,
            fix_var: None,
            fix_if: None,
            fix_exit: None,
            unbound: false,
            open: None,
        }
    }

    fn buffer_regions(&self, b: BufferId, depth: u32) -> Vec<Region> {
        let d = &self.k.buffers[b];
        if d.space != Space::Workgroup || depth > 64 {
            return Vec::new();
        }
        let root = self.class[b.index()];
        match d.placement {
            Placement::Own => vec![Region {
                root,
                range: Some((0, d.size)),
                slot: None,
                handle: None,
                outer: None,
                local: None,
                hull: false,
                kept: false,
                apart: false,
                over: None,
                run: None,
                within: None,
            }],
            Placement::Aliases(_) => vec![Region {
                root,
                range: None,
                slot: None,
                handle: None,
                outer: None,
                local: Some((b.index() as u32, 0, d.size)),
                hull: false,
                kept: false,
                apart: false,
                over: None,
                run: None,
                within: None,
            }],
            Placement::At { base, offset } => {
                let base_r = buffer_of(self.k, base)
                    .map(|bb| self.buffer_regions(bb, depth + 1))
                    .unwrap_or_default();
                let start = match base_r.as_slice() {
                    [Region {
                        range: Some((lo, _)),
                        ..
                    }] => Some(lo.saturating_add(offset)),
                    _ => None,
                };
                vec![Region {
                    root,
                    range: start.map(|s| (s, s.saturating_add(d.size))),
                    slot: None,
                    handle: None,
                    outer: None,
                    local: None,
                    hull: false,
                    kept: false,
                    apart: false,
                    over: None,
                    run: None,
                    within: None,
                }]
            }
        }
    }

    /// `regions` of `v` for a bound form: `None` where it resolves to nothing or through a
    /// handle that could not be bound (`unbound`, cleared for the next value).
    fn bound_regions(&mut self, v: ValueId) -> Option<Vec<Region>> {
        let regions = self.regions(v);
        if regions.is_empty() || self.unbound {
            self.unbound = false;
            return None;
        }
        Some(regions)
    }

    fn regions(&mut self, v: ValueId) -> Vec<Region> {
        if let Some(r) = self.memo.get(&v) {
            return r.clone();
        }
        if self.busy.contains(&v) || self.busy.len() > 256 {
            self.cut = true;
            return Vec::new();
        }
        let outer_cut = std::mem::replace(&mut self.cut, false);
        self.busy.push(v);
        let k = self.k;
        let out = match k.values[v].kind {
            ValueKind::Buffer(b) => self.buffer_regions(b, 0),
            ValueKind::View(view) => {
                let vd = &k.views[view];
                let mut base = self.regions(vd.base);
                match &vd.kind {
                    ViewKind::Range { lo, hi } => {
                        for r in &mut base {
                            narrow(r, *lo, *hi);
                        }
                    }
                    ViewKind::Slot { count, index } => {
                        // A slot no iteration moves is a range of the base.
                        let on_fixed = self
                            .fix_var
                            .filter(|&(v, _)| index.coef(Var::Value(v)) != 0)
                            .and_then(|(v, x)| {
                                let mut e = index.clone();
                                fix_var(&mut e, Var::Value(v), x).map(|_| e)
                            });
                        let fixed = k.slot_index(on_fixed.as_ref().unwrap_or(index), *count);
                        let fixed = fixed.is_constant().then_some(fixed.constant as u64);
                        for r in &mut base {
                            // Its bytes in the root, or (a buffer that `aliases` another)
                            // in its own buffer.
                            let known = r.range.or(r.local.map(|l| (l.1, l.2)));
                            if let (Some((a, b)), None, false, Some(j)) =
                                (known, &r.slot, r.hull, fixed)
                            {
                                let size = b.saturating_sub(a) / u64::from((*count).max(1));
                                narrow(r, j * size, (j + 1) * size);
                            } else if let (Some((a, b)), None, false) = (r.range, &r.slot, r.hull) {
                                r.slot = Some(whole_slot((a, b), *count, index));
                            } else if let (None, None, false, Some(_)) =
                                (r.range, &r.slot, r.hull, r.local)
                            {
                                // Which slot of an aliasing buffer is unknown: its bytes lie
                                // somewhere in the view's, from which offsets say nothing
                                // (`narrow` keeps such a hull; plain gen seed 2805 at 100
                                // ops: a write to other bytes of the buffer met every slot).
                                // The slot, in the buffer's own bytes, stays aside for a
                                // form that fixes its index (`fix_local_slot`; plain gen
                                // seed 3571: two trips wrote two slots).
                                r.hull = true;
                                if let Some((_, a, b)) = r.local {
                                    r.over = Some(whole_slot((a, b), *count, index));
                                }
                            } else {
                                drop_slot(r);
                                r.local = None;
                            }
                        }
                    }
                }
                base
            }
            ValueKind::IterArg { stmt, index } => {
                let mut out = Vec::new();
                let fixed = self.fix.and_then(|(l, it)| (l == stmt).then_some(it));
                if let (StmtKind::For(f), Some(it)) = (&k.stmts[stmt].kind, fixed) {
                    // In iteration `it` handle `index` holds initial value number
                    // `orbit[it mod period]`.
                    match self.rotation(stmt, f) {
                        Some(rot) => {
                            let orbit = &rot.orbits[index];
                            let m = init_at(orbit, it);
                            // One initial value, evaluated in the iteration of the enclosing
                            // loops the access runs in: its slot stays exact.
                            for mut r in self.regions(f.iter_args[m].1) {
                                r.kept |= r.slot.is_some();
                                out.push(r);
                            }
                        }
                        None => self.unbound = true,
                    }
                } else if let StmtKind::For(f) = &k.stmts[stmt].kind {
                    match self.rotation(stmt, f) {
                        // A handle the loop yields unchanged is its initial value in every
                        // iteration: one through another loop's handle keeps that handle
                        // (its own would hide it), whether or not the loop's other initial
                        // values may overlap it (seed 367).
                        // So is one whose orbit's initial values are all one value: in a
                        // loop whose initial values may overlap it takes no handle rule,
                        // and the mark would hide the value from the iteration forms of
                        // loops inside (plain gen seed 1244 at 100 ops: two handles
                        // started from one buffer and swapped).
                        Some(rot)
                            if (rot.orbits[index].len() == 1 || rot.overlap)
                                && self.one_value(f, &rot.orbits[index])
                                && (rot.overlap
                                    || self
                                        .regions(f.iter_args[index].1)
                                        .iter()
                                        .any(|r| r.handle.is_some())) =>
                        {
                            for mut r in self.regions(f.iter_args[index].1) {
                                r.kept |= r.slot.is_some();
                                out.push(r);
                            }
                        }
                        // Initial values that may overlap: the handle takes them in turn,
                        // with no handle rule, but it is bound in each iteration like a
                        // rotating one (`OVERLAP`). A slot of an initial value is chosen by
                        // loops around this one, as below: kept (executable seed 60).
                        Some(rot) if rot.overlap => {
                            for &m in &rot.orbits[index] {
                                for mut r in self.regions(f.iter_args[m].1) {
                                    r.kept |= r.slot.is_some();
                                    keep_outer(k, &mut r);
                                    r.handle = Some((stmt, OVERLAP, OVERLAP));
                                    out.push(r);
                                }
                            }
                        }
                        Some(rot) if self.open == Some(stmt) => {
                            for &m in &rot.orbits[index] {
                                for mut r in self.regions(f.iter_args[m].1) {
                                    r.kept |= r.slot.is_some();
                                    out.push(r);
                                }
                            }
                        }
                        Some(rot) => {
                            // The handle takes the initial values of its orbit in turn.
                            // A slot of an initial value is chosen by loops around this
                            // one, which stay in one iteration while the access can meet it
                            // (see `make_desc`): the slot is kept.
                            for &m in &rot.orbits[index] {
                                for mut r in self.regions(f.iter_args[m].1) {
                                    keep_outer(k, &mut r);
                                    r.handle = Some((stmt, index, rot.sigma[index]));
                                    r.kept |= r.slot.is_some();
                                    r.apart |= rot.apart;
                                    out.push(r);
                                }
                            }
                        }
                        None => {
                            if let Some((_, init)) = f.iter_args.get(index) {
                                out.extend(self.regions(*init));
                            }
                            if let Some(y) = k.blocks[f.body].yields.get(index) {
                                out.extend(self.regions(*y));
                            }
                            // A handle changes between iterations: no slot refinement carries.
                            for r in &mut out {
                                drop_slot(r);
                                r.handle = None;
                            }
                        }
                    }
                }
                out
            }
            ValueKind::Result { stmt, index } => {
                let mut out = Vec::new();
                // Side 0 of a loop (`fix_if`, `Accesses::branch_forms`): it ran no trip, its
                // results are its initial values.
                if let (Some((x, 0)), StmtKind::For(f)) = (self.fix_if, &k.stmts[stmt].kind) {
                    if x == stmt && index < f.iter_args.len() {
                        let zero = self.kept_regions(f.iter_args[index].1);
                        return self.finish(v, zero, outer_cut);
                    }
                }
                // A loop that yields a handle unchanged leaves it as it came in, whatever its
                // trips: no mark of the loop (plain gen seed 1244 at 100 ops, where such a
                // result started an exact loop's handle and its iteration forms, which
                // took the loop's variable, were dropped).
                if let StmtKind::For(f) = &k.stmts[stmt].kind {
                    if yields_unchanged(k, f, index) {
                        let same = self.kept_regions(f.iter_args[index].1);
                        return self.finish(v, same, outer_cut);
                    }
                }
                // A trip count known modulo the handles' period binds the results as a known
                // count does (`fix_exit`).
                if let (Some((x, t)), StmtKind::For(f)) = (self.fix_exit, &k.stmts[stmt].kind) {
                    if x == stmt && index < f.iter_args.len() {
                        if let Some((orbits, _)) = permutation(k, stmt, f) {
                            let orbit = &orbits[index];
                            let m = init_at(orbit, t);
                            let exact = self.kept_regions(f.iter_args[m].1);
                            return self.finish(v, exact, outer_cut);
                        }
                    }
                }
                // A known trip count binds the results whatever the initial values: a
                // permutation of the handles is enough (no need for them to be apart).
                let rot = match &k.stmts[stmt].kind {
                    StmtKind::For(f) => self
                        .exact
                        .get(&stmt)
                        .copied()
                        .and_then(|t| permutation(k, stmt, f).map(|r| (t, r))),
                    _ => None,
                };
                match &k.stmts[stmt].kind {
                    StmtKind::For(f) if rot.is_some() && index < f.iter_args.len() => {
                        // Known trips `T`: result `index` is the value handle `index` would
                        // have in iteration `T` (rotation by `T`; the initial value if 0).
                        if let Some((t, (orbit_of, _))) = &rot {
                            let orbit = &orbit_of[index];
                            let m = init_at(orbit, *t);
                            // One initial value, in the iteration of the enclosing loops
                            // the loop ran in: its slot stays exact.
                            let exact = self.kept_regions(f.iter_args[m].1);
                            return self.finish(v, exact, outer_cut);
                        }
                    }
                    StmtKind::For(f)
                        if index < f.iter_args.len()
                            && (self.exact.top.contains(&stmt)
                                || (k.stmts.len() <= TOP_SMALL_KERNEL
                                    && !self.exact.outermost.contains(&stmt)))
                            && self
                                .rotation(stmt, f)
                                .is_some_and(|r| !r.apart && !r.overlap) =>
                    {
                        // Unknown trips: the results are the initial values permuted, two
                        // different ones never the same memory. A loop inside no other runs
                        // once, so they are the handles of one (last) iteration for every
                        // access after it (`LoopInfo::top`). One inside another: the initial
                        // values of one run (`Region::run`), in small kernels only, as for
                        // `LoopInfo::top`: the verifier keeps the relation where it looks
                        // again with more contexts; the 1M-op gfx950 kernel had 172 races
                        // it could not tell apart.
                        let top = self.exact.top.contains(&stmt);
                        if let Some(rot) = self.rotation(stmt, f) {
                            for &m in &rot.orbits[index] {
                                for mut r in self.regions(f.iter_args[m].1) {
                                    if top {
                                        keep_outer(k, &mut r);
                                        r.handle = Some((stmt, index, rot.sigma[index]));
                                    } else {
                                        r.run = Some((stmt, index));
                                    }
                                    out.push(r);
                                }
                            }
                        }
                    }
                    StmtKind::For(f) => {
                        if let Some((_, init)) = f.iter_args.get(index) {
                            out.extend(self.regions(*init));
                        }
                        if let Some(y) = k.blocks[f.body].yields.get(index) {
                            out.extend(self.regions(*y));
                        }
                    }
                    StmtKind::If(i) => {
                        // A branch no iteration takes yields nothing (plain gen seed 3865 at
                        // 100 ops: `(%i + 1) mod 2 == 0` in a loop of step 4 made the result
                        // meet a copy into the dead branch's buffer).
                        let side = self
                            .fix_if
                            .and_then(|(x, side)| (x == stmt).then_some(side))
                            .or_else(|| match crate::branches::fold_cond(k, i, &[]) {
                                (true, false) => Some(1),
                                (false, true) => Some(0),
                                _ => None,
                            });
                        if side != Some(1) {
                            if let Some(y) = k.blocks[i.then_block].yields.get(index) {
                                out.extend(self.regions(*y));
                            }
                        }
                        if let (Some(e), true) = (i.else_block, side != Some(0)) {
                            if let Some(y) = k.blocks[e].yields.get(index) {
                                out.extend(self.regions(*y));
                            }
                        }
                        // A result of an `if` is one of its yields, all of them taken in
                        // the iteration of the loops around that its uses run in (nothing
                        // carries it past their back edges): a slot a yield names stays
                        // (plain gen seed 1881 at 100 ops).
                        for r in &mut out {
                            r.kept |= r.slot.is_some();
                        }
                        return self.finish(v, out, outer_cut);
                    }
                    _ => {}
                }
                for r in &mut out {
                    drop_slot(r);
                }
                out
            }
            ValueKind::Param { .. } | ValueKind::Iv(_) => Vec::new(),
        };
        self.finish(v, out, outer_cut)
    }

    /// Whether the initial values of `f` numbered in `orbit` all denote the same regions.
    fn one_value(&mut self, f: &syncopt_ir::ForData, orbit: &[usize]) -> bool {
        let Some((&m0, rest)) = orbit.split_first() else {
            return false;
        };
        let r0 = self.regions(f.iter_args[m0].1);
        rest.iter().all(|&m| self.regions(f.iter_args[m].1) == r0)
    }

    /// `regions(v)` of one initial value that a loop result or handle is exactly: a slot it
    /// names stays (`Region::kept`).
    fn kept_regions(&mut self, v: ValueId) -> Vec<Region> {
        let mut out = self.regions(v);
        for r in &mut out {
            r.kept |= r.slot.is_some();
        }
        out
    }

    /// The end of `regions(v)`: `out` deduplicated, memoized when complete.
    fn finish(&mut self, v: ValueId, out: Vec<Region>, outer_cut: bool) -> Vec<Region> {
        let mut dedup: Vec<Region> = Vec::new();
        for r in out {
            if !dedup.contains(&r) {
                dedup.push(r);
            }
        }
        self.busy.pop();
        // Results computed inside a cycle of handles may be partial: memoize only complete ones.
        if !self.cut || self.busy.is_empty() {
            self.memo.insert(v, dedup.clone());
        }
        self.cut |= outer_cut;
        dedup
    }
}

impl Resolver<'_> {
    /// When the yields of loop `stmt` permute its handles: the permutation, and whether the
    /// initial values are pairwise disjoint (or only by their slots).
    fn rotation(&mut self, stmt: StmtId, f: &syncopt_ir::ForData) -> Option<Rotation> {
        if let Some(r) = self.rotations.get(&stmt) {
            return r.clone();
        }
        let r = self.rotation_uncached(stmt, f);
        self.rotations.insert(stmt, r.clone());
        r
    }

    fn rotation_uncached(&mut self, stmt: StmtId, f: &syncopt_ir::ForData) -> Option<Rotation> {
        let n = f.iter_args.len();
        let (orbits, sigma) = permutation(self.k, stmt, f)?;
        let inits: Vec<Vec<Region>> = f.iter_args.iter().map(|(_, v)| self.regions(*v)).collect();
        let mut apart = false;
        for a in 0..n {
            for b in a + 1..n {
                // Two different handles of one rotating loop around this one: disjoint in
                // each of its iterations, and this loop starts (and runs) inside one.
                if let Some(ap) = self.distinct_handles(f.iter_args[a].1, f.iter_args[b].1) {
                    apart |= ap;
                    continue;
                }
                for r1 in &inits[a] {
                    for r2 in &inits[b] {
                        // The initial values are all taken at the loop's entry: two slots of
                        // one slotting with different indices there are disjoint. So are two
                        // different handles of a loop around it, one reached through an inner
                        // loop's handle, and for good: this loop runs inside one iteration of
                        // that one (plain gen seed 2913 on gfx1250: `%h13` against a handle
                        // started from `%h14`).
                        if regions_overlap(r1, r2) {
                            let by_slots = slots_apart(r1, r2);
                            if !by_slots && outer_apart(r1, r2, None) {
                                continue;
                            }
                            if !by_slots
                                && self
                                    .apart_in_each_trip_around(f.iter_args[a].1, f.iter_args[b].1)
                            {
                                continue;
                            }
                            if !by_slots && self.apart_by_guards(stmt, r1, r2) {
                                continue;
                            }
                            if !by_slots {
                                return Some(Rotation {
                                    orbits,
                                    sigma,
                                    apart: false,
                                    overlap: true,
                                });
                            }
                            apart = true;
                        }
                    }
                }
            }
        }
        Some(Rotation {
            orbits,
            sigma,
            apart,
            overlap: false,
        })
    }

    /// Whether initial values `r1` and `r2` of loop `stmt`'s handles, one a slot whose index
    /// names one induction variable alone, never overlap where the uniform `if`s on that
    /// variable around the loop hold (`LoopInfo::guards`), the variable taking one value in
    /// both (exec seed 3113: a slot on `(%i + 1) mod 2` in the even trips of `%i` against
    /// the other half of the buffer). As for a slot of a constant index: the slot fixed, the
    /// two are told apart by their bytes.
    fn apart_by_guards(&self, stmt: StmtId, r1: &Region, r2: &Region) -> bool {
        let Some(guards) = self.exact.guards.get(&stmt) else {
            return false;
        };
        let slot_var = |r: &Region| match r.slot.as_ref().map(|s| s.index.terms.as_slice()) {
            Some([(Var::Value(v), _)]) => Some(*v),
            _ => None,
        };
        let k = self.k;
        for v in [slot_var(r1), slot_var(r2)].into_iter().flatten() {
            let conds: Vec<(&syncopt_ir::Cond, bool)> = guards
                .iter()
                .filter_map(|&(s, br)| match &k.stmts[s].kind {
                    StmtKind::If(i) if i.cond.expr.terms[0].0 == Var::Value(v) => {
                        Some((&i.cond, br))
                    }
                    _ => None,
                })
                .collect();
            if conds.is_empty() {
                continue;
            }
            // The conditions and slot indices repeat with this period in the variable.
            let period = [r1, r2]
                .iter()
                .filter_map(|r| r.slot.as_ref().map(|s| u64::from(s.count.max(1))))
                .chain(conds.iter().filter_map(|(c, _)| c.modulo.map(|m| m as u64)))
                .try_fold(1u64, |p, m| Some(lcm(p, m)).filter(|&p| p <= 4096));
            let Some(period) = period else {
                continue;
            };
            let mut any = false;
            let mut met = false;
            for x in 0..period as i64 {
                if !conds.iter().all(|(c, br)| c.eval(|_| x) == *br) {
                    continue;
                }
                any = true;
                let fixed = |r: &Region| -> Option<Region> {
                    let mut r = r.clone();
                    if let Some(s) = r.slot.as_mut() {
                        fix_var(&mut s.index, Var::Value(v), x)?;
                    }
                    Some(r)
                };
                match (fixed(r1), fixed(r2)) {
                    (Some(a), Some(b)) if !regions_overlap(&a, &b) || slots_apart(&a, &b) => {}
                    _ => {
                        met = true;
                        break;
                    }
                }
            }
            if any && !met {
                return true;
            }
        }
        false
    }

    /// Whether the initial values `x` and `y` of a loop's handles, taken at its entry in one
    /// iteration of a loop `L` around it, are disjoint in every iteration of `L`: one is a
    /// handle of `L` (the initial value its orbit gives that trip), the other one too, or a
    /// value whose slots move with `L`'s variable alone (fixed there, `L` starting at a
    /// constant) or not at all (plain gen seed 5300 on gfx1250: a handle of `L` against a
    /// slot view on its variable, which take the two halves of one buffer the other way
    /// round). The loop runs inside one iteration of `L`, as `outer_apart` takes it.
    fn apart_in_each_trip_around(&mut self, x: ValueId, y: ValueId) -> bool {
        let k = self.k;
        // The loop: the one of a handle, else the one whose variable a slot index names.
        let handle_of = |v: ValueId| match k.values[v].kind {
            ValueKind::IterArg { stmt, index } => Some((stmt, index)),
            _ => None,
        };
        if let (Some((l1, _)), Some((l2, _))) = (handle_of(x), handle_of(y)) {
            if l1 != l2 {
                return false;
            }
        }
        let Some(l) = handle_of(x).or(handle_of(y)).map(|h| h.0) else {
            return false;
        };
        let StmtKind::For(f) = &k.stmts[l].kind else {
            return false;
        };
        let syncopt_ir::Bound::Const(lo) = f.lo else {
            return false;
        };
        let Some((orbits, _)) = permutation(k, l, f) else {
            return false;
        };
        let var = Var::Value(f.iv);
        // Each value's regions in trip `j`, or `None` where the rule does not apply.
        let mut period = 1u64;
        let mut sides = Vec::new();
        for v in [x, y] {
            if let Some((_, h)) = handle_of(v) {
                let Some(o) = orbits.get(h).filter(|o| !o.is_empty()) else {
                    return false;
                };
                period = lcm(period, o.len() as u64);
                sides.push((Some(h), Vec::new()));
                continue;
            }
            let regs = self.regions(v);
            for r in &regs {
                // Through a handle of a loop (this one's, or an inner one's started from
                // it), or a slot that names `L`'s variable beside others: not by trip.
                let moves = |e: &AffineExpr| e.coef(var) != 0;
                if r.handle.is_some() || r.outer.is_some_and(|o| o.0 == l) || r.run.is_some() {
                    return false;
                }
                if r.over.as_ref().is_some_and(|s| moves(&s.index)) || r.hull {
                    return false;
                }
                if let Some(s) = r.slot.as_ref().filter(|s| moves(&s.index)) {
                    if s.index.terms.len() != 1 {
                        return false;
                    }
                    period = lcm(period, u64::from(s.count.max(1)));
                }
            }
            sides.push((None, regs));
        }
        if period > 64 {
            return false;
        }
        for j in 0..period {
            let Some(at) = (j as i64)
                .checked_mul(f.step)
                .and_then(|x| x.checked_add(lo))
            else {
                return false;
            };
            let mut trip: Vec<Vec<Region>> = Vec::with_capacity(2);
            for (h, regs) in &sides {
                match h {
                    Some(h) => {
                        let init = f.iter_args[init_at(&orbits[*h], j)].1;
                        trip.push(self.regions(init));
                    }
                    None => {
                        let mut out = regs.clone();
                        for r in &mut out {
                            if let Some(s) = r.slot.as_mut() {
                                if fix_var(&mut s.index, var, at).is_none() {
                                    return false;
                                }
                            }
                        }
                        trip.push(out);
                    }
                }
            }
            if trip[0]
                .iter()
                .any(|r1| trip[1].iter().any(|r2| regions_overlap(r1, r2)))
            {
                return false;
            }
        }
        true
    }

    /// When `x` and `y` are two different handles (or results) of one rotating loop: whether
    /// its initial values are told apart only by their slot indices.
    fn distinct_handles(&mut self, x: ValueId, y: ValueId) -> Option<bool> {
        let k = self.k;
        // (loop, index, a result): results only of the loops whose results are told apart
        // (`LoopInfo::top`), with their slots dropped (which alone may tell them apart).
        let of = |v: ValueId| match k.values[v].kind {
            ValueKind::IterArg { stmt, index } => Some((stmt, index, false)),
            ValueKind::Result { stmt, index } => Some((stmt, index, true)),
            _ => None,
        };
        // A handle its loop yields unchanged is its initial value in every iteration; a
        // result of an `if` whose branches both yield one value is that value (gen seed 998
        // on gfx1250); a result of a loop of known trips that permutes its handles is the
        // initial value the permutation takes there (plain gen seed 60 at 300 ops on sm: two
        // results of a top-level loop passed through a loop of 16 trips).
        let exact = self.exact;
        let fixed = |mut v: ValueId| {
            for _ in 0..16 {
                match k.values[v].kind {
                    ValueKind::IterArg { stmt, index } => match &k.stmts[stmt].kind {
                        StmtKind::For(f) if k.blocks[f.body].yields.get(index) == Some(&v) => {
                            v = f.iter_args[index].1;
                        }
                        _ => break,
                    },
                    ValueKind::Result { stmt, index } => match &k.stmts[stmt].kind {
                        // A loop that yields a handle unchanged leaves it as it came in,
                        // whatever its trips (plain gen seed 203 on gfx1250).
                        StmtKind::For(f) if yields_unchanged(k, f, index) => {
                            v = f.iter_args[index].1;
                        }
                        StmtKind::For(f) => {
                            let (Some(&t), Some((orbits, _))) =
                                (exact.get(&stmt), permutation(k, stmt, f))
                            else {
                                break;
                            };
                            let Some(o) = orbits.get(index).filter(|o| !o.is_empty()) else {
                                break;
                            };
                            v = f.iter_args[init_at(o, t)].1;
                        }
                        StmtKind::If(i) => {
                            let Some(e) = i.else_block else {
                                break;
                            };
                            match (
                                k.blocks[i.then_block].yields.get(index),
                                k.blocks[e].yields.get(index),
                            ) {
                                (Some(&a), Some(&b)) if a == b => v = a,
                                _ => break,
                            }
                        }
                        _ => break,
                    },
                    _ => break,
                }
            }
            v
        };
        let ((s1, i1, res1), (s2, i2, res2)) = (of(fixed(x))?, of(fixed(y))?);
        if s1 != s2 || i1 == i2 || res1 != res2 || (res1 && !self.exact.top.contains(&s1)) {
            return None;
        }
        let StmtKind::For(f) = &k.stmts[s1].kind else {
            return None;
        };
        let rot = self.rotation(s1, f).filter(|r| !r.overlap)?;
        match (res1, rot.apart) {
            (true, true) => None,
            (_, apart) => Some(apart),
        }
    }
}

/// The initial value (its index) that a handle whose orbit is `orbit` holds in iteration
/// `it` of its loop (the result after `it` trips): the rotation takes it one step along the
/// orbit per trip.
fn init_at(orbit: &[usize], it: u64) -> usize {
    orbit[(it % orbit.len() as u64) as usize]
}

/// Whether loop `f` yields its handle `index` unchanged: the handle, and the loop's result
/// `index`, are its initial value whatever the trips.
fn yields_unchanged(k: &Kernel, f: &syncopt_ir::ForData, index: usize) -> bool {
    index < f.iter_args.len() && k.blocks[f.body].yields.get(index) == Some(&f.iter_args[index].0)
}

/// When the yields of loop `stmt` permute its handles (whatever their initial values): for
/// each handle, the indices of the initial values it takes in turn; the permutation.
fn permutation(
    k: &Kernel,
    stmt: StmtId,
    f: &syncopt_ir::ForData,
) -> Option<(Vec<Vec<usize>>, Vec<usize>)> {
    let n = f.iter_args.len();
    let yields = &k.blocks[f.body].yields;
    if n < 2 || yields.len() != n {
        return None;
    }
    let mut sigma = vec![usize::MAX; n];
    for (j, y) in yields.iter().enumerate() {
        match k.values[*y].kind {
            ValueKind::IterArg { stmt: s2, index } if s2 == stmt && index < n => sigma[j] = index,
            _ => return None,
        }
    }
    let mut seen = vec![false; n];
    for &x in &sigma {
        if seen[x] {
            return None;
        }
        seen[x] = true;
    }
    let orbits = (0..n)
        .map(|j| {
            let mut orbit = vec![j];
            let mut x = sigma[j];
            while x != j && orbit.len() <= n {
                orbit.push(x);
                x = sigma[x];
            }
            orbit
        })
        .collect();
    Some((orbits, sigma))
}

/// Loops with two or more iter args whose handles are bound exactly by their trip count, with
/// that count (and the loops inside no loop): a constant lower bound and a known trip count of at most 8, or of at most 64
/// when the induction variable indexes nothing and decides no condition. The verifier runs
/// exactly those loops iteration by iteration; elsewhere it joins the handles' values, and a
/// binding it cannot see would leave races it reports.
fn exact_loops(k: &Kernel) -> LoopInfo {
    let trips = exact_trips(k);
    let mut top = BTreeSet::new();
    let mut stack = vec![k.body];
    while let Some(b) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::For(f) => {
                    if f.iter_args.len() >= 2 && !trips.contains_key(&s) {
                        top.insert(s);
                    }
                }
                kind => stack.extend(kind.child_block_ids()),
            }
        }
    }
    // The verifier tells such results apart by the parity of the trip count, one context
    // per parity: past `TOP_MAX` such loops it merges contexts and loses the relation (the
    // 1M-op gfx950 kernel had 211 false races), so none is used. A loop that yields its
    // handles unchanged makes no second context (seed 46 at 100 ops had two beside one).
    // Each loop that moves its handles makes as many contexts as its rotation's period (a
    // loop that is no permutation counts as 2).
    let periods: Vec<u64> = top
        .iter()
        .filter_map(|&s| match &k.stmts[s].kind {
            StmtKind::For(f) => match permutation(k, s, f) {
                Some((orbits, _)) => {
                    let q = rotation_period(&orbits).unwrap_or(u64::MAX);
                    (q > 1).then_some(q)
                }
                None => Some(2),
            },
            _ => Some(2),
        })
        .collect();
    // A small kernel's verifier run keeps up to 192 contexts apart when it looks again (see
    // syncopt-verify's retry limits), so more such loops are told apart there; the 1M
    // kernel has hundreds of them and no affordable retry.
    let fits = if k.stmts.len() <= TOP_SMALL_KERNEL {
        periods
            .iter()
            .try_fold(1u64, |p, &q| {
                p.checked_mul(q).filter(|&p| p <= TOP_SMALL_CONTEXTS)
            })
            .is_some()
    } else {
        periods.len() <= TOP_MAX
    };
    let outermost = top.clone();
    if !fits {
        top.clear();
    }
    LoopInfo {
        trips,
        top,
        outermost,
        guards: loop_guards(k),
    }
}

/// `LoopInfo::guards` of kernel `k`.
fn loop_guards(k: &Kernel) -> FxMap<StmtId, Vec<(StmtId, bool)>> {
    let mut out = FxMap::default();
    let mut stack: Vec<(syncopt_ir::BlockId, Vec<(StmtId, bool)>)> = vec![(k.body, Vec::new())];
    while let Some((b, guards)) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::For(f) => {
                    if f.iter_args.len() >= 2 && !guards.is_empty() {
                        out.insert(s, guards.clone());
                    }
                    stack.push((f.body, guards.clone()));
                }
                StmtKind::If(i) => {
                    let on_iv = i.uniformity == syncopt_ir::Uniformity::Uniform
                        && i.cond.modulo.is_some_and(|m| (1..=64).contains(&m))
                        && matches!(i.cond.expr.terms.as_slice(),
                            [(Var::Value(v), _)] if matches!(k.values[*v].kind, ValueKind::Iv(_)));
                    for (blk, br) in [(Some(i.then_block), true), (i.else_block, false)] {
                        let Some(blk) = blk else {
                            continue;
                        };
                        let mut g = guards.clone();
                        if on_iv {
                            g.push((s, br));
                        }
                        stack.push((blk, g));
                    }
                }
                kind => stack.extend(kind.child_block_ids().map(|c| (c, guards.clone()))),
            }
        }
    }
    out
}

/// Most loops inside no loop, with handles and an unknown trip count, whose results are told
/// apart (`LoopInfo::top`), in a kernel of more than `TOP_SMALL_KERNEL` statements.
const TOP_MAX: usize = 2;
/// Statements of a kernel whose top-level loops' contexts may multiply up to
/// `TOP_SMALL_CONTEXTS` (instead of `TOP_MAX` loops). 16 until session 16: the verifier's
/// second looks keep 24, 96, then 384 contexts apart, and the generated kernels of 20 to 200
/// statements verify at 64 (plain `gen` seed 26 at 200 ops has five such loops: 32).
const TOP_SMALL_KERNEL: usize = 5_000;
const TOP_SMALL_CONTEXTS: u64 = 64;

/// The exact loops of `exact_loops`, with their trip counts.
fn exact_trips(k: &Kernel) -> BTreeMap<StmtId, u64> {
    let mut out = BTreeMap::new();
    let cands: Vec<(StmtId, ValueId, u64)> = k
        .stmts
        .iter()
        .filter_map(|(s, d)| match &d.kind {
            StmtKind::For(f)
                if f.iter_args.len() >= 2 && matches!(f.lo, syncopt_ir::Bound::Const(_)) =>
            {
                f.trips().exact().filter(|&n| n <= 64).map(|n| (s, f.iv, n))
            }
            _ => None,
        })
        .collect();
    if cands.is_empty() {
        return out;
    }
    let mut used: Vec<ValueId> = Vec::new();
    let mut note = |e: &AffineExpr| {
        for (v, _) in &e.terms {
            if let Var::Value(v) = v {
                used.push(*v);
            }
        }
    };
    for view in k.views.values() {
        if let ViewKind::Slot { index, .. } = &view.kind {
            note(index);
        }
    }
    k.walk(&mut |_, d| match &d.kind {
        StmtKind::Op(op) => {
            for e in &op.effects {
                // Only workgroup words matter (a global index on the variable is no reason
                // for the verifier to join the loop's iterations).
                let wg = syncopt_targets::value_space(k, e.mem.value, 0)
                    == Some(syncopt_ir::Space::Workgroup);
                if let (Selector::Index(x), true) = (&e.mem.sel, wg) {
                    note(x);
                }
            }
        }
        StmtKind::If(i) => note(&i.cond.expr),
        _ => {}
    });
    used.sort();
    used.dedup();
    for (s, iv, n) in cands {
        if n <= 8 || used.binary_search(&iv).is_err() {
            out.insert(s, n);
        }
    }
    out
}

fn buffer_of(k: &Kernel, v: ValueId) -> Option<BufferId> {
    match k.values[v].kind {
        ValueKind::Buffer(b) => Some(b),
        ValueKind::View(view) => buffer_of(k, k.views[view].base),
        _ => None,
    }
}
