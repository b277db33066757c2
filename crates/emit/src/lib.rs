//! Emission of runnable code: one self-contained CUDA file per kernel (`syncopt emit cuda`).
//!
//! The kernel computes exactly what `syncopt run` computes (the execution model of
//! `syncopt_interp::model`): workgroup buffers live in one `__shared__` arena, global buffers
//! in an input image `gin` and a write-only `gout`; stores write a hash of (op, thread,
//! iteration), loads fold into a per-thread checksum that the host prints as `syncopt run`
//! does. Sync ops map to the hardware: `barrier` to `__syncthreads()` (or `bar.sync id, n`),
//! `barrier.signal`/`barrier.wait` to an mbarrier arrive / parity wait, async copies to
//! `cp.async` through the `__pipeline_*` primitives.
//!
//! Setting `SYNCOPT_EMIT_PLACEMENT=membar` replaces the kernel's barriers by the Membar-style
//! placement of [`membar::place`] first (the baseline of docs/GPU-VALIDATION.md's timings).

pub mod membar;

use std::collections::BTreeMap;
use std::fmt::Write;

use syncopt_interp::model::{self, Handle, Layout, Mem};
use syncopt_ir::{
    AccessKind, AffineExpr, BlockId, Bound, Cond, Counter, Diagnostic, EntityRef, Kernel, Loc,
    OpData, Selector, StmtId, StmtKind, SyncOp, ValueId, ValueKind, Var, ViewKind,
};
use syncopt_targets::{Family, Target};

/// One self-contained `.cu` file: the kernel and a host `main` printing its checksums.
pub fn cuda(kernel: &Kernel, target: Target) -> Result<String, Diagnostic> {
    if std::env::var("SYNCOPT_EMIT_PLACEMENT").as_deref() == Ok("membar") {
        let mut k = kernel.clone();
        membar::place(&mut k)?;
        return cuda_exact(&k, target);
    }
    cuda_exact(kernel, target)
}

/// [`cuda`] without the placement override.
pub fn cuda_exact(kernel: &Kernel, target: Target) -> Result<String, Diagnostic> {
    if target.family() != Family::Nvidia {
        return Err(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "emit cuda needs an NVIDIA target (sm_80, sm_90), not '{}'",
                target.name()
            ),
        ));
    }
    let (threads, wave) = syncopt_interp::thread_count(kernel, target)?;
    let layout = model::layout(kernel)?;
    let params = syncopt_interp::param_values(kernel)?;
    let shared_bytes = layout.shared_words * 4;
    if shared_bytes > target.info().workgroup_bytes {
        return Err(Diagnostic::error(
            Some(kernel.loc),
            format!(
                "{shared_bytes} bytes of workgroup memory exceed the {} of '{}'",
                target.info().workgroup_bytes,
                target.name()
            ),
        ));
    }
    let mut e = Emitter {
        k: kernel,
        target,
        threads,
        wave,
        layout,
        mems: vec![None; kernel.values.len()],
        ord: syncopt_interp::op_ordinals(kernel),
        ivs: Vec::new(),
        mbar: BTreeMap::new(),
        out: String::new(),
        indent: 1,
        uses_async: false,
        guard: std::env::var("SYNCOPT_EMIT_GUARD").as_deref() == Ok("1"),
        barriers: 0,
    };
    e.collect_mbarriers(kernel.body);
    e.block(kernel.body)?;
    Ok(e.finish(&params))
}

struct Emitter<'k> {
    k: &'k Kernel,
    target: Target,
    threads: u32,
    wave: u32,
    layout: Layout,
    /// Memory space of each memory value, once known.
    mems: Vec<Option<Mem>>,
    ord: Vec<u32>,
    /// Names of the enclosing loops' induction variables, outermost first.
    ivs: Vec<String>,
    /// Split-barrier id -> mbarrier slot.
    mbar: BTreeMap<i32, usize>,
    out: String,
    indent: usize,
    uses_async: bool,
    /// `SYNCOPT_EMIT_GUARD=1`: barrier `j` (program order) runs unless `--skip j`, so one
    /// binary checks the removal of each barrier in turn.
    guard: bool,
    barriers: usize,
}

