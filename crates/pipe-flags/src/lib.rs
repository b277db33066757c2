//! Ascend multi-pipe synchronization (semantics.md 4.2 and 5): `set_flag`/`wait_flag` pairs
//! between pipes, `pipe_barrier` for same-pipe dependences on V/M, event-id colouring, and
//! double-buffered ids for loop-carried pairs.
//!
//! How it works:
//! 1. Every op gets a pipe and the footprints of its accesses (`footprint`).
//! 2. Hazards are found per alias class by scanning back from each consumer; per producer pipe
//!    the scan stops at the first conflicting producer that runs on every path to the consumer,
//!    since a `set_flag` after it fires only when every earlier op of its pipe has completed.
//! 3. Each hazard is placed in one statement list: the lowest common block for same-iteration
//!    pairs (set right after the producer's statement, wait right before the consumer's), the
//!    loop body for loop-carried pairs (set after the producer, wait before the consumer, one
//!    set before the loop and one wait after it so every path stays balanced).
//! 4. A sweep over each list in program order (inner lists first; a loop body three times,
//!    for iterations i, i+1, i+2) tracks what every pipe knows to be complete: a vector clock
//!    per pipe, fed by the input's syncs, the pairs chosen so far, and summaries of nested
//!    loops and ifs (what they guarantee at exit, what their statements know of the ops before
//!    them). A hazard already ordered is skipped; the rest at one wait point and pipe pair
//!    share one pair whose set sits after the latest of their producers (the consumer needs
//!    it anyway), and a pair the other new pairs there already imply is dropped.
//! 5. Ids are coloured per source pipe over the pairs' live ranges; pairs that find no id get
//!    `pipe_barrier ALL` and a warning.

use std::collections::BTreeMap;

use syncopt_analysis::{Covered, Explain, InsertOptions, PassReport};
use syncopt_ir::{
    AccessKind, AffineExpr, BlockId, Diagnostic, FlagId, Kernel, Loc, Pipe, ProgramPoint, StmtId,
    StmtKind, SyncOp, ValueId, Var,
};
use syncopt_targets::{Family, Target};

pub mod footprint;

use footprint::{Footprint, Relation};

const NP: usize = 7;
/// Rounds of re-placement after an id shortage before the rest fall back at once.
const MAX_FALLBACK_ROUNDS: usize = 32;
type Vc = [[i32; NP]; NP];

fn pix(p: Pipe) -> usize {
    p as usize
}

struct Acc {
    kind: AccessKind,
    fp: Footprint,
}

struct OpInfo {
    pipe: Pipe,
    loc: Option<Loc>,
    /// `(block, index)` of every enclosing statement, outermost first; the last is the op.
    path: Vec<(BlockId, usize)>,
    accs: Vec<Acc>,
}

struct LoopInfo {
    iv: ValueId,
    step: i64,
    body: BlockId,
    /// Op indices `[start, end)` inside the loop.
    ops: (usize, usize),
}

#[derive(Clone, Debug)]
struct Hazard {
    x: usize,
    y: usize,
    kind: &'static str,
    block: BlockId,
    ix: usize,
    iy: usize,
    /// Loop-carried in this loop (producer at or after the consumer in the body), with the
    /// smallest iteration distance at which the accesses conflict.
    carried: Option<(StmtId, u64)>,
}

#[derive(Clone, Debug)]
struct Group {
    block: BlockId,
    set: usize,
    wait: usize,
    src: Pipe,
    dst: Pipe,
    carried: Option<StmtId>,
    double: bool,
    hazards: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Bar {
    block: BlockId,
    point: usize,
    pipe: Pipe,
    hazards: Vec<usize>,
}

struct Ctx<'k> {
    kernel: &'k Kernel,
    ops: Vec<OpInfo>,
    loops: BTreeMap<StmtId, LoopInfo>,
    /// Where each statement sits: its block and index.
    place: BTreeMap<StmtId, (BlockId, usize)>,
    barrier_pipes: Vec<Pipe>,
    diags: Vec<Diagnostic>,
    /// Pipes (bit per pipe) of the ops inside each statement.
    pipes_in: BTreeMap<StmtId, u8>,
    /// What each swept block guarantees at its exit (see `sweep`).
    summaries: BTreeMap<BlockId, Summary>,
    /// Per block and point: bit `r * 7 + q` when pipe r knows every op of pipe q from before
    /// the block's entry (see `sweep`).
    entry: BTreeMap<BlockId, Vec<u64>>,
    /// Per loop body: (src, dst) pairs whose loop-carried flag orders, once waited right
    /// after the loop, every op of src in and before the loop (see `exit_grants`).
    grants: std::cell::RefCell<BTreeMap<BlockId, Vec<Grant>>>,
    /// Blocks, inner before outer.
    post_order: Vec<BlockId>,
}

/// Runs the pass on `kernel` for `target`.
pub fn run(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    let mut report = PassReport::default();
    if target.family() != Family::Ascend {
        return report;
    }
    let (items, covers, hazards, diags) = {
        let mut cx = Ctx {
            kernel,
            ops: Vec::new(),
            loops: BTreeMap::new(),
            place: BTreeMap::new(),
            barrier_pipes: target.info().same_pipe_barrier.to_vec(),
            diags: Vec::new(),
            pipes_in: BTreeMap::new(),
            summaries: BTreeMap::new(),
            entry: BTreeMap::new(),
            grants: Default::default(),
            post_order: Vec::new(),
        };
        let classes = footprint::alias_classes(kernel);
        let mut path = Vec::new();
        cx.collect(kernel.body, &mut path, &classes, target);
        let hazards = cx.hazards();
        // When ids run out, the first pair that found none becomes a `pipe_barrier ALL` and
        // placement runs again: the barrier may order other hazards, freeing their ids.
        let mut forced: Vec<(BlockId, usize, Vec<usize>)> = Vec::new();
        let mut round = 0;
        let (groups, bars, ids) = loop {
            let (groups, bars) = cx.place_all(&hazards, opts, &forced);
            let (ids, failed) = cx.assign_ids(&groups, target, opts);
            round += 1;
            match failed.first() {
                Some(&g) if round <= MAX_FALLBACK_ROUNDS => {
                    forced.push((groups[g].block, groups[g].wait, groups[g].hazards.clone()));
                }
                _ => break (groups, bars, ids),
            }
        };
        // A later fallback may order what an earlier one was added for: drop those that
        // are no longer needed for the ids to suffice.
        let (mut groups, mut bars, mut ids) = (groups, bars, ids);
        let mut i = forced.len();
        while i > 0 && round <= MAX_FALLBACK_ROUNDS {
            i -= 1;
            let mut fewer = forced.clone();
            fewer.remove(i);
            let (g2, b2) = cx.place_all(&hazards, opts, &fewer);
            let (ids2, failed) = cx.assign_ids(&g2, target, opts);
            if failed.is_empty() {
                forced = fewer;
                (groups, bars, ids) = (g2, b2, ids2);
            }
        }
        let (items, covers) = cx.emit(&hazards, groups, bars, ids, forced, opts);
        (items, covers, hazards.len(), cx.diags)
    };
    report.hazards = hazards;
    report.diagnostics = diags;
    // insert_syncs sorts stably by point; mirror that to pair created statements with covers.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| items[i].0);
    let created = kernel.insert_syncs(items);
    for (k, &i) in order.iter().enumerate() {
        if let Some(&s) = created.get(k) {
            report.explain.push(Explain {
                stmt: s,
                covers: covers[i].clone(),
            });
        }
    }
    report
}

