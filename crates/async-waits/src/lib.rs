//! Counter waits for async copies (semantics.md 4.1 and 5): before each barrier that publishes
//! an async copy's LDS data to its consumers, `wait C(N)` with the largest N that still
//! guarantees the copy completed on every path; on NVIDIA, `cp_async.commit` where a stage's
//! copies have no group yet and `cp_async.wait N` counting groups.
//!
//! How: a forward dataflow (`dataflow`) tracks each copy in flight with the fewest ops issued
//! on its counter since (min over paths: loops, ifs, multi-buffering), and the barrier that
//! published it last. A consumer that conflicts with a copy puts a demand on that barrier (or
//! on itself, when the issuing wave reaches it with no barrier in between). The waits those
//! demands ask for are then re-analysed with the waits in place, until the placement is its own
//! fixpoint: every wait covers exactly the copies still in flight at its barrier, so none is
//! redundant and each N is as large as the copies it must cover allow.

mod dataflow;
mod fxhash;
mod place;

use std::collections::{BTreeMap, BTreeSet};

use syncopt_analysis::hazard::{Access, Accesses, Mode};
use syncopt_analysis::{Covered, Explain, InsertOptions, PassReport};
use syncopt_ir::{
    BlockId, Counter, Diagnostic, EntityRef, Kernel, Loc, ProgramPoint, StmtId, StmtKind, SyncOp,
    ValueKind,
};
use syncopt_targets::{Family, Target};

use dataflow::{Analysis, Carried, Config, Need, Prep, Reach, SiteWait, State};

/// Rounds of "place waits, re-analyse" before settling for the first (always sound) placement.
const MAX_ROUNDS: usize = 8;
/// Single-site refinements when the rounds do not settle.
const MAX_GREEDY: usize = 64;

/// Runs the pass on `kernel` for `target`.
pub fn run(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_impl(kernel, target, opts, true, true, None)
}

/// `run` right after shared-barriers, in the same pipeline: the same waits, without the check
/// for copies other waves use with no barrier in between. That barrier pass placed a barrier
/// between every async copy and each consumer of another wave (the verifier checks it), so
/// the check's advice, "run shared-barriers first", does not apply; where the check is
/// coarser than the barrier pass (a path leaving an inner loop and going round an outer
/// one) it warned about 1.5% of generated kernels whose output verifies, and it cost a
/// tenth of the pass at 1M statements.
pub fn run_after_barriers(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_impl(kernel, target, opts, true, true, Some(None))
}

/// `run` with the kernel's workgroup accesses collected already (`Accesses::collect_parallel`
/// on this kernel, or on it before shared-barriers inserted its barriers, which changes no
/// access: `syncopt_barriers::run_keeping`). The warning check takes them instead of
/// collecting them again.
pub fn run_with_accesses(
    kernel: &mut Kernel,
    target: Target,
    opts: &InsertOptions,
    acc: Accesses,
) -> PassReport {
    run_impl(kernel, target, opts, true, true, Some(Some(acc)))
}

/// The pass with the whole top level as one segment: what `run` computes, slower. For the
/// tests that check that cutting the kernel into segments changes nothing.
#[doc(hidden)]
pub fn run_unsegmented(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_impl(kernel, target, opts, false, true, None)
}

/// The pass evaluating every loop afresh, never replaying a recorded evaluation: what `run`
/// computes, slower. For the tests that check that replays change nothing.
#[doc(hidden)]
pub fn run_unmemoized(kernel: &mut Kernel, target: Target, opts: &InsertOptions) -> PassReport {
    run_impl(kernel, target, opts, true, false, None)
}

/// The pass with the segments settled on two threads (`on`) at any size, or on one: what
/// `run` computes. For the tests that check that the second thread changes nothing.
#[doc(hidden)]
pub fn run_lanes(
    kernel: &mut Kernel,
    target: Target,
    opts: &InsertOptions,
    on: bool,
) -> PassReport {
    LANES.with(|l| l.set(Some(on)));
    let r = run_impl(kernel, target, opts, true, true, None);
    LANES.with(|l| l.set(None));
    r
}