fn vname(v: ValueId) -> String {
    format!("v{}", v.index())
}

fn loc_str(loc: Option<Loc>) -> String {
    loc.map(|l| format!(" (line {})", l.line))
        .unwrap_or_default()
}

impl<'k> Emitter<'k> {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn collect_mbarriers(&mut self, b: BlockId) {
        let k = self.k;
        k.walk_block(b, &mut |_, d| {
            if let StmtKind::Sync(SyncOp::Signal { id } | SyncOp::Wait { id }) = &d.kind {
                let n = self.mbar.len();
                self.mbar.entry(*id).or_insert(n);
            }
        });
    }

    fn loc(&self, s: StmtId) -> Option<Loc> {
        self.k.stmts[s].loc.or(Some(self.k.loc))
    }

    /// The C expression of an integer value.
    fn int(&self, v: ValueId, loc: Option<Loc>) -> Result<String, Diagnostic> {
        match self.k.values[v].kind {
            ValueKind::Param { .. } | ValueKind::Iv(_) => Ok(vname(v)),
            _ => Err(Diagnostic::error(
                loc,
                format!("'%{}' is not an integer", self.k.value_name(v)),
            )),
        }
    }

    fn expr(&self, e: &AffineExpr, loc: Option<Loc>) -> Result<String, Diagnostic> {
        let mut s = format!("({}LL", e.constant);
        for &(v, c) in &e.terms {
            let x = match v {
                Var::Tid => "sk_tid".to_string(),
                Var::Value(id) => self.int(id, loc)?,
            };
            let _ = write!(s, " + ({c}LL) * {x}");
        }
        s.push(')');
        Ok(s)
    }

    fn cond(&self, c: &Cond, loc: Option<Loc>) -> Result<String, Diagnostic> {
        let mut e = self.expr(&c.expr, loc)?;
        if let Some(m) = c.modulo {
            if m == 0 {
                return Err(Diagnostic::error(loc, "condition takes 'mod 0'"));
            }
            e = format!("sk_mod({e}, {}LL)", m.unsigned_abs());
        }
        Ok(match c.cmp {
            None => format!("{e} != 0"),
            Some((op, rhs)) => format!("{e} {} {rhs}LL", op.as_str()),
        })
    }

