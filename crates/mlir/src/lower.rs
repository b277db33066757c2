//! From an MLIR function to a syncopt kernel: workgroup memrefs become buffers, view-like ops
//! become views, `scf.for`/`scf.if` become loops and ifs, memory ops become effects, and the
//! sync ops already in the input become sync statements. Every statement remembers the MLIR
//! line it came from, so inserted sync can be spliced back in.

use std::collections::HashMap;

use syncopt_ir::{
    AccessKind, AsyncSpec, BlockId, Bound, BufferData, Cond, Counter, Diagnostic, Effect, ForData,
    IfData, Kernel, Loc, MemRef, OpData, Placement, Selector, Space, StmtId, StmtKind, SyncOp,
    Uniformity, ValueData, ValueId, ValueKind, ViewData, ViewKind,
};

use crate::reader::{split_top, ssa_names, MBlock, MOp};
use crate::types::{parse_memref, MemrefType};

/// What an SSA value is, as far as synchronization cares.
#[derive(Clone, Debug)]
enum MVal {
    Const(i64),
    /// An integer or other scalar; `divergent` when it may differ between threads.
    Scalar {
        divergent: bool,
    },
    /// Memory: the syncopt value it names and whether it is workgroup memory.
    Mem {
        value: ValueId,
        workgroup: bool,
    },
    /// A pointer into a known memref (or unknown).
    Ptr {
        mem: Option<ValueId>,
    },
}

/// Where each syncopt block sits in the MLIR text.
#[derive(Clone, Debug)]
pub struct BlockAnchor {
    /// Line of the block's terminator (`scf.yield`, `gpu.return`), if it has one.
    pub terminator: Option<usize>,
    /// Line of the `}` after the block.
    pub close_line: usize,
}

pub struct Lowered {
    pub kernel: Kernel,
    /// MLIR line of each statement lowered from the input.
    pub stmt_line: HashMap<StmtId, usize>,
    pub anchors: HashMap<BlockId, BlockAnchor>,
}

struct Lower<'a> {
    k: Kernel,
    env: HashMap<String, MVal>,
    stmt_line: HashMap<StmtId, usize>,
    anchors: HashMap<BlockId, BlockAnchor>,
    params: HashMap<String, ValueId>,
    lines: &'a [&'a str],
    fresh: usize,
}

const THREAD_ID_OPS: &[&str] = &[
    "gpu.thread_id",
    "gpu.lane_id",
    "gpu.global_id",
    "rocdl.workitem.id.x",
    "rocdl.workitem.id.y",
    "rocdl.workitem.id.z",
    "rocdl.mbcnt.lo",
    "rocdl.mbcnt.hi",
    "nvvm.read.ptx.sreg.tid.x",
    "nvvm.read.ptx.sreg.tid.y",
    "nvvm.read.ptx.sreg.tid.z",
    "nvvm.read.ptx.sreg.laneid",
];

/// An `iter_args` entry of `scf.for`: (name in the body, initial value, type).
type IterArg = (String, String, String);

const TERMINATORS: &[&str] = &[
    "scf.yield",
    "gpu.return",
    "func.return",
    "return",
    "gpu.terminator",
    "scf.condition",
    "llvm.return",
];

/// `(op, memref operand index, access)` for ops whose effect is on one operand.
const MEMORY_OPS: &[(&str, usize, AccessKind)] = &[
    ("memref.load", 0, AccessKind::Read),
    ("vector.load", 0, AccessKind::Read),
    ("vector.transfer_read", 0, AccessKind::Read),
    ("vector.maskedload", 0, AccessKind::Read),
    ("vector.gather", 0, AccessKind::Read),
    ("vector.expandload", 0, AccessKind::Read),
    ("memref.store", 1, AccessKind::Write),
    ("vector.store", 1, AccessKind::Write),
    ("vector.transfer_write", 1, AccessKind::Write),
    ("vector.maskedstore", 1, AccessKind::Write),
    ("vector.scatter", 1, AccessKind::Write),
    ("vector.compressstore", 1, AccessKind::Write),
    ("memref.atomic_rmw", 1, AccessKind::Atomic),
    ("memref.generic_atomic_rmw", 0, AccessKind::Atomic),
];

