//! Workgroup barrier insertion (semantics.md sections 3, 4.1 and 5).
//!
//! The pass is a Membar-style forward dataflow over the region tree. The state is the set of
//! workgroup accesses still pending since the last barrier on some path (interned descriptors,
//! see `syncopt_analysis::hazard`). An access that conflicts with a pending one needs a barrier
//! on every path between them; placing it at the latest point (right before the consumer) is
//! the greedy-by-right-end choice, optimal for interval stabbing on straight-line code. Loops
//! and ifs are where the latest point is not the best one: before each loop or uniform `if`
//! that would conflict with what is pending, both alternatives (a barrier right before the
//! statement, or none) are simulated, together with the rest of the block until their states
//! agree again, and the one with fewer dynamic (then static) barriers wins. Loop-carried
//! hazards come from a fixpoint around the back edge (every iteration distance: nothing leaves
//! the pending set but a barrier); zero-trip loops let the entry state through; a divergent
//! `if` never gets a barrier inside: a conflict in it with older accesses puts one before it.
//!
//! For a loop the alternatives also include a barrier at the end of its body (it covers the
//! loop-carried hazards and what the loop leaves pending at exit), and once the fixpoint has
//! found the carried state the loop is solved a second time knowing it from the start (a
//! barrier placed early for the entry state can be made redundant by the carried one).
//! `if` conditions over one constant-bound induction variable are folded (dead branches).
//! Accesses pending since before a loop meet its first iteration only: rotating handles hold
//! their initial values there, and slot indices over the induction variable of a loop with a
//! constant lower bound take that bound (`Accesses::bind_first_ivs`). Inside a uniform `if`
//! on a loop's induction variable modulo a constant, handles that hold one initial value in
//! every iteration the branch runs in are bound to it (`Accesses::bind_parity`), and so are
//! that access's forms in the trips and residues of the loops inside (`Accesses::parity_of`).
//! An async producer meets a loop's first iteration bound like any access (async-waits,
//! whose check on its own looks for a barrier between a copy and its readers in other waves,
//! binds a copy's readers in the first iterations of the loops entered after it too,
//! `Reach::later`); it crosses the back edge of a two-trip loop unbound (`Ctx::async_desc`),
//! and leaves a loop bound only when it writes one known region (`Ctx::async_loose`). In a
//! parity branch it is bound like any access, and follows the residue (`Key::res`) past the
//! back edge; made before the branch, it stays unbound, and only the branch's accesses meet
//! it in the branch's residue (`Ctx::async_in_residue`; async-waits' check binds such pairs
//! the same way). Loops the verifier unrolls (constant start, 1 to 8
//! trips) are compared iteration by iteration (`Accesses::conflict` over the iteration
//! forms), async producers too: async-waits checks a copy against its consumers with the
//! same forms at the iteration distance of the barrier-free paths; an async producer that
//! leaves such a loop by its exit is its last iteration's form (async-waits follows copies
//! out of a loop's exit the same way, `Carried::Exit`). Other loops with a constant start
//! compare a handle and a slot view on their variable residue by residue of the period
//! after which both repeat (`Accesses::bind_periodic`). A loop of at most two
//! trips crosses its back edge only from its first iteration: what its body leaves pending
//! there through its handles is bound to their initial values (not async producers), and
//! everything crossing it meets the accesses of the second iteration with the handles bound
//! to their values there (`Key::back`; the last iteration's, when the trip count is 2).
//! Leaving a loop whose last iteration is not known, what that iteration made through the
//! handles takes its exit form (`Accesses::exit_bound`): out of a loop of unknown trips whose
//! results are told apart, the handles of the iteration after the last (the results); out
//! of an inner loop whose handles start from an outer loop's handle, any of the initial
//! values with that outer handle kept; such a form, made in the last trip of the exact outer
//! loop (no key crossed that loop's back edge unmarked, `Key::xb`), then leaves the outer loop
//! with the outer handle bound to its last-trip value (`State::leave_outer_last`). A loose
//! async producer leaves a loop of known trips
//! bound only where its last iteration wrote one fixed place (`Key::pin`; async-waits
//! follows it there, `Reach::past`), and meets that loop's next run in its first trip.
//! Out of an exact loop the verifier unrolls, an async producer takes its iteration forms
//! like any access (`State::leave_last`, `leave_earlier`; async-waits' check from
//! `Reach::past` and `Reach::left`). Past the back edge of a loop with bound forms a key is in
//! a later trip of it, also inside the inner loops it enters (`Key::lat`).
//! Per-thread words hold through rotating handles too (`Lane`), in one iteration or at a
//! known distance. Entering a branch of `if uniform %i mod m == r` (the innermost loop with
//! handles), what the current iteration made through the handles takes that residue's
//! values, and what a path in another residue left pending does not enter the branch
//! (`Sim::enter_branch`); what the iteration before made takes the residue before's values,
//! async producers too. Inside an inner loop, the residue a key's path told of the loop
//! around (`Key::ores`) binds the accesses it meets there, which run in that trip
//! (`Ctx::ores_loop`), but not the key, which may be older. The coverage run takes the
//! state leaving a loop of at most 8 trips with an `if` on its induction variable from its
//! last iteration run once more with the variable known (`Ctx::last_iv`). Barriers the final
//! coverage run attributes no hazard to are dropped when that leaves the unordered hazards
//! as they were (`solve`).
//!
//! Split targets (gfx1200/gfx1250, and sm_90 with `--named-barriers`) reuse the monolithic
//! solution as wait points; a final coverage run attributes every hazard to the first barrier
//! after its producer, and each signal goes right after the last statement of the block that
//! holds one of those producers (or a barrier of the same id). With `--named-barriers`,
//! hazards whose consumers come after a barrier's first consumer and whose producers hold its
//! signal back get a barrier of their own, on another id where the phases overlap.
//!
//! Large kernels (20,000 statements and more) use the available cores: the accesses are
//! collected in fixed chunks, and the body is simulated in lanes, each from a later top-level
//! statement with nothing pending. A lane records its first top-level states; once the lane
//! before it reaches one of those boundaries in exactly the recorded state (same keys, same
//! accesses, same order of stamps), the rest is the later lane's own result. The output is
//! the same bytes for any number of lanes (`SYNCOPT_BAR_THREADS=N` forces N; 1 turns it
//! off). Kernels with split barriers of their own or flat warp pipelines use one lane.
//!
//! `SYNCOPT_BAR_DEBUG=1` prints the time of each phase and the number of simulated steps.

use std::collections::{BTreeMap, BTreeSet};

use syncopt_analysis::branches::dead_branches;
use syncopt_analysis::hazard::{lcm, Accesses, Mode, CARRIED_IN_LOOP};
use syncopt_analysis::{block_weights, Covered, Explain, InsertOptions, PassReport};
use syncopt_ir::{
    BlockId, Diagnostic, EntityRef, ForData, IfData, Kernel, ProgramPoint, StmtId, StmtKind,
    SyncOp, Uniformity, ValueId,
};
use syncopt_targets::{BarrierStyle, Target};

/// Tag of a pending access in the coverage run: no barrier crossed yet.
const NONE: u32 = u32::MAX;
/// Tag: ordered by a sync op of the input.
const INPUT: u32 = u32::MAX - 1;
/// Tag bits (`Sim::double`): how many more barriers the access crossed after the one the tag
/// names (1 to `DOUBLE_LIVES`), in units of this.
const DOUBLE: u32 = 1 << 29;
/// Barriers an access crosses after the first before the coverage run of `Sim::double` drops
/// it.
const DOUBLE_LIVES: u32 = 1;
/// The point a tag names, without the `DOUBLE` count.
const POINT_MASK: u32 = DOUBLE - 1;
/// Top-level statements simulated past a decision before the cheaper alternative is chosen.
const LOOKAHEAD: usize = 24;
/// Depth of nested what-if simulations: 3 for kernels up to `DEEPER_LIMIT` statements, 2 up
/// to `DEEP_LIMIT`, 1 above (each level multiplies the work on nested loops and ifs; the
/// second level finds the better placement in about 1 % of random small kernels, the third in
/// 1 of 4,000: an outer loop's end barrier, no barrier before its inner loop and one before
/// the `if` heading the inner body, three levels deep; it costs about 1.4x at 10,000).
const BUDGET: u32 = 3;
const DEEPER_LIMIT: usize = 5_000;
const DEEP_LIMIT: usize = 20_000;

fn budget_for(stmts: usize) -> u32 {
    if stmts > DEEP_LIMIT {
        1
    } else if stmts > DEEPER_LIMIT {
        2
    } else {
        BUDGET
    }
}

/// Most iteration forms one key leaving an exact loop becomes (`State::leave_earlier`).
const MAX_EARLIER: usize = 8;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    desc: u32,
    /// Iteration distance class of the access (see `Accesses::conflict`: 0, 1,
    /// `CARRIED_IN_LOOP`, 2).
    carried: u8,
    tag: u32,
    /// Pending since before the entry of the innermost loop around the current point, which
    /// is still in its first iteration: that loop's handles are their initial values for it.
    first: bool,
    /// Bound at the back edge of the innermost loop around the current point (at most two
    /// trips; see `State::join_carried`) to its first iteration's handles: the current point
    /// is in its second iteration, the last one when the trip count is 2.
    back: bool,
    /// The residue (modulo its handles' period) of the iteration of the innermost loop with
    /// handles around the current point (or of a loop `Ctx::plain_res` names, modulo the
    /// lcm of its `if`s' constants, or `FIRST_LATER`), when the path from the access tells
    /// it (the access ran in a branch of `if uniform %i mod m == r`, see
    /// `Accesses::residue_ops` and `plain_residue_ops`, or was pending when the path entered
    /// one, see `Sim::enter_branch`); `NO_RES` when not known and the access was made in the
    /// current iteration, `OLD_RES` when it may be older.
    res: u8,
    /// With `res` `OLD_RES`: made in the iteration just before the current one of the loop
    /// `Key::res` follows (it crossed that loop's back edge once, made there with `NO_RES`).
    /// Entering a branch of residue `r` it takes its form in residue `r - 1`
    /// (`Sim::enter_branch`; executable seed 347).
    prev: bool,
    /// Crossed the back edge of the innermost loop with bound forms around the current
    /// point (in its current run): the current iteration is not its first, so an access of an
    /// exact loop there is in a later iteration than the first
    /// (`Accesses::conflict_across_waves_later`; executable seed 184). Async producers too
    /// (executable seed 575: a copy of one trip met the next trip's read only within a wave).
    later: bool,
    /// Made by an async copy. The async rules (`Ctx::async_desc`, `Sim::enter_branch`) are
    /// about such producers only: an ordinary access through the same descriptor (a
    /// `ds_write` to the handle a `gather_to_lds` fills) binds like any other (seed 148).
    asy: bool,
    /// The last uniform `if` with results (`Ctx::br_if`) the path from the access crossed,
    /// and the branch it took (`if` statement index * 2 + 0 for then, 1 for else); `NO_BR`
    /// when none. Accesses after it through the `if`'s results see that branch's yields
    /// (`Accesses::branch_forms`): a path that crossed the `if` after the access is on its
    /// latest run (seeds 91, 195). A loop with results that may run no trip is one too: side
    /// 0 for the path that skipped it (its results are its initial values, async producers
    /// too: plain gen seeds 1045 and 1341 at 100 ops), side 1 for one that ran through it
    /// (seed 898).
    br: u32,
    /// An async producer of `Ctx::async_loose` bound at the exit of this loop (statement
    /// index; `NO_PIN` else) to the one fixed place its last iteration wrote
    /// (`State::leave_loop`): still compared as a loose one (no first-iteration binding of
    /// what it meets), as async-waits compares it; in that loop's next run, while `first`,
    /// with their forms in its first iteration. With `PIN_EXIT`: any async producer bound
    /// at that exit to an exit form of several places (made in some trip of the loop, exec
    /// seed 3485), which takes at most one more form, its last-trip form out of a loop
    /// around (`PIN_LAST`), as async-waits' check follows it (`Reach::left`,
    /// `Reach::then_last`).
    pin: u32,
    /// The loop with handles around the innermost one (`Ctx::inner_loop` of its block) that
    /// the access was pending since before the entry of, still in its first iteration, when
    /// the path entered that innermost loop (`first` is about the innermost loop); `NO_UP`
    /// else. Accesses meet its first-iteration forms too (`Accesses::first_bound`), and
    /// leaving the inner loop makes the key `first` again (executable seed 100). With
    /// `UP_BACK`: the key was `back` there instead (the loop around is in its second
    /// iteration, the last of two): accesses meet its last-iteration forms, and leaving the
    /// inner loop makes the key `back` again (executable seed 371). A loose async producer
    /// meets the first-iteration forms only, as its consumers in the innermost loop
    /// (executable seed 5871: a copy before the outer loop, read through its handle from its
    /// second trip on).
    up: u32,
    /// Made in the last trip of a loop inside no loop whose results are told apart
    /// (`LoopInfo::top`), in the residue its path told (`Key::res`): the loop's statement
    /// index * 64 + its trip count modulo its residue period. Accesses through the loop's
    /// results meet them in their form after such a count too (`Ctx::exit_forms`; plain gen
    /// seed 879 at 100 ops on sm_90). Async producers too (plain gen seed 1160). `NO_EXIT`
    /// else.
    exit: u32,
    /// An async producer made in the current iteration of the innermost loop with handles
    /// around the current point, whose path entered a branch of residue `ares` of that loop
    /// (`Sim::enter_branch`): the copy ran in that residue. Leaving the loop from that
    /// iteration it takes that residue's form (`Ctx::res_forms`), as async-waits' check
    /// does (`Reach::res`; plain gen seed 139 on sm_90). Across that loop's back edge it
    /// becomes `Key::res` of the next residue, the copy in that residue's form
    /// (`Ctx::ares_across`; exec seed 18142).
    /// `NO_RES` else; cleared entering an inner loop with handles.
    ares: u8,
    /// Made through a result of a loop inside another loop (`Region::run`), and no loop
    /// entered since: that loop has not run again, so its different results are different
    /// memory for the accesses after it (`Accesses::run_apart`; the verifier tells them
    /// apart in one iteration of the loop around; plain gen seed 836 at 100 ops). Async
    /// producers too (async-waits' check takes the rule for paths in the copy's iteration;
    /// plain gen seed 4306 on AMD).
    run: bool,
    /// `Key::res` of the loop it follows around the innermost one it follows now (the one
    /// whose exit puts the key back in the loop around), as the op's `if`s on that loop's
    /// variable tell it (`Ctx::op_ores`): the access ran in the current iteration of that
    /// loop, in that residue. Leaving the inner loop puts it in `Key::res` (plain gen seed
    /// 3163 on gfx1250: a read in one residue of the outer loop, in an inner loop, met the next
    /// outer iteration's write through a handle that holds another buffer in the other
    /// residue). Async producers too (exec seed 8225: a copy in an inner loop of the even
    /// branch met the next even trip's reads as if the odd trip between, whose barrier orders
    /// them, could be skipped; async-waits' check keeps that residue through the inner loops,
    /// `Reach::join`). `OLD_RES` else.
    ores: u8,
    /// The variable (value index) of the innermost exact loop around the current point
    /// without bound handles (`Ctx::lat_loop`) whose back edge the key crossed in the loop's
    /// current run: the current trip is not the loop's first, so the accesses met are in a
    /// later trip (`Accesses::conflict_across_waves_later`; exec seed 8203: a copy of the
    /// last inner trip met the next outer trip's write as if in the first outer trip, which
    /// writes the copy's slot at the other threads' words). `NO_LAT` else.
    lat: u32,
    /// Crossed the back edge of a loop that some descriptor's region names as the loop of an
    /// inner loop's handle started from that loop's (`Region::outer`, `Ctx::outer_loops`).
    /// Such a descriptor does not move with that loop's variable, so its `carried` does not
    /// tell that the key is older than the loop's current iteration: without this mark a key
    /// of it is one made in that iteration, and leaving the loop from its last one it takes
    /// that iteration's form (`State::leave_outer_last`; exec seeds 3610 and 14627 at 100
    /// ops).
    xb: bool,
}

/// `Key::lat`: none.
const NO_LAT: u32 = u32::MAX;

/// `Key::ores` for key `k` entering an inner loop: the residue its path told in the loop
/// around, which it is in again when it leaves the inner loop (`State::leave_loop`), also
/// when the inner loop runs no trip (exec seed 1503 at 100 ops: a read in the even trips of
/// the outer loop met the next trip's write through the other handle value as if in any trip,
/// past an inner loop of unknown trips). Async producers too (exec seed 8225).
fn ores_entering(k: &Key) -> u8 {
    if k.prev || k.res >= OLD_RES {
        OLD_RES
    } else {
        k.res
    }
}

/// `Key::exit`: none.
const NO_EXIT: u32 = u32::MAX;

/// `Key::up`: none.
const NO_UP: u32 = u32::MAX;

/// `Key::carried` past a back edge of the loop of the key's `dist_iv` (`one`) or of another
/// loop its address names: 0 -> 1 -> `CARRIED_IN_LOOP` in that loop, unknown (2) else.
fn next_carried(one: bool, carried: u8) -> u8 {
    match (one, carried) {
        (true, 0) => 1,
        (true, 1 | CARRIED_IN_LOOP) => CARRIED_IN_LOOP,
        _ => 2,
    }
}

/// `Key::up` bit: the key was `back` (not `first`) when it entered the inner loop.
const UP_BACK: u32 = 1 << 31;

/// The form of descriptor `d` keyed (descriptor, loop, residue) in the sorted table `forms`.
fn form_in(forms: &[((u32, u32, u32), u32)], d: u32, lp: u32, r: u8) -> Option<u32> {
    forms
        .binary_search_by_key(&(d, lp, r as u32), |x| x.0)
        .ok()
        .map(|i| forms[i].1)
}

/// `Key::pin`: not pinned.
const NO_PIN: u32 = u32::MAX;

/// `Key::pin` bit: pinned to an exit form of several places (`State::leave_loop`).
const PIN_EXIT: u32 = 1 << 30;
/// `Key::pin` bit, with `PIN_EXIT`: then bound to that form's last-trip form leaving a loop
/// around (`State::leave_loop`); no form after.
const PIN_LAST: u32 = 1 << 29;

/// An async producer pinned to an exit form of several places (`PIN_EXIT`).
#[inline]
fn pinned_to_exit(k: &Key) -> bool {
    k.asy && k.pin != NO_PIN && k.pin & PIN_EXIT != 0
}

/// A loose async producer (`Ctx::async_loose` for its descriptor, or `Key::pin`).
#[inline]
fn is_loose(k: &Key, loose: &[bool]) -> bool {
    k.asy && (k.pin != NO_PIN || loose[k.desc as usize])
}

/// `Key::br`: no `if` with results crossed since the access.
const NO_BR: u32 = u32::MAX;

/// `Ctx::res_loops`: a period with this bit counts iterations instead (`Ctx::plain_res`):
/// `Key::res` 0 is the loop's first iteration, 1 any later one, and the back edge takes 0
/// to 1 and 1 to itself.
const FIRST_LATER: u8 = 0x80 | 2;

/// `Key::res`: residue not known, the access made in the current iteration of the innermost
/// loop with handles (or before it, with `Key::first`).
const NO_RES: u8 = u8::MAX;
/// `Key::res` of an access whose residue is not known and that may come from an earlier
/// iteration of the innermost loop with handles (it crossed that loop's back edge, or left an
/// inner loop): a parity branch does not tell the values its handles had.
const OLD_RES: u8 = u8::MAX - 1;

/// `Sim::back_edge`: the two-trip binding (the loop and its `no_bind` descriptors), whether
/// the loop binds handles, whether its back edge marks keys for `Key::lat` and for `Key::xb`,
/// the residue period.
type BackEdge<'c> = (Option<(StmtId, &'c [bool])>, bool, bool, bool, Option<u8>);

/// What `State::join_carried` takes of a `BackEdge`: all but the residue period.
type Edge<'c> = (Option<(StmtId, &'c [bool])>, bool, bool, bool);

/// Pending accesses: key -> (newest stamp, newest access with that key).
#[derive(Clone, Debug, Default)]
struct State {
    m: VecMap,
}

/// A map kept as a sorted vector: states are small (tens of keys) and cloned often.
#[derive(Debug, Default)]
struct VecMap {
    v: Vec<(Key, (u32, u32))>,
}

type Entries = Vec<(Key, (u32, u32))>;

thread_local! {
    /// Spare state buffers: states are cloned and dropped millions of times, and a buffer
    /// from here costs no allocation.
    static POOL: std::cell::RefCell<Vec<Entries>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An empty buffer with room for at least `cap` entries.
fn buffer(cap: usize) -> Entries {
    let mut v = POOL
        .try_with(|p| p.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default();
    v.reserve(cap);
    v
}

fn recycle(mut v: Entries) {
    if v.capacity() == 0 || v.capacity() > 4096 {
        return;
    }
    v.clear();
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < 4096 {
            p.push(v);
        }
    });
}

impl Clone for VecMap {
    /// Leaves room for a few more keys: a cloned state usually grows next, and growing an
    /// exact-capacity vector reallocates.
    fn clone(&self) -> Self {
        let mut v = buffer(self.v.len() + 8);
        v.extend_from_slice(&self.v);
        VecMap { v }
    }
}

impl Drop for VecMap {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.v));
    }
}

impl VecMap {
    /// Takes the entries out, leaving an empty map with room for as many (hand the vector
    /// back with `recycle`).
    fn take(&mut self) -> Entries {
        let cap = self.v.len() + 8;
        std::mem::replace(&mut self.v, buffer(cap))
    }
    fn len(&self) -> usize {
        self.v.len()
    }
    fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    fn clear(&mut self) {
        self.v.clear();
    }
    fn keys(&self) -> impl Iterator<Item = &Key> {
        self.v.iter().map(|e| &e.0)
    }
    fn contains_key(&self, k: &Key) -> bool {
        self.v.binary_search_by(|e| e.0.cmp(k)).is_ok()
    }
    fn retain(&mut self, mut f: impl FnMut(&Key, &(u32, u32)) -> bool) {
        self.v.retain(|e| f(&e.0, &e.1));
    }
    fn slot(&mut self, k: Key, init: (u32, u32)) -> &mut (u32, u32) {
        let i = match self.v.binary_search_by(|e| e.0.cmp(&k)) {
            Ok(i) => i,
            Err(i) => {
                self.v.insert(i, (k, init));
                i
            }
        };
        &mut self.v[i].1
    }
}

impl<'a> IntoIterator for &'a VecMap {
    type Item = (&'a Key, &'a (u32, u32));
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Key, (u32, u32))>,
        fn(&'a (Key, (u32, u32))) -> (&'a Key, &'a (u32, u32)),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.v.iter().map(|e| (&e.0, &e.1))
    }
}

