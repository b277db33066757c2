//! The forward dataflow: which async copies may still be in flight at each program point, with
//! the fewest ops issued on their counter since (min over paths), and which barrier last
//! published each of them.
//!
//! Polynomial: the state is keyed by (counter, place, access kind), not by path. Two copies on
//! one counter to one place merge exactly, because counters complete in issue order: once the
//! younger copy completed, so did the older one, so only the smaller count matters. Loops run
//! to a fixpoint of the join (pointwise min of counts, union of keys); counts saturate at the
//! counter's maximum + 1, so the lattice is finite.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::fxhash::FxMap as HashMap;

use syncopt_ir::{AccessKind, BlockId, Counter, EntityRef, Kernel, StmtId, StmtKind, SyncOp};
use syncopt_targets::Target;

use crate::place::{kinds_conflict, Conflict, Memory, Place};

/// A statement before which a wait can be inserted: a barrier (or split-barrier signal), or a
/// consumer that the issuing wave reaches with no barrier in between.
pub type Site = StmtId;

/// Inserted waits at one site.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteWait {
    /// NVIDIA: close the open cp.async group first.
    pub commit: bool,
    pub waits: BTreeMap<Counter, u32>,
}

pub type Config = BTreeMap<Site, SiteWait>;

/// What the copies in flight demand at one site.
#[derive(Clone, Debug, Default)]
pub struct Need {
    /// Per counter, the fewest ops issued after a copy that must be complete here
    /// (-1: a cp.async copy not yet committed to a group).
    pub min: BTreeMap<Counter, i32>,
    /// (copy, consumer) pairs behind this need, for `--explain`.
    /// Sorted, at most `COVERS_MAX` (the smallest ones).
    pub covers: Vec<(StmtId, StmtId)>,
}

/// A branch of an `if` with memory results (0: then, 1: else): a copy (or its publication)
/// tagged with it exists only on paths through that branch, so accesses through the `if`'s
/// results are resolved as that branch's yields. None: no such knowledge.
pub type Guard = Option<(StmtId, u8)>;

/// Loop nesting, by the walk-order spans of `subtree_spans`: the joins of `Reach` need it to
/// keep what two paths share when each crossed a different loop around the same copy.
#[derive(Clone, Copy)]
pub(crate) struct Nest<'a> {
    pre: &'a [u32],
    post: &'a [u32],
    /// Per statement: the innermost loop around it (`crate::loop_parents`).
    up: &'a [Option<StmtId>],
}

impl Nest<'_> {
    /// Statement `x` lies strictly inside loop `l`.
    fn inside(&self, x: StmtId, l: StmtId) -> bool {
        let p = self.pre[x.index()];
        self.pre[l.index()] < p && p < self.post[l.index()]
    }
    /// The innermost loop around both `a` and `b`.
    fn around_both(&self, a: StmtId, b: StmtId) -> Option<StmtId> {
        let mut l = self.up.get(a.index()).copied().flatten();
        while let Some(lp) = l {
            if self.inside(b, lp) {
                return Some(lp);
            }
            l = self.up[lp.index()];
        }
        None
    }
}

fn join_guard(a: Guard, b: Guard) -> Guard {
    if a == b {
        a
    } else {
        None
    }
}

/// Across which loop iterations the barrier-free paths from a copy reach a point. Only loops
/// around some copy of the entry count (crossing another loop's back edge or exit leaves the
/// iterations of every loop around the copies as they were).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Carried {
    /// None crosses a back edge or exit.
    No,
    /// Each crosses exactly one back edge of this loop, none of its exit, and otherwise only
    /// back edges and exits of loops inside it.
    One(StmtId),
    /// Each crosses only back edges and exits of this loop and of loops inside it (loops
    /// around it stay in their iteration).
    Loop(StmtId),
    /// Each crosses this loop's exit and none of its back edges (the copy comes from its last
    /// iteration), and otherwise only back edges and exits of loops inside it.
    Exit(StmtId),
    /// Each crosses only back edges and exits of loops strictly inside this one, none of its
    /// own: the paths stay in the copy's iteration of this loop (the join of paths that left
    /// different loops inside it; plain gen seed 1160 at 100 ops on sm_90: copies of two
    /// sibling loops in one place).
    Within(StmtId),
    /// Unknown.
    Many,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reach {
    /// Some path stays in the iteration of the issue.
    pub same: bool,
    pub carried: Carried,
    /// The outermost loop around the current point that some path crossed the back edge of
    /// while it lay around none of the copies, with its preorder number (the outer of two
    /// such loops has the smaller one): a point inside loops the copies are outside of is in
    /// the first iterations of those around this loop. Leaving it forgets it (the loops
    /// crossed were it or inside it).
    pub later: Option<(u32, StmtId)>,
    /// By nesting depth (`Residues::depth`), the loops around the current point whose back
    /// edge some path crossed since it last entered them: a loop whose bit is clear is in its
    /// first iteration. Leaving a loop clears its bit.
    pub crossed: u64,
    /// Every path that crosses a back edge or exit left this loop from its last iteration
    /// first (`Carried::Exit`), whatever it crossed after: the copy is the one of the last
    /// iteration of some run of the loop.
    pub past: Option<StmtId>,
    /// With `past`: some path crossed that loop's back edge after leaving it (else a point
    /// inside it is in the first iteration of its next run).
    pub again: bool,
    /// Every copy of the entry ran in one residue of a loop's iteration, as its paths told
    /// (a branch on that loop's variable entered in the copy's own iteration): (loop, the
    /// residue, its period). A fact about the copies, whatever the paths cross after; the
    /// check binds a copy that left that loop from its last iteration to that residue's
    /// form, as the barrier pass's `Key::ares` does (plain gen seed 139 on sm_90).
    pub res: Option<(StmtId, u8, u8)>,
    /// Every path that crosses a back edge or exit of a loop around this one crossed this
    /// loop's exit first, from any of its iterations (`past` is the last one): the copy was
    /// made in some iteration of it, in the same iteration of the loops around it, as the
    /// barrier pass's `State::leave_only` takes it (`Accesses::loop_exit`; executable seed
    /// 216 at 200 ops: a copy in some trips of an unrolled loop met the next outer trip's
    /// read of the other slot at an unknown distance).
    pub left: Option<StmtId>,
    /// With `left` or `past` (loop `m`): every path that crosses a back edge or exit of a
    /// loop around this one crossed this loop's exit first, after `m`'s and from the copy's
    /// own trip of it (no back edge of it crossed): the copy, in its form out of `m`, took
    /// its form in this loop's last trip, as the barrier pass binds it once more
    /// (`Key::pin`'s `PIN_LAST`; plain gen seed 144 at 1,000 ops on sm_90: a copy of an inner
    /// loop of unknown trips, out of the exact loop around, met its next run's first trip).
    pub then_last: Option<StmtId>,
    /// With `then_last`: some path crossed that loop's back edge after leaving it (else a
    /// point inside it is in the first trip of its next run), as `again` for `past`.
    pub last_again: bool,
}

impl Reach {
    const NONE: Reach = Reach {
        same: false,
        carried: Carried::No,
        later: None,
        crossed: 0,
        past: None,
        again: false,
        res: None,
        left: None,
        then_last: None,
        last_again: false,
    };
    const FRESH: Reach = Reach {
        same: true,
        carried: Carried::No,
        later: None,
        crossed: 0,
        past: None,
        again: false,
        res: None,
        left: None,
        then_last: None,
        last_again: false,
    };
    /// No path at all.
    fn empty(&self) -> bool {
        !self.same && self.carried == Carried::No
    }
    fn join(self, o: Reach, nest: Nest) -> Reach {
        let carried = match (self.carried, o.carried) {
            (Carried::No, c) | (c, Carried::No) => c,
            (Carried::One(a), Carried::One(b)) if a == b => Carried::One(a),
            (Carried::Exit(a), Carried::Exit(b)) if a == b => Carried::Exit(a),
            (Carried::Within(a), Carried::Within(b)) if a == b => Carried::Within(a),
            (
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a) | Carried::Within(a),
                Carried::One(b) | Carried::Loop(b) | Carried::Exit(b) | Carried::Within(b),
            ) if a == b => Carried::Loop(a),
            // Inside a loop the other paths stay in an iteration of: they do too.
            (
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a) | Carried::Within(a),
                Carried::Within(b),
            )
            | (
                Carried::Within(b),
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a) | Carried::Within(a),
            ) if nest.inside(a, b) => Carried::Within(b),
            // Paths that crossed only a loop inside `b` (and loops inside that) and paths
            // that crossed only `b` and loops inside it: all stay in the copy's iteration of
            // the loops around `b` (plain gen seed 79 at 1000 ops on sm_90: a copy that left
            // an inner loop met, at the `if` after it, the paths of the next trip of the loop
            // around that skipped it; `Many` lost the outer loop's residue at its back edge).
            (
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a) | Carried::Within(a),
                Carried::One(b) | Carried::Loop(b) | Carried::Exit(b),
            ) if nest.inside(a, b) => Carried::Loop(b),
            (
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a),
                Carried::One(b) | Carried::Loop(b) | Carried::Exit(b) | Carried::Within(b),
            ) if nest.inside(b, a) => Carried::Loop(a),
            // Two loops apart (neither inside the other): the paths stay in the iteration of
            // the innermost loop around both.
            (
                Carried::One(a) | Carried::Loop(a) | Carried::Exit(a) | Carried::Within(a),
                Carried::One(b) | Carried::Loop(b) | Carried::Exit(b) | Carried::Within(b),
            ) => nest
                .around_both(a, b)
                .map_or(Carried::Many, Carried::Within),
            _ => Carried::Many,
        };
        let past = match (self.carried, o.carried) {
            (Carried::No, _) => o.past,
            (_, Carried::No) => self.past,
            _ => self.past.filter(|&m| o.past == Some(m)),
        };
        let again = past.is_some() && (self.again || o.again);
        let left = match (self.carried, o.carried) {
            (Carried::No, _) => o.left,
            (_, Carried::No) => self.left,
            _ => self.left.filter(|&m| o.left == Some(m)),
        };
        let then_last = match (self.carried, o.carried) {
            (Carried::No, _) => o.then_last,
            (_, Carried::No) => self.then_last,
            _ => self.then_last.filter(|&m| o.then_last == Some(m)),
        };
        let last_again = then_last.is_some() && (self.last_again || o.last_again);
        let res = if self.empty() {
            o.res
        } else if o.empty() {
            self.res
        } else {
            self.res.filter(|_| self.res == o.res)
        };
        Reach {
            same: self.same || o.same,
            carried,
            later: match (self.later, o.later) {
                (None, x) | (x, None) => x,
                (Some(a), Some(b)) => Some(a.min(b)),
            },
            crossed: self.crossed | o.crossed,
            past,
            again,
            res,
            left,
            then_last,
            last_again,
        }
    }
    /// Across loop `lp`'s back edge (or its exit), which lies around some copy of the entry;
    /// `inside(x, l)`: loop `x` lies strictly inside loop `l`.
    fn cross(self, lp: StmtId, exit: bool, nest: Nest) -> Reach {
        let inside = |x, l| nest.inside(x, l);
        let moved = if exit {
            Carried::Exit(lp)
        } else {
            Carried::One(lp)
        };
        let carried = match self.carried {
            Carried::No => Carried::No,
            Carried::Many => Carried::Many,
            // No edge of its own crossed yet: this is its first, as from the copy's iteration.
            Carried::Within(m) if m == lp => moved,
            Carried::One(m) | Carried::Loop(m) | Carried::Exit(m) if m == lp => Carried::Loop(lp),
            Carried::One(m) | Carried::Loop(m) | Carried::Exit(m) | Carried::Within(m)
                if inside(m, lp) =>
            {
                moved
            }
            c @ (Carried::One(m) | Carried::Loop(m) | Carried::Exit(m) | Carried::Within(m))
                if inside(lp, m) =>
            {
                c
            }
            _ => Carried::Many,
        };
        let past = match self.carried {
            Carried::No => None,
            Carried::Exit(m) if self.past.is_none() && inside(m, lp) => Some(m),
            _ => self.past,
        };
        let left = match self.carried {
            Carried::No => None,
            Carried::One(m) | Carried::Loop(m) | Carried::Exit(m)
                if self.left.is_none() && inside(m, lp) =>
            {
                Some(m)
            }
            _ => self.left,
        };
        // Out of `lp` from the copy's own trip of it (no edge of it crossed yet), after some
        // inner loop's exit form (`left` or `past`).
        let own_trip = match self.carried {
            Carried::One(m) | Carried::Loop(m) | Carried::Exit(m) => inside(m, lp),
            Carried::Within(m) => m == lp || inside(m, lp),
            _ => false,
        };
        let then_last = match self.carried {
            Carried::No => None,
            _ if exit
                && own_trip
                && self.then_last.is_none()
                && left.or(past).is_some_and(|x| inside(x, lp)) =>
            {
                Some(lp)
            }
            _ => self.then_last,
        };
        let out = Reach {
            same: false,
            carried,
            later: self.later,
            crossed: self.crossed,
            past,
            again: self.again && past.is_some(),
            res: self.res,
            left,
            then_last,
            last_again: self.last_again && then_last.is_some(),
        };
        if self.same {
            out.join(
                Reach {
                    same: false,
                    carried: moved,
                    later: self.later,
                    crossed: self.crossed,
                    past: None,
                    again: false,
                    res: self.res,
                    left: None,
                    then_last: None,
                    last_again: false,
                },
                nest,
            )
        } else {
            out
        }
    }
}

