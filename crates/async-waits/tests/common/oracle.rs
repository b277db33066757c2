//! An independent checker for the tests: enumerates every path of a small kernel (loops run
//! 0..=4 times, or their exact count), resolves every buffer, view and handle to concrete bytes,
//! and checks on each path that every async copy completed (a counter wait that covers it)
//! before the last barrier ahead of each conflicting access, or before the access itself when
//! no barrier lies between. It shares nothing with the pass but the IR.
//!
//! The crate's verifier (crates/verify) is the real judge; this oracle stands in while it is
//! being written and keeps the property tests meaningful.

use std::collections::BTreeMap;

use syncopt_ir::{
    AccessKind, BlockId, Bound, Counter, Kernel, Placement, Selector, StmtId, StmtKind, SyncOp,
    ValueId, ValueKind, Var, ViewKind,
};
use syncopt_targets::Target;

#[derive(Clone, Debug)]
enum Ev {
    Issue {
        stmt: StmtId,
        counter: Counter,
        ranges: Vec<(AccessKind, u32, u64, u64)>,
    },
    Access {
        stmt: StmtId,
        ranges: Vec<(AccessKind, u32, u64, u64)>,
    },
    Signal,
    Wait,
    CWait {
        counter: Counter,
        n: u32,
    },
    Commit,
}

#[derive(Clone, Default)]
struct Env {
    ints: BTreeMap<ValueId, i64>,
    handles: BTreeMap<ValueId, (u32, u64, u64)>,
}

struct Walker<'a> {
    k: &'a Kernel,
    target: Target,
    max_paths: usize,
    overflow: bool,
}

/// A violation: (copy, consumer) statement ids.
pub type Violation = (StmtId, StmtId);

/// `None` when the kernel has too many paths to enumerate.
pub fn check(k: &Kernel, target: Target) -> Option<Vec<Violation>> {
    let mut w = Walker {
        k,
        target,
        max_paths: 600,
        overflow: false,
    };
    let paths = w.block(k.body, vec![(Vec::new(), Env::default())]);
    if w.overflow {
        return None;
    }
    let mut out = Vec::new();
    for (evs, _) in &paths {
        check_path(evs, &mut out);
    }
    out.sort();
    out.dedup();
    Some(out)
}

impl Walker<'_> {
    fn block(&mut self, b: BlockId, mut paths: Vec<(Vec<Ev>, Env)>) -> Vec<(Vec<Ev>, Env)> {
        for &s in &self.k.blocks[b].stmts {
            if self.overflow {
                return Vec::new();
            }
            paths = self.stmt(s, paths);
            if paths.len() > self.max_paths {
                self.overflow = true;
                return Vec::new();
            }
        }
        paths
    }

    fn stmt(&mut self, s: StmtId, paths: Vec<(Vec<Ev>, Env)>) -> Vec<(Vec<Ev>, Env)> {
        let k = self.k;
        match &k.stmts[s].kind {
            StmtKind::Op(op) => paths
                .into_iter()
                .map(|(mut evs, env)| {
                    let ranges: Vec<_> = op
                        .effects
                        .iter()
                        .filter(|e| {
                            syncopt_targets::value_space(k, e.mem.value, 0)
                                == Some(syncopt_ir::Space::Workgroup)
                        })
                        .map(|e| {
                            let (r, lo, hi) = self.resolve(&env, e.mem.value);
                            let (lo, hi) = match &e.mem.sel {
                                Selector::Whole => (lo, hi),
                                Selector::Bytes { lo: a, hi: b } => (lo + a, (lo + b).min(hi)),
                                Selector::Index(_) => (lo, hi),
                            };
                            (e.kind, r, lo, hi)
                        })
                        .collect();
                    evs.push(Ev::Access {
                        stmt: s,
                        ranges: ranges.clone(),
                    });
                    if let Some(spec) = op.asynchronous {
                        if let Some(c) = self.target.async_counter(spec, &op.name) {
                            evs.push(Ev::Issue {
                                stmt: s,
                                counter: c,
                                ranges,
                            });
                        }
                    }
                    (evs, env)
                })
                .collect(),
            StmtKind::Sync(op) => {
                let evs: Vec<Ev> = match op {
                    SyncOp::Barrier { .. } => vec![Ev::Signal, Ev::Wait],
                    SyncOp::Signal { .. } => vec![Ev::Signal],
                    SyncOp::Wait { .. } => vec![Ev::Wait],
                    SyncOp::CounterWait { counter, n } => vec![Ev::CWait {
                        counter: *counter,
                        n: *n,
                    }],
                    SyncOp::CpAsyncWait { n } => vec![Ev::CWait {
                        counter: Counter::CpAsync,
                        n: *n,
                    }],
                    SyncOp::CpAsyncCommit => vec![Ev::Commit],
                    _ => vec![],
                };
                paths
                    .into_iter()
                    .map(|(mut p, env)| {
                        p.extend(evs.iter().cloned());
                        (p, env)
                    })
                    .collect()
            }
            StmtKind::If(i) => {
                let mut out = self.block(i.then_block, paths.clone());
                match i.else_block {
                    Some(e) => out.extend(self.block(e, paths)),
                    None => out.extend(paths),
                }
                out
            }
            StmtKind::For(f) => {
                let t = f.trips();
                let counts: Vec<u64> = match t.exact() {
                    Some(n) => vec![n],
                    None => (t.min..=t.max.unwrap_or(4).min(t.min + 4)).collect(),
                };
                let lo = match f.lo {
                    Bound::Const(c) => c,
                    Bound::Value(_) => 0,
                };
                let mut out = Vec::new();
                for (evs, env0) in paths {
                    let mut env = env0.clone();
                    for &(arg, init) in &f.iter_args {
                        let c = self.resolve(&env0, init);
                        env.handles.insert(arg, c);
                    }
                    env.ints.insert(f.iv, lo);
                    let mut cur = vec![(evs, env)];
                    let maxc = *counts.iter().max().unwrap_or(&0);
                    for it in 0..=maxc {
                        if counts.contains(&it) {
                            out.extend(cur.iter().map(|(e, env)| {
                                let mut env = env.clone();
                                env.ints.remove(&f.iv);
                                (e.clone(), env)
                            }));
                        }
                        if it == maxc {
                            break;
                        }
                        cur = self.block(f.body, cur);
                        if self.overflow {
                            return Vec::new();
                        }
                        let ys = self.k.blocks[f.body].yields.clone();
                        for (_, env) in cur.iter_mut() {
                            let vals: Vec<_> = ys.iter().map(|&y| self.resolve(env, y)).collect();
                            for (j, &(arg, _)) in f.iter_args.iter().enumerate() {
                                if let Some(v) = vals.get(j) {
                                    env.handles.insert(arg, *v);
                                }
                            }
                            *env.ints.get_mut(&f.iv).unwrap() += f.step;
                        }
                    }
                }
                if out.len() > self.max_paths {
                    self.overflow = true;
                }
                out
            }
            _ => paths,
        }
    }

    /// Root buffer index and byte range of a memory value on this path.
    fn resolve(&self, env: &Env, v: ValueId) -> (u32, u64, u64) {
        let k = self.k;
        match k.values[v].kind {
            ValueKind::Buffer(b) => {
                let size = k.buffers[b].size;
                match k.buffers[b].placement {
                    Placement::At { base, offset } => {
                        let (r, lo, _) = self.resolve(env, base);
                        (r, lo + offset, lo + offset + size)
                    }
                    _ => (syncopt_ir::EntityRef::index(b) as u32, 0, size),
                }
            }
            ValueKind::View(view) => {
                let (r, lo, hi) = self.resolve(env, k.views[view].base);
                match &k.views[view].kind {
                    ViewKind::Range { lo: a, hi: b } => (r, lo + a, (lo + b).min(hi)),
                    ViewKind::Slot { count, index } => {
                        let i = index
                            .eval(|var| match var {
                                Var::Value(x) => *env.ints.get(&x).unwrap_or(&0),
                                Var::Tid => 0,
                            })
                            .rem_euclid(*count as i64) as u64;
                        let size = (hi - lo) / *count as u64;
                        (r, lo + i * size, lo + (i + 1) * size)
                    }
                }
            }
            ValueKind::IterArg { .. } => *env.handles.get(&v).expect("bound handle"),
            _ => (u32::MAX, 0, u64::MAX),
        }
    }
}

