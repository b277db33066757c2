//! Warp pipelining for AMD GPUs (semantics.md 4.3): converts loops and straight-line code cut
//! into stages by `stage` markers into a two-group ping-pong schedule.
//!
//! The waves split into two groups. `cond_barrier high` before the pipeline makes the high
//! group lag the low one by the phase gap g; every stage boundary is one barrier, so both
//! groups advance in lock step, the low group running stage instance t while the high group
//! runs instance t - g; `cond_barrier low` after the pipeline evens the arrival counts.
//!
//! The fence model (why a boundary needs `barrier` rather than `barrier exec`): let two
//! conflicting accesses sit in stage instances e < l (instance distance d = l - e, counted
//! around the ring of the loop). An access made in interval i by wave A is ordered before one
//! made in interval j > i by wave B exactly when A's barrier at one of the phases i+1..=j
//! fences, and A executes those barriers at the boundaries right after its own instance.
//! - Same group: one of the d boundaries after e must fence.
//! - e in the high group, l in the low group: with d > g, one of the d - g boundaries after e;
//!   with d < g the low group runs l first, so one of the g - d boundaries after l must fence;
//!   with d == g both run in the same interval and no barrier can order them: an error.
//! - e in the low group, l in the high group: d + g boundaries, implied by the same-group case.
//! - Two different ops of one stage instance run concurrently in waves of one group: an error.
//!
//! Every such requirement is a window of boundaries; fences are chosen greedily (shortest
//! window first, the boundary closest to the consumer), then redundant ones are dropped.

use std::collections::{BTreeMap, BTreeSet};

use syncopt_analysis::{Covered, Explain, InsertOptions, PassReport};
use syncopt_ir::{
    AccessKind, AffineExpr, BlockId, BufferId, Counter, Diagnostic, Group, Kernel, Loc, Placement,
    ProgramPoint, Selector, Space, StmtId, StmtKind, SyncOp, ValueId, ValueKind, Var, ViewKind,
};
use syncopt_targets::Target;

/// The expression whose value is a wave's group index (0: low, leading; otherwise high,
/// lagging), printed by the emitters under `cond_barrier`.
///
/// With `waves` waves on 4 SIMDs, waves `0 .. waves/2` form the low group and the rest the
/// high group, so the group is `tid / (waves / 2 * wave_size)`: with 8 waves that is
/// `tid / 256` on wave64 (gfx942, gfx950) and `tid / 128` on wave32 (gfx1250). A hard-coded
/// 256 is wrong on wave32 (prior-art.md).
pub fn group_predicate(target: Target, waves: u32) -> String {
    let per_group = (waves / 2).max(1) * target.info().wave_size;
    format!("tid / {per_group}")
}

/// Runs the pass on `kernel` for `target`.
pub fn run(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    let _ = opts;
    let mut pass = Pass {
        k: kernel,
        target,
        report: PassReport::default(),
        inserts: Vec::new(),
        upgrades: Vec::new(),
        explain_at: Vec::new(),
    };
    pass.run();
    let Pass {
        mut report,
        inserts,
        upgrades,
        explain_at,
        ..
    } = pass;
    if report.has_errors() {
        return report;
    }
    for s in upgrades {
        if let StmtKind::Sync(SyncOp::Barrier { fence, .. }) = &mut kernel.stmts[s].kind {
            *fence = true;
        }
    }
    let ops: Vec<(ProgramPoint, SyncOp)> =
        inserts.iter().map(|(p, o, _)| (*p, o.clone())).collect();
    let created = kernel.insert_syncs(ops);
    // `insert_syncs` returns the new statements sorted by point, stable among equal points.
    let mut order: Vec<usize> = (0..inserts.len()).collect();
    order.sort_by_key(|&i| inserts[i].0);
    for (pos, &i) in order.iter().enumerate() {
        if let Some(tag) = inserts[i].2 {
            if let Some(covers) = explain_at.get(tag) {
                report.explain.push(Explain {
                    stmt: created[pos],
                    covers: covers.clone(),
                });
            }
        }
    }
    report
}

struct Pass<'a> {
    k: &'a Kernel,
    target: Target,
    report: PassReport,
    /// Sync ops to insert, with an optional index into `explain_at`.
    inserts: Vec<(ProgramPoint, SyncOp, Option<usize>)>,
    /// Existing `barrier exec` statements that must fence.
    upgrades: Vec<StmtId>,
    explain_at: Vec<Vec<Covered>>,
}

/// One LDS access of a stage, resolved to a root buffer.
#[derive(Clone, Debug)]
struct Access {
    /// The op statement (one instance of an op never conflicts with itself).
    op: StmtId,
    write: bool,
    atomic: bool,
    loc: Option<Loc>,
    /// Root buffers it may touch (several for a loop-carried handle).
    roots: Vec<BufferId>,
    /// Byte range in the root, `None`: anywhere.
    range: Option<(u64, u64)>,
    /// A slot view: `count` slots of `size` bytes from byte `base`, index `expr mod count`;
    /// `range` is then the range inside the slot.
    slot: Option<SlotSel>,
    /// Per-thread word index: the address is owned by the thread computing it.
    owner: Option<AffineExpr>,
    /// For an async op: the counter whose wait completes the access.
    async_counter: Option<Counter>,
}

#[derive(Clone, Debug, PartialEq)]
struct SlotSel {
    count: u32,
    size: u64,
    base: u64,
    index: AffineExpr,
}

#[derive(Clone, Debug)]
struct Stage {
    marker: StmtId,
    loc: Option<Loc>,
    prio: Option<u8>,
    accesses: Vec<Access>,
    /// Block indices of the trailing run of sync statements: the boundary after the stage.
    run: (usize, usize),
    /// Async ops at the top level of the stage, in order, with their counters.
    async_ops: Vec<(StmtId, Counter)>,
}

#[derive(Clone, Debug)]
struct Pipeline {
    /// The loop, for a loop pipeline; `None` for a flat one.
    for_stmt: Option<StmtId>,
    /// Where the loop (or the first marker) sits: the block and index.
    block: BlockId,
    /// Block holding the markers.
    body: BlockId,
    stages: Vec<Stage>,
    gap: usize,
    /// Fencing boundary slots chosen (loop: slot s is before stage s, 0 the wrap; flat: slot
    /// s is before stage s, 1..N).
    fences: BTreeSet<usize>,
    /// Counter waits to put before the barrier of a boundary slot: the largest count
    /// that completes every async access the slot publishes.
    waits: BTreeMap<(usize, Counter), u32>,
    /// For `--explain`: a few of the pairs each chosen fence orders.
    reasons: BTreeMap<usize, Vec<Covered>>,
    /// Flat: index of the first marker and of `stage.end` in `block`.
    span: (usize, usize),
}

impl Pipeline {
    fn uses_prio(&self) -> bool {
        self.stages.iter().any(|s| s.prio.is_some())
    }
    fn prio(&self, s: usize) -> u8 {
        self.stages[s].prio.unwrap_or(0)
    }
    fn is_loop(&self) -> bool {
        self.for_stmt.is_some()
    }
}