impl State {
    fn is_empty(&self) -> bool {
        self.m.is_empty()
    }
    fn insert(&mut self, k: Key, stamp: u32, access: u32) {
        let e = self.m.slot(k, (stamp, access));
        if stamp >= e.0 {
            *e = (stamp, access);
        }
    }
    fn join(&mut self, o: &State) {
        for (k, &(s, a)) in &o.m {
            self.insert(*k, s, a);
        }
    }
    fn same_keys(&self, o: &State) -> bool {
        self.m.len() == o.m.len() && self.m.keys().eq(o.m.keys())
    }
    /// Two independent hashes of the key set (`with_access`: and of each key's access).
    ///
    /// The coverage run attributes each hazard to the access a key holds, which two runs
    /// reaching the same keys need not agree on: a key that crossed a back edge and one from
    /// before the loop can merge into one when an inner loop's entry marks both as older than
    /// it, and the one kept depends on the stamps (an access made in the loop lost to one made
    /// before it, so the split signal went before the loop).
    fn fingerprint(&self, with_access: bool) -> (u64, u64) {
        let mut h1: u64 = 0xcbf2_9ce4_8422_2325;
        let mut h2: u64 = 0x9e37_79b9_7f4a_7c15;
        for (k, &(_, a)) in &self.m {
            let mut x = ((k.desc as u64) << 8)
                | k.carried as u64
                | ((k.tag as u64) << 40)
                | ((k.first as u64) << 7)
                | ((k.back as u64) << 6)
                | ((k.prev as u64) << 5)
                | ((k.later as u64) << 4)
                | ((k.xb as u64) << 3)
                | ((k.asy as u64) << 31)
                | ((k.res as u64) << 32)
                    ^ ((k.br as u64).rotate_left(48))
                    ^ (k.up as u64).rotate_left(9)
                    ^ ((k.pin as u64) << 32).rotate_left(17)
                    ^ (k.lat as u64).rotate_left(27);
            if with_access {
                x ^= (a as u64)
                    .rotate_left(21)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
            h1 = (h1 ^ x).wrapping_mul(0x0000_0100_0000_01b3);
            h2 = (h2.rotate_left(5) ^ x).wrapping_mul(0xff51_afd7_ed55_8ccd);
        }
        (h1 ^ self.m.len() as u64, h2)
    }

    /// `self.join(&c)` where `c` is `o` after `c.carry(acc, iv, false)`, without the copy.
    ///
    /// `first`: the loop (with its `no_bind` descriptors, see `leave_loop`) runs at most two
    /// iterations, so its back edge leaves only the first one: the accesses of that
    /// iteration through the loop's handles or indexed by its induction variable (same
    /// iteration, not pending since before the loop) are bound to the handles' initial values
    /// and the variable's first value (`Accesses::first_bound`). Carrying them instead loses
    /// the distance when the descriptor names a second variable (an `if` on an outer loop's
    /// variable, `Desc::only`): one such carried past the back edge is compared with every
    /// iteration.
    ///
    /// `binds`: the loop has bound handles (`Ctx::binds_loop`). `Key::first` and `Key::back`
    /// are about the innermost such loop around the current point: the back edge of a loop
    /// without them leaves them as they are (that loop is still in the same iteration; a key
    /// that lost `back` there met the next iteration's accesses as if made in the same one,
    /// and the handle rule told the two handles apart: seed 2975).
    fn join_carried(
        &mut self,
        o: &State,
        acc: &Accesses,
        iv: ValueId,
        (first, binds, lat, outer): Edge<'_>,
        period: Option<u8>,
        needs_later: &dyn Fn(&Key) -> bool,
    ) {
        let lat = if lat { iv.index() as u32 } else { NO_LAT };
        let dep = |k: &Key| acc.descs[k.desc as usize].ivs.binary_search(&iv).is_ok();
        // `Key::xb`: every key crossing such a loop's back edge is marked, whatever its
        // descriptor now (a form it takes later may name the loop), the quick join below
        // included.
        let crosses = |k: &Key| outer && !k.xb;
        let bind = |k: &Key| -> Option<u32> {
            let (lp, no_bind) = first?;
            if k.first || k.carried != 0 || (k.asy && no_bind[k.desc as usize]) {
                return None;
            }
            let d = &acc.descs[k.desc as usize];
            if !d
                .regions
                .iter()
                .any(|r| r.handle.is_some_and(|h| h.0 == lp))
                && d.ivs.binary_search(&iv).is_err()
            {
                return None;
            }
            let b = acc.first_bound(k.desc, lp);
            (b != k.desc).then_some(b)
        };
        if first.is_none()
            && period.is_none()
            && !o.m.keys().any(|k| {
                (k.carried != 2 && dep(k))
                    || k.first
                    || k.back
                    || (binds && !k.later && needs_later(k))
                    || (lat != NO_LAT && k.lat != lat)
                    || crosses(k)
                    || bind(k).is_some()
            })
        {
            self.join(o);
            return;
        }
        for (k, &(s, a)) in &o.m {
            if first.is_some() && (k.back || (k.res < OLD_RES && k.res != 0)) {
                // Already in the second iteration, the last (or made in it, as the residue
                // of its path tells): there is no third.
                continue;
            }
            let mut k = *k;
            if crosses(&k) {
                k.xb = true;
            }
            if binds {
                k.back = false;
                k.first = false;
                k.later = true;
            }
            if lat != NO_LAT {
                k.lat = lat;
            }
            if let Some(b) = bind(&k) {
                k.desc = b;
                k.back = true;
            } else if first.is_some() {
                // Whatever crosses the back edge meets the second iteration's accesses,
                // whose handles hold their values there.
                k.back = true;
            }
            // The next iteration's residue (this loop is the innermost one `Key::res` follows).
            if let Some(q) = period {
                k.prev = k.res == NO_RES && q != FIRST_LATER;
                k.res = if q == FIRST_LATER && k.res < 2 {
                    1
                } else if k.res < q {
                    ((k.res as u16 + 1) % q.max(1) as u16) as u8
                } else {
                    OLD_RES
                };
            }
            if dep(&k) {
                // One iteration earlier in this loop (or some), the same one of the loops
                // around it.
                let one = acc.dist_iv(k.desc) == Some(iv);
                k.carried = next_carried(one, k.carried);
            }
            self.insert(k, s, a);
        }
    }

    /// What crosses the back edge of loop `lp` (variable `iv`) from `self`, when some key's
    /// access ran only in some of its iterations (`Desc::only`) at an address that does not
    /// move with it: that key in the form that ran in any (`Accesses::loop_exit`), still in
    /// the same iteration of the loops around (its distance would be unknown: the only
    /// variable its address names is an outer loop's, whose handle rule then holds no more;
    /// plain gen seed 3235 on sm). `None` when no key is such.
    fn only_crossing(&self, acc: &Accesses, lp: StmtId, iv: ValueId) -> Option<State> {
        // Async copies too, as async-waits' check takes them across that back edge
        // (`Carried::One`, exec seed 1189: a copy of a two-trip loop's first trip met the
        // second trip's write through the outer loop's other handle, its distance unknown).
        let form = |k: &Key| {
            if k.carried != 0 {
                return None;
            }
            let d = &acc.descs[k.desc as usize];
            if !d.only.iter().any(|o| o.0 == iv) {
                return None;
            }
            acc.loop_exit(k.desc, lp)
        };
        if !self.m.keys().any(|k| form(k).is_some()) {
            return None;
        }
        let mut out = self.clone();
        out.rekey_some(|k| form(k).map(|desc| Key { desc, ..*k }));
        Some(out)
    }

    /// Every key through `f`, unless `kept` says `f` leaves each as it is.
    fn rekey(&mut self, kept: impl Fn(&Key) -> bool, f: impl Fn(Key) -> Key) {
        if self.m.keys().all(kept) {
            return;
        }
        let old = self.m.take();
        for &(k, (s, a)) in &old {
            self.insert(f(k), s, a);
        }
        recycle(old);
    }

    /// `rekey` where `f` gives the new key, `None` for a key that stays as it is.
    fn rekey_some(&mut self, f: impl Fn(&Key) -> Option<Key>) {
        self.rekey(|k| f(k).is_none(), |k| f(&k).unwrap_or(k));
    }

    /// Leaving a loop without bound handles that `Key::res` follows (`Ctx::plain_res`): every
    /// key back in the residue of the loop around (`Key::ores`).
    fn leave_res(&mut self) {
        self.rekey(
            |k| k.res == k.ores && !k.prev && k.ores == OLD_RES,
            |k| Key {
                res: k.ores,
                ores: OLD_RES,
                prev: false,
                ..k
            },
        );
    }

    /// Entering a loop `Key::res` follows: every key in its first iteration (residue 0),
    /// the residue of the loop around forgotten (`Key::ores`).
    fn enter_res(&mut self) {
        self.rekey(
            |k| k.res == 0 && k.ores == ores_entering(k),
            |k| Key {
                res: 0,
                ores: ores_entering(&k),
                ..k
            },
        );
    }

    /// The path took branch `br` of an `if` with results (`Key::br`).
    fn tag_branch(&mut self, br: u32) {
        self.rekey(|k| k.br == br, |k| Key { br, ..k });
    }

    /// Every key's `Key::run` cleared: a loop is about to run.
    fn clear_run(&mut self) {
        self.rekey(|k| !k.run, |k| Key { run: false, ..k });
    }

    /// Every key's `Key::ares` forgotten.
    fn clear_ares(&mut self) {
        self.rekey(|k| k.ares == NO_RES, |k| Key { ares: NO_RES, ..k });
    }

    /// Marks every pending access as older than the entry of the loop about to run; `outer`:
    /// the innermost loop with handles around it (`Key::up`), whose variable is `outer_iv`
    /// (`NO_LAT`: none): a key past its back edge (`Key::later`) is in a later trip of it
    /// than the first all through the inner loop (`Key::lat`).
    fn enter_loop(&self, outer: u32, outer_iv: u32) -> State {
        let mut out = State {
            m: VecMap {
                v: buffer(self.m.len() + 8),
            },
        };
        for (k, &(s, a)) in &self.m {
            out.insert(
                Key {
                    first: true,
                    back: false,
                    res: NO_RES,
                    ares: NO_RES,
                    ores: ores_entering(k),
                    run: false,
                    prev: false,
                    later: false,
                    lat: if k.later && outer_iv != NO_LAT {
                        outer_iv
                    } else {
                        k.lat
                    },
                    up: if outer == u32::MAX {
                        NO_UP
                    } else if k.first {
                        outer
                    } else if k.back {
                        outer | UP_BACK
                    } else {
                        NO_UP
                    },
                    ..*k
                },
                s,
                a,
            );
        }
        out
    }

    /// Out of loop `lp` after its last iteration: the accesses of that iteration through the
    /// loop's handles are bound to the values the handles had in it (known trip count); no
    /// access is older than an entry any more.
    fn leave_loop(
        &mut self,
        kernel: &Kernel,
        acc: &Accesses,
        loose: &[bool],
        lp: Option<(StmtId, ValueId)>,
    ) {
        let iv = lp.map(|l| l.1);
        let lp = lp.map(|l| l.0);
        // Made some iterations before the last of this loop and of no other (the key's only
        // loop is this one): made in some iteration of it, its exit form, as in the same
        // iteration of the loops around (exec seed 119 at 200 ops). Async producers too:
        // async-waits' check takes the exit form of a copy that left the loop from some trip
        // (`Reach::left`; exec seed 3485 at 100 ops: a copy through an inner handle that
        // holds the outer trip's buffer in odd trips met the next outer trip's read of the
        // other buffer as if through any outer trip's).
        let earlier = |k: &Key| {
            matches!(k.carried, 1 | CARRIED_IN_LOOP) && iv.is_some() && acc.dist_iv(k.desc) == iv
        };
        let bind = |k: &Key| match (k.carried, lp) {
            // Async-waits' check follows a copy through the exit form of one loop
            // (`Reach::left`), then through the last-trip form of one loop around that it
            // left from the copy's trip (`Reach::then_last`), and no further (plain gen seed
            // 144 at 1,000 ops on sm_90).
            _ if pinned_to_exit(k) => {
                match lp.filter(|_| k.carried == 0 && k.pin & PIN_LAST == 0) {
                    Some(lp) => acc.last_bound(k.desc, lp),
                    None => None,
                }
            }
            (_, Some(lp)) if earlier(k) => acc.exit_bound(k.desc, lp),
            // A loose async producer only to one fixed place (async-waits follows it there
            // from the loop's last iteration, `Reach::past`); it stays loose (`Key::pin`).
            // Where the last trip is not known, its exit form: a copy through a handle of a
            // loop of unknown trips lands in the result the last trip yields that handle to
            // (plain gen seeds 2183 and 2373 on sm, 2801 on AMD: the read of the other result
            // after the loop needed no barrier).
            // The handles of loops around count as fixed in a last-trip form only
            // (`Accesses::one_place_leaving`); an exit form that is not one place is still
            // the copy made in some trip of the loop (exec seed 3485, as `earlier`).
            (0, Some(lp)) if is_loose(k, loose) => match acc.last_bound(k.desc, lp) {
                Some(d) => Some(d).filter(|&d| acc.one_place_leaving(kernel, d, lp, true)),
                None => acc.exit_bound(k.desc, lp),
            },
            (0, Some(lp)) => acc
                .last_bound(k.desc, lp)
                .or_else(|| acc.exit_bound(k.desc, lp)),
            _ => None,
        };
        if !self.m.keys().any(|k| {
            k.first
                || k.back
                || k.up != NO_UP
                || k.res != OLD_RES
                || k.prev
                || k.later
                || bind(k).is_some()
        }) {
            return;
        }
        let old = self.m.take();
        for &(mut k, (s, a)) in &old {
            // Back in the loop around, still in its first iteration (`Key::up`; a key that
            // crossed this loop's back edge is not `first` but keeps `up`).
            k.first = k.up != NO_UP && k.up & UP_BACK == 0;
            k.back = k.up != NO_UP && k.up & UP_BACK != 0;
            k.up = NO_UP;
            // Back in the loop around: its residue as it was (`Key::ores`).
            k.res = k.ores;
            k.ores = OLD_RES;
            k.prev = false;
            k.later = false;
            if let Some(d) = bind(&k) {
                let was_earlier = earlier(&k);
                if was_earlier {
                    k.carried = 0;
                }
                if pinned_to_exit(&k) {
                    k.pin |= PIN_LAST;
                } else if k.asy {
                    if let Some(l) = lp.filter(|&l| {
                        (was_earlier || acc.last_bound(k.desc, l).is_none())
                            && !acc.one_place_leaving(kernel, d, l, false)
                    }) {
                        k.pin = l.index() as u32 | PIN_EXIT;
                    } else if k.pin == NO_PIN && loose[k.desc as usize] {
                        k.pin = lp.map_or(NO_PIN, |l| l.index() as u32);
                    }
                }
                // The results of the run just ended (`Key::run`): no loop entered since.
                if !earlier(&k) && acc.has_run(d) {
                    k.run = true;
                }
                k.desc = d;
            }
            self.insert(k, s, a);
        }
        recycle(old);
    }

    /// Leaving an exact loop of `n` trips (variable `iv`): a key made in its last iteration
    /// takes its iteration form there (`Accesses::last_iv_form`), the variable fixed (exec
    /// seed 368 at 100 ops). Not async producers (async-waits binds them by handles alone).
    fn leave_last(&mut self, acc: &Accesses, iv: ValueId, n: u64) {
        let form = |k: &Key| -> Option<u32> {
            if k.carried != 0 {
                return None;
            }
            acc.last_iv_form(k.desc, iv, n)
        };
        self.rekey_some(|k| form(k).map(|desc| Key { desc, ..*k }));
    }

    /// Leaving an exact loop (variable `iv`): a key made in its last
    /// iteration (it crossed no back edge of the loop, `Key::xb`, and was not pending since
    /// before its entry) through an inner loop's handle started from one of the loop's takes
    /// that iteration's form (`Accesses::outer_last_form`): the outer handle holds its
    /// last-trip value (exec seed 3610 at 100 ops: the inner loop's read of the last trip's
    /// buffer met the copy into the other one after the loop). Not async producers, as
    /// `leave_last`.
    fn leave_outer_last(&mut self, acc: &Accesses, iv: ValueId) {
        let form = |k: &Key| -> Option<u32> {
            if k.carried != 0 || k.xb || k.asy || k.first || k.back || k.up != NO_UP {
                return None;
            }
            acc.outer_last_form(k.desc, iv)
        };
        if self.m.keys().any(|k| form(k).is_some()) {
            self.rekey_some(|k| form(k).map(|desc| Key { desc, ..*k }));
        }
    }

    /// Leaving an exact loop of `n` trips (variable `iv`): a key made some iterations before
    /// the last (this loop's only, `dist_iv`) takes its iteration forms there, one key per
    /// form, in the same iteration of the loops around (exec seeds 1837 and 3585 at 100 ops:
    /// carried past the outer back edge to an unknown distance, the inner loop's earlier
    /// writes lost the words and slot each trip had). Not async producers, as `leave_last`;
    /// at most `MAX_EARLIER` forms.
    fn leave_earlier(&mut self, acc: &Accesses, iv: ValueId, n: u64) {
        let forms = |k: &Key| -> Option<Vec<u32>> {
            if !matches!(k.carried, 1 | CARRIED_IN_LOOP) || acc.dist_iv(k.desc) != Some(iv) {
                return None;
            }
            // A form through a handle it has no binding of (a handle of a loop around,
            // which an inner handle started from) could not be bound leaving that loop:
            // `leave_loop` binds such a key by its exit form instead.
            acc.earlier_iv_forms(k.desc, iv, n, k.carried == 1)
                .filter(|f| f.len() <= MAX_EARLIER)
                .filter(|f| f.iter().all(|&x| !acc.unbindable(x)))
        };
        if !self.m.keys().any(|k| forms(k).is_some()) {
            return;
        }
        let old = self.m.take();
        for &(k, (s, a)) in &old {
            match forms(&k) {
                Some(fs) => {
                    for desc in fs {
                        self.insert(
                            Key {
                                desc,
                                carried: 0,
                                ..k
                            },
                            s,
                            a,
                        );
                    }
                }
                None => self.insert(k, s, a),
            }
        }
        recycle(old);
    }

    /// Leaving loop `lp` (variable `iv`): a key whose address moves with it in its words
    /// alone, or not at all (it ran only in some iterations), takes its form without the
    /// variable (`Accesses::loop_exit`), in the same iteration of the loops around: one made
    /// in the last iteration, or some iterations back in this loop alone (async producers
    /// too, as async-waits' check takes them, `Reach::left`).
    fn leave_only(&mut self, acc: &Accesses, lp: StmtId, iv: ValueId) {
        let form = |k: &Key| -> Option<u32> {
            let e = acc.loop_exit(k.desc, lp)?;
            match k.carried {
                0 => Some(e),
                // Async producers too: async-waits takes the form for a copy that left
                // the loop from any iteration (`Reach::left`).
                1 | CARRIED_IN_LOOP if acc.dist_iv(k.desc) == Some(iv) => Some(e),
                _ => None,
            }
        };
        self.rekey_some(|k| {
            form(k).map(|desc| Key {
                desc,
                carried: 0,
                ..*k
            })
        });
    }

    fn strict_subset(&self, o: &State) -> bool {
        self.m.len() < o.m.len() && self.m.keys().all(|k| o.m.contains_key(k))
    }
    /// Moves the accesses whose addresses depend on `iv` one iteration back (`exit`: out of
    /// the loop, to an unknown distance).
    fn carry(&mut self, acc: &Accesses, iv: ValueId, exit: bool) {
        let dep = |k: &Key| acc.descs[k.desc as usize].ivs.binary_search(&iv).is_ok();
        if !self.m.keys().any(|k| k.carried != 2 && dep(k)) {
            return;
        }
        let old = self.m.take();
        for &(mut k, (s, a)) in &old {
            if dep(&k) {
                let one = acc.dist_iv(k.desc) == Some(iv);
                k.carried = next_carried(!exit && one, k.carried);
            }
            self.insert(k, s, a);
        }
        recycle(old);
    }
}

/// Static facts about the kernel the simulations share.
struct Ctx<'k> {
    k: &'k Kernel,
    acc: Accesses,
    /// First program-point id of each block.
    base: Vec<usize>,
    point_block: Vec<u32>,
    weight: Vec<u64>,
    /// Whether barriers may go in the block (not under a divergent `if`).
    allowed: Vec<bool>,
    /// Loops whose body holds `stage` markers: the warp-pipeline pass's, one op to us.
    stage_loop: Vec<bool>,
    /// Access ids inside each loop/if (one per descriptor).
    summary: Vec<Vec<u32>>,
    /// Per loop: `Ctx::meets_later`'s alias classes.
    later_meets: Vec<(u64, u64)>,
    /// Per `if`: whether its condition is false (then dead) or true (else dead) in every
    /// iteration of the constant-bound loop it depends on.
    dead: Vec<(bool, bool)>,
    /// Per loop: its trip count when the simulation runs it iteration by iteration (see
    /// `unroll_trips`), else 0.
    unroll: Vec<u8>,
    /// Per loop: the value of its induction variable in its last iteration, when the coverage
    /// run runs that iteration once more on its own (`unroll_trips`).
    last_iv: Vec<Option<i64>>,
    /// Per descriptor: its alias classes (bit `root % 64`) and whether it writes.
    dmask: Vec<(u64, bool)>,
    /// Per loop/if: no loop or if inside it (its run does not depend on the what-if budget).
    flat: Vec<bool>,
    /// No split barrier (signal/wait) in the input: no stamp outside a state is ever compared.
    no_marks: bool,
    /// Per block: the innermost loop around it whose handles have bound forms (`u32::MAX`:
    /// none). Only such loops mark the accesses pending at their entry.
    inner_loop: Vec<u32>,
    /// Per loop with bound handles (`inner_loop`'s loops): the innermost such loop around it
    /// (`u32::MAX`: none, and for every other statement).
    up_loop: Vec<u32>,
    /// The access tables as collected, for the pass that runs next (`run_keeping`).
    kept: Option<Accesses>,
    /// Per statement: a loop whose handles have bound forms (`Accesses::binds`).
    loop_binds: Vec<bool>,
    /// Per statement: a loop some descriptor's region names as the loop of an inner loop's
    /// handle started from its own (`Region::outer`): its back edge marks every key
    /// (`Key::xb`).
    outer_loops: Vec<bool>,
    /// Per descriptor: some async copy writes through it. Such a producer crossing the back
    /// edge of a loop of two trips is not bound to the first iteration's handles
    /// (`State::join_carried`), nor does it enter a parity branch bound (`Sim::enter_branch`):
    /// async-waits, run on its own after this pass, checks that a barrier lies between a copy
    /// and its readers in other waves comparing the copy with every value the handles take,
    /// and would warn where the bound comparison placed none. (Pending since before a loop,
    /// or leaving one, a copy is bound like any access: async-waits knows the first
    /// iteration and the loop's exit too.)
    async_desc: Vec<bool>,
    /// Per descriptor: an async copy writes through it, and it is not one known region (a
    /// handle, an `if` result, a dropped slot): such a producer leaves a loop in one fixed
    /// place or its exit form only (`State::leave_loop`, `Key::pin`), and meets accesses
    /// with no first-iteration binding: async-waits, run on its own, compares
    /// it by root buffers where it can lose the binding (once the path crosses a later loop's
    /// back edge), and would warn.
    async_loose: Vec<bool>,
    /// Per access: made by an async copy (`Key::asy`).
    asy: Vec<bool>,
    /// Threads per wave: accesses that only meet within one wave need no barrier.
    wave: u64,
    /// Per descriptor: it goes through a loop's result (`Region::run`, `Key::run`).
    run_desc: Vec<bool>,
    /// Monolithic barriers only: what is in flight at a join is what the placement saw.
    /// Split placement moves signals before copies the barrier does not cover, which
    /// async-waits then sees in flight beside others (`Key::ares`; gen seed 139's kernel on
    /// gfx1250).
    whole_barriers: bool,
    /// Threads of the workgroup (waves x wave size): a fencing named barrier over this many
    /// threads orders like the default barrier.
    threads: u64,
    /// Per loop/if: the program points inside it, `[lo, hi)`, when its blocks are numbered
    /// consecutively (else empty: its runs are not memoized).
    span: Vec<(u32, u32)>,
    /// Memoize what-if runs (`Sim::memo_run`); off only in tests that compare with it.
    memo: bool,
    /// Per statement (empty when none): for an op that runs in one residue of its innermost
    /// loop with handles (`Accesses::residue_ops`), that residue (`Key::res`); for a loop in
    /// a branch of one residue of a loop of `plain_res`, that residue (`Sim::leave`); `NO_RES`
    /// else.
    op_res: Vec<u8>,
    /// Per statement (empty when none): for an op that runs in one residue of a loop with
    /// handles around its innermost one (`Accesses::residue_ops`), that loop and residue
    /// (`u32::MAX`: none). Only the consumers of async copies use it (`async_in_residue`).
    op_outer: Vec<(u32, u8)>,
    /// Per statement (empty when none): for an op in one residue of the loop `Key::res`
    /// follows around the innermost one it follows around the op, that residue
    /// (`Key::ores`); `OLD_RES` else.
    op_ores: Vec<u8>,
    /// Per `if` on the induction variable of the innermost loop with handles around it that
    /// `Key::res` follows: (if statement, loop, residue of its then branch, of its else
    /// branch; `NO_RES` where the branch runs in several), sorted.
    if_res: Vec<(u32, u32, u8, u8)>,
    /// Those loops with their handles' periods, and the loops `Key::res` follows for their
    /// `if`s (`plain_residue_loops`: those of `plain_res`, and loops with bound handles that
    /// give no period) with theirs, sorted.
    res_loops: Vec<(StmtId, u8)>,
    /// Per statement (empty when none): a loop without bound handles, inside none whose
    /// residue `Key::res` follows, that `Key::res` follows for its uniform `if`s on its
    /// variable (`plain_residue_loops`: the iteration's residue modulo the lcm of their
    /// constants, as the verifier tracks the variable's, or `FIRST_LATER`): the path's keys
    /// take the residue of the branch they enter, a key whose path put the iteration in
    /// another residue does not enter it, the state at the entry is in residue 0. Slot views on the loop's variable take that
    /// residue's slots (`res_forms`); leaving the loop forgets the residues (`OLD_RES`).
    plain_res: Vec<bool>,
    /// (descriptor, loop index, residue) -> the descriptor with that loop's handles bound to
    /// that residue's values (`Accesses::residue_forms`), or, for a loop of `plain_res`, its
    /// slot indices on the loop's variable fixed to that residue's slots
    /// (`Accesses::plain_residue_forms`), sorted.
    res_forms: Vec<((u32, u32, u32), u32)>,
    /// Per block, when some loop without bound handles is followed (`plain_res`): the
    /// innermost loop around it that `Key::res` follows (`u32::MAX`: none); empty else (then
    /// `inner_loop` is that loop).
    res_loop: Vec<u32>,
    /// Per block (empty when no loop is followed): the loop `Key::ores` is a residue of,
    /// the one `Key::res` follows around the innermost one it follows there (`u32::MAX`:
    /// none).
    ores_loop: Vec<u32>,
    /// Uniform `if`s on the variable of a loop `Key::res` could follow (`res_loops`) that is
    /// not the innermost loop with handles around them but encloses it: (if, loop, residue
    /// of the then branch, of the else branch), sorted (`Sim::enter_outer_branch`).
    outer_res: Vec<(u32, u32, u8, u8)>,
    /// (descriptor, loop, residue) -> the descriptor with that loop's handles, and those of
    /// the loops inside it started from them, bound to that residue's values
    /// (`Accesses::nested_residue_forms`), sorted.
    outer_forms: Vec<((u32, u32, u32), u32)>,
    /// (descriptor, loop, `t`) -> the descriptor with the results of that loop (inside no
    /// loop, its results told apart) taken after a trip count congruent to `t` modulo its
    /// residue period (`Accesses::top_exit_forms`), sorted. `Key::exit`.
    exit_forms: Vec<((u32, u32, u32), u32)>,
    /// The loops of `exit_forms`, sorted.
    exit_loops: Vec<u32>,
    /// Per access through the results of a uniform `if`: that `if` and the access's
    /// descriptor with the results of its then and else branch (`Accesses::branch_forms`),
    /// sorted by access.
    br_forms: Vec<(u32, StmtId, [u32; 2])>,
    /// Per access through a handle whose initial value is a result of a uniform `if`: the
    /// handle's loop, that `if`, and the access's descriptor in the loop's first iteration
    /// with the `if`'s then and else results (`Accesses::branch_forms`), sorted by
    /// access.
    first_br_forms: Vec<(u32, StmtId, StmtId, [u32; 2])>,
    /// Per statement: an `if` of `br_forms` or `first_br_forms` (its join tags the keys,
    /// `Key::br`).
    br_if: Vec<bool>,
}