/// A small sorted set of copies; past `SRCS_MAX` further ones are not recorded (a warning
/// may then name fewer copies, never a wrong one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[allow(clippy::box_collection)] // one pointer keeps states small to copy
pub enum Srcs {
    #[default]
    Zero,
    One(StmtId),
    Many(Box<Vec<StmtId>>),
}

const SRCS_MAX: usize = 16;

impl Srcs {
    fn iter(&self) -> std::slice::Iter<'_, StmtId> {
        match self {
            Srcs::Zero => [].iter(),
            Srcs::One(x) => std::slice::from_ref(x).iter(),
            Srcs::Many(v) => v.iter(),
        }
    }
    fn remove_all(&mut self, o: &Srcs) {
        let left: Vec<StmtId> = self
            .iter()
            .filter(|x| !o.iter().any(|y| y == *x))
            .copied()
            .collect();
        *self = match left.as_slice() {
            [] => Srcs::Zero,
            [x] => Srcs::One(*x),
            _ => Srcs::Many(Box::new(left)),
        };
    }
    fn union(&mut self, o: &Srcs) {
        for &x in o.iter() {
            match self {
                Srcs::Zero => *self = Srcs::One(x),
                Srcs::One(y) if *y == x => {}
                Srcs::One(y) => {
                    let y = *y;
                    *self = Srcs::Many(Box::new(if x < y { vec![x, y] } else { vec![y, x] }));
                }
                Srcs::Many(v) => {
                    if let Err(i) = v.binary_search(&x) {
                        if v.len() < SRCS_MAX {
                            v.insert(i, x);
                        }
                    }
                }
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Live {
    /// Fewest ops on the counter issued after the copy, over the paths where it is in flight;
    /// -1 for a cp.async copy whose group is still open.
    count: i32,
    /// Some path from the issue reaches here without passing a barrier.
    free: bool,
    /// How the paths from the issue that pass no barrier reach here (for the warning).
    reach: Reach,
    /// The copies merged into this entry that reach here on such paths (for the warning:
    /// `Entry::copy` names only one of them).
    srcs: Srcs,
    guard: Guard,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    live: Option<Live>,
    /// Barriers that published the copy last on some path, with the count at each.
    last: Lasts,
    /// Per barrier id: set at a split-barrier signal of that id, becomes `last` at the next
    /// wait of the same id (named barriers interleave: `signal 1; signal 2; wait 1; wait 2`).
    armed: Armed,
    /// The copy (the youngest one when several merged).
    copy: StmtId,
    /// The copy completed (a wait) on a path where no barrier followed it yet: other waves
    /// may still not see its data. Some(true): such a path crosses a loop's back edge or
    /// exit. Only for the "no barrier" warning; it places no wait.
    unpub: Option<Box<(Reach, Srcs)>>,
}

impl Entry {
    /// Nothing that places a wait: neither in flight nor published nor armed.
    fn idle(&self) -> bool {
        self.live.is_none() && self.last.is_empty() && self.armed.values().all(|a| a.is_empty())
    }
    fn dead(&self) -> bool {
        self.idle() && self.unpub.is_none()
    }
    fn join(&mut self, o: &Entry, nest: Nest) {
        let mine_unarmed = self.live.is_some() || self.unpub.is_some();
        let other_unarmed = o.live.is_some() || o.unpub.is_some();
        let self_c = self.live.as_ref().map(|l| l.count);
        let o_c = o.live.as_ref().map(|l| l.count);
        let pick_other = match (self_c, o_c) {
            (Some(a), Some(b)) => (b, o.copy) < (a, self.copy),
            (None, Some(_)) => true,
            (Some(_), None) => false,
            // The copy named is that of the entry that places waits, if one does.
            (None, None) => match (self.idle(), o.idle()) {
                (true, false) => true,
                (false, true) => false,
                _ => o.copy < self.copy,
            },
        };
        if pick_other {
            self.copy = o.copy;
        }
        self.unpub = match (self.unpub.take(), &o.unpub) {
            (Some(mut u), Some(v)) => {
                u.1.union(&v.1);
                u.0 = u.0.join(v.0, nest);
                Some(u)
            }
            (a, b) => a.or_else(|| b.clone()),
        };
        self.live = match (self.live.take(), &o.live) {
            (Some(a), Some(b)) => Some(Live {
                count: a.count.min(b.count),
                free: a.free || b.free,
                reach: a.reach.join(b.reach, nest),
                srcs: {
                    let mut x = a.srcs;
                    x.union(&b.srcs);
                    x
                },
                guard: join_guard(a.guard, b.guard),
            }),
            (a, b) => a.or_else(|| b.clone()),
        };
        merge_last(&mut self.last, &o.last);
        self.armed.join(&o.armed, mine_unarmed, other_unarmed);
    }
}

/// Per split-barrier id, what its last signal armed: a map kept as a sorted vector (almost
/// always empty, and an empty vector costs nothing to copy or drop).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Armed(Vec<Arm>);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Arm {
    id: i32,
    lasts: Lasts,
    /// On some path the entry's copy was not in flight at the signal (issued after it, or on
    /// a path that met the signal with nothing at this place, then issued): the wait then
    /// publishes what the signal armed, but not the entry's copy in flight.
    partial: bool,
    /// The copies in flight at the signal (for the warning: those the wait publishes).
    srcs: Srcs,
}

impl Armed {
    fn values(&self) -> impl Iterator<Item = &Lasts> {
        self.0.iter().map(|x| &x.lasts)
    }
    fn values_mut(&mut self) -> impl Iterator<Item = &mut Lasts> {
        self.0.iter_mut().map(|x| &mut x.lasts)
    }
    fn has(&self, id: i32) -> bool {
        self.0.binary_search_by_key(&id, |x| x.id).is_ok()
    }
    fn insert(&mut self, id: i32, lasts: Lasts, srcs: Srcs) {
        let a = Arm {
            id,
            lasts,
            partial: false,
            srcs,
        };
        match self.0.binary_search_by_key(&id, |x| x.id) {
            Ok(i) => self.0[i] = a,
            Err(i) => self.0.insert(i, a),
        }
    }
    fn remove(&mut self, id: i32) -> Option<Arm> {
        let i = self.0.binary_search_by_key(&id, |x| x.id).ok()?;
        Some(self.0.remove(i))
    }
    /// Joins `o`'s arming into this one. `mine_unarmed` / `other_unarmed`: that side holds a
    /// copy (in flight, or completed and unpublished) that an id it lacks did not arm.
    fn join(&mut self, o: &Armed, mine_unarmed: bool, other_unarmed: bool) {
        if other_unarmed {
            for x in self.0.iter_mut() {
                if !o.has(x.id) {
                    x.partial = true;
                }
            }
        }
        for b in &o.0 {
            match self.0.binary_search_by_key(&b.id, |x| x.id) {
                Ok(i) => {
                    let x = &mut self.0[i];
                    merge_last(&mut x.lasts, &b.lasts);
                    x.partial |= b.partial;
                    x.srcs.union(&b.srcs);
                }
                Err(i) => {
                    let mut b = b.clone();
                    b.partial |= mine_unarmed;
                    self.0.insert(i, b);
                }
            }
        }
    }
}

/// Barriers with the count at each, sorted by site: almost always none or one, kept inline
/// so that cloning a state (at every branch and loop iteration) allocates once.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lasts {
    #[default]
    Zero,
    One((Site, i32, Guard)),
    /// Two or more.
    Many(Vec<(Site, i32, Guard)>),
}

impl std::ops::Deref for Lasts {
    type Target = [(Site, i32, Guard)];
    fn deref(&self) -> &Self::Target {
        match self {
            Lasts::Zero => &[],
            Lasts::One(x) => std::slice::from_ref(x),
            Lasts::Many(v) => v,
        }
    }
}

impl std::ops::DerefMut for Lasts {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Lasts::Zero => &mut [],
            Lasts::One(x) => std::slice::from_mut(x),
            Lasts::Many(v) => v,
        }
    }
}

impl Lasts {
    fn clear(&mut self) {
        *self = Lasts::Zero;
    }
    fn insert(&mut self, i: usize, x: (Site, i32, Guard)) {
        *self = match std::mem::take(self) {
            Lasts::Zero => Lasts::One(x),
            Lasts::One(y) => Lasts::Many(if i == 0 { vec![x, y] } else { vec![y, x] }),
            Lasts::Many(mut v) => {
                v.insert(i, x);
                Lasts::Many(v)
            }
        };
    }
    fn push(&mut self, x: (Site, i32, Guard)) {
        let n = self.len();
        self.insert(n, x);
    }
}

fn merge_last(a: &mut Lasts, b: &[(Site, i32, Guard)]) {
    for &(s, c, g) in b {
        match a.binary_search_by_key(&s, |x| x.0) {
            Ok(i) => {
                a[i].1 = a[i].1.min(c);
                a[i].2 = join_guard(a[i].2, g);
            }
            Err(i) => a.insert(i, (s, c, g)),
        }
    }
}

/// After an `if` with memory results: what is live (or was published) on one branch's paths
/// only is tagged with that branch, before the two states are joined.
fn tag_branch(mine: &mut State, other: &State, g: (StmtId, u8)) {
    for (key, e) in mine.iter_mut() {
        let o = other.get(key);
        if let Some(l) = &mut e.live {
            if o.is_none_or(|o| o.live.is_none()) {
                l.guard = Some(g);
            }
        }
        for x in e.last.iter_mut() {
            if o.is_none_or(|o| !o.last.iter().any(|y| y.0 == x.0)) {
                x.2 = Some(g);
            }
        }
    }
}

pub type Key = (Counter, u32, AccessKind);
/// What is in flight (or was published) at a program point, by key. A sorted vector: states
/// hold a handful of keys and are cloned at every branch and loop iteration, which a vector
/// does with one allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    v: Vec<(Key, Entry)>,
}

impl State {
    pub fn new() -> State {
        State { v: Vec::new() }
    }
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    pub fn len(&self) -> usize {
        self.v.len()
    }
    fn pos(&self, k: &Key) -> Result<usize, usize> {
        self.v.binary_search_by(|x| x.0.cmp(k))
    }
    fn get(&self, k: &Key) -> Option<&Entry> {
        self.pos(k).ok().map(|i| &self.v[i].1)
    }
    fn get_mut(&mut self, k: &Key) -> Option<&mut Entry> {
        match self.pos(k) {
            Ok(i) => Some(&mut self.v[i].1),
            Err(_) => None,
        }
    }
    fn insert(&mut self, k: Key, e: Entry) {
        match self.pos(&k) {
            Ok(i) => self.v[i].1 = e,
            Err(i) => self.v.insert(i, (k, e)),
        }
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = (&Key, &mut Entry)> {
        self.v.iter_mut().map(|(k, e)| (&*k, e))
    }
    fn values_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        self.v.iter_mut().map(|(_, e)| e)
    }
    fn retain(&mut self, mut f: impl FnMut(&Key, &mut Entry) -> bool) {
        self.v.retain_mut(|(k, e)| f(k, e));
    }
}