impl<'k> Ctx<'k> {
    fn collect(
        &mut self,
        block: BlockId,
        path: &mut Vec<(BlockId, usize)>,
        classes: &[u32],
        target: Target,
    ) -> u8 {
        let k = self.kernel;
        let mut block_mask = 0u8;
        for (i, &s) in k.blocks[block].stmts.iter().enumerate() {
            self.place.insert(s, (block, i));
            path.push((block, i));
            let data = &k.stmts[s];
            let mut mask = 0u8;
            match &data.kind {
                StmtKind::Op(op) => {
                    let mut accs = Vec::new();
                    for e in &op.effects {
                        let mut fps = Vec::new();
                        footprint::footprints(k, classes, e.mem.value, &e.mem.sel, &mut fps);
                        for (fp, _) in fps {
                            accs.push(Acc { kind: e.kind, fp });
                        }
                    }
                    if !accs.is_empty() {
                        match target.pipe_of(k, op) {
                            Some(p) if p != Pipe::All => {
                                mask = 1 << pix(p);
                                self.ops.push(OpInfo {
                                    pipe: p,
                                    loc: data.loc,
                                    path: path.clone(),
                                    accs,
                                })
                            }
                            _ => self.diags.push(Diagnostic::error(
                                data.loc,
                                format!(
                                    "cannot tell which pipe op \"{}\" runs on: add `pipe P` \
                                     (one of S V M MTE1 MTE2 MTE3 FIX)",
                                    op.name
                                ),
                            )),
                        }
                    }
                }
                StmtKind::For(f) => {
                    let start = self.ops.len();
                    mask = self.collect(f.body, path, classes, target);
                    self.loops.insert(
                        s,
                        LoopInfo {
                            iv: f.iv,
                            step: f.step,
                            body: f.body,
                            ops: (start, self.ops.len()),
                        },
                    );
                }
                StmtKind::If(ifd) => {
                    mask = self.collect(ifd.then_block, path, classes, target);
                    if let Some(e) = ifd.else_block {
                        mask |= self.collect(e, path, classes, target);
                    }
                }
                _ => {}
            }
            self.pipes_in.insert(s, mask);
            block_mask |= mask;
            path.pop();
        }
        self.post_order.push(block);
        block_mask
    }

    fn stmt_at(&self, (b, i): (BlockId, usize)) -> StmtId {
        self.kernel.blocks[b].stmts[i]
    }

    /// Loops enclosing both ops (outermost first) with their path positions, and the first
    /// path position where the two paths differ.
    fn common(&self, x: usize, y: usize) -> (usize, Vec<(usize, StmtId)>) {
        let (px, py) = (&self.ops[x].path, &self.ops[y].path);
        let n = px.len().min(py.len());
        let m = (0..n).find(|&i| px[i] != py[i]).unwrap_or(n);
        let lim = if x == y { px.len() - 1 } else { m };
        let loops = (0..lim)
            .filter_map(|i| {
                let s = self.stmt_at(px[i]);
                self.loops.contains_key(&s).then_some((i, s))
            })
            .collect();
        (m, loops)
    }

    fn needs_sync(&self, p: Pipe, q: Pipe) -> bool {
        p != q || self.barrier_pipes.contains(&p)
    }