fn conflicts(a: &[(AccessKind, u32, u64, u64)], b: &[(AccessKind, u32, u64, u64)]) -> bool {
    a.iter().any(|&(ka, ra, la, ha)| {
        b.iter().any(|&(kb, rb, lb, hb)| {
            let kinds = !(ka == AccessKind::Atomic && kb == AccessKind::Atomic)
                && (ka.writes() || kb.writes());
            kinds && (ra == rb || ra == u32::MAX || rb == u32::MAX) && la < hb && lb < ha
        })
    })
}

/// Whether the copy issued at `i` has surely completed at position `p` (some wait in between
/// covers it).
fn complete(evs: &[Ev], i: usize, p: usize) -> bool {
    let Ev::Issue { counter, .. } = &evs[i] else {
        return true;
    };
    let counter = *counter;
    if counter == Counter::CpAsync {
        // Groups: the copy's group closes at the first commit after it.
        let Some(c) = (i + 1..p).find(|&q| matches!(evs[q], Ev::Commit)) else {
            return false;
        };
        let mut later = 0u32;
        for ev in &evs[c + 1..p] {
            match ev {
                Ev::Commit => later += 1,
                Ev::CWait {
                    counter: Counter::CpAsync,
                    n,
                } if later >= *n => return true,
                _ => {}
            }
        }
        return false;
    }
    let mut later = 0u32;
    for ev in &evs[i + 1..p] {
        match ev {
            Ev::Issue { counter: c, .. } if *c == counter => later += 1,
            Ev::CWait { counter: c, n } if *c == counter && later >= *n => return true,
            _ => {}
        }
    }
    false
}

fn check_path(evs: &[Ev], out: &mut Vec<Violation>) {
    for i in 0..evs.len() {
        let Ev::Issue {
            stmt: g,
            ranges: gr,
            ..
        } = &evs[i]
        else {
            continue;
        };
        let mut last_pub: Option<usize> = None;
        let mut open_signal: Option<usize> = None;
        for j in i + 1..evs.len() {
            match &evs[j] {
                Ev::Signal => open_signal = Some(j),
                Ev::Wait => {
                    if let Some(s) = open_signal.take() {
                        last_pub = Some(s);
                    }
                }
                Ev::Access {
                    stmt: x,
                    ranges: xr,
                } if conflicts(gr, xr) => {
                    let at = last_pub.unwrap_or(j);
                    if !complete(evs, i, at) {
                        out.push((*g, *x));
                    }
                }
                _ => {}
            }
        }
    }
}