impl<'a> IntoIterator for &'a State {
    type Item = (&'a Key, &'a Entry);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Key, Entry)>,
        fn(&'a (Key, Entry)) -> (&'a Key, &'a Entry),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.v.iter().map(|(k, e)| (k, e))
    }
}

fn join_state(a: &mut State, b: &State, nest: Nest) {
    if b.v.is_empty() {
        return;
    }
    if a.v.is_empty() {
        a.v = b.v.clone();
        return;
    }
    // Most joins meet the same keys on both sides (or fewer on `b`'s): join in place.
    let mut i = 0;
    let within = b.v.iter().all(|(bk, _)| {
        while i < a.v.len() && a.v[i].0 < *bk {
            i += 1;
        }
        let hit = i < a.v.len() && a.v[i].0 == *bk;
        i += 1;
        hit
    });
    if within {
        let mut i = 0;
        for (bk, be) in &b.v {
            while a.v[i].0 < *bk {
                i += 1;
            }
            a.v[i].1.join(be, nest);
            i += 1;
        }
        return;
    }
    // Both sorted by key: one merge.
    let mut out: Vec<(Key, Entry)> = Vec::with_capacity(a.v.len() + b.v.len());
    let mut bi = b.v.iter().peekable();
    for (k, mut e) in std::mem::take(&mut a.v) {
        while let Some((bk, be)) = bi.peek() {
            if *bk < k {
                out.push((*bk, be.clone()));
                bi.next();
            } else {
                break;
            }
        }
        if let Some((bk, be)) = bi.peek() {
            if *bk == k {
                e.join(be, nest);
                bi.next();
            }
        }
        out.push((k, e));
    }
    out.extend(bi.cloned());
    a.v = out;
}

impl State {
    /// A state from entries in any order; entries that land on one key are joined (the join
    /// is commutative, so the order does not matter).
    fn from_unsorted(mut v: Vec<(Key, Entry)>, nest: Nest) -> State {
        if v.windows(2).all(|w| w[0].0 < w[1].0) {
            return State { v };
        }
        v.sort_by_key(|x| x.0);
        let mut out: Vec<(Key, Entry)> = Vec::with_capacity(v.len());
        for (k, e) in v {
            match out.last_mut() {
                Some(last) if last.0 == k => last.1.join(&e, nest),
                _ => out.push((k, e)),
            }
        }
        State { v: out }
    }
}

fn join_opt(a: &mut Option<State>, b: &State, nest: Nest) {
    match a {
        Some(x) => join_state(x, b, nest),
        None => *a = Some(b.clone()),
    }
}

/// Per-op facts that do not depend on the path.
#[derive(Clone, Debug)]
pub struct OpInfo {
    /// Workgroup effects: kind and interned place.
    pub effects: Vec<(AccessKind, u32)>,
    /// The counter the op raises, when it is async and the target has that counter.
    pub counter: Option<Counter>,
}

#[derive(Clone)]
pub struct Analysis<'a> {
    pub k: &'a Kernel,
    pub mem: &'a Memory,
    pub target: Target,
    pub places: Vec<Place>,
    place_ids: HashMap<Place, u32>,
    conflicts: HashMap<(u32, u32), Conflict>,
    back_cache: HashMap<(StmtId, u32), u32>,
    exit_cache: HashMap<(StmtId, u32), u32>,
    enter_cache: HashMap<(StmtId, u32), u32>,
    /// Per statement (by index): facts of the ops.
    pub ops: Arc<Vec<Option<OpInfo>>>,
    pub config: Config,
    pub needs: BTreeMap<Site, Need>,
    /// (copy, consumer) pairs reached by another wave with no barrier in between, whether
    /// the copy may be from another iteration, and whether it had completed (a wait with no
    /// barrier after it) rather than being still in flight.
    pub unpublished: BTreeSet<(StmtId, StmtId, Reach, bool)>,
    /// Body evaluations so far, to bound the exact unrolling of loops with a minimum count.
    pub evals: u64,
    pub max_state: usize,
    /// Per statement (by index): a loop or `if` whose body issues no async op. Entered with
    /// nothing in flight it leaves nothing in flight and demands nothing, so it is skipped.
    quiet: Vec<bool>,
    /// Statistics for SYNCOPT_AW_DEBUG: analyses run, statements visited.
    pub runs: u64,
    pub visits: u64,
    /// Loops enclosing each `if` with memory results (guards on it end at their back edges
    /// and exits).
    if_loops: HashMap<StmtId, Vec<StmtId>>,
    /// Per op (by index): the index in the op's effects of each of its workgroup effects, to
    /// resolve them again under a guard.
    raw: Vec<Vec<u16>>,
    /// Effect places resolved under a guard: (op, effect index, guard) -> place.
    guarded: HashMap<(StmtId, usize, Guard), u32>,
    /// Induction variables that appear in some `if` condition.
    cond_ivs: BTreeSet<syncopt_ir::ValueId>,
    /// Values of the induction variables of the loops being unrolled iteration by iteration
    /// (exact trip count, constant start): conditions on them are decided, like the verifier
    /// decides them.
    env: BTreeMap<syncopt_ir::ValueId, i64>,
    /// Conditions of the uniform `if`s around the current point, with the branch taken, that
    /// the verifier decides on every path (`mod` conditions on induction variables whose
    /// residue it tracks): an `if` nested in one with the same condition takes the same branch.
    facts: Vec<(syncopt_ir::Cond, bool)>,
    /// Per induction variable, the period of the residue the verifier tracks (the lcm of the
    /// moduli it appears under in slot indices and conditions, up to 64).
    iv_mod: BTreeMap<syncopt_ir::ValueId, u64>,
    /// Handles of the exactly unrolled loops around the current point, with the value each is
    /// in the iteration being analysed (innermost last).
    frame: Vec<(syncopt_ir::ValueId, syncopt_ir::ValueId)>,
    frame_id: u32,
    frame_ids: HashMap<FrameKey, u32>,
    /// Induction variables of the loops around the current point that are in their first
    /// iteration (constant start, a slot picked by the variable, copies in flight at the
    /// entry), with that start: slot indices over them name one slot, as the barrier pass
    /// binds them (`Accesses::bind_first_ivs`) and the verifier knows the residue.
    pins: Vec<(syncopt_ir::ValueId, i64)>,
    /// Places of the state with the pinned induction variables fixed: (place, frame id) ->
    /// place.
    pinned: HashMap<(u32, u32), u32>,
    /// Frame ids after `block_framed` adds a branch's handles: (frame id, `if`, branch) -> id.
    frame_steps: HashMap<(u32, StmtId, usize), u32>,
    /// Per statement (by index): for a uniform `if` whose condition binds a loop's handles
    /// (`parity_frame`), their values in the then and else branches.
    #[allow(clippy::type_complexity)]
    parity: ParityFrames,
    residues: Arc<Residues>,
    /// Effect places resolved in a frame: (op, effect index, frame id) -> place.
    framed: HashMap<(StmtId, usize, u32), u32>,
    /// Per statement (by index): its walk-order position and the end of its subtree's
    /// positions, to find the waits placed inside a loop.
    pre: Arc<[u32]>,
    post: Arc<[u32]>,
    /// Per statement: the innermost loop around it (`Nest::up`).
    loop_up: Arc<[Option<StmtId>]>,
    /// The sites of the current config by walk-order position.
    cfg_order: Vec<(u32, Site)>,
    /// Every demand and unpublished pair of the current analysis, in the order made: what a
    /// loop evaluation adds is the tail from where it started.
    need_log: Vec<NeedCall>,
    unpub_log: Vec<(StmtId, StmtId, Reach, bool)>,
    /// Loop evaluations by loop: a loop entered again in the same context (state, waits
    /// inside it, pinned induction variables, decided conditions, handle frame) repeats what
    /// it did, so it is replayed.
    memo: HashMap<MemoKey, Vec<LoopRun>>,
    pub memo_hits: u64,
    /// State entries, demands and pairs (and records) added to `memo` since it was last
    /// emptied.
    memo_entries: usize,
    /// A log reached `LOG_MAX` in this analysis: no more records.
    log_full: bool,
    conflict_misses: u64,
    recent: Box<[Option<(u32, u32, Conflict)>; RECENT]>,
    /// Loop evaluations are recorded and replayed (off only to test that replays change
    /// nothing).
    pub memo_on: bool,
}

type NeedCall = (Site, Counter, i32, StmtId, StmtId);

/// What a frame id stands for: the handles' values and the pinned induction variables.
type FrameKey = (
    Vec<(syncopt_ir::ValueId, syncopt_ir::ValueId)>,
    Vec<(syncopt_ir::ValueId, i64)>,
);

/// A loop, and whether the evaluation is of its body (one iteration) or of the whole loop.
type MemoKey = (StmtId, bool);

/// One evaluation of a loop: its context and what it did.
#[derive(Clone)]
struct LoopRun {
    hash: u64,
    st: State,
    env: BTreeMap<syncopt_ir::ValueId, i64>,
    facts: Vec<(syncopt_ir::Cond, bool)>,
    frame_id: u32,
    cfg: Vec<(Site, SiteWait)>,
    out: State,
    needs: Vec<NeedCall>,
    unpub: Vec<(StmtId, StmtId, Reach, bool)>,
    evals: u64,
}

/// Slots of the recent-conflicts table (a power of two).
const RECENT: usize = 4096;

/// (copy, consumer) pairs kept per site for `--explain`.
const COVERS_MAX: usize = 64;

/// Entries the place caches keep across segments.
const CACHE_KEEP: usize = 4096;
/// Evaluations kept per loop.
const MEMO_PER_LOOP: usize = 8;
/// Loops with fewer statements (the loop included) are not remembered, nor evaluations that
/// visited fewer statements: cheaper to run again than to remember.
const MEMO_MIN: u32 = 6;
const MEMO_VISITS: u64 = 24;
/// State entries, demands and pairs the records may hold before they are all dropped (up to
/// about 100 bytes each).
const MEMO_ENTRIES_MAX: usize = 500_000;
/// Demands and pairs logged in one analysis past which nothing more is recorded in it.
const LOG_MAX: usize = 1 << 20;

fn state_hash(st: &State) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fxhash::Fx::default();
    st.hash(&mut h);
    h.finish()
}

/// Loops are unrolled exactly (no join) for at most this many iterations when the input states
/// a minimum trip count; counts saturate well before (counter maxima are 63 and 7).
const MAX_EXACT: u64 = 66;
/// Past this many body evaluations in one analysis, minimum trip counts are ignored (sound:
/// joining more iterations only lowers counts), to keep deep nests of counted loops linear.
const EVAL_BUDGET: u64 = 200_000;

