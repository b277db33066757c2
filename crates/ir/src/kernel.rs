//! The kernel IR (semantics.md sections 1-2): a structured region tree kept in arenas.
//!
//! Data lives in `PrimaryMap`s keyed by typed ids; the order of statements (the layout) lives
//! apart, in each block's `stmts` list, so passes insert at program points without touching
//! the statements themselves.

use crate::entity::PrimaryMap;
use crate::entity_id;
use crate::expr::{AffineExpr, Cond};
use crate::sync::SyncOp;
use crate::vocab::{AccessKind, Counter, Pipe, Space, Uniformity};

entity_id!(
    /// A named SSA-like value: buffer, view, parameter, induction variable or handle.
    ValueId,
    "v"
);
entity_id!(
    /// A statement: op, loop, if, view declaration, sync op or stage marker.
    StmtId,
    "s"
);
entity_id!(
    /// An ordered list of statements.
    BlockId,
    "b"
);
entity_id!(
    /// A buffer in some memory space.
    BufferId,
    "buf"
);
entity_id!(
    /// A byte range or loop-selected slot of a buffer, view or handle.
    ViewId,
    "view"
);

/// 1-based line and column of a token in the source file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Loc {
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A parsed file: chunks split by `// -----`, each an independent module.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub chunks: Vec<Module>,
}

/// One chunk: an optional target directive and its kernels.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The target named in this chunk (`target gfx950`), if any.
    pub target: Option<String>,
    pub target_loc: Option<Loc>,
    pub kernels: Vec<Kernel>,
    /// Comment lines before the first kernel (kept by `fmt`).
    pub comments: Vec<String>,
    /// Comment lines after the last kernel.
    pub trailing_comments: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub loc: Loc,
    /// Comment lines right before `kernel`.
    pub comments: Vec<String>,
    /// Kernel parameters: symbolic loop bounds and conditions.
    pub params: Vec<ValueId>,
    /// Waves (warps) per workgroup; `None` takes the target's default.
    pub waves: Option<u32>,
    pub values: PrimaryMap<ValueId, ValueData>,
    pub buffers: PrimaryMap<BufferId, BufferData>,
    pub views: PrimaryMap<ViewId, ViewData>,
    pub stmts: PrimaryMap<StmtId, StmtData>,
    pub blocks: PrimaryMap<BlockId, BlockData>,
    pub body: BlockId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    /// The name without its `%`.
    pub name: String,
    pub kind: ValueKind,
    pub loc: Option<Loc>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A kernel parameter, with the value `run` and `emit` use (analyses treat it as unknown).
    Param {
        default: Option<i64>,
    },
    Buffer(BufferId),
    View(ViewId),
    /// The induction variable of a `for`.
    Iv(StmtId),
    /// A loop-carried handle: the `index`-th `iter` binding of a `for`.
    IterArg {
        stmt: StmtId,
        index: usize,
    },
    /// The `index`-th result of a `for` or `if`.
    Result {
        stmt: StmtId,
        index: usize,
    },
}