thread_local! {
    /// `run_lanes`' choice, over `lanes_wanted`'s own.
    static LANES: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

fn run_impl(
    kernel: &mut Kernel,
    target: Target,
    opts: &InsertOptions,
    cut: bool,
    memo: bool,
    given: Option<Option<Accesses>>,
) -> PassReport {
    // `Some(None)`: right after shared-barriers, no warning check (`run_after_barriers`).
    let warn = !matches!(given, Some(None));
    let given = given.flatten();
    let _ = opts;
    let mut report = PassReport::default();
    if !target.is_gpu() {
        return report;
    }
    if target.family() == Family::Nvidia {
        insert_commits(kernel, target);
    }
    // SYNCOPT_AW_DEBUG: phase times and analysis counts on stderr.
    let dbg = std::env::var_os("SYNCOPT_AW_DEBUG").is_some();
    let t0 = std::time::Instant::now();
    let k: &Kernel = kernel;
    // The tables that need no `Memory` are built meanwhile on a second thread (large
    // kernels, a second core): each is a walk over every statement.
    let side = || (Prep::new(k), walk_order(k));
    let two = k.stmts.len() >= SETUP_PAR_MIN
        && std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
    let (mut mem, (prep, order)) = std::thread::scope(|sc| {
        let h = two
            .then(|| std::thread::Builder::new().spawn_scoped(sc, side).ok())
            .flatten();
        let mem = place::Memory::new(k);
        if dbg {
            eprintln!("aw: memory {:?}", t0.elapsed());
        }
        (mem, h.and_then(|h| h.join().ok()).unwrap_or_else(side))
    });
    mem.threads = u64::from(target.waves(k).max(1)) * u64::from(target.info().wave_size.max(1));
    // And the segments with their sizes, and the counter check, while the analysis' op
    // tables are built.
    let side = || {
        let segs = if cut {
            segments(k)
        } else {
            vec![k.blocks[k.body].stmts.clone()]
        };
        let sizes = segment_sizes(k, &segs);
        (segs, sizes, unknown_counters(k, target))
    };
    let (mut an, (segs, sizes, unknown)) = std::thread::scope(|sc| {
        let h = two
            .then(|| std::thread::Builder::new().spawn_scoped(sc, side).ok())
            .flatten();
        let an = Analysis::with_prep(k, &mem, target, prep);
        (an, h.and_then(|h| h.join().ok()).unwrap_or_else(side))
    });
    an.memo_on = memo;
    if dbg {
        eprintln!("aw: setup {:?}", t0.elapsed());
    }
    report.diagnostics.extend(unknown);

    // Demands never cross a cut (see `segments`): each segment's waits are settled on their
    // own, from the state the settled segments before it leave, which keeps the rounds below
    // local and the pass linear in the kernel's size.
    let threads = mem.threads;
    // The warning check below needs the barrier pass's access descriptors when some copy is
    // used unpublished: on a large kernel they are collected on the second thread beside the
    // segments (see `settle`), on a small one only when needed.
    let collect = || Accesses::collect_with_threads(k, (threads > 0).then_some(threads));
    let big = warn && k.stmts.len() >= PAR_MIN && given.is_none();
    let ((sound, final_needs, unpublished), acc) = settle(
        &mut an,
        k,
        target,
        &order,
        (&segs, &sizes),
        big.then_some(&collect),
    );
    let acc = acc
        .or(given)
        .or_else(|| (warn && !unpublished.is_empty()).then(collect));
    if dbg {
        eprintln!("aw: segments done {:?}", t0.elapsed());
        eprintln!(
            "aw: {} stmts, {} analyses, {} statement visits, state up to {}; {} places, {} \
             conflicts computed, {} loop runs replayed",
            kernel.stmt_count(),
            an.runs,
            an.visits,
            an.max_state,
            an.places.len(),
            an.conflicts_computed(),
            an.memo_hits
        );
    }
    drop(an);

    // Rule 3: consumers that other waves reach with no barrier after the copy. The places
    // above are built for counting copies in flight; before blaming a missing barrier, the
    // pair is checked with the barrier pass's own access test (byte ranges, `tid` words,
    // handles and `if` results as sets of regions), so that a kernel the barrier pass saw
    // no hazard in gets no warning.
    // The barrier pass's notion of "another wave", so that a thread's own later access to
    // its copy, which the wait alone orders, is not taken for another wave's use.
    let wave = target.lockstep_threads();
    let unpublished = if warn {
        cross_thread(kernel, &unpublished, threads, wave, &order, acc)
    } else {
        BTreeSet::new()
    };
    if dbg {
        eprintln!("aw: warnings checked {:?}", t0.elapsed());
    }
    for (copy, consumer) in &unpublished {
        let cl = kernel.stmts[*copy].loc;
        let xl = kernel.stmts[*consumer].loc;
        report.diagnostics.push(
            Diagnostic::warning(
                xl,
                format!(
                    "async copy '{}' at {} is used by other waves at {} with no barrier in \
                     between; a wait alone cannot publish it: run shared-barriers first",
                    op_name(kernel, *copy),
                    loc_str(cl),
                    loc_str(xl)
                ),
            )
            .with_note(cl, "the async copy is issued here"),
        );
    }

    let points = program_points(kernel);
    let mut items: Vec<(ProgramPoint, SyncOp)> = Vec::new();
    let mut why: Vec<Vec<Covered>> = Vec::new();
    for (site, sw) in &sound {
        let Some(&Some(pp)) = points.get(site.index()) else {
            continue;
        };
        let covers: Vec<Covered> = final_needs
            .get(site)
            .map(|n| {
                n.covers
                    .iter()
                    .map(|(g, x)| Covered {
                        kind: "async".into(),
                        from: kernel.stmts[*g].loc,
                        to: kernel.stmts[*x].loc,
                    })
                    .collect()
            })
            .unwrap_or_default();
        if sw.commit {
            items.push((pp, SyncOp::CpAsyncCommit));
            why.push(covers.clone());
        }
        for (&counter, &n) in &sw.waits {
            let op = if counter == Counter::CpAsync {
                SyncOp::CpAsyncWait { n }
            } else {
                SyncOp::CounterWait { counter, n }
            };
            items.push((pp, op));
            why.push(covers.clone());
        }
    }
    // Distinct (copy, consumer) pairs: a sorted vector counts them cheaper than a set.
    let mut hazards: Vec<(StmtId, StmtId)> = final_needs
        .values()
        .flat_map(|n| n.covers.iter().copied())
        .collect();
    hazards.sort_unstable();
    hazards.dedup();
    report.hazards = hazards.len();
    if dbg {
        eprintln!("aw: before insert {:?}", t0.elapsed());
    }
    let created = kernel.insert_syncs(items);
    for (stmt, covers) in created.into_iter().zip(why) {
        report.explain.push(Explain { stmt, covers });
    }
    report
}

/// Kernels from this many statements build the analysis' tables on two threads.
const SETUP_PAR_MIN: usize = 20_000;

/// Kernels from this many statements collect the warning check's descriptors in parallel.
const PAR_MIN: usize = 100_000;

type Settled = (
    Config,
    BTreeMap<StmtId, Need>,
    BTreeSet<(StmtId, StmtId, Reach, bool)>,
);

/// Settles every segment in order, each from the state the ones before it leave.
///
/// Large kernels use a second thread: it settles the later segments from a cut with nothing
/// in flight assumed, with its own copy of the analysis, while this thread settles the
/// earlier ones and then goes on until it reaches a cut where both it and the second thread
/// had nothing in flight; from there on the second thread's results are what this one would
/// find (a segment's settling depends on its statements and entry state alone). The output
/// is the same bytes either way (`SYNCOPT_AW_THREADS=1` turns it off; tests/segments.rs).
fn settle(
    an: &mut Analysis,
    k: &Kernel,
    target: Target,
    order: &[usize],
    (segs, sizes): (&[Vec<StmtId>], &[usize]),
    collect: Option<&(dyn Fn() -> Accesses + Sync)>,
) -> (Settled, Option<Accesses>) {
    let mut acc: Settled = (Config::new(), BTreeMap::new(), BTreeSet::new());
    let take = |acc: &mut Settled, out: (Config, BTreeMap<StmtId, Need>, UnpubSet)| {
        acc.0.extend(out.0);
        acc.1.extend(out.1);
        acc.2.extend(out.2);
    };
    let m = if segs.len() > 1 && lanes_wanted(k) {
        // The second thread also collects the warning check's descriptors, unless they came
        // with the kernel.
        lane_split(
            sizes,
            if collect.is_some() {
                LANE_SHARE
            } else {
                LANE_SHARE_ALONE
            },
        )
    } else {
        segs.len()
    };
    let mut st = State::new();
    if m >= segs.len() {
        let two =
            collect.is_some() && std::thread::available_parallelism().map_or(1, |n| n.get()) > 1;
        return std::thread::scope(|sc| {
            let h = collect
                .filter(|_| two)
                .and_then(|c| std::thread::Builder::new().spawn_scoped(sc, c).ok());
            for seg in segs {
                let out = solve(an, seg, st, target, order);
                st = out.end;
                take(&mut acc, (out.sound, out.needs, out.unpublished));
            }
            let accesses = h.and_then(|h| h.join().ok());
            (acc, accesses)
        });
    }
    let t0 = std::time::Instant::now();
    let mut later = an.clone();
    let t_clone = t0.elapsed();
    let (first, second) = std::thread::scope(|sc| {
        let h = std::thread::Builder::new().spawn_scoped(sc, || {
            let mut st = State::new();
            let mut outs = Vec::with_capacity(segs.len() - m);
            for seg in &segs[m..] {
                let empty = st.is_empty();
                let out = solve(&mut later, seg, st, target, order);
                st = out.end;
                outs.push((empty, (out.sound, out.needs, out.unpublished)));
            }
            if std::env::var_os("SYNCOPT_AW_DEBUG").is_some() {
                eprintln!("aw: second thread done at {:?}", t0.elapsed());
            }
            let (runs, visits, max_state) = (later.runs, later.visits, later.max_state);
            drop(later);
            (outs, runs, visits, max_state, collect.map(|c| c()))
        });
        let mut mine = Vec::with_capacity(m);
        for seg in &segs[..m] {
            let out = solve(an, seg, std::mem::take(&mut st), target, order);
            st = out.end;
            mine.push((out.sound, out.needs, out.unpublished));
        }
        if std::env::var_os("SYNCOPT_AW_DEBUG").is_some() {
            eprintln!(
                "aw: first thread done at {:?} (copy {t_clone:?})",
                t0.elapsed()
            );
        }
        (mine, h.ok().and_then(|h| h.join().ok()))
    });
    for out in first {
        take(&mut acc, out);
    }
    let (mut outs, accesses) = match second {
        Some((outs, runs, visits, max_state, accesses)) => {
            an.runs += runs;
            an.visits += visits;
            an.max_state = an.max_state.max(max_state);
            (outs, accesses)
        }
        None => (Vec::new(), None),
    };
    let mut j = m;
    while j < segs.len() {
        if st.is_empty() && outs.get(j - m).is_some_and(|o| o.0) {
            if std::env::var_os("SYNCOPT_AW_DEBUG").is_some() {
                eprintln!(
                    "aw: {} segments, second thread from {m}, taken over at {j} ({:?})",
                    segs.len(),
                    t0.elapsed()
                );
            }
            for (_, out) in outs.drain(j - m..) {
                take(&mut acc, out);
            }
            break;
        }
        let out = solve(an, &segs[j], st, target, order);
        st = out.end;
        take(&mut acc, (out.sound, out.needs, out.unpublished));
        j += 1;
    }
    (acc, accesses)
}

type UnpubSet = BTreeSet<(StmtId, StmtId, Reach, bool)>;

/// Whether settling may use a second thread: a large kernel, a second core, and no
/// `SYNCOPT_AW_THREADS=1`.
fn lanes_wanted(k: &Kernel) -> bool {
    if let Some(on) = LANES.with(|l| l.get()) {
        return on;
    }
    match std::env::var("SYNCOPT_AW_THREADS")
        .as_deref()
        .map(str::trim)
    {
        Ok("1") => false,
        Ok("2") => true,
        _ => {
            k.stmts.len() >= PAR_MIN
                && std::thread::available_parallelism().map_or(1, |n| n.get()) > 1
        }
    }
}

/// The segment the second thread starts at: where about `share` percent of the statements
/// (nested ones counted) lie before it (the first thread has a head start: the second begins
/// after copying the analysis, and may collect the warning check's descriptors after its
/// segments).
fn lane_split(sizes: &[usize], share: usize) -> usize {
    if sizes.len() < 4 {
        return sizes.len();
    }
    let total: usize = sizes.iter().sum();
    let goal = total / 100 * share;
    let mut sum = 0usize;
    for (i, n) in sizes.iter().enumerate() {
        if sum >= goal {
            return i.max(1);
        }
        sum += n;
    }
    sizes.len()
}

/// The statements of each segment, nested ones counted.
fn segment_sizes(k: &Kernel, segs: &[Vec<StmtId>]) -> Vec<usize> {
    segs.iter()
        .map(|seg| {
            let mut n = 0usize;
            for &s in seg {
                n += 1;
                for b in k.stmts[s].kind.child_block_ids() {
                    k.walk_block(b, &mut |_, _| n += 1);
                }
            }
            n
        })
        .collect()
}

/// Percent of the statements the first thread settles before it takes over the second's.
const LANE_SHARE: usize = 65;
/// `LANE_SHARE` when the second thread collects nothing: the two finish together (1M gfx950
/// statements: 65% left the second thread idle for the last 0.7 s of 1.9).
const LANE_SHARE_ALONE: usize = 53;

/// The settled waits of one segment, with the demands and unpublished pairs found under them
/// and the state they leave at the segment's end.
struct Solved {
    sound: Config,
    needs: BTreeMap<StmtId, Need>,
    unpublished: BTreeSet<(StmtId, StmtId, Reach, bool)>,
    end: State,
}

/// Settles the waits of the top-level statements `seg`, entered in state `st0`.
fn solve(an: &mut Analysis, seg: &[StmtId], st0: State, target: Target, order: &[usize]) -> Solved {
    // Round 0 trusts only the input's waits; its demands give a sound placement (more waits
    // only shrink what is in flight). Later rounds re-derive each wait with the others in
    // place; a placement that re-derives to itself covers every demand it creates.
    an.clear_memo();
    let mut end = an.run_seq(Config::new(), seg, st0.clone());
    let mut config = derive(&an.needs, target);
    let mut sound = config.clone();
    let mut final_needs = std::mem::take(&mut an.needs);
    let mut unpublished = std::mem::take(&mut an.unpublished);
    if config.is_empty() {
        // Nothing to wait for: round 0 is its own fixpoint.
        return Solved {
            sound,
            needs: final_needs,
            unpublished,
            end,
        };
    }
    let mut converged = false;
    for _ in 0..MAX_ROUNDS {
        let e = an.run_seq(config.clone(), seg, st0.clone());
        let next = derive(&an.needs, target);
        if covers(&config, &an.needs, target) {
            sound = config.clone();
            final_needs = std::mem::take(&mut an.needs);
            unpublished = std::mem::take(&mut an.unpublished);
            end = e;
        }
        if next == config {
            converged = true;
            break;
        }
        config = next;
    }
    if !converged {
        // Waits that make each other redundant (a wait early in a loop covers a copy that a
        // later wait also covers) make the rounds above oscillate. Settle them one at a
        // time, earliest first, keeping each change only if the placement stays sound: later
        // waits, nearer their consumers, are the ones kept.
        let mut frozen: BTreeSet<StmtId> = BTreeSet::new();
        // What `sound` derives to: from the run that accepted it, or kept when a step is
        // rejected (`sound` unchanged), so each step costs one analysis, not two.
        let mut wanted: Option<Config> = None;
        for _ in 0..MAX_GREEDY {
            let want = match wanted.take() {
                Some(w) => w,
                None => {
                    an.run_seq(sound.clone(), seg, st0.clone());
                    derive(&an.needs, target)
                }
            };
            let mut cands: Vec<StmtId> = sound
                .keys()
                .copied()
                .filter(|s| !frozen.contains(s) && want.get(s) != sound.get(s))
                .collect();
            cands.sort_by_key(|s| order.get(s.index()).copied().unwrap_or(usize::MAX));
            let Some(&site) = cands.first() else {
                break;
            };
            let mut cand = sound.clone();
            match want.get(&site) {
                Some(w) => {
                    cand.insert(site, w.clone());
                }
                None => {
                    cand.remove(&site);
                }
            }
            let e = an.run_seq(cand.clone(), seg, st0.clone());
            if covers(&cand, &an.needs, target) {
                sound = cand;
                wanted = Some(derive(&an.needs, target));
                final_needs = std::mem::take(&mut an.needs);
                unpublished = std::mem::take(&mut an.unpublished);
                end = e;
                continue;
            }
            // The whole step is unsound; a smaller one (each N one higher) may not be.
            let mut cand = sound.clone();
            let mut raised = false;
            if let Some(sw) = cand.get_mut(&site) {
                for (c, n) in sw.waits.iter_mut() {
                    let max = target.counter_max(*c).unwrap_or(0);
                    let goal = want
                        .get(&site)
                        .and_then(|w| w.waits.get(c).copied())
                        .unwrap_or(max);
                    if *n < goal.min(max) {
                        *n += 1;
                        raised = true;
                    }
                }
            }
            if raised {
                let e = an.run_seq(cand.clone(), seg, st0.clone());
                if covers(&cand, &an.needs, target) {
                    sound = cand;
                    wanted = Some(derive(&an.needs, target));
                    final_needs = std::mem::take(&mut an.needs);
                    unpublished = std::mem::take(&mut an.unpublished);
                    end = e;
                    continue;
                }
            }
            frozen.insert(site);
            wanted = Some(want);
        }
    }
    Solved {
        sound,
        needs: final_needs,
        unpublished,
        end,
    }
}

/// Splits the top level of the kernel into segments no demand crosses. A cut goes right
/// before a top-level monolithic barrier: it re-publishes every copy still in flight and
/// forgets the earlier publications of those that are not, so a consumer after it can only
/// ask for a wait at it or later, and one before it only earlier. On split-barrier targets
/// the same holds for a top-level `barrier.signal ID; barrier.wait ID` pair when the kernel
/// uses that one id (with several, a signal of one id leaves the others armed).
fn segments(k: &Kernel) -> Vec<Vec<StmtId>> {
    let mut ids: BTreeSet<i32> = BTreeSet::new();
    k.walk(&mut |_, d| {
        if let StmtKind::Sync(SyncOp::Signal { id } | SyncOp::Wait { id }) = &d.kind {
            ids.insert(*id);
        }
    });
    let stmts = &k.blocks[k.body].stmts;
    let mut out: Vec<Vec<StmtId>> = Vec::new();
    let mut cur: Vec<StmtId> = Vec::new();
    for (i, &s) in stmts.iter().enumerate() {
        let cut = match &k.stmts[s].kind {
            StmtKind::Sync(SyncOp::Barrier { .. }) => ids.is_empty(),
            StmtKind::Sync(SyncOp::Signal { id }) => {
                ids.len() == 1
                    && stmts.get(i + 1).is_some_and(|&n| {
                        matches!(&k.stmts[n].kind, StmtKind::Sync(SyncOp::Wait { id: w }) if w == id)
                    })
            }
            _ => false,
        };
        if cut && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(s);
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// The (copy, consumer) pairs that the barrier pass's access test also finds in conflict: in
/// the same iteration, or at any distance when the copy may come from another iteration.
///
/// A copy that completed before the access (a wait, but no barrier) is as unpublished as one
/// in flight, but every later access would repeat the warning: such a copy is reported once,
/// at its first such consumer, and only when no in-flight use of it is reported already.
fn cross_thread(
    k: &Kernel,
    pairs: &BTreeSet<(StmtId, StmtId, Reach, bool)>,
    threads: u64,
    wave: u64,
    order: &[usize],
    acc: Option<Accesses>,
) -> BTreeSet<(StmtId, StmtId)> {
    if pairs.is_empty() {
        return BTreeSet::new();
    }
    let mut acc =
        acc.unwrap_or_else(|| Accesses::collect_with_threads(k, (threads > 0).then_some(threads)));
    let (pre, post) = dataflow::subtree_spans(k);
    // Loop `x` lies strictly inside loop `l`.
    let inside = |x: StmtId, l: StmtId| {
        let p = pre[x.index()];
        pre[l.index()] < p && p < post[l.index()]
    };
    // The loops around the consumer that the copy lies outside of, and around every loop a
    // path crossed the back edge of (`Reach::later`): the consumer runs in their first
    // iterations, and is compared in its form there (each loop's alone: each form holds the
    // consumer's words).
    let mut firsts: Option<Vec<Option<StmtId>>> = None;
    // The ops confined to one residue of a loop with handles (a parity branch; loop,
    // residue, the handles' period), and the residue forms of the descriptors through them:
    // a copy that a consumer so confined meets in the same iteration ran in that residue too,
    // and a consumer that meets a copy so confined one back edge of that loop later runs in
    // the next residue (`Carried::One`).
    // Last, the forms of the descriptors through those loops' results after a trip count
    // congruent to `t` modulo the period (`Accesses::top_exit_forms`, the barrier pass's
    // `Key::exit`), keyed (descriptor, loop, `t`).
    type Residues = (
        BTreeMap<StmtId, (StmtId, u32, u32)>,
        Vec<((u32, u32, u32), u32)>,
        Vec<(StmtId, u64)>,
        Vec<((u32, u32, u32), u32)>,
    );
    let conflict = |acc: &Accesses,
                    firsts: Option<(&[Option<StmtId>], &Residues)>,
                    copy: StmtId,
                    consumer: StmtId,
                    reach: Reach| {
        let (firsts, res) = match firsts {
            Some((f, r)) => (Some(f), Some(r)),
            None => (None, None),
        };
        // `d` with loop `m`'s handles bound to residue `r`'s values, where it has that form.
        let in_residue = |d: u32, (m, r): (StmtId, u32)| match res {
            Some((_, forms, _, _)) => forms
                .binary_search_by_key(&(d, m.index() as u32, r), |x| x.0)
                .map_or(d, |i| forms[i].1),
            None => d,
        };
        // `d` with loop `m`'s results taken after a trip count congruent to `t`, where it has
        // that form.
        let after_count = |d: u32, m: StmtId, t: u32| match res {
            Some((_, _, _, exits)) => exits
                .binary_search_by_key(&(d, m.index() as u32, t), |x| x.0)
                .map_or(d, |i| exits[i].1),
            None => d,
        };
        let same_iteration = |d: u32| match res.and_then(|(op_res, _, _, _)| op_res.get(&consumer))
        {
            Some(&(lp, r, _)) if inside(copy, lp) => in_residue(d, (lp, r)),
            _ => d,
        };
        let ids = |s: StmtId| acc.by_stmt.get(s.index()).unwrap_or(&[]);
        let mut entered: Vec<StmtId> = Vec::new();
        if let Some(up) = firsts {
            let mut l = up[consumer.index()];
            while let Some(x) = l.filter(|&x| !inside(copy, x)) {
                if reach.later.is_none_or(|(_, c)| inside(c, x)) {
                    entered.push(x);
                }
                l = up[x.index()];
            }
        }
        // Out of an exact loop the verifier unrolls: a copy's iteration forms there, each with
        // that loop's variable fixed (the last one's from its last iteration, `Reach::past`;
        // every one's from some iteration, `Reach::left`), as the barrier pass takes them
        // leaving the loop (`State::leave_last`, `leave_earlier`; exec seed 9951: a copy
        // through a handle that holds an outer trip's slot in its odd trips met the next outer
        // trip's read of the other slot at any distance). `None` else.
        let exact_forms = |d: u32| -> Option<Vec<u32>> {
            let exact = |m: StmtId| match &k.stmts[m].kind {
                StmtKind::For(f) => match (f.lo, f.trips().exact()) {
                    (syncopt_ir::Bound::Const(_), Some(n)) => Some((f.iv, n)),
                    _ => None,
                },
                _ => None,
            };
            let v = match (reach.past, reach.left) {
                (Some(m), l) if l.is_none_or(|l| l == m) => {
                    let (iv, n) = exact(m)?;
                    vec![acc.last_iv_form(d, iv, n)?]
                }
                (None, Some(m)) => {
                    let (iv, n) = exact(m)?;
                    let mut v = acc.earlier_iv_forms(d, iv, n, false).unwrap_or_default();
                    v.extend(acc.last_iv_form(d, iv, n));
                    v.sort_unstable();
                    v.dedup();
                    v
                }
                _ => return None,
            };
            (!v.is_empty()).then_some(v)
        };
        let writes = ids(copy)
            .iter()
            .map(|&a| &acc.accesses[a as usize])
            .filter(|a| a.mode != Mode::Read);
        let base_of = |a: &Access| -> u32 {
            // The iteration distances to test (see `Accesses::conflict`): 0, the copy of
            // this very iteration; 1, of the previous iteration of its only loop; 2, any.
            // Paths that cross only loop `m` and loops inside it (`Carried::One`/`Loop`)
            // leave the copy in the iteration of the consumer unless its address depends on
            // the variable of one of those loops.
            // Out of a loop from its last iteration (`Reach::past`, or `Carried::Exit` of it
            // straight after): the copy's form made in some iteration of that loop, the same
            // iteration of the loops around, where its address moves with the loop's
            // variable in its words alone or not at all (`Accesses::loop_exit`; the barrier
            // pass binds it there too, exec seed 108 at 200 ops).
            // Out of a loop from some iteration first (`Reach::left`): that form too.
            // From the last iteration of a loop the copy has a form in (an exact loop's), that
            // form decides below (`Carried::Exit`, `fixed`), as the barrier pass binds it
            // (`State::leave_loop`) before its exit form.
            match (reach.past, reach.carried) {
                (Some(m), _) | (None, Carried::Exit(m)) if acc.last_bound(a.desc, m).is_none() => {
                    acc.loop_exit(a.desc, m)
                }
                _ => None,
            }
            .or_else(|| reach.left.and_then(|m| acc.loop_exit(a.desc, m)))
            .or_else(|| reach.left.and_then(|m| acc.exit_bound(a.desc, m)))
            .map(|d| {
                // Then out of a loop around from the copy's trip of it (`Reach::then_last`):
                // that trip was its last (the barrier pass's `PIN_LAST`).
                reach
                    .then_last
                    .and_then(|l| acc.last_bound(d, l))
                    .unwrap_or(d)
            })
            .unwrap_or(a.desc)
        };
        let bases: Vec<_> = writes
            .flat_map(|a| {
                let v = exact_forms(a.desc).unwrap_or_else(|| vec![base_of(a)]);
                v.into_iter().map(move |b| (a, b))
            })
            .collect();
        bases.into_iter().any(|(a, base)| {
            let ivs = &acc.descs[base as usize].ivs;
            let moved = |m: StmtId| {
                ivs.iter().any(|&v| match k.values[v].kind {
                    ValueKind::Iv(l) => l == m || inside(l, m),
                    _ => true,
                })
            };
            let carried = match reach.carried {
                Carried::No => None,
                Carried::Many => Some((base, 2)),
                Carried::One(m) | Carried::Loop(m) | Carried::Exit(m) if !moved(m) => {
                    Some((base, 0))
                }
                Carried::One(m) => Some((
                    base,
                    match &k.stmts[m].kind {
                        StmtKind::For(f) if ivs.as_slice() == [f.iv] => 1,
                        _ => 2,
                    },
                )),
                Carried::Loop(_) => Some((base, 2)),
                // The copy's iteration of `m`: where its address moves only with `m`'s own
                // variable it is the same place.
                Carried::Within(m)
                    if !ivs.iter().any(|&v| match k.values[v].kind {
                        ValueKind::Iv(l) => inside(l, m),
                        _ => true,
                    }) =>
                {
                    Some((base, 0))
                }
                Carried::Within(_) => Some((base, 2)),
                // From the loop's last iteration: its form there, when the loop has one
                // (the same iteration as every later access once no variable is left).
                // The copy's form `base` there, where it has one (an iteration form of an
                // inner loop it left, exec seed 4586's: its handles of this loop bound too).
                Carried::Exit(m) => Some(
                    match acc
                        .last_bound(base, m)
                        .or_else(|| acc.last_bound(a.desc, m))
                    {
                        Some(d) if acc.one_place_at(k, d, m) => (d, 0),
                        Some(d) => (d, 2),
                        None => (a.desc, 2),
                    },
                ),
            };
            // Left a loop from its last iteration first (`Reach::past`): where the copy's
            // form there is one fixed place, that is where it wrote, whatever came after.
            // So is a copy's own descriptor where it is one place (bound to the residue of a
            // parity branch), or its form in the one residue of a loop its branch runs in.
            // Or, leaving from its last iteration the loop whose residue its paths told
            // (`Reach::res`), that residue's form (modulo the handles' period `p`, which
            // divides the variable's period `q` the paths count in).
            // The residue the copy's paths told (`Reach::res`) modulo its loop's handles' period
            // `p`, which divides the period `q` the paths count in: (loop, residue, `p`).
            let told_res = || -> Option<(StmtId, u32, u32)> {
                let (lp, r, q) = reach.res?;
                let (_, _, loops, _) = res?;
                let i = loops.binary_search_by_key(&lp, |x| x.0).ok()?;
                let p = loops[i].1;
                (p > 0 && u64::from(q) % p == 0).then(|| (lp, (u64::from(r) % p) as u32, p as u32))
            };
            let told = || {
                told_res()
                    .filter(|&(lp, _, _)| {
                        reach.past == Some(lp) || reach.carried == Carried::Exit(lp)
                    })
                    .map(|(lp, r, _)| (lp, r))
            };
            let own = res
                .and_then(|(op_res, _, _, _)| op_res.get(&copy))
                .map(|&(lp, r, _)| (lp, r))
                .or_else(told)
                .map_or(a.desc, |x| in_residue(a.desc, x));
            let own = Some(own).filter(|&d| acc.one_place_at(k, d, copy));
            let fixed = reach
                .past
                .and_then(|m| {
                    acc.last_bound(a.desc, m)
                        .filter(|&d| acc.one_place_at(k, d, m))
                })
                .or(own);
            // A consumer inside that loop, reached with no back edge of it crossed since:
            // the first iteration of the loop's next run, whatever form the copy has (the
            // barrier pass's `Key::first`; exec seed 8634: a copy of the inner loop's last
            // trip met the next outer trip's write through the inner handle as if in any
            // inner trip).
            let rerun = reach
                .past
                .filter(|&m| !reach.again && inside(consumer, m))
                .or_else(|| {
                    reach
                        .then_last
                        .filter(|&m| !reach.last_again && inside(consumer, m))
                });
            let carried = match (carried, fixed) {
                (Some(_), Some(d)) => Some((d, 0, rerun)),
                (c, _) => c.map(|(x, d)| (x, d, rerun)),
            };
            // Or whose paths told the residue it ran in (`Reach::res`, modulo the handles'
            // period `p`, which divides the period `q` the paths count in), as the barrier
            // pass's `Key::ares` takes the next residue across the back edge (exec seed 18142
            // at 100 ops: a copy of an odd trip, which skipped the even branch's barrier, met
            // the next trip's read through the handle that holds the other buffer then).
            // The copy then takes its form in its residue too (`prev`): bound to the next
            // residue's values, the consumer no longer takes the handle rule against the copy's
            // handle (exec seed 5553).
            let told_prev = match (reach.carried, res) {
                (Carried::One(m), Some((op_res, _, _, _)))
                    if op_res.get(&copy).is_none_or(|x| x.0 != m || x.2 == 0) =>
                {
                    told_res().filter(|x| x.0 == m)
                }
                _ => None,
            };
            let next = match (reach.carried, res) {
                (Carried::One(m), Some((op_res, _, _, _))) => match op_res.get(&copy) {
                    Some(&(lp, r, q)) if lp == m && q > 0 => Some((m, (r + 1) % q)),
                    _ => told_prev.map(|(m, r, p)| (m, (r + 1) % p)),
                },
                _ => None,
            };
            let prev = told_prev.map(|(m, r, _)| (m, r));
            // One back edge of a loop of at most two trips: the consumer runs in its second
            // iteration, the last (the barrier pass binds it there too, `Key::back`).
            let last = match reach.carried {
                Carried::One(m) => match &k.stmts[m].kind {
                    StmtKind::For(f) if f.trips().max == Some(2) => Some(m),
                    _ => None,
                },
                _ => None,
            };
            // Straight out of a loop from its last iteration, nothing crossed since: a loop
            // whose results the copy's form there names has not run again either
            // (`Accesses::bind_run_lasts`; plain gen seed 2898 on sm).
            let exit_run = matches!(reach.carried, Carried::Exit(_)) && reach.past.is_none();
            // One back edge of a loop with a constant start crossed: the consumer is in a
            // later trip of it than the first (the barrier pass's `Key::later` and
            // `Key::lat`; exec seed 8203: a copy of an inner loop's last trip met the next
            // outer trip's write as if in the first outer trip).
            let lat = match reach.carried {
                Carried::One(m) => match &k.stmts[m].kind {
                    StmtKind::For(f) if matches!(f.lo, syncopt_ir::Bound::Const(_)) => Some(f.iv),
                    _ => None,
                },
                _ => None,
            };
            // Straight out of a loop from the copy's own trip, the last (`Carried::Exit`): in
            // whichever residue `r` of the loop's period that trip ran, the copy took its form
            // there, and the loop's results are those after a trip count in residue `r + 1`;
            // a consumer through them meets the copy in its form after such a count (the
            // barrier pass's `Key::exit`; plain gen seed 1160 at 100 ops on sm_90: the copy of
            // an odd trip never meets the read after the loop of the result that holds the
            // other buffer after an even count). Each residue is tested on its own.
            let after = match reach.carried {
                // The residues count trips from the first: a variable that starts at 0 and
                // steps by 1 is the trip's index.
                Carried::Exit(m)
                    if matches!(&k.stmts[m].kind, StmtKind::For(f)
                        if f.lo == syncopt_ir::Bound::Const(0) && f.step == 1) =>
                {
                    res.and_then(|(op_res, _, loops, exits)| {
                        let i = loops.binary_search_by_key(&m, |x| x.0).ok()?;
                        let q = u32::try_from(loops[i].1)
                            .ok()
                            .filter(|&q| (2..=64).contains(&q))?;
                        // The copy's own residue there, when its branch tells it.
                        let own = op_res
                            .get(&copy)
                            .filter(|x| x.0 == m && x.2 == q)
                            .map(|x| x.1);
                        exits
                            .iter()
                            .any(|x| x.0 .1 == m.index() as u32)
                            .then_some((m, q, own))
                    })
                }
                _ => None,
            };
            let dists = reach
                .same
                .then(|| {
                    (
                        same_iteration(a.desc),
                        0,
                        None,
                        None,
                        None,
                        true,
                        None,
                        None,
                    )
                })
                .into_iter()
                .chain(
                    carried.map(|(x, d, rerun)| (x, d, rerun, next, last, exit_run, lat, after)),
                );
            dists
                .into_iter()
                .any(|(x, d, rerun, next, last, same_run, lat, after)| {
                    // `later` only rules pairs out: the one test decides.
                    let meets = |x: u32, b: u32| match lat {
                        Some(iv) => acc.conflict_across_waves_later(x, d, b, wave, (iv, None)),
                        None => acc.conflict_across_waves(x, d, b, wave),
                    };
                    ids(consumer).iter().any(|&b| {
                        let b = acc.accesses[b as usize].desc;
                        // In the copy's iteration of every loop around it, a loop whose results
                        // it went through has not run again: two different results of that run
                        // are different memory (`Region::run`, the barrier pass's `Key::run`;
                        // plain gen seed 4306 at 100 ops on AMD).
                        if same_run && acc.run_apart(x, b) {
                            return false;
                        }
                        let b = last.map_or(b, |m| acc.last_bound(b, m).unwrap_or(b));
                        let x = last.map_or(x, |m| acc.first_bound(x, m));
                        let x = prev.map_or(x, |p| in_residue(x, p));
                        let b = next.map_or(b, |n| in_residue(b, n));
                        let b = rerun.map_or(b, |m| acc.first_bound(b, m));
                        let test = |x: u32, b: u32| {
                            if entered.is_empty() {
                                return meets(x, b);
                            }
                            entered.iter().all(|&l| meets(x, acc.first_bound(b, l)))
                        };
                        match after {
                            Some((m, q, own)) => {
                                (0..q).filter(|&r| own.is_none_or(|o| o == r)).any(|r| {
                                    test(in_residue(x, (m, r)), after_count(b, m, (r + 1) % q))
                                })
                            }
                            None => test(x, b),
                        }
                    })
                })
        })
    };
    // The descriptors as collected first (no iteration forms): most pairs are apart already.
    let mut found: Vec<(StmtId, StmtId, Reach, bool)> = pairs
        .iter()
        .filter(|&&(copy, consumer, reach, _)| conflict(&acc, None, copy, consumer, reach))
        .copied()
        .collect();
    if !found.is_empty() {
        // Then the exact values of the loops the verifier unrolls (constant start, 1 to 8
        // trips), as the barrier pass compares them: a consumer's iterations restricted by
        // conditions on the induction variable and its handles in parity branches
        // (`bind_parity`, `bind_residue_slots`: exact facts about the op's own iteration,
        // the copy's too), and each descriptor's forms per iteration (`bind_first_ivs`),
        // which `conflict_across_waves` enumerates at the iteration distance of the
        // barrier-free paths. Both tests are sound; a pair must pass both.
        acc.bind_parity(k);
        acc.bind_residue_slots(k);
        acc.bind_loop_exits(k);
        acc.bind_first_ivs(k);
        acc.bind_periodic(k);
        let res_ops = acc.residue_ops(k);
        let mut loops: Vec<(StmtId, u64)> = res_ops.iter().map(|&(_, lp, _, q)| (lp, q)).collect();
        loops.sort_unstable();
        loops.dedup();
        let mut forms = acc.residue_forms(k, &loops);
        // A copy through the handles of a loop inside one of them, started from its handles:
        // those bound too (the barrier pass's `outer_forms`), where the loop's own handles
        // gave no form.
        let nested = acc.nested_residue_forms(k, &loops);
        if !nested.is_empty() {
            let own: BTreeSet<(u32, u32, u32)> = forms.iter().map(|x| x.0).collect();
            forms.extend(nested.into_iter().filter(|x| !own.contains(&x.0)));
            forms.sort_unstable();
        }
        let mut op_res: BTreeMap<StmtId, (StmtId, u32, u32)> = res_ops
            .iter()
            .map(|&(op, lp, r, q)| (op, (lp, r as u32, q as u32)))
            .collect();
        // The same for loops without handles, whose slot views on the variable take the
        // residue's slots (the barrier pass keys a copy in such a branch by its residue).
        let plain = Accesses::plain_residue_ops(k, &dataflow::iv_periods(k));
        if !plain.is_empty() {
            let mut loops: Vec<(StmtId, u64)> =
                plain.iter().map(|&(_, lp, _, q)| (lp, q)).collect();
            loops.sort_unstable();
            loops.dedup();
            forms.extend(acc.plain_residue_forms(k, &loops));
            forms.sort_unstable();
            for (op, lp, r, q) in plain {
                op_res.entry(op).or_insert((lp, r as u32, q as u32));
            }
        }
        let exits = acc.top_exit_forms(k, &loops);
        let res: Residues = (op_res, forms, loops, exits);
        let up = firsts.get_or_insert_with(|| loop_parents(k));
        found.retain(|&(copy, consumer, reach, _)| {
            conflict(&acc, Some((up, &res)), copy, consumer, reach)
        });
    }
    let at = |s: StmtId| order.get(s.index()).copied().unwrap_or(usize::MAX);
    let mut out: BTreeSet<(StmtId, StmtId)> = BTreeSet::new();
    let mut first_done: BTreeMap<StmtId, StmtId> = BTreeMap::new();
    for (copy, consumer, _, completed) in found {
        if !completed {
            out.insert((copy, consumer));
            continue;
        }
        let first = first_done.entry(copy).or_insert(consumer);
        if at(consumer) < at(*first) {
            *first = consumer;
        }
    }
    let reported: BTreeSet<StmtId> = out.iter().map(|p| p.0).collect();
    for (copy, consumer) in first_done {
        if !reported.contains(&copy) {
            out.insert((copy, consumer));
        }
    }
    out
}

/// Per statement: the innermost loop around it.
pub(crate) fn loop_parents(k: &Kernel) -> Vec<Option<StmtId>> {
    let mut up = vec![None; k.stmts.len()];
    let mut stack: Vec<(syncopt_ir::BlockId, Option<StmtId>)> = vec![(k.body, None)];
    while let Some((b, l)) = stack.pop() {
        for &s in &k.blocks[b].stmts {
            up[s.index()] = l;
            let inner = match &k.stmts[s].kind {
                StmtKind::For(_) => Some(s),
                _ => l,
            };
            for c in k.stmts[s].kind.child_block_ids() {
                stack.push((c, inner));
            }
        }
    }
    up
}

/// The waits a set of demands asks for: per site and counter, the smallest demand, capped at
/// the counter's maximum (a smaller N is sound, a larger one never).
fn derive(needs: &std::collections::BTreeMap<StmtId, Need>, target: Target) -> Config {
    let mut cfg = Config::new();
    for (&site, need) in needs {
        let mut sw = SiteWait::default();
        for (&counter, &m) in &need.min {
            if m < 0 {
                sw.commit = true;
            }
            let max = target.counter_max(counter).unwrap_or(0) as i32;
            sw.waits.insert(counter, m.clamp(0, max) as u32);
        }
        cfg.insert(site, sw);
    }
    cfg
}

/// Whether `config` meets every demand analysed under it.
fn covers(
    config: &Config,
    needs: &std::collections::BTreeMap<StmtId, Need>,
    target: Target,
) -> bool {
    let want = derive(needs, target);
    want.iter().all(|(site, w)| match config.get(site) {
        None => false,
        Some(have) => {
            (have.commit || !w.commit)
                && w.waits
                    .iter()
                    .all(|(c, n)| have.waits.get(c).is_some_and(|h| h <= n))
        }
    })
}

/// NVIDIA: closes each stage's copies with `cp_async.commit` where the input has none: before a
/// barrier, before a loop, and at the end of a loop body, when copies were issued since the
/// last commit on some path.
fn insert_commits(kernel: &mut Kernel, target: Target) {
    let mut items = Vec::new();
    commits_in(kernel, target, kernel.body, false, &mut items);
    kernel.insert_syncs(
        items
            .into_iter()
            .map(|p| (p, SyncOp::CpAsyncCommit))
            .collect(),
    );
}

fn commits_in(
    k: &Kernel,
    target: Target,
    b: BlockId,
    mut open: bool,
    out: &mut Vec<ProgramPoint>,
) -> bool {
    let stmts = &k.blocks[b].stmts;
    for (i, &s) in stmts.iter().enumerate() {
        let here = ProgramPoint { block: b, index: i };
        match &k.stmts[s].kind {
            StmtKind::Op(op)
                if op.asynchronous.is_some_and(|a| {
                    target.async_counter(a, &op.name) == Some(Counter::CpAsync)
                }) =>
            {
                open = true;
            }
            StmtKind::Sync(SyncOp::CpAsyncCommit) => open = false,
            StmtKind::Sync(SyncOp::Barrier { .. }) | StmtKind::Sync(SyncOp::Signal { .. })
                if open =>
            {
                out.push(here);
                open = false;
            }
            StmtKind::For(f) => {
                if open {
                    out.push(here);
                    open = false;
                }
                let body = f.body;
                if commits_in(k, target, body, false, out) {
                    out.push(ProgramPoint {
                        block: body,
                        index: k.blocks[body].stmts.len(),
                    });
                }
            }
            StmtKind::If(i) => {
                let t = commits_in(k, target, i.then_block, open, out);
                let e = match i.else_block {
                    Some(e) => commits_in(k, target, e, open, out),
                    None => open,
                };
                open = t || e;
            }
            _ => {}
        }
    }
    open
}

/// Async ops whose counter the target lacks cannot be waited for.
fn unknown_counters(k: &Kernel, target: Target) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    k.walk(&mut |_, d| {
        if let StmtKind::Op(op) = &d.kind {
            if let Some(spec) = op.asynchronous {
                let c = target.async_counter(spec, &op.name);
                let ok = c.is_some_and(|c| target.counter_max(c).is_some());
                if !ok {
                    out.push(Diagnostic::warning(
                        d.loc,
                        format!(
                            "async op '{}' uses {} which {target} does not have; no wait can \
                             cover it",
                            op.name,
                            c.map_or("no counter".to_string(), |c| c.to_string())
                        ),
                    ));
                }
            }
        }
    });
    out
}

/// Walk-order position of each statement (by index; unreachable ones last).
fn walk_order(k: &Kernel) -> Vec<usize> {
    let mut m = vec![usize::MAX; k.stmts.len()];
    let mut n = 0;
    k.walk(&mut |s, _| {
        m[s.index()] = n;
        n += 1;
    });
    m
}

/// Where each statement sits (by index).
fn program_points(k: &Kernel) -> Vec<Option<ProgramPoint>> {
    let mut m = vec![None; k.stmts.len()];
    for (b, data) in k.blocks.iter() {
        for (i, &s) in data.stmts.iter().enumerate() {
            m[s.index()] = Some(ProgramPoint { block: b, index: i });
        }
    }
    m
}

fn op_name(k: &Kernel, s: StmtId) -> String {
    match &k.stmts[s].kind {
        StmtKind::Op(op) => op.name.clone(),
        _ => "?".into(),
    }
}

fn loc_str(l: Option<Loc>) -> String {
    l.map_or("?".to_string(), |l| l.to_string())
}