/// Ops that give a new name to (part of) their first memref operand.
const ALIAS_OPS: &[&str] = &[
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.memory_space_cast",
    "memref.assume_alignment",
    "memref.transpose",
    "memref.extract_aligned_pointer_as_index",
];

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl<'a> Lower<'a> {
    fn err(&self, op: &MOp, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(Some(op.loc()), msg)
    }

    fn new_value(&mut self, hint: &str, kind: ValueKind, loc: Option<Loc>) -> ValueId {
        // Names must be unique per kernel for the printer; number them.
        self.fresh += 1;
        let name = format!("{}_{}", sanitize(hint), self.fresh);
        self.k.values.push(ValueData { name, kind, loc })
    }

    fn new_buffer(&mut self, hint: &str, ty: &MemrefType, loc: Loc) -> ValueId {
        let id = self.k.buffers.next_id();
        let v = self.new_value(hint, ValueKind::Buffer(id), Some(loc));
        let space = if ty.workgroup {
            Space::Workgroup
        } else {
            Space::Global
        };
        // Dynamic global memrefs get a nominal size: only workgroup memory is analysed.
        let size = ty.size_bytes().unwrap_or(1 << 30).max(1);
        self.k.buffers.push(BufferData {
            value: v,
            comments: Vec::new(),
            space,
            size,
            placement: Placement::Own,
        });
        v
    }

    fn param(&mut self, ssa: &str) -> ValueId {
        if let Some(&p) = self.params.get(ssa) {
            return p;
        }
        let v = self.new_value(
            &format!("p_{ssa}"),
            ValueKind::Param { default: None },
            None,
        );
        self.k.params.push(v);
        self.params.insert(ssa.to_string(), v);
        v
    }

    fn divergent(&self, names: &[String]) -> bool {
        names.iter().any(|n| match self.env.get(n) {
            Some(MVal::Scalar { divergent }) => *divergent,
            _ => false,
        })
    }

    fn mem_of(&self, name: &str) -> Option<(ValueId, bool)> {
        match self.env.get(name) {
            Some(MVal::Mem { value, workgroup }) => Some((*value, *workgroup)),
            _ => None,
        }
    }

    fn workgroup_buffers(&self) -> Vec<ValueId> {
        self.k
            .buffers
            .values()
            .filter(|b| b.space == Space::Workgroup)
            .map(|b| b.value)
            .collect()
    }

    /// Operand names of an op line: the SSA names before the type signature.
    fn operands(op: &MOp) -> Vec<String> {
        let text = if op.generic {
            // `(%a, %b) <{...}> : (...) -> ...`: operands are in the first parentheses.
            match (op.rest.find('('), op.rest.find(')')) {
                (Some(a), Some(b)) if a < b => op.rest[a..b].to_string(),
                _ => String::new(),
            }
        } else {
            match op.rest.find(" : ") {
                Some(i) => op.rest[..i].to_string(),
                None => op.rest.clone(),
            }
        };
        ssa_names(&text)
    }

    /// The type of the op's (first) result.
    fn result_type(op: &MOp) -> Option<String> {
        let r = &op.rest;
        let sig = &r[r.rfind(" : ").map(|i| i + 3)?..];
        if let Some(i) = sig.rfind(" to ") {
            return Some(sig[i + 4..].to_string());
        }
        if let Some(i) = sig.rfind("-> ") {
            return Some(sig[i + 3..].to_string());
        }
        Some(sig.to_string())
    }

    fn int_attr(op: &MOp, key: &str) -> Option<i64> {
        let r = &op.rest;
        let i = r.find(&format!("{key} = "))? + key.len() + 3;
        let tail = &r[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(tail.len());
        tail[..end].parse().ok()
    }

    /// First integer literal in the custom form's operand text (`rocdl.s.wait.dscnt 0`).
    fn first_int(op: &MOp) -> Option<i64> {
        op.rest
            .split(|c: char| c.is_whitespace() || c == ',' || c == '=')
            .find_map(|w| w.parse::<i64>().ok())
    }

    fn count_of(op: &MOp, key: &str) -> u32 {
        let v = if op.generic {
            Self::int_attr(op, key)
        } else {
            Self::first_int(op)
        };
        v.unwrap_or(0).max(0) as u32
    }

    fn push(&mut self, block: BlockId, kind: StmtKind, op: &MOp) -> StmtId {
        let s = self.k.push_stmt(block, kind, Some(op.loc()));
        self.stmt_line.insert(s, op.line);
        s
    }

    fn push_op(
        &mut self,
        block: BlockId,
        op: &MOp,
        effects: Vec<Effect>,
        asynchronous: Option<AsyncSpec>,
    ) {
        let data = OpData {
            name: op.name.clone(),
            effects,
            asynchronous,
            pipe: None,
        };
        self.push(block, StmtKind::Op(data), op);
    }

    fn effect(kind: AccessKind, value: ValueId, op: &MOp) -> Effect {
        Effect {
            kind,
            mem: MemRef {
                value,
                sel: Selector::Whole,
            },
            loc: Some(op.loc()),
        }
    }

    fn bind_results(&mut self, op: &MOp, v: MVal) {
        for r in &op.results {
            self.env.insert(r.clone(), v.clone());
        }
    }

    fn lower_block(&mut self, mb: &MBlock, block: BlockId) -> Result<Vec<String>, Diagnostic> {
        let mut yields = Vec::new();
        let mut terminator = None;
        for op in &mb.ops {
            if TERMINATORS.contains(&op.name.as_str()) {
                terminator = Some(op.line);
                yields = Self::operands(op);
                continue;
            }
            self.lower_op(op, block)?;
        }
        self.anchors.insert(
            block,
            BlockAnchor {
                terminator,
                close_line: mb.close_line,
            },
        );
        Ok(yields)
    }

    fn sync(&mut self, block: BlockId, op: &MOp, s: SyncOp) {
        self.push(block, StmtKind::Sync(s), op);
    }

    fn lower_op(&mut self, op: &MOp, block: BlockId) -> Result<(), Diagnostic> {
        let name = op.name.as_str();
        let operands = Self::operands(op);
        let div = self.divergent(&operands) || THREAD_ID_OPS.contains(&name);
        match name {
            "arith.constant" => {
                let v = if op.generic {
                    Self::int_attr(op, "value")
                } else {
                    Self::first_int(op)
                };
                let is_int = op.rest.contains(": index") || op.rest.contains(": i");
                let val = match (v, is_int) {
                    (Some(c), true) => MVal::Const(c),
                    _ => MVal::Scalar { divergent: false },
                };
                self.bind_results(op, val);
                self.push_op(block, op, Vec::new(), None);
            }
            "memref.alloc" | "memref.alloca" | "memref.get_global" => {
                let ty = Self::result_type(op).and_then(|t| parse_memref(&t));
                match ty {
                    Some(ty) => {
                        let hint = op.results.first().cloned().unwrap_or_else(|| "buf".into());
                        let v = self.new_buffer(&hint, &ty, op.loc());
                        self.bind_results(
                            op,
                            MVal::Mem {
                                value: v,
                                workgroup: ty.workgroup,
                            },
                        );
                    }
                    None => self.bind_results(op, MVal::Scalar { divergent: false }),
                }
                self.push_op(block, op, Vec::new(), None);
            }
            "memref.view" | "memref.subview" => {
                let src = operands.first().and_then(|s| self.mem_of(s));
                let ty = Self::result_type(op).and_then(|t| parse_memref(&t));
                let range = match (name, &ty) {
                    ("memref.view", Some(t)) => match operands.get(1).and_then(|o| self.env.get(o))
                    {
                        Some(MVal::Const(off)) if *off >= 0 => {
                            t.size_bytes().map(|s| (*off as u64, *off as u64 + s))
                        }
                        _ => None,
                    },
                    (_, Some(t)) => t.byte_range(),
                    _ => None,
                };
                match src {
                    Some((base, wg)) => {
                        let v = match range {
                            Some((lo, hi))
                                if hi > lo && self.k.static_size(base).is_none_or(|s| hi <= s) =>
                            {
                                let id = self.k.views.next_id();
                                let hint =
                                    op.results.first().cloned().unwrap_or_else(|| "view".into());
                                let v = self.new_value(&hint, ValueKind::View(id), Some(op.loc()));
                                self.k.views.push(ViewData {
                                    value: v,
                                    base,
                                    kind: ViewKind::Range { lo, hi },
                                });
                                self.push(block, StmtKind::View(id), op);
                                v
                            }
                            _ => {
                                self.push_op(block, op, Vec::new(), None);
                                base
                            }
                        };
                        self.bind_results(
                            op,
                            MVal::Mem {
                                value: v,
                                workgroup: wg,
                            },
                        );
                    }
                    None => {
                        self.bind_results(op, MVal::Scalar { divergent: div });
                        self.push_op(block, op, Vec::new(), None);
                    }
                }
            }
            _ if ALIAS_OPS.contains(&name) => {
                match operands.first().and_then(|s| self.mem_of(s)) {
                    Some((v, wg)) if name == "memref.extract_aligned_pointer_as_index" => {
                        let _ = wg;
                        self.bind_results(op, MVal::Ptr { mem: Some(v) });
                    }
                    Some((v, wg)) => self.bind_results(
                        op,
                        MVal::Mem {
                            value: v,
                            workgroup: wg,
                        },
                    ),
                    None => self.bind_results(op, MVal::Scalar { divergent: div }),
                }
                self.push_op(block, op, Vec::new(), None);
            }
            "memref.copy" => {
                let mut eff = Vec::new();
                if let Some((v, true)) = operands.first().and_then(|s| self.mem_of(s)) {
                    eff.push(Self::effect(AccessKind::Read, v, op));
                }
                if let Some((v, true)) = operands.get(1).and_then(|s| self.mem_of(s)) {
                    eff.push(Self::effect(AccessKind::Write, v, op));
                }
                self.push_op(block, op, eff, None);
            }
            "amdgpu.gather_to_lds" => {
                let mut eff = Vec::new();
                for o in &operands {
                    if let Some((v, wg)) = self.mem_of(o) {
                        eff.push(Self::effect(
                            if wg {
                                AccessKind::Write
                            } else {
                                AccessKind::Read
                            },
                            v,
                            op,
                        ));
                    }
                }
                eff.retain(|e| {
                    e.kind == AccessKind::Write
                        || self.k.buffers.values().any(|b| b.value == e.mem.value)
                });
                self.push_op(block, op, eff, Some(AsyncSpec { counter: None }));
            }
            "nvvm.cp.async.shared.global" => {
                let dst = operands.first().and_then(|d| match self.env.get(d) {
                    Some(MVal::Ptr { mem }) => *mem,
                    Some(MVal::Mem { value, .. }) => Some(*value),
                    _ => None,
                });
                let targets = match dst {
                    Some(v) => vec![v],
                    None => self.workgroup_buffers(),
                };
                let eff = targets
                    .into_iter()
                    .map(|v| Self::effect(AccessKind::Write, v, op))
                    .collect();
                self.push_op(
                    block,
                    op,
                    eff,
                    Some(AsyncSpec {
                        counter: Some(Counter::CpAsync),
                    }),
                );
            }
            "gpu.barrier" | "amdgpu.lds_barrier" | "nvvm.barrier0" | "nvvm.barrier" => self.sync(
                block,
                op,
                SyncOp::Barrier {
                    id: 0,
                    fence: true,
                    threads: None,
                },
            ),
            "rocdl.s.barrier" => self.sync(
                block,
                op,
                SyncOp::Barrier {
                    id: 0,
                    fence: false,
                    threads: None,
                },
            ),
            "rocdl.s.barrier.signal" | "rocdl.s.barrier.wait" => {
                let id = Self::int_attr(op, "id").unwrap_or(-1) as i32;
                let s = if name.ends_with("signal") {
                    SyncOp::Signal { id }
                } else {
                    SyncOp::Wait { id }
                };
                self.sync(block, op, s);
            }
            "rocdl.s.waitcnt" => {
                let bits = if op.generic {
                    Self::int_attr(op, "bitfield")
                } else {
                    Self::first_int(op)
                }
                .unwrap_or(0) as u32;
                // gfx9 encoding: vmcnt [3:0] and [15:14], lgkmcnt [11:8].
                let vm = (bits & 0xf) | ((bits >> 14) & 3) << 4;
                let lgkm = (bits >> 8) & 0xf;
                if vm < 63 {
                    self.sync(
                        block,
                        op,
                        SyncOp::CounterWait {
                            counter: Counter::Vmcnt,
                            n: vm,
                        },
                    );
                }
                if lgkm < 15 {
                    self.sync(
                        block,
                        op,
                        SyncOp::CounterWait {
                            counter: Counter::Lgkmcnt,
                            n: lgkm,
                        },
                    );
                }
                if vm >= 63 && lgkm >= 15 {
                    self.push_op(block, op, Vec::new(), None);
                }
            }
            "rocdl.s.wait.loadcnt"
            | "rocdl.s.wait.storecnt"
            | "rocdl.s.wait.dscnt"
            | "rocdl.s.wait.asynccnt"
            | "rocdl.s.wait.tensorcnt" => {
                let counter = match &name["rocdl.s.wait.".len()..] {
                    "loadcnt" => Counter::Loadcnt,
                    "storecnt" => Counter::Storecnt,
                    "dscnt" => Counter::Dscnt,
                    "asynccnt" => Counter::Asynccnt,
                    _ => Counter::Tensorcnt,
                };
                let n = Self::count_of(op, "count");
                self.sync(block, op, SyncOp::CounterWait { counter, n });
            }
            "nvvm.cp.async.commit.group" => self.sync(block, op, SyncOp::CpAsyncCommit),
            "nvvm.cp.async.wait.group" => {
                let n = Self::count_of(op, "n");
                self.sync(block, op, SyncOp::CpAsyncWait { n });
            }
            "rocdl.sched.barrier" => {
                let mask = Self::count_of(op, "mask");
                self.sync(block, op, SyncOp::SchedBarrier { mask });
            }
            "rocdl.s.setprio" => {
                let prio = Self::count_of(op, "priority").min(3) as u8;
                self.sync(block, op, SyncOp::SetPrio { prio });
            }
            "scf.for" if op.regions.len() == 1 => self.lower_for(op, block)?,
            "scf.if" if !op.regions.is_empty() => self.lower_if(op, block, div)?,
            _ => {
                if let Some(&(_, idx, kind)) = MEMORY_OPS.iter().find(|m| m.0 == name) {
                    let mut eff = Vec::new();
                    if let Some((v, true)) = operands.get(idx).and_then(|s| self.mem_of(s)) {
                        eff.push(Self::effect(kind, v, op));
                    }
                    // Loaded values may differ per thread when the address does.
                    self.bind_results(op, MVal::Scalar { divergent: div });
                    self.push_op(block, op, eff, None);
                    return Ok(());
                }
                // Unknown op: if it touches workgroup memory (directly, or anywhere in its
                // regions), it conflicts with everything there.
                let mut touched = Vec::new();
                let mut names = operands.clone();
                collect_region_names(op, &mut names);
                for n in &names {
                    match self.env.get(n) {
                        Some(MVal::Mem {
                            value,
                            workgroup: true,
                        }) => touched.push(*value),
                        Some(MVal::Ptr { mem: Some(v) }) => touched.push(*v),
                        _ => {}
                    }
                }
                touched.sort();
                touched.dedup();
                let eff = touched
                    .into_iter()
                    .map(|v| Self::effect(AccessKind::Write, v, op))
                    .collect();
                let res_ty = Self::result_type(op).unwrap_or_default();
                let first_mem = operands.iter().find_map(|o| self.mem_of(o));
                let val = match (res_ty.contains("memref<"), first_mem) {
                    (true, Some((v, wg))) => MVal::Mem {
                        value: v,
                        workgroup: wg,
                    },
                    _ if res_ty.contains("ptr<3>") => MVal::Ptr {
                        mem: first_mem.map(|m| m.0),
                    },
                    _ => MVal::Scalar { divergent: div },
                };
                self.bind_results(op, val);
                self.push_op(block, op, eff, None);
            }
        }
        Ok(())
    }

    fn bound(&mut self, name: &str) -> Bound {
        match self.env.get(name) {
            Some(MVal::Const(c)) => Bound::Const(*c),
            _ => Bound::Value(self.param(name)),
        }
    }

    fn lower_for(&mut self, op: &MOp, block: BlockId) -> Result<(), Diagnostic> {
        let body_m = op.regions[0].blocks.first().cloned().unwrap_or_default();
        // Bounds, induction variable and iter_args (name, init, type), in either form.
        let (lb, ub, st, iv, iters): (String, String, String, String, Vec<IterArg>) = if op.generic
        {
            let ops = Self::operands(op);
            if ops.len() < 3 || body_m.args.is_empty() {
                return Err(self.err(op, "scf.for needs bounds and an induction variable"));
            }
            let iters = body_m.args[1..]
                .iter()
                .zip(ops[3..].iter())
                .map(|((n, t), init)| (n.clone(), init.clone(), t.clone()))
                .collect();
            (
                ops[0].clone(),
                ops[1].clone(),
                ops[2].clone(),
                body_m.args[0].0.clone(),
                iters,
            )
        } else {
            let r = op.rest.trim();
            let names = ssa_names(r.split(" iter_args").next().unwrap_or(r));
            if names.len() < 4 {
                return Err(self.err(op, "cannot read the bounds of this scf.for"));
            }
            let mut iters = Vec::new();
            if let Some(i) = r.find("iter_args(") {
                let inner = &r[i + 10..];
                let close = inner.find(')').unwrap_or(inner.len());
                let types: Vec<String> = match r.find("-> (") {
                    Some(t) => split_top(&r[t + 4..r[t..].find(')').map_or(r.len(), |e| t + e)]),
                    None => r
                        .find("-> ")
                        .map(|t| vec![r[t + 3..].trim_end_matches('{').trim().to_string()])
                        .unwrap_or_default(),
                };
                for (j, pair) in split_top(&inner[..close]).iter().enumerate() {
                    let ns = ssa_names(pair);
                    if ns.len() == 2 {
                        iters.push((
                            ns[0].clone(),
                            ns[1].clone(),
                            types.get(j).cloned().unwrap_or_default(),
                        ));
                    }
                }
            }
            (
                names[1].clone(),
                names[2].clone(),
                names[3].clone(),
                names[0].clone(),
                iters,
            )
        };
        let lo = self.bound(&lb);
        let hi = self.bound(&ub);
        let step = match self.env.get(&st) {
            Some(MVal::Const(c)) if *c > 0 => *c,
            _ => 1,
        };
        let (lo, hi) = if matches!(self.env.get(&st), Some(MVal::Const(c)) if *c > 0) {
            (lo, hi)
        } else {
            (Bound::Const(0), Bound::Value(self.param(&st)))
        };
        let stmt = self.k.stmts.push(syncopt_ir::StmtData {
            kind: StmtKind::StageEnd,
            loc: Some(op.loc()),
            inserted: false,
            comments: Vec::new(),
        });
        let body = self.k.new_block(Some(stmt));
        let ivv = self.new_value(&iv, ValueKind::Iv(stmt), Some(op.loc()));
        self.env
            .insert(iv.clone(), MVal::Scalar { divergent: false });
        let _ = ivv;
        let mut iter_args = Vec::new();
        let mut mem_positions = Vec::new();
        for (j, (n, init, _ty)) in iters.iter().enumerate() {
            match self.mem_of(init) {
                Some((initv, wg)) => {
                    let a = self.new_value(
                        n,
                        ValueKind::IterArg {
                            stmt,
                            index: iter_args.len(),
                        },
                        Some(op.loc()),
                    );
                    iter_args.push((a, initv));
                    mem_positions.push(j);
                    self.env.insert(
                        n.clone(),
                        MVal::Mem {
                            value: a,
                            workgroup: wg,
                        },
                    );
                }
                None => {
                    let d = self.divergent(std::slice::from_ref(init));
                    self.env.insert(n.clone(), MVal::Scalar { divergent: d });
                }
            }
        }
        let yields = self.lower_block(&body_m, body)?;
        let mut yv = Vec::new();
        for &j in &mem_positions {
            match yields.get(j).and_then(|y| self.mem_of(y)) {
                Some((v, _)) => yv.push(v),
                None => {
                    return Err(self.err(
                        op,
                        "scf.yield does not yield a known memref for a memref iter_arg",
                    ))
                }
            }
        }
        self.k.blocks[body].yields = yv;
        let mut results = Vec::new();
        for (j, r) in op.results.iter().enumerate() {
            match mem_positions.iter().position(|&p| p == j) {
                Some(idx) => {
                    let v =
                        self.new_value(r, ValueKind::Result { stmt, index: idx }, Some(op.loc()));
                    results.push(v);
                    let wg = self.mem_of(&iters[j].1).map(|m| m.1).unwrap_or(true);
                    self.env.insert(
                        r.clone(),
                        MVal::Mem {
                            value: v,
                            workgroup: wg,
                        },
                    );
                }
                None => {
                    self.env
                        .insert(r.clone(), MVal::Scalar { divergent: false });
                }
            }
        }
        if !results.is_empty() && results.len() != iter_args.len() {
            results.clear();
        }
        let data = ForData {
            iv: ivv,
            lo,
            hi,
            step,
            min_trips: None,
            max_trips: None,
            iter_args,
            results,
            body,
        };
        self.k.stmts[stmt].kind = StmtKind::For(data);
        self.k.blocks[block].stmts.push(stmt);
        self.stmt_line.insert(stmt, op.line);
        Ok(())
    }

    fn lower_if(&mut self, op: &MOp, block: BlockId, divergent: bool) -> Result<(), Diagnostic> {
        let cond_name = Self::operands(op).into_iter().next().unwrap_or_default();
        let p = self.param(&cond_name);
        let cond = Cond {
            expr: syncopt_ir::AffineExpr::var(syncopt_ir::Var::Value(p)),
            modulo: None,
            cmp: None,
        };
        let stmt = self.k.stmts.push(syncopt_ir::StmtData {
            kind: StmtKind::StageEnd,
            loc: Some(op.loc()),
            inserted: false,
            comments: Vec::new(),
        });
        let then_block = self.k.new_block(Some(stmt));
        let then_m = op.regions[0].blocks.first().cloned().unwrap_or_default();
        let ty = self.lower_block(&then_m, then_block)?;
        let (else_block, ey) = match op.regions.get(1) {
            Some(r) if r.blocks.iter().any(|b| !b.ops.is_empty()) => {
                let b = self.k.new_block(Some(stmt));
                let em = r.blocks.first().cloned().unwrap_or_default();
                let ey = self.lower_block(&em, b)?;
                (Some(b), ey)
            }
            _ => (None, Vec::new()),
        };
        // Only memref results become handles; the rest are scalars.
        let mut results = Vec::new();
        let mut tv = Vec::new();
        let mut ev = Vec::new();
        for (j, r) in op.results.iter().enumerate() {
            let pair = (
                ty.get(j).and_then(|y| self.mem_of(y)),
                ey.get(j).and_then(|y| self.mem_of(y)),
            );
            match (pair, else_block) {
                ((Some((a, wg)), Some((b, _))), Some(_)) => {
                    let v = self.new_value(
                        r,
                        ValueKind::Result {
                            stmt,
                            index: results.len(),
                        },
                        Some(op.loc()),
                    );
                    results.push(v);
                    tv.push(a);
                    ev.push(b);
                    self.env.insert(
                        r.clone(),
                        MVal::Mem {
                            value: v,
                            workgroup: wg,
                        },
                    );
                }
                _ => {
                    self.env.insert(r.clone(), MVal::Scalar { divergent });
                }
            }
        }
        self.k.blocks[then_block].yields = tv;
        if let Some(b) = else_block {
            self.k.blocks[b].yields = ev;
        }
        let uniformity = if divergent {
            Uniformity::Divergent
        } else {
            Uniformity::Uniform
        };
        let data = IfData {
            cond,
            uniformity,
            then_block,
            else_block,
            results,
        };
        self.k.stmts[stmt].kind = StmtKind::If(data);
        self.k.blocks[block].stmts.push(stmt);
        self.stmt_line.insert(stmt, op.line);
        Ok(())
    }
}

fn collect_region_names(op: &MOp, out: &mut Vec<String>) {
    for r in &op.regions {
        for b in &r.blocks {
            for o in &b.ops {
                out.extend(ssa_names(&o.rest));
                collect_region_names(o, out);
            }
        }
    }
}

/// `(name, type)` of a function's arguments and workgroup attributions in custom form.
fn signature_args(rest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = None;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = Some(i + 1);
                }
                depth += 1;
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    if let Some(s) = start.take() {
                        for a in split_top(&rest[s..i]) {
                            if let Some((n, t)) = a.split_once(':') {
                                let n = n.trim();
                                if let Some(n) = n.strip_prefix('%') {
                                    out.push((n.to_string(), t.trim().to_string()));
                                }
                            }
                        }
                    }
                }
            }
            '{' if depth == 0 => break,
            _ => {}
        }
    }
    out
}