impl<'a> Analysis<'a> {
    fn nest(&self) -> Nest<'_> {
        Nest {
            pre: &self.pre,
            post: &self.post,
            up: &self.loop_up,
        }
    }

    /// The analysis of `k`; `prep` is `Prep::new(k)` (the pass makes it on another thread
    /// while it builds `mem`).
    pub fn with_prep(k: &'a Kernel, mem: &'a Memory, target: Target, prep: Prep) -> Analysis<'a> {
        let mut a = Analysis {
            k,
            mem,
            target,
            places: Vec::new(),
            place_ids: HashMap::default(),
            conflicts: HashMap::default(),
            back_cache: HashMap::default(),
            exit_cache: HashMap::default(),
            enter_cache: HashMap::default(),
            ops: Arc::new(Vec::new()),
            config: Config::new(),
            needs: BTreeMap::new(),
            unpublished: BTreeSet::new(),
            evals: 0,
            max_state: 0,
            runs: 0,
            visits: 0,
            quiet: Vec::new(),
            if_loops: HashMap::default(),
            guarded: HashMap::default(),
            raw: Vec::new(),
            cond_ivs: BTreeSet::new(),
            env: BTreeMap::new(),
            facts: Vec::new(),
            iv_mod: BTreeMap::new(),
            frame: Vec::new(),
            // Id 0 is the empty frame with nothing pinned, the state every analysis starts
            // in: interned first, or the first frame made would take its id (plain gen seed
            // 3905 at 100 ops on AMD: a loop run recorded with its induction variable pinned
            // to the first trip's slot was replayed in later trips, and the places resolved
            // under it reused, so the wait before a write into that slot was left out).
            frame_id: 0,
            frame_ids: HashMap::from_iter([((Vec::new(), Vec::new()), 0)]),
            pins: Vec::new(),
            pinned: HashMap::default(),
            frame_steps: HashMap::default(),
            parity: Vec::new(),
            residues: Arc::default(),
            framed: HashMap::default(),
            pre: Arc::default(),
            post: Arc::default(),
            loop_up: Arc::default(),
            cfg_order: Vec::new(),
            need_log: Vec::new(),
            unpub_log: Vec::new(),
            memo: HashMap::default(),
            memo_hits: 0,
            memo_entries: 0,
            log_full: false,
            conflict_misses: 0,
            recent: Box::new([None; RECENT]),
            memo_on: true,
        };
        let Prep {
            pre,
            post,
            loop_up,
            cond_ivs,
            parity,
            if_loops,
            iv_mod,
            residues,
        } = prep;
        a.pre = pre.into();
        a.post = post.into();
        a.loop_up = loop_up.into();
        a.cond_ivs = cond_ivs;
        a.parity = parity;
        a.iv_mod = iv_mod;
        a.residues = Arc::new(residues);
        a.if_loops = if_loops;
        // Ops in the kernel's tree, by id (the order places are interned in).
        let mut reached = vec![false; k.stmts.len()];
        k.walk(&mut |s, d| {
            if matches!(d.kind, StmtKind::Op(_)) {
                reached[s.index()] = true;
            }
        });
        let mut infos: Vec<Option<OpInfo>> = vec![None; k.stmts.len()];
        let mut raws: Vec<Vec<u16>> = vec![Vec::new(); k.stmts.len()];
        // Per memory value: whether it is in workgroup memory (0: not known yet, 1: yes, 2:
        // no), and the interned place of the whole value (most effects name one).
        let mut wg: Vec<u8> = vec![0; k.values.len()];
        let mut whole: Vec<u32> = vec![u32::MAX; k.values.len()];
        for (s, d) in k.stmts.iter() {
            let StmtKind::Op(op) = &d.kind else {
                continue;
            };
            if !reached[s.index()] {
                continue;
            }
            let counter = op
                .asynchronous
                .and_then(|spec| target.async_counter(spec, &op.name))
                .filter(|c| target.counter_max(*c).is_some());
            let mut effects = Vec::new();
            let mut raw = Vec::new();
            for (ei, e) in op.effects.iter().enumerate() {
                let v = e.mem.value;
                if wg[v.index()] == 0 {
                    let yes = k.values[v].kind.is_memory() && crate::place::is_workgroup(k, v);
                    wg[v.index()] = if yes { 1 } else { 2 };
                }
                if wg[v.index()] != 1 || ei > u16::MAX as usize {
                    continue;
                }
                let id = match (&e.mem.sel, whole[v.index()]) {
                    (syncopt_ir::Selector::Whole, id) if id != u32::MAX => id,
                    (sel, _) => {
                        let p = mem.effect_place(k, v, sel);
                        let id = a.intern(p);
                        if matches!(sel, syncopt_ir::Selector::Whole) {
                            whole[v.index()] = id;
                        }
                        id
                    }
                };
                effects.push((e.kind, id));
                raw.push(ei as u16);
            }
            infos[s.index()] = Some(OpInfo { effects, counter });
            raws[s.index()] = raw;
        }
        a.raw = raws;
        a.ops = Arc::new(infos);
        let mut quiet = vec![false; k.stmts.len()];
        quiet_block(k, k.body, &a.ops, &mut quiet);
        a.quiet = quiet;
        a
    }

    /// Conflicts computed (not found in the cache).
    pub fn conflicts_computed(&self) -> u64 {
        self.conflict_misses
    }

    fn op_info(&self, s: StmtId) -> Option<&OpInfo> {
        self.ops.get(s.index()).and_then(|o| o.as_ref())
    }

    fn intern(&mut self, p: Place) -> u32 {
        if let Some(&i) = self.place_ids.get(&p) {
            return i;
        }
        let i = self.places.len() as u32;
        self.places.push(p.clone());
        self.place_ids.insert(p, i);
        i
    }

    fn conflict(&mut self, a: u32, b: u32) -> Conflict {
        // A small direct-mapped table in front of the map: most lookups repeat a recent pair.
        let slot = ((a.wrapping_mul(0x9e37_79b9) ^ b.wrapping_mul(0x85eb_ca6b)) >> 20) as usize
            & (RECENT - 1);
        if let Some((x, y, c)) = self.recent[slot] {
            if x == a && y == b {
                return c;
            }
        }
        if let Some(&c) = self.conflicts.get(&(a, b)) {
            self.recent[slot] = Some((a, b, c));
            return c;
        }
        self.conflict_misses += 1;
        let c = self
            .mem
            .overlap_k(self.k, &self.places[a as usize], &self.places[b as usize]);
        self.conflicts.insert((a, b), c);
        self.recent[slot] = Some((a, b, c));
        c
    }

    fn cap(&self, c: Counter) -> i32 {
        self.target.counter_max(c).map_or(64, |m| m as i32 + 1)
    }

    /// Runs the analysis over the top-level statements `seg` entered in state `st` under
    /// `config`; returns the state after them. Demands and unpublished pairs are those of
    /// `seg` alone.
    pub fn run_seq(&mut self, config: Config, seg: &[StmtId], mut st: State) -> State {
        self.runs += 1;
        self.config = config;
        self.cfg_order = self
            .config
            .keys()
            .map(|&site| {
                (
                    self.pre.get(site.index()).copied().unwrap_or(u32::MAX),
                    site,
                )
            })
            .collect();
        self.cfg_order.sort_unstable();
        self.needs.clear();
        self.unpublished.clear();
        self.need_log.clear();
        self.unpub_log.clear();
        self.log_full = false;
        self.evals = 0;
        self.env.clear();
        for &s in seg {
            st = self.stmt(s, st);
        }
        st
    }

    fn block(&mut self, b: BlockId, mut st: State) -> State {
        let k = self.k;
        for &s in &k.blocks[b].stmts {
            self.max_state = self.max_state.max(st.len());
            st = self.stmt(s, st);
        }
        st
    }

    fn stmt(&mut self, s: StmtId, mut st: State) -> State {
        self.visits += 1;
        if st.is_empty() && self.quiet.get(s.index()).copied().unwrap_or(false) {
            return st;
        }
        let k = self.k;
        match &k.stmts[s].kind {
            StmtKind::Op(_) => {
                self.consume(s, &st);
                self.apply_site(s, &mut st, None);
                self.issue(s, &mut st);
                st
            }
            StmtKind::Sync(op) => {
                match op {
                    SyncOp::CounterWait { counter, n } => {
                        wait(&mut st, *counter, *n as i32, self.nest())
                    }
                    SyncOp::CpAsyncWait { n } => {
                        wait(&mut st, Counter::CpAsync, *n as i32, self.nest())
                    }
                    SyncOp::CpAsyncCommit => commit(&mut st, self.cap(Counter::CpAsync)),
                    SyncOp::Barrier { .. } => self.apply_site(s, &mut st, Some(MONOLITHIC)),
                    SyncOp::Signal { id } => self.apply_site(s, &mut st, Some(*id)),
                    SyncOp::Wait { id } => arrive_wait(&mut st, *id),
                    _ => {}
                }
                st
            }
            StmtKind::If(i) => {
                let (t, e) = (i.then_block, i.else_block);
                let known = self
                    .decide(&i.cond)
                    .or_else(|| self.facts.iter().find(|f| f.0 == i.cond).map(|f| f.1));
                // The branch's handle values (see `parity_frame`), unless empty or framed
                // already (a loop run exactly).
                let parity = |a: &Self, v: bool| match a.parity.get(s.index()) {
                    Some(Some(p)) => {
                        let br = usize::from(!v);
                        let fr = &p[br];
                        (!fr.is_empty() && !fr.iter().any(|x| a.frame.iter().any(|f| f.0 == x.0)))
                            .then_some((s, br))
                    }
                    _ => None,
                };
                // A decided branch guards what it issues as the join does (`tag_branch`: the
                // other branch passes the entry state on), so consumers through the `if`'s
                // results see this branch's yields (the barrier pass's `Key::br` does too).
                let guarded = known.is_some() && self.if_loops.contains_key(&s);
                match known {
                    Some(true) => {
                        let fr = parity(self, true);
                        let entry = guarded.then(|| st.clone());
                        let mut out = self.block_framed(t, st, fr);
                        if let Some(entry) = entry {
                            tag_branch(&mut out, &entry, (s, 0));
                        }
                        return out;
                    }
                    Some(false) => {
                        return match e {
                            Some(e) => {
                                let fr = parity(self, false);
                                let entry = guarded.then(|| st.clone());
                                let mut out = self.block_framed(e, st, fr);
                                if let Some(entry) = entry {
                                    tag_branch(&mut out, &entry, (s, 1));
                                }
                                out
                            }
                            None => st,
                        }
                    }
                    None => {}
                }
                let fact = i.uniformity == syncopt_ir::Uniformity::Uniform
                    && self.residue_decided(&i.cond);
                if fact {
                    self.facts.push((i.cond.clone(), true));
                }
                let fr = parity(self, true);
                let mut then = st.clone();
                self.enter_residue(s, 0, &mut then);
                let mut out = self.block_framed(t, then, fr);
                if fact {
                    if let Some(f) = self.facts.last_mut() {
                        f.1 = false;
                    }
                }
                let mut st = st;
                self.enter_residue(s, 1, &mut st);
                let mut other = match e {
                    Some(e) => {
                        let fr = parity(self, false);
                        self.block_framed(e, st, fr)
                    }
                    None => st,
                };
                if fact {
                    self.facts.pop();
                }
                if self.if_loops.contains_key(&s) {
                    let o2 = other.clone();
                    tag_branch(&mut other, &out, (s, 1));
                    tag_branch(&mut out, &o2, (s, 0));
                }
                join_state(&mut out, &other, self.nest());
                out
            }
            StmtKind::For(f) => {
                let t = f.trips();
                let trips = match self.mem.exact_trips(s) {
                    Some(n) => syncopt_ir::Trips {
                        min: n,
                        max: Some(n),
                    },
                    None => syncopt_ir::Trips {
                        min: self.mem.min_trips(t.min),
                        max: None,
                    },
                };
                let body = f.body;
                // Pin the induction variable per iteration when conditions read it and the
                // loop is unrolled exactly.
                let pin = match (f.lo, trips.max) {
                    (syncopt_ir::Bound::Const(lo), Some(n))
                        if n == trips.min && self.cond_ivs.contains(&f.iv) =>
                    {
                        Some((f.iv, lo, f.step))
                    }
                    _ => None,
                };
                // Small loops cost less to evaluate than to remember.
                let memo = self.memo_on && self.post[s.index()] - self.pre[s.index()] >= MEMO_MIN;
                if memo {
                    if let Some(out) = self.replay((s, false), &st) {
                        return out;
                    }
                }
                let (e0, n0, u0) = (self.evals, self.need_log.len(), self.unpub_log.len());
                let v0 = self.visits;
                let st0 = memo.then(|| st.clone());
                let out = self.for_loop(s, body, trips, st, pin);
                if let Some((iv, _, _)) = pin {
                    self.env.remove(&iv);
                }
                if let Some(st0) = st0 {
                    if self.visits - v0 >= MEMO_VISITS {
                        self.record((s, false), st0, &out, e0, n0, u0);
                    }
                }
                out
            }
            _ => st,
        }
    }

    /// One iteration of loop `s` (body `body`) entered in state `cur`: an iteration met before
    /// in the same context is replayed (an unrolled iteration may repeat one of an earlier
    /// analysis even when the loop's entry state differs).
    fn body(&mut self, s: StmtId, body: BlockId, cur: &State) -> State {
        let memo = self.memo_on && self.post[s.index()] - self.pre[s.index()] >= MEMO_MIN;
        if !memo {
            return self.block(body, cur.clone());
        }
        if let Some(out) = self.replay((s, true), cur) {
            return out;
        }
        let (e0, n0, u0) = (self.evals, self.need_log.len(), self.unpub_log.len());
        let v0 = self.visits;
        let out = self.block(body, cur.clone());
        if self.visits - v0 >= MEMO_VISITS {
            self.record((s, true), cur.clone(), &out, e0, n0, u0);
        }
        out
    }

    /// The waits placed inside loop `s`'s subtree.
    fn cfg_within(&self, s: StmtId) -> &[(u32, Site)] {
        let (a, b) = (self.pre[s.index()], self.post[s.index()]);
        let i = self.cfg_order.partition_point(|x| x.0 < a);
        let j = self.cfg_order.partition_point(|x| x.0 < b);
        &self.cfg_order[i..j]
    }

    /// A recorded evaluation of loop `s` in the current context, replayed: its demands and
    /// unpublished pairs are made again (in their order) and its exit state returned.
    fn replay(&mut self, key: MemoKey, st: &State) -> Option<State> {
        let runs = self.memo.get(&key)?;
        let hash = state_hash(st);
        let cfg = self.cfg_within(key.0);
        let hit = runs.iter().position(|r| {
            r.hash == hash
                && r.frame_id == self.frame_id
                && self.evals + r.evals <= EVAL_BUDGET
                && r.cfg.len() == cfg.len()
                && r.cfg
                    .iter()
                    .zip(cfg)
                    .all(|(x, y)| x.0 == y.1 && self.config.get(&y.1) == Some(&x.1))
                && r.env == self.env
                && r.facts == self.facts
                && &r.st == st
        })?;
        let runs = self.memo.remove(&key)?;
        let r = &runs[hit];
        self.memo_hits += 1;
        self.evals += r.evals;
        for &(site, counter, c, copy, consumer) in &r.needs {
            self.need(site, counter, c, copy, consumer);
        }
        for &(c, x, reach, done) in &r.unpub {
            self.unpub(c, x, reach, done);
        }
        let out = r.out.clone();
        self.memo.insert(key, runs);
        Some(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn record(&mut self, key: MemoKey, st: State, out: &State, e0: u64, n0: usize, u0: usize) {
        // An evaluation that crossed the unrolling budget behaves differently past it; one
        // whose demands were not all logged cannot be replayed.
        if self.evals > EVAL_BUDGET || self.log_full {
            return;
        }
        let cfg = self
            .cfg_within(key.0)
            .iter()
            .map(|&(_, site)| (site, self.config[&site].clone()))
            .collect();
        let run = LoopRun {
            hash: state_hash(&st),
            st,
            env: self.env.clone(),
            facts: self.facts.clone(),
            frame_id: self.frame_id,
            cfg,
            out: out.clone(),
            needs: self.need_log[n0..].to_vec(),
            unpub: self.unpub_log[u0..].to_vec(),
            evals: self.evals - e0,
        };
        // A kernel with no barrier is one long segment: bound what is kept (dropping records
        // only costs re-evaluations).
        let size = run.st.len() + run.out.len() + run.needs.len() + run.unpub.len() + 1;
        self.memo_entries += size;
        if self.memo_entries > MEMO_ENTRIES_MAX {
            self.memo.clear();
            self.memo_entries = size;
        }
        let runs = self.memo.entry(key).or_default();
        if runs.len() >= MEMO_PER_LOOP {
            runs.remove(0);
        }
        runs.push(run);
    }

    /// Forgets the recorded loop evaluations (a new segment enters other loops), and the
    /// caches of the last segment's places: a segment's places rarely recur in later ones,
    /// and small tables stay in cache.
    pub fn clear_memo(&mut self) {
        self.memo.clear();
        self.memo_entries = 0;
        if self.conflicts.len() > CACHE_KEEP {
            self.conflicts.clear();
        }
        if self.back_cache.len() + self.exit_cache.len() + self.enter_cache.len() > CACHE_KEEP {
            self.back_cache.clear();
            self.exit_cache.clear();
            self.enter_cache.clear();
        }
    }

    /// Whether the verifier decides condition `c` on every path from the residues of the
    /// induction variables it reads.
    fn residue_decided(&self, c: &syncopt_ir::Cond) -> bool {
        let Some(m) = c.modulo.filter(|&m| m > 0) else {
            return false;
        };
        !c.expr.terms.is_empty()
            && c.expr.terms.iter().all(|&(v, _)| match v {
                syncopt_ir::Var::Value(v) => {
                    self.iv_mod.get(&v).is_some_and(|&l| l % m as u64 == 0)
                }
                _ => false,
            })
    }

    /// Whether condition `c` is decided by the pinned induction variables.
    fn decide(&self, c: &syncopt_ir::Cond) -> Option<bool> {
        if c.modulo.is_some_and(|m| m == 0) {
            return None;
        }
        let mut ok = true;
        let r = c.eval(|v| match v {
            syncopt_ir::Var::Value(v) => self.env.get(&v).copied().unwrap_or_else(|| {
                ok = false;
                0
            }),
            _ => {
                ok = false;
                0
            }
        });
        ok.then_some(r)
    }

    fn for_loop(
        &mut self,
        s: StmtId,
        body: BlockId,
        trips: syncopt_ir::Trips,
        s0: State,
        mut pin: Option<(syncopt_ir::ValueId, i64, i64)>,
    ) -> State {
        if trips.max == Some(0) {
            return s0;
        }
        let back = trips.max.is_none_or(|m| m >= 2);
        let mut m = trips.min;
        let mut perm = self.frame_perm(s, trips);
        if self.evals > EVAL_BUDGET {
            m = m.min(1);
            pin = None;
            perm = None;
        }
        let inits: Vec<(syncopt_ir::ValueId, syncopt_ir::ValueId)> = match &self.k.stmts[s].kind {
            StmtKind::For(f) => f.iter_args.clone(),
            _ => Vec::new(),
        };
        let depth = self.frame.len();
        let mut exits: Option<State> = if trips.min == 0 {
            Some(s0.clone())
        } else {
            None
        };
        let mut cur = self.enter(s, &s0);
        // The first iteration is run on its own, with the induction variable pinned, when
        // copies in flight at the entry may meet a slot it picks; the later ones start from
        // its back edge (the entry state does not reach them).
        let first = if cur.is_empty() || self.evals > EVAL_BUDGET {
            None
        } else {
            self.mem.first_iv(self.k, s)
        };
        let mut k: u64 = 1;
        loop {
            self.evals += 1;
            // In an iteration run exactly every place is fixed by the variable's value: those
            // of copies from earlier iterations too, which the back edge re-expressed in it
            // (`Memory::across_back_edge`). Without this the places of an iteration were fixed
            // only when copies were in flight at the loop's entry (`first`), so inserting
            // into the pass's own output, whose waits leave none, added waits.
            let mut valued = false;
            match pin {
                Some((iv, lo, step)) if k <= m => {
                    let v = lo.wrapping_add(((k - 1) as i64).wrapping_mul(step));
                    self.env.insert(iv, v);
                    self.pins.push((iv, v));
                    self.set_frame_id();
                    valued = true;
                }
                Some((iv, _, _)) => {
                    self.env.remove(&iv);
                }
                None => {}
            }
            let framed = match &perm {
                Some(p) if k <= m => {
                    // Handle j in iteration k is the init of perm^(k-1)(j).
                    for (j, &(arg, _)) in inits.iter().enumerate() {
                        let mut x = j;
                        for _ in 1..k {
                            x = p[x];
                        }
                        self.frame.push((arg, inits[x].1));
                    }
                    self.set_frame_id();
                    true
                }
                _ => false,
            };
            let pinned = k == 1 && first.is_some();
            let unpinned = self.frame_id;
            if let (true, Some(x)) = (pinned, first) {
                self.pins.push(x);
                self.set_frame_id();
            }
            let raw = self.body(s, body, &cur);
            if pinned {
                self.pins.pop();
                self.frame_id = unpinned;
            }
            if valued {
                self.pins.pop();
                self.set_frame_id();
            }
            if framed {
                self.frame.truncate(depth);
                self.set_frame_id();
            }
            if k >= m {
                let ex = self.exit(s, &raw);
                join_opt(&mut exits, &ex, self.nest());
            }
            if !back || trips.max.is_some_and(|x| k >= x) {
                break;
            }
            // Past the exactly unrolled iterations `raw` is not needed after the back edge: it
            // is rekeyed in place.
            let (next, raw) = if k >= m {
                (self.rekey_owned(raw, s, false), None)
            } else {
                (self.back_edge(s, &raw), Some(raw))
            };
            let join = match raw {
                _ if pinned => false,
                None => true,
                Some(raw) if (next == cur && pin.is_none() && perm.is_none()) || k >= MAX_EXACT => {
                    // Every later iteration repeats this one (or the budget ran out: from here
                    // on join instead, which only lowers counts).
                    let ex = self.exit(s, &raw);
                    join_opt(&mut exits, &ex, self.nest());
                    m = k;
                    true
                }
                Some(_) => false,
            };
            if join {
                let mut j = cur.clone();
                join_state(&mut j, &next, self.nest());
                if j == cur {
                    break;
                }
                cur = j;
            } else {
                cur = next;
            }
            k += 1;
            if k > MAX_EXACT + 8 {
                // Cannot happen with finitely many places, but never spin: widen every place
                // to its root buffers (closed under the back edge) and finish the fixpoint.
                cur = self.widen(&cur);
                m = k;
            }
        }
        exits.unwrap_or_default()
    }

    /// Branch `br` of `if` `s` runs in one residue of a loop's iteration (`Residues`): the
    /// barrier-free paths of a copy that ran in a known residue of that loop and reach here in
    /// another are not paths (the copy's iteration, or the next one, across one back edge of
    /// the loop), as the barrier pass's `Key::res` does not follow them either.
    fn enter_residue(&self, s: StmtId, br: usize, st: &mut State) {
        let Some(Some(b)) = self.residues.branch.get(s.index()) else {
            return;
        };
        let r = b.r[br];
        if r == NO_RES {
            return;
        }
        let nest = self.nest();
        let inside = |x: StmtId, l: StmtId| nest.inside(x, l);
        let whole = |srcs: &Srcs| !matches!(srcs, Srcs::Many(v) if v.len() >= SRCS_MAX);
        // Every copy of `srcs` lies outside the loop and no path crossed its back edge since
        // it entered it (`Reach::later`): its first iteration, residue 0.
        let entered = |srcs: &Srcs, reach: &Reach| {
            whole(srcs)
                && srcs.iter().next().is_some()
                && srcs.iter().all(|&c| !inside(c, b.lp))
                && self
                    .residues
                    .depth
                    .get(b.lp.index())
                    .is_some_and(|&d| d < 64 && reach.crossed & (1 << d) == 0)
        };
        // The residue every copy of `srcs` ran in, when it is one of loop `b.lp`.
        let residue = |srcs: &Srcs| {
            if !whole(srcs) {
                return None;
            }
            let mut out = None;
            for &c in srcs.iter() {
                match self.residues.op.get(c.index()).copied().flatten() {
                    Some((lp, rc, _)) if lp == b.lp && out.is_none_or(|o| o == rc) => {
                        out = Some(rc)
                    }
                    _ => return None,
                }
            }
            out
        };
        let narrow = |reach: Reach, rc: Option<u8>, inner: bool| {
            let same = reach.same && rc.is_none_or(|rc| rc == r);
            // Left the loop and back inside it with no back edge of it crossed since: its
            // first iteration, residue 0.
            let first_run = reach.past == Some(b.lp) && !reach.again;
            let carried = match reach.carried {
                Carried::No => Carried::No,
                _ if first_run && r != 0 => Carried::No,
                Carried::One(m) if m == b.lp && rc.is_some_and(|rc| (rc + 1) % b.q != r) => {
                    Carried::No
                }
                Carried::One(m) | Carried::Loop(m) | Carried::Exit(m)
                    if inside(m, b.lp) && rc.is_some_and(|rc| rc != r) =>
                {
                    Carried::No
                }
                Carried::Within(m)
                    if (m == b.lp || inside(m, b.lp)) && rc.is_some_and(|rc| rc != r) =>
                {
                    Carried::No
                }
                c => c,
            };
            if !same && carried == Carried::No {
                return None;
            }
            let kept = carried != Carried::No;
            Some(Reach {
                same,
                carried,
                later: reach.later,
                crossed: reach.crossed,
                past: reach.past.filter(|_| kept),
                again: reach.again && kept,
                left: reach.left.filter(|_| kept),
                then_last: reach.then_last.filter(|_| kept),
                last_again: reach.last_again && kept,
                // Paths that stay in the copy's iteration: it ran in this residue (the
                // copy made in this iteration of the loop: no back edge or exit crossed).
                res: match reach.res {
                    None if inner && same && carried == Carried::No => Some((b.lp, r, b.q)),
                    x => x,
                },
            })
        };
        let narrow = |reach: Reach, srcs: &Srcs| {
            if r != 0 && entered(srcs, &reach) {
                return None;
            }
            // Every copy inside the loop, reached in its own iteration (`narrow`).
            let inner = whole(srcs)
                && srcs.iter().next().is_some()
                && srcs.iter().all(|&c| inside(c, b.lp));
            narrow(reach, residue(srcs), inner)
        };
        for e in st.values_mut() {
            if let Some(l) = &mut e.live {
                if l.free {
                    match narrow(l.reach, &l.srcs) {
                        Some(x) => l.reach = x,
                        None => {
                            l.free = false;
                            l.reach = Reach::NONE;
                            l.srcs = Srcs::Zero;
                        }
                    }
                }
            }
            if let Some(u) = &mut e.unpub {
                match narrow(u.0, &u.1) {
                    Some(x) => u.0 = x,
                    None => e.unpub = None,
                }
            }
        }
    }

    /// `r` across loop `lp`'s back edge (or exit): unchanged when `lp` lies around none of
    /// the copies `srcs` (their loops stay in their iterations).
    fn cross_reach(&self, mut r: Reach, srcs: &Srcs, lp: StmtId, exit: bool) -> Reach {
        let nest = self.nest();
        let inside = |x: StmtId, l: StmtId| nest.inside(x, l);
        if exit {
            if r.later.is_some_and(|l| l.1 == lp) {
                r.later = None;
            }
        } else if srcs.iter().any(|&c| !inside(c, lp)) {
            // Every loop recorded lies around this point, as `lp` does: the outer one stays.
            let me = (self.pre[lp.index()], lp);
            r.later = Some(r.later.map_or(me, |l| l.min(me)));
        }
        if !exit && r.past == Some(lp) {
            r.again = true;
        }
        if !exit && r.then_last == Some(lp) {
            r.last_again = true;
        }
        if let Some(&d) = self.residues.depth.get(lp.index()).filter(|&&d| d < 64) {
            if exit {
                r.crossed &= !(1 << d);
            } else {
                r.crossed |= 1 << d;
            }
        }
        if !r.same && matches!(r.carried, Carried::No | Carried::Many) {
            return r;
        }
        if !srcs.iter().any(|&c| inside(c, lp)) {
            return r;
        }
        r.cross(lp, exit, self.nest())
    }

    fn rekey(&mut self, st: &State, lp: StmtId, exit: bool) -> State {
        self.rekey_owned(st.clone(), lp, exit)
    }

    fn rekey_owned(&mut self, st: State, lp: StmtId, exit: bool) -> State {
        if st.is_empty() {
            return State::new();
        }
        let mut out = Vec::with_capacity(st.len());
        for ((c, p, kind), mut e) in st.v {
            self.drop_guards(&mut e, lp);
            if let Some(l) = &mut e.live {
                l.reach = self.cross_reach(l.reach, &l.srcs, lp, exit);
            }
            if let Some(u) = &mut e.unpub {
                u.0 = self.cross_reach(u.0, &u.1, lp, exit);
            }
            let cache = if exit {
                &self.exit_cache
            } else {
                &self.back_cache
            };
            let np = match cache.get(&(lp, p)) {
                Some(&np) => np,
                None => {
                    let place = &self.places[p as usize];
                    let q = if exit {
                        self.mem.out_of_loop(self.k, lp, place)
                    } else {
                        self.mem.across_back_edge(self.k, lp, place)
                    };
                    let np = self.intern(q);
                    if exit {
                        self.exit_cache.insert((lp, p), np);
                    } else {
                        self.back_cache.insert((lp, p), np);
                    }
                    np
                }
            };
            out.push(((c, np, kind), e));
        }
        State::from_unsorted(out, self.nest())
    }

    /// Copies in flight into exactly the buffer a handle starts with are re-expressed through
    /// that handle, so the first iteration sees which handle they are.
    fn enter(&mut self, lp: StmtId, st: &State) -> State {
        if st.is_empty() {
            return State::new();
        }
        let mut v = Vec::with_capacity(st.len());
        for &((c, p, kind), ref e) in &st.v {
            let np = match self.enter_cache.get(&(lp, p)) {
                Some(&np) => np,
                None => {
                    let np = self.enter_place(lp, p);
                    self.enter_cache.insert((lp, p), np);
                    np
                }
            };
            v.push(((c, np, kind), e.clone()));
        }
        State::from_unsorted(v, self.nest())
    }

    fn enter_place(&mut self, lp: StmtId, p: u32) -> u32 {
        let q = self.enter_place_via(lp, p);
        // The handles whose inits these bytes do not touch are apart from them in the first
        // iteration.
        let StmtKind::For(f) = &self.k.stmts[lp].kind else {
            return q;
        };
        let orig = self.places[p as usize].clone();
        let mut apart = Vec::new();
        for &(arg, init) in &f.iter_args {
            let ip = self.mem.value_place(self.k, init);
            // Only where it says something: the handle may name these bytes by its roots.
            let hp = self.mem.value_place(self.k, arg);
            if self.mem.overlap_k(self.k, &orig, &ip) == Conflict::None
                && self.mem.overlap_k(self.k, &orig, &hp) != Conflict::None
            {
                apart.push(arg);
            }
        }
        if apart.is_empty() {
            return q;
        }
        let mut place = self.places[q as usize].clone();
        place.apart.extend(apart);
        place.apart.sort();
        place.apart.dedup();
        self.intern(place)
    }

    fn enter_place_via(&mut self, lp: StmtId, p: u32) -> u32 {
        let StmtKind::For(f) = &self.k.stmts[lp].kind else {
            return p;
        };
        let mut hit: Option<u32> = None;
        let mut seen = 0;
        for &(arg, init) in &f.iter_args {
            let q = self.mem.value_place(self.k, init);
            let pid = self.intern(q);
            if pid == p {
                let h = self.mem.value_place(self.k, arg);
                hit = Some(self.intern(h));
                seen += 1;
            }
        }
        match hit {
            Some(h) if seen == 1 => {
                let mut q = self.places[p as usize].clone();
                q.via = Some(Box::new(self.places[h as usize].clone()));
                self.intern(q)
            }
            None => match self.enter_within(lp, p) {
                Some(q) => self.intern(q),
                None => {
                    let q = self.mem.entering_loop(self.k, lp, &self.places[p as usize]);
                    self.intern(q)
                }
            },
            _ => {
                let q = self.mem.entering_loop(self.k, lp, &self.places[p as usize]);
                self.intern(q)
            }
        }
    }

    /// A copy into bytes inside exactly one handle's init (and overlapping no other init) is
    /// seen through that handle too, at the same offset: `T %A[0:1024]` before
    /// `for iter(%cur = %A, %nxt = %B)` is `%cur[0:1024]` in the first iteration.
    fn enter_within(&mut self, lp: StmtId, p: u32) -> Option<Place> {
        let StmtKind::For(f) = &self.k.stmts[lp].kind else {
            return None;
        };
        let place = &self.places[p as usize];
        let (crate::place::Base::Root(r), crate::place::Region::Range(x, y), None) =
            (&place.base, &place.region, &place.via)
        else {
            return None;
        };
        let (r, x, y) = (*r, *x, *y);
        if y == u64::MAX || x >= y || self.mem.aliased(r) {
            return None;
        }
        let mut hit: Option<(syncopt_ir::ValueId, u64)> = None;
        for &(arg, init) in &f.iter_args {
            let q = self.mem.value_place(self.k, init);
            if self.mem.overlap(place, &q) == Conflict::None {
                continue;
            }
            match (&q.base, &q.region, hit) {
                (crate::place::Base::Root(b), crate::place::Region::Range(a, e), None)
                    if *b == r && *a <= x && y <= *e && q.via.is_none() =>
                {
                    hit = Some((arg, *a));
                }
                _ => return None,
            }
        }
        let (arg, a) = hit?;
        let mut q = place.clone();
        q.via = Some(Box::new(Place {
            base: crate::place::Base::Handle(arg),
            region: crate::place::Region::Range(x - a, y - a),
            via: None,
            apart: Vec::new(),
        }));
        Some(q)
    }

    fn widen(&mut self, st: &State) -> State {
        let mut out = State::new();
        for (&(c, p, kind), e) in st {
            let q = self.mem.degrade(&self.places[p as usize]);
            let np = self.intern(q);
            match out.get_mut(&(c, np, kind)) {
                Some(x) => x.join(e, self.nest()),
                None => {
                    out.insert((c, np, kind), e.clone());
                }
            }
        }
        out
    }

    /// Guards on `if`s inside loop `lp` name a branch of this iteration only.
    fn drop_guards(&self, e: &mut Entry, lp: StmtId) {
        let inside = |g: Guard| {
            g.is_some_and(|(s, _)| self.if_loops.get(&s).is_some_and(|l| l.contains(&lp)))
        };
        if let Some(l) = &mut e.live {
            if inside(l.guard) {
                l.guard = None;
            }
        }
        let lists = std::iter::once(&mut e.last).chain(e.armed.values_mut());
        for list in lists {
            for x in list.iter_mut() {
                if inside(x.2) {
                    x.2 = None;
                }
            }
        }
    }

    /// The place of effect `i` of op `s` on the paths `g` names.
    fn effect_under(&mut self, s: StmtId, i: usize, g: Guard) -> u32 {
        let base = self.op_info(s).map_or(0, |o| o.effects[i].1);
        if g.is_none() {
            return base;
        }
        if let Some(&p) = self.guarded.get(&(s, i, g)) {
            return p;
        }
        let k = self.k;
        let Some(&ei) = self.raw.get(s.index()).and_then(|r| r.get(i)) else {
            return base;
        };
        let StmtKind::Op(op) = &k.stmts[s].kind else {
            return base;
        };
        let Some(e) = op.effects.get(ei as usize) else {
            return base;
        };
        let p = self.mem.effect_place_on(k, e.mem.value, &e.mem.sel, g);
        let id = self.intern(p);
        self.guarded.insert((s, i, g), id);
        id
    }

    /// The place of effect `i` of op `s` in the current frame.
    fn effect_framed(&mut self, s: StmtId, i: usize) -> u32 {
        let base = self.op_info(s).map_or(0, |o| o.effects[i].1);
        if let Some(&p) = self.framed.get(&(s, i, self.frame_id)) {
            return p;
        }
        let k = self.k;
        let Some(&ei) = self.raw.get(s.index()).and_then(|r| r.get(i)) else {
            return base;
        };
        let StmtKind::Op(op) = &k.stmts[s].kind else {
            return base;
        };
        let Some(e) = op.effects.get(ei as usize) else {
            return base;
        };
        let mut p = self
            .mem
            .effect_place_full(k, e.mem.value, &e.mem.sel, None, &self.frame);
        if !self.pins.is_empty() {
            p = crate::place::pin_place(&p, &self.pins);
        }
        let id = self.intern(p);
        self.framed.insert((s, i, self.frame_id), id);
        id
    }

    fn set_frame_id(&mut self) {
        let n = self.frame_ids.len() as u32;
        self.frame_id = *self
            .frame_ids
            .entry((self.frame.clone(), self.pins.clone()))
            .or_insert(n);
    }

    /// Place `p` of the state with the pinned induction variables fixed.
    fn pin_place(&mut self, p: u32) -> u32 {
        if let Some(&q) = self.pinned.get(&(p, self.frame_id)) {
            return q;
        }
        let q = crate::place::pin_place(&self.places[p as usize], &self.pins);
        let q = self.intern(q);
        self.pinned.insert((p, self.frame_id), q);
        q
    }

    /// The handles of the loop whose induction variable condition `c` reads, bound to the
    /// initial values they hold in every iteration where `c` has value `v`, when there is
    /// one such assignment (the iterations are one residue modulo the period of the
    /// handles' rotation; as `Accesses::bind_parity`, which the verifier confirms by tracking
    /// the residue and the handles together).
    fn parity_frame(
        k: &Kernel,
        c: &syncopt_ir::Cond,
        v: bool,
    ) -> Vec<(syncopt_ir::ValueId, syncopt_ir::ValueId)> {
        let none = Vec::new();
        let Some(m) = c.modulo.filter(|&m| m > 0 && m <= 64) else {
            return none;
        };
        let [(syncopt_ir::Var::Value(iv), _)] = c.expr.terms.as_slice() else {
            return none;
        };
        let syncopt_ir::ValueKind::Iv(lp) = k.values[*iv].kind else {
            return none;
        };
        let StmtKind::For(f) = &k.stmts[lp].kind else {
            return none;
        };
        let syncopt_ir::Bound::Const(lo) = f.lo else {
            return none;
        };
        if f.iter_args.is_empty() {
            return none;
        }
        let Some(perm) = crate::place::yield_perm(k, f) else {
            return none;
        };
        let n = perm.len();
        let mut seen = vec![false; n];
        for &x in &perm {
            if x >= n || seen[x] {
                return none;
            }
            seen[x] = true;
        }
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        // The period of the rotation: the lcm of its cycles' lengths.
        let mut q: u64 = 1;
        for j in 0..n {
            let (mut x, mut len) = (perm[j], 1u64);
            while x != j && len <= n as u64 {
                x = perm[x];
                len += 1;
            }
            q = q / gcd(q, len) * len;
            if q > 64 {
                return none;
            }
        }
        let m = m as u64;
        let period = q / gcd(q, m) * m;
        let mut residue: Option<u64> = None;
        for it in 0..period {
            let Some(x) = (it as i64)
                .checked_mul(f.step)
                .and_then(|d| lo.checked_add(d))
            else {
                return none;
            };
            if c.eval(|_| x) == v {
                match residue {
                    None => residue = Some(it % q),
                    Some(r) if r == it % q => {}
                    Some(_) => return none,
                }
            }
        }
        let Some(r) = residue else {
            return none;
        };
        // Handle j in iteration t is the init of perm^t(j).
        (0..n)
            .map(|j| {
                let mut x = j;
                for _ in 0..r {
                    x = perm[x];
                }
                (f.iter_args[j].0, f.iter_args[x].1)
            })
            .collect()
    }

    /// Block `b` run with the handle values of branch `br.1` of `if` `br.0` (`parity`) added
    /// to the frame.
    fn block_framed(&mut self, b: BlockId, st: State, br: Option<(StmtId, usize)>) -> State {
        let Some((s, i)) = br else {
            return self.block(b, st);
        };
        let (depth, old) = (self.frame.len(), self.frame_id);
        if let Some(Some(p)) = self.parity.get(s.index()) {
            self.frame.extend_from_slice(&p[i]);
        }
        match self.frame_steps.get(&(old, s, i)) {
            Some(&id) => self.frame_id = id,
            None => {
                self.set_frame_id();
                self.frame_steps.insert((old, s, i), self.frame_id);
            }
        }
        let out = self.block(b, st);
        self.frame.truncate(depth);
        self.frame_id = old;
        out
    }

    /// For a loop run exactly (a known trip count up to 8) whose yield passes handles on:
    /// per handle, the index of the handle it is in the next iteration's frame.
    fn frame_perm(&self, lp: StmtId, trips: syncopt_ir::Trips) -> Option<Vec<usize>> {
        let StmtKind::For(f) = &self.k.stmts[lp].kind else {
            return None;
        };
        if f.iter_args.is_empty() || trips.max != Some(trips.min) || trips.min > 8 {
            return None;
        }
        crate::place::yield_perm(self.k, f)
    }

    /// The worst conflict between a copy of `kind` into place `p` and op `s`'s effects, on the
    /// paths guard `g` names.
    fn worst(&mut self, s: StmtId, info: &OpInfo, p: u32, kind: AccessKind, g: Guard) -> Conflict {
        let mut worst = Conflict::None;
        for (i, &(xk, base)) in info.effects.iter().enumerate() {
            if !kinds_conflict(kind, xk) {
                continue;
            }
            let xp = match g {
                None => base,
                g => self.effect_under(s, i, g),
            };
            let mut c = self.conflict(p, xp);
            if c != Conflict::None
                && g.is_none()
                && (!self.frame.is_empty() || !self.pins.is_empty())
            {
                // In an exactly unrolled iteration (or a branch taken in one residue of the
                // iterations) the handles are known values, and in a loop's first iteration
                // its induction variable is; every answer bounds the real overlap, so the
                // smallest one holds.
                let fp = self.effect_framed(s, i);
                if fp != xp {
                    let c2 = self.conflict(p, fp);
                    if rank(c2) < rank(c) {
                        c = c2;
                    }
                }
                if c != Conflict::None && !self.pins.is_empty() {
                    let pp = self.pin_place(p);
                    if pp != p || fp != xp {
                        let c3 = self.conflict(pp, fp);
                        if rank(c3) < rank(c) {
                            c = c3;
                        }
                    }
                }
            }
            match c {
                Conflict::CrossThread => return Conflict::CrossThread,
                // Even a later async op of the same wave on the same counter needs the wait:
                // the verifier does not take completion order as write order.
                Conflict::SameThread => worst = Conflict::SameThread,
                Conflict::None => {}
            }
        }
        worst
    }

    fn back_edge(&mut self, lp: StmtId, st: &State) -> State {
        self.rekey(st, lp, false)
    }

    fn exit(&mut self, lp: StmtId, st: &State) -> State {
        self.rekey(st, lp, true)
    }

    /// Records what op `s` needs from the copies in flight.
    fn consume(&mut self, s: StmtId, st: &State) {
        if st.is_empty() {
            return;
        }
        let ops = Arc::clone(&self.ops);
        let Some(info) = ops.get(s.index()).and_then(|o| o.as_ref()) else {
            return;
        };
        if info.effects.is_empty() {
            return;
        }
        for &((counter, p, kind), ref e) in &st.v {
            // A guard only narrows the op's places: no conflict without one, none with one.
            let w0 = self.worst(s, info, p, kind, None);
            if w0 == Conflict::None {
                continue;
            }
            let (copy, live) = (e.copy, &e.live);
            if let (Some(u), Conflict::CrossThread) = (&e.unpub, w0) {
                for &c in u.1.iter() {
                    self.unpub(c, s, u.0, true);
                }
            }
            for &(site, c, g) in e.last.iter() {
                let w = match g {
                    None => w0,
                    g => self.worst(s, info, p, kind, g),
                };
                if w == Conflict::CrossThread {
                    self.need(site, counter, c, copy, s);
                }
            }
            if let Some(l) = live {
                let worst = match l.guard {
                    None => w0,
                    g => self.worst(s, info, p, kind, g),
                };
                if worst == Conflict::SameThread || (worst != Conflict::None && l.free) {
                    self.need(s, counter, l.count, copy, s);
                }
                if worst == Conflict::CrossThread && l.free {
                    for &c in l.srcs.iter() {
                        self.unpub(c, s, l.reach, false);
                    }
                }
            }
        }
    }

    fn unpub(&mut self, copy: StmtId, consumer: StmtId, reach: Reach, completed: bool) {
        let x = (copy, consumer, reach, completed);
        // Logged even when known already: a replay may come in an analysis that has not
        // made it yet.
        self.unpublished.insert(x);
        self.log_full |= self.unpub_log.len() >= LOG_MAX;
        if !self.log_full {
            self.unpub_log.push(x);
        }
    }

    fn need(&mut self, site: Site, counter: Counter, c: i32, copy: StmtId, consumer: StmtId) {
        self.log_full |= self.need_log.len() >= LOG_MAX;
        if !self.log_full {
            self.need_log.push((site, counter, c, copy, consumer));
        }
        let n = self.needs.entry(site).or_default();
        let m = n.min.entry(counter).or_insert(c);
        *m = (*m).min(c);
        // The smallest pairs, whatever order they are found in (the second settling thread
        // finds them in another).
        if let Err(i) = n.covers.binary_search(&(copy, consumer)) {
            if i < COVERS_MAX {
                n.covers.insert(i, (copy, consumer));
                n.covers.truncate(COVERS_MAX);
            }
        }
    }

    /// Applies the inserted waits of `site`; at a barrier (or signal) of id `barrier` also arms
    /// the copies in flight for that id.
    fn apply_site(&mut self, site: Site, st: &mut State, barrier: Option<i32>) {
        let cfg = self.config.get(&site);
        if let Some(c) = cfg {
            if c.commit {
                commit(st, self.cap(Counter::CpAsync));
            }
        }
        if barrier == Some(MONOLITHIC) {
            // Arms and publishes at once: what is in flight here (before this site's waits)
            // is what the barrier publishes.
            for e in st.values_mut() {
                e.last.clear();
                if let Some(l) = &mut e.live {
                    e.last.push((site, l.count, l.guard));
                    l.free = false;
                    l.reach = Reach::NONE;
                    l.srcs = Srcs::Zero;
                    l.srcs = Srcs::Zero;
                }
            }
        } else if let Some(id) = barrier {
            for e in st.values_mut() {
                // The copies the wait will publish: those in flight here, and those
                // completed with no barrier after them yet.
                let mut srcs = e.unpub.as_ref().map_or(Srcs::Zero, |u| u.1.clone());
                match &e.live {
                    Some(l) => {
                        srcs.union(&l.srcs);
                        e.armed
                            .insert(id, Lasts::One((site, l.count, l.guard)), srcs)
                    }
                    None => e.armed.insert(id, Lasts::Zero, srcs),
                }
            }
        }
        if let Some(c) = cfg {
            for (&counter, &n) in &c.waits {
                wait(st, counter, n as i32, self.nest());
            }
        }
        if barrier == Some(MONOLITHIC) {
            for e in st.values_mut() {
                e.unpub = None;
            }
            st.retain(|_, e| !e.dead());
        }
    }

    fn issue(&mut self, s: StmtId, st: &mut State) {
        let ops = Arc::clone(&self.ops);
        let Some(info) = ops.get(s.index()).and_then(|o| o.as_ref()) else {
            return;
        };
        let Some(counter) = info.counter else {
            return;
        };
        if counter != Counter::CpAsync {
            let cap = self.cap(counter);
            for (key, e) in st.iter_mut() {
                if key.0 == counter {
                    if let Some(l) = &mut e.live {
                        if l.count >= 0 {
                            l.count = (l.count + 1).min(cap);
                        }
                    }
                }
            }
        }
        let fresh = if counter == Counter::CpAsync { -1 } else { 0 };
        for &(kind, p) in &info.effects {
            let e = Entry {
                live: Some(Live {
                    count: fresh,
                    free: true,
                    reach: Reach::FRESH,
                    srcs: Srcs::One(s),
                    guard: None,
                }),
                last: Lasts::Zero,
                armed: Armed::default(),
                copy: s,
                unpub: None,
            };
            match st.get_mut(&(counter, p, kind)) {
                Some(x) => {
                    // A split barrier's signal armed what was in flight before this copy:
                    // its wait must not count this one as published (it was issued after
                    // the signal). The join marks the arming partial: the wait still
                    // publishes the older copies (their consumers in other waves ask the
                    // signal for their wait), the new one stays in flight. (Dropping the
                    // arming left the older copies to a later barrier, which the barrier
                    // pass need not place when only they conflict: seed 4651.)
                    x.join(&e, self.nest());
                }
                None => {
                    st.insert((counter, p, kind), e);
                }
            }
        }
    }
}

fn wait(st: &mut State, counter: Counter, n: i32, nest: Nest) {
    for (key, e) in st.iter_mut() {
        if key.0 == counter
            && e.live
                .as_ref()
                .is_some_and(|l| l.count >= n && l.count >= 0)
        {
            if let Some(l) = e.live.take() {
                if l.free {
                    e.unpub = Some(match e.unpub.take() {
                        None => Box::new((l.reach, l.srcs)),
                        Some(mut u) => {
                            u.1.union(&l.srcs);
                            u.0 = u.0.join(l.reach, nest);
                            u
                        }
                    });
                }
            }
        }
    }
    st.retain(|_, e| !e.dead());
}

fn commit(st: &mut State, cap: i32) {
    for (key, e) in st.iter_mut() {
        if key.0 == Counter::CpAsync {
            if let Some(l) = &mut e.live {
                l.count = (l.count + 1).min(cap);
            }
        }
    }
}

/// The id under which a monolithic barrier arms and publishes at once (no split id is this).
const MONOLITHIC: i32 = i32::MIN;

/// The wait half of a barrier of id `id`: what the matching signal (the last one of the same
/// id) armed is now published. Copies issued after that signal, or armed only under other ids,
/// are not: their publishing barrier is a later wait.
fn arrive_wait(st: &mut State, id: i32) {
    for e in st.values_mut() {
        if let Some(a) = e.armed.remove(id) {
            e.last = a.lasts;
            if a.partial {
                // What is in flight (or completed) on the paths the signal did not arm stays
                // unpublished: its consumers in the issuing wave wait for it themselves. The
                // copies the signal armed are published (no warning names them).
                if let Some(l) = &mut e.live {
                    l.srcs.remove_all(&a.srcs);
                }
                if let Some(u) = &mut e.unpub {
                    u.1.remove_all(&a.srcs);
                    if u.1.iter().next().is_none() {
                        e.unpub = None;
                    }
                }
                continue;
            }
            e.unpub = None;
            if let Some(l) = &mut e.live {
                l.free = false;
                l.reach = Reach::NONE;
                l.srcs = Srcs::Zero;
            }
        }
    }
    st.retain(|_, e| !e.dead());
}

/// Per statement (by index): its walk-order position and the position just past its subtree.
/// The tables of an `Analysis` that need no `Memory`: the pass makes them on a second
/// thread while it builds the `Memory` (`Analysis::with_prep`).
pub struct Prep {
    pre: Vec<u32>,
    post: Vec<u32>,
    loop_up: Vec<Option<StmtId>>,
    cond_ivs: BTreeSet<syncopt_ir::ValueId>,
    parity: ParityFrames,
    if_loops: HashMap<StmtId, Vec<StmtId>>,
    iv_mod: BTreeMap<syncopt_ir::ValueId, u64>,
    residues: Residues,
}

/// Per uniform `if` on an induction variable modulo a constant: the handle values of its
/// two branches (see `Analysis::parity_frame`).
type ParityFrames = Vec<Option<Box<[Vec<(syncopt_ir::ValueId, syncopt_ir::ValueId)>; 2]>>>;

impl Prep {
    pub fn new(k: &Kernel) -> Prep {
        let (pre, post) = subtree_spans(k);
        let mut cond_ivs = BTreeSet::new();
        let mut parity: ParityFrames = vec![None; k.stmts.len()];
        k.walk(&mut |s, d| {
            let StmtKind::If(i) = &d.kind else {
                return;
            };
            for &(v, _) in &i.cond.expr.terms {
                if let syncopt_ir::Var::Value(v) = v {
                    if matches!(k.values[v].kind, syncopt_ir::ValueKind::Iv(_)) {
                        cond_ivs.insert(v);
                    }
                }
            }
            if i.uniformity == syncopt_ir::Uniformity::Uniform && i.cond.modulo.is_some() {
                let p = [
                    Analysis::parity_frame(k, &i.cond, true),
                    Analysis::parity_frame(k, &i.cond, false),
                ];
                if p.iter().any(|x| !x.is_empty()) {
                    parity[s.index()] = Some(Box::new(p));
                }
            }
        });
        let iv_mod = iv_periods(k);
        let mut if_loops = HashMap::default();
        enclosing_loops(k, k.body, &mut Vec::new(), &mut if_loops);
        Prep {
            pre,
            post,
            loop_up: crate::loop_parents(k),
            cond_ivs,
            parity,
            if_loops,
            residues: Residues::new(k, &iv_mod),
            iv_mod,
        }
    }
}

/// A uniform `if` on the variable of a loop with a constant start, modulo a constant: the
/// loop, the variable's period `q` (`iv_periods`) and, per branch, the residue of the
/// iteration number modulo `q` of every iteration that takes it (`NO_RES` when several).
#[derive(Clone, Copy, Debug)]
struct BranchRes {
    lp: StmtId,
    q: u8,
    r: [u8; 2],
}

const NO_RES: u8 = u8::MAX;

/// Where the iteration of a loop is known by its residue (the verifier tracks it, the barrier
/// pass keys what an iteration leaves by it, `Key::res`): the `if`s that tell it, and for each
/// op inside one of their branches, that loop and residue (the innermost such branch).
#[derive(Default)]
struct Residues {
    branch: Vec<Option<BranchRes>>,
    op: Vec<Option<(StmtId, u8, u8)>>,
    /// Per loop: how many loops lie around it.
    depth: Vec<u8>,
}

impl Residues {
    fn new(k: &Kernel, periods: &BTreeMap<syncopt_ir::ValueId, u64>) -> Residues {
        if periods.is_empty() {
            return Residues::default();
        }
        // The residues of the branches of `if` `i`, when it is one of those.
        let classify = |i: &syncopt_ir::IfData| -> Option<BranchRes> {
            if i.uniformity != syncopt_ir::Uniformity::Uniform {
                return None;
            }
            let sides =
                [true, false].map(|v| syncopt_analysis::hazard::iv_residue(k, &i.cond, v, periods));
            let (lp, _, q) = sides.iter().flatten().next().copied()?;
            let r = sides.map(|x| x.and_then(|x| x.1).map_or(NO_RES, |r| r as u8));
            (r != [NO_RES; 2]).then_some(BranchRes { lp, q: q as u8, r })
        };
        struct Walk<'a, F> {
            k: &'a Kernel,
            classify: F,
            out: Residues,
            any: bool,
        }
        impl<F: Fn(&syncopt_ir::IfData) -> Option<BranchRes>> Walk<'_, F> {
            fn go(&mut self, b: BlockId, at: Option<(StmtId, u8, u8)>, depth: u8) {
                let k = self.k;
                for &s in &k.blocks[b].stmts {
                    match &k.stmts[s].kind {
                        StmtKind::Op(op) => {
                            if op.asynchronous.is_some() {
                                self.out.op[s.index()] = at;
                            }
                        }
                        StmtKind::If(i) => {
                            let br = (self.classify)(i);
                            self.out.branch[s.index()] = br;
                            self.any |= br.is_some();
                            let side = |x: usize| match br {
                                Some(br) if br.r[x] != NO_RES => Some((br.lp, br.r[x], br.q)),
                                _ => at,
                            };
                            self.go(i.then_block, side(0), depth);
                            if let Some(e) = i.else_block {
                                self.go(e, side(1), depth);
                            }
                        }
                        StmtKind::For(f) => {
                            self.out.depth[s.index()] = depth;
                            self.go(f.body, at, depth.saturating_add(1));
                        }
                        kind => {
                            for c in kind.child_block_ids() {
                                self.go(c, at, depth);
                            }
                        }
                    }
                }
            }
        }
        let n = k.stmts.len();
        let mut w = Walk {
            k,
            classify,
            out: Residues {
                branch: vec![None; n],
                op: vec![None; n],
                depth: vec![u8::MAX; n],
            },
            any: false,
        };
        w.go(k.body, None, 0);
        if !w.any {
            return Residues::default();
        }
        // Only the loops some branch names keep a depth: a path's `Reach::crossed` changes at
        // no other loop (fewer distinct states to settle).
        let mut out = w.out;
        let mut named = vec![false; n];
        for br in out.branch.iter().flatten() {
            named[br.lp.index()] = true;
        }
        for (d, keep) in out.depth.iter_mut().zip(named) {
            if !keep {
                *d = u8::MAX;
            }
        }
        out
    }
}