thread_local! {
    /// Set by `testing::without_memo` on the thread that runs the pass.
    static NO_MEMO: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set by `testing::without_double` on the thread that runs the pass.
    static NO_DOUBLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The program points of each loop/if (see `Ctx::span`).
fn spans(k: &Kernel, base: &[usize]) -> Vec<(u32, u32)> {
    let mut out = vec![(0u32, 0u32); k.stmts.len()];
    // (lowest block, highest block, blocks) of the subtree of `b`, itself included.
    fn walk(
        k: &Kernel,
        b: BlockId,
        base: &[usize],
        out: &mut [(u32, u32)],
    ) -> (usize, usize, usize) {
        let (mut lo, mut hi, mut n) = (b.index(), b.index(), 1);
        for &s in &k.blocks[b].stmts {
            let kids = match &k.stmts[s].kind {
                StmtKind::For(f) => [Some(f.body), None],
                StmtKind::If(i) => [Some(i.then_block), i.else_block],
                _ => continue,
            };
            let (mut slo, mut shi, mut sn) = (usize::MAX, 0, 0);
            for c in kids.into_iter().flatten() {
                let (a, z, m) = walk(k, c, base, out);
                slo = slo.min(a);
                shi = shi.max(z);
                sn += m;
            }
            if sn > 0 && shi - slo + 1 == sn {
                let end = base[shi] + k.blocks[BlockId::new(shi)].stmts.len() + 1;
                out[s.index()] = (base[slo] as u32, end as u32);
            }
            lo = lo.min(slo);
            hi = hi.max(shi);
            n += sn;
        }
        (lo, hi, n)
    }
    walk(k, k.body, base, &mut out);
    out
}

impl<'k> Ctx<'k> {
    fn new(k: &'k Kernel, target: Target) -> Self {
        Self::new_keeping(k, target, false)
    }

    /// `new`; with `keep`, a copy of the access tables as collected (before the bindings
    /// below) is kept in `kept`.
    fn new_keeping(k: &'k Kernel, target: Target, keep: bool) -> Self {
        let t_start = std::time::Instant::now();
        let info = target.info();
        let threads = k.waves.unwrap_or(info.default_waves) as u64 * info.wave_size as u64;
        // Large kernels with a second core: the accesses are collected on the pass' threads,
        // and the layout tables built beside the bindings after it.
        let two = lane_threads(k) > 1;
        let layout = || {
            let mut base = Vec::with_capacity(k.blocks.len());
            let mut point_block = Vec::new();
            for (b, d) in k.blocks.iter() {
                base.push(point_block.len());
                for _ in 0..=d.stmts.len() {
                    point_block.push(b.index() as u32);
                }
            }
            let weight = block_weights(k);
            let mut flat = vec![true; k.stmts.len()];
            for (_, d) in k.blocks.iter() {
                if let Some(par) = d.parent {
                    if d.stmts
                        .iter()
                        .any(|&x| matches!(k.stmts[x].kind, StmtKind::For(_) | StmtKind::If(_)))
                    {
                        flat[par.index()] = false;
                    }
                }
            }
            let dead = dead_branches(k);
            let span = spans(k, &base);
            (base, point_block, weight, flat, dead, span)
        };
        let workers = lane_threads(k);
        let mut acc = if two {
            Accesses::collect_parallel(k, Some(threads), workers)
        } else {
            Accesses::collect_with_threads(k, Some(threads))
        };
        let kept = keep.then(|| acc.clone());
        let dbg = std::env::var("SYNCOPT_BAR_DEBUG").is_ok();
        if dbg {
            eprintln!("ctx: access collection {:?}", t_start.elapsed());
        }
        // Handles bound by parity conditions, and slot views indexed by a loop's induction
        // variable in the loop's first iteration: one thread's work, so the layout tables are
        // built meanwhile (during the collection they took a core from its workers).
        let bind = |acc: &mut Accesses| {
            acc.bind_parity(k);
            // After the parity forms: a descriptor they made may be rebound again.
            acc.bind_residue_slots(k);
            acc.bind_loop_exits(k);
            acc.bind_first_ivs(k);
            acc.bind_periodic(k);
        };
        let (base, point_block, weight, flat, dead, span) = if two {
            std::thread::scope(|sc| {
                // No thread to be had: the tables are built here afterwards.
                let h = std::thread::Builder::new().spawn_scoped(sc, layout).ok();
                bind(&mut acc);
                h.and_then(|h| h.join().ok()).unwrap_or_else(layout)
            })
        } else {
            bind(&mut acc);
            layout()
        };
        if dbg {
            eprintln!(
                "ctx: parity and first-iteration forms {:?}",
                t_start.elapsed()
            );
        }
        // Ops confined to one residue of a loop with handles, and the loops' other accesses
        // in each residue (what such an op meets in the next iteration).
        let mut res_ops = acc.residue_ops(k);
        let mut res_loops: Vec<(StmtId, u8)> = res_ops
            .iter()
            .filter_map(|&(_, lp, _, q)| u8::try_from(q).ok().map(|q| (lp, q)))
            .collect();
        res_loops.sort_unstable();
        res_loops.dedup();
        let res_forms = acc.residue_forms(
            k,
            &res_loops
                .iter()
                .map(|&(lp, q)| (lp, q as u64))
                .collect::<Vec<_>>(),
        );
        let t_br = std::time::Instant::now();
        let (br_forms, first_br_forms) = acc.branch_forms(k, Some(threads));
        if dbg {
            eprintln!(
                "ctx: if-result forms {:?} ({} accesses, {} through handles started from \
                 them)",
                t_br.elapsed(),
                br_forms.len(),
                first_br_forms.len()
            );
        }
        let mut br_if = vec![
            false;
            if br_forms.is_empty() && first_br_forms.is_empty() {
                0
            } else {
                k.stmts.len()
            }
        ];
        for s in br_forms
            .iter()
            .map(|x| x.1)
            .chain(first_br_forms.iter().map(|x| x.2))
        {
            br_if[s.index()] = true;
        }
        let dmask = acc.descs.iter().map(desc_mask).collect();
        let mut allowed = vec![false; k.blocks.len()];
        let mut stage_loop = vec![false; k.stmts.len()];
        let mut summary = vec![Vec::new(); k.stmts.len()];
        let (unroll, last_iv) = unroll_trips(k);
        let mut c = Ctx {
            k,
            acc,
            base,
            point_block,
            weight,
            allowed: Vec::new(),
            stage_loop: Vec::new(),
            summary: Vec::new(),
            later_meets: Vec::new(),
            dead,
            unroll,
            last_iv,
            dmask,
            flat,
            inner_loop: Vec::new(),
            up_loop: Vec::new(),
            kept,
            loop_binds: Vec::new(),
            async_desc: Vec::new(),
            async_loose: Vec::new(),
            asy: Vec::new(),
            op_res: Vec::new(),
            op_outer: Vec::new(),
            op_ores: Vec::new(),
            outer_loops: Vec::new(),
            if_res: Vec::new(),
            res_loops,
            plain_res: Vec::new(),
            res_forms,
            res_loop: Vec::new(),
            ores_loop: Vec::new(),
            br_forms,
            first_br_forms,
            br_if,
            outer_res: Vec::new(),
            outer_forms: Vec::new(),
            exit_forms: Vec::new(),
            exit_loops: Vec::new(),
            // Only AMD waves are lockstep (see `Target::lockstep_threads`).
            wave: target.lockstep_threads(),
            run_desc: Vec::new(),
            whole_barriers: false,
            threads,
            span,
            memo: !NO_MEMO.with(|m| m.get()),
            no_marks: !k.stmts.iter().any(|(_, d)| {
                matches!(
                    d.kind,
                    StmtKind::Sync(SyncOp::Signal { .. } | SyncOp::Wait { .. })
                )
            }),
        };
        if dbg {
            eprintln!(
                "ctx: accesses and layout {:?} ({} descriptors, {} accesses)",
                t_start.elapsed(),
                c.acc.descs.len(),
                c.acc.accesses.len()
            );
        }
        // The top-level statements' tables, in slices on the available threads.
        allowed[k.body.index()] = true;
        let top = &k.blocks[k.body].stmts;
        let parts = if two && top.len() >= 2 * workers {
            let per = top.len().div_ceil(workers);
            let c = &c;
            std::thread::scope(|sc| {
                let hs: Vec<_> = top
                    .chunks(per)
                    .map(|ch| {
                        std::thread::Builder::new()
                            .spawn_scoped(sc, move || {
                                let mut out = Prep::default();
                                for &s in ch {
                                    c.prepare_stmt(s, true, &mut out);
                                }
                                out
                            })
                            .ok()
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.and_then(|h| h.join().ok()))
                    .collect::<Vec<_>>()
            })
        } else {
            Vec::new()
        };
        let parts: Vec<Prep> = if !parts.is_empty() && parts.iter().all(|p| p.is_some()) {
            parts.into_iter().flatten().collect()
        } else {
            let mut out = Prep::default();
            for &s in top {
                c.prepare_stmt(s, true, &mut out);
            }
            vec![out]
        };
        for p in parts {
            for b in p.allowed {
                allowed[b as usize] = true;
            }
            for s in p.stage {
                stage_loop[s as usize] = true;
            }
            for (s, v) in p.summary {
                summary[s as usize] = v;
            }
        }
        if dbg {
            eprintln!("ctx: loop and if summaries {:?}", t_start.elapsed());
        }
        c.allowed = allowed;
        c.stage_loop = stage_loop;
        let mut loop_binds = vec![false; k.stmts.len()];
        for b in c.acc.binds.iter().flatten() {
            loop_binds[b.lp.index()] = true;
        }
        c.inner_loop = inner_loops_and_ups(k, &loop_binds, Some(&mut c.up_loop));
        let mut block_of = Vec::new();
        if k.stmts.iter().any(|(_, d)| {
            matches!(&d.kind, StmtKind::If(i) if i.uniformity == Uniformity::Uniform
                && i.cond.expr.terms.len() == 1)
        }) {
            block_of = vec![u32::MAX; k.stmts.len()];
            for (b, d) in k.blocks.iter() {
                for &x in &d.stmts {
                    block_of[x.index()] = b.index() as u32;
                }
            }
        }
        // A loop whose handles no access goes through binds nothing: `Key::res` follows it
        // as a plain loop, by the `if`s on its variable (exec seed 6711 at 100 ops: a key
        // pending since before it met the write after an `if` it could not have skipped in
        // the first trip, which the residue of a loop with bound handles would have told).
        c.res_loops.retain(|x| loop_binds[x.0.index()]);
        res_ops.retain(|x| loop_binds[x.1.index()]);
        let plain = plain_residue_loops(k, &loop_binds, &c.inner_loop, &block_of, &c.res_loops);
        c.loop_binds = loop_binds;
        if !res_ops.is_empty() || !plain.is_empty() {
            // The loops `Key::res` follows: those with handles, and the plain ones.
            let handle_loops = c.res_loops.clone();
            let mut res_loop = c.inner_loop.clone();
            if !plain.is_empty() {
                let mut follows = c.loop_binds.clone();
                let mut plain_res = vec![false; k.stmts.len()];
                for &(lp, q) in &plain {
                    follows[lp.index()] = true;
                    plain_res[lp.index()] = !c.loop_binds[lp.index()];
                    c.res_loops.push((lp, q));
                }
                c.res_loops.sort_unstable();
                c.plain_res = plain_res;
                res_loop = inner_loops(k, &follows);
                // Slot views on such a loop's variable in each residue of its iterations.
                let loops: Vec<(StmtId, u64)> = plain
                    .iter()
                    .filter(|&&(_, q)| q != FIRST_LATER)
                    .map(|&(lp, q)| (lp, u64::from(q)))
                    .collect();
                let mut forms = c.acc.plain_residue_forms(k, &loops);
                // Accesses through the results of an `if` on the loop's variable, in the
                // residues its branches run in.
                let by_if = if_residue_forms(k, &c.acc, &c.br_forms, &plain, &res_loop, &block_of);
                if !by_if.is_empty() {
                    // A slot view's form first, where one descriptor had both.
                    let taken: BTreeSet<(u32, u32, u32)> =
                        c.res_forms.iter().chain(&forms).map(|x| x.0).collect();
                    forms.extend(by_if.into_iter().filter(|x| !taken.contains(&x.0)));
                }
                if !forms.is_empty() {
                    c.res_forms.extend(forms);
                    c.res_forms.sort_unstable();
                }
                c.res_loop = res_loop.clone();
            }
            // Only where the loop is the innermost one `Key::res` follows around the op.
            let mut op_res = vec![NO_RES; k.stmts.len()];
            for &(op, lp, it, _) in &res_ops {
                let b = block_of[op.index()];
                if b != u32::MAX && c.inner_loop[b as usize] == lp.index() as u32 {
                    op_res[op.index()] = it as u8;
                } else if b != u32::MAX && it < u64::from(OLD_RES) {
                    if c.op_outer.is_empty() {
                        c.op_outer = vec![(u32::MAX, NO_RES); k.stmts.len()];
                    }
                    c.op_outer[op.index()] = (lp.index() as u32, it as u8);
                }
            }
            for &(lp, q) in &plain {
                plain_residue_ops(k, lp, q, &res_loop, (&mut op_res, &mut c.op_ores), false);
            }
            // Loops with handles too, for the loops in their branches (`Sim::leave`) and the
            // ops of the loops `Key::res` follows right inside (`Key::ores`); ops have their
            // own from `res_ops`.
            for &(lp, q) in &handle_loops {
                plain_residue_ops(k, lp, q, &res_loop, (&mut op_res, &mut c.op_ores), true);
            }
            c.op_res = op_res;
            if !block_of.is_empty() {
                let mut ores_loop = vec![u32::MAX; k.blocks.len()];
                for (b, _) in k.blocks.iter() {
                    let lp = c.res_loop_at(b);
                    if let Some(&pb) = block_of.get(lp as usize) {
                        if pb != u32::MAX {
                            ores_loop[b.index()] = c.res_loop_at(BlockId::new(pb as usize));
                        }
                    }
                }
                c.ores_loop = ores_loop;
            }
            c.if_res = branch_residues(k, &res_loop, &block_of, &c.res_loops, false);
            c.outer_res = branch_residues(k, &c.inner_loop, &block_of, &handle_loops, true);
            if !c.outer_res.is_empty() {
                let mut loops: Vec<(StmtId, u64)> = c
                    .outer_res
                    .iter()
                    .filter_map(|&(_, lp, _, _)| {
                        let lp = StmtId::new(lp as usize);
                        c.res_period(lp).map(|q| (lp, u64::from(q)))
                    })
                    .collect();
                loops.sort_unstable();
                loops.dedup();
                c.outer_forms = c.acc.nested_residue_forms(k, &loops);
            }
            // Loops `Key::res` follows by one period only (the key's residue is the trip
            // count's modulo that period).
            let tops: Vec<(StmtId, u64)> = c
                .res_loops
                .iter()
                .filter(|&&(lp, q)| {
                    q != FIRST_LATER && c.loop_binds[lp.index()] && c.one_period(lp)
                })
                .map(|&(lp, q)| (lp, u64::from(q)))
                .collect();
            c.exit_forms = c.acc.top_exit_forms(k, &tops);
            c.exit_loops = c.exit_forms.iter().map(|x| x.0 .1).collect();
            c.exit_loops.sort_unstable();
            c.exit_loops.dedup();
            // The new descriptors' root masks.
            for d in c.dmask.len()..c.acc.descs.len() {
                c.dmask.push(desc_mask(&c.acc.descs[d]));
            }
        }
        c.run_desc = (0..c.acc.descs.len() as u32)
            .map(|d| c.acc.has_run(d))
            .collect();
        let mut async_desc = vec![false; c.acc.descs.len()];
        let mut async_loose = vec![false; c.acc.descs.len()];
        let mut asy = vec![false; c.acc.accesses.len()];
        for (i, a) in c.acc.accesses.iter().enumerate() {
            if let StmtKind::Op(op) = &k.stmts[a.stmt].kind {
                if op.asynchronous.is_some() {
                    asy[i] = true;
                    async_desc[a.desc as usize] = true;
                    let d = &c.acc.descs[a.desc as usize];
                    async_loose[a.desc as usize] = match d.regions.as_slice() {
                        [r] => {
                            d.bind.is_some() || r.handle.is_some() || r.hull || r.kept || r.apart
                        }
                        _ => true,
                    };
                }
            }
        }
        // A copy's form out of a loop (`State::leave_only`) is a copy's, loose where it was.
        for (d, e) in c.acc.loop_exit_forms() {
            let (d, e) = (d as usize, e as usize);
            if e < async_desc.len() {
                async_desc[e] |= async_desc[d];
                async_loose[e] |= async_loose[d];
            }
        }
        c.async_desc = async_desc;
        c.async_loose = async_loose;
        c.asy = asy;
        // Per loop with bound forms: the alias classes of the accesses inside it whose
        // addresses move with its variable, and of those that write.
        let mut later_meets = vec![(0u64, 0u64); k.stmts.len()];
        for (s, acs) in summary.iter().enumerate() {
            if !c.loop_binds.get(s).copied().unwrap_or(false) {
                continue;
            }
            let StmtKind::For(f) = &k.stmts[StmtId::new(s)].kind else {
                continue;
            };
            for &a in acs {
                let d = c.desc(a) as usize;
                if c.acc.descs[d].ivs.binary_search(&f.iv).is_ok() {
                    let (m, w) = c.dmask[d];
                    later_meets[s].0 |= m;
                    if w {
                        later_meets[s].1 |= m;
                    }
                }
            }
        }
        c.later_meets = later_meets;
        c.summary = summary;
        // Every descriptor, the forms made above included: a key may take a form with such a
        // region after it crossed the loop's back edge.
        let mut outer_loops = vec![false; k.stmts.len()];
        for r in c.acc.descs.iter().flat_map(|d| &d.regions) {
            if let Some((lp, _, _)) = r.outer {
                outer_loops[lp.index()] = true;
            }
        }
        c.outer_loops = outer_loops;
        c
    }

    /// Whether key `k`, crossing the back edge of loop `lp` (with bound forms), may meet an
    /// access inside it whose address moves with its variable: only such a key needs
    /// `Key::later` (the others are compared alike in any trip).
    fn meets_later(&self, lp: Option<StmtId>, k: &Key) -> bool {
        let Some(&(m, w)) = lp.and_then(|l| self.later_meets.get(l.index())) else {
            return false;
        };
        let (km, kw) = self.dmask[k.desc as usize];
        km & m != 0 && (kw || km & w != 0)
    }

    /// Fills `out` for `b` (which may hold barriers when `ok`); returns the block's accesses.
    fn prepare(&self, b: BlockId, ok: bool, out: &mut Prep) -> Vec<u32> {
        if ok {
            out.allowed.push(b.index() as u32);
        }
        let mut all: Vec<u32> = Vec::new();
        for &s in &self.k.blocks[b].stmts {
            match &self.k.stmts[s].kind {
                StmtKind::Op(_) => all.extend_from_slice(&self.acc.by_stmt[s.index()]),
                StmtKind::For(_) | StmtKind::If(_) => {
                    self.prepare_stmt(s, ok, out);
                    if let Some((_, v)) = out.summary.last() {
                        all.extend_from_slice(v);
                    }
                }
                _ => {}
            }
        }
        self.dedup(&mut all);
        all
    }

    /// `prepare` for one statement: a loop's or if's accesses (deduplicated) go to the end
    /// of `out.summary`.
    fn prepare_stmt(&self, s: StmtId, ok: bool, out: &mut Prep) {
        match &self.k.stmts[s].kind {
            StmtKind::For(f) => {
                if self.k.blocks[f.body]
                    .stmts
                    .iter()
                    .any(|&x| matches!(self.k.stmts[x].kind, StmtKind::Stage(_)))
                {
                    out.stage.push(s.index() as u32);
                }
                let inner = self.prepare(f.body, ok, out);
                out.summary.push((s.index() as u32, inner));
            }
            StmtKind::If(i) => {
                let ok2 = ok && i.uniformity == Uniformity::Uniform;
                let mut inner = self.prepare(i.then_block, ok2, out);
                if let Some(e) = i.else_block {
                    inner.extend(self.prepare(e, ok2, out));
                }
                self.dedup(&mut inner);
                out.summary.push((s.index() as u32, inner));
            }
            _ => {}
        }
    }

    /// Keeps the first access of each descriptor.
    fn dedup(&self, v: &mut Vec<u32>) {
        if v.len() < 2 {
            return;
        }
        if v.len() <= 32 {
            let mut n = 0;
            for i in 0..v.len() {
                let d = self.desc(v[i]);
                if !v[..n].iter().any(|&a| self.desc(a) == d) {
                    v[n] = v[i];
                    n += 1;
                }
            }
            v.truncate(n);
            return;
        }
        let mut seen = BTreeSet::new();
        v.retain(|&a| seen.insert(self.acc.accesses[a as usize].desc));
    }

    /// `Accesses::conflict` behind a quick filter: two descriptors with no alias class in
    /// common, or that both only read, never conflict.
    #[inline]
    fn conflict(&self, a: u32, a_carried: u8, b: u32) -> bool {
        self.may_meet(a, b) && self.acc.conflict_across_waves(a, a_carried, b, self.wave)
    }

    /// The quick filter of `conflict`: an alias class in common, and a write among the two.
    #[inline]
    fn may_meet(&self, a: u32, b: u32) -> bool {
        let (ma, wa) = self.dmask[a as usize];
        let (mb, wb) = self.dmask[b as usize];
        ma & mb != 0 && (wa || wb)
    }

    /// Accesses read through the results of statement `s` (an `if`, or a loop that may run no
    /// trip) whose forms differ by the side taken (`Key::br`).
    fn br_if_at(&self, s: StmtId) -> bool {
        self.br_if.get(s.index()).copied().unwrap_or(false)
    }

    /// A loose async producer (`async_loose`, `Key::pin`): what it meets takes no
    /// first-iteration binding (`Ctx::conflict_key_plain`).
    #[inline]
    fn loose(&self, k: &Key) -> bool {
        is_loose(k, &self.async_loose)
    }

    /// `conflict` for a pending key and access `a` of block `b`: a key older than the entry
    /// of the innermost loop around `b` meets that loop's first iteration (an async producer
    /// with no binding at all, see `async_loose`).
    ///
    /// `trip`: the iteration `(it, n)` of the `n`-trip exact loop around `b` the path is in,
    /// where the coverage run goes through that loop trip by trip (`Sim::current_trip`).
    #[inline]
    fn conflict_key(&self, k: &Key, b: BlockId, a: u32, trip: Option<(u8, u8)>) -> bool {
        let d = self.desc(a);
        if k.asy && !self.op_res.is_empty() {
            if let Some(kd) = self.async_in_residue(k, b, a) {
                let k = Key { desc: kd, ..*k };
                return self.conflict_key_plain(&k, b, a, d, trip);
            }
        }
        self.conflict_key_plain(k, b, a, d, trip)
    }

    /// An async copy made in the current iteration of the innermost loop with handles around
    /// `b` (as `Sim::enter_branch` takes keys), met by access `a` of an op that runs in one
    /// residue of that loop only: the copy ran in that residue too, its handles held that
    /// residue's values (`res_forms`). Only for the consumer, as async-waits' warning check
    /// binds such a copy: the key itself stays unbound.
    fn async_in_residue(&self, k: &Key, b: BlockId, a: u32) -> Option<u32> {
        if k.res != NO_RES || k.carried != 0 || k.first || k.back {
            return None;
        }
        let s = self.acc.accesses[a as usize].stmt.index();
        let r = self.op_res[s];
        if r < OLD_RES {
            return self.res_form(k.desc, self.inner_loop[b.index()], r);
        }
        // In one residue of a loop around the innermost one with handles: the copy, made in
        // the current iteration of that one, ran in the same iteration of the outer loop, its
        // handles and those of the loops inside started from them bound to that residue's
        // values (`outer_forms`; plain gen seed 1145 at 100 ops on sm).
        let &(lp, r) = self.op_outer.get(s)?;
        if lp == u32::MAX {
            return None;
        }
        self.outer_form(k.desc, lp, r)
    }

    /// The innermost loop around `b` that `Key::res` follows (`res_loop`).
    fn res_loop_at(&self, b: BlockId) -> u32 {
        match self.res_loop.get(b.index()) {
            Some(&lp) => lp,
            None => self.inner_loop[b.index()],
        }
    }

    /// Every async producer of `st` whose path told its residue of loop `lp` (`Key::ares`)
    /// in that residue's form (made in the current iteration; `res_form`), `Key::ares`
    /// cleared.
    fn take_ares(&self, st: &mut State, lp: u32) {
        if !st.m.keys().any(|k| k.ares != NO_RES) {
            return;
        }
        st.rekey(
            |k| k.ares == NO_RES,
            |k| {
                let desc = match k.carried {
                    0 => self.res_form(k.desc, lp, k.ares).unwrap_or(k.desc),
                    _ => k.desc,
                };
                Key {
                    desc,
                    ares: NO_RES,
                    ..k
                }
            },
        );
    }

    /// What crosses the back edge of loop `lp` (residue period `q`) from `st`, when some async
    /// copy of this iteration's path told its residue (`Key::ares`): that copy in that
    /// residue's form, with `Key::res` that residue, which the back edge then takes to the
    /// next one, as for a key whose path told its residue (exec seed 18142 at 100 ops: a copy
    /// of an odd trip met the next trip's read through the handle that holds another buffer
    /// then; async-waits' check binds both alike, from `Reach::res`). The copy takes its
    /// form too: a consumer in the next residue's form no longer takes the handle rule
    /// against the copy's handle (exec seed 5553). `None` when no key is such.
    fn ares_across(&self, st: &State, lp: StmtId, q: u8) -> Option<State> {
        let fits =
            |k: &Key| q != FIRST_LATER && k.asy && k.res == NO_RES && k.ares < q && k.carried == 0;
        if !st.m.keys().any(fits) {
            return None;
        }
        let mut out = st.clone();
        let l = lp.index() as u32;
        out.rekey_some(|k| {
            fits(k).then(|| Key {
                desc: self.res_form(k.desc, l, k.ares).unwrap_or(k.desc),
                res: k.ares,
                ares: NO_RES,
                ..*k
            })
        });
        Some(out)
    }

    /// Descriptor `d` with loop `lp`'s handles bound to residue `r`'s values (`res_forms`).
    fn res_form(&self, d: u32, lp: u32, r: u8) -> Option<u32> {
        form_in(&self.res_forms, d, lp, r)
    }

    /// Descriptor `d` with loop `lp`'s handles, and those of the loops inside it started
    /// from them, bound to residue `r`'s values (`outer_forms`).
    fn outer_form(&self, d: u32, lp: u32, r: u8) -> Option<u32> {
        form_in(&self.outer_forms, d, lp, r)
    }

    #[inline]
    fn conflict_key_plain(
        &self,
        k: &Key,
        b: BlockId,
        a: u32,
        d: u32,
        trip: Option<(u8, u8)>,
    ) -> bool {
        if k.run && self.acc.run_apart(k.desc, d) {
            return false;
        }
        if self.loose(k) {
            // The consumer in its own form, parity and residue bindings included, as
            // async-waits' check binds it (it once took the form before `bind_parity`, when
            // the check had no such binding: executable seed 255). Pending since before the
            // entry of the loop, which is in its first trip (as async-waits compares it where
            // no path crossed that loop's back edge since, or one of a loop around it:
            // `Reach::later`); a pinned one in its loop's next run too.
            let u = match self.inner_loop[b.index()] {
                lp if k.first && lp != u32::MAX => {
                    self.acc.first_bound(d, StmtId::new(lp as usize))
                }
                // In the second trip, the last of two: async-waits' check binds the consumer
                // there (`Carried::One`).
                lp if k.back && lp != u32::MAX => self
                    .acc
                    .last_bound(d, StmtId::new(lp as usize))
                    .unwrap_or(d),
                // Made in a residue the path told, one back edge back: the consumer in the
                // next residue's form, as async-waits' check binds it (`Carried::One` of the
                // loop the copy's residue is of; exec seed 8634: a copy of the odd trip met
                // the even trip's write through the other handle value).
                _ if k.res < OLD_RES && k.later && !k.prev => {
                    self.res_form(d, self.res_loop_at(b), k.res).unwrap_or(d)
                }
                _ => d,
            };
            // Pending since before the loop around too, still in its first trip (`Key::up`).
            let u = match k.up {
                NO_UP => u,
                up if up & UP_BACK != 0 => u,
                up => self.acc.first_bound(u, StmtId::new(up as usize)),
            };
            // The branch the path took at the last `if` with results, as below.
            if k.br != NO_BR && !self.br_agrees(k, a) {
                return false;
            }
            return self
                .later_conflict(k, b, u, trip)
                .unwrap_or_else(|| self.conflict_in_trip(k, b, u, trip))
                && self.lat_conflict(k, u);
        }
        // The branch the path took at the last `if` with results (`Key::br`): both forms
        // bound the access, so a conflict needs both, whatever form the access takes below
        // (plain gen seed 4695 on sm: a read through the result in a loop's first trip met
        // a write made only in the other branch). Async copies too: async-waits guards a copy
        // by the branch that issued it, decided branches included.
        if k.br != NO_BR && !self.br_agrees(k, a) {
            return false;
        }
        let d = if k.first {
            match self.inner_loop[b.index()] {
                u32::MAX => d,
                lp => {
                    let lp = StmtId::new(lp as usize);
                    if k.br != NO_BR && !self.first_br_agrees(k, a, lp) {
                        return false;
                    }
                    self.acc.first_bound(d, lp)
                }
            }
        } else if k.back {
            // The loop's second iteration: the last one when the trip count is 2 (async
            // producers too: async-waits binds their consumers there, `Carried::One`).
            match self.inner_loop[b.index()] {
                u32::MAX => d,
                lp => self
                    .acc
                    .last_bound(d, StmtId::new(lp as usize))
                    .unwrap_or(d),
            }
        } else if let Some(f) = (k.res < OLD_RES)
            // The residue the key's path puts the current iteration of the innermost loop
            // with handles in (the loop `Key::res` follows).
            .then(|| self.res_form(d, self.res_loop_at(b), k.res))
            .flatten()
        {
            f
        } else {
            d
        };
        // Pending since before the loop around too, which is in its first iteration (or in
        // its second, the last of two).
        let d = match k.up {
            NO_UP => d,
            up if up & UP_BACK != 0 => {
                let lp = StmtId::new((up & !UP_BACK) as usize);
                self.acc.last_bound(d, lp).unwrap_or(d)
            }
            up => self.acc.first_bound(d, StmtId::new(up as usize)),
        };
        // The residue the key's path told of the loop around the one `Key::res` follows: the
        // current trip of that loop, the accessor's too (exec seed 3703: a read in the odd
        // trips met the inner loop's write through the handle that holds the other buffer
        // there). Not the key's: its path may have told the residue of a later trip than its
        // own (exec seed 5164, a read of the odd trip past the back edge into the even
        // branch).
        let d = match self.ores_loop.get(b.index()) {
            Some(&lp) if k.ores < OLD_RES && lp != u32::MAX => {
                self.res_form(d, lp, k.ores).unwrap_or(d)
            }
            _ => d,
        };
        let met = self
            .later_conflict(k, b, d, trip)
            .unwrap_or_else(|| self.conflict_in_trip(k, b, d, trip))
            && self.lat_conflict(k, d);
        met && self.exit_agrees(k, a)
    }

    /// Whether key `k`, past the back edge of the innermost loop with bound forms around `b`
    /// (`Key::later`: the current trip is not the first), meets descriptor `d` in the later
    /// trips; `None` where that rule does not apply. The residue the path puts the current
    /// trip in counts too, where it counts that loop's trips from 0 (exec seed 818 at 100 ops:
    /// a write in the odd trip met the next trip's read as if in any later trip).
    ///
    /// Where the coverage run knows the current trip (`trip`), that trip is the residue modulo
    /// the trip count: the one later trip `d` is in (exec seed 9769 at 100 ops: a copy of the
    /// odd trip, whose path skipped the even branch's barrier, met the read of trip 1 as if
    /// in any later trip; it is in trip 2, at the same thread's words).
    fn later_conflict(&self, k: &Key, b: BlockId, d: u32, trip: Option<(u8, u8)>) -> Option<bool> {
        if !k.later || k.first || k.back || k.up != NO_UP {
            return None;
        }
        let iv = self.later_iv(b)?;
        Some(self.conflict_later(k, d, iv, trip.or_else(|| self.later_residue(k, b))))
    }

    /// Key `k` against `d` in a later trip than the first of the loop `Key::lat` names (true
    /// where it names none). A second test beside the others: each is sound alone.
    #[inline]
    fn lat_conflict(&self, k: &Key, d: u32) -> bool {
        k.lat == NO_LAT || self.conflict_later(k, d, ValueId::new(k.lat as usize), None)
    }

    /// `Accesses::conflict_across_waves_later` behind the quick filter of `conflict`: key `k`
    /// against `d` in a later trip than the first of the exact loop of `iv`, in residue `res`
    /// `(r, q)` of its trips where known.
    fn conflict_later(&self, k: &Key, d: u32, iv: ValueId, res: Option<(u8, u8)>) -> bool {
        self.may_meet(k.desc, d)
            && self
                .acc
                .conflict_across_waves_later(k.desc, k.carried, d, self.wave, (iv, res))
    }

    /// `conflict` of key `k` with descriptor `d` of block `b`, which is in trip `trip` (`it`
    /// of `n`, `Sim::current_trip`) of the exact loop around it: past its first trip, `d`
    /// meets the key in that trip's forms alone (exec seed 6564 at 100 ops: a write of the odd
    /// trip, whose path skipped the even branch's barrier, met the same trip's copy as if in
    /// the even one, where it is another thread's word).
    fn conflict_in_trip(&self, k: &Key, b: BlockId, d: u32, trip: Option<(u8, u8)>) -> bool {
        match (trip, self.later_iv(b)) {
            (Some(t), Some(iv)) if t.0 >= 1 => self.conflict_later(k, d, iv, Some(t)),
            _ => self.conflict(k.desc, k.carried, d),
        }
    }

    /// The residue `(r, q)` key `k`'s path puts the current iteration of the innermost loop
    /// with bound forms around `b` in (`Key::res`), as an iteration number modulo `q`: only
    /// where `Key::res` follows that loop, and its variable starts at a multiple of `q` and
    /// steps by 1 (so that the variable's residue, which the branches tell, is the
    /// iteration's).
    fn later_residue(&self, k: &Key, b: BlockId) -> Option<(u8, u8)> {
        if k.res >= OLD_RES || k.prev {
            return None;
        }
        let lp = self.inner_loop[b.index()];
        if lp == u32::MAX || self.res_loop_at(b) != lp {
            return None;
        }
        let s = StmtId::new(lp as usize);
        let q = self.res_period(s)?;
        let StmtKind::For(f) = &self.k.stmts[s].kind else {
            return None;
        };
        let syncopt_ir::Bound::Const(lo) = f.lo else {
            return None;
        };
        (q != FIRST_LATER && q > 0 && k.res < q && f.step == 1 && lo.rem_euclid(q as i64) == 0)
            .then_some((k.res, q))
    }

    /// The induction variable of the innermost loop with bound forms around `b` (`Key::later`).
    fn later_iv(&self, b: BlockId) -> Option<ValueId> {
        self.loop_iv(self.inner_loop[b.index()])
    }

    /// The induction variable of loop statement `lp` (`u32::MAX`: none).
    fn loop_iv(&self, lp: u32) -> Option<ValueId> {
        match self.k.stmts.get(StmtId::new(lp as usize)).map(|d| &d.kind) {
            Some(StmtKind::For(f)) => Some(f.iv),
            _ => None,
        }
    }

    /// Whether key `k` conflicts with access `a` in the form `a` takes in the branch `k`'s
    /// path took at the `if` with results it reads through (`Key::br`; true when `a` reads
    /// through no such `if`'s results).
    fn br_agrees(&self, k: &Key, a: u32) -> bool {
        match self.br_forms.binary_search_by_key(&a, |x| x.0) {
            Ok(i) => {
                let (_, s, forms) = self.br_forms[i];
                k.br >> 1 != s.index() as u32
                    || self.conflict(k.desc, k.carried, forms[(k.br & 1) as usize])
            }
            Err(_) => true,
        }
    }

    /// `br_agrees` for access `a` in the first iteration of loop `lp` (`Key::first`): the
    /// handle it goes through starts as a result of the `if` the key's path crossed last,
    /// so it holds that branch's yield (`Ctx::first_br_forms`).
    fn first_br_agrees(&self, k: &Key, a: u32, lp: StmtId) -> bool {
        match self.first_br_forms.binary_search_by_key(&a, |x| x.0) {
            Ok(i) => {
                let (_, l, s, forms) = self.first_br_forms[i];
                l != lp
                    || k.br >> 1 != s.index() as u32
                    || self.conflict(k.desc, k.carried, forms[(k.br & 1) as usize])
            }
            Err(_) => true,
        }
    }

    /// Whether `Key::res` follows loop `lp` by one period only.
    fn one_period(&self, lp: StmtId) -> bool {
        // `res_loops` is sorted.
        let i = self.res_loops.partition_point(|x| x.0 < lp);
        self.res_loops.get(i).is_some_and(|x| x.0 == lp)
            && self.res_loops.get(i + 1).is_none_or(|x| x.0 != lp)
    }

    /// Whether some descriptor has a form after loop `lp` (`exit_forms`).
    fn has_exit_forms(&self, lp: StmtId) -> bool {
        self.exit_loops.binary_search(&(lp.index() as u32)).is_ok()
    }

    /// Whether key `k` conflicts with access `a` in its form after the trip count `k`'s path
    /// told of the loop it left (`Key::exit`; true when `a` has no such form).
    fn exit_agrees(&self, k: &Key, a: u32) -> bool {
        if k.exit == NO_EXIT {
            return true;
        }
        let key = (self.desc(a), k.exit / 64, k.exit % 64);
        match self.exit_forms.binary_search_by_key(&key, |x| x.0) {
            Ok(i) => self.conflict(k.desc, k.carried, self.exit_forms[i].1),
            Err(_) => true,
        }
    }

    /// The handles' period of loop `lp` when `Key::res` follows it.
    fn res_period(&self, lp: StmtId) -> Option<u8> {
        self.res_loops
            .binary_search_by_key(&lp, |x| x.0)
            .ok()
            .map(|i| self.res_loops[i].1)
    }

    /// A loop of `plain_res`.
    fn plain_res_loop(&self, f: &ForData) -> bool {
        !self.plain_res.is_empty()
            && self.k.blocks[f.body]
                .parent
                .is_some_and(|l| self.plain_res[l.index()])
    }

    /// A loop whose back edge marks keys with `Key::lat`: no bound handles (`Key::later` is
    /// about those), a constant start and 2 to 8 trips (the exact loops whose accesses have
    /// iteration forms, `Accesses::bind_first_ivs`).
    fn lat_loop(&self, f: &ForData) -> bool {
        matches!(f.lo, syncopt_ir::Bound::Const(_))
            && f.trips().exact().is_some_and(|n| (2..=8).contains(&n))
            && !self.binds_loop(f)
    }

    fn binds_loop(&self, f: &ForData) -> bool {
        self.k.blocks[f.body]
            .parent
            .is_some_and(|l| self.loop_binds[l.index()])
    }

    fn point(&self, b: BlockId, i: usize) -> usize {
        self.base[b.index()] + i
    }

    fn desc(&self, a: u32) -> u32 {
        self.acc.accesses[a as usize].desc
    }
}

/// What `Ctx::prepare` finds in part of the kernel: blocks where barriers may go, warp-
/// pipelined loops, and the accesses inside each loop and if.
#[derive(Default)]
struct Prep {
    allowed: Vec<u32>,
    stage: Vec<u32>,
    summary: Vec<(u32, Vec<u32>)>,
}

/// A recorded hazard of the coverage run: (tag, producer access, consumer access).
type Hit = (u32, u32, u32);

struct Sim<'c, 'k> {
    c: &'c Ctx<'k>,
    /// Coverage mode: no placement, pending accesses are tagged with the barrier that ordered
    /// them and every conflict is recorded.
    check: bool,
    placed: Vec<bool>,
    log: Vec<usize>,
    cost: (u64, u64),
    stamp: u32,
    marks: BTreeMap<i32, u32>,
    budget: u32,
    /// Oldest stamp of a pending access that conflicted where no barrier may go.
    blocked: u32,
    /// Recorded hazards, unsorted and with repeats (sorted once at the end).
    hits: Vec<Hit>,
    steps: u64,
    max_state: usize,
    /// Spare trace buffers of `loop_fixpoint`.
    traces: Vec<Vec<(u64, u64)>>,
    /// Body of the loop whose alternatives with and without a barrier at the end of the body
    /// are being simulated, and the first body passes seen so far (they do not read that
    /// barrier, so the second alternative reuses them).
    share: Option<BlockId>,
    firsts: Vec<FirstPass>,
    /// Earlier runs of loops and ifs by entry (see `memo_run`).
    memo: MemoTable,
    memo_hits: u64,
    /// Induction variables with known values: the loops around the current point that run
    /// iteration by iteration (`Ctx::unroll`).
    fixed: Vec<(ValueId, i64)>,
    /// Coverage run (see `coverage`) that keeps an access `DOUBLE_LIVES` barriers longer,
    /// tagged with the first barrier it crossed and the count: a hazard with several barriers
    /// on its path credits the first (see `solve`).
    double: bool,
    /// Coverage run of a kernel too large for `double`: an access dropped at a placed
    /// barrier q after crossing another placed one p records a pseudo-hit `(p | DOUBLE, q,
    /// NONE)`, so that the idle barriers whose accesses next cross only the input's sync ops
    /// or barriers that order something (which stay) are known (see `firsts`).
    mark: bool,
}

fn memo_hash(s: u32, pre: &[u32], snap: &[(Key, u32, u32)]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |x: u64| h = (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    mix(s as u64);
    for &p in pre {
        mix(p as u64);
    }
    for &(k, a, r) in snap {
        mix(((k.desc as u64) << 32)
            | ((k.carried as u64) << 8)
            | ((k.res as u64) << 16)
            | ((k.asy as u64) << 2)
            | ((k.back as u64) << 1)
            | k.first as u64);
        mix(((k.tag as u64) << 32) | a as u64);
        mix((((k.br as u64) << 32) | r as u64) ^ ((k.pin as u64) << 7).rotate_left(29));
    }
    h
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A stamp of a memoized run's output: the rank of a stamp of its entry state, or an offset
/// from the first stamp the run took.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Rel {
    Entry(u32),
    Fresh(u32),
}

/// One memoized run of a loop or if (`memo_run`): what it was run from (ranges of the
/// table's vectors), and what it did.
struct MemoEnt {
    /// The previous entry with the same hash (`u32::MAX`: none).
    next: u32,
    s: u32,
    /// Points inside the statement already placed at its entry.
    pre: (u32, u32),
    snap: (u32, u32),
    out: (u32, u32),
    log: (u32, u32),
    /// What the run lowered `blocked` to.
    blocked: Option<Rel>,
    /// Stamps the run took.
    adv: u32,
}

/// The memo of `memo_run`, in flat vectors (no allocation per entry), with the lookup keys
/// of the runs in progress on stacks (`st_*`).
#[derive(Default)]
struct MemoTable {
    index: std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<IdHasher>>,
    entries: Vec<MemoEnt>,
    pre: Vec<u32>,
    snap: Vec<(Key, u32, u32)>,
    out: Vec<(Key, Rel, u32)>,
    log: Vec<usize>,
    st_stamps: Vec<u32>,
    st_snap: Vec<(Key, u32, u32)>,
    st_pre: Vec<u32>,
}

impl MemoTable {
    fn clear(&mut self) {
        self.index.clear();
        self.entries.clear();
        self.pre.clear();
        self.snap.clear();
        self.out.clear();
        self.log.clear();
    }
}

/// Memo entries kept at most (the table is emptied when full: a run is looked up soon
/// after the one it repeats, by the lookahead or by the next decision).
const MEMO_MAX: usize = 1 << 14;

/// A first pass over a loop body from `input` (with `marks`, `blocked` and `budget` at its
/// start): the state before the body-end point, the barriers it placed and the trace.
struct FirstPass {
    input: Entries,
    marks0: BTreeMap<i32, u32>,
    blocked0: u32,
    budget: u32,
    out: State,
    log: Vec<usize>,
    marks: BTreeMap<i32, u32>,
    blocked: u32,
    trace: Vec<(u64, u64)>,
}

struct Save {
    log: usize,
    cost: (u64, u64),
    marks: BTreeMap<i32, u32>,
    blocked: u32,
}

impl<'c, 'k> Sim<'c, 'k> {
    fn new(c: &'c Ctx<'k>, check: bool, placed: Vec<bool>) -> Self {
        Sim {
            c,
            check,
            placed,
            log: Vec::new(),
            cost: (0, 0),
            stamp: 1,
            marks: BTreeMap::new(),
            budget: BUDGET,
            blocked: u32::MAX,
            hits: Vec::new(),
            steps: 0,
            max_state: 0,
            traces: Vec::new(),
            share: None,
            firsts: Vec::new(),
            memo: MemoTable::default(),
            memo_hits: 0,
            fixed: Vec::new(),
            double: false,
            mark: false,
        }
    }

    /// `run(self, st)` for the loop or if `s`, or the result of an earlier run of it from an
    /// equal entry: the same keys and accesses with the same order of stamps, the same budget
    /// and the same points placed inside it. The run's behavior depends on nothing else when
    /// the kernel has no split barriers (no marks): stamps are only compared with each other,
    /// the entry's all older than the run's own, and `blocked` is only lowered (and reset
    /// around divergent ifs), so the earlier result with its stamps renamed (entry stamps by
    /// rank, the run's own shifted to the current counter) is exactly what a new run gives.
    /// Only what-if runs (budget 0) are memoized: they repeat (an alternative's lookahead
    /// runs the next statement as the next decision's first alternative will, and a
    /// decision's final run repeats its nested statements' alternatives); runs with a budget
    /// hardly ever do.
    fn memo_run(&mut self, s: StmtId, st: State, run: &dyn Fn(&mut Self, State) -> State) -> State {
        let c = self.c;
        let (lo, hi) = c.span[s.index()];
        // Under fixed induction variables a run depends on their values too.
        if self.check
            || !c.memo
            || !c.no_marks
            || lo >= hi
            || self.budget != 0
            || !self.fixed.is_empty()
        {
            return run(self, st);
        }
        let si = s.index() as u32;
        let t = &mut self.memo;
        let (s0, n0, p0) = (t.st_stamps.len(), t.st_snap.len(), t.st_pre.len());
        t.st_pre
            .extend((lo..hi).filter(|&p| self.placed[p as usize]));
        t.st_stamps.extend(st.m.v.iter().map(|e| e.1 .0));
        t.st_stamps[s0..].sort_unstable();
        let mut w = s0;
        for r in s0..t.st_stamps.len() {
            if r == s0 || t.st_stamps[r] != t.st_stamps[w - 1] {
                t.st_stamps[w] = t.st_stamps[r];
                w += 1;
            }
        }
        t.st_stamps.truncate(w);
        for &(k, (x, a)) in &st.m.v {
            let r = t.st_stamps[s0..].binary_search(&x).unwrap_or(0) as u32;
            t.st_snap.push((k, a, r));
        }
        let h = memo_hash(si, &t.st_pre[p0..], &t.st_snap[n0..]);
        let mut e = t.index.get(&h).copied().unwrap_or(u32::MAX);
        while e != u32::MAX {
            let m = &t.entries[e as usize];
            if m.s == si
                && t.pre[m.pre.0 as usize..m.pre.1 as usize] == t.st_pre[p0..]
                && t.snap[m.snap.0 as usize..m.snap.1 as usize] == t.st_snap[n0..]
            {
                break;
            }
            e = m.next;
        }
        if e != u32::MAX {
            self.memo_hits += 1;
            let stamp0 = self.stamp;
            let m = &t.entries[e as usize];
            let stamps = &t.st_stamps[s0..];
            let abs = |r: Rel| match r {
                Rel::Entry(x) => stamps[x as usize],
                Rel::Fresh(x) => stamp0 + x,
            };
            let outs = &t.out[m.out.0 as usize..m.out.1 as usize];
            let mut out = State {
                m: VecMap {
                    v: buffer(outs.len() + 8),
                },
            };
            out.m
                .v
                .extend(outs.iter().map(|&(k, r, a)| (k, (abs(r), a))));
            let blocked = m.blocked.map(abs);
            let adv = m.adv;
            let (l0, l1) = m.log;
            t.st_stamps.truncate(s0);
            t.st_snap.truncate(n0);
            t.st_pre.truncate(p0);
            for i in l0..l1 {
                let p = self.memo.log[i as usize];
                self.place(p);
            }
            if let Some(b) = blocked {
                self.blocked = self.blocked.min(b);
            }
            self.stamp += adv;
            drop(st);
            return out;
        }
        let stamp0 = self.stamp;
        let blocked_in = self.blocked;
        self.blocked = u32::MAX;
        let lg = self.log.len();
        let out = run(self, st);
        let x = self.blocked;
        self.blocked = blocked_in.min(x);
        let t = &mut self.memo;
        let stamps = &t.st_stamps[s0..];
        let rel = |v: u32| -> Option<Rel> {
            if v >= stamp0 {
                Some(Rel::Fresh(v - stamp0))
            } else {
                stamps.binary_search(&v).ok().map(|r| Rel::Entry(r as u32))
            }
        };
        let o0 = t.out.len();
        let mut ok = true;
        for &(k, (v, a)) in &out.m.v {
            match rel(v) {
                Some(r) => t.out.push((k, r, a)),
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let blocked = if x == u32::MAX { None } else { rel(x) };
        if x != u32::MAX && blocked.is_none() {
            ok = false;
        }
        if !ok {
            t.out.truncate(o0);
        } else {
            let pre = (
                t.pre.len() as u32,
                (t.pre.len() + t.st_pre.len() - p0) as u32,
            );
            t.pre.extend_from_slice(&t.st_pre[p0..]);
            let snap = (
                t.snap.len() as u32,
                (t.snap.len() + t.st_snap.len() - n0) as u32,
            );
            t.snap.extend_from_slice(&t.st_snap[n0..]);
            let log = (
                t.log.len() as u32,
                (t.log.len() + self.log.len() - lg) as u32,
            );
            t.log.extend_from_slice(&self.log[lg..]);
            let next = t
                .index
                .insert(h, t.entries.len() as u32)
                .unwrap_or(u32::MAX);
            t.entries.push(MemoEnt {
                next,
                s: si,
                pre,
                snap,
                out: (o0 as u32, t.out.len() as u32),
                log,
                blocked,
                adv: self.stamp - stamp0,
            });
        }
        t.st_stamps.truncate(s0);
        t.st_snap.truncate(n0);
        t.st_pre.truncate(p0);
        if t.entries.len() >= MEMO_MAX || t.out.len() >= 64 * MEMO_MAX {
            t.clear();
        }
        out
    }

    fn save(&self) -> Save {
        Save {
            log: self.log.len(),
            cost: self.cost,
            marks: self.marks.clone(),
            blocked: self.blocked,
        }
    }

    fn restore(&mut self, s: Save) {
        while self.log.len() > s.log {
            let p = self.log.pop().unwrap_or_default();
            self.placed[p] = false;
        }
        self.cost = s.cost;
        self.marks = s.marks;
        self.blocked = s.blocked;
    }

    fn place(&mut self, p: usize) {
        if !self.placed[p] {
            self.placed[p] = true;
            self.log.push(p);
            let w = self.c.weight[self.c.point_block[p] as usize];
            self.cost.0 = self.cost.0.saturating_add(w);
            self.cost.1 += 1;
        }
    }

    /// A full barrier: pending accesses are ordered (tagged in coverage mode).
    fn cross(&mut self, st: &mut State, tag: u32, only_before: Option<u32>) {
        if !self.check {
            match only_before {
                None => st.m.clear(),
                Some(mark) => st.m.retain(|_, v| v.0 >= mark),
            }
            return;
        }
        if self.mark && tag != INPUT {
            for e in &st.m.v {
                if e.0.tag < DOUBLE && only_before.is_none_or(|m| e.1 .0 < m) {
                    self.hits.push((e.0.tag | DOUBLE, tag, NONE));
                }
            }
        }
        if only_before.is_none() && !self.double {
            // In place: the keys left all get the same tag, so their order stays.
            st.m.v.retain(|e| e.0.tag == NONE);
            for e in &mut st.m.v {
                e.0.tag = tag;
            }
            return;
        }
        let old = st.m.take();
        for &(k, v) in &old {
            if only_before.is_some_and(|m| v.0 >= m) {
                st.insert(k, v.0, v.1);
            } else if k.tag == NONE {
                st.insert(Key { tag, ..k }, v.0, v.1);
            } else if self.double && tag == INPUT && k.tag < DOUBLE * DOUBLE_LIVES {
                // The input's sync ops stay: what one orders needs no placed barrier
                // before it, which is then no "first of two" for it (inserting into our
                // own output added a barrier right before one of the input's, and kept it).
                st.insert(Key { tag: INPUT, ..k }, v.0, v.1);
            } else if self.double && k.tag < DOUBLE * DOUBLE_LIVES {
                // One more barrier crossed after the first (`Sim::double`).
                let tag = k.tag + DOUBLE;
                st.insert(Key { tag, ..k }, v.0, v.1);
            }
        }
        recycle(old);
    }

    /// Runs the kernel body from the start of lane `me`, recording its first boundaries for
    /// the lane before it, until it meets a later lane (returned) or reaches the end.
    fn run_lane(&mut self, lanes: &[Lane], me: usize) -> Option<(usize, usize)> {
        use std::sync::atomic::Ordering;
        let body = self.c.k.body;
        let n = self.c.k.blocks[body].stmts.len();
        let start = lanes[me].start;
        let mut st = State::default();
        let mut i = start;
        let done = |lane: &Lane| lane.progress.store(usize::MAX, Ordering::Release);
        // Whatever happens to this lane, the lane before it must not wait for it forever.
        struct Guard<'a>(&'a Lane);
        impl Drop for Guard<'_> {
            fn drop(&mut self) {
                self.0
                    .progress
                    .store(usize::MAX, std::sync::atomic::Ordering::Release);
            }
        }
        let _guard = Guard(&lanes[me]);
        let met = loop {
            if i >= n {
                break None;
            }
            if me > 0 && i < start + WINDOW {
                let rec = Rec {
                    at: i,
                    snap: snapshot(&st),
                    log: self.log.len(),
                    hits: self.hits.len(),
                };
                if let Ok(mut r) = lanes[me].recs.lock() {
                    r.push(rec);
                }
                lanes[me].progress.store(i + 1, Ordering::Release);
            } else if me > 0 && i == start + WINDOW {
                done(&lanes[me]);
            }
            // The latest later lane whose window holds this boundary.
            let other = (me + 1..lanes.len())
                .rev()
                .find(|&w| lanes[w].start <= i && i < lanes[w].start + WINDOW);
            if let Some(w) = other {
                while lanes[w].progress.load(Ordering::Acquire) <= i {
                    std::thread::yield_now();
                }
                let snap = snapshot(&st);
                let same = lanes[w].recs.lock().is_ok_and(|r| {
                    r.binary_search_by_key(&i, |x| x.at)
                        .is_ok_and(|h| r[h].snap == snap)
                });
                if same {
                    break Some((i, w));
                }
            }
            let (s2, next) = self.step(body, i, st);
            st = s2;
            i = next;
        };
        done(&lanes[me]);
        met
    }

    fn run_block(&mut self, b: BlockId, st: State) -> State {
        let mut st = st;
        let n = self.c.k.blocks[b].stmts.len();
        let mut i = 0;
        while i < n {
            let (s2, next) = self.step(b, i, st);
            st = s2;
            i = next;
        }
        let p = self.c.point(b, n);
        if self.placed[p] {
            self.cross(&mut st, p as u32, None);
        }
        st
    }

    /// `run_block` for another pass over a loop body: once the state after some statement
    /// equals the one the previous pass had there, the rest of the pass would repeat it, so
    /// the previous result is returned (keeps loop fixpoints near one pass per loop).
    fn run_block_traced(
        &mut self,
        b: BlockId,
        st: State,
        prev: Option<(&[(u64, u64)], &State)>,
        trace: &mut Vec<(u64, u64)>,
    ) -> State {
        let mut st = st;
        let n = self.c.k.blocks[b].stmts.len();
        trace.clear();
        trace.resize(n, (0, 0));
        let mut i = 0;
        while i < n {
            let (s2, next) = self.step(b, i, st);
            st = s2;
            let h = st.fingerprint(self.check);
            trace[next - 1] = h;
            if let Some((pt, pout)) = prev {
                if pt[next - 1] == h && h != (0, 0) {
                    trace[next..].copy_from_slice(&pt[next..]);
                    return pout.clone();
                }
            }
            i = next;
        }
        let p = self.c.point(b, n);
        if self.placed[p] {
            self.cross(&mut st, p as u32, None);
        }
        st
    }

    /// Processes the statement at index `i` of `b`; returns the state and the next index.
    fn step(&mut self, b: BlockId, i: usize, mut st: State) -> (State, usize) {
        let c = self.c;
        self.steps += 1;
        self.max_state = self.max_state.max(st.m.len());
        let p = c.point(b, i);
        if self.placed[p] {
            self.cross(&mut st, p as u32, None);
        }
        let stmts = &c.k.blocks[b].stmts;
        let s = stmts[i];
        match &c.k.stmts[s].kind {
            StmtKind::Op(_) => {
                let ids = &c.acc.by_stmt[s.index()];
                if !ids.is_empty() {
                    st = self.accesses(b, i, ids, st);
                }
            }
            StmtKind::Sync(op) => self.sync(op, &mut st),
            StmtKind::For(_) if c.stage_loop[s.index()] => {
                st.clear_run();
                st = self.accesses(b, i, &c.summary[s.index()], st);
            }
            StmtKind::For(f) => {
                // Whatever loop this is, it may be the one whose results a key went through
                // (`Key::run`), running again.
                st.clear_run();
                st = self.decide(b, i, s, st, &|me, st| {
                    me.memo_run(s, st, &|me, st| me.run_loop(f, st))
                })
            }
            StmtKind::If(d) => {
                st = self.decide(b, i, s, st, &|me, st| {
                    me.memo_run(s, st, &|me, st| me.run_if(d, st))
                })
            }
            StmtKind::Stage(_) => {
                st.clear_run();
                // A flat warp pipeline: the stages up to `stage.end` are one op to us.
                let mut j = i;
                let mut ids = Vec::new();
                while j < stmts.len() {
                    let x = stmts[j];
                    match &c.k.stmts[x].kind {
                        StmtKind::Op(_) => ids.extend(c.acc.by_stmt[x.index()].iter().copied()),
                        StmtKind::For(_) | StmtKind::If(_) => {
                            ids.extend(c.summary[x.index()].iter().copied())
                        }
                        _ => {}
                    }
                    j += 1;
                    if matches!(c.k.stmts[x].kind, StmtKind::StageEnd) {
                        break;
                    }
                }
                st = self.accesses(b, i, &ids, st);
                return (st, j);
            }
            _ => {}
        }
        (st, i + 1)
    }

    fn sync(&mut self, op: &SyncOp, st: &mut State) {
        match op {
            // The default barrier, and a named one (`bar.sync id, n`) over the whole
            // workgroup: every thread arrives, so it orders (and fences) like `barrier`. One
            // over fewer threads orders only its participants: not coverage.
            SyncOp::Barrier {
                fence: true,
                threads,
                ..
            } if threads.is_none_or(|t| u64::from(t) == self.c.threads) => {
                self.cross(st, INPUT, None)
            }
            SyncOp::Signal { id } => {
                self.marks.insert(*id, self.stamp);
                self.stamp += 1;
            }
            SyncOp::Wait { id } => {
                if let Some(&m) = self.marks.get(id) {
                    self.cross(st, INPUT, Some(m));
                }
            }
            _ => {}
        }
    }

    /// An op (or a unit treated as one) with accesses `ids` at point (b, i).
    fn accesses(&mut self, b: BlockId, i: usize, ids: &[u32], mut st: State) -> State {
        let c = self.c;
        let trip = self.current_trip(b);
        if self.check {
            for &a in ids {
                for (k, v) in &st.m {
                    if c.conflict_key(k, b, a, trip) {
                        self.hits.push((k.tag, v.1, a));
                    }
                }
            }
        } else {
            let mut oldest = None;
            'outer: for (k, v) in &st.m {
                for &a in ids {
                    if c.conflict_key(k, b, a, trip) {
                        oldest = Some(oldest.map_or(v.0, |o: u32| o.min(v.0)));
                        if c.allowed[b.index()] {
                            break 'outer;
                        }
                        break;
                    }
                }
            }
            if let Some(o) = oldest {
                if c.allowed[b.index()] {
                    self.place(c.point(b, i));
                    st.m.clear();
                } else {
                    self.blocked = self.blocked.min(o);
                }
            }
        }
        let stamp = self.stamp;
        self.stamp += 1;
        let res = match c.k.blocks[b].stmts.get(i) {
            Some(&s) if !c.op_res.is_empty() => c.op_res[s.index()],
            _ => NO_RES,
        };
        let ores = match c.k.blocks[b].stmts.get(i) {
            Some(&s) if !c.op_ores.is_empty() => c.op_ores[s.index()],
            _ => OLD_RES,
        };
        // A copy issued again while an older issue of it is pending: async-waits' check holds
        // one entry per place, which takes the new issue's paths too, and the residue the
        // older issue's path told (not the op's own, `Ctx::op_res`) is lost there. The older
        // key loses it too (exec seed 5553: a copy of an odd trip, past the next trip's issue,
        // was taken through the even branch only; the check saw it skip that branch too).
        if res == NO_RES && ids.iter().any(|&a| c.asy[a as usize]) {
            let here = c.k.blocks[b].stmts.get(i).copied();
            let told = |k: &Key, v: &(u32, u32)| {
                k.asy && k.res < OLD_RES && Some(c.acc.accesses[v.1 as usize].stmt) == here
            };
            if st.m.v.iter().any(|(k, v)| told(k, v)) {
                let old = st.m.take();
                for &(mut k, v) in &old {
                    if told(&k, &v) {
                        k.res = OLD_RES;
                        k.prev = false;
                    }
                    st.insert(k, v.0, v.1);
                }
                recycle(old);
            }
        }
        for &a in ids {
            st.insert(
                Key {
                    desc: self.decided_form(a),
                    carried: 0,
                    res,
                    prev: false,
                    later: false,
                    tag: NONE,
                    first: false,
                    back: false,
                    asy: c.asy[a as usize],
                    br: NO_BR,
                    pin: NO_PIN,
                    up: NO_UP,
                    exit: NO_EXIT,
                    ares: NO_RES,
                    ores,
                    run: c.run_desc[c.desc(a) as usize],
                    lat: NO_LAT,
                    xb: false,
                },
                stamp,
                a,
            );
        }
        st
    }

    fn summary_conflicts(&self, s: StmtId, st: &State) -> bool {
        let sum = &self.c.summary[s.index()];
        if sum.len().saturating_mul(st.m.len()) > 4096 {
            return true;
        }
        st.m.keys().any(|k| {
            sum.iter()
                .any(|&a| self.c.conflict(k.desc, k.carried, self.c.desc(a)))
        })
    }

    /// Runs a loop or if at (b, i), choosing whether a barrier goes right before it.
    fn decide(
        &mut self,
        b: BlockId,
        i: usize,
        s: StmtId,
        st: State,
        run: &dyn Fn(&mut Self, State) -> State,
    ) -> State {
        let c = self.c;
        let p = c.point(b, i);
        if self.check {
            return run(self, st);
        }
        let here = c.allowed[b.index()];
        let divergent = matches!(&c.k.stmts[s].kind,
            StmtKind::If(d) if d.uniformity != Uniformity::Uniform);
        let mut st = st;
        // The alternatives: a barrier right before the statement (`pre`), and for a loop one
        // at the end of its body (`end`: covers the loop-carried hazards and what the loop
        // leaves pending at exit, where one at the top covers what was pending at entry).
        let end_point = match &c.k.stmts[s].kind {
            StmtKind::For(f) if here && !c.summary[s.index()].is_empty() => {
                let n = c.k.blocks[f.body].stmts.len();
                let q = c.point(f.body, n);
                (!self.placed[q]).then_some(q)
            }
            _ => None,
        };
        // Only read with a what-if budget left (the conflict test is the costly part).
        let pre_useful = self.budget > 0
            && here
            && !divergent
            && !self.placed[p]
            && !st.is_empty()
            && self.summary_conflicts(s, &st);
        if self.budget > 0 && (pre_useful || end_point.is_some()) {
            let mut options: Vec<(bool, bool)> = vec![(false, false)];
            if pre_useful {
                options.push((true, false));
            }
            if end_point.is_some() {
                options.push((false, true));
                if pre_useful {
                    options.push((true, true));
                }
            }
            self.budget -= 1;
            let base = self.cost;
            let mut states = Vec::new();
            let mut costs = Vec::new();
            // A flat statement's run does not depend on the budget: the chosen alternative's
            // run is replayed below instead of simulated again (its stamps are older than a
            // fresh run's, but no live stamp lies between them, so every comparison agrees).
            let flat = c.flat[s.index()];
            let mut runs = Vec::new();
            let share = self.share.take();
            let firsts = std::mem::take(&mut self.firsts);
            if let (Some(_), StmtKind::For(f)) = (end_point, &c.k.stmts[s].kind) {
                self.share = Some(f.body);
            }
            for &(pre, end) in &options {
                let sv = self.save();
                let mut st2 = st.clone();
                if pre {
                    self.place(p);
                    st2.m.clear();
                }
                if let (true, Some(q)) = (end, end_point) {
                    self.place(q);
                }
                let l0 = self.log.len();
                let out = run(self, st2);
                if flat {
                    runs.push((
                        out.clone(),
                        self.log[l0..].to_vec(),
                        self.marks.clone(),
                        self.blocked,
                    ));
                }
                states.push(out);
                costs.push(self.cost);
                self.restore(sv);
            }
            self.share = share;
            self.firsts = firsts;
            let n = c.k.blocks[b].stmts.len();
            let mut j = i + 1;
            let mut steps = 0;
            while j < n && steps < LOOKAHEAD && !states.iter().all(|x| x.same_keys(&states[0])) {
                let mut next = j + 1;
                // Alternatives pending the same keys have the same future (no stamp outside
                // the state is compared without split barriers in the input): step one.
                let mut rep = [0usize; 4];
                for o in 0..options.len() {
                    rep[o] = o;
                    if c.no_marks {
                        if let Some(r) =
                            (0..o).find(|&r| rep[r] == r && states[r].same_keys(&states[o]))
                        {
                            rep[o] = r;
                        }
                    }
                }
                let mut delta = [(0u64, 0u64); 4];
                for o in 0..options.len() {
                    let r = rep[o];
                    if r != o {
                        states[o] = states[r].clone();
                        costs[o].0 += delta[r].0;
                        costs[o].1 += delta[r].1;
                        continue;
                    }
                    let sv = self.save();
                    let (ns, nj) = self.step(b, j, std::mem::take(&mut states[o]));
                    delta[o] = (self.cost.0 - base.0, self.cost.1 - base.1);
                    costs[o].0 += delta[o].0;
                    costs[o].1 += delta[o].1;
                    self.restore(sv);
                    states[o] = ns;
                    next = nj;
                }
                j = next;
                steps += 1;
            }
            self.budget += 1;
            // Past the end of a nested block the future is unknown here: between equal costs,
            // leaving strictly less pending can only help what follows.
            let open_end = j >= n && b != c.k.body;
            let mut best = 0;
            for o in 1..options.len() {
                if costs[o] < costs[best]
                    || (open_end
                        && costs[o] == costs[best]
                        && states[o].strict_subset(&states[best]))
                {
                    best = o;
                }
            }
            let (pre, end) = options[best];
            if pre {
                self.place(p);
                st.m.clear();
            }
            if let (true, Some(q)) = (end, end_point) {
                self.place(q);
            }
            if flat && !divergent {
                let (out, log, marks, blocked) = runs.swap_remove(best);
                for q in log {
                    self.place(q);
                }
                self.marks = marks;
                self.blocked = blocked;
                return out;
            }
        }
        if here && divergent && !st.is_empty() && !self.placed[p] {
            let entry = self.stamp;
            let outer_blocked = self.blocked;
            self.blocked = u32::MAX;
            let sv = self.save();
            let out = run(self, st.clone());
            let need = self.blocked < entry;
            if !need {
                self.blocked = outer_blocked;
                return out;
            }
            self.restore(sv);
            self.blocked = outer_blocked;
            self.place(p);
            st.m.clear();
            let out = run(self, st);
            self.blocked = outer_blocked;
            return out;
        }
        run(self, st)
    }

    fn run_loop(&mut self, f: &ForData, entry: State) -> State {
        let entry = if self.c.binds_loop(f) {
            let s = self.c.k.blocks[f.body].parent;
            let outer = s.map_or(u32::MAX, |s| self.c.up_loop[s.index()]);
            let outer_iv = self.c.loop_iv(outer).map_or(NO_LAT, |v| v.index() as u32);
            // An async copy of the current iteration of the loop around whose path told its
            // residue (`Key::ares`, about that loop) takes that residue's form now, as it
            // does leaving that loop: inside this one the residue would be about this one
            // (exec seed 6636: a copy into the handle that holds `%A` in the even trips met
            // the same trip's copy into `%B` in an inner loop there).
            let mut entry = entry;
            if outer != u32::MAX {
                self.c.take_ares(&mut entry, outer);
            }
            entry.enter_loop(outer, outer_iv)
        } else if self.c.plain_res_loop(f) {
            // The state at the entry flows into the first iteration: residue 0 (async copies
            // too: async-waits' check knows a path that entered the loop and crossed none of
            // its back edges is there, `Reach::crossed`).
            let mut e = entry;
            e.enter_res();
            e
        } else {
            entry
        };
        // Only the coverage run goes iteration by iteration: placing barriers as the hazards
        // of each iteration come (nearest first) misses the one barrier that serves several
        // iterations; the coverage run then finds what the fixpoint's placement left idle.
        if let (true, Some(lp)) = (self.check, self.c.k.blocks[f.body].parent) {
            let trips = self.c.unroll[lp.index()];
            if trips > 0 {
                return self.run_unrolled(f, entry, u64::from(trips));
            }
        }
        let t = f.trips();
        let repeat = t.max.is_none_or(|m| m >= 2);
        let sv = self.save();
        let (exit, inp) = self.loop_fixpoint(f, entry.clone(), entry.clone());
        if self.check || !repeat || inp.same_keys(&entry) || self.log.len() < sv.log + 2 {
            return exit;
        }
        // The first passes placed barriers for the entry state before the loop-carried state
        // was known; a barrier placed later for the carried hazards may make them redundant.
        // Solve again knowing the carried state from the start, and keep the cheaper result.
        let first: Vec<usize> = self.log[sv.log..].to_vec();
        let first_cost = self.cost;
        let marks = self.marks.clone();
        let blocked = self.blocked;
        self.restore(sv);
        let sv = self.save();
        let (exit2, _) = self.loop_fixpoint(f, entry, inp);
        if self.cost < first_cost {
            return exit2;
        }
        self.restore(sv);
        for p in first {
            self.place(p);
        }
        self.marks = marks;
        self.blocked = blocked;
        exit
    }

    /// What `State::join_carried` takes for loop `f`'s back edge: the two-trip binding, whether
    /// the loop binds handles, the residue period.
    fn back_edge(&self, f: &ForData) -> BackEdge<'c> {
        let c = self.c;
        let bound = c.binds_loop(f);
        let lp = c.k.blocks[f.body].parent;
        let first = match lp {
            Some(lp) if f.trips().max == Some(2) && bound => Some((lp, &c.async_desc[..])),
            _ => None,
        };
        (
            first,
            bound,
            c.lat_loop(f),
            lp.is_some_and(|lp| c.outer_loops.get(lp.index()) == Some(&true)),
            lp.and_then(|lp| c.res_period(lp)),
        )
    }

    /// The state leaving loop `f` after its last iteration's `out`.
    fn leave(&self, f: &ForData, out: State) -> State {
        let c = self.c;
        let mut exit = out;
        // A loop without bound handles leaves the marks of the loop around it as they are
        // (it neither set nor needs them; that loop is still in its first iteration).
        if c.binds_loop(f) {
            // The path told the last trip's residue: the trip count's (async producers too:
            // async-waits' check takes the results in their form after that count, plain gen
            // seed 1160 at 100 ops on sm_90).
            if let Some((lp, q)) = c.k.blocks[f.body]
                .parent
                .and_then(|lp| Some((lp, c.res_period(lp)?)))
                .filter(|&(lp, q)| q != FIRST_LATER && c.has_exit_forms(lp))
            {
                exit.rekey_some(|k| {
                    (k.carried == 0 && k.res < q && !k.first && !k.back && !k.prev)
                        .then(|| lp.index() as u32 * 64 + u32::from((k.res + 1) % q))
                        .filter(|&x| x != k.exit)
                        .map(|exit| Key { exit, ..*k })
                });
            }
            // An async copy of the last iteration whose path told its residue: that residue's
            // form (`Key::ares`).
            let lpi = c.k.blocks[f.body]
                .parent
                .map_or(u32::MAX, |l| l.index() as u32);
            c.take_ares(&mut exit, lpi);
            // Before `leave_loop` binds them to the handles' exit values.
            if let (syncopt_ir::Bound::Const(_), Some(n)) = (f.lo, f.trips().exact()) {
                exit.leave_outer_last(&c.acc, f.iv);
                exit.leave_earlier(&c.acc, f.iv, n);
            }
            // An async producer into one known region takes its last-iteration form as
            // async-waits does (`Carried::Exit`); one through a handle or `if` result stays
            // unbound (async-waits loses the binding once the copy crosses a back edge of a
            // loop around this one too).
            exit.leave_loop(
                c.k,
                &c.acc,
                &c.async_loose,
                c.k.blocks[f.body].parent.map(|l| (l, f.iv)),
            );
        } else if c.plain_res_loop(f) {
            exit.leave_res();
        }
        // Inside a branch of one residue of the loop `Key::res` follows around it (a loop of
        // `plain_res`, or one with handles): the path is in that residue (executable seeds
        // 317, and 72 at 60 ops). Not for async producers.
        if let Some(&r) = c.k.blocks[f.body]
            .parent
            .and_then(|s| c.op_res.get(s.index()))
        {
            if r < OLD_RES {
                exit.rekey(
                    |k| k.asy || (k.res == r && !k.prev),
                    |k| {
                        if k.asy {
                            k
                        } else {
                            Key {
                                res: r,
                                prev: false,
                                ..k
                            }
                        }
                    },
                );
            }
        }
        if let Some(lp) = c.k.blocks[f.body].parent {
            if let (syncopt_ir::Bound::Const(_), Some(n)) = (f.lo, f.trips().exact()) {
                // A loop with bound handles took them before `leave_loop`.
                if !c.binds_loop(f) {
                    exit.leave_outer_last(&c.acc, f.iv);
                }
                exit.leave_last(&c.acc, f.iv, n);
                exit.leave_earlier(&c.acc, f.iv, n);
            }
            exit.leave_only(&c.acc, lp, f.iv);
        }
        // Out of the loop whose later trips `Key::lat` was about.
        let lat = f.iv.index() as u32;
        if exit.m.keys().any(|k| k.lat == lat) {
            exit.rekey_some(|k| (k.lat == lat).then_some(Key { lat: NO_LAT, ..*k }));
        }
        exit.carry(&c.acc, f.iv, true);
        exit
    }

    /// A loop of `trips` iterations with a constant start, run iteration by iteration with
    /// its induction variable known in each: the `if`s on it take one branch (the verifier
    /// runs such loops the same way). What crosses each back edge is carried as in
    /// `loop_fixpoint`.
    fn run_unrolled(&mut self, f: &ForData, entry: State, trips: u64) -> State {
        let syncopt_ir::Bound::Const(lo) = f.lo else {
            unreachable!("unrolled loops start at a constant");
        };
        let (first, bound, lat, outer, period) = self.back_edge(f);
        let mut inp = entry;
        let mut out = State::default();
        let mut trace = self.traces.pop().unwrap_or_default();
        for it in 0..trips {
            self.fixed.push((f.iv, lo + f.step * it as i64));
            out = self.run_block_traced(f.body, std::mem::take(&mut inp), None, &mut trace);
            self.fixed.pop();
            if it + 1 < trips {
                let lp = self.c.k.blocks[f.body].parent;
                let only = lp.and_then(|lp| out.only_crossing(&self.c.acc, lp, f.iv));
                let crossing = only.as_ref().unwrap_or(&out);
                let told = lp
                    .zip(period)
                    .and_then(|(lp, q)| self.c.ares_across(crossing, lp, q));
                let crossing = told.as_ref().unwrap_or(crossing);
                let c = self.c;
                let needs = |k: &Key| c.meets_later(lp, k);
                let edge = (first, bound, lat, outer);
                inp.join_carried(crossing, &c.acc, f.iv, edge, period, &needs);
            }
        }
        self.traces.push(trace);
        self.leave(f, out)
    }

    /// The fixpoint of a loop from `entry`, starting with `start` as the body's input;
    /// returns the exit state and the final body input.
    fn loop_fixpoint(&mut self, f: &ForData, entry: State, start: State) -> (State, State) {
        let acc = &self.c.acc;
        let t = f.trips();
        let repeat = t.max.is_none_or(|m| m >= 2);
        let mut inp = start;
        let mut rounds = 0;
        let mut prev: Option<(Vec<(u64, u64)>, State)> = None;
        let mut trace = self.traces.pop().unwrap_or_default();
        let out = loop {
            let out = if prev.is_none() && self.share == Some(f.body) {
                self.first_pass(f.body, &inp, &mut trace)
            } else {
                self.run_block_traced(
                    f.body,
                    inp.clone(),
                    prev.as_ref().map(|(t, o)| (t.as_slice(), o)),
                    &mut trace,
                )
            };
            if !repeat {
                break out;
            }
            let mut next = entry.clone();
            let (first, bound, lat, outer, period) = self.back_edge(f);
            let lp = self.c.k.blocks[f.body].parent;
            let only = lp.and_then(|lp| out.only_crossing(acc, lp, f.iv));
            let c = self.c;
            let crossing = only.as_ref().unwrap_or(&out);
            let told = lp
                .zip(period)
                .and_then(|(lp, q)| c.ares_across(crossing, lp, q));
            let needs = |k: &Key| c.meets_later(lp, k);
            next.join_carried(
                told.as_ref().unwrap_or(crossing),
                acc,
                f.iv,
                (first, bound, lat, outer),
                period,
                &needs,
            );
            if rounds >= 3 || self.check {
                // From here on the input only grows, so the fixpoint is reached.
                next.join(&inp);
            }
            if next.same_keys(&inp) || rounds > 64 {
                break out;
            }
            inp = next;
            rounds += 1;
            // The trace of this pass becomes the previous one; the old buffer is reused.
            let old = match prev.take() {
                Some((t, _)) => t,
                None => self.traces.pop().unwrap_or_default(),
            };
            prev = Some((std::mem::replace(&mut trace, old), out));
        };
        self.traces.push(trace);
        if let Some((t, _)) = prev {
            self.traces.push(t);
        }
        let out = match self.c.k.blocks[f.body].parent {
            Some(lp) if self.check => match self.c.last_iv[lp.index()] {
                // The last iteration once more, from the fixpoint's input (which holds its
                // input), with its `if`s on the variable decided.
                Some(v) => {
                    self.fixed.push((f.iv, v));
                    let last = self.run_block(f.body, inp.clone());
                    self.fixed.pop();
                    last
                }
                None => out,
            },
            _ => out,
        };
        let mut exit = self.leave(f, out);
        if t.min == 0 {
            let mut e = entry;
            if self.c.binds_loop(f) {
                // The entry state, not an iteration's: nothing to bind.
                e.leave_loop(self.c.k, acc, &self.c.async_loose, None);
            } else if self.c.plain_res_loop(f) {
                e.leave_res();
            }
            // Accesses after the loop through its results meet what skipped it with the
            // results as the initial values (`Key::br`, side 0), and what ran through it
            // with their forms of any trip (side 1; a tag of an earlier run is stale).
            let c = self.c;
            if let Some(lp) = c.k.blocks[f.body].parent.filter(|&s| c.br_if_at(s)) {
                let br = lp.index() as u32 * 2;
                let skips = |k: &Key| k.br == NO_BR || k.br >> 1 == br >> 1;
                e.rekey(
                    |k| !skips(k) || k.br == br,
                    |k| if skips(&k) { Key { br, ..k } } else { k },
                );
                exit.rekey(
                    |k| k.br != br,
                    |k| {
                        if k.br == br {
                            Key { br: br + 1, ..k }
                        } else {
                            k
                        }
                    },
                );
            }
            exit.join(&e);
        }
        (exit, inp)
    }

    /// `run_block_traced(body, inp, None, trace)`, reusing an earlier pass from the same
    /// input, marks, blocked stamp and budget (the new stamps of the earlier pass are older
    /// than a fresh pass's, but no live stamp lies between the two, so every comparison
    /// agrees).
    fn first_pass(&mut self, body: BlockId, inp: &State, trace: &mut Vec<(u64, u64)>) -> State {
        let n = self.c.k.blocks[body].stmts.len();
        let q = self.c.point(body, n);
        let hit = self.firsts.iter().position(|e| {
            e.budget == self.budget
                && e.blocked0 == self.blocked
                && e.input == inp.m.v
                && e.marks0 == self.marks
        });
        if let Some(h) = hit {
            let e = &self.firsts[h];
            let mut out = e.out.clone();
            let log = e.log.clone();
            trace.clear();
            trace.extend_from_slice(&e.trace);
            self.marks = e.marks.clone();
            self.blocked = e.blocked;
            for x in log {
                self.place(x);
            }
            if self.placed[q] {
                self.cross(&mut out, q as u32, None);
            }
            return out;
        }
        let marks0 = self.marks.clone();
        let blocked0 = self.blocked;
        let l0 = self.log.len();
        let out = self.run_block_traced(body, inp.clone(), None, trace);
        if !self.placed[q] {
            self.firsts.push(FirstPass {
                input: inp.m.v.clone(),
                marks0,
                blocked0,
                budget: self.budget,
                out: out.clone(),
                log: self.log[l0..].to_vec(),
                marks: self.marks.clone(),
                blocked: self.blocked,
                trace: trace.clone(),
            });
        }
        out
    }

    /// Pending accesses made in the current iteration of loop `lp` (`Key::res` is `NO_RES`:
    /// not carried, not older than its entry), entering a branch that runs only in
    /// iterations of residue `r`: the handles they went through held that residue's values
    /// (`Accesses::residue_forms`), and what they meet later in this iteration runs in it
    /// too (seed 129). Async producers stay as they are (their consumers in the branch bind
    /// them, `Ctx::async_in_residue`). Accesses whose path put the iteration in another
    /// residue do not enter the branch, nor, when `inner` (`lp` is the innermost loop with
    /// bound forms around the branch, which `Key::first` is about), those pending since
    /// before the loop's entry when `r` is not the first iteration's residue (executable
    /// seed 143).
    fn enter_branch(&self, st: &mut State, lp: u32, r: u8, inner: bool) {
        let c = self.c;
        let fits = |k: &Key| k.res == NO_RES && k.carried == 0 && !k.first && !k.back && !k.asy;
        // An async copy of this iteration: the residue it ran in (`Key::ares`).
        let asy_fits = |k: &Key| {
            inner
                && c.whole_barriers
                && k.asy
                && k.res == NO_RES
                && k.ares == NO_RES
                && k.carried == 0
                && !k.first
                && !k.back
                && c.one_period(StmtId::new(lp as usize))
        };
        // A key whose path put the iteration in another residue never takes this branch;
        // nor does one pending since before the loop's entry (`Key::first`, `lp` the
        // innermost loop with bound forms), in its first iteration, residue 0.
        let other = |k: &Key| (k.res < OLD_RES && k.res != r) || (inner && k.first && r != 0);
        // Made one iteration before this one: in the residue before `r`.
        let before = match c.res_period(StmtId::new(lp as usize)) {
            Some(q) if q != FIRST_LATER && r < q => Some((r + q - 1) % q),
            _ => None,
        };
        let iv = c.loop_iv(lp);
        // One iteration back in an exact loop, in its own iteration forms: they tell that
        // iteration from the others (the residue's form holds the loop's other iterations of
        // that residue too; exec seed 2057 at 100 ops: a write of trip 1 met trip 2's read as
        // if in trip 0, in an inner loop where the residue is no longer followed).
        let by_trip =
            |k: &Key| k.carried == 1 && iv.is_some_and(|v| c.acc.has_iteration_forms(k.desc, v));
        // Async copies too, also through a loop's handles (exec seed 13483: a copy of the
        // odd trip into the handle that holds `%B` there met the even trip's read of `%A`;
        // async-waits' check binds the copy's next trip alike, `Carried::One`).
        let prev = |k: &Key| {
            before.is_some() && k.prev && k.carried <= 1 && !k.first && !k.back && !by_trip(k)
        };
        if r == NO_RES
            || !st
                .m
                .keys()
                .any(|k| fits(k) || other(k) || prev(k) || asy_fits(k))
        {
            return;
        }
        let old = st.m.take();
        for &(mut k, (s, a)) in &old {
            if other(&k) {
                continue;
            }
            if fits(&k) {
                if let Some(f) = c.res_form(k.desc, lp, r) {
                    k.desc = f;
                }
                k.res = r;
            } else if asy_fits(&k) {
                k.ares = r;
            } else if let (true, Some(p)) = (prev(&k), before) {
                if let Some(f) = c.res_form(k.desc, lp, p) {
                    // A form that fixed the loop's variable is in no iteration of it any more.
                    if k.carried == 1
                        && iv.is_some_and(|v| {
                            c.acc.dist_iv(k.desc) == Some(v)
                                && c.acc.descs[f as usize].ivs.binary_search(&v).is_err()
                        })
                    {
                        k.carried = 0;
                    }
                    k.desc = f;
                }
                k.res = r;
                k.prev = false;
            }
            st.insert(k, s, a);
        }
        recycle(old);
    }

    /// Entering a branch that runs only in iterations of residue `r` of loop `lp`, which
    /// encloses the innermost loop with handles around it: the pending accesses made in the
    /// current iteration of that inner loop (as `enter_branch` takes them) are in the current
    /// iteration of `lp` too, so their handles of `lp` (and of the loops inside it started
    /// from them) held that residue's values (seed 85). `Key::res` is about the inner loop
    /// and stays as it is.
    fn enter_outer_branch(&self, st: &mut State, lp: u32, r: u8) {
        let c = self.c;
        let fits = |k: &Key| k.res == NO_RES && k.carried == 0 && !k.first && !k.back && !k.asy;
        if r == NO_RES || !st.m.keys().any(fits) {
            return;
        }
        let old = st.m.take();
        for &(mut k, (s, a)) in &old {
            if fits(&k) {
                if let Some(d) = c.outer_form(k.desc, lp, r) {
                    k.desc = d;
                }
            }
            st.insert(k, s, a);
        }
        recycle(old);
    }

    /// The trip `(it, n)` of the exact loop of `n` trips whose later trips `Key::later` is
    /// about at block `b` (`Ctx::later_iv`), where this run goes through it trip by trip with
    /// its variable fixed (`Sim::fixed`: the coverage run's `run_unrolled`, or its last trip
    /// once more).
    fn current_trip(&self, b: BlockId) -> Option<(u8, u8)> {
        if self.fixed.is_empty() {
            return None;
        }
        let c = self.c;
        let lp = c.inner_loop[b.index()];
        let StmtKind::For(f) = &c.k.stmts.get(StmtId::new(lp as usize))?.kind else {
            return None;
        };
        let v = self.fixed.iter().rev().find(|x| x.0 == f.iv)?.1;
        let (syncopt_ir::Bound::Const(lo), Some(n)) = (f.lo, f.trips().exact()) else {
            return None;
        };
        let d = v.checked_sub(lo)?;
        if f.step <= 0 || d % f.step != 0 {
            return None;
        }
        let it = u8::try_from(d / f.step).ok()?;
        let n = u8::try_from(n).ok()?;
        (it < n).then_some((it, n))
    }

    /// The descriptor an access is made with: through the results of a uniform `if` whose
    /// condition the fixed induction variables decide (the loop around both run iteration by
    /// iteration, `Ctx::unroll`), that branch's form where it names one fixed place (plain gen
    /// seed 2313 on gfx1250: a write through `if (%i + 1) mod 2 == 0 { yield %A2 } else {
    /// yield %A0 }` in the first of two trips met an atomic on `%A2` in the second).
    fn decided_form(&self, a: u32) -> u32 {
        let c = self.c;
        let d = c.desc(a);
        if self.fixed.is_empty() || c.asy[a as usize] {
            return d;
        }
        let Ok(i) = c.br_forms.binary_search_by_key(&a, |x| x.0) else {
            return d;
        };
        let (_, s, forms) = c.br_forms[i];
        let StmtKind::If(data) = &c.k.stmts[s].kind else {
            return d;
        };
        self.decided(data)
            .map(|then| forms[usize::from(!then)])
            .filter(|&f| c.acc.one_place(f))
            .unwrap_or(d)
    }

    /// The branch a uniform `if` takes when its condition depends only on induction
    /// variables with known values (`Sim::fixed`).
    fn decided(&self, d: &IfData) -> Option<bool> {
        if d.uniformity != Uniformity::Uniform
            || self.fixed.is_empty()
            || d.cond.expr.terms.is_empty()
        {
            return None;
        }
        let value = |v: &syncopt_ir::Var| match v {
            syncopt_ir::Var::Value(x) => self.fixed.iter().rev().find(|f| f.0 == *x).map(|f| f.1),
            _ => None,
        };
        if d.cond.expr.terms.iter().any(|(v, _)| value(v).is_none()) {
            return None;
        }
        Some(d.cond.eval(|v| value(&v).unwrap_or(0)))
    }

    fn run_if(&mut self, d: &IfData, entry: State) -> State {
        let c = self.c;
        let s = c.k.blocks[d.then_block].parent;
        // The residues of the branches, on the innermost loop with handles (`if_res`) and
        // on a loop around it (`outer_res`).
        let find = |t: &[(u32, u32, u8, u8)]| {
            let s = s?.index() as u32;
            t.binary_search_by_key(&s, |x| x.0).ok().map(|i| t[i])
        };
        let (res, outer) = (find(&c.if_res), find(&c.outer_res));
        let branch = |me: &Self, mut st: State, then: bool| {
            if let Some((_, lp, rt, re)) = res {
                let inner = c.inner_loop[d.then_block.index()] == lp;
                me.enter_branch(&mut st, lp, if then { rt } else { re }, inner);
            }
            if let Some((_, lp, rt, re)) = outer {
                me.enter_outer_branch(&mut st, lp, if then { rt } else { re });
            }
            st
        };
        let (mut then_dead, mut else_dead) = s.map_or((false, false), |s| c.dead[s.index()]);
        if let Some(v) = self.decided(d) {
            (then_dead, else_dead) = (!v, v);
        }
        // The branch taken, for the keys' `Key::br` after an `if` with results.
        let tagged = s
            .filter(|s| c.br_if.get(s.index()).copied().unwrap_or(false))
            .map(|s| s.index() as u32 * 2);
        if then_dead {
            let entry = branch(self, entry, false);
            let mut out = match d.else_block {
                Some(e) => self.run_block(e, entry),
                None => entry,
            };
            if let Some(br) = tagged {
                out.tag_branch(br + 1);
            }
            return out;
        }
        if else_dead {
            let entry = branch(self, entry, true);
            let mut out = self.run_block(d.then_block, entry);
            if let Some(br) = tagged {
                out.tag_branch(br);
            }
            return out;
        }
        let then_in = branch(self, entry.clone(), true);
        let mut out = self.run_block(d.then_block, then_in);
        let else_in = branch(self, entry, false);
        let mut o2 = match d.else_block {
            Some(e) => self.run_block(e, else_in),
            None => else_in,
        };
        if let Some(br) = tagged {
            out.tag_branch(br);
            o2.tag_branch(br + 1);
        }
        // async-waits joins what both branches leave in flight at one place into one entry,
        // whose residue (`Reach::res`) is then lost: a copy's residue survives only a branch
        // beside which nothing is in flight (gen seed 139's kernel on gfx1250, where a copy
        // after a split barrier's signal stays in flight in one branch).
        // (Keys a barrier crossed keep its tag in the coverage runs: not in flight.)
        let asy = |st: &State| st.m.keys().any(|k| k.asy && k.tag == NONE);
        if asy(&out) && asy(&o2) {
            out.clear_ares();
            o2.clear_ares();
        }
        out.join(&o2);
        out
    }
}

/// `Ctx::dmask` of one descriptor: its roots (modulo 64) and whether it writes.
fn desc_mask(d: &syncopt_analysis::hazard::Desc) -> (u64, bool) {
    let m = d
        .regions
        .iter()
        .fold(0u64, |m, r| m | 1u64 << (r.root % 64));
    (m, d.mode != Mode::Read)
}

/// Whether loop `lp` encloses statement `x` (an index), by the blocks' parents.
fn encloses(k: &Kernel, block_of: &[u32], lp: StmtId, x: u32) -> bool {
    let mut x = x;
    while x != u32::MAX {
        if x == lp.index() as u32 {
            return true;
        }
        let xb = block_of[x as usize];
        if xb == u32::MAX {
            return false;
        }
        x = k.blocks[BlockId::new(xb as usize)]
            .parent
            .map_or(u32::MAX, |p| p.index() as u32);
    }
    false
}

/// The loops `Key::res` follows for their `if`s (`Ctx::plain_res`, and loops with bound
/// handles whose handles give no period): a constant start, with bound handles or inside no
/// loop with them, not followed for their handles already (`res_loops`), with uniform `if`s
/// on their variable alone modulo constants whose lcm is at most 64: (loop, that lcm),
/// sorted. Without such `if`s, a loop of 2 to 8 known trips (which the verifier runs
/// iteration by iteration) with an `if` on its variable that holds in its first iteration
/// only, or in every other one, counts first and later iterations (`FIRST_LATER`).
fn plain_residue_loops(
    k: &Kernel,
    binds: &[bool],
    inner_loop: &[u32],
    block_of: &[u32],
    res_loops: &[(StmtId, u8)],
) -> Vec<(StmtId, u8)> {
    if block_of.is_empty() {
        return Vec::new();
    }
    // Per loop, the lcm of the moduli of the `if`s on its variable (0: one above 64), and
    // whether one tells the first iteration from the others.
    let mut period: BTreeMap<StmtId, (u64, bool)> = BTreeMap::new();
    for (_, d) in k.stmts.iter() {
        let StmtKind::If(i) = &d.kind else {
            continue;
        };
        let (Uniformity::Uniform, [(syncopt_ir::Var::Value(v), _)]) =
            (i.uniformity, i.cond.expr.terms.as_slice())
        else {
            continue;
        };
        let syncopt_ir::ValueKind::Iv(lp) = k.values[*v].kind else {
            continue;
        };
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            continue;
        };
        let e = period.entry(lp).or_insert((1, false));
        match i.cond.modulo {
            Some(m) => {
                e.0 = match u64::try_from(m) {
                    Ok(m) if m > 0 && m <= 64 && e.0 > 0 => lcm(e.0, m).min(65),
                    _ => 0,
                };
            }
            None => e.1 |= first_or_later(&i.cond, true, f).is_some(),
        }
    }
    let mut out = Vec::new();
    for (lp, (q, first)) in period {
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            continue;
        };
        // A loop with bound handles is the innermost one `Key::res` follows inside it; one
        // without must not hide the loop with handles around it (where that loop has a
        // residue `Key::res` follows: one that binds only its variable has none, and its
        // entry forgets the residues around anyway; executable seed 135).
        let b = block_of[lp.index()];
        let around = if b == u32::MAX {
            u32::MAX
        } else {
            inner_loop[b as usize]
        };
        let hides = around != u32::MAX
            && res_loops
                .binary_search_by_key(&StmtId::new(around as usize), |x| x.0)
                .is_ok();
        if !matches!(f.lo, syncopt_ir::Bound::Const(_))
            || b == u32::MAX
            || (!binds[lp.index()] && hides)
            || res_loops.binary_search_by_key(&lp, |x| x.0).is_ok()
        {
            continue;
        }
        if (2..=64).contains(&q) {
            out.push((lp, q as u8));
        } else if first {
            out.push((lp, FIRST_LATER));
        }
    }
    out
}

