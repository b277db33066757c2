//! What the inserters share: the report every pass returns, the options they take, and the
//! cost model of semantics.md section 5. Hazard analysis for the inserters lives here too
//! (the verifier must not use it: it has its own model).

use syncopt_ir::{BlockId, Diagnostic, Kernel, Loc, StmtId, StmtKind};

pub mod branches;
pub mod hazard;

/// Options of `syncopt insert`, shared by every pass.
#[derive(Clone, Debug)]
pub struct InsertOptions {
    /// Use named barrier ids for independent hazard chains (gfx1250, sm_90).
    pub named_barriers: bool,
    /// Ascend: two alternating event ids for loop-carried pairs.
    pub double_buffer: bool,
    /// Ascend: event ids the inserter must not use.
    pub reserved_ids: Vec<u32>,
    /// Ascend: event ids per pipe pair (default: the target's).
    pub flag_ids: Option<u32>,
}

impl Default for InsertOptions {
    fn default() -> Self {
        InsertOptions {
            named_barriers: false,
            double_buffer: true,
            reserved_ids: Vec::new(),
            flag_ids: None,
        }
    }
}

/// One hazard an inserted op covers, for `--explain`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Covered {
    /// "RAW", "WAR", "WAW", or a pass-specific kind ("async", "stage").
    pub kind: String,
    pub from: Option<Loc>,
    pub to: Option<Loc>,
}

/// Why one inserted statement is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explain {
    pub stmt: StmtId,
    pub covers: Vec<Covered>,
}

/// What a pass did.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    /// Errors (the kernel cannot be synchronized as written) and warnings (fallbacks taken).
    pub diagnostics: Vec<Diagnostic>,
    /// Hazards the pass found.
    pub hazards: usize,
    pub explain: Vec<Explain>,
}

impl PassReport {
    pub fn merge(&mut self, other: PassReport) {
        self.diagnostics.extend(other.diagnostics);
        self.hazards += other.hazards;
        self.explain.extend(other.explain);
    }
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Weight of an unknown trip count (semantics.md section 5).
pub const UNKNOWN_TRIPS: u64 = 16;

/// How many times one execution of the kernel runs a statement of `block`: the product of the
/// trip counts of the enclosing loops (known counts as is, bounded or unknown ones as 16).
/// Branches of an `if` weigh like the code around them.
pub fn block_weight(kernel: &Kernel, block: BlockId) -> u64 {
    let mut w: u64 = 1;
    let mut b = block;
    while let Some(parent) = kernel.blocks[b].parent {
        if let StmtKind::For(f) = &kernel.stmts[parent].kind {
            let t = f.trips().exact().unwrap_or(UNKNOWN_TRIPS);
            w = w.saturating_mul(t);
        }
        b = match find_block_of(kernel, parent) {
            Some(pb) => pb,
            None => break,
        };
    }
    w
}

/// The block whose statement list holds `stmt`.
pub fn find_block_of(kernel: &Kernel, stmt: StmtId) -> Option<BlockId> {
    kernel
        .blocks
        .iter()
        .find(|(_, b)| b.stmts.contains(&stmt))
        .map(|(id, _)| id)
}

/// Static and dynamic (trip-weighted) counts of the inserted sync ops.
pub fn inserted_cost(kernel: &Kernel) -> (usize, u64) {
    let mut owner = vec![None; kernel.stmts.len()];
    for (b, data) in kernel.blocks.iter() {
        for &s in &data.stmts {
            owner[syncopt_ir::EntityRef::index(s)] = Some(b);
        }
    }
    // Linear: one weight table instead of a block search per inserted op.
    let weights = block_weights(kernel);
    let mut stat = 0;
    let mut dynamic = 0u64;
    for s in kernel.inserted_syncs() {
        stat += 1;
        if let Some(b) = owner[syncopt_ir::EntityRef::index(s)] {
            dynamic = dynamic.saturating_add(weights[syncopt_ir::EntityRef::index(b)]);
        }
    }
    (stat, dynamic)
}

/// `block_weight` of every block at once, in linear time (indexed by block index; blocks not
/// reachable from the body weigh 0).
pub fn block_weights(kernel: &Kernel) -> Vec<u64> {
    let mut w = vec![0u64; kernel.blocks.len()];
    let mut stack = vec![(kernel.body, 1u64)];
    while let Some((b, bw)) = stack.pop() {
        w[syncopt_ir::EntityRef::index(b)] = bw;
        for &s in &kernel.blocks[b].stmts {
            match &kernel.stmts[s].kind {
                StmtKind::For(f) => {
                    let t = f.trips().exact().unwrap_or(UNKNOWN_TRIPS);
                    stack.push((f.body, bw.saturating_mul(t)));
                }
                StmtKind::If(i) => {
                    stack.push((i.then_block, bw));
                    if let Some(e) = i.else_block {
                        stack.push((e, bw));
                    }
                }
                _ => {}
            }
        }
    }
    w
}