pub(crate) fn subtree_spans(k: &Kernel) -> (Vec<u32>, Vec<u32>) {
    fn go(k: &Kernel, b: BlockId, n: &mut u32, pre: &mut [u32], post: &mut [u32]) {
        for &s in &k.blocks[b].stmts {
            pre[s.index()] = *n;
            *n += 1;
            for c in k.stmts[s].kind.child_block_ids() {
                go(k, c, n, pre, post);
            }
            post[s.index()] = *n;
        }
    }
    let mut pre = vec![u32::MAX; k.stmts.len()];
    let mut post = vec![u32::MAX; k.stmts.len()];
    let mut n = 0;
    go(k, k.body, &mut n, &mut pre, &mut post);
    (pre, post)
}

/// Marks the loops and ifs under `b` that issue no async op; returns whether `b` issues none.
fn quiet_block(k: &Kernel, b: BlockId, ops: &[Option<OpInfo>], out: &mut [bool]) -> bool {
    let mut all = true;
    for &s in &k.blocks[b].stmts {
        let q = match &k.stmts[s].kind {
            StmtKind::Op(_) => ops
                .get(s.index())
                .and_then(|o| o.as_ref())
                .is_none_or(|o| o.counter.is_none()),
            StmtKind::For(f) => quiet_block(k, f.body, ops, out),
            StmtKind::If(i) => {
                let t = quiet_block(k, i.then_block, ops, out);
                let e = i.else_block.is_none_or(|e| quiet_block(k, e, ops, out));
                t && e
            }
            _ => true,
        };
        if matches!(k.stmts[s].kind, StmtKind::For(_) | StmtKind::If(_)) {
            out[s.index()] = q;
        }
        all &= q;
    }
    all
}