/// For a loop of 2 to 8 known trips with a constant start: 0 when `c` is `v` in its first
/// iteration only, 1 when in every other one only (`FIRST_LATER`).
fn first_or_later(c: &syncopt_ir::Cond, v: bool, f: &ForData) -> Option<u8> {
    let (syncopt_ir::Bound::Const(lo), Some(n)) = (f.lo, f.trips().exact()) else {
        return None;
    };
    if !(2..=VERIFY_UNROLL).contains(&n) {
        return None;
    }
    let holds = |it: u64| {
        lo.checked_add(f.step.checked_mul(it as i64)?)
            .map(|x| c.eval(|_| x) == v)
    };
    let first = holds(0)?;
    let mut later = true;
    let mut none_later = true;
    for it in 1..n {
        let h = holds(it)?;
        later &= h;
        none_later &= !h;
    }
    match (first, later, none_later) {
        (true, _, true) => Some(0),
        (false, true, _) => Some(1),
        _ => None,
    }
}

/// The `Key::res` of the iterations of loop `f` (constant start, `res_loops` period `q`) in
/// which `c`, a condition on its variable alone, is `v`, when they have one.
fn branch_class(c: &syncopt_ir::Cond, v: bool, f: &ForData, q: u8) -> Option<u8> {
    if q == FIRST_LATER {
        return first_or_later(c, v, f);
    }
    let syncopt_ir::Bound::Const(lo) = f.lo else {
        return None;
    };
    let unrolled = syncopt_analysis::hazard::unrolled_trips(f);
    syncopt_analysis::hazard::residue_where(c, v, (lo, f.step, unrolled), u64::from(q))
        .and_then(|x| u8::try_from(x).ok())
        .filter(|&x| x < OLD_RES)
}