    /// Memory space of a memory value (static: handles keep one space).
    fn mem(&self, v: ValueId, loc: Option<Loc>) -> Result<Mem, Diagnostic> {
        match self.k.values[v].kind {
            ValueKind::Buffer(b) => Ok(self.layout.buffers[b.index()].mem),
            _ => self.mems[v.index()].ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    format!("'%{}' has no memory value here", self.k.value_name(v)),
                )
            }),
        }
    }

    /// C expressions of a memory value's word offset and word count.
    fn handle(&self, v: ValueId, loc: Option<Loc>) -> Result<(String, String, Mem), Diagnostic> {
        match self.k.values[v].kind {
            ValueKind::Buffer(b) => {
                let h: Handle = self.layout.buffers[b.index()];
                Ok((format!("{}LL", h.off), format!("{}LL", h.words), h.mem))
            }
            _ => {
                let m = self.mem(v, loc)?;
                Ok((format!("{}_o", vname(v)), format!("{}_n", vname(v)), m))
            }
        }
    }

    fn set_mem(&mut self, v: ValueId, m: Mem, loc: Option<Loc>) -> Result<(), Diagnostic> {
        match self.mems[v.index()] {
            Some(old) if old != m => Err(Diagnostic::error(
                loc,
                format!(
                    "'%{}' takes both workgroup and global memory: not executable",
                    self.k.value_name(v)
                ),
            )),
            _ => {
                self.mems[v.index()] = Some(m);
                Ok(())
            }
        }
    }

    fn bound(&self, b: Bound, loc: Option<Loc>) -> Result<String, Diagnostic> {
        match b {
            Bound::Const(c) => Ok(format!("{c}LL")),
            Bound::Value(v) => self.int(v, loc),
        }
    }

    fn block(&mut self, b: BlockId) -> Result<(), Diagnostic> {
        let k = self.k;
        for &s in &k.blocks[b].stmts {
            let loc = self.loc(s);
            match &k.stmts[s].kind {
                StmtKind::Op(op) => self.op(s, op)?,
                StmtKind::View(view) => {
                    let vd = &k.views[*view];
                    let (bo, bn, m) = self.handle(vd.base, loc)?;
                    self.set_mem(vd.value, m, loc)?;
                    let n = vname(vd.value);
                    match &vd.kind {
                        ViewKind::Range { lo, hi } => {
                            if !lo.is_multiple_of(4) || !hi.is_multiple_of(4) || hi < lo {
                                return Err(Diagnostic::error(
                                    loc,
                                    format!("view [{lo}:{hi}] is not word aligned: not executable"),
                                ));
                            }
                            self.line(&format!(
                                "const long long {n}_o = {bo} + {}LL, {n}_n = {}LL;",
                                lo / 4,
                                (hi - lo) / 4
                            ));
                        }
                        ViewKind::Slot { count, index } => {
                            if *count == 0 || index.mentions_tid() {
                                return Err(Diagnostic::error(
                                    loc,
                                    "slot view not executable (0 slots or index on tid)",
                                ));
                            }
                            let idx = self.expr(index, loc)?;
                            self.line(&format!(
                                "const long long {n}_n = {bn} / {count}LL, {n}_o = {bo} + sk_mod({idx}, {count}LL) * {n}_n;"
                            ));
                        }
                    }
                }
                StmtKind::For(f) => {
                    let lo = self.bound(f.lo, loc)?;
                    let hi = self.bound(f.hi, loc)?;
                    let mut iters = Vec::new();
                    for &(arg, init) in &f.iter_args {
                        let (o, n, m) = self.handle(init, loc)?;
                        self.set_mem(arg, m, loc)?;
                        let a = vname(arg);
                        self.line(&format!("long long {a}_o = {o}, {a}_n = {n};"));
                        iters.push(a);
                    }
                    let iv = vname(f.iv);
                    if f.step > 0 {
                        self.line(&format!(
                            "for (long long {iv} = {lo}; {iv} < {hi}; {iv} += {}LL) {{{}",
                            f.step,
                            loc_str(loc).replace(" (", " // (")
                        ));
                        self.indent += 1;
                        self.ivs.push(iv);
                        self.block(f.body)?;
                        self.ivs.pop();
                        let ys = k.blocks[f.body].yields.clone();
                        let mut tmp = Vec::new();
                        for (j, &y) in ys.iter().enumerate().take(iters.len()) {
                            let (o, n, m) = self.handle(y, loc)?;
                            self.set_mem(f.iter_args[j].0, m, loc)?;
                            tmp.push(format!("const long long sk_y{j}_o = {o}, sk_y{j}_n = {n};"));
                        }
                        for t in tmp {
                            self.line(&t);
                        }
                        for (j, a) in iters.iter().enumerate().take(ys.len()) {
                            self.line(&format!("{a}_o = sk_y{j}_o; {a}_n = sk_y{j}_n;"));
                        }
                        self.indent -= 1;
                        self.line("}");
                    }
                    for (j, &r) in f.results.iter().enumerate() {
                        if let Some(a) = iters.get(j) {
                            let m = self.mem(f.iter_args[j].0, loc)?;
                            self.set_mem(r, m, loc)?;
                            let rn = vname(r);
                            self.line(&format!("const long long {rn}_o = {a}_o, {rn}_n = {a}_n;"));
                        }
                    }
                }
                StmtKind::If(i) => {
                    for &r in &i.results {
                        let rn = vname(r);
                        self.line(&format!("long long {rn}_o = 0, {rn}_n = 0;"));
                    }
                    let c = self.cond(&i.cond, loc)?;
                    self.line(&format!("if ({c}) {{"));
                    self.indent += 1;
                    self.block(i.then_block)?;
                    self.yield_results(&i.results, i.then_block, loc)?;
                    self.indent -= 1;
                    if let Some(e) = i.else_block {
                        self.line("} else {");
                        self.indent += 1;
                        self.block(e)?;
                        self.yield_results(&i.results, e, loc)?;
                        self.indent -= 1;
                    }
                    self.line("}");
                }
                StmtKind::Sync(op) => self.sync(op, loc)?,
                StmtKind::Stage(_) | StmtKind::StageEnd => {
                    self.line("// warp-pipeline stage marker: no meaning on NVIDIA");
                }
            }
        }
        Ok(())
    }

    fn yield_results(
        &mut self,
        results: &[ValueId],
        b: BlockId,
        loc: Option<Loc>,
    ) -> Result<(), Diagnostic> {
        let ys = self.k.blocks[b].yields.clone();
        for (&r, &y) in results.iter().zip(&ys) {
            let (o, n, m) = self.handle(y, loc)?;
            self.set_mem(r, m, loc)?;
            let rn = vname(r);
            self.line(&format!("{rn}_o = {o}; {rn}_n = {n};"));
        }
        Ok(())
    }

    fn sync(&mut self, op: &SyncOp, loc: Option<Loc>) -> Result<(), Diagnostic> {
        let text = syncopt_ir::printer::sync_op_string(self.k, op);
        let guard = if self.guard && matches!(op, SyncOp::Barrier { .. }) {
            self.barriers += 1;
            format!("if (sk_skip != {}) ", self.barriers - 1)
        } else {
            String::new()
        };
        match op {
            SyncOp::Barrier {
                id: 0,
                threads: None,
                ..
            } => self.line(&format!("{guard}__syncthreads();  // {text}")),
            SyncOp::Barrier { id, threads, .. } => {
                let n = threads.map(|n| format!(", {n}")).unwrap_or_default();
                self.line(&format!(
                    "{guard}asm volatile(\"bar.sync {id}{n};\" ::: \"memory\");  // {text}"
                ));
            }
            SyncOp::Signal { id } => {
                let slot = self.mbar[id];
                self.line(&format!("sk_mbar_arrive(&sk_mbar[{slot}]);  // {text}"));
            }
            SyncOp::Wait { id } => {
                let slot = self.mbar[id];
                self.line(&format!(
                    "sk_mbar_wait(&sk_mbar[{slot}], sk_phase[{slot}]); sk_phase[{slot}] ^= 1u;  // {text}"
                ));
            }
            SyncOp::CpAsyncCommit => self.line(&format!("__pipeline_commit();  // {text}")),
            SyncOp::CpAsyncWait { n }
            | SyncOp::CounterWait {
                counter: Counter::CpAsync,
                n,
            } => self.line(&format!("__pipeline_wait_prior({n});  // {text}")),
            SyncOp::SchedBarrier { .. } | SyncOp::SetPrio { .. } => self.line(&format!(
                "// {text}: AMD scheduling hint, nothing on NVIDIA"
            )),
            SyncOp::CounterWait { .. }
            | SyncOp::CondBarrier { .. }
            | SyncOp::SetFlag { .. }
            | SyncOp::WaitFlag { .. }
            | SyncOp::PipeBarrier { .. } => {
                return Err(Diagnostic::error(
                    loc,
                    format!("'{text}' has no CUDA form on '{}'", self.target.name()),
                ))
            }
        }
        Ok(())
    }

    fn op(&mut self, s: StmtId, op: &OpData) -> Result<(), Diagnostic> {
        let loc = self.loc(s);
        let ord = self.ord[s.index()];
        let counter = match op.asynchronous {
            Some(spec) => match self.target.async_counter(spec, &op.name) {
                Some(Counter::CpAsync) => Some(Counter::CpAsync),
                other => {
                    return Err(Diagnostic::error(
                        loc,
                        format!(
                            "async op '{}' on counter {:?}: only cp.async copies are executable on '{}'",
                            op.name,
                            other.map(|c| c.as_str()),
                            self.target.name()
                        ),
                    ))
                }
            },
            None => None,
        };
        let mut hs = Vec::new();
        for e in &op.effects {
            hs.push(self.handle(e.mem.value, e.loc.or(loc))?);
        }
        let writes_shared = op
            .effects
            .iter()
            .zip(&hs)
            .any(|(e, h)| e.kind.writes() && h.2 == Mem::Shared);
        let source = op
            .effects
            .iter()
            .zip(&hs)
            .find(|(e, h)| e.kind == AccessKind::Read && h.2 == Mem::Global)
            .map(|(e, h)| (h.clone(), e.mem.sel.clone()));
        let ik = self.iter_key();
        if self.guard {
            // Guarded builds: `--stagger m` delays warps before every op so that, without a
            // barrier, one warp's later accesses overtake another's earlier ones.
            self.line("sk_delay(sk_stagger);");
        }
        self.line(&format!(
            "{{  // op \"{}\"{}{}",
            op.name,
            if counter.is_some() { " async" } else { "" },
            loc_str(loc)
        ));
        self.indent += 1;
        if op.effects.iter().any(|e| e.kind.writes()) {
            self.line(&format!("const uint32_t sk_it = {ik}; (void)sk_it;"));
        }
        let source_idx = op
            .effects
            .iter()
            .zip(&hs)
            .position(|(e, h)| e.kind == AccessKind::Read && h.2 == Mem::Global)
            .filter(|_| counter.is_some());
        for (ei, (e, (ho, hn, mem))) in op.effects.iter().zip(&hs).enumerate() {
            if Some(ei) == source_idx {
                continue;
            }
            let eloc = e.loc.or(loc);
            let reversed = e.kind == AccessKind::Read && !writes_shared;
            let body = match (e.kind, *mem) {
                (AccessKind::Read, Mem::Shared) => format!("cs = sk_fold(cs, arena[{ho} + w]);"),
                (AccessKind::Read, Mem::Global) => format!("cs = sk_fold(cs, gin[{ho} + w]);"),
                (AccessKind::Write, Mem::Shared) if counter.is_some() => {
                    self.uses_async = true;
                    let src = self.async_source(source.as_ref(), eloc)?;
                    format!("__pipeline_memcpy_async(&arena[{ho} + w], &gin[{src}], 4);")
                }
                (AccessKind::Write, Mem::Shared) => {
                    format!("arena[{ho} + w] = sk_val({ord}u, sk_tid32, sk_it, k);")
                }
                (AccessKind::Write, Mem::Global) => {
                    format!("gout[{ho} + w] = sk_val({ord}u, sk_tid32, sk_it, k);")
                }
                (AccessKind::Atomic, Mem::Shared) if self.guard => {
                    // racecheck reports no hazard that involves an atomic: a plain read of
                    // the word first (its value unused) lets it see the atomic against
                    // another thread's write, which a removed barrier leaves unordered.
                    format!(
                        "(void)*(volatile uint32_t*)&arena[{ho} + w]; atomicAdd(&arena[{ho} + w], sk_val({ord}u, sk_tid32, sk_it, k));"
                    )
                }
                (AccessKind::Atomic, Mem::Shared) => {
                    format!("atomicAdd(&arena[{ho} + w], sk_val({ord}u, sk_tid32, sk_it, k));")
                }
                (AccessKind::Atomic, Mem::Global) => {
                    format!("atomicAdd(&gout[{ho} + w], sk_val({ord}u, sk_tid32, sk_it, k));")
                }
            };
            match &e.mem.sel {
                Selector::Index(x) => {
                    let x = self.expr(x, eloc)?;
                    self.line(&format!(
                        "{{ const long long w = {x}; const uint32_t k = 0u; (void)k; {body} }}"
                    ));
                }
                sel => {
                    let (a, b) = match sel {
                        Selector::Bytes { lo, hi } => {
                            let (a, b) = model::byte_range_words(*lo, *hi);
                            (format!("{a}LL"), format!("{b}LL"))
                        }
                        _ => ("0LL".to_string(), hn.clone()),
                    };
                    let start = if reversed {
                        format!(
                            "(long long)(({}u + {}u - sk_tid32) % {}u)",
                            model::read_offset(self.threads, self.wave),
                            self.threads,
                            self.threads
                        )
                    } else {
                        self.rotated_start(ord)
                    };
                    self.line(&format!(
                        "{{ uint32_t k = 0u; for (long long w = {a} + {start}; w < {b}; w += {}LL, ++k) {{ (void)k; {body} }} }}",
                        self.threads
                    ));
                }
            }
        }
        self.indent -= 1;
        self.line("}");
        Ok(())
    }

    /// The `gin` index an async write of word `w` copies (model::async_source).
    fn async_source(
        &self,
        source: Option<&((String, String, Mem), Selector)>,
        loc: Option<Loc>,
    ) -> Result<String, Diagnostic> {
        Ok(match source {
            None => format!("sk_mod(w, {}LL)", self.layout.global_words),
            Some(((so, sn, _), sel)) => match sel {
                Selector::Index(x) => format!("{so} + {}", self.expr(x, loc)?),
                Selector::Bytes { lo, hi } => {
                    let (a, b) = model::byte_range_words(*lo, *hi);
                    format!("{so} + {a}LL + sk_mod(w, {}LL)", b - a)
                }
                Selector::Whole => format!("{so} + sk_mod(w, {sn})"),
            },
        })
    }

    /// The first word of a cooperative write's pattern (model::pattern_start, not reversed):
    /// `(tid + u * (2 (step mod R) + 1)) mod T` for the rotation step `op + sum of ivs`
    /// (model::rotation_step: each induction variable truncated to 32 bits, wrapping).
    fn rotated_start(&self, ord: u32) -> String {
        let (t, w) = (self.threads, self.wave);
        if self.ivs.is_empty() {
            return format!(
                "(long long)((sk_tid32 + {}u) % {t}u)",
                model::write_rotation(t, w, ord)
            );
        }
        let mut step = format!("{ord}u");
        for iv in &self.ivs {
            step.push_str(&format!(" + (uint32_t){iv}"));
        }
        format!(
            "(long long)((sk_tid32 + {}u * (2u * (({step}) % {}u) + 1u)) % {t}u)",
            model::rotation_unit(w),
            model::rotations(t, w)
        )
    }

    fn iter_key(&self) -> String {
        if self.ivs.is_empty() {
            return "0u".to_string();
        }
        let terms: Vec<String> = self
            .ivs
            .iter()
            .enumerate()
            .map(|(j, iv)| format!("(uint32_t){iv} * 0x{:08X}u", model::iv_coef(j)))
            .collect();
        format!("(uint32_t)({})", terms.join(" + "))
    }

    fn finish(self, params: &[(ValueId, i64)]) -> String {
        let k = self.k;
        let t = self.threads;
        let sw = self.layout.shared_words.max(1);
        let gw = self.layout.global_words;
        let dynamic = sw * 4 > 48 * 1024;
        let nmbar = self.mbar.len();
        let mut o = String::new();
        if self.guard {
            let _ = writeln!(
                o,
                "// Guarded build: {} barriers; --skip j leaves out barrier j; --stagger 1|2 delays warp w\n\
             // by w (1) or W-1-w (2) times SK_STAGGER_CYCLES before every op.",
                self.barriers
            );
        }
        let _ = writeln!(
            o,
            "// Generated by `syncopt emit cuda` from @{} (target {}). Do not edit.\n\
             // {t} threads; {} words of shared memory; {gw} words of global input.\n\
             // Build: nvcc -arch=sm_90 -o k k.cu   Run: ./k [name=value ...] [--reps N --blocks B]",
            k.name,
            self.target.name(),
            self.layout.shared_words
        );
        o.push_str(
            "#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <cuda_pipeline.h>\n\n",
        );
        let _ = writeln!(o, "#define SK_THREADS {t}\n#define SK_SHARED_WORDS {sw}LL\n#define SK_GLOBAL_WORDS {gw}LL\n");
        o.push_str(PRELUDE);
        let mut sig = String::from(
            "const uint32_t* __restrict__ gin, uint32_t* gout, unsigned long long* sums, int sk_skip",
        );
        if self.guard {
            sig.push_str(", int sk_stagger");
        }
        for (p, _) in params {
            let _ = write!(sig, ", long long {}", vname(*p));
        }
        let _ = writeln!(
            o,
            "\n__global__ void __launch_bounds__(SK_THREADS) sk_kernel({sig}) {{"
        );
        if dynamic {
            o.push_str("  extern __shared__ __align__(16) uint32_t arena[];\n");
        } else {
            o.push_str("  __shared__ __align__(16) uint32_t arena[SK_SHARED_WORDS];\n");
        }
        if nmbar > 0 {
            let _ = writeln!(
                o,
                "  __shared__ __align__(8) unsigned long long sk_mbar[{nmbar}];\n  uint32_t sk_phase[{nmbar}] = {{0}};"
            );
        }
        o.push_str(
            "  const long long sk_tid = threadIdx.x;\n  const uint32_t sk_tid32 = threadIdx.x;\n  unsigned long long cs = 0xCBF29CE484222325ULL ^ (unsigned long long)sk_tid32;\n  // Deterministic start: zeroed shared memory (outside the analysed kernel).\n  for (long long w = sk_tid; w < SK_SHARED_WORDS; w += SK_THREADS) arena[w] = 0u;\n",
        );
        if nmbar > 0 {
            let _ = writeln!(
                o,
                "  if (sk_tid32 == 0) {{ for (int i = 0; i < {nmbar}; ++i) sk_mbar_init(&sk_mbar[i], SK_THREADS); }}"
            );
        }
        o.push_str("  __syncthreads();\n  // ---- kernel body ----\n");
        o.push_str(&self.out);
        o.push_str("  // ---- end of kernel body ----\n");
        if self.uses_async {
            o.push_str("  __pipeline_wait_prior(0);  // drain copies still in flight\n");
        }
        o.push_str("  sums[(unsigned long long)blockIdx.x * SK_THREADS + sk_tid32] = cs;\n}\n\n");
        // Host.
        o.push_str("int main(int argc, char** argv) {\n");
        for (p, d) in params {
            let _ = writeln!(o, "  long long {} = {d}LL;", vname(*p));
        }
        o.push_str("  int reps = 0, blocks = 1, sk_skip = -1;\n");
        if self.guard {
            o.push_str("  int sk_stagger = 0;\n");
        }
        o.push_str("  for (int i = 1; i < argc; ++i) {\n    if (!strcmp(argv[i], \"--reps\") && i + 1 < argc) { reps = atoi(argv[++i]); continue; }\n    if (!strcmp(argv[i], \"--skip\") && i + 1 < argc) { sk_skip = atoi(argv[++i]); continue; }\n    if (!strcmp(argv[i], \"--blocks\") && i + 1 < argc) { blocks = atoi(argv[++i]); continue; }\n");
        if self.guard {
            o.push_str("    if (!strcmp(argv[i], \"--stagger\") && i + 1 < argc) { sk_stagger = atoi(argv[++i]); continue; }\n");
        }
        for (p, _) in params {
            let name = k.value_name(*p);
            let _ = writeln!(
                o,
                "    if (!strncmp(argv[i], \"{name}=\", {})) {{ {} = atoll(argv[i] + {}); continue; }}",
                name.len() + 1,
                vname(*p),
                name.len() + 1
            );
        }
        o.push_str(
            "    fprintf(stderr, \"unknown argument %s\\n\", argv[i]);\n    return 2;\n  }\n",
        );
        let mut args = String::from("d_gin, d_gout, d_sums, sk_skip");
        if self.guard {
            args.push_str(", sk_stagger");
        }
        for (p, _) in params {
            let _ = write!(args, ", {}", vname(*p));
        }
        let dyn_bytes = if dynamic {
            format!("{}", sw * 4)
        } else {
            "0".into()
        };
        let _ = writeln!(
            o,
            "  const size_t dyn = {dyn_bytes};\n  if (dyn) SK_CHECK(cudaFuncSetAttribute(sk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));"
        );
        o.push_str(
            "  uint32_t* h_gin = (uint32_t*)malloc(SK_GLOBAL_WORDS * 4);\n  for (long long i = 0; i < SK_GLOBAL_WORDS; ++i) h_gin[i] = sk_mix_host((uint32_t)i * 0x9E3779B1u + 0x5BD1E995u);\n  uint32_t *d_gin, *d_gout; unsigned long long* d_sums;\n  SK_CHECK(cudaMalloc(&d_gin, SK_GLOBAL_WORDS * 4));\n  SK_CHECK(cudaMalloc(&d_gout, SK_GLOBAL_WORDS * 4));\n  SK_CHECK(cudaMalloc(&d_sums, (size_t)blocks * SK_THREADS * 8));\n  SK_CHECK(cudaMemcpy(d_gin, h_gin, SK_GLOBAL_WORDS * 4, cudaMemcpyHostToDevice));\n  SK_CHECK(cudaMemset(d_gout, 0, SK_GLOBAL_WORDS * 4));\n",
        );
        let _ = writeln!(
            o,
            "  sk_kernel<<<blocks, SK_THREADS, dyn>>>({args});\n  SK_CHECK(cudaGetLastError());\n  SK_CHECK(cudaDeviceSynchronize());\n  if (reps > 0) {{\n    cudaEvent_t e0, e1; SK_CHECK(cudaEventCreate(&e0)); SK_CHECK(cudaEventCreate(&e1));\n    SK_CHECK(cudaEventRecord(e0));\n    for (int r = 0; r < reps; ++r) sk_kernel<<<blocks, SK_THREADS, dyn>>>({args});\n    SK_CHECK(cudaEventRecord(e1)); SK_CHECK(cudaEventSynchronize(e1));\n    float ms = 0; SK_CHECK(cudaEventElapsedTime(&ms, e0, e1));\n    fprintf(stderr, \"time_us %.3f\\n\", 1000.0 * ms / reps);\n  }}"
        );
        o.push_str(
            "  unsigned long long h_sums[SK_THREADS];\n  SK_CHECK(cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost));\n  for (int i = 0; i < SK_THREADS; ++i) printf(\"%d %016llx\\n\", i, h_sums[i]);\n  return 0;\n}\n",
        );
        o
    }
}