/// Records, for every uniform `if` with memory results, the loops around it (innermost last).
fn enclosing_loops(
    k: &Kernel,
    b: BlockId,
    stack: &mut Vec<StmtId>,
    out: &mut HashMap<StmtId, Vec<StmtId>>,
) {
    for &s in &k.blocks[b].stmts {
        match &k.stmts[s].kind {
            StmtKind::For(f) => {
                stack.push(s);
                enclosing_loops(k, f.body, stack, out);
                stack.pop();
            }
            StmtKind::If(i) => {
                // Divergent ifs send waves down both branches at once: another wave's `%x`
                // may be the other branch's yield, so only uniform ones are tracked.
                if i.uniformity == syncopt_ir::Uniformity::Uniform
                    && i.results.iter().any(|&v| k.values[v].kind.is_memory())
                {
                    out.insert(s, stack.clone());
                }
                enclosing_loops(k, i.then_block, stack, out);
                if let Some(e) = i.else_block {
                    enclosing_loops(k, e, stack, out);
                }
            }
            _ => {}
        }
    }
}

/// Per induction variable, the residue period the verifier tracks: the lcm of the moduli it
/// appears under (slot indices, `mod` conditions), kept only while it stays up to 64.
pub(crate) fn iv_periods(k: &Kernel) -> BTreeMap<syncopt_ir::ValueId, u64> {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut out: BTreeMap<syncopt_ir::ValueId, i64> = BTreeMap::new();
    let mut note = |e: &syncopt_ir::AffineExpr, m: Option<i64>| {
        let Some(m) = m.filter(|&m| m > 0 && m <= 64) else {
            return;
        };
        for &(v, _) in &e.terms {
            if let syncopt_ir::Var::Value(v) = v {
                if matches!(k.values[v].kind, syncopt_ir::ValueKind::Iv(_)) {
                    let cur = out.get(&v).copied().unwrap_or(1);
                    let l = cur / gcd(cur, m) * m;
                    if l <= 64 {
                        out.insert(v, l);
                    }
                }
            }
        }
    };
    for view in k.views.values() {
        if let syncopt_ir::ViewKind::Slot { count, index } = &view.kind {
            note(index, Some(*count as i64));
        }
    }
    k.walk(&mut |_, d| {
        if let StmtKind::If(i) = &d.kind {
            note(&i.cond.expr, i.cond.modulo);
        }
    });
    out.into_iter().map(|(v, l)| (v, l as u64)).collect()
}

/// Conflicts from weakest to strongest.
fn rank(c: Conflict) -> u8 {
    match c {
        Conflict::None => 0,
        Conflict::SameThread => 1,
        Conflict::CrossThread => 2,
    }
}