/// `Ctx::res_forms` of the accesses through a result of a uniform `if` on the variable of a
/// plain loop `Key::res` follows (`plain`, the innermost one around the access, `res_loop`)
/// whose branches each run in one residue: in the iterations of a branch's residue the result
/// is that branch's yield (`Ctx::br_forms`; plain gen seed 3082 at 100 ops: a write through
/// such a result in the odd iterations met the even iterations' read of the other buffer).
/// Only descriptors of such accesses alone (`Desc::via`), none of them an async copy's
/// (async-waits binds copies by handles alone).
fn if_residue_forms(
    k: &Kernel,
    acc: &Accesses,
    br_forms: &[(u32, StmtId, [u32; 2])],
    plain: &[(StmtId, u8)],
    res_loop: &[u32],
    block_of: &[u32],
) -> Vec<((u32, u32, u32), u32)> {
    let mut out: Vec<((u32, u32, u32), u32)> = Vec::new();
    let mut bad: BTreeSet<u32> = BTreeSet::new();
    for &(a, s, forms) in br_forms {
        let access = &acc.accesses[a as usize];
        let d = access.desc;
        if acc.descs[d as usize].via.is_none() {
            continue;
        }
        let asy =
            matches!(&k.stmts[access.stmt].kind, StmtKind::Op(op) if op.asynchronous.is_some());
        let b = block_of
            .get(access.stmt.index())
            .copied()
            .unwrap_or(u32::MAX);
        let StmtKind::If(i) = &k.stmts[s].kind else {
            continue;
        };
        let classes = match i.cond.expr.terms.as_slice() {
            [(syncopt_ir::Var::Value(v), _)] => match k.values[*v].kind {
                syncopt_ir::ValueKind::Iv(lp) => plain
                    .iter()
                    .find(|x| x.0 == lp && x.1 != FIRST_LATER)
                    .filter(|_| b != u32::MAX && res_loop[b as usize] == lp.index() as u32)
                    .and_then(|&(lp, q)| match &k.stmts[lp].kind {
                        StmtKind::For(f) => Some((
                            lp,
                            branch_class(&i.cond, true, f, q)?,
                            branch_class(&i.cond, false, f, q)?,
                        )),
                        _ => None,
                    }),
                _ => None,
            },
            _ => None,
        };
        match classes {
            Some((lp, rt, re)) if rt != re && !asy && i.uniformity == Uniformity::Uniform => {
                let l = lp.index() as u32;
                out.push(((d, l, u32::from(rt)), forms[0]));
                out.push(((d, l, u32::from(re)), forms[1]));
            }
            _ => {
                bad.insert(d);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    // One form per (descriptor, loop, residue): two would mean two `if`s behind one value.
    let mut i = 0;
    while i < out.len() {
        let j = out[i..].partition_point(|x| x.0 == out[i].0) + i;
        if j - i > 1 {
            bad.insert(out[i].0 .0);
        }
        i = j;
    }
    out.retain(|x| !bad.contains(&x.0 .0));
    out
}

/// The residue (`Key::res`) each op of plain loop `lp` (`plain_residue_loops`, period `q`)
/// runs in, where a uniform `if` on its variable tells it and `lp` is the innermost loop
/// `Key::res` follows around the op (`res_loop`). Async copies too: async-waits' dataflow
/// drops the barrier-free paths from a copy of a known residue that reach a branch of another
/// (`Analysis::enter_residue`), and its check binds such copies to their residue's form
/// (executable seeds 105, 143; before it did, seeds 29, 111, 151 and 183 at 5,000 ops of
/// `generated_kernels_after_shared_barriers_have_no_warning` with `SYNCOPT_LONG=1` warned).
/// The ops whose innermost loop `Key::res` follows lies right inside `lp` take the residue
/// in `op_ores` (`Key::ores`; async copies too, their keys drop it).
fn plain_residue_ops(
    k: &Kernel,
    lp: StmtId,
    q: u8,
    res_loop: &[u32],
    (op_res, op_ores): (&mut [u8], &mut Vec<u8>),
    loops_only: bool,
) {
    let StmtKind::For(f) = &k.stmts[lp].kind else {
        return;
    };
    // (block, residue, how many loops `Key::res` follows lie between `lp` and the block:
    // 0, 1, or 2 for more)
    let mut stack = vec![(f.body, NO_RES, 0u8)];
    while let Some((b, r, depth)) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::Op(_) => {
                    if r != NO_RES && !loops_only && depth == 0 {
                        op_res[s.index()] = r;
                    }
                    // In a loop `Key::res` follows right inside `lp` (`Key::ores`): made in
                    // the current iteration of `lp` even where no branch tells its residue
                    // (`NO_RES`, which a branch of `lp`'s entered later sets; exec seed 4137
                    // at 100 ops: an inner loop's read of the even slot met the write to the
                    // odd slot in the even branch after it, as if made in any iteration).
                    if depth == 1 {
                        if op_ores.is_empty() {
                            *op_ores = vec![OLD_RES; k.stmts.len()];
                        }
                        op_ores[s.index()] = r;
                    }
                }
                StmtKind::If(i) => {
                    let on_iv = i.uniformity == Uniformity::Uniform
                        && matches!(i.cond.expr.terms.as_slice(),
                            [(syncopt_ir::Var::Value(v), _)] if *v == f.iv);
                    let side = |v: bool| {
                        if !on_iv {
                            return Some(r);
                        }
                        let here = branch_class(&i.cond, v, f, q);
                        match (here, r) {
                            (Some(x), NO_RES) => Some(x),
                            // A branch no iteration of the residue takes runs never.
                            (Some(x), r) if x != r => None,
                            (_, r) => Some(r),
                        }
                    };
                    if let Some(r) = side(true) {
                        stack.push((i.then_block, r, depth));
                    }
                    if let (Some(e), Some(r)) = (i.else_block, side(false)) {
                        stack.push((e, r, depth));
                    }
                }
                kind => {
                    // A loop in a branch of one residue: what leaves it is in that residue.
                    if let (StmtKind::For(_), true) = (kind, r != NO_RES) {
                        if depth == 0 {
                            op_res[s.index()] = r;
                        }
                    }
                    for c in kind.child_block_ids() {
                        let followed = res_loop[c.index()] == s.index() as u32;
                        stack.push((c, r, depth + u8::from(followed && depth < 2)));
                    }
                }
            }
        }
    }
}