/// A requirement: one boundary slot of `window` must fence.
struct Need {
    /// Boundary slots, and the instance position each stands for (the boundary after it).
    window: Vec<usize>,
    positions: Vec<usize>,
    /// The pairs that need it (a few, for `--explain`).
    more: Vec<Covered>,
    /// The access that runs first is async: the boundary needs a wait on its counter
    /// (before the barrier), not an LDS fence.
    wait: Option<WaitReq>,
}

#[derive(Clone, Copy, Debug)]
struct WaitReq {
    counter: Counter,
    op: StmtId,
    /// Instance position of the async op.
    inst: usize,
}

fn err(loc: Option<Loc>, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(loc, msg)
}

impl<'a> Pass<'a> {
    fn error(&mut self, d: Diagnostic) {
        self.report.diagnostics.push(d);
    }

    fn run(&mut self) {
        let k = self.k;
        let mut first_marker = None;
        k.walk(&mut |_, d| {
            if matches!(d.kind, StmtKind::Stage(_) | StmtKind::StageEnd) && first_marker.is_none() {
                first_marker = Some(d.loc);
            }
        });
        let Some(first_loc) = first_marker else {
            return;
        };
        if !self.target.info().warp_pipeline {
            self.error(err(
                first_loc,
                format!(
                    "warp-pipeline stages are not supported on {}: only gfx942, gfx950 and gfx1250 run warp pipelines",
                    self.target
                ),
            ));
            return;
        }
        let waves = self.target.waves(k);
        if waves < 2 || !waves.is_multiple_of(2) {
            self.error(err(
                first_loc,
                format!(
                    "a warp pipeline needs an even number of waves (two groups), the kernel has {waves}"
                ),
            ));
            return;
        }
        if let Some((marker, if_loc)) = marker_under_divergence(k, k.body, None) {
            self.error(
                err(
                    marker,
                    "warp-pipeline stage inside divergent control flow: its barriers would hang the waves that skip it",
                )
                .with_note(if_loc, "the divergent condition is here"),
            );
            return;
        }
        self.visit_block(k.body, false);
    }

    /// Finds the pipelines whose loops or flat runs sit in `block`, then recurses.
    /// `in_stage`: the block is nested in a stage (markers there are an error).
    fn visit_block(&mut self, block: BlockId, in_stage: bool) {
        let k = self.k;
        let stmts = k.blocks[block].stmts.clone();
        let is_loop_body = matches!(
            k.blocks[block].parent.map(|p| &k.stmts[p].kind),
            Some(StmtKind::For(_))
        );
        let has_marker = stmts
            .iter()
            .any(|&s| matches!(k.stmts[s].kind, StmtKind::Stage(_)));
        let has_end = stmts
            .iter()
            .any(|&s| matches!(k.stmts[s].kind, StmtKind::StageEnd));
        if in_stage {
            if let Some(&s) = stmts
                .iter()
                .find(|&&s| matches!(k.stmts[s].kind, StmtKind::Stage(_) | StmtKind::StageEnd))
            {
                self.error(err(
                    k.stmts[s].loc,
                    "stage marker nested inside a stage (in an 'if' or an inner loop of a pipeline)",
                ));
                return;
            }
        }
        if has_marker && !has_end && !is_loop_body {
            let s = stmts
                .iter()
                .copied()
                .find(|&s| matches!(k.stmts[s].kind, StmtKind::Stage(_)))
                .unwrap_or(stmts[0]);
            self.error(err(
                k.stmts[s].loc,
                "flat warp pipeline is not ended by 'stage.end' (stages outside a loop form a flat pipeline)",
            ));
            return;
        }
        // Loop pipelines whose loops sit in this block, in order.
        let mut loops: Vec<(usize, Pipeline)> = Vec::new();
        for (i, &s) in stmts.iter().enumerate() {
            if let StmtKind::For(f) = &k.stmts[s].kind {
                let body = f.body;
                let body_stmts = &k.blocks[body].stmts;
                let marks = body_stmts
                    .iter()
                    .any(|&x| matches!(k.stmts[x].kind, StmtKind::Stage(_)));
                let ends = body_stmts
                    .iter()
                    .any(|&x| matches!(k.stmts[x].kind, StmtKind::StageEnd));
                if marks && !ends && !in_stage {
                    if let Some(p) = self.loop_pipeline(block, s, body) {
                        loops.push((i, p));
                    }
                }
            }
        }
        let mut flats: Vec<Pipeline> = Vec::new();
        if has_end && !in_stage {
            flats = self.flat_pipelines(block);
        }
        if self.report.has_errors() {
            return;
        }
        self.emit_loops(block, &loops);
        self.emit_flats(block, &flats);
        // Recurse: stage segments of pipelines are "in a stage".
        let mut inside: BTreeSet<StmtId> = BTreeSet::new();
        for f in &flats {
            for &s in &stmts[f.span.0..f.span.1] {
                inside.insert(s);
            }
        }
        for &s in &stmts {
            let d = &k.stmts[s];
            match &d.kind {
                StmtKind::For(f) => {
                    let pipelined = loops.iter().any(|(_, p)| p.for_stmt == Some(s));
                    if pipelined {
                        for &x in &k.blocks[f.body].stmts {
                            for c in k.stmts[x].kind.child_block_ids() {
                                self.visit_block(c, true);
                            }
                        }
                    } else {
                        self.visit_block(f.body, in_stage || inside.contains(&s));
                    }
                }
                _ => {
                    for c in d.kind.child_block_ids() {
                        self.visit_block(c, in_stage || inside.contains(&s));
                    }
                }
            }
        }
    }

    /// Parses the stages of a pipelined loop body.
    fn loop_pipeline(
        &mut self,
        block: BlockId,
        for_stmt: StmtId,
        body: BlockId,
    ) -> Option<Pipeline> {
        let k = self.k;
        let stmts = &k.blocks[body].stmts;
        let first = stmts
            .iter()
            .position(|&s| matches!(k.stmts[s].kind, StmtKind::Stage(_)))?;
        for &s in &stmts[..first] {
            if !matches!(k.stmts[s].kind, StmtKind::View(_)) {
                self.error(
                    err(
                        k.stmts[s].loc,
                        "unexpected statement before the first stage marker of a pipelined loop body",
                    )
                    .with_note(k.stmts[stmts[first]].loc, "the first stage starts here"),
                );
                return None;
            }
        }
        let stages = self.stages(body, first, stmts.len())?;
        let gap = self.check_gap(&stages, true)?;
        if stages.len() < 2 {
            self.error(err(
                stages[0].loc,
                "a warp pipeline needs at least two stages (add a 'stage' marker; an empty stage is a bubble)",
            ));
            return None;
        }
        Some(Pipeline {
            for_stmt: Some(for_stmt),
            block,
            body,
            stages,
            gap,
            fences: BTreeSet::new(),
            waits: BTreeMap::new(),
            reasons: BTreeMap::new(),
            span: (0, 0),
        })
    }