impl ValueKind {
    /// Whether the value names memory (and so may appear in an effect).
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            ValueKind::Buffer(_)
                | ValueKind::View(_)
                | ValueKind::IterArg { .. }
                | ValueKind::Result { .. }
        )
    }
    /// Whether the value is an integer (usable in bounds, indices and conditions).
    pub fn is_integer(self) -> bool {
        matches!(self, ValueKind::Param { .. } | ValueKind::Iv(_))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BufferData {
    pub value: ValueId,
    /// Comment lines right before the declaration.
    pub comments: Vec<String>,
    pub space: Space,
    pub size: u64,
    pub placement: Placement,
}

/// Where a buffer sits relative to the others (allocators reuse memory).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Its own memory: aliases nothing.
    Own,
    /// May overlap the named buffer anywhere (`aliases %A`).
    Aliases(ValueId),
    /// Exactly at byte `offset` of the named buffer (`at %A + 1024`).
    At { base: ValueId, offset: u64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ViewData {
    pub value: ValueId,
    /// A buffer, view or handle.
    pub base: ValueId,
    pub kind: ViewKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ViewKind {
    /// Bytes `[lo, hi)` of the base.
    Range { lo: u64, hi: u64 },
    /// Slot `index mod count` of `count` equal slots of the base.
    Slot { count: u32, index: AffineExpr },
}

#[derive(Clone, Debug)]
pub struct StmtData {
    pub kind: StmtKind,
    pub loc: Option<Loc>,
    /// True for statements a pass added (they have no source location).
    pub inserted: bool,
    /// Comment lines right before the statement.
    pub comments: Vec<String>,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Op(OpData),
    For(ForData),
    If(IfData),
    /// A view declaration: the view is usable from here to the end of the block.
    View(ViewId),
    Sync(SyncOp),
    /// Starts a warp-pipeline stage.
    Stage(StageData),
    /// Ends a flat (straight-line) warp pipeline.
    StageEnd,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpData {
    pub name: String,
    pub effects: Vec<Effect>,
    /// `Some` for async ops (issue now, complete later); the counter may be left to the target.
    pub asynchronous: Option<AsyncSpec>,
    /// Ascend pipe override; `None` takes the target's op table.
    pub pipe: Option<Pipe>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AsyncSpec {
    pub counter: Option<Counter>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    pub kind: AccessKind,
    pub mem: MemRef,
    pub loc: Option<Loc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemRef {
    pub value: ValueId,
    pub sel: Selector,
}

/// Which part of a memory value an effect touches.
#[derive(Clone, Debug, PartialEq)]
pub enum Selector {
    /// All of it; every thread may touch every address.
    Whole,
    /// Bytes `[lo, hi)` of it; every thread may touch every address.
    Bytes { lo: u64, hi: u64 },
    /// One 4-byte word per thread at word index `expr` (affine in `tid` and loop variables):
    /// the address is owned by the thread that computes it.
    Index(AffineExpr),
}

/// A loop bound: a constant or a parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Const(i64),
    Value(ValueId),
}

#[derive(Clone, Debug)]
pub struct ForData {
    pub iv: ValueId,
    pub lo: Bound,
    pub hi: Bound,
    pub step: i64,
    /// Stated lower bound on the trip count (`min N`); zero trips are possible otherwise.
    pub min_trips: Option<u64>,
    /// Stated upper bound on the trip count (`max N`).
    pub max_trips: Option<u64>,
    /// Loop-carried handles and their initial values: `iter(%cur = %A, %nxt = %B)`.
    pub iter_args: Vec<(ValueId, ValueId)>,
    pub results: Vec<ValueId>,
    pub body: BlockId,
}

/// What is known of how many times a loop runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Trips {
    pub min: u64,
    /// `None`: unbounded / unknown.
    pub max: Option<u64>,
}

impl Trips {
    pub fn exact(self) -> Option<u64> {
        match self.max {
            Some(m) if m == self.min => Some(m),
            _ => None,
        }
    }
}

impl ForData {
    pub fn trips(&self) -> Trips {
        if let (Bound::Const(lo), Bound::Const(hi)) = (self.lo, self.hi) {
            let n = if self.step > 0 && hi > lo {
                // i128: `hi - lo` overflows i64 for extreme (parsed) bounds.
                (((hi as i128 - lo as i128) as u128).div_ceil(self.step as u128)) as u64
            } else {
                0
            };
            return Trips {
                min: n,
                max: Some(n),
            };
        }
        let min = self.min_trips.unwrap_or(0);
        Trips {
            min,
            max: self.max_trips.map(|m| m.max(min)),
        }
    }

    /// The values the induction variable takes, `[lowest, highest]`: a constant start and a
    /// known maximum trip count (with zero trips, the start alone); `None` otherwise.
    pub fn iv_range(&self) -> Option<(i128, i128)> {
        let Bound::Const(lo) = self.lo else {
            return None;
        };
        let n = self.trips().max?.max(1) as i128;
        let last = lo as i128 + self.step as i128 * (n - 1);
        Some(((lo as i128).min(last), (lo as i128).max(last)))
    }
}

#[derive(Clone, Debug)]
pub struct IfData {
    pub cond: Cond,
    pub uniformity: Uniformity,
    pub then_block: BlockId,
    pub else_block: Option<BlockId>,
    pub results: Vec<ValueId>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct StageData {
    /// `s_setprio` value for the stage, 0..=3.
    pub prio: Option<u8>,
    /// Phase gap (1 or 2) between the wave groups; only on the first stage.
    pub gap: Option<u8>,
}

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub stmts: Vec<StmtId>,
    /// Values yielded to the parent's results (or, in a loop body, to the next iteration).
    pub yields: Vec<ValueId>,
    pub yield_loc: Option<Loc>,
    /// Comment lines before the closing brace (or the `yield`).
    pub trailing_comments: Vec<String>,
    /// The statement owning this block; `None` for the kernel body.
    pub parent: Option<StmtId>,
}

/// A position between two statements of a block: before `stmts[index]`, or at the end when
/// `index == stmts.len()`. Every insertion happens at a program point.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProgramPoint {
    pub block: BlockId,
    pub index: usize,
}

impl Kernel {
    pub fn new(name: impl Into<String>, loc: Loc) -> Self {
        let mut blocks = PrimaryMap::new();
        let body = blocks.push(BlockData::default());
        Kernel {
            name: name.into(),
            loc,
            comments: Vec::new(),
            params: Vec::new(),
            waves: None,
            values: PrimaryMap::new(),
            buffers: PrimaryMap::new(),
            views: PrimaryMap::new(),
            stmts: PrimaryMap::new(),
            blocks,
            body,
        }
    }

    pub fn value_name(&self, v: ValueId) -> &str {
        &self.values[v].name
    }

    pub fn new_block(&mut self, parent: Option<StmtId>) -> BlockId {
        self.blocks.push(BlockData {
            parent,
            ..BlockData::default()
        })
    }

    /// Appends a statement to the end of `block`.
    pub fn push_stmt(&mut self, block: BlockId, kind: StmtKind, loc: Option<Loc>) -> StmtId {
        let s = self.stmts.push(StmtData {
            kind,
            loc,
            inserted: false,
            comments: Vec::new(),
        });
        self.blocks[block].stmts.push(s);
        s
    }

    /// Inserts every `(point, sync op)` pair in one pass. Points refer to the layout before
    /// the call; ops given for the same point keep their relative order.
    pub fn insert_syncs(&mut self, mut items: Vec<(ProgramPoint, SyncOp)>) -> Vec<StmtId> {
        // Stable sort keeps the caller's order among equal points.
        items.sort_by_key(|(p, _)| *p);
        let mut created = Vec::with_capacity(items.len());
        let mut i = 0;
        while i < items.len() {
            let block = items[i].0.block;
            let old = std::mem::take(&mut self.blocks[block].stmts);
            let mut new = Vec::with_capacity(old.len() + 4);
            for idx in 0..=old.len() {
                while i < items.len() && items[i].0.block == block && items[i].0.index == idx {
                    let op = items[i].1.clone();
                    let s = self.stmts.push(StmtData {
                        kind: StmtKind::Sync(op),
                        loc: None,
                        inserted: true,
                        comments: Vec::new(),
                    });
                    new.push(s);
                    created.push(s);
                    i += 1;
                }
                if idx < old.len() {
                    new.push(old[idx]);
                }
            }
            assert!(
                i >= items.len() || items[i].0.block != block,
                "program point past the end of its block"
            );
            self.blocks[block].stmts = new;
        }
        created
    }

    /// Removes `stmt` from whatever block holds it; returns whether it was found.
    pub fn remove_stmt(&mut self, stmt: StmtId) -> bool {
        for b in self.blocks.keys().collect::<Vec<_>>() {
            let stmts = &mut self.blocks[b].stmts;
            if let Some(pos) = stmts.iter().position(|&s| s == stmt) {
                stmts.remove(pos);
                return true;
            }
        }
        false
    }

    /// Calls `f` on every statement reachable from the body, in program (pre-)order.
    pub fn walk(&self, f: &mut impl FnMut(StmtId, &StmtData)) {
        self.walk_block(self.body, f);
    }

    pub fn walk_block(&self, block: BlockId, f: &mut impl FnMut(StmtId, &StmtData)) {
        for &s in &self.blocks[block].stmts {
            let data = &self.stmts[s];
            f(s, data);
            for b in data.kind.child_block_ids() {
                self.walk_block(b, f);
            }
        }
    }

    /// All inserted sync statements reachable from the body, in program order.
    pub fn inserted_syncs(&self) -> Vec<StmtId> {
        let mut out = Vec::new();
        self.walk(&mut |s, d| {
            if d.inserted && matches!(d.kind, StmtKind::Sync(_)) {
                out.push(s);
            }
        });
        out
    }

    /// Number of statements reachable from the body.
    pub fn stmt_count(&self) -> usize {
        let mut n = 0;
        self.walk(&mut |_, _| n += 1);
        n
    }

    /// Follows views and exact placements down to the root buffer: returns it with the byte
    /// offset of `v`'s start, when that is static. Handles and slot views give `None`.
    pub fn static_root(&self, v: ValueId) -> Option<(BufferId, u64)> {
        match self.values[v].kind {
            ValueKind::Buffer(b) => match self.buffers[b].placement {
                Placement::At { base, offset } => self
                    .static_root(base)
                    .map(|(r, o)| (r, o.saturating_add(offset))),
                _ => Some((b, 0)),
            },
            ValueKind::View(view) => match &self.views[view].kind {
                ViewKind::Range { lo, .. } => self
                    .static_root(self.views[view].base)
                    .map(|(r, o)| (r, o.saturating_add(*lo))),
                ViewKind::Slot { .. } => None,
            },
            _ => None,
        }
    }

    /// The index of a slot view (`view %v slot (index) mod count`) with the terms that never
    /// move the slot folded into the constant: an induction variable of a loop with a constant
    /// start whose step times the term's coefficient is a multiple of `count` names the same
    /// slot in every iteration (`(%i + 1) mod 2` with `%i = 0 to 16 step 4` is slot 1). The
    /// constant is reduced modulo `count`; the other terms stay as they are.
    pub fn slot_index(&self, index: &AffineExpr, count: u32) -> AffineExpr {
        let n = i128::from(count.max(1));
        let mut out = AffineExpr::constant(0);
        let mut c = i128::from(index.constant);
        for &(v, coef) in &index.terms {
            let start = match v {
                crate::expr::Var::Value(x) => match self.values[x].kind {
                    ValueKind::Iv(s) => match &self.stmts[s].kind {
                        StmtKind::For(f) => match f.lo {
                            Bound::Const(lo)
                                if (i128::from(coef) * i128::from(f.step)) % n == 0 =>
                            {
                                Some(lo)
                            }
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                },
                crate::expr::Var::Tid => None,
            };
            match start {
                Some(lo) => c += i128::from(coef) * i128::from(lo),
                None => out.add_term(v, coef),
            }
        }
        out.constant = c.rem_euclid(n) as i64;
        out
    }

    /// Size in bytes of a buffer or view, when static.
    pub fn static_size(&self, v: ValueId) -> Option<u64> {
        match self.values[v].kind {
            ValueKind::Buffer(b) => Some(self.buffers[b].size),
            ValueKind::View(view) => match &self.views[view].kind {
                ViewKind::Range { lo, hi } => Some(hi.saturating_sub(*lo)),
                ViewKind::Slot { count, .. } => self
                    .static_size(self.views[view].base)
                    .map(|s| s / (*count as u64).max(1)),
            },
            _ => None,
        }
    }
}

impl StmtKind {
    /// The blocks nested directly in this statement, in program order, without allocating
    /// (walks of a million-statement kernel allocated a vector per loop and `if`).
    #[inline]
    pub fn child_block_ids(&self) -> ChildBlocks {
        let (blocks, len) = match self {
            StmtKind::For(f) => ([f.body, f.body], 1),
            StmtKind::If(i) => match i.else_block {
                Some(e) => ([i.then_block, e], 2),
                None => ([i.then_block, i.then_block], 1),
            },
            _ => return ChildBlocks::default(),
        };
        ChildBlocks {
            blocks,
            next: 0,
            len,
        }
    }

    /// The blocks nested directly in this statement, in program order.
    pub fn child_blocks(&self) -> Vec<BlockId> {
        self.child_block_ids().collect()
    }
}

/// The blocks nested directly in a statement: what [`StmtKind::child_block_ids`] returns.
#[derive(Copy, Clone, Debug)]
pub struct ChildBlocks {
    blocks: [BlockId; 2],
    next: u8,
    len: u8,
}

impl Default for ChildBlocks {
    fn default() -> Self {
        ChildBlocks {
            blocks: [BlockId(0); 2],
            next: 0,
            len: 0,
        }
    }
}

impl Iterator for ChildBlocks {
    type Item = BlockId;
    #[inline]
    fn next(&mut self) -> Option<BlockId> {
        if self.next < self.len {
            self.next += 1;
            Some(self.blocks[self.next as usize - 1])
        } else {
            None
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.len - self.next) as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for ChildBlocks {}