/// `Ctx::if_res`: each uniform `if` on the induction variable alone of a loop `Key::res`
/// follows (`res_loops`, the innermost such loop around the `if`, constant start), with the
/// residue (iteration number modulo the handles' period) each branch runs in, when it runs
/// in one only. `outer`: `Ctx::outer_res`, the `if`s whose innermost loop with handles is not
/// the condition's loop but lies inside it.
fn branch_residues(
    k: &Kernel,
    inner_loop: &[u32],
    block_of: &[u32],
    res_loops: &[(StmtId, u8)],
    outer: bool,
) -> Vec<(u32, u32, u8, u8)> {
    let mut out = Vec::new();
    for (s, d) in k.stmts.iter() {
        let StmtKind::If(i) = &d.kind else {
            continue;
        };
        let (syncopt_ir::Uniformity::Uniform, [(syncopt_ir::Var::Value(iv), _)]) =
            (i.uniformity, i.cond.expr.terms.as_slice())
        else {
            continue;
        };
        let syncopt_ir::ValueKind::Iv(lp) = k.values[*iv].kind else {
            continue;
        };
        let b = block_of[s.index()];
        if b == u32::MAX {
            continue;
        }
        let inner = inner_loop[b as usize];
        let fits = if outer {
            inner != u32::MAX && inner != lp.index() as u32 && encloses(k, block_of, lp, inner)
        } else {
            inner == lp.index() as u32
        };
        if !fits {
            continue;
        }
        let Ok(q) = res_loops
            .binary_search_by_key(&lp, |x| x.0)
            .map(|j| res_loops[j].1)
        else {
            continue;
        };
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            continue;
        };
        let only = |v: bool| branch_class(&i.cond, v, f, q).unwrap_or(NO_RES);
        let (rt, re) = (only(true), only(false));
        if rt != NO_RES || re != NO_RES {
            out.push((s.index() as u32, lp.index() as u32, rt, re));
        }
    }
    out
}