    fn hazards(&mut self) -> Vec<Hazard> {
        let nclass = self
            .ops
            .iter()
            .flat_map(|o| o.accs.iter().map(|a| a.fp.class as usize + 1))
            .max()
            .unwrap_or(0);
        let mut writes: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nclass];
        let mut all: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nclass];
        for (o, op) in self.ops.iter().enumerate() {
            for (a, acc) in op.accs.iter().enumerate() {
                let c = acc.fp.class as usize;
                all[c].push((o, a));
                if acc.kind.writes() {
                    writes[c].push((o, a));
                }
            }
        }
        // Pipes present in each list: a scan stops once every one of them is settled.
        let mask_of = |l: &Vec<(usize, usize)>| {
            l.iter()
                .fold(0u8, |m, &(o, _)| m | 1 << pix(self.ops[o].pipe))
        };
        let all_mask: Vec<u8> = all.iter().map(mask_of).collect();
        let write_mask: Vec<u8> = writes.iter().map(mask_of).collect();
        let mut out = Vec::new();
        for y in 0..self.ops.len() {
            for ay in 0..self.ops[y].accs.len() {
                let acc = &self.ops[y].accs[ay];
                let c = acc.fp.class as usize;
                let (list, present) = if acc.kind.writes() {
                    (&all[c], all_mask[c])
                } else {
                    (&writes[c], write_mask[c])
                };
                self.scan_forward(y, ay, list, present, &mut out);
                let loops: Vec<(usize, StmtId)> = self.ops[y]
                    .path
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &pt)| {
                        let s = self.stmt_at(pt);
                        self.loops.contains_key(&s).then_some((i, s))
                    })
                    .collect();
                for (pos, f) in loops {
                    self.scan_carried(y, ay, list, present, pos, f, &mut out);
                }
            }
        }
        out
    }

    fn kind_of(&self, x: usize, ax: usize, y: usize, ay: usize) -> Option<&'static str> {
        let (kx, ky) = (self.ops[x].accs[ax].kind, self.ops[y].accs[ay].kind);
        match (kx, ky) {
            (AccessKind::Read, AccessKind::Read) | (AccessKind::Atomic, AccessKind::Atomic) => None,
            (AccessKind::Read, _) => Some("WAR"),
            (_, AccessKind::Read) => Some("RAW"),
            _ => Some("WAW"),
        }
    }

    /// Producer pipes a scan for a consumer on `q` never has to look for.
    fn initially_stopped(&self, q: Pipe, present: u8) -> [bool; NP] {
        let mut st = [false; NP];
        for &p in Pipe::REAL {
            st[pix(p)] = present & (1 << pix(p)) == 0 || !self.needs_sync(p, q);
        }
        st
    }

    fn first_diff(&self, x: usize, y: usize) -> usize {
        let (px, py) = (&self.ops[x].path, &self.ops[y].path);
        let n = px.len().min(py.len());
        (0..n).find(|&i| px[i] != py[i]).unwrap_or(n)
    }

    fn scan_forward(
        &self,
        y: usize,
        ay: usize,
        list: &[(usize, usize)],
        present: u8,
        out: &mut Vec<Hazard>,
    ) {
        let q = self.ops[y].pipe;
        let mut stopped = self.initially_stopped(q, present);
        // Lists where a hazard from each pipe was already found: an earlier producer whose
        // statement in that list is at or before the found one adds nothing (its set point
        // is no later, its wait point the same).
        let mut seen: [Vec<BlockId>; NP] = Default::default();
        let end = list.partition_point(|&(o, _)| o < y);
        let fy = &self.ops[y].accs[ay].fp;
        for &(x, ax) in list[..end].iter().rev() {
            let p = self.ops[x].pipe;
            if stopped[pix(p)] || !self.needs_sync(p, q) {
                continue;
            }
            let Some(kind) = self.kind_of(x, ax, y, ay) else {
                continue;
            };
            let m = self.first_diff(x, y);
            let (px, py) = (&self.ops[x].path, &self.ops[y].path);
            if px[m].0 != py[m].0 {
                continue; // different branches of one `if`: never in one iteration
            }
            let block = px[m].0;
            let dominates = m == px.len() - 1;
            let dup = seen[pix(p)].contains(&block);
            if dup && !dominates {
                continue;
            }
            let fx = &self.ops[x].accs[ax].fp;
            let hit = if fx.slots.is_empty() && fy.slots.is_empty() {
                footprint::conflict(
                    fx,
                    fy,
                    &Relation {
                        shared: &[],
                        shift: None,
                    },
                )
            } else {
                let (_, loops) = self.common(x, y);
                let shared: Vec<ValueId> = loops.iter().map(|&(_, f)| self.loops[&f].iv).collect();
                footprint::conflict(
                    fx,
                    fy,
                    &Relation {
                        shared: &shared,
                        shift: None,
                    },
                )
            };
            if !hit {
                continue;
            }
            if !dup {
                out.push(Hazard {
                    x,
                    y,
                    kind,
                    block,
                    ix: px[m].1,
                    iy: py[m].1,
                    carried: None,
                });
                seen[pix(p)].push(block);
            }
            // The producer runs on every path to the consumer: a set after it covers all
            // earlier producers of its pipe.
            if dominates {
                stopped[pix(p)] = true;
                if stopped.iter().all(|&s| s) {
                    break;
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn scan_carried(
        &self,
        y: usize,
        ay: usize,
        list: &[(usize, usize)],
        present: u8,
        pos: usize,
        f: StmtId,
        out: &mut Vec<Hazard>,
    ) {
        let q = self.ops[y].pipe;
        let lp = &self.loops[&f];
        let lo = list.partition_point(|&(o, _)| o < lp.ops.0);
        let hi = list.partition_point(|&(o, _)| o < lp.ops.1);
        let mut stopped = self.initially_stopped(q, present);
        // Per pipe: a distance-1 hazard already found as loop-carried / as same-iteration.
        let mut seen = [[false; 2]; NP];
        let fy = &self.ops[y].accs[ay].fp;
        let iy = self.ops[y].path[pos + 1].1;
        for &(x, ax) in list[lo..hi].iter().rev() {
            let p = self.ops[x].pipe;
            if stopped[pix(p)] || !self.needs_sync(p, q) {
                continue;
            }
            if x == y && ax == ay && !self.ops[x].accs[ax].kind.writes() {
                continue;
            }
            let Some(kind) = self.kind_of(x, ax, y, ay) else {
                continue;
            };
            let px = &self.ops[x].path;
            let ix = px[pos + 1].1;
            let back = usize::from(ix >= iy);
            let dominates = px.len() == pos + 2;
            let dup = seen[pix(p)][back];
            if dup && !dominates {
                continue;
            }
            let fx = &self.ops[x].accs[ax].fp;
            let min_d = if fx.slots.is_empty() && fy.slots.is_empty() {
                footprint::conflict(
                    fx,
                    fy,
                    &Relation {
                        shared: &[],
                        shift: None,
                    },
                )
                .then_some(1)
            } else {
                let (_, loops) = self.common(x, y);
                let shared: Vec<ValueId> = loops
                    .iter()
                    .filter(|&&(i, _)| i < pos)
                    .map(|&(_, g)| self.loops[&g].iv)
                    .collect();
                let period = footprint::period(fx, fy).max(1) as i64;
                (1..=period.max(2)).find(|&d| {
                    let rel = Relation {
                        shared: &shared,
                        shift: Some((lp.iv, lp.step, d)),
                    };
                    footprint::conflict(fx, fy, &rel)
                })
            };
            let Some(min_d) = min_d else { continue };
            if dup {
                if min_d == 1 {
                    stopped[pix(p)] = true;
                    if stopped.iter().all(|&s| s) {
                        break;
                    }
                }
                continue;
            }
            out.push(Hazard {
                x,
                y,
                kind,
                block: lp.body,
                ix,
                iy,
                // A producer before the consumer in the body is ordered like a same-iteration
                // pair: the set after it in iteration i+1 fires after iteration i's as well.
                carried: (ix >= iy).then_some((f, min_d as u64)),
            });
            if min_d == 1 {
                seen[pix(p)][back] = true;
                if dominates {
                    stopped[pix(p)] = true;
                    if stopped.iter().all(|&s| s) {
                        break;
                    }
                }
            }
        }
    }

    /// Chooses pairs and barriers, one statement list at a time.
    fn place_all(
        &mut self,
        hz: &[Hazard],
        opts: &InsertOptions,
        forced: &[(BlockId, usize, Vec<usize>)],
    ) -> (Vec<Group>, Vec<Bar>) {
        let mut by_block: BTreeMap<BlockId, Vec<usize>> = BTreeMap::new();
        for (i, h) in hz.iter().enumerate() {
            by_block.entry(h.block).or_default().push(i);
        }
        let mut groups = Vec::new();
        let mut bars = Vec::new();
        self.summaries.clear();
        self.entry.clear();
        self.grants.borrow_mut().clear();
        for b in self.post_order.clone() {
            let list = by_block.remove(&b).unwrap_or_default();
            let f: Vec<usize> = forced.iter().filter(|x| x.0 == b).map(|x| x.1).collect();
            let (sum, entry) = self.sweep(b, &list, hz, opts, &f, &mut groups, &mut bars);
            self.summaries.insert(b, sum);
            self.entry.insert(b, entry);
        }
        (groups, bars)
    }

    fn loop_of_body(&self, b: BlockId) -> Option<StmtId> {
        let p = self.kernel.blocks[b].parent?;
        self.loops.contains_key(&p).then_some(p)
    }

    #[allow(clippy::too_many_arguments)]
    /// Sweeps one statement list in program order. A loop body is swept three times in a
    /// row (iterations i, i+1, i+2): same-iteration pairs are chosen in the first copy,
    /// distance-1 loop-carried pairs in the second, double-buffered ones (whose accesses
    /// meet only two or more iterations apart) in the third.
    #[allow(clippy::too_many_arguments)]
    fn sweep(
        &self,
        b: BlockId,
        list: &[usize],
        hz: &[Hazard],
        opts: &InsertOptions,
        forced: &[usize],
        groups: &mut Vec<Group>,
        bars: &mut Vec<Bar>,
    ) -> (Summary, Vec<u64>) {
        let stmts = &self.kernel.blocks[b].stmts;
        let n = stmts.len();
        if n == 0 {
            return ([[true; NP]; NP], vec![0]);
        }
        let lp = self.loop_of_body(b);
        let copies = if lp.is_some() { 3 } else { 1 };
        let total = copies * n;
        let mut intra: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut near: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut far: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &h in list {
            let hh = &hz[h];
            match hh.carried {
                None => intra[hh.iy].push(h),
                Some(_) if self.double_eligible(hh, opts) => far[hh.iy].push(h),
                Some(_) => near[hh.iy].push(h),
            }
        }
        let iv = lp
            .filter(|f| self.loops[f].step % 2 != 0)
            .map(|f| self.loops[&f].iv);
        let first_group = groups.len();
        let first_bar = bars.len();
        // Pairs and barriers chosen so far, by wait point (rebuilt at each copy's start).
        let index = |groups: &[Group], bars: &[Bar]| {
            let mut gi: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
            let mut bi: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
            for (k, g) in groups.iter().enumerate().skip(first_group) {
                gi[g.wait].push(k);
            }
            for (k, b) in bars.iter().enumerate().skip(first_bar) {
                bi[b.point].push(k);
            }
            (gi, bi)
        };
        let (mut gi, mut bi) = (Vec::new(), Vec::new());
        let mut st = SweepState::new();
        let mut hist: Vec<Vc> = Vec::with_capacity(total + 1);
        for p in 0..=total {
            hist.push(st.vc);
            let c = (p / n).min(copies - 1);
            let i = p - c * n;
            if c > 0 && i == 0 {
                (gi, bi) = index(groups, bars);
            }
            if forced.contains(&i) {
                st.apply(&SyncOp::PipeBarrier { pipe: Pipe::All }, p as i32, c, None);
            }
            if c == 0 {
                self.decide(
                    b, p, i, &intra[i], hz, opts, &hist, &mut st.vc, groups, bars,
                );
            } else {
                // Pairs and barriers chosen in earlier copies act again in this one.
                for &k in &gi[i] {
                    let g = &groups[k];
                    let set = match g.carried {
                        None => c * n + g.set,
                        Some(_) if !g.double && c == 2 => n + g.set,
                        Some(_) => continue,
                    };
                    st.join_pair(&hist[set], g.src, g.dst, set as i32);
                }
                for &k in &bi[i] {
                    {
                        let bar = &bars[k];
                        st.apply(&SyncOp::PipeBarrier { pipe: bar.pipe }, p as i32, c, None);
                    }
                }
                let bucket = if c == 1 { &near[i] } else { &far[i] };
                self.decide(b, p, i, bucket, hz, opts, &hist, &mut st.vc, groups, bars);
            }
            if p < total {
                self.step_stmt(stmts[i], p as i32, c, iv, &mut st);
            }
        }
        // Replay one pass with everything chosen: once from "nothing before the block is
        // known" (-1), recording what each point knows of the ops before the block's entry
        // (a consumer nested here may be ordered by syncs inside), and once from position 0
        // for what the block guarantees at its exit.
        let mut entry = vec![0u64; n + 1];
        let mut sum = [[false; NP]; NP];
        (gi, bi) = index(groups, bars);
        for init in [-1, 0] {
            let mut st = SweepState::new();
            st.vc = [[init; NP]; NP];
            if init < 0 {
                // In a loop body, "before the entry" means before the loop: flags set right
                // before the loop fire after all of it, and so does each iteration's
                // loop-carried set for the next.
                if let Some(f) = lp {
                    st.flags = self.pending_before(f);
                }
            }
            let mut hist: Vec<Vc> = Vec::with_capacity(n + 1);
            for p in 0..=n {
                hist.push(st.vc);
                if forced.contains(&p) {
                    st.apply(&SyncOp::PipeBarrier { pipe: Pipe::All }, p as i32, 0, None);
                }
                for &k in &gi[p] {
                    let g = &groups[k];
                    match g.carried {
                        None => st.join_pair(&hist[g.set], g.src, g.dst, g.set as i32),
                        Some(_) if init < 0 => {
                            let (d, s) = (pix(g.dst), pix(g.src));
                            st.vc[d][s] = st.vc[d][s].max(0);
                        }
                        Some(_) => {}
                    }
                }
                for &k in &bi[p] {
                    let bar = &bars[k];
                    {
                        st.apply(&SyncOp::PipeBarrier { pipe: bar.pipe }, p as i32, 0, None);
                    }
                }
                if init < 0 {
                    for r in 0..NP {
                        for q in 0..NP {
                            if st.vc[r][q] >= 0 {
                                entry[p] |= 1 << (r * NP + q);
                            }
                        }
                    }
                }
                if p < n {
                    self.step_stmt(stmts[p], p as i32, 0, iv, &mut st);
                }
            }
            if init == 0 {
                for (r, row) in sum.iter_mut().enumerate() {
                    for (q, v) in row.iter_mut().enumerate() {
                        *v = st.vc[r][q] >= st.last[q];
                    }
                }
                if let Some(f) = lp {
                    let grants = self.exit_grants(f, &groups[first_group..], &st.last, &hist);
                    self.grants.borrow_mut().insert(b, grants);
                }
            }
        }
        (sum, entry)
    }

    /// Loop-carried pairs of loop `f` whose body set comes after every op of its source
    /// pipe in the body: with the set right before the loop and the wait right after it, the
    /// destination pipe knows every op of the source pipe up to the loop's end.
    fn exit_grants(
        &self,
        f: StmtId,
        chosen: &[Group],
        last: &[i32; NP],
        hist: &[Vc],
    ) -> Vec<Grant> {
        // Which pipes' body ops the source pipe knew of at the set.
        let known = |src: Pipe, set: usize| -> u8 {
            let row = hist[set][pix(src)];
            (0..NP)
                .filter(|&q| row[q] >= last[q])
                .fold(1 << pix(src), |m, q| m | 1 << q)
        };
        let mut out: Vec<Grant> = chosen
            .iter()
            .filter(|g| g.carried == Some(f) && g.set as i32 >= last[pix(g.src)])
            .map(|g| (g.src, g.dst, known(g.src, g.set)))
            .collect();
        // The same shape already in the input.
        let (pb, pi) = self.place[&f];
        let parent = &self.kernel.blocks[pb].stmts;
        let sync_of = |s: StmtId| match &self.kernel.stmts[s].kind {
            StmtKind::Sync(op) => Some(op),
            _ => None,
        };
        let before: Vec<&SyncOp> = parent[..pi]
            .iter()
            .rev()
            .map_while(|&s| sync_of(s))
            .collect();
        let after: Vec<&SyncOp> = parent[pi + 1..].iter().map_while(|&s| sync_of(s)).collect();
        let body = self.loops[&f].body;
        for (i, &s) in self.kernel.blocks[body].stmts.iter().enumerate() {
            let Some(SyncOp::SetFlag { src, dst, id }) = sync_of(s) else {
                continue;
            };
            if (i as i32) < last[pix(*src)] || *src == Pipe::All {
                continue;
            }
            let ok = id.possible_ids().all(|k| {
                let fid = FlagId::fixed(k);
                before.iter().any(|o| matches!(o, SyncOp::SetFlag { src: a, dst: b, id: c } if a == src && b == dst && *c == fid))
                    && after.iter().any(|o| matches!(o, SyncOp::WaitFlag { src: a, dst: b, id: c } if a == src && b == dst && *c == fid))
            });
            let alt_ok = id.alternate.is_none()
                || id
                    .alternate
                    .as_ref()
                    .is_some_and(|(e, n)| *n == 2 && e.coef(Var::Value(self.loops[&f].iv)) != 0);
            if ok && alt_ok {
                out.push((*src, *dst, known(*src, i)));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Flags left set by the run of sync statements right before loop `f`: each fired after
    /// every op of its source pipe before the loop (known as position 0 of the body).
    fn pending_before(&self, f: StmtId) -> Vec<((Pipe, FlagId), [i32; NP])> {
        let (pb, pi) = self.place[&f];
        let stmts = &self.kernel.blocks[pb].stmts[..pi];
        let start = stmts
            .iter()
            .rposition(|&s| !matches!(self.kernel.stmts[s].kind, StmtKind::Sync(_)))
            .map_or(0, |i| i + 1);
        let mut flags: Vec<((Pipe, FlagId), [i32; NP])> = Vec::new();
        for &s in &stmts[start..] {
            match &self.kernel.stmts[s].kind {
                StmtKind::Sync(SyncOp::SetFlag { src, id, .. }) if *src != Pipe::All => {
                    let mut snap = [-1; NP];
                    snap[pix(*src)] = 0;
                    let key = (*src, id.clone());
                    flags.retain(|(k, _)| *k != key);
                    flags.push((key, snap));
                }
                StmtKind::Sync(SyncOp::WaitFlag { src, id, .. }) => {
                    let key = (*src, id.clone());
                    flags.retain(|(k, _)| *k != key);
                }
                _ => {}
            }
        }
        flags
    }

    /// Whether syncs nested between the hazard's list and its consumer already order the
    /// producer: some block on the way down to the consumer knows, at the consumer's
    /// statement, every op of the producer's pipe from before that block's entry.
    fn entry_covered(&self, h: &Hazard) -> bool {
        let (p, q) = (pix(self.ops[h.x].pipe), pix(self.ops[h.y].pipe));
        let bit = 1u64 << (q * NP + p);
        let path = &self.ops[h.y].path;
        let Some(m) = path.iter().position(|&(b, _)| b == h.block) else {
            return false;
        };
        path[m + 1..].iter().any(|&(b, i)| {
            self.entry
                .get(&b)
                .and_then(|v| v.get(i))
                .is_some_and(|&bits| bits & bit != 0)
        })
    }

    /// Advances the sweep over one statement at sweep position `p`: its sync op, or what a
    /// nested loop or `if` guarantees at its exit; pipes the statement does not run stay
    /// known up to after it.
    fn step_stmt(&self, s: StmtId, p: i32, copy: usize, iv: Option<ValueId>, st: &mut SweepState) {
        let data = &self.kernel.stmts[s];
        if let StmtKind::Sync(op) = &data.kind {
            st.apply(op, p, copy, iv);
        }
        let mask = self.pipes_in.get(&s).copied().unwrap_or(0);
        // A statement that always runs its body passes on what the body learns about the
        // ops before it.
        let end_bits = |b: BlockId| {
            self.entry
                .get(&b)
                .and_then(|v| v.last())
                .copied()
                .unwrap_or(0)
        };
        let before_bits = match &data.kind {
            StmtKind::For(f) if f.trips().min >= 1 => end_bits(f.body),
            StmtKind::If(i) => i
                .else_block
                .map_or(0, |e| end_bits(i.then_block) & end_bits(e)),
            _ => 0,
        };
        for r in 0..NP {
            for q in 0..NP {
                if before_bits & (1 << (r * NP + q)) != 0 {
                    st.vc[r][q] = st.vc[r][q].max(p);
                }
            }
        }
        let sum = match &data.kind {
            StmtKind::For(f) => self.summaries.get(&f.body).copied(),
            StmtKind::If(i) => {
                let t = self.summaries.get(&i.then_block).copied();
                let e = match i.else_block {
                    Some(e) => self.summaries.get(&e).copied(),
                    None => Some([[true; NP]; NP]),
                };
                match (t, e) {
                    (Some(t), Some(e)) => {
                        let mut m = [[false; NP]; NP];
                        for r in 0..NP {
                            for q in 0..NP {
                                m[r][q] = t[r][q] && e[r][q];
                            }
                        }
                        Some(m)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        for r in 0..NP {
            for q in 0..NP {
                let runs_q = mask & (1 << q) != 0;
                let inside_known = !runs_q || sum.is_some_and(|m| m[r][q]);
                if inside_known && st.vc[r][q] >= st.last[q] {
                    st.vc[r][q] = st.vc[r][q].max(p + 1);
                }
            }
        }
        if let StmtKind::For(f) = &data.kind {
            if let Some(gr) = self.grants.borrow().get(&f.body) {
                for &(src, dst, mask) in gr {
                    let d = pix(dst);
                    for q in 0..NP {
                        // Ops of q before the loop: through the source pipe when it is q,
                        // else only if the destination knew them already.
                        if mask & (1 << q) != 0 && (q == pix(src) || st.vc[d][q] >= st.last[q]) {
                            st.vc[d][q] = st.vc[d][q].max(p + 1);
                        }
                    }
                }
            }
        }
        for q in 0..NP {
            if mask & (1 << q) != 0 {
                st.last[q] = p + 1;
            }
        }
    }

    /// Whether a loop-carried hazard can take two alternating ids: its accesses never meet
    /// one iteration apart and consecutive iterations see different parities of the iv.
    fn double_eligible(&self, h: &Hazard, opts: &InsertOptions) -> bool {
        match h.carried {
            Some((f, d)) => opts.double_buffer && d >= 2 && self.loops[&f].step % 2 != 0,
            None => false,
        }
    }

    /// Decides the hazards whose consumer statement sits at block index `idx` (sweep point
    /// `p`): those not yet ordered get a pair or a barrier.
    #[allow(clippy::too_many_arguments)]
    fn decide(
        &self,
        b: BlockId,
        p: usize,
        idx: usize,
        hs: &[usize],
        hz: &[Hazard],
        opts: &InsertOptions,
        hist: &[Vc],
        vc: &mut Vc,
        groups: &mut Vec<Group>,
        bars: &mut Vec<Bar>,
    ) {
        if hs.is_empty() {
            return;
        }
        let mut by_pair: BTreeMap<(Pipe, Pipe), Vec<usize>> = BTreeMap::new();
        for &h in hs {
            let key = (self.ops[hz[h].x].pipe, self.ops[hz[h].y].pipe);
            by_pair.entry(key).or_default().push(h);
        }
        // Flag pairs first: one may order a same-pipe pair through another pipe, which then
        // needs no barrier.
        let mut pairs: Vec<((Pipe, Pipe), Vec<usize>)> = by_pair.into_iter().collect();
        pairs.sort_by_key(|((s, d), _)| (s == d, *s, *d));
        // Candidate pairs, then the ones whose hazards the others already order (through
        // what their source pipes knew when set) are dropped.
        let mut cands: Vec<(Group, [i32; NP])> = Vec::new();
        let mut same: Vec<(Pipe, Vec<usize>)> = Vec::new();
        for ((src, dst), list) in pairs {
            let (ps, pd) = (pix(src), pix(dst));
            let unc: Vec<usize> = list
                .into_iter()
                .filter(|&h| vc[pd][ps] < (hz[h].ix + 1) as i32 && !self.entry_covered(&hz[h]))
                .collect();
            if unc.is_empty() {
                continue;
            }
            if src == dst {
                same.push((src, unc));
                continue;
            }
            let set = unc.iter().map(|&h| hz[h].ix + 1).max().unwrap_or(idx);
            let carried = hz[unc[0]].carried.map(|c| c.0);
            let double = unc.iter().all(|&h| self.double_eligible(&hz[h], opts));
            let mut snap = hist[set][ps];
            snap[ps] = snap[ps].max(set as i32);
            let g = Group {
                block: b,
                set,
                wait: idx,
                src,
                dst,
                carried,
                double,
                hazards: unc,
            };
            cands.push((g, snap));
        }
        let mut keep = vec![true; cands.len()];
        for i in 0..cands.len() {
            let mut v = *vc;
            for (j, (g, snap)) in cands.iter().enumerate() {
                if j != i && keep[j] {
                    join(&mut v[pix(g.dst)], snap);
                }
            }
            let g = &cands[i].0;
            let (ps, pd) = (pix(g.src), pix(g.dst));
            if g.hazards
                .iter()
                .all(|&h| v[pd][ps] >= (hz[h].ix + 1) as i32)
            {
                keep[i] = false;
            }
        }
        // A dropped pair may have leaned on one dropped after it: put back, until stable,
        // every dropped pair the kept ones do not cover.
        loop {
            let mut v = *vc;
            for ((g, snap), &k) in cands.iter().zip(&keep) {
                if k {
                    join(&mut v[pix(g.dst)], snap);
                }
            }
            let back = cands.iter().zip(&keep).position(|((g, _), &k)| {
                !k && g
                    .hazards
                    .iter()
                    .any(|&h| v[pix(g.dst)][pix(g.src)] < (hz[h].ix + 1) as i32)
            });
            match back {
                Some(i) => keep[i] = true,
                None => break,
            }
        }
        for ((g, snap), k) in cands.into_iter().zip(keep) {
            if k {
                join(&mut vc[pix(g.dst)], &snap);
                groups.push(g);
            }
        }
        for (pipe, unc) in same {
            let q = pix(pipe);
            let unc: Vec<usize> = unc
                .into_iter()
                .filter(|&h| vc[q][q] < (hz[h].ix + 1) as i32)
                .collect();
            if unc.is_empty() {
                continue;
            }
            vc[q][q] = vc[q][q].max(p as i32);
            bars.push(Bar {
                block: b,
                point: idx,
                pipe,
                hazards: unc,
            });
        }
    }

    /// Colours the pairs with event ids, per source pipe, over their live ranges (greedy by
    /// start: optimal for intervals). Returns each pair's `(id, double)` and the pairs that
    /// found none, in colouring order.
    fn assign_ids(
        &self,
        groups: &[Group],
        target: Target,
        opts: &InsertOptions,
    ) -> (Vec<Option<(u32, bool)>>, Vec<usize>) {
        let k = self.kernel;
        let pos = point_positions(k);
        let info = target.info();
        let nids = opts.flag_ids.unwrap_or(info.flag_ids).min(info.flag_ids);
        // Ids the input already uses stay out of the pool of their source pipe.
        let mut used_in_input: BTreeMap<Pipe, Vec<u32>> = BTreeMap::new();
        k.walk(&mut |_, d| {
            if let StmtKind::Sync(
                SyncOp::SetFlag { src, id, .. } | SyncOp::WaitFlag { src, id, .. },
            ) = &d.kind
            {
                used_in_input
                    .entry(*src)
                    .or_default()
                    .extend(id.possible_ids());
            }
        });
        let avail = |src: Pipe, id: u32| {
            id < nids
                && !opts.reserved_ids.contains(&id)
                && !info.reserved_flag_ids.contains(&id)
                && !used_in_input.get(&src).is_some_and(|v| v.contains(&id))
        };
        let interval = |g: &Group| -> (u32, u32) {
            match g.carried {
                Some(f) => {
                    let (pb, pi) = self.place[&f];
                    (pos[&pb][pi], pos[&pb][pi + 1])
                }
                None => (pos[&g.block][g.set], pos[&g.block][g.wait]),
            }
        };
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&i| (interval(&groups[i]), groups[i].src, i));
        // (end, ids) of the live pairs per source pipe.
        let mut active: BTreeMap<Pipe, Vec<(u32, Vec<u32>)>> = BTreeMap::new();
        let mut ids: Vec<Option<(u32, bool)>> = vec![None; groups.len()];
        let mut failed = Vec::new();
        for &gi in &order {
            let g = &groups[gi];
            let (start, end) = interval(g);
            let act = active.entry(g.src).or_default();
            act.retain(|(e, _)| *e >= start);
            let taken: Vec<u32> = act.iter().flat_map(|(_, v)| v.iter().copied()).collect();
            let free = |id: u32| avail(g.src, id) && !taken.contains(&id);
            let mut pick = None;
            if g.double {
                pick = (0..nids.saturating_sub(1))
                    .find(|&i| free(i) && free(i + 1))
                    .map(|i| (i, true));
            }
            if pick.is_none() {
                pick = (0..nids).find(|&i| free(i)).map(|i| (i, false));
            }
            match pick {
                Some((id, dbl)) => {
                    let v = if dbl { vec![id, id + 1] } else { vec![id] };
                    act.push((end, v));
                }
                None => failed.push(gi),
            }
            ids[gi] = pick;
        }
        (ids, failed)
    }

    /// Builds the statements to insert, in the order sets, barriers, waits (so a set at a
    /// point never waits behind a wait at that point).
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        hz: &[Hazard],
        groups: Vec<Group>,
        mut bars: Vec<Bar>,
        ids: Vec<Option<(u32, bool)>>,
        forced: Vec<(BlockId, usize, Vec<usize>)>,
        opts: &InsertOptions,
    ) -> (Vec<(ProgramPoint, SyncOp)>, Vec<Vec<Covered>>) {
        let nids_note = opts
            .flag_ids
            .map_or(String::new(), |n| format!(", --flag-ids {n}"));
        let mut fallbacks: Vec<(BlockId, usize, Vec<usize>)> = forced;
        for (gi, g) in groups.iter().enumerate() {
            if ids[gi].is_none() {
                fallbacks.push((g.block, g.wait, g.hazards.clone()));
            }
        }
        for (block, point, hs) in fallbacks {
            let h = &hz[hs[0]];
            let (src, dst) = (self.ops[h.x].pipe, self.ops[h.y].pipe);
            let (yl, xl) = (self.ops[h.y].loc, self.ops[h.x].loc);
            self.diags.push(
                Diagnostic::warning(
                    yl,
                    format!(
                        "out of event ids for {src} -> {dst} (reserved {:?}{nids_note}): \
                         pipe_barrier ALL before this op instead of a flag pair",
                        opts.reserved_ids
                    ),
                )
                .with_note(xl, "the producer it waits for"),
            );
            bars.push(Bar {
                block,
                point,
                pipe: Pipe::All,
                hazards: hs,
            });
        }
        let mut sets = Vec::new();
        let mut waits = Vec::new();
        let mut epilogue = Vec::new();
        let cov = |hs: &[usize]| -> Vec<Covered> {
            hs.iter()
                .map(|&h| Covered {
                    kind: hz[h].kind.to_string(),
                    from: self.ops[hz[h].x].loc,
                    to: self.ops[hz[h].y].loc,
                })
                .collect()
        };
        for (gi, g) in groups.iter().enumerate() {
            let c = cov(&g.hazards);
            let Some((id, dbl)) = ids[gi] else {
                continue;
            };
            let (src, dst) = (g.src, g.dst);
            let set = |id: FlagId| SyncOp::SetFlag { src, dst, id };
            let wait = |id: FlagId| SyncOp::WaitFlag { src, dst, id };
            let pp = |block, index| ProgramPoint { block, index };
            let body_id = match (g.carried, dbl) {
                (Some(f), true) => FlagId {
                    base: id,
                    alternate: Some((AffineExpr::var(Var::Value(self.loops[&f].iv)), 2)),
                },
                _ => FlagId::fixed(id),
            };
            let fixed: Vec<FlagId> = if dbl {
                vec![FlagId::fixed(id), FlagId::fixed(id + 1)]
            } else {
                vec![FlagId::fixed(id)]
            };
            if let Some(f) = g.carried {
                let (pb, pi) = self.place[&f];
                for fid in &fixed {
                    sets.push((pp(pb, pi), set(fid.clone()), c.clone()));
                    epilogue.push((pp(pb, pi + 1), wait(fid.clone()), c.clone()));
                }
            }
            sets.push((pp(g.block, g.set), set(body_id.clone()), c.clone()));
            waits.push((pp(g.block, g.wait), wait(body_id), c));
        }
        bars.sort_by_key(|b| (b.block, b.point, b.pipe));
        let mut items = Vec::new();
        let mut covers = Vec::new();
        // A loop's epilogue waits come first at their point: a set there may rely on them.
        for (p, op, c) in epilogue.into_iter().chain(sets) {
            items.push((p, op));
            covers.push(c);
        }
        let mut i = 0;
        while i < bars.len() {
            // One barrier per (point, pipe); ALL makes the pipe ones there redundant.
            let (blk, pt) = (bars[i].block, bars[i].point);
            let mut j = i;
            let mut here: BTreeMap<Pipe, Vec<usize>> = BTreeMap::new();
            while j < bars.len() && bars[j].block == blk && bars[j].point == pt {
                here.entry(bars[j].pipe)
                    .or_default()
                    .extend(&bars[j].hazards);
                j += 1;
            }
            if let Some(all) = here.get(&Pipe::All).cloned() {
                let mut hs = all;
                for (p, v) in &here {
                    if *p != Pipe::All {
                        hs.extend(v);
                    }
                }
                here = BTreeMap::from([(Pipe::All, hs)]);
            }
            for (pipe, hs) in here {
                items.push((
                    ProgramPoint {
                        block: blk,
                        index: pt,
                    },
                    SyncOp::PipeBarrier { pipe },
                ));
                covers.push(cov(&hs));
            }
            i = j;
        }
        for (p, op, c) in waits {
            items.push((p, op));
            covers.push(c);
        }
        (items, covers)
    }
}

fn join(a: &mut [i32; NP], b: &[i32; NP]) {
    for i in 0..NP {
        a[i] = a[i].max(b[i]);
    }
}

type Summary = [[bool; NP]; NP];
/// `(src, dst, pipes)`: after the loop, dst knows every op of `pipes` (see `exit_grants`).
type Grant = (Pipe, Pipe, u8);

/// What every pipe knows at one point of a sweep.
struct SweepState {
    /// `vc[r][q] = k`: pipe r knows every op of pipe q in statements before position k has
    /// completed.
    vc: Vc,
    /// Position after the last statement that runs an op on each pipe.
    last: [i32; NP],
    /// Flags set and not yet waited: their source pipe's knowledge when set.
    flags: Vec<((Pipe, FlagId), [i32; NP])>,
}

impl SweepState {
    fn new() -> Self {
        SweepState {
            vc: [[0; NP]; NP],
            last: [0; NP],
            flags: Vec::new(),
        }
    }

    /// A pair set at `set` (whose history row is `at_set`) and waited here.
    fn join_pair(&mut self, at_set: &Vc, src: Pipe, dst: Pipe, set: i32) {
        let mut snap = at_set[pix(src)];
        snap[pix(src)] = snap[pix(src)].max(set);
        join(&mut self.vc[pix(dst)], &snap);
    }

    /// What a sync op teaches the sweep at statement position `p`. `copy` is the iteration
    /// of the swept loop body (0, 1, 2) and `iv` its induction variable: an id alternating
    /// with that iv names a different flag in consecutive copies.
    fn apply(&mut self, op: &SyncOp, p: i32, copy: usize, iv: Option<ValueId>) {
        let concrete = |id: &FlagId| -> FlagId {
            match (&id.alternate, iv) {
                (Some((e, 2)), Some(v)) if e.coef(Var::Value(v)) % 2 != 0 => {
                    FlagId::fixed(id.base + (copy as u32 + e.constant.rem_euclid(2) as u32) % 2)
                }
                _ => id.clone(),
            }
        };
        let vc = &mut self.vc;
        match op {
            SyncOp::SetFlag { src, id, .. } if *src != Pipe::All => {
                let mut snap = vc[pix(*src)];
                snap[pix(*src)] = snap[pix(*src)].max(p);
                let key = (*src, concrete(id));
                self.flags.retain(|(k, _)| *k != key);
                self.flags.push((key, snap));
            }
            SyncOp::WaitFlag { src, dst, id } if *dst != Pipe::All => {
                let key = (*src, concrete(id));
                if let Some(i) = self.flags.iter().position(|(k, _)| *k == key) {
                    let (_, snap) = self.flags.remove(i);
                    join(&mut vc[pix(*dst)], &snap);
                }
            }
            SyncOp::PipeBarrier { pipe: Pipe::All } => {
                for row in vc.iter_mut() {
                    for v in row.iter_mut() {
                        *v = (*v).max(p);
                    }
                }
            }
            SyncOp::PipeBarrier { pipe } => {
                let q = pix(*pipe);
                vc[q][q] = vc[q][q].max(p);
            }
            _ => {}
        }
    }
}

/// A global pre-order number for every program point: the points inside a statement lie
/// between the points before and after it, so live ranges compare as intervals.
fn point_positions(k: &Kernel) -> BTreeMap<BlockId, Vec<u32>> {
    fn go(k: &Kernel, b: BlockId, c: &mut u32, out: &mut BTreeMap<BlockId, Vec<u32>>) {
        let stmts = &k.blocks[b].stmts;
        let mut v = Vec::with_capacity(stmts.len() + 1);
        for &s in stmts {
            v.push(*c);
            *c += 1;
            for cb in k.stmts[s].kind.child_block_ids() {
                go(k, cb, c, out);
            }
        }
        v.push(*c);
        *c += 1;
        out.insert(b, v);
    }
    let mut out = BTreeMap::new();
    let mut c = 0;
    go(k, k.body, &mut c, &mut out);
    out
}