    /// Splits `block[from..to)` at its stage markers (`block[from]` is one).
    fn stages(&mut self, block: BlockId, from: usize, to: usize) -> Option<Vec<Stage>> {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let mut out: Vec<Stage> = Vec::new();
        let mut i = from;
        while i < to {
            let StmtKind::Stage(sd) = k.stmts[stmts[i]].kind else {
                return None;
            };
            let marker = stmts[i];
            let mut j = i + 1;
            while j < to && !matches!(k.stmts[stmts[j]].kind, StmtKind::Stage(_)) {
                j += 1;
            }
            // Trailing syncs are the boundary after this stage.
            let mut r = j;
            while r > i + 1 && matches!(k.stmts[stmts[r - 1]].kind, StmtKind::Sync(_)) {
                r -= 1;
            }
            let mut accesses = Vec::new();
            let mut async_ops = Vec::new();
            for &s in &stmts[i + 1..r] {
                self.collect(s, &mut accesses, out.len())?;
                if let StmtKind::Op(o) = &k.stmts[s].kind {
                    if let Some(c) = o
                        .asynchronous
                        .and_then(|spec| self.target.async_counter(spec, &o.name))
                    {
                        async_ops.push((s, c));
                    }
                }
            }
            out.push(Stage {
                marker,
                loc: k.stmts[marker].loc,
                prio: sd.prio,
                accesses,
                run: (r, j),
                async_ops,
            });
            i = j;
        }
        Some(out)
    }

    /// Gathers the LDS accesses of statement `s` of stage `stage`; rejects what breaks the
    /// lock step (loops, barriers inside a stage).
    fn collect(&mut self, s: StmtId, out: &mut Vec<Access>, stage: usize) -> Option<()> {
        let k = self.k;
        let d = &k.stmts[s];
        match &d.kind {
            StmtKind::For(_) => {
                self.error(err(
                    d.loc,
                    format!("loop inside stage {stage} of a warp pipeline: a stage must be straight-line code"),
                ));
                return None;
            }
            StmtKind::Sync(op) if op.is_workgroup_barrier() => {
                self.error(err(
                    d.loc,
                    format!("barrier inside stage {stage} of a warp pipeline: barriers belong at stage boundaries (right before a 'stage' marker)"),
                ));
                return None;
            }
            StmtKind::Stage(_) | StmtKind::StageEnd => {
                self.error(err(d.loc, "stage marker nested inside a stage"));
                return None;
            }
            StmtKind::Op(op) => {
                for e in &op.effects {
                    if let Some(a) = self.resolve(s, e) {
                        out.push(a);
                    }
                }
            }
            StmtKind::If(_) => {
                for c in d.kind.child_block_ids() {
                    for &x in &k.blocks[c].stmts {
                        self.collect(x, out, stage)?;
                    }
                }
            }
            StmtKind::View(_) | StmtKind::Sync(_) => {}
        }
        Some(())
    }

    fn check_gap(&mut self, stages: &[Stage], is_loop: bool) -> Option<usize> {
        for st in &stages[1..] {
            let gd = match self.k.stmts[st.marker].kind {
                StmtKind::Stage(sd) => sd.gap,
                _ => None,
            };
            if gd.is_some() {
                self.error(err(
                    st.loc,
                    "a phase gap is given only on the first stage of a pipeline",
                ));
                return None;
            }
        }
        let g = match self.k.stmts[stages[0].marker].kind {
            StmtKind::Stage(sd) => sd.gap.unwrap_or(1),
            _ => 1,
        };
        if g != 1 && g != 2 {
            self.error(err(
                stages[0].loc,
                format!("phase gap {g}: the gap between the wave groups is 1 or 2 stages"),
            ));
            return None;
        }
        if g == 2 && !is_loop {
            self.error(err(
                stages[0].loc,
                "phase gap 2 on a flat pipeline: straight-line stages take gap 1",
            ));
            return None;
        }
        Some(g as usize)
    }

