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
//! 4. A sweep over each list in program order tracks what every pipe knows to be complete
//!    (a vector clock per pipe, fed by the input's syncs and the pairs chosen so far); a hazard
//!    already ordered is skipped, the rest at one wait point and pipe pair share one pair whose
//!    set sits after the latest of their producers (the consumer needs it anyway).
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
        };
        let classes = footprint::alias_classes(kernel);
        let mut path = Vec::new();
        cx.collect(kernel.body, &mut path, &classes, target);
        let hazards = cx.hazards();
        let (groups, bars) = cx.place_all(&hazards, opts);
        let (items, covers) = cx.assign_and_emit(&hazards, groups, bars, target, opts);
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
    ) {
        let k = self.kernel;
        for (i, &s) in k.blocks[block].stmts.iter().enumerate() {
            self.place.insert(s, (block, i));
            path.push((block, i));
            let data = &k.stmts[s];
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
                            Some(p) if p != Pipe::All => self.ops.push(OpInfo {
                                pipe: p,
                                loc: data.loc,
                                path: path.clone(),
                                accs,
                            }),
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
                    self.collect(f.body, path, classes, target);
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
                    self.collect(ifd.then_block, path, classes, target);
                    if let Some(e) = ifd.else_block {
                        self.collect(e, path, classes, target);
                    }
                }
                _ => {}
            }
            path.pop();
        }
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
        let mut out = Vec::new();
        for y in 0..self.ops.len() {
            for ay in 0..self.ops[y].accs.len() {
                let acc = &self.ops[y].accs[ay];
                let c = acc.fp.class as usize;
                let list = if acc.kind.writes() {
                    &all[c]
                } else {
                    &writes[c]
                };
                self.scan_forward(y, ay, list, &mut out);
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
                    self.scan_carried(y, ay, list, pos, f, &mut out);
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

    fn scan_forward(&self, y: usize, ay: usize, list: &[(usize, usize)], out: &mut Vec<Hazard>) {
        let q = self.ops[y].pipe;
        let mut stopped = [false; NP];
        let end = list.partition_point(|&(o, _)| o < y);
        for &(x, ax) in list[..end].iter().rev() {
            let p = self.ops[x].pipe;
            if stopped[pix(p)] || !self.needs_sync(p, q) {
                continue;
            }
            let Some(kind) = self.kind_of(x, ax, y, ay) else {
                continue;
            };
            let (m, loops) = self.common(x, y);
            let (px, py) = (&self.ops[x].path, &self.ops[y].path);
            if px[m].0 != py[m].0 {
                continue; // different branches of one `if`: never in one iteration
            }
            let shared: Vec<ValueId> = loops.iter().map(|&(_, f)| self.loops[&f].iv).collect();
            let rel = Relation {
                shared: &shared,
                shift: None,
            };
            if !footprint::conflict(&self.ops[x].accs[ax].fp, &self.ops[y].accs[ay].fp, &rel) {
                continue;
            }
            out.push(Hazard {
                x,
                y,
                kind,
                block: px[m].0,
                ix: px[m].1,
                iy: py[m].1,
                carried: None,
            });
            // The producer runs on every path to the consumer: a set after it covers all
            // earlier producers of its pipe.
            if m == px.len() - 1 {
                stopped[pix(p)] = true;
                if stopped.iter().all(|&s| s) {
                    break;
                }
            }
        }
    }

    fn scan_carried(
        &self,
        y: usize,
        ay: usize,
        list: &[(usize, usize)],
        pos: usize,
        f: StmtId,
        out: &mut Vec<Hazard>,
    ) {
        let q = self.ops[y].pipe;
        let lp = &self.loops[&f];
        let lo = list.partition_point(|&(o, _)| o < lp.ops.0);
        let hi = list.partition_point(|&(o, _)| o < lp.ops.1);
        let mut stopped = [false; NP];
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
            let (_, loops) = self.common(x, y);
            let shared: Vec<ValueId> = loops
                .iter()
                .filter(|&&(i, _)| i < pos)
                .map(|&(_, g)| self.loops[&g].iv)
                .collect();
            let (fx, fy) = (&self.ops[x].accs[ax].fp, &self.ops[y].accs[ay].fp);
            let period = footprint::period(fx, fy).max(1) as i64;
            let min_d = (1..=period.max(2)).find(|&d| {
                let rel = Relation {
                    shared: &shared,
                    shift: Some((lp.iv, lp.step, d)),
                };
                footprint::conflict(fx, fy, &rel)
            });
            let Some(min_d) = min_d else { continue };
            let (px, py) = (&self.ops[x].path, &self.ops[y].path);
            let (ix, iy) = (px[pos + 1].1, py[pos + 1].1);
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
            if min_d == 1 && px.len() == pos + 2 {
                stopped[pix(p)] = true;
                if stopped.iter().all(|&s| s) {
                    break;
                }
            }
        }
    }

    /// Chooses pairs and barriers, one statement list at a time.
    fn place_all(&mut self, hz: &[Hazard], opts: &InsertOptions) -> (Vec<Group>, Vec<Bar>) {
        let mut by_block: BTreeMap<BlockId, Vec<usize>> = BTreeMap::new();
        for (i, h) in hz.iter().enumerate() {
            by_block.entry(h.block).or_default().push(i);
        }
        let mut groups = Vec::new();
        let mut bars = Vec::new();
        for (b, list) in by_block {
            self.sweep(b, &list, hz, opts, &mut groups, &mut bars);
        }
        (groups, bars)
    }

    fn loop_of_body(&self, b: BlockId) -> Option<StmtId> {
        let p = self.kernel.blocks[b].parent?;
        self.loops.contains_key(&p).then_some(p)
    }

    #[allow(clippy::too_many_arguments)]
    fn sweep(
        &self,
        b: BlockId,
        list: &[usize],
        hz: &[Hazard],
        opts: &InsertOptions,
        groups: &mut Vec<Group>,
        bars: &mut Vec<Bar>,
    ) {
        let stmts = &self.kernel.blocks[b].stmts;
        let n = stmts.len();
        let lp = self.loop_of_body(b);
        let total = if lp.is_some() { 2 * n } else { n };
        let mut intra: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut carried: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &h in list {
            let hh = &hz[h];
            if hh.carried.is_some() {
                carried[hh.iy].push(h);
            } else {
                intra[hh.iy].push(h);
            }
        }
        let first_group = groups.len();
        let mut vc: Vc = [[-1; NP]; NP];
        let mut hist: Vec<Vc> = Vec::with_capacity(total + 1);
        let mut flags: Vec<((Pipe, FlagId), [i32; NP])> = Vec::new();
        for p in 0..=total {
            hist.push(vc);
            if p <= n {
                self.decide(b, p, p, &intra[p], hz, opts, &hist, &mut vc, groups, bars);
            }
            if lp.is_some() && p >= n {
                let i = p - n;
                // Pairs chosen in the first copy act again in the second.
                for g in &groups[first_group..] {
                    if g.carried.is_none() && g.wait == i {
                        let mut snap = hist[n + g.set][pix(g.src)];
                        snap[pix(g.src)] = snap[pix(g.src)].max((n + g.set) as i32);
                        join(&mut vc[pix(g.dst)], &snap);
                    }
                }
                if i <= n {
                    self.decide(b, p, i, &carried[i], hz, opts, &hist, &mut vc, groups, bars);
                }
            }
            if p < total {
                let s = stmts[p % n.max(1)];
                if let StmtKind::Sync(op) = &self.kernel.stmts[s].kind {
                    apply_sync(op, p as i32, &mut vc, &mut flags);
                }
            }
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
        for ((src, dst), list) in by_pair {
            let (ps, pd) = (pix(src), pix(dst));
            let unc: Vec<usize> = list
                .into_iter()
                .filter(|&h| {
                    let need = (hz[h].ix + 1) as i32;
                    vc[pd][ps] < need && !(src != dst && self.alt_covered(b, &hz[h]))
                })
                .collect();
            if unc.is_empty() {
                continue;
            }
            if src == dst {
                vc[pd][pd] = vc[pd][pd].max(p as i32);
                bars.push(Bar {
                    block: b,
                    point: idx,
                    pipe: src,
                    hazards: unc,
                });
                continue;
            }
            let set = unc.iter().map(|&h| hz[h].ix + 1).max().unwrap_or(idx);
            let carried = hz[unc[0]].carried.map(|c| c.0);
            let double = match carried {
                Some(f) => {
                    opts.double_buffer
                        && self.loops[&f].step % 2 != 0
                        && unc.iter().all(|&h| hz[h].carried.is_some_and(|c| c.1 >= 2))
                }
                None => false,
            };
            if !double {
                let mut snap = hist[set][ps];
                snap[ps] = snap[ps].max(set as i32);
                join(&mut vc[pd], &snap);
            }
            groups.push(Group {
                block: b,
                set,
                wait: idx,
                src,
                dst,
                carried,
                double,
                hazards: unc,
            });
        }
    }

    /// A double-buffered pair already in the input covers a hazard whose accesses never meet
    /// at distance 1: `wait_flag` before the consumer, `set_flag` after the producer, the id
    /// alternating with the loop's induction variable.
    fn alt_covered(&self, b: BlockId, h: &Hazard) -> bool {
        let Some((f, d)) = h.carried else {
            return false;
        };
        if d < 2 {
            return false;
        }
        let (src, dst) = (self.ops[h.x].pipe, self.ops[h.y].pipe);
        let iv = self.loops[&f].iv;
        let stmts = &self.kernel.blocks[b].stmts;
        let alt = |id: &FlagId| {
            id.alternate
                .as_ref()
                .is_some_and(|(e, n)| *n == 2 && e.coef(Var::Value(iv)) % 2 != 0)
        };
        for (w, &ws) in stmts.iter().enumerate().take(h.iy) {
            let StmtKind::Sync(SyncOp::WaitFlag { src: s, dst: t, id }) =
                &self.kernel.stmts[ws].kind
            else {
                continue;
            };
            if *s != src || *t != dst || !alt(id) {
                continue;
            }
            let set_after = stmts
                .iter()
                .enumerate()
                .skip((h.ix + 1).max(w + 1))
                .any(|(_, &ss)| {
                    matches!(&self.kernel.stmts[ss].kind,
                    StmtKind::Sync(SyncOp::SetFlag { src: s2, dst: t2, id: id2 })
                    if *s2 == src && *t2 == dst && id2 == id)
                });
            if set_after {
                return true;
            }
        }
        false
    }

    /// Colours the pairs with event ids and builds the statements to insert, in the order
    /// sets, barriers, waits (so a set at a point never waits behind a wait at that point).
    fn assign_and_emit(
        &mut self,
        hz: &[Hazard],
        groups: Vec<Group>,
        mut bars: Vec<Bar>,
        target: Target,
        opts: &InsertOptions,
    ) -> (Vec<(ProgramPoint, SyncOp)>, Vec<Vec<Covered>>) {
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
        order.sort_by_key(|&i| (groups[i].src, interval(&groups[i]), i));
        // (end, ids) of the live pairs per source pipe.
        let mut active: BTreeMap<Pipe, Vec<(u32, Vec<u32>)>> = BTreeMap::new();
        let mut ids: Vec<Option<(u32, bool)>> = vec![None; groups.len()];
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
            if let Some((id, dbl)) = pick {
                let v = if dbl { vec![id, id + 1] } else { vec![id] };
                act.push((end, v));
            }
            ids[gi] = pick;
        }
        let mut sets = Vec::new();
        let mut waits = Vec::new();
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
                let h = &hz[g.hazards[0]];
                let (yl, xl) = (self.ops[h.y].loc, self.ops[h.x].loc);
                self.diags.push(
                    Diagnostic::warning(
                        yl,
                        format!(
                            "out of event ids for {} -> {} ({} ids, reserved {:?}): \
                             pipe_barrier ALL instead of a flag pair",
                            g.src, g.dst, nids, opts.reserved_ids
                        ),
                    )
                    .with_note(xl, "the producer this barrier orders"),
                );
                bars.push(Bar {
                    block: g.block,
                    point: g.wait,
                    pipe: Pipe::All,
                    hazards: g.hazards.clone(),
                });
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
                    waits.push((pp(pb, pi + 1), wait(fid.clone()), c.clone()));
                }
            }
            sets.push((pp(g.block, g.set), set(body_id.clone()), c.clone()));
            waits.push((pp(g.block, g.wait), wait(body_id), c));
        }
        bars.sort_by_key(|b| (b.block, b.point, b.pipe));
        let mut items = Vec::new();
        let mut covers = Vec::new();
        for (p, op, c) in sets {
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

/// What a sync op of the input teaches the sweep at statement position `p`.
fn apply_sync(op: &SyncOp, p: i32, vc: &mut Vc, flags: &mut Vec<((Pipe, FlagId), [i32; NP])>) {
    match op {
        SyncOp::SetFlag { src, id, .. } if *src != Pipe::All && id.alternate.is_none() => {
            let mut snap = vc[pix(*src)];
            snap[pix(*src)] = snap[pix(*src)].max(p);
            let key = (*src, id.clone());
            flags.retain(|(k, _)| *k != key);
            flags.push((key, snap));
        }
        SyncOp::WaitFlag { src, dst, id } if *dst != Pipe::All => {
            let key = (*src, id.clone());
            if let Some(i) = flags.iter().position(|(k, _)| *k == key) {
                let (_, snap) = flags.remove(i);
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

/// A global pre-order number for every program point: the points inside a statement lie
/// between the points before and after it, so live ranges compare as intervals.
fn point_positions(k: &Kernel) -> BTreeMap<BlockId, Vec<u32>> {
    fn go(k: &Kernel, b: BlockId, c: &mut u32, out: &mut BTreeMap<BlockId, Vec<u32>>) {
        let stmts = &k.blocks[b].stmts;
        let mut v = Vec::with_capacity(stmts.len() + 1);
        for &s in stmts {
            v.push(*c);
            *c += 1;
            for cb in k.stmts[s].kind.child_blocks() {
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