/// The innermost loop around each block among those marked in `binds` (`u32::MAX`: none).
fn inner_loops(k: &Kernel, binds: &[bool]) -> Vec<u32> {
    inner_loops_and_ups(k, binds, None)
}

/// `inner_loops`, and per loop of `binds` the innermost such loop around it in `ups`
/// (`Ctx::up_loop`, per statement).
fn inner_loops_and_ups(k: &Kernel, binds: &[bool], mut ups: Option<&mut Vec<u32>>) -> Vec<u32> {
    let mut out = vec![u32::MAX; k.blocks.len()];
    if let Some(u) = ups.as_deref_mut() {
        *u = vec![u32::MAX; k.stmts.len()];
    }
    let mut stack = vec![(k.body, u32::MAX)];
    while let Some((b, lp)) = stack.pop() {
        out[b.index()] = lp;
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::For(f) if binds[s.index()] => {
                    if let Some(u) = ups.as_deref_mut() {
                        u[s.index()] = lp;
                    }
                    stack.push((f.body, s.index() as u32))
                }
                kind => {
                    for c in kind.child_block_ids() {
                        stack.push((c, lp));
                    }
                }
            }
        }
    }
    out
}

/// Loops the simulation runs iteration by iteration.
const UNROLL_MAX: u64 = 8;
/// Loops with an `if` on their induction variable that the verifier runs iteration by
/// iteration (longer ones join the iterations' states: the last one's branches are not known
/// there, and an output relying on them would not verify).
const VERIFY_UNROLL: u64 = 8;

/// Per loop: its trip count when it has a constant start and a known trip count of at most
/// `UNROLL_MAX`, and a uniform `if` on its induction variable alone somewhere in its body
/// (which a fixpoint runs both ways in every iteration: `if %i mod 2 == 0` in a two-trip loop
/// runs its then-branch in the first iteration only); else 0. And per longer such loop, the
/// induction variable's value in the last iteration: the state leaving the loop is the one
/// that iteration leaves, whose `if`s on the variable are decided (`if %i < 2 { .. }` in 8
/// trips leaves nothing of its branch pending past the loop when the body starts with a
/// barrier), up to `VERIFY_UNROLL` trips.
fn unroll_trips(k: &Kernel) -> (Vec<u8>, Vec<Option<i64>>) {
    let mut out = vec![0u8; k.stmts.len()];
    let mut last = vec![None; k.stmts.len()];
    for (s, d) in k.stmts.iter() {
        let StmtKind::For(f) = &d.kind else {
            continue;
        };
        let t = f.trips();
        let (syncopt_ir::Bound::Const(lo), Some(n)) = (f.lo, t.max) else {
            continue;
        };
        if t.min != n || n == 0 {
            continue;
        }
        let mut stack = vec![f.body];
        let mut found = false;
        while let Some(b) = stack.pop() {
            for &x in &k.blocks[b].stmts {
                match &k.stmts[x].kind {
                    StmtKind::For(g) => stack.push(g.body),
                    StmtKind::If(i) => {
                        found |= i.uniformity == Uniformity::Uniform
                            && !i.cond.expr.terms.is_empty()
                            && i.cond
                                .expr
                                .terms
                                .iter()
                                .all(|(v, _)| *v == syncopt_ir::Var::Value(f.iv));
                        stack.push(i.then_block);
                        stack.extend(i.else_block);
                    }
                    _ => {}
                }
            }
        }
        if !found {
            continue;
        }
        if n <= UNROLL_MAX {
            out[s.index()] = n as u8;
        } else if n <= VERIFY_UNROLL {
            last[s.index()] = f
                .step
                .checked_mul(n as i64 - 1)
                .and_then(|d| lo.checked_add(d));
        }
    }
    (out, last)
}

/// Where the barriers go, and what the final placement covers.
struct Solution {
    placed: Vec<bool>,
    /// Sorted, without repeats.
    hits: Vec<Hit>,
}

fn solve(c: &Ctx) -> Solution {
    let t0 = std::time::Instant::now();
    let n = c.point_block.len();
    let runs = run_lanes(c, (false, false, false), &vec![false; n]);
    let mut placed = vec![false; n];
    for p in runs.log {
        placed[p] = true;
    }
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!(
            "steps {} memo hits {} max_state {} stmts {} lanes {} (used {}) place {:?}",
            runs.steps,
            runs.memo_hits,
            runs.max_state,
            c.k.stmts.len(),
            runs.lanes,
            runs.used,
            t0.elapsed()
        );
    }
    // Large kernels: the coverage run also credits the first of two barriers on a hazard's
    // path (`Sim::double`), for the idle barriers below.
    // Larger ones: it records the first of two placed barriers an access crosses (`Sim::mark`):
    // an idle barrier that is no such first only ever hands its accesses to the input's sync
    // ops (inserting into our own output again placed such barriers, and kept them).
    let on = !NO_DOUBLE.with(|d| d.get());
    let large = (PAR_MIN..DOUBLE_MAX).contains(&c.k.stmts.len()) && on;
    let huge = c.k.stmts.len() >= DOUBLE_MAX && on;
    let mut hits = coverage(c, &placed, (large, huge));
    let large = large || huge;
    let first = if large {
        firsts(&mut hits, &placed, false)
    } else {
        Vec::new()
    };
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("coverage done {:?} hits {}", t0.elapsed(), hits.len());
    }
    // A placed barrier that is the first one after no pending access it conflicts with
    // orders nothing the others do not: the what-if runs can place one (their lookahead is
    // cut short, or a kernel's own split barriers leave accesses between signal and wait;
    // inserting into such output again added one). Dropped, the hazards no barrier orders
    // must stay the same: two such barriers in a row may each be all that orders some pair,
    // so all are tried at once, then (small kernels) one at a time. Each try is a coverage
    // run, so large kernels try the ones no "first of two" at once (`drop_idle`).
    let idle = |placed: &[bool], hits: &[Hit]| -> Vec<usize> {
        let mut used = vec![false; n];
        for &(tag, _, _) in hits {
            if let Some(u) = used.get_mut(tag as usize) {
                *u = true;
            }
        }
        (0..n).filter(|&p| placed[p] && !used[p]).collect()
    };
    let open = |h: &[Hit]| -> Vec<(u32, u32)> {
        h.iter()
            .filter(|x| x.0 == NONE)
            .map(|x| (x.1, x.2))
            .collect()
    };
    let small = c.k.stmts.len() < PAR_MIN;
    let spare = idle(&placed, &hits);
    if !spare.is_empty() && (small || spare.len() <= 16) {
        let (mut placed, mut hits) = (placed, hits);
        let was = open(&hits);
        let mut fewer = placed.clone();
        for &p in &spare {
            fewer[p] = false;
        }
        let all = coverage(c, &fewer, (false, false));
        if open(&all) == was {
            placed = fewer;
            hits = all;
        } else if small {
            let mut tried: Vec<usize> = Vec::new();
            while tried.len() < 32 {
                let Some(p) = idle(&placed, &hits)
                    .into_iter()
                    .find(|p| !tried.contains(p))
                else {
                    break;
                };
                tried.push(p);
                let mut fewer = placed.clone();
                fewer[p] = false;
                let h = coverage(c, &fewer, (false, false));
                if open(&h) == was {
                    placed = fewer;
                    hits = h;
                }
            }
        }
        if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
            eprintln!(
                "idle barriers: {}, {} left ({:?})",
                spare.len(),
                idle(&placed, &hits).len(),
                t0.elapsed()
            );
        }
        return Solution { placed, hits };
    }
    if !spare.is_empty() && large {
        if let Some(mut sol) = drop_idle(c, (&placed, None), &hits, &first, &spare, t0) {
            // Two placed barriers in a row that are both idle: the second went, the first
            // was its "first of two". Where few are left, more rounds (two more coverage
            // runs each) find it no longer is (inserting into our own output again).
            for _ in 0..MORE_ROUNDS {
                let left = idle(&sol.placed, &sol.hits);
                if left.is_empty() || left.len() > SECOND_ROUND_MAX {
                    break;
                }
                let mut h = coverage(c, &sol.placed, (!huge, huge));
                let first = firsts(&mut h, &sol.placed, true);
                match drop_idle(c, (&sol.placed, Some(&sol.hits)), &h, &first, &left, t0) {
                    // The same barriers again: `again.hits` is the confirming run of the
                    // same placement, so every further round would repeat this one.
                    Some(again) if again.placed == sol.placed => {
                        sol = again;
                        break;
                    }
                    Some(again) => sol = again,
                    None => break,
                }
            }
            return sol;
        }
    }
    Solution { placed, hits }
}

/// The first-of-two marks of a coverage run that records them, taken out of its hits: with
/// `Sim::double`, a barrier crossed first on a hazard's path; with `Sim::mark`, a barrier
/// whose accesses next crossed an idle placed barrier (one that orders nothing itself may
/// be all that stands between them and a later consumer).
fn firsts(hits: &mut Vec<Hit>, placed: &[bool], retry: bool) -> Vec<bool> {
    let mut first = vec![false; placed.len()];
    let mut pairs = Vec::new();
    for &(tag, q, y) in hits.iter() {
        if (DOUBLE..INPUT).contains(&tag) {
            let p = (tag & POINT_MASK) as usize;
            if y == NONE {
                pairs.push((p, q as usize));
            } else if let Some(f) = first.get_mut(p) {
                *f = true;
            }
        }
    }
    hits.retain(|h| !(DOUBLE..INPUT).contains(&h.0));
    if !pairs.is_empty() {
        let mut used = vec![false; placed.len()];
        for &(tag, _, _) in hits.iter() {
            if let Some(u) = used.get_mut(tag as usize) {
                *u = true;
            }
        }
        // With `retry`, a barrier handing its accesses to itself (the next iteration's
        // crossing) is tried: the confirming run decides (worth it where few are left).
        for (p, q) in pairs {
            if !(retry && p == q) && placed.get(q).is_some_and(|&x| x) && !used[q] {
                if let Some(f) = first.get_mut(p) {
                    *f = true;
                }
            }
        }
    }
    first
}

/// Idle barriers left after a round in `solve` that get another, up to `MORE_ROUNDS`.
const SECOND_ROUND_MAX: usize = 64;
const MORE_ROUNDS: usize = 3;

/// Large kernels' idle barriers (`spare`, of `placed` with coverage `hits`): too many to try
/// one by one, those that are not the first of two barriers on some hazard's path go at once
/// when the hazards left unordered stay the same. Three idle barriers in a row can each be
/// no "first of two" and still be all that orders a pair (the run forgets an access at the
/// third): where dropping them leaves a pair unordered, the dropped barrier nearest before
/// its consumer comes back, a few rounds; each round is one more coverage run. `None`: all
/// stay. `confirmed`: the plain coverage run's hits of `placed`, where the caller has them,
/// so that a round that brings every dropped barrier back needs no run to confirm it.
fn drop_idle(
    c: &Ctx,
    (placed, confirmed): (&[bool], Option<&[Hit]>),
    hits: &[Hit],
    first: &[bool],
    spare: &[usize],
    t0: std::time::Instant,
) -> Option<Solution> {
    let n = placed.len();
    let open = |h: &[Hit]| -> Vec<(u32, u32)> {
        h.iter()
            .filter(|x| x.0 == NONE)
            .map(|x| (x.1, x.2))
            .collect()
    };
    let was = open(hits);
    let mut fewer = placed.to_vec();
    for &p in spare.iter().filter(|&&p| !first[p]) {
        fewer[p] = false;
    }
    if fewer == placed {
        return None;
    }
    let mut order: Option<(Vec<usize>, Vec<usize>)> = None;
    let mut restored = 0;
    for round in 0..=RESTORE_ROUNDS {
        let h = coverage(c, &fewer, (false, false));
        let now = open(&h);
        if now == was {
            if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
                eprintln!(
                    "idle barriers: {}, {} firsts of two, dropped all but {restored} after \
                     {round} rounds ({:?})",
                    spare.len(),
                    spare.iter().filter(|&&p| first[p]).count(),
                    t0.elapsed()
                );
            }
            return Some(Solution {
                placed: fewer,
                hits: h,
            });
        }
        if round == RESTORE_ROUNDS {
            break;
        }
        let (stmt_ord, point_ord) = order.get_or_insert_with(|| program_order(c));
        let dropped: Vec<usize> = (0..n).filter(|&p| placed[p] && !fewer[p]).collect();
        let mut back = false;
        for &(_, y) in now.iter().filter(|x| !was.contains(x)) {
            let at = 2 * stmt_ord[c.acc.accesses[y as usize].stmt.index()];
            if let Some(&p) = dropped
                .iter()
                .filter(|&&p| point_ord[p] < at)
                .max_by_key(|&&p| point_ord[p])
            {
                back |= !fewer[p];
                restored += usize::from(!fewer[p]);
                fewer[p] = true;
            }
        }
        if !back {
            break;
        }
        if let Some(h) = confirmed.filter(|_| fewer == placed) {
            return Some(Solution {
                placed: fewer,
                hits: h.to_vec(),
            });
        }
    }
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!(
            "idle barriers: {}, {} firsts of two, none dropped ({:?})",
            spare.len(),
            spare.iter().filter(|&&p| first[p]).count(),
            t0.elapsed()
        );
    }
    None
}

/// Rounds of bringing back dropped idle barriers (see `place`) before all of them stay.
const RESTORE_ROUNDS: usize = 3;

/// Statements numbered in program order, and each program point as twice the number of the
/// statement it stands before (a block's end: one more than twice its last statement's,
/// nested ones included).
fn program_order(c: &Ctx) -> (Vec<usize>, Vec<usize>) {
    let k = c.k;
    let mut stmt_ord = vec![0; k.stmts.len()];
    let mut i = 0;
    k.walk(&mut |s, _| {
        stmt_ord[s.index()] = i;
        i += 1;
    });
    let mut point_ord = vec![0; c.point_block.len()];
    for (b, d) in k.blocks.iter() {
        let base = c.point(b, 0);
        let mut last = None;
        for (j, &s) in d.stmts.iter().enumerate() {
            point_ord[base + j] = 2 * stmt_ord[s.index()];
            last = Some(s);
        }
        // The block's last statement's own nested statements come after it in the walk.
        let mut end = last.map_or(0, |s| stmt_ord[s.index()]);
        if let Some(s) = last {
            let mut stack: Vec<syncopt_ir::BlockId> = k.stmts[s].kind.child_block_ids().collect();
            while let Some(cb) = stack.pop() {
                for &t in &k.blocks[cb].stmts {
                    end = end.max(stmt_ord[t.index()]);
                    stack.extend(k.stmts[t].kind.child_block_ids());
                }
            }
        }
        point_ord[base + d.stmts.len()] = 2 * end + 1;
    }
    (stmt_ord, point_ord)
}

/// Kernels from this size on do not keep accesses past a second barrier in the final coverage
/// run (it would cost a tenth of the whole insert): they note the barrier crossed next
/// instead (`Sim::mark`).
const DOUBLE_MAX: usize = 120_000;

/// The hazards of the placement, sorted and without repeats.
fn coverage(c: &Ctx, placed: &[bool], (double, mark): (bool, bool)) -> Vec<Hit> {
    let mut hits = run_lanes(c, (true, double, mark), placed).hits;
    hits.sort_unstable();
    hits.dedup();
    hits
}

/// Kernels with at least this many statements are simulated in several lanes at once.
const PAR_MIN: usize = 20_000;
/// Top-level boundaries a lane records (and the lane before it may meet it at).
const WINDOW: usize = 4096;

/// A main-line state at a top-level boundary, with its stamps replaced by their ranks: two
/// equal snapshots behave the same from there on (no stamp outside the state is live at the
/// top level when the kernel has no split barriers of its own).
type Snap = Vec<(Key, u32, u32)>;

fn snapshot(st: &State) -> Snap {
    let mut stamps: Vec<u32> = st.m.v.iter().map(|e| e.1 .0).collect();
    stamps.sort_unstable();
    stamps.dedup();
    st.m.v
        .iter()
        .map(|&(k, (s, a))| (k, a, stamps.binary_search(&s).unwrap_or(0) as u32))
        .collect()
}

/// A top-level boundary a lane passed: its snapshot and how much it had placed and recorded.
struct Rec {
    at: usize,
    snap: Snap,
    log: usize,
    hits: usize,
}

/// One lane: the simulation of the kernel body from top-level statement `start`.
struct Lane {
    start: usize,
    recs: std::sync::Mutex<Vec<Rec>>,
    /// Boundaries before this one are recorded (`usize::MAX`: no more will be).
    progress: std::sync::atomic::AtomicUsize,
}

/// What one lane did: its committed placements and hazards, and where it met a later lane
/// (top-level boundary, lane).
struct LaneOut {
    log: Vec<usize>,
    hits: Vec<Hit>,
    met: Option<(usize, usize)>,
    steps: u64,
    memo_hits: u64,
    max_state: usize,
}

/// The merged result of the lanes.
struct Runs {
    log: Vec<usize>,
    hits: Vec<Hit>,
    steps: u64,
    memo_hits: u64,
    max_state: usize,
    lanes: usize,
    /// Lanes whose result was taken from where they met an earlier lane.
    used: usize,
}

/// How many lanes for the kernel body: the simulation from a later top-level statement
/// starts with nothing pending, and once the lane before it reaches a boundary in exactly the
/// state the later lane had there, the rest of the later lane's run is the earlier lane's
/// own future. Kernels with split barriers of their own (their marks are stamps outside the
/// state) or flat warp pipelines at the top level stay in one lane.
fn lane_count(c: &Ctx) -> usize {
    let k = c.k;
    let n = lane_threads(k);
    if n == 1 {
        return 1;
    }
    let splits = k.stmts.iter().any(|(_, d)| {
        matches!(
            d.kind,
            StmtKind::Sync(SyncOp::Signal { .. } | SyncOp::Wait { .. })
                | StmtKind::Stage(_)
                | StmtKind::StageEnd
        )
    });
    if splits || !c.allowed[k.body.index()] {
        return 1;
    }
    n
}