    /// The flat pipelines of `block`: `stage ... stage.end` runs.
    fn flat_pipelines(&mut self, block: BlockId) -> Vec<Pipeline> {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let mut out = Vec::new();
        let mut i = 0;
        while i < stmts.len() {
            match k.stmts[stmts[i]].kind {
                StmtKind::StageEnd => {
                    self.error(err(
                        k.stmts[stmts[i]].loc,
                        "'stage.end' without a pipeline: no 'stage' marker opens one before it",
                    ));
                    return out;
                }
                StmtKind::Stage(_) => {
                    let Some(end) = (i..stmts.len())
                        .find(|&j| matches!(k.stmts[stmts[j]].kind, StmtKind::StageEnd))
                    else {
                        self.error(err(
                            k.stmts[stmts[i]].loc,
                            "flat warp pipeline is not ended by 'stage.end'",
                        ));
                        return out;
                    };
                    let Some(stages) = self.stages(block, i, end) else {
                        return out;
                    };
                    let Some(gap) = self.check_gap(&stages, false) else {
                        return out;
                    };
                    if stages.len() < 2 {
                        self.error(err(
                            stages[0].loc,
                            "a warp pipeline needs at least two stages (add a 'stage' marker; an empty stage is a bubble)",
                        ));
                        return out;
                    }
                    let last = &stages[stages.len() - 1];
                    for &s in &stmts[last.run.0..last.run.1] {
                        if let StmtKind::Sync(op) = &k.stmts[s].kind {
                            if op.is_workgroup_barrier() {
                                self.error(err(
                                    k.stmts[s].loc,
                                    "barrier at the end of the last stage of a flat pipeline: the pipeline ends with 'stage.end'",
                                ));
                                return out;
                            }
                        }
                    }
                    out.push(Pipeline {
                        for_stmt: None,
                        block,
                        body: block,
                        stages,
                        gap,
                        fences: BTreeSet::new(),
                        waits: BTreeMap::new(),
                        reasons: BTreeMap::new(),
                        span: (i, end),
                    });
                    i = end + 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    // ---------------------------------------------------------------- accesses

    fn resolve(&self, op: StmtId, e: &syncopt_ir::Effect) -> Option<Access> {
        let k = self.k;
        let (roots, mut range, slot) = self.resolve_value(e.mem.value, 0)?;
        let mut owner = None;
        match &e.mem.sel {
            Selector::Whole => {}
            Selector::Bytes { lo, hi } => {
                range = match (range, &slot) {
                    (Some((base, _)), _) => Some((base + lo, base + hi)),
                    (None, Some(_)) => Some((*lo, *hi)),
                    (None, None) => None,
                };
            }
            Selector::Index(x) => owner = Some(x.clone()),
        }
        let _ = k;
        Some(Access {
            op,
            write: e.kind.writes(),
            async_counter: match &k.stmts[op].kind {
                StmtKind::Op(o) => o
                    .asynchronous
                    .and_then(|spec| self.target.async_counter(spec, &o.name)),
                _ => None,
            },
            atomic: e.kind == AccessKind::Atomic,
            loc: e.loc.or(k.stmts[op].loc),
            roots,
            range,
            slot,
            owner,
        })
    }

    /// Root buffers, byte range (inside the slot when there is one) and slot of a memory
    /// value; `None` when it is not in workgroup memory.
    #[allow(clippy::type_complexity)]
    fn resolve_value(
        &self,
        v: ValueId,
        depth: u32,
    ) -> Option<(Vec<BufferId>, Option<(u64, u64)>, Option<SlotSel>)> {
        let k = self.k;
        if depth > 32 {
            return None;
        }
        match k.values[v].kind {
            ValueKind::Buffer(b) => {
                if k.buffers[b].space != Space::Workgroup {
                    return None;
                }
                let (root, off, exact) = self.root_of(b, 0);
                let size = k.buffers[b].size;
                Some((vec![root], exact.then_some((off, off + size)), None))
            }
            ValueKind::View(view) => {
                let vd = &k.views[view];
                let (roots, range, slot) = self.resolve_value(vd.base, depth + 1)?;
                match &vd.kind {
                    ViewKind::Range { lo, hi } => match (range, &slot) {
                        (Some((base, _)), _) => Some((roots, Some((base + lo, base + hi)), slot)),
                        (None, Some(_)) => Some((roots, Some((*lo, *hi)), slot)),
                        (None, None) => Some((roots, None, None)),
                    },
                    ViewKind::Slot { count, index } => {
                        if slot.is_some() {
                            // A slot of a slot: keep the outer one's extent, conservatively.
                            return Some((roots, None, slot));
                        }
                        match (range, k.static_size(vd.base)) {
                            (Some((base, _)), Some(size)) if *count > 0 => {
                                let s = size / *count as u64;
                                Some((
                                    roots,
                                    Some((0, s)),
                                    Some(SlotSel {
                                        count: *count,
                                        size: s,
                                        base,
                                        index: index.clone(),
                                    }),
                                ))
                            }
                            _ => Some((roots, range, None)),
                        }
                    }
                }
            }
            ValueKind::IterArg { stmt, index } | ValueKind::Result { stmt, index } => {
                // A handle may be any of the values it is bound to: the union, whole.
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
                        for b in [Some(i.then_block), i.else_block].into_iter().flatten() {
                            if let Some(&y) = k.blocks[b].yields.get(index) {
                                cands.push(y);
                            }
                        }
                    }
                    _ => {}
                }
                let mut roots = Vec::new();
                for c in cands {
                    if c == v {
                        continue;
                    }
                    if let Some((r, _, _)) = self.resolve_value(c, depth + 1) {
                        roots.extend(r);
                    }
                }
                if roots.is_empty() {
                    return None;
                }
                roots.sort();
                roots.dedup();
                Some((roots, None, None))
            }
            _ => None,
        }
    }

    /// The buffer `b` lives in, its offset there, and whether that offset is exact.
    fn root_of(&self, b: BufferId, depth: u32) -> (BufferId, u64, bool) {
        let k = self.k;
        if depth > 32 {
            return (b, 0, false);
        }
        let base_buf = |v: ValueId| match k.values[v].kind {
            ValueKind::Buffer(bb) => Some(bb),
            _ => None,
        };
        match k.buffers[b].placement {
            Placement::Own => (b, 0, true),
            Placement::At { base, offset } => match base_buf(base) {
                Some(bb) => {
                    let (r, o, ex) = self.root_of(bb, depth + 1);
                    (r, o + offset, ex)
                }
                None => (b, 0, false),
            },
            Placement::Aliases(base) => match base_buf(base) {
                Some(bb) => {
                    let (r, _, _) = self.root_of(bb, depth + 1);
                    (r, 0, false)
                }
                None => (b, 0, false),
            },
        }
    }

    // ---------------------------------------------------------------- emission

    fn emit_loops(&mut self, block: BlockId, loops: &[(usize, Pipeline)]) {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let mut pipes: Vec<(usize, Pipeline)> = Vec::new();
        for (idx, p) in loops {
            let mut p = p.clone();
            if !self.choose_fences(&mut p) {
                return;
            }
            pipes.push((*idx, p));
        }
        // Sync runs around each loop.
        let run_before = |idx: usize| -> usize {
            let mut r = idx;
            while r > 0 && matches!(k.stmts[stmts[r - 1]].kind, StmtKind::Sync(_)) {
                r -= 1;
            }
            r
        };
        let run_after = |idx: usize| -> usize {
            let mut r = idx + 1;
            while r < stmts.len() && matches!(k.stmts[stmts[r]].kind, StmtKind::Sync(_)) {
                r += 1;
            }
            r
        };
        for (n, (idx, p)) in pipes.iter().enumerate() {
            self.emit_boundaries(p);
            // Back-to-back with the previous pipelined loop?
            let merged_before = n > 0 && {
                let (pidx, prev) = &pipes[n - 1];
                run_after(*pidx) == *idx && self.can_merge(prev, p, *pidx, *idx)
            };
            let merged_after = n + 1 < pipes.len() && {
                let (nidx, next) = &pipes[n + 1];
                run_after(*idx) == *nidx && self.can_merge(p, next, *idx, *nidx)
            };
            let pre = (run_before(*idx), *idx);
            let post = (*idx + 1, run_after(*idx));
            let loc = k.stmts[stmts[*idx]].loc;
            if !merged_before {
                self.emit_prelude(p, block, pre, loc);
            } else if p.uses_prio() || pipes[n - 1].1.uses_prio() {
                self.ensure_prio(block, pre, self.stage0_prio(p));
            }
            if !merged_after {
                self.emit_postlude(p, block, post, loc);
            }
        }
    }

    fn stage0_prio(&self, p: &Pipeline) -> u8 {
        p.prio(0)
    }

    /// Whether two back-to-back loop pipelines can run without the reconverge/shift pair
    /// between them: the same gap, no barrier between, and no unordered pair across them.
    fn can_merge(&self, a: &Pipeline, b: &Pipeline, ia: usize, ib: usize) -> bool {
        if a.gap != b.gap {
            return false;
        }
        let k = self.k;
        let stmts = &k.blocks[a.block].stmts;
        for &s in &stmts[ia + 1..ib] {
            if let StmtKind::Sync(op) = &k.stmts[s].kind {
                if op.is_workgroup_barrier() {
                    // A reconverge/shift pair already there (or a barrier of the user) stays.
                    return false;
                }
            }
        }
        // Async copies keep their pipelines apart: their waits are placed per pipeline.
        if a.stages
            .iter()
            .chain(&b.stages)
            .any(|st| st.accesses.iter().any(|x| x.async_counter.is_some()))
        {
            return false;
        }
        let g = a.gap;
        let (na, nb) = (a.stages.len(), b.stages.len());
        let ra = (nb + g + 1).div_ceil(na) + 1;
        let rb = (na + g + 1).div_ceil(nb) + 1;
        // Instances: a's stages `ra` times, then b's `rb` times; fenced[k]: the boundary
        // after instance k fences.
        let mut inst: Vec<(&Stage, usize, usize)> = Vec::new(); // (stage, iteration, which)
        let mut fenced = Vec::new();
        for it in 0..ra {
            for s in 0..na {
                inst.push((&a.stages[s], it, 0));
                fenced.push(a.fences.contains(&((s + 1) % na)));
            }
        }
        for it in 0..rb {
            for s in 0..nb {
                inst.push((&b.stages[s], it, 1));
                fenced.push(b.fences.contains(&((s + 1) % nb)));
            }
        }
        let m = inst.len();
        for e in 0..m {
            for l in e + 1..m {
                if inst[e].2 != 0 || inst[l].2 != 1 {
                    continue;
                }
                let conflict = inst[e]
                    .0
                    .accesses
                    .iter()
                    .any(|x| inst[l].0.accesses.iter().any(|y| conflicts(x, y, None)));
                if !conflict {
                    continue;
                }
                let d = l - e;
                for (w, _) in windows(e, l, g) {
                    let Some(w) = w else { return false };
                    if w.1 >= m || !(w.0..=w.1).any(|x| fenced[x]) {
                        return false;
                    }
                }
                let _ = d;
            }
        }
        true
    }

    fn emit_prelude(
        &mut self,
        p: &Pipeline,
        block: BlockId,
        run: (usize, usize),
        loc: Option<Loc>,
    ) {
        let highs = count_cond_barriers(self.k, block, run, Group::High);
        let point = ProgramPoint {
            block,
            index: run.1,
        };
        if highs == 0 {
            if let Some(counter) = self.target.info().lds_counter {
                self.push(point, SyncOp::CounterWait { counter, n: 0 });
            }
            for _ in 0..p.gap {
                self.push(point, SyncOp::CondBarrier { group: Group::High });
            }
            if p.uses_prio() {
                self.push(point, SyncOp::SetPrio { prio: p.prio(0) });
            }
        } else if highs != p.gap {
            self.error(err(
                loc,
                format!(
                    "the pipeline before this point shifts the high group by {highs} phase(s), but its gap is {}",
                    p.gap
                ),
            ));
        } else if p.uses_prio() {
            self.ensure_prio(block, run, p.prio(0));
        }
    }

    fn emit_postlude(
        &mut self,
        p: &Pipeline,
        block: BlockId,
        run: (usize, usize),
        loc: Option<Loc>,
    ) {
        let lows = count_cond_barriers(self.k, block, run, Group::Low);
        let point = ProgramPoint {
            block,
            index: run.0,
        };
        if lows == 0 {
            if p.uses_prio() {
                self.push(point, SyncOp::SetPrio { prio: 0 });
            }
            for _ in 0..p.gap {
                self.push(point, SyncOp::CondBarrier { group: Group::Low });
            }
        } else if lows != p.gap {
            self.error(err(
                loc,
                format!(
                    "the pipeline reconverges the low group by {lows} phase(s), but its gap is {}",
                    p.gap
                ),
            ));
        }
    }

    /// Makes the last `setprio` of the run `prio`, adding one at its end if needed.
    fn ensure_prio(&mut self, block: BlockId, run: (usize, usize), prio: u8) {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let last = stmts[run.0..run.1]
            .iter()
            .rev()
            .find_map(|&s| match k.stmts[s].kind {
                StmtKind::Sync(SyncOp::SetPrio { prio }) => Some(prio),
                _ => None,
            });
        if last != Some(prio) {
            self.push(
                ProgramPoint {
                    block,
                    index: run.1,
                },
                SyncOp::SetPrio { prio },
            );
        }
    }

    fn push(&mut self, p: ProgramPoint, op: SyncOp) {
        self.inserts.push((p, op, None));
    }

    /// Barriers (and walls, priorities) at every boundary of `p`, its fences chosen.
    fn emit_boundaries(&mut self, p: &Pipeline) {
        let n = p.stages.len();
        let k = self.k;
        let stmts = &k.blocks[p.body].stmts;
        // Boundary after stage s is slot s + 1 (mod n for a loop).
        let last = if p.is_loop() { n } else { n - 1 };
        let have = self.existing_waits(p);
        for s in 0..last {
            let slot = (s + 1) % n;
            let waits: Vec<SyncOp> = p
                .waits
                .iter()
                .filter(|((sl, c), v)| *sl == slot && have.get(&(*sl, *c)).is_none_or(|h| h > *v))
                .map(|((_, c), v)| SyncOp::CounterWait {
                    counter: *c,
                    n: (*v).min(self.target.counter_max(*c).unwrap_or(0)),
                })
                .collect();
            let run = p.stages[s].run;
            let fence = p.fences.contains(&slot);
            let tag = if fence {
                let covers = self.fence_reasons(p, slot);
                self.explain_at.push(covers);
                Some(self.explain_at.len() - 1)
            } else {
                None
            };
            let bars: Vec<usize> = (run.0..run.1)
                .filter(|&i| {
                    matches!(
                        k.stmts[stmts[i]].kind,
                        StmtKind::Sync(SyncOp::Barrier { id: 0, .. })
                    )
                })
                .collect();
            let others = (run.0..run.1).find(|&i| match &k.stmts[stmts[i]].kind {
                StmtKind::Sync(op) => {
                    op.is_workgroup_barrier() && !matches!(op, SyncOp::Barrier { id: 0, .. })
                }
                _ => false,
            });
            if let Some(i) = others {
                self.error(err(
                    k.stmts[stmts[i]].loc,
                    "only a plain workgroup barrier ('barrier' or 'barrier exec') can sit at a stage boundary",
                ));
                return;
            }
            let at = |index: usize| ProgramPoint {
                block: p.body,
                index,
            };
            let wall = SyncOp::SchedBarrier { mask: 0 };
            match bars.as_slice() {
                [] => {
                    self.push(at(run.1), wall.clone());
                    for w in &waits {
                        self.push(at(run.1), w.clone());
                    }
                    self.inserts.push((
                        at(run.1),
                        SyncOp::Barrier {
                            id: 0,
                            fence,
                            threads: None,
                        },
                        tag,
                    ));
                    self.push(at(run.1), wall.clone());
                }
                [j] => {
                    let j = *j;
                    if fence {
                        if let StmtKind::Sync(SyncOp::Barrier { fence: false, .. }) =
                            k.stmts[stmts[j]].kind
                        {
                            self.upgrades.push(stmts[j]);
                        }
                    }
                    let is_wall = |i: usize| {
                        matches!(
                            k.stmts[stmts[i]].kind,
                            StmtKind::Sync(SyncOp::SchedBarrier { .. })
                        )
                    };
                    if !(run.0..j).any(is_wall) {
                        self.push(at(j), wall.clone());
                    }
                    for w in &waits {
                        self.push(at(j), w.clone());
                    }
                    if !(j + 1..run.1).any(is_wall) {
                        self.push(at(j + 1), wall.clone());
                    }
                }
                [_, second, ..] => {
                    self.error(err(
                        k.stmts[stmts[*second]].loc,
                        format!(
                            "two barriers at the boundary before stage {slot}: each stage boundary takes exactly one, or the wave groups lose their phase shift"
                        ),
                    ));
                    return;
                }
            }
            if p.uses_prio() && p.prio(slot) != p.prio(s) {
                self.ensure_prio(p.body, run, p.prio(slot));
            }
        }
    }

    fn fence_reasons(&self, p: &Pipeline, slot: usize) -> Vec<Covered> {
        p.reasons.get(&slot).cloned().unwrap_or_default()
    }

    /// The fence requirements of `p` (and the errors: pairs no barrier can order).
    fn needs(&self, p: &Pipeline) -> (Vec<Need>, Vec<Diagnostic>) {
        let n = p.stages.len();
        let g = p.gap;
        let mut needs = Vec::new();
        let mut errors = Vec::new();
        let iv = p.for_stmt.and_then(|f| match &self.k.stmts[f].kind {
            StmtKind::For(fd) => Some(fd.iv),
            _ => None,
        });
        // Slot views repeat every `period` iterations: the first conflicting distance of
        // a pair of stages can be that many iterations away. Past it, a larger distance
        // only widens the windows (a pair closer than the gap is within the first round).
        let period = slot_period(p);
        // Instances: loop: e in one period, l up to n * period + g later; flat: every pair.
        let (e_range, max_l, slot_of): (usize, usize, Box<dyn Fn(usize) -> usize>) = if p.is_loop()
        {
            (n, n * period + g, Box::new(move |x| (x + 1) % n))
        } else {
            (n, n, Box::new(|x| x + 1))
        };
        let mut seen_err: BTreeSet<(usize, usize)> = BTreeSet::new();
        #[allow(clippy::type_complexity)]
        let mut dedup: BTreeMap<
            (Option<(Counter, StmtId)>, usize, usize, usize, usize),
            Need,
        > = BTreeMap::new();
        for e in 0..e_range {
            let l_end = if p.is_loop() { e + max_l } else { n - 1 };
            for l in e..=l_end {
                let (se, sl) = (e % n, l % n);
                let delta = (l / n) as i64 - (e / n) as i64;
                let shift = iv.map(|v| (v, delta));
                for x in &p.stages[se].accesses {
                    for y in &p.stages[sl].accesses {
                        if l == e && x.op == y.op {
                            continue;
                        }
                        if !conflicts(x, y, shift) {
                            continue;
                        }
                        let d = l - e;
                        if d == 0 || d == g {
                            let key = (se.min(sl), se.max(sl));
                            if seen_err.insert(key) {
                                errors.push(self.cross_group_error(p, se, sl, x, y, d));
                            }
                            continue;
                        }
                        let kind = match (x.write, y.write) {
                            (true, false) => "RAW",
                            (false, true) => "WAR",
                            _ => "WAW",
                        };
                        for (w, y_first) in windows(e, l, g) {
                            let Some(w) = w else { continue };
                            let (src, inst) = if y_first { (y, l) } else { (x, e) };
                            let covered = Covered {
                                kind: if src.async_counter.is_some() {
                                    format!("{kind} (async)")
                                } else {
                                    kind.into()
                                },
                                from: x.loc,
                                to: y.loc,
                            };
                            // Many pairs share a window: keep one requirement per window
                            // (the pass stays linear in the pairs, not in pairs x windows).
                            let key = match src.async_counter {
                                None => {
                                    let len = (w.1 + 1 - w.0).min(n);
                                    (None, 0, slot_of(w.0), len, 0)
                                }
                                Some(c) => (Some((c, src.op)), inst % n, w.0 - inst, w.1 - inst, 0),
                            };
                            if let Some(nd) = dedup.get_mut(&key) {
                                if nd.more.len() < 4 && !nd.more.contains(&covered) {
                                    nd.more.push(covered);
                                }
                                continue;
                            }
                            let positions: Vec<usize> =
                                (w.0..=w.1).take(n * period + g + 1).collect();
                            dedup.insert(
                                key,
                                Need {
                                    window: positions.iter().map(|&q| slot_of(q)).collect(),
                                    positions,
                                    more: vec![covered],
                                    wait: src.async_counter.map(|counter| WaitReq {
                                        counter,
                                        op: src.op,
                                        inst,
                                    }),
                                },
                            );
                        }
                    }
                }
            }
        }
        needs.extend(dedup.into_values());
        (needs, errors)
    }

    fn cross_group_error(
        &self,
        p: &Pipeline,
        se: usize,
        sl: usize,
        x: &Access,
        y: &Access,
        d: usize,
    ) -> Diagnostic {
        let what = if d == 0 {
            format!(
                "accesses in stage {se} conflict with each other: waves of one group run a stage together, and no barrier can order them"
            )
        } else {
            format!(
                "cross-group hazard between stage {se} and stage {sl} ({d} stage(s) apart, equal to the phase gap {}): the two wave groups run them at the same time, and no barrier can order them; multi-buffer the memory (a slot view) or move the accesses further apart",
                p.gap
            )
        };
        err(x.loc, what)
            .with_note(y.loc, format!("the other access (stage {sl})"))
            .with_note(p.stages[se].loc, format!("stage {se} starts here"))
            .with_note(p.stages[sl].loc, format!("stage {sl} starts here"))
    }

    /// Chooses the fencing boundaries of `p`; false on error.
    fn choose_fences(&mut self, p: &mut Pipeline) -> bool {
        let (mut needs, errors) = self.needs(p);
        if !errors.is_empty() {
            self.report.diagnostics.extend(errors);
            return false;
        }
        self.report.hazards += needs.len();
        let k = self.k;
        let stmts = &k.blocks[p.body].stmts;
        let n = p.stages.len();
        // Boundaries the input already fences (an exec-only barrier or a wait is not trusted).
        let mut pre: BTreeSet<usize> = BTreeSet::new();
        let last = if p.is_loop() { n } else { n - 1 };
        for s in 0..last {
            let run = p.stages[s].run;
            if stmts[run.0..run.1].iter().any(|&x| {
                matches!(
                    k.stmts[x].kind,
                    StmtKind::Sync(SyncOp::Barrier {
                        id: 0,
                        fence: true,
                        ..
                    })
                )
            }) {
                pre.insert((s + 1) % n);
            }
        }
        needs.sort_by_key(|a| a.window.len());
        let (wait_needs, needs): (Vec<Need>, Vec<Need>) =
            needs.into_iter().partition(|nd| nd.wait.is_some());
        p.waits = self.choose_waits(p, &wait_needs);
        let mut chosen: BTreeSet<usize> = BTreeSet::new();
        for nd in &needs {
            if nd
                .window
                .iter()
                .any(|s| pre.contains(s) || chosen.contains(s))
            {
                continue;
            }
            if let Some(&s) = nd.window.last() {
                chosen.insert(s);
            }
        }
        // Drop fences the others make redundant.
        for s in chosen.clone() {
            chosen.remove(&s);
            let ok = needs.iter().all(|nd| {
                nd.window
                    .iter()
                    .any(|x| pre.contains(x) || chosen.contains(x))
            });
            if !ok {
                chosen.insert(s);
            }
        }
        p.fences = pre.union(&chosen).copied().collect();
        for nd in &needs {
            for s in nd.window.iter().filter(|s| chosen.contains(s)) {
                let r = p.reasons.entry(*s).or_default();
                for c in &nd.more {
                    if r.len() < 8 && !r.contains(c) {
                        r.push(c.clone());
                    }
                }
            }
        }
        true
    }

    /// Waits already at each boundary slot before its barrier: the smallest count per
    /// counter.
    fn existing_waits(&self, p: &Pipeline) -> BTreeMap<(usize, Counter), u32> {
        let k = self.k;
        let stmts = &k.blocks[p.body].stmts;
        let n = p.stages.len();
        let last = if p.is_loop() { n } else { n - 1 };
        let mut out: BTreeMap<(usize, Counter), u32> = BTreeMap::new();
        for s in 0..last {
            let run = p.stages[s].run;
            let bar = (run.0..run.1)
                .find(|&i| {
                    matches!(
                        k.stmts[stmts[i]].kind,
                        StmtKind::Sync(SyncOp::Barrier { .. })
                    )
                })
                .unwrap_or(run.1);
            for &x in &stmts[run.0..bar] {
                if let StmtKind::Sync(SyncOp::CounterWait { counter, n: c }) = k.stmts[x].kind {
                    let e = out.entry(((s + 1) % n, counter)).or_insert(c);
                    *e = (*e).min(c);
                }
            }
        }
        out
    }

    /// Chooses the counter waits for async accesses that run first in a pair: the boundary
    /// closest to the consumer, sharing a wait where one already sits in the window.
    fn choose_waits(&self, p: &Pipeline, needs: &[Need]) -> BTreeMap<(usize, Counter), u32> {
        let pre = self.existing_waits(p);
        let mut chosen: BTreeMap<(usize, Counter), u32> = BTreeMap::new();
        for nd in needs {
            let Some(req) = nd.wait else { continue };
            // The loosest count that still completes the access at each slot of the window.
            let mut allowed: BTreeMap<usize, u32> = BTreeMap::new();
            for (i, &slot) in nd.window.iter().enumerate() {
                let c = wait_count(p, &req, nd.positions[i]);
                let e = allowed.entry(slot).or_insert(c);
                *e = (*e).max(c);
            }
            if allowed
                .iter()
                .any(|(slot, &c)| pre.get(&(*slot, req.counter)).is_some_and(|&v| v <= c))
            {
                continue;
            }
            if let Some((slot, c)) = allowed
                .iter()
                .find(|(slot, _)| chosen.contains_key(&(**slot, req.counter)))
                .map(|(s, c)| (*s, *c))
            {
                let e = chosen.get_mut(&(slot, req.counter)).expect("present");
                *e = (*e).min(c);
                continue;
            }
            if let (Some(&slot), Some(&pos)) = (nd.window.last(), nd.positions.last()) {
                chosen.insert((slot, req.counter), wait_count(p, &req, pos));
            }
        }
        chosen
    }

    fn emit_flats(&mut self, block: BlockId, flats: &[Pipeline]) {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let mut pipes = Vec::new();
        for f in flats {
            let mut f = f.clone();
            if !self.choose_fences(&mut f) {
                return;
            }
            pipes.push(f);
        }
        let only_syncs = |a: usize, b: usize| {
            stmts[a..b]
                .iter()
                .all(|&s| matches!(k.stmts[s].kind, StmtKind::Sync(_)))
        };
        for (n, p) in pipes.iter().enumerate() {
            self.emit_boundaries(p);
            let (start, end) = p.span;
            let mut pre = start;
            while pre > 0 && matches!(k.stmts[stmts[pre - 1]].kind, StmtKind::Sync(_)) {
                pre -= 1;
            }
            let mut post = end + 1;
            while post < stmts.len() && matches!(k.stmts[stmts[post]].kind, StmtKind::Sync(_)) {
                post += 1;
            }
            let joined_before = n > 0 && {
                let prev = &pipes[n - 1];
                only_syncs(prev.span.1 + 1, start)
                    && self.flat_merge(prev, p, prev.span.1 + 1, start)
            };
            let joined_after = n + 1 < pipes.len() && {
                let next = &pipes[n + 1];
                only_syncs(end + 1, next.span.0) && self.flat_merge(p, next, end + 1, next.span.0)
            };
            let loc = p.stages[0].loc;
            if joined_before {
                // The pair between the pipelines becomes one boundary: the last stage of the
                // previous pipeline and this one's first stage stay apart.
                let prev = &pipes[n - 1];
                let run = (pre, start);
                let needs_fence = self.junction_needs_fence(prev, p);
                self.junction(block, run, needs_fence);
                if p.uses_prio() || prev.uses_prio() {
                    self.ensure_prio(block, run, p.prio(0));
                }
            } else {
                self.emit_prelude(p, block, (pre, start), loc);
            }
            if !joined_after {
                self.emit_postlude(p, block, (end + 1, post), loc);
            }
        }
    }

    /// Two back-to-back flat pipelines merge into one (their junction becomes a boundary)
    /// when nothing shifted or reconverged them already and no pair across them runs in one
    /// interval of the two groups.
    fn flat_merge(&self, a: &Pipeline, b: &Pipeline, from: usize, to: usize) -> bool {
        let k = self.k;
        let stmts = &k.blocks[a.block].stmts;
        if stmts[from..to]
            .iter()
            .any(|&s| matches!(k.stmts[s].kind, StmtKind::Sync(SyncOp::CondBarrier { .. })))
        {
            return false;
        }
        // Async copies keep their pipelines apart: their waits are placed per pipeline.
        if a.stages
            .iter()
            .chain(&b.stages)
            .any(|st| st.accesses.iter().any(|x| x.async_counter.is_some()))
        {
            return false;
        }
        let merged = self.merged_flat(a, b);
        let (needs, errors) = self.needs(&merged);
        if !errors.is_empty() {
            return false;
        }
        // Fencing the junction must be enough: the two pipelines keep their own fences.
        let na = a.stages.len();
        let mut fenced: BTreeSet<usize> = a.fences.clone();
        fenced.extend(b.fences.iter().map(|f| f + na));
        fenced.insert(na);
        needs
            .iter()
            .all(|nd| nd.window.iter().any(|s| fenced.contains(s)))
    }

    fn merged_flat(&self, a: &Pipeline, b: &Pipeline) -> Pipeline {
        let mut m = a.clone();
        m.stages.extend(b.stages.iter().cloned());
        m
    }

    /// Whether the boundary joining two flat pipelines must fence.
    fn junction_needs_fence(&self, a: &Pipeline, b: &Pipeline) -> bool {
        let mut m = self.merged_flat(a, b);
        let na = a.stages.len();
        let mut pre = BTreeSet::new();
        for &f in &a.fences {
            pre.insert(f);
        }
        for &f in &b.fences {
            pre.insert(f + na);
        }
        let (needs, _) = self.needs(&m);
        m.fences.clear();
        needs
            .iter()
            .any(|nd| !nd.window.iter().any(|s| pre.contains(s)))
    }

    fn junction(&mut self, block: BlockId, run: (usize, usize), fence: bool) {
        let k = self.k;
        let stmts = &k.blocks[block].stmts;
        let bar = (run.0..run.1).find(|&i| {
            matches!(
                k.stmts[stmts[i]].kind,
                StmtKind::Sync(SyncOp::Barrier { id: 0, .. })
            )
        });
        let at = ProgramPoint {
            block,
            index: run.1,
        };
        match bar {
            Some(j) => {
                if fence {
                    if let StmtKind::Sync(SyncOp::Barrier { fence: false, .. }) =
                        k.stmts[stmts[j]].kind
                    {
                        self.upgrades.push(stmts[j]);
                    }
                }
            }
            None => {
                self.push(at, SyncOp::SchedBarrier { mask: 0 });
                self.push(
                    at,
                    SyncOp::Barrier {
                        id: 0,
                        fence,
                        threads: None,
                    },
                );
                self.push(at, SyncOp::SchedBarrier { mask: 0 });
            }
        }
    }
}

/// The first stage marker under a divergent `if`, with the `if`'s location.
fn marker_under_divergence(
    k: &Kernel,
    block: BlockId,
    divergent: Option<Option<Loc>>,
) -> Option<(Option<Loc>, Option<Loc>)> {
    for &s in &k.blocks[block].stmts {
        let d = &k.stmts[s];
        match &d.kind {
            StmtKind::Stage(_) | StmtKind::StageEnd => {
                if let Some(if_loc) = divergent {
                    return Some((d.loc, if_loc));
                }
            }
            StmtKind::If(i) => {
                let inner =
                    if i.uniformity == syncopt_ir::Uniformity::Divergent && divergent.is_none() {
                        Some(d.loc)
                    } else {
                        divergent
                    };
                for c in d.kind.child_block_ids() {
                    if let Some(found) = marker_under_divergence(k, c, inner) {
                        return Some(found);
                    }
                }
            }
            _ => {
                for c in d.kind.child_block_ids() {
                    if let Some(found) = marker_under_divergence(k, c, divergent) {
                        return Some(found);
                    }
                }
            }
        }
    }
    None
}

/// The windows of instance positions (inclusive; position x means the boundary after
/// instance x) one of which must fence, for a conflicting pair at instances e < l with gap
/// g; `None` when the pair runs in one interval (no barrier orders it).
/// The second of each pair says whether `l`'s access runs first (the low group runs `l`
/// before the high group runs `e`).
fn windows(e: usize, l: usize, g: usize) -> Vec<(Option<(usize, usize)>, bool)> {
    let d = l - e;
    let mut out = vec![(if d == 0 { None } else { Some((e, l - 1)) }, false)];
    if d > g {
        out.push((Some((e, l - g - 1)), false));
    } else if d < g {
        out.push((Some((l, e + g - 1)), true));
    } else {
        out.push((None, false));
    }
    out
}

/// Whether accesses `x` (earlier instance) and `y` may touch a common byte from different
/// threads with one of them writing. `shift`: the loop's induction variable and how many
/// iterations later `y`'s instance runs (for slot views).
fn conflicts(x: &Access, y: &Access, shift: Option<(ValueId, i64)>) -> bool {
    if !x.write && !y.write {
        return false;
    }
    if x.atomic && y.atomic {
        return false;
    }
    if !x.roots.iter().any(|r| y.roots.contains(r)) {
        return false;
    }
    // Ownership: the same per-thread index at both instances means the same thread.
    if let (Some(a), Some(b)) = (&x.owner, &y.owner) {
        let moves = match shift {
            Some((iv, delta)) => delta != 0 && a.coef(Var::Value(iv)) != 0,
            None => false,
        };
        if a == b && !moves && x.slot == y.slot && x.range == y.range {
            return false;
        }
    }
    match (&x.slot, &y.slot) {
        (Some(sx), Some(sy))
            if sx.count == sy.count && sx.size == sy.size && sx.base == sy.base =>
        {
            let same = slot_same(sx, sy, shift);
            if same == Some(false) {
                return false;
            }
            overlap(x.range, y.range)
        }
        (Some(sx), _) | (_, Some(sx)) => {
            // Compare the slotted access's whole extent with the other.
            let ext = Some((sx.base, sx.base + sx.size * sx.count as u64));
            let (rx, ry) = if x.slot.is_some() {
                (ext, if y.slot.is_some() { None } else { y.range })
            } else {
                (x.range, ext)
            };
            overlap(rx, ry)
        }
        (None, None) => overlap(x.range, y.range),
    }
}

/// How many async ops on `req`'s counter the issuing wave starts after `req`'s op and up to
/// the boundary after instance `pos` (ops inside an `if` are not counted: waiting for more
/// is safe).
fn wait_count(p: &Pipeline, req: &WaitReq, pos: usize) -> u32 {
    let n = p.stages.len();
    let on = |st: &Stage| st.async_ops.iter().filter(|o| o.1 == req.counter).count();
    let st = &p.stages[req.inst % n];
    let mut c = match st.async_ops.iter().position(|&(o, _)| o == req.op) {
        Some(i) => st.async_ops[i + 1..]
            .iter()
            .filter(|o| o.1 == req.counter)
            .count(),
        None => 0,
    };
    for q in req.inst + 1..=pos {
        c += on(&p.stages[q % n]);
    }
    c as u32
}

/// The least common multiple of the slot counts of `p`'s accesses (1 without slots).
/// Slot selections with a larger period are dropped (taken as the whole extent) so the
/// ring walk stays short.
fn slot_period(p: &Pipeline) -> usize {
    let mut l: u64 = 1;
    for st in &p.stages {
        for a in &st.accesses {
            if let Some(s) = &a.slot {
                let c = s.count.max(1) as u64;
                l = l / gcd(l, c) * c;
                if l > MAX_SLOT_PERIOD {
                    return 1;
                }
            }
        }
    }
    l as usize
}

const MAX_SLOT_PERIOD: u64 = 16;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether two slot selections pick the same slot: `Some` when it is decided statically.
fn slot_same(a: &SlotSel, b: &SlotSel, shift: Option<(ValueId, i64)>) -> Option<bool> {
    // b's index, evaluated `delta` iterations later, minus a's.
    let mut diff = b.index.clone();
    for &(v, c) in &a.index.terms {
        diff.add_term(v, -c);
    }
    diff.constant -= a.index.constant;
    let mut c = diff.constant;
    if let Some((iv, delta)) = shift {
        c += b.index.coef(Var::Value(iv)) * delta;
    }
    if !diff.is_constant() {
        return None;
    }
    Some(c.rem_euclid(a.count as i64) == 0)
}

fn overlap(a: Option<(u64, u64)>, b: Option<(u64, u64)>) -> bool {
    match (a, b) {
        (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1,
        _ => true,
    }
}

/// How many `cond_barrier group` statements stand in `stmts[run.0..run.1]` of `block`: the
/// shift (or reconvergence) an earlier conversion already put there.
fn count_cond_barriers(k: &Kernel, block: BlockId, run: (usize, usize), group: Group) -> usize {
    k.blocks[block].stmts[run.0..run.1]
        .iter()
        .filter(|&&s| matches!(k.stmts[s].kind, StmtKind::Sync(SyncOp::CondBarrier { group: g }) if g == group))
        .count()
}