const PRELUDE: &str = r#"#define SK_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

static uint32_t sk_mix_host(uint32_t x) {
  x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16; return x;
}
__device__ __forceinline__ uint32_t sk_mix(uint32_t x) {
  x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16; return x;
}
// What the k-th word stored by op `op` in thread `tid` at iteration key `it` holds.
__device__ __forceinline__ uint32_t sk_val(uint32_t op, uint32_t tid, uint32_t it, uint32_t k) {
  return sk_mix((op + 1u) * 0x9E3779B1u + tid * 0x85EBCA77u + it + k * 0xC2B2AE3Du);
}
__device__ __forceinline__ unsigned long long sk_fold(unsigned long long cs, uint32_t w) {
  return (cs ^ (unsigned long long)w) * 0x00000100000001B3ULL;
}
__device__ __forceinline__ long long sk_mod(long long a, long long m) {
  long long r = a % m; return r < 0 ? r + m : r;
}
// Guarded builds, --stagger m: warp w waits w (m = 1) or W-1-w (m = 2) times
// SK_STAGGER_CYCLES before each op, so warps drift apart between barriers (a left-out
// barrier then lets a fast warp's later accesses overtake a slow warp's earlier ones).
#ifndef SK_STAGGER_CYCLES
#define SK_STAGGER_CYCLES 200000LL
#endif
__device__ __forceinline__ void sk_delay(int mode) {
  if (mode != 1 && mode != 2) return;
  const long long w = threadIdx.x / 32, nw = SK_THREADS / 32;
  const long long n = (mode == 1 ? w : nw - 1 - w) * SK_STAGGER_CYCLES;
  const long long t0 = clock64();
  while (clock64() - t0 < n) { }
}
// Split barriers: one mbarrier per id; arrive, then wait on the phase parity.
__device__ __forceinline__ void sk_mbar_init(unsigned long long* b, unsigned n) {
  unsigned a = (unsigned)__cvta_generic_to_shared(b);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(n) : "memory");
}
__device__ __forceinline__ void sk_mbar_arrive(unsigned long long* b) {
  unsigned a = (unsigned)__cvta_generic_to_shared(b);
  unsigned long long st;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
  (void)st;
}
__device__ __forceinline__ void sk_mbar_wait(unsigned long long* b, unsigned parity) {
  unsigned a = (unsigned)__cvta_generic_to_shared(b);
  unsigned done = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(a), "r"(parity) : "memory");
  } while (!done);
}
"#;

#[cfg(test)]
mod tests;