/// Threads for a kernel: `SYNCOPT_BAR_THREADS` when set, else the available cores (at most 8)
/// for kernels of `PAR_MIN` statements or more.
fn lane_threads(k: &Kernel) -> usize {
    let want = std::env::var("SYNCOPT_BAR_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let n = match want {
        Some(n) => n,
        None if k.stmts.len() < PAR_MIN => 1,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    n.clamp(1, 8)
}

fn run_lanes(c: &Ctx, (check, double, mark): (bool, bool, bool), placed: &[bool]) -> Runs {
    let k = c.k;
    let top = &k.blocks[k.body].stmts;
    let lanes_n = lane_count(c).min(top.len().max(1));
    let budget = budget_for(k.stmts.len());
    // The whole body in one lane: small kernels, and the fallback when a lane fails.
    let one_lane = || {
        let mut sim = Sim::new(c, check, placed.to_vec());
        sim.double = check && double;
        sim.mark = check && mark;
        sim.budget = budget;
        sim.run_block(k.body, State::default());
        Runs {
            log: sim.log,
            hits: sim.hits,
            steps: sim.steps,
            memo_hits: sim.memo_hits,
            max_state: sim.max_state,
            lanes: 1,
            used: 1,
        }
    };
    if lanes_n <= 1 {
        return one_lane();
    }
    // Lane starts split the statements (nested ones included) evenly.
    let mut size = vec![0usize; top.len()];
    for (i, &s) in top.iter().enumerate() {
        let mut n = 1;
        let mut stack: Vec<BlockId> = k.stmts[s].kind.child_block_ids().collect();
        while let Some(b) = stack.pop() {
            for &x in &k.blocks[b].stmts {
                n += 1;
                stack.extend(k.stmts[x].kind.child_block_ids());
            }
        }
        size[i] = n;
    }
    let total: usize = size.iter().sum();
    let mut starts = vec![0usize];
    let mut acc = 0;
    for (i, &n) in size.iter().enumerate() {
        if acc * lanes_n >= total * starts.len() && i > *starts.last().unwrap_or(&0) {
            starts.push(i);
            if starts.len() == lanes_n {
                break;
            }
        }
        acc += n;
    }
    let lanes: Vec<Lane> = starts
        .iter()
        .map(|&start| Lane {
            start,
            recs: std::sync::Mutex::new(Vec::new()),
            progress: std::sync::atomic::AtomicUsize::new(start),
        })
        .collect();
    let outs: Vec<LaneOut> = std::thread::scope(|scope| {
        let all = &lanes;
        let handles: Vec<_> = (0..lanes.len())
            .map(|me| {
                let h = std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        let mut sim = Sim::new(c, check, placed.to_vec());
                        sim.double = check && double;
                        sim.mark = check && mark;
                        sim.budget = budget;
                        let met = sim.run_lane(all, me);
                        LaneOut {
                            log: sim.log,
                            hits: sim.hits,
                            met,
                            steps: sim.steps,
                            memo_hits: sim.memo_hits,
                            max_state: sim.max_state,
                        }
                    })
                    .ok();
                if h.is_none() {
                    // The lane before must not wait for this one.
                    all[me]
                        .progress
                        .store(usize::MAX, std::sync::atomic::Ordering::Release);
                }
                h
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.and_then(|h| h.join().ok()).unwrap_or(LaneOut {
                    log: Vec::new(),
                    hits: Vec::new(),
                    met: Some((usize::MAX, usize::MAX)),
                    steps: 0,
                    memo_hits: 0,
                    max_state: 0,
                })
            })
            .collect()
    });
    if outs.iter().any(|o| o.met == Some((usize::MAX, usize::MAX))) {
        // A lane failed or never started (no thread to be had): one lane.
        return one_lane();
    }
    // Follow the chain of meetings from the first lane.
    let mut log = Vec::new();
    let mut hits = Vec::new();
    let (mut cur, mut from_log, mut from_hits) = (0usize, 0usize, 0usize);
    let mut used = 1;
    loop {
        let o = &outs[cur];
        log.extend_from_slice(&o.log[from_log.min(o.log.len())..]);
        hits.extend_from_slice(&o.hits[from_hits.min(o.hits.len())..]);
        let Some((at, w)) = o.met else { break };
        let recs = lanes[w]
            .recs
            .lock()
            .map(|r| r.iter().find(|x| x.at == at).map(|x| (x.log, x.hits)));
        match recs {
            Ok(Some((l, h))) => {
                used += 1;
                cur = w;
                from_log = l;
                from_hits = h;
            }
            _ => break,
        }
    }
    Runs {
        log,
        hits,
        steps: outs.iter().map(|o| o.steps).sum(),
        memo_hits: outs.iter().map(|o| o.memo_hits).sum(),
        max_state: outs.iter().map(|o| o.max_state).max().unwrap_or(0),
        lanes: lanes.len(),
        used,
    }
}

/// Adds the hazard between accesses `a` and `b` to an explain list once (compared before the
/// kind is copied into a String).
fn add_covered(c: &Ctx, list: &mut Vec<Covered>, a: u32, b: u32) {
    let pa = &c.acc.accesses[a as usize];
    let pb = &c.acc.accesses[b as usize];
    let kind = kind_of(pa.mode, pb.mode);
    if !list
        .iter()
        .any(|x| x.kind == kind && x.from == pa.loc && x.to == pb.loc)
    {
        list.push(Covered {
            kind: kind.to_string(),
            from: pa.loc,
            to: pb.loc,
        });
    }
}

fn kind_of(p: Mode, q: Mode) -> &'static str {
    match (p, q) {
        (Mode::Read, _) => "WAR",
        (_, Mode::Read) => "RAW",
        (Mode::Write, Mode::Write) => "WAW",
        (Mode::Atomic, _) | (_, Mode::Atomic) => "RAW",
    }
}

/// Runs the pass on `kernel` for `target`.
pub fn run(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_keeping(kernel, target, opts, false).0
}

/// `run`; with `keep`, also the kernel's workgroup accesses as `Accesses::collect_parallel`
/// gives them (the pass binds its own copy further). Inserting barriers changes no access,
/// so they are the output kernel's too: async-waits' warning check takes them instead of
/// collecting them again (a million statements: about a second of one core).
pub fn run_keeping(
    kernel: &mut Kernel,
    target: Target,
    opts: &InsertOptions,
    keep: bool,
) -> (PassReport, Option<Accesses>) {
    if !opts.named_barriers || !matches!(target, Target::Gfx1250 | Target::Sm90) {
        return run_once_ids(kernel, target, opts, None, keep);
    }
    // Named ids move signals across other barriers' phases; the result is checked by our own
    // path model against the single-id result, and the single-id one is kept if the named
    // one leaves any hazard unordered that it orders.
    let mut single = kernel.clone();
    let single_opts = InsertOptions {
        named_barriers: target == Target::Sm90,
        ..opts.clone()
    };
    let (rep_single, _) = if target == Target::Sm90 {
        run_once_ids(&mut single, target, &single_opts, Some(vec![1]), false)
    } else {
        run_once_ids(&mut single, target, &single_opts, None, false)
    };
    let mut named = kernel.clone();
    // Both runs see the same accesses: the named one keeps them.
    let (rep_named, kept) = run_once_ids(&mut named, target, opts, None, keep);
    let left_single = testing::unordered(&single, target);
    let left_named = testing::unordered(&named, target);
    if left_named.is_subset(&left_single) {
        *kernel = named;
        (rep_named, kept)
    } else {
        *kernel = single;
        (rep_single, kept)
    }
}

fn run_once_ids(
    kernel: &mut Kernel,
    target: Target,
    opts: &InsertOptions,
    force_ids: Option<Vec<i32>>,
    keep: bool,
) -> (PassReport, Option<Accesses>) {
    let mut report = PassReport::default();
    let info = target.info();
    if !target.is_gpu() || info.barrier == BarrierStyle::None {
        return (report, None);
    }
    let t0 = std::time::Instant::now();
    let mut c = Ctx::new_keeping(kernel, target, keep);
    let kept = c.kept.take();
    c.whole_barriers =
        info.barrier != BarrierStyle::Split && !(target == Target::Sm90 && opts.named_barriers);
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("ctx {:?}", t0.elapsed());
    }
    let sol = solve(&c);

    // The program point an id denotes (ids run in program order within each block).
    let point_pp = |p: usize| -> ProgramPoint {
        let b = c.point_block[p] as usize;
        ProgramPoint {
            block: BlockId::new(b),
            index: p - c.base[b],
        }
    };
    let split =
        info.barrier == BarrierStyle::Split || (target == Target::Sm90 && opts.named_barriers);

    // Per tag (inserted barrier point), in tag order: what it covers (monolithic: split
    // placement recomputes it from the final producers) and its hazards (split only).
    let mut covers_v: Vec<(u32, Vec<Covered>)> = Vec::new();
    let mut producers_v: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
    let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(sol.hits.len());
    let mut uncovered: Vec<(u32, u32)> = Vec::new();
    // The hits come sorted by tag: each tag's lists are built in one go.
    let mut last_tag = None;
    for &(tag, a, b) in &sol.hits {
        pairs.push((a, b));
        if tag == NONE {
            uncovered.push((a, b));
            continue;
        }
        if tag == INPUT {
            continue;
        }
        if last_tag != Some(tag) {
            last_tag = Some(tag);
            if split {
                producers_v.push((tag, Vec::new()));
            } else {
                covers_v.push((tag, Vec::new()));
            }
        }
        if split {
            if let Some((_, prods)) = producers_v.last_mut() {
                prods.push((a, b));
            }
            continue;
        }
        let Some((_, list)) = covers_v.last_mut() else {
            continue;
        };
        add_covered(&c, list, a, b);
    }
    uncovered.sort_unstable();
    uncovered.dedup();
    pairs.sort_unstable();
    pairs.dedup();
    report.hazards = pairs.len();
    // One warning per consumer (with its first unordered producer), at most MAX_WARNINGS.
    const MAX_WARNINGS: usize = 20;
    let mut by_consumer: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    for &(a, b) in &uncovered {
        by_consumer.entry(b).or_insert((a, 0)).1 += 1;
    }
    for (&b, &(a, n)) in by_consumer.iter().take(MAX_WARNINGS) {
        let pa = &c.acc.accesses[a as usize];
        let pb = &c.acc.accesses[b as usize];
        let more = if n > 1 {
            format!(" (and {} more)", n - 1)
        } else {
            String::new()
        };
        report.diagnostics.push(
            Diagnostic::warning(
                pb.loc,
                format!(
                    "{} hazard that no workgroup barrier can order (divergent control flow){more}",
                    kind_of(pa.mode, pb.mode)
                ),
            )
            .with_note(pa.loc, "the other access"),
        );
    }
    if by_consumer.len() > MAX_WARNINGS {
        report.diagnostics.push(Diagnostic::warning(
            None,
            format!(
                "{} more accesses with hazards no workgroup barrier can order",
                by_consumer.len() - MAX_WARNINGS
            ),
        ));
    }

    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("hazards {:?}", t0.elapsed());
    }
    let chosen: Vec<usize> = (0..sol.placed.len()).filter(|&p| sol.placed[p]).collect();
    // (point, order at the point, op, tag)
    let mut items: Vec<(ProgramPoint, u8, SyncOp, u32)> = Vec::new();
    if !split {
        for &p in &chosen {
            items.push((
                point_pp(p),
                1,
                SyncOp::Barrier {
                    id: 0,
                    fence: true,
                    threads: None,
                },
                p as u32,
            ));
        }
    } else {
        let producers: BTreeMap<u32, Vec<(u32, u32)>> = producers_v.into_iter().collect();
        let ids: Vec<i32> = match (opts.named_barriers, info.named_barriers) {
            _ if force_ids.is_some() => force_ids.clone().unwrap_or_default(),
            (true, Some((lo, hi))) if target == Target::Sm90 => (lo as i32..=hi as i32).collect(),
            (true, Some((lo, hi))) => std::iter::once(-1).chain(lo as i32..=hi as i32).collect(),
            _ => vec![-1],
        };
        let (pairs, final_producers) = split_signals(&c, &sol.placed, &chosen, producers, &ids);
        for (tag, list) in &final_producers {
            let mut cov: Vec<Covered> = Vec::new();
            for &(a, b) in list {
                add_covered(&c, &mut cov, a, b);
            }
            // In tag order (the map's): `covers_v` stays sorted for the lookups below.
            covers_v.push((*tag, cov));
        }
        for (p, sig, id) in pairs {
            let (wp, sp) = (point_pp(p), point_pp(sig));
            let own = sig == p;
            items.push((sp, if own { 0 } else { 2 }, SyncOp::Signal { id }, p as u32));
            items.push((wp, 1, SyncOp::Wait { id }, p as u32));
        }
    }
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("items {:?}", t0.elapsed());
    }
    items.sort_by_key(|x| (x.0, x.1));
    let tags: Vec<u32> = items.iter().map(|x| x.3).collect();
    discard(c, sol);
    let created = kernel.insert_syncs(items.into_iter().map(|x| (x.0, x.2)).collect());
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("inserted {:?}", t0.elapsed());
    }
    // Uses left of each tag: the last one takes the list instead of copying it. Tags in
    // sorted vectors (the monolithic lists come sorted by tag already).
    let mut uses: Vec<(u32, usize)> = tags.iter().map(|&t| (t, 0)).collect();
    uses.sort_unstable();
    uses.dedup();
    for &tag in &tags {
        if let Ok(i) = uses.binary_search_by_key(&tag, |x| x.0) {
            uses[i].1 += 1;
        }
    }
    report.explain.reserve(created.len());
    for (s, tag) in created.into_iter().zip(tags) {
        let left = uses.binary_search_by_key(&tag, |x| x.0).ok().map(|i| {
            uses[i].1 -= 1;
            uses[i].1
        });
        let found = covers_v.binary_search_by_key(&tag, |x| x.0).ok();
        let covers = match (found, left) {
            (Some(i), Some(0)) => std::mem::take(&mut covers_v[i].1),
            (Some(i), _) => covers_v[i].1.clone(),
            (None, _) => Vec::new(),
        };
        report.explain.push(Explain { stmt: s, covers });
    }
    if std::env::var("SYNCOPT_BAR_DEBUG").is_ok() {
        eprintln!("explained {:?}", t0.elapsed());
    }
    (report, kept)
}

/// Frees the analysis tables: on another thread for large kernels when there is a second
/// core (a million statements' tables take a tenth of a second to free).
fn discard(c: Ctx, sol: Solution) {
    let big = c.k.stmts.len() >= PAR_MIN && lane_threads(c.k) > 1;
    let Ctx {
        acc,
        base,
        point_block,
        weight,
        allowed,
        stage_loop,
        summary,
        dead,
        dmask,
        flat,
        ..
    } = c;
    let tables = (
        acc,
        base,
        point_block,
        weight,
        allowed,
        stage_loop,
        summary,
        dead,
        dmask,
        flat,
        sol,
    );
    if big {
        // If no thread can be started, the tables are freed here.
        let _ = std::thread::Builder::new().spawn(move || drop(tables));
    }
}

/// For each wait point: (wait point, signal point, barrier id); and the hazards (producer,
/// consumer) each wait point covers.
#[allow(clippy::type_complexity)]
fn split_signals(
    c: &Ctx,
    placed: &[bool],
    chosen: &[usize],
    mut producers: BTreeMap<u32, Vec<(u32, u32)>>,
    ids: &[i32],
) -> (Vec<(usize, usize, i32)>, BTreeMap<u32, Vec<(u32, u32)>>) {
    let k = c.k;
    // Where each statement sits, to lift a producer to the statement of a block holding it.
    let mut pos: Vec<Option<(BlockId, usize)>> = vec![None; k.stmts.len()];
    for (b, d) in k.blocks.iter() {
        for (i, &s) in d.stmts.iter().enumerate() {
            pos[s.index()] = Some((b, i));
        }
    }
    // The index in `b` of the statement of `b` that holds `s`, if any.
    let lift = |mut s: StmtId, b: BlockId| -> Option<usize> {
        loop {
            let (bb, j) = pos[s.index()]?;
            if bb == b {
                return Some(j);
            }
            s = k.blocks[bb].parent?;
        }
    };
    let mut points: BTreeSet<usize> = chosen.iter().copied().collect();
    if ids.len() > 1 {
        // With several ids, hazards whose consumers come later than a barrier's first
        // consumer and whose producers hold its signal back go to a barrier of their own
        // (an existing later one of the block when it is early enough), on another id: the
        // first consumers no longer wait for producers they do not depend on.
        let mut cur = points.first().copied();
        while let Some(p) = cur {
            cur = points.range(p + 1..).next().copied();
            let bi = c.point_block[p];
            let b = BlockId::new(bi as usize);
            let base = c.base[bi as usize];
            let i = p - base;
            let Some(list) = producers.get(&(p as u32)) else {
                continue;
            };
            let lifted: Vec<(Option<usize>, Option<usize>)> = list
                .iter()
                .map(|&(x, y)| {
                    (
                        lift(c.acc.accesses[x as usize].stmt, b),
                        lift(c.acc.accesses[y as usize].stmt, b),
                    )
                })
                .collect();
            let deferrable = |l: &(Option<usize>, Option<usize>)| matches!(l, (Some(ix), Some(iy)) if *ix < i && *iy > i);
            let hold = lifted
                .iter()
                .filter(|l| !deferrable(l))
                .filter_map(|l| l.0.filter(|&ix| ix < i))
                .max();
            let moving: Vec<usize> = (0..list.len())
                .filter(|&h| deferrable(&lifted[h]) && hold.is_none_or(|m| lifted[h].0 > Some(m)))
                .collect();
            if moving.is_empty() {
                continue;
            }
            // Each moved hazard goes to the latest barrier already placed before its consumer;
            // those with none share one new barrier before the first of their consumers.
            let list = producers
                .get_mut(&(p as u32))
                .map(std::mem::take)
                .unwrap_or_default();
            let mut keep = Vec::new();
            let mut fresh = Vec::new();
            let mut fresh_at = usize::MAX;
            for (h, hz) in list.into_iter().enumerate() {
                if !moving.contains(&h) {
                    keep.push(hz);
                    continue;
                }
                let iy = lifted[h].1.unwrap_or(i);
                match points.range(p + 1..=base + iy).next_back() {
                    Some(&q) => producers.entry(q as u32).or_default().push(hz),
                    None => {
                        fresh.push(hz);
                        fresh_at = fresh_at.min(base + iy);
                    }
                }
            }
            producers.insert(p as u32, keep);
            if !fresh.is_empty() {
                let q = fresh_at;
                producers.entry(q as u32).or_default().extend(fresh);
                if points.insert(q) && cur.is_none_or(|n| q < n) {
                    cur = Some(q);
                }
            }
        }
    }
    if ids.len() > 1 {
        // A barrier whose hazards all went to later ones has nothing left to order.
        points.retain(|p| producers.get(&(*p as u32)).is_some_and(|l| !l.is_empty()));
    }
    let chosen: Vec<usize> = points.iter().copied().collect();
    let placed: Vec<bool> = {
        let mut v = placed.to_vec();
        for &p in &chosen {
            v[p] = true;
        }
        v
    };
    let placed = placed.as_slice();
    // Statements that hold a workgroup barrier (input or chosen) somewhere inside.
    let mut has_sync = vec![false; k.stmts.len()];
    fn mark(k: &Kernel, c: &Ctx, b: BlockId, placed: &[bool], has: &mut [bool]) -> bool {
        let d = &k.blocks[b];
        let mut any = (0..=d.stmts.len()).any(|i| placed[c.point(b, i)]);
        for &s in &d.stmts {
            let h = match &k.stmts[s].kind {
                StmtKind::Sync(op) => op.is_workgroup_barrier(),
                other => {
                    let mut h = false;
                    for cb in other.child_block_ids() {
                        h |= mark(k, c, cb, placed, has);
                    }
                    h
                }
            };
            has[s.index()] = h;
            any |= h;
        }
        any
    }
    mark(k, c, k.body, placed, &mut has_sync);

    let mut out = Vec::new();
    // Last wait of each id per block: (block, id) -> index.
    let mut last_wait: BTreeMap<(u32, i32), usize> = BTreeMap::new();
    for &p in &chosen {
        let b = BlockId::new(c.point_block[p] as usize);
        let i = p - c.point(b, 0);
        let stmts = &k.blocks[b].stmts;
        // Below every id's last wait of this block the signal cannot go anyway: the scan
        // for the last statement holding a barrier stops there (it would otherwise walk back
        // over every earlier chosen point of a long block).
        let floor = ids
            .iter()
            .map(|&id| last_wait.get(&(b.index() as u32, id)).copied())
            .try_fold(usize::MAX, |m, w| w.map(|w| m.min(w)))
            .unwrap_or(0)
            .min(i);
        let mut lo = floor;
        for j in (floor..i).rev() {
            if has_sync[stmts[j].index()] {
                lo = j + 1;
                break;
            }
        }
        for &(a, _) in producers
            .get(&(p as u32))
            .map(|v| v.as_slice())
            .unwrap_or(&[])
        {
            // Lift the producer's statement to a statement of `b`.
            let mut s = c.acc.accesses[a as usize].stmt;
            loop {
                match pos[s.index()] {
                    Some((bb, j)) if bb == b => {
                        if j < i {
                            lo = lo.max(j + 1);
                        }
                        break;
                    }
                    Some((bb, _)) => match k.blocks[bb].parent {
                        Some(ps) => s = ps,
                        None => break,
                    },
                    None => break,
                }
            }
        }
        // Earlier chosen points of this block with the same id bound the signal too.
        let mut best: Option<(usize, i32)> = None;
        for &id in ids {
            let l = match last_wait.get(&(b.index() as u32, id)) {
                Some(&w) => lo.max(w),
                None => lo,
            };
            if best.is_none_or(|(bl, _)| l < bl) {
                best = Some((l, id));
            }
        }
        let (l, id) = best.unwrap_or((lo, -1));
        last_wait.insert((b.index() as u32, id), i);
        out.push((p, c.point(b, l), id));
    }
    (out, producers)
}

/// Test support: the analysis behind the pass, exposed for brute-force optimality checks.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// Program points where the pass may place a barrier (not under a divergent `if`, not in
    /// a warp-pipelined loop).
    pub fn candidate_points(k: &Kernel, t: Target) -> Vec<ProgramPoint> {
        let c = Ctx::new(k, t);
        let mut out = Vec::new();
        fn walk(c: &Ctx, b: BlockId, out: &mut Vec<ProgramPoint>) {
            let d = &c.k.blocks[b];
            if c.allowed[b.index()] {
                for i in 0..=d.stmts.len() {
                    out.push(ProgramPoint { block: b, index: i });
                }
            }
            for &s in &d.stmts {
                if c.stage_loop[s.index()] {
                    continue;
                }
                for cb in c.k.stmts[s].kind.child_block_ids() {
                    walk(c, cb, out);
                }
            }
        }
        walk(&c, k.body, &mut out);
        out
    }

    /// Placement lanes for `k` (`SYNCOPT_BAR_THREADS` or the cores), and how many of them
    /// contributed their part of the result (met the lane before them).
    pub fn lanes(k: &Kernel, t: Target) -> (usize, usize) {
        let c = Ctx::new(k, t);
        let r = run_lanes(&c, (false, false, false), &vec![false; c.point_block.len()]);
        (r.lanes, r.used)
    }

    /// `run` with the what-if runs simulated every time instead of memoized.
    pub fn without_memo(k: &mut Kernel, t: Target, opts: &InsertOptions) -> PassReport {
        NO_MEMO.with(|m| m.set(true));
        let rep = run(k, t, opts);
        NO_MEMO.with(|m| m.set(false));
        rep
    }

    /// `run` keeping the idle barriers of a large kernel (no coverage run crediting the
    /// first of two barriers).
    pub fn without_double(k: &mut Kernel, t: Target, opts: &InsertOptions) -> PassReport {
        NO_DOUBLE.with(|m| m.set(true));
        let rep = run(k, t, opts);
        NO_DOUBLE.with(|m| m.set(false));
        rep
    }

    /// Memoized what-if runs reused by the placement of `k` (one lane).
    pub fn memo_hits(k: &Kernel, t: Target) -> u64 {
        let c = Ctx::new(k, t);
        let mut sim = Sim::new(&c, false, vec![false; c.point_block.len()]);
        sim.budget = budget_for(k.stmts.len());
        sim.run_block(k.body, State::default());
        sim.memo_hits
    }

    /// Hazards (producer loc, consumer loc) that no sync op of `k` orders, by the pass's own
    /// path-based model.
    pub fn unordered(k: &Kernel, t: Target) -> BTreeSet<(u32, u32)> {
        let c = Ctx::new(k, t);
        let n = c.point_block.len();
        coverage(&c, &vec![false; n], (false, false))
            .into_iter()
            .filter(|h| h.0 == NONE)
            .map(|h| (h.1, h.2))
            .collect()
    }
}