/// Lowers one `gpu.func` / `func.func`.
pub fn lower_function(op: &MOp, lines: &[&str]) -> Result<Lowered, Diagnostic> {
    let name = op
        .rest
        .split('@')
        .nth(1)
        .map(|s| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| {
            let all = format!("{} {}", op.rest, op.tail);
            all.split("sym_name = \"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("kernel")
                .to_string()
        });
    let mut l = Lower {
        k: Kernel::new(name, op.loc()),
        env: HashMap::new(),
        stmt_line: HashMap::new(),
        anchors: HashMap::new(),
        params: HashMap::new(),
        lines,
        fresh: 0,
    };
    let entry = op
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .cloned()
        .unwrap_or_default();
    let mut args = if op.generic {
        entry.args.clone()
    } else {
        signature_args(&op.rest)
    };
    if op.generic && args.is_empty() {
        args = entry.args.clone();
    }
    for (n, t) in &args {
        match parse_memref(t) {
            Some(ty) => {
                let v = l.new_buffer(n, &ty, op.loc());
                l.env.insert(
                    n.clone(),
                    MVal::Mem {
                        value: v,
                        workgroup: ty.workgroup,
                    },
                );
            }
            None if t.contains("ptr<3>") => {
                l.env.insert(n.clone(), MVal::Ptr { mem: None });
            }
            None => {
                l.env.insert(n.clone(), MVal::Scalar { divergent: false });
            }
        }
    }
    let body = l.k.body;
    l.lower_block(&entry, body)?;
    let _ = l.lines;
    Ok(Lowered {
        kernel: l.k,
        stmt_line: l.stmt_line,
        anchors: l.anchors,
    })
}
