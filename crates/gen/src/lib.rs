//! Random valid kernels: syncopt's `llvm-stress`.
//!
//! `generate` writes a kernel in the text format that passes `syncopt check` on its target and
//! holds no sync op: it is the input of `insert`, of the verifier's property tests and of the
//! benchmarks. The same options give the same bytes (a private splitmix64, no `rand`).
//!
//! Small budgets (3..12 statements) are the common case in other crates' property tests, so
//! the generator steers toward real hazards: memory ops draw from a few buffers, and reads
//! prefer what was recently written.

use std::fmt::Write;

use syncopt_ir::printer::push_uint;
use syncopt_targets::{Family, Target};

pub mod executable;

#[derive(Clone, Debug)]
pub struct GenOptions {
    pub ops: usize,
    pub seed: u64,
    pub target: Target,
    /// Only accesses with concrete per-thread indices, so `run` and `emit` can execute them.
    pub executable: bool,
}

/// A kernel in the text format (with its `target` line).
pub fn generate(opts: &GenOptions) -> String {
    if opts.executable {
        return executable::generate(opts);
    }
    let mut g = Gen::new(opts, None);
    g.kernel();
    g.out
}

/// Writes what [`generate`] returns to `w`, in chunks while it is generated: a reader at the
/// other end of a pipe gets the text as it comes, and the whole text is never held at once.
pub fn generate_to(opts: &GenOptions, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    if opts.executable {
        return w.write_all(executable::generate(opts).as_bytes());
    }
    let mut g = Gen::new(opts, Some(w));
    g.kernel();
    g.flush();
    match g.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Text handed to a [`generate_to`] writer at a time.
const CHUNK: usize = 1 << 16;

/// splitmix64: tiny, fast, and good enough to drive a generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5eed_c0de_1234_5678)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`; 0 gives 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Where a memory value lives, as far as the generator cares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mem {
    /// Workgroup (LDS / shared) memory.
    Lds,
    Global,
    Gm,
    L1,
    L0a,
    L0b,
    L0c,
    Ub,
}

/// How many `Mem` variants there are.
const MEM_KINDS: usize = 8;

#[derive(Clone, Debug)]
struct MemVal {
    name: String,
    mem: Mem,
    /// Static size in bytes; `None` for handles and results (unknown which buffer).
    size: Option<u64>,
    /// Whether a slot view may cut it (a buffer or a byte-range view).
    sliceable: bool,
}

struct Gen<'w> {
    /// Where full chunks of `out` go, if anywhere (else `out` collects the whole text).
    sink: Option<&'w mut dyn std::io::Write>,
    /// The first error of `sink`; later chunks are dropped.
    error: Option<std::io::Error>,
    rng: Rng,
    target: Target,
    family: Family,
    out: String,
    ind: usize,
    /// Memory values in scope, innermost last; blocks truncate it when they close.
    mems: Vec<MemVal>,
    /// `mems[i].mem` for each `i`, apart: picks scan it for every generated op.
    kinds: Vec<Mem>,
    /// The indices into `mems` of each kind of memory, ascending.
    by_kind: [Vec<usize>; MEM_KINDS],
    /// Integer loop variables in scope (for slot views, indices and conditions).
    ivs: Vec<String>,
    /// Recently written memory (indices into `mems`), so reads find something to conflict with.
    written: Recent,
    next_name: usize,
    /// How many loops and ifs enclose the current point.
    nest: usize,
    /// How many divergent ifs enclose the current point. Inside one, workgroup memory is only
    /// read: a write there races with the other waves' accesses in the same region, and no
    /// barrier can be placed to order them, so `insert` could not make the kernel correct.
    divergent: usize,
    /// Threads per workgroup: per-thread word indices must stay inside their buffer.
    threads: u64,
    /// Statements left to write.
    left: usize,
    /// Scratch strings for operands (see [`Gen::take_buf`]).
    bufs: Vec<String>,
}

/// The last (up to) 8 values written, oldest first: a fixed array, so that saving and
/// restoring it around every loop and branch allocates nothing.
#[derive(Copy, Clone, Debug, Default)]
struct Recent {
    items: [usize; 8],
    len: usize,
}

impl Recent {
    fn as_slice(&self) -> &[usize] {
        &self.items[..self.len]
    }

    /// Appends `idx`, dropping the oldest past 8.
    fn push(&mut self, idx: usize) {
        if self.len == self.items.len() {
            self.items.copy_within(1.., 0);
            self.len -= 1;
        }
        self.items[self.len] = idx;
        self.len += 1;
    }
}

/// `tid` or `tid * scale`.
fn push_tid(out: &mut String, scale: u64) {
    out.push_str("tid");
    if scale != 1 {
        out.push_str(" * ");
        push_uint(out, scale);
    }
}

const LOOP_MAX_DEPTH: usize = 3;

impl<'w> Gen<'w> {
    fn new(opts: &GenOptions, sink: Option<&'w mut dyn std::io::Write>) -> Self {
        let cap = if sink.is_some() {
            CHUNK + CHUNK / 2
        } else {
            opts.ops.saturating_mul(40).min(1 << 30) + 512
        };
        Gen {
            sink,
            error: None,
            rng: Rng::new(opts.seed),
            target: opts.target,
            family: opts.target.family(),
            out: String::with_capacity(cap),
            ind: 1,
            mems: Vec::new(),
            kinds: Vec::new(),
            by_kind: Default::default(),
            ivs: Vec::new(),
            written: Recent::default(),
            next_name: 0,
            nest: 0,
            divergent: 0,
            threads: 1,
            left: opts.ops,
            bufs: Vec::new(),
        }
    }

    /// Starts a line of output at the current indentation; [`Gen::end_line`] ends it. Ops
    /// are written piece by piece into the output rather than formatted into strings first
    /// (`gen` of a million statements spent most of its time allocating and formatting).
    fn begin_line(&mut self) {
        for _ in 0..self.ind {
            self.out.push_str("  ");
        }
    }

    fn end_line(&mut self) {
        self.out.push('\n');
        if self.out.len() >= CHUNK {
            self.flush();
        }
    }

    /// Passes `out` on to the sink, if there is one.
    fn flush(&mut self) {
        if let Some(w) = self.sink.as_mut() {
            if self.error.is_none() {
                if let Err(e) = w.write_all(self.out.as_bytes()) {
                    self.error = Some(e);
                }
            }
            self.out.clear();
        }
    }

    /// A scratch string (for an operand whose line is not started yet).
    fn take_buf(&mut self) -> String {
        self.bufs.pop().unwrap_or_default()
    }

    fn give_buf(&mut self, mut b: String) {
        b.clear();
        self.bufs.push(b);
    }

    fn fresh(&mut self, prefix: &str) -> String {
        let n = self.next_name;
        self.next_name += 1;
        let mut name = String::with_capacity(prefix.len() + 8);
        name.push_str(prefix);
        push_uint(&mut name, n as u64);
        name
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.ind {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.end_line();
    }

    fn kernel(&mut self) {
        let _ = writeln!(self.out, "target {}\n", self.target);
        let seed_name = self.rng.next_u64() % 100_000;
        let n_default = *self.rng.pick(&[0, 1, 3, 16]);
        let waves = if self.family == Family::Ascend {
            String::new()
        } else {
            let wave_size = self.target.info().wave_size;
            let choices: &[u32] = if wave_size == 64 {
                &[2, 4, 8, 16]
            } else {
                &[2, 4, 8, 16, 32]
            };
            let info = self.target.info();
            if self.rng.chance(30) {
                self.threads = (info.default_waves * info.wave_size) as u64;
                String::new()
            } else {
                let w = *self.rng.pick(choices);
                self.threads = (w * info.wave_size) as u64;
                format!(" waves {w}")
            }
        };
        let _ = writeln!(
            self.out,
            "kernel @gen{seed_name}(%n = {n_default}, %c = 1){waves} {{"
        );
        if self.family == Family::Ascend {
            self.ascend_buffers();
        } else {
            self.gpu_buffers();
        }
        while self.left > 0 {
            self.stmt(0);
        }
        self.out.push_str("}\n");
    }

    // ---- declarations ----

    fn gpu_buffers(&mut self) {
        let count = self.rng.range(2, 5) as usize;
        let sizes = [1024u64, 2048, 3072, 4096, 6144, 8192];
        let mut owned: Vec<(String, u64)> = Vec::new();
        for i in 0..count {
            let name = format!("A{i}");
            let size = *self.rng.pick(&sizes);
            // Allocators reuse LDS: sometimes a buffer overlaps an earlier one.
            let placement = if !owned.is_empty() && self.rng.chance(20) {
                let (base, bsize) = owned[self.rng.below(owned.len() as u64) as usize].clone();
                if self.rng.chance(50) {
                    let text = format!(" aliases %{base}");
                    (text, size)
                } else {
                    let sub = (bsize / 2).max(256);
                    let offset = self.rng.below(bsize / sub) * sub;
                    let size = sub.min(bsize - offset);
                    let text = if offset == 0 {
                        format!(" at %{base}")
                    } else {
                        format!(" at %{base} + {offset}")
                    };
                    (text, size)
                }
            } else {
                (String::new(), size)
            };
            let (text, size) = placement;
            self.line(&format!("%{name} = buffer workgroup {size}{text}"));
            if text.is_empty() {
                owned.push((name.clone(), size));
            }
            self.push_mem(MemVal {
                name,
                mem: Mem::Lds,
                size: Some(size),
                sliceable: true,
            });
        }
        self.line("%G = buffer global 1048576");
        self.push_mem(MemVal {
            name: "G".into(),
            mem: Mem::Global,
            size: Some(1 << 20),
            sliceable: false,
        });
    }

    fn ascend_buffers(&mut self) {
        let decls: &[(&str, Mem, &str, u64)] = &[
            ("gm_in", Mem::Gm, "gm", 1 << 20),
            ("gm_out", Mem::Gm, "gm", 1 << 20),
            ("l1a", Mem::L1, "l1", 65536),
            ("l1b", Mem::L1, "l1", 65536),
            ("l0a", Mem::L0a, "l0a", 32768),
            ("l0b", Mem::L0b, "l0b", 32768),
            ("l0c", Mem::L0c, "l0c", 65536),
            ("ub0", Mem::Ub, "ub", 32768),
            ("ub1", Mem::Ub, "ub", 32768),
            ("ub2", Mem::Ub, "ub", 32768),
        ];
        for &(name, mem, space, size) in decls {
            self.line(&format!("%{name} = buffer {space} {size}"));
            self.push_mem(MemVal {
                name: name.into(),
                mem,
                size: Some(size),
                sliceable: mem != Mem::Gm,
            });
        }
    }

    // ---- picking operands ----

    fn mems_of(&self, pred: impl Fn(Mem) -> bool) -> Vec<usize> {
        (0..self.mems.len())
            .filter(|&i| pred(self.mems[i].mem))
            .collect()
    }

    /// A memory value in `mem`, preferring recently written ones when `reading`. Picks by
    /// counting instead of collecting: this runs for every generated op.
    fn pick_mem(&mut self, mem: Mem, reading: bool) -> Option<usize> {
        let kinds = &self.kinds;
        let n = kinds.len();
        if reading && self.rng.chance(60) {
            let ok = |i: usize| i < n && kinds[i] == mem;
            let written = self.written.as_slice();
            let count = written.iter().filter(|&&i| ok(i)).count();
            if count > 0 {
                let k = self.rng.below(count as u64) as usize;
                return written.iter().copied().filter(|&i| ok(i)).nth(k);
            }
        }
        let of_kind = &self.by_kind[mem as usize];
        let count = of_kind.len();
        if count == 0 {
            return None;
        }
        // Favour the first few (the buffers) so accesses meet each other.
        let k = if count > 6 && self.rng.chance(50) {
            self.rng.below(6)
        } else {
            self.rng.below(count as u64)
        } as usize;
        of_kind.get(k).copied()
    }

    fn push_mem(&mut self, m: MemVal) {
        self.by_kind[m.mem as usize].push(self.mems.len());
        self.kinds.push(m.mem);
        self.mems.push(m);
    }

    fn truncate_mems(&mut self, len: usize) {
        for &m in &self.kinds[len.min(self.kinds.len())..] {
            self.by_kind[m as usize].pop();
        }
        self.kinds.truncate(len);
        self.mems.truncate(len);
    }
    fn note_write(&mut self, idx: usize) {
        self.written.push(idx);
    }
    /// `%x`, `%x[lo:hi]` or `%x[tid * 4 + c]`.
    fn operand(&mut self, idx: usize, allow_index: bool) -> String {
        let mut out = String::new();
        self.operand_into(&mut out, idx, allow_index);
        out
    }

    /// Appends what [`Gen::operand`] returns to `out`.
    fn operand_into(&mut self, out: &mut String, idx: usize, allow_index: bool) {
        let size = self.mems[idx].size;
        let r = self.rng.below(100);
        out.push('%');
        out.push_str(&self.mems[idx].name);
        match size {
            Some(size) if r < 30 && size >= 512 => {
                let unit = (size / 4).max(1);
                let lo_k = self.rng.below(4);
                let len_k = self.rng.range(1, 4 - lo_k);
                out.push('[');
                push_uint(out, lo_k * unit);
                out.push(':');
                push_uint(out, (lo_k + len_k) * unit);
                out.push(']');
            }
            Some(size) if allow_index && (30..45).contains(&r) => self.word_index_into(out, size),
            _ => {}
        }
    }
    /// `[tid * s + c]` whose every word lies inside `size` bytes for every thread (a word
    /// index past the end would overlap whatever the allocator put next); nothing if none fits.
    fn word_index_into(&mut self, out: &mut String, size: u64) {
        let words = size / 4;
        let mut fits = [0u64; 3];
        let mut n = 0;
        for sc in [1u64, 2, 4] {
            if (self.threads - 1) * sc < words {
                fits[n] = sc;
                n += 1;
            }
        }
        if n == 0 {
            return;
        }
        let scale = *self.rng.pick(&fits[..n]);
        let room = words - (self.threads - 1) * scale;
        let c = self.rng.below(room.min(4));
        out.push('[');
        push_tid(out, scale);
        if c != 0 {
            out.push_str(" + ");
            push_uint(out, c);
        }
        out.push(']');
    }
    /// An index into the 1 MiB global buffer, sometimes following a loop variable.
    fn index_expr_into(&mut self, out: &mut String) {
        let c = self.rng.below(4);
        let scale = *self.rng.pick(&[1u64, 2, 4]);
        push_tid(out, scale);
        if !self.ivs.is_empty() && self.rng.chance(30) {
            let iv = self.rng.pick(&self.ivs);
            out.push_str(" + ");
            out.push_str(iv);
            out.push_str(" + ");
            push_uint(out, c + 1);
            return;
        }
        if c != 0 {
            out.push_str(" + ");
            push_uint(out, c);
        }
    }

    // ---- statements ----

    /// Writes one statement (a loop or if with its body); spends at least one of `left`.
    fn stmt(&mut self, depth: usize) {
        let r = self.rng.below(100);
        let room = self.left >= 3;
        if room && r < 14 && depth < LOOP_MAX_DEPTH {
            self.for_loop(depth);
        } else if room && r < 24 && self.nest < 4 {
            self.if_stmt(depth);
        } else if r < 30 {
            self.view_decl();
        } else if self.family == Family::Ascend {
            self.ascend_op();
        } else {
            self.gpu_op();
        }
    }

    fn spend(&mut self) {
        self.left = self.left.saturating_sub(1);
    }

    /// Body of a loop or branch: up to `max` statements, at least one while any are left.
    fn body(&mut self, depth: usize, max: usize) {
        let n = self.rng.range(1, max.max(1) as u64) as usize;
        let stop = self.left.saturating_sub(n);
        while self.left > stop {
            self.stmt(depth);
        }
    }

    fn view_decl(&mut self) {
        // Views in the kernel body live to its end; past a few dozen, new ones would only
        // slow the operand picks down (quadratic on million-op kernels) and add nothing.
        if self.mems.len() >= 48 {
            return match self.family {
                Family::Ascend => self.ascend_op(),
                _ => self.gpu_op(),
            };
        }
        let cands: Vec<usize> = (0..self.mems.len())
            .filter(|&i| self.mems[i].sliceable && self.mems[i].size.is_some())
            .collect();
        if cands.is_empty() {
            return self.compute_op();
        }
        let base = *self.rng.pick(&cands);
        let (bname, bsize, mem) = {
            let b = &self.mems[base];
            (b.name.clone(), b.size.unwrap_or(0), b.mem)
        };
        let name = self.fresh("v");
        // Inside loops, slot views follow the induction variable (multi-buffering).
        if !self.ivs.is_empty() && self.rng.chance(50) {
            let count = if bsize % 3 == 0 && self.rng.chance(40) {
                3
            } else {
                2
            };
            if bsize % count == 0 {
                let iv = self.rng.pick(&self.ivs).clone();
                let c = self.rng.below(count);
                let index = if c == 0 { iv } else { format!("{iv} + {c}") };
                self.line(&format!(
                    "%{name} = view %{bname} slot ({index}) mod {count}"
                ));
                self.push_mem(MemVal {
                    name,
                    mem,
                    size: Some(bsize / count),
                    sliceable: false,
                });
                self.spend();
                return;
            }
        }
        let halves = if bsize >= 512 { 2 } else { 1 };
        let part = bsize / halves;
        let k = self.rng.below(halves);
        self.line(&format!(
            "%{name} = view %{bname}[{}:{}]",
            k * part,
            (k + 1) * part
        ));
        self.push_mem(MemVal {
            name,
            mem,
            size: Some(part),
            sliceable: true,
        });
        self.spend();
    }
    fn compute_op(&mut self) {
        let name = if self.family == Family::Ascend {
            "scalar"
        } else {
            match self.family {
                Family::Nvidia => *self.rng.pick(&["mma", "fma", "exp2"]),
                _ => *self.rng.pick(&["mfma", "v_add", "v_exp", "s_nop"]),
            }
        };
        self.begin_line();
        self.out.push_str("op \"");
        self.out.push_str(name);
        self.out.push('"');
        self.end_line();
        self.spend();
    }
    fn gpu_op(&mut self) {
        let r = self.rng.below(100);
        if r < 12 {
            return self.compute_op();
        }
        if r < 20 {
            let mut g = self.take_buf();
            self.operand_global_into(&mut g);
            let text = if self.rng.chance(50) {
                "op \"global_load\" read "
            } else {
                "op \"global_store\" write "
            };
            self.op_line(&[text, &g]);
            self.give_buf(g);
            return self.spend();
        }
        if self.divergent > 0 {
            let Some(src) = self.pick_mem(Mem::Lds, true) else {
                return self.compute_op();
            };
            let name = if self.family == Family::Nvidia {
                "op \"ld_shared\" read "
            } else {
                "op \"ds_read\" read "
            };
            self.begin_line();
            self.out.push_str(name);
            self.operand_out(src, true);
            self.end_line();
            return self.spend();
        }
        let Some(dst) = self.pick_mem(Mem::Lds, false) else {
            return self.compute_op();
        };
        if r < 34 {
            // An async copy from global memory into workgroup memory.
            let name = match self.target {
                Target::Sm80 | Target::Sm90 => "cp_async",
                Target::Gfx1250 if self.rng.chance(40) => "tensor_load",
                _ => "gather_to_lds",
            };
            self.begin_line();
            self.out.push_str("op \"");
            self.out.push_str(name);
            self.out.push_str("\" async write ");
            self.operand_out(dst, false);
            self.out.push_str(", read ");
            let mut out = std::mem::take(&mut self.out);
            self.operand_global_into(&mut out);
            self.out = out;
            self.end_line();
            self.note_write(dst);
            return self.spend();
        }
        let kind = self.rng.below(100);
        if kind < 35 {
            let mut d = self.take_buf();
            self.operand_into(&mut d, dst, true);
            let names: &[&str] = if self.family == Family::Nvidia {
                &["op \"st_shared\" write ", "op \"stmatrix\" write "]
            } else {
                &["op \"ds_write\" write ", "op \"ds_write_b128\" write "]
            };
            let name = *self.rng.pick(names);
            self.op_line(&[name, &d]);
            self.give_buf(d);
            self.note_write(dst);
        } else if kind < 80 {
            let src = self.pick_mem(Mem::Lds, true).unwrap_or(dst);
            let mut s = self.take_buf();
            self.operand_into(&mut s, src, true);
            let names: &[&str] = if self.family == Family::Nvidia {
                &["op \"ld_shared\" read ", "op \"ldmatrix\" read "]
            } else {
                &["op \"ds_read\" read ", "op \"ds_read_b128\" read "]
            };
            let name = *self.rng.pick(names);
            self.op_line(&[name, &s]);
            self.give_buf(s);
        } else if kind < 90 {
            self.begin_line();
            self.out.push_str("op \"lds_add\" atomic ");
            self.operand_out(dst, true);
            self.end_line();
            self.note_write(dst);
        } else {
            // A copy between two workgroup values.
            let src = self.pick_mem(Mem::Lds, true).unwrap_or(dst);
            self.begin_line();
            self.out.push_str("op \"lds_copy\" write ");
            self.operand_out(dst, true);
            self.out.push_str(", read ");
            self.operand_out(src, true);
            self.end_line();
            self.note_write(dst);
        }
        self.spend();
    }

    /// Writes an operand straight into the output (the line is already started).
    fn operand_out(&mut self, idx: usize, allow_index: bool) {
        let mut out = std::mem::take(&mut self.out);
        self.operand_into(&mut out, idx, allow_index);
        self.out = out;
    }

    /// One line made of `parts`.
    fn op_line(&mut self, parts: &[&str]) {
        self.begin_line();
        for p in parts {
            self.out.push_str(p);
        }
        self.end_line();
    }
    /// `%G`, `%G[lo:hi]` or `%G[index]`.
    fn operand_global_into(&mut self, out: &mut String) {
        match self.rng.below(3) {
            0 => out.push_str("%G"),
            1 => {
                let lo = self.rng.below(16) * 4096;
                out.push_str("%G[");
                push_uint(out, lo);
                out.push(':');
                push_uint(out, lo + 4096);
                out.push(']');
            }
            _ => {
                out.push_str("%G[");
                self.index_expr_into(out);
                out.push(']');
            }
        }
    }

    fn ascend_op(&mut self) {
        let r = self.rng.below(100);
        let pick = |g: &mut Gen, mem: Mem, reading: bool| -> Option<String> {
            let i = g.pick_mem(mem, reading)?;
            if !reading {
                g.note_write(i);
            }
            Some(g.operand(i, false))
        };
        let text = if r < 20 {
            // GM -> UB or GM -> L1 (MTE2)
            let to = if self.rng.chance(50) {
                Mem::Ub
            } else {
                Mem::L1
            };
            let d = pick(self, to, false);
            let s = pick(self, Mem::Gm, true);
            d.zip(s)
                .map(|(d, s)| format!("op \"load\" write {d}, read {s}"))
        } else if r < 32 {
            // L1 -> L0A/L0B (MTE1)
            let to = if self.rng.chance(50) {
                Mem::L0a
            } else {
                Mem::L0b
            };
            let d = pick(self, to, false);
            let s = pick(self, Mem::L1, true);
            d.zip(s)
                .map(|(d, s)| format!("op \"move\" write {d}, read {s}"))
        } else if r < 42 {
            let d = pick(self, Mem::L0c, false);
            let a = pick(self, Mem::L0a, true);
            let b = pick(self, Mem::L0b, true);
            match (d, a, b) {
                (Some(d), Some(a), Some(b)) => {
                    Some(format!("op \"matmul\" write {d}, read {a}, read {b}"))
                }
                _ => None,
            }
        } else if r < 50 {
            // L0C -> GM through the fixpipe.
            let d = pick(self, Mem::Gm, false);
            let s = pick(self, Mem::L0c, true);
            d.zip(s)
                .map(|(d, s)| format!("op \"store\" write {d}, read {s}"))
        } else if r < 75 {
            let name = *self.rng.pick(&["add", "mul", "exp", "max", "relu"]);
            let d = pick(self, Mem::Ub, false);
            let a = pick(self, Mem::Ub, true);
            let b = if self.rng.chance(50) {
                pick(self, Mem::Ub, true)
            } else {
                None
            };
            d.zip(a).map(|(d, a)| match b {
                Some(b) => format!("op \"{name}\" write {d}, read {a}, read {b}"),
                None => format!("op \"{name}\" write {d}, read {a}"),
            })
        } else if r < 80 {
            // An op the table does not know, with its pipe stated.
            let d = pick(self, Mem::Ub, false);
            d.map(|d| format!("op \"vexp\" pipe V write {d}"))
        } else if r < 92 {
            // UB -> GM (MTE3)
            let d = pick(self, Mem::Gm, false);
            let s = pick(self, Mem::Ub, true);
            d.zip(s)
                .map(|(d, s)| format!("op \"store\" write {d}, read {s}"))
        } else {
            Some("op \"scalar\"".to_string())
        };
        match text {
            Some(t) => {
                self.line(&t);
                self.spend();
            }
            None => self.compute_op(),
        }
    }

    fn for_loop(&mut self, depth: usize) {
        self.spend();
        let iv = {
            let n = self.next_name;
            self.next_name += 1;
            let mut iv = String::with_capacity(8);
            iv.push_str("%i");
            push_uint(&mut iv, n as u64);
            iv
        };
        // A constant trip count, or the rest of the head after `0 to `.
        let (trips, bounds) = match self.rng.below(6) {
            0 | 1 => (*self.rng.pick(&[2u64, 4, 8, 16]), ""),
            2 => (0, "%n"),
            3 => (0, "%n max 64"),
            4 => (0, "%n min 1 max 16"),
            _ => (0, "16 step 4"),
        };
        // Loop-carried handles that rotate: double buffering.
        let mut iters: Vec<(String, usize)> = Vec::new();
        if self.rng.chance(30) {
            let mem = match self.family {
                Family::Ascend => *self.rng.pick(&[Mem::Ub, Mem::L1]),
                _ => Mem::Lds,
            };
            let all = self.mems_of(|m| m == mem);
            if all.len() >= 2 {
                let a = *self.rng.pick(&all);
                let mut b = *self.rng.pick(&all);
                if b == a {
                    b = all[(all.iter().position(|&x| x == a).unwrap_or(0) + 1) % all.len()];
                }
                iters.push((self.fresh("h"), a));
                iters.push((self.fresh("h"), b));
            }
        }
        // Results outlive the loop; capped like views (see `view_decl`).
        let results: Vec<String> =
            if !iters.is_empty() && self.mems.len() < 48 && self.rng.chance(30) {
                vec![self.fresh("r"), self.fresh("r")]
            } else {
                Vec::new()
            };
        self.begin_line();
        let head = &mut self.out;
        if !results.is_empty() {
            for p in ["%", &results[0], ", %", &results[1], " = "] {
                head.push_str(p);
            }
        }
        for p in ["for ", &iv, " = 0 to ", bounds] {
            head.push_str(p);
        }
        if bounds.is_empty() {
            push_uint(head, trips);
        }
        if !iters.is_empty() {
            head.push_str(" iter(");
            for (i, (h, init)) in iters.iter().enumerate() {
                if i > 0 {
                    head.push_str(", ");
                }
                for p in ["%", h, " = %", &self.mems[*init].name] {
                    head.push_str(p);
                }
            }
            head.push(')');
        }
        head.push_str(" {");
        self.end_line();
        let mark = self.mems.len();
        let written_mark = self.written;
        let mem = iters.first().map(|(_, i)| self.mems[*i].mem);
        for (h, _) in &iters {
            self.push_mem(MemVal {
                name: h.clone(),
                mem: mem.unwrap_or(Mem::Lds),
                size: None,
                sliceable: false,
            });
        }
        self.ivs.push(iv);
        self.ind += 1;
        self.nest += 1;
        if !iters.is_empty() {
            self.use_handles(mark, mark + 1);
        }
        let max = if depth == 0 { 10 } else { 5 };
        self.body(depth + 1, max);
        self.nest -= 1;
        if !iters.is_empty() {
            let (a, b) = (iters[0].0.clone(), iters[1].0.clone());
            if self.rng.chance(80) {
                self.line(&format!("yield %{b}, %{a}"));
            } else {
                self.line(&format!("yield %{a}, %{b}"));
            }
        }
        self.ind -= 1;
        self.ivs.pop();
        self.truncate_mems(mark);
        self.written = written_mark;
        self.line("}");
        for r in results {
            let idx = self.mems.len();
            self.push_mem(MemVal {
                name: r,
                mem: mem.unwrap_or(Mem::Lds),
                size: None,
                sliceable: false,
            });
            self.note_write(idx);
        }
    }

    /// The double-buffering idiom: fill the next buffer, use the current one. Each op is
    /// written only while the budget lasts.
    fn use_handles(&mut self, cur: usize, nxt: usize) {
        let (c, n) = (self.mems[cur].name.clone(), self.mems[nxt].name.clone());
        let mem = self.mems[cur].mem;
        let fill = match (self.family, mem) {
            (Family::Ascend, _) => format!("op \"load\" write %{n}, read %gm_in"),
            _ => match self.target {
                Target::Sm80 | Target::Sm90 => format!("op \"cp_async\" async write %{n}, read %G"),
                Target::Gfx1250 if self.rng.chance(50) => {
                    format!("op \"tensor_load\" async write %{n}, read %G")
                }
                _ if self.rng.chance(30) => format!("op \"ds_write\" write %{n}"),
                _ => format!("op \"gather_to_lds\" async write %{n}, read %G"),
            },
        };
        let use_cur = match (self.family, mem) {
            (Family::Ascend, Mem::L1) => format!("op \"move\" write %l0a, read %{c}"),
            (Family::Ascend, _) => format!("op \"add\" write %ub2, read %{c}"),
            _ => format!("op \"ds_read\" read %{c}"),
        };
        if self.left > 0 && self.divergent == 0 {
            self.line(&fill);
            self.note_write(nxt);
            self.spend();
        }
        if self.left > 0 && self.rng.chance(70) {
            self.line(&use_cur);
            self.spend();
        }
    }

    fn if_stmt(&mut self, depth: usize) {
        self.spend();
        let gpu = self.family != Family::Ascend;
        let divergent = gpu && self.rng.chance(30);
        // The condition: `[before, ivs[iv], after]` with `iv` set, else `before` alone.
        let (before, iv, after) = if divergent {
            let c = match self.rng.below(3) {
                0 => "tid < 64",
                1 => "tid mod 2 == 0",
                _ => "tid >= 32",
            };
            (c, None, "")
        } else if !self.ivs.is_empty() && self.rng.chance(50) {
            let iv = self.rng.below(self.ivs.len() as u64) as usize;
            if self.rng.chance(50) {
                ("(", Some(iv), " + 1) mod 2 == 0")
            } else {
                ("", Some(iv), " < 2")
            }
        } else {
            let c = match self.rng.below(3) {
                0 => "%c",
                1 => "%n > 4",
                _ => "%c == 0",
            };
            (c, None, "")
        };
        let uni = if divergent { "divergent" } else { "uniform" };
        // A uniform if that selects a buffer: `%x = if uniform %c { yield %A } else { yield %B }`.
        let result_mem = if !divergent && self.mems.len() < 48 && self.rng.chance(25) {
            let mem = if gpu {
                Mem::Lds
            } else {
                *self.rng.pick(&[Mem::Ub, Mem::L1])
            };
            let all = self.mems_of(|m| m == mem);
            (all.len() >= 2).then(|| {
                let a = *self.rng.pick(&all);
                let b = *self.rng.pick(&all);
                (mem, a, b)
            })
        } else {
            None
        };
        let result = result_mem.map(|_| self.fresh("x"));
        self.begin_line();
        if let Some(r) = &result {
            for p in ["%", r, " = "] {
                self.out.push_str(p);
            }
        }
        for p in ["if ", uni, " ", before] {
            self.out.push_str(p);
        }
        if let Some(iv) = iv {
            self.out.push_str(&self.ivs[iv]);
        }
        for p in [after, " {"] {
            self.out.push_str(p);
        }
        self.end_line();
        let then_yield = result_mem.map(|(_, a, _)| self.mems[a].name.clone());
        let else_yield = result_mem.map(|(_, _, b)| self.mems[b].name.clone());
        self.nest += 1;
        self.divergent += divergent as usize;
        self.branch(depth, then_yield);
        let with_else = result.is_some() || (self.left > 0 && self.rng.chance(50));
        if with_else {
            self.ind -= 1;
            self.line("} else {");
            self.ind += 1;
            self.branch_inner(depth, else_yield);
        }
        self.nest -= 1;
        self.divergent -= divergent as usize;
        self.ind -= 1;
        self.line("}");
        if let (Some(r), Some((mem, _, _))) = (result, result_mem) {
            let idx = self.mems.len();
            self.push_mem(MemVal {
                name: r,
                mem,
                size: None,
                sliceable: false,
            });
            self.note_write(idx);
        }
    }

    fn branch(&mut self, depth: usize, yielded: Option<String>) {
        self.ind += 1;
        self.branch_inner(depth, yielded);
    }

    fn branch_inner(&mut self, depth: usize, yielded: Option<String>) {
        let mark = self.mems.len();
        let written_mark = self.written;
        self.body(depth, 4);
        if let Some(y) = yielded {
            self.line(&format!("yield %{y}"));
        }
        self.truncate_mems(mark);
        self.written = written_mark;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncopt_ir::{AccessKind, Selector, StmtKind};
    use syncopt_targets::check::check_kernel;

    fn gen(ops: usize, seed: u64, target: Target) -> String {
        generate(&GenOptions {
            ops,
            seed,
            target,
            executable: false,
        })
    }

    fn parse_one(text: &str) -> syncopt_ir::Module {
        let file = syncopt_ir::parse(text).unwrap_or_else(|d| panic!("{}", d.render("gen", text)));
        assert_eq!(file.chunks.len(), 1);
        assert_eq!(file.chunks[0].kernels.len(), 1);
        file.chunks[0].clone()
    }

    #[test]
    fn valid_on_every_target() {
        for &t in Target::ALL {
            for seed in 0..60 {
                for ops in [0, 1, 3, 5, 8, 12, 40, 300] {
                    let text = gen(ops, seed, t);
                    let m = parse_one(&text);
                    assert_eq!(m.target.as_deref(), Some(t.name()));
                    let k = &m.kernels[0];
                    let diags = check_kernel(k, t);
                    assert!(
                        diags.is_empty(),
                        "{t} seed {seed} ops {ops}:\n{}\n{text}",
                        diags
                            .iter()
                            .map(|d| d.render("gen", &text))
                            .collect::<String>()
                    );
                    let mut syncs = 0;
                    k.walk(&mut |_, d| syncs += matches!(d.kind, StmtKind::Sync(_)) as usize);
                    assert_eq!(syncs, 0, "{text}");
                    // Exactly `ops` statements.
                    let n = k.stmt_count();
                    assert!(n >= ops, "{t} {seed} {ops}: {n} statements\n{text}");
                    assert!(n <= ops, "{t} {seed} {ops}: {n} statements\n{text}");
                }
            }
        }
    }

    #[test]
    fn streamed_text_is_the_generated_text() {
        for &t in Target::ALL {
            for (ops, seed) in [(0, 0), (12, 1), (300, 2), (6000, 3)] {
                for executable in [false, true] {
                    let opts = GenOptions {
                        ops,
                        seed,
                        target: t,
                        executable,
                    };
                    let mut out = Vec::new();
                    generate_to(&opts, &mut out).unwrap();
                    assert_eq!(String::from_utf8(out).unwrap(), generate(&opts));
                }
            }
        }
        // 6000 statements is several chunks: the test above crossed chunk boundaries.
        assert!(gen(6000, 3, Target::Gfx950).len() > 2 * CHUNK);
    }

    #[test]
    fn streaming_reports_the_writers_error() {
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let opts = GenOptions {
            ops: 5000,
            seed: 1,
            target: Target::Gfx950,
            executable: false,
        };
        let e = generate_to(&opts, &mut Full).unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }

    #[test]
    fn deterministic_and_seed_sensitive() {
        for &t in Target::ALL {
            assert_eq!(gen(200, 7, t), gen(200, 7, t));
            assert_ne!(gen(200, 7, t), gen(200, 8, t));
        }
    }

    #[test]
    fn printer_fixed_point() {
        // The generator writes canonical text: fmt leaves it as it is.
        for &t in Target::ALL {
            for seed in 0..20 {
                let text = gen(60, seed, t);
                let file = syncopt_ir::parse(&text).expect("parses");
                assert_eq!(syncopt_ir::print_file(&file), text);
            }
        }
    }

    /// Whether some op writes memory that another op (or the same op in a loop) touches.
    fn has_hazard_candidate(k: &syncopt_ir::Kernel) -> bool {
        let mut accesses: Vec<(String, bool)> = Vec::new();
        let root = |v: syncopt_ir::ValueId| -> String {
            match k.static_root(v) {
                Some((b, _)) => k.values[k.buffers[b].value].name.clone(),
                None => "?".into(),
            }
        };
        k.walk(&mut |_, d| {
            if let StmtKind::Op(op) = &d.kind {
                for e in &op.effects {
                    accesses.push((root(e.mem.value), e.kind != AccessKind::Read));
                }
            }
        });
        accesses.iter().enumerate().any(|(i, (r, w))| {
            accesses
                .iter()
                .enumerate()
                .any(|(j, (r2, w2))| i != j && (r == r2 || r == "?" || r2 == "?") && (*w || *w2))
        })
    }

    #[test]
    fn small_kernels_are_interesting() {
        for &t in Target::ALL {
            let mut with_hazard = 0;
            let mut with_loop = 0;
            let mut distinct = std::collections::BTreeSet::new();
            for seed in 0..100 {
                let ops = 3 + (seed as usize % 10);
                let text = gen(ops, seed, t);
                let m = parse_one(&text);
                let k = &m.kernels[0];
                distinct.insert(syncopt_ir::print_kernel(k));
                let mut ops_with_effects = 0;
                let mut loops = 0;
                k.walk(&mut |_, d| match &d.kind {
                    StmtKind::Op(op) if !op.effects.is_empty() => ops_with_effects += 1,
                    StmtKind::For(_) => loops += 1,
                    _ => {}
                });
                assert!(ops_with_effects > 0 || k.stmt_count() >= ops, "{text}");
                with_hazard += has_hazard_candidate(k) as usize;
                with_loop += (loops > 0) as usize;
            }
            assert!(
                with_hazard >= 60,
                "{t}: only {with_hazard}/100 with a hazard"
            );
            assert!(with_loop >= 20, "{t}: only {with_loop}/100 with a loop");
            assert!(
                distinct.len() >= 95,
                "{t}: only {} distinct",
                distinct.len()
            );
        }
    }

    #[test]
    fn covers_the_features() {
        // Over a few seeds, every feature the brief lists shows up.
        let mut text = String::new();
        for &t in Target::GPUS {
            for seed in 0..30 {
                text.push_str(&gen(120, seed, t));
            }
        }
        for needle in [
            "aliases %",
            " at %",
            "slot (",
            "mod 3",
            "mod 2",
            "[tid",
            "async write",
            "\"tensor_load\" async",
            "\"cp_async\" async",
            "iter(",
            "yield %",
            "if uniform",
            "if divergent tid",
            "} else {",
            "= if uniform",
            "max 64",
            "0 to %n",
            "0 to 8",
            "atomic %",
            "read %G",
            "waves ",
        ] {
            assert!(text.contains(needle), "no {needle:?} in the GPU kernels");
        }
        let mut asc = String::new();
        for seed in 0..30 {
            asc.push_str(&gen(120, seed, Target::Ascend910b));
        }
        for needle in [
            "op \"load\" write %ub",
            "op \"load\" write %l1",
            "op \"move\" write %l0a",
            "op \"matmul\" write %l0c",
            "op \"store\" write %gm_out, read %l0c",
            "op \"store\" write %gm",
            "op \"add\" write %ub",
            "pipe V",
            "iter(",
            "if uniform",
        ] {
            assert!(asc.contains(needle), "no {needle:?} in the Ascend kernels");
        }
    }

    /// Workgroup memory written (or atomically updated) under a divergent if.
    fn divergent_lds_writes(k: &syncopt_ir::Kernel, b: syncopt_ir::BlockId, div: bool) -> usize {
        let mut n = 0;
        for &s in &k.blocks[b].stmts {
            match &k.stmts[s].kind {
                StmtKind::Op(op) if div => {
                    n += op
                        .effects
                        .iter()
                        .filter(|e| {
                            e.kind != AccessKind::Read
                                && syncopt_targets::value_space(k, e.mem.value, 0)
                                    == Some(syncopt_ir::Space::Workgroup)
                        })
                        .count()
                }
                StmtKind::If(i) => {
                    let d = div || i.uniformity == syncopt_ir::Uniformity::Divergent;
                    for c in k.stmts[s].kind.child_block_ids() {
                        n += divergent_lds_writes(k, c, d);
                    }
                }
                other => {
                    for c in other.child_block_ids() {
                        n += divergent_lds_writes(k, c, div);
                    }
                }
            }
        }
        n
    }

    #[test]
    fn no_workgroup_writes_under_divergent_ifs() {
        let mut divergent_ifs = 0;
        for &t in Target::GPUS {
            for seed in 0..40 {
                let text = gen(150, seed, t);
                let m = parse_one(&text);
                let k = &m.kernels[0];
                assert_eq!(divergent_lds_writes(k, k.body, false), 0, "{text}");
                divergent_ifs += text.matches("if divergent").count();
            }
        }
        assert!(divergent_ifs > 100, "only {divergent_ifs} divergent ifs");
    }

    #[test]
    fn word_indices_stay_inside() {
        let mut seen = 0;
        for &t in Target::GPUS {
            for seed in 0..40 {
                let text = gen(200, seed, t);
                let m = parse_one(&text);
                let k = &m.kernels[0];
                let threads = (t.waves(k) * t.info().wave_size) as i64;
                k.walk(&mut |_, d| {
                    let StmtKind::Op(op) = &d.kind else { return };
                    for e in &op.effects {
                        let Selector::Index(x) = &e.mem.sel else {
                            continue;
                        };
                        let space = syncopt_targets::value_space(k, e.mem.value, 0);
                        if space != Some(syncopt_ir::Space::Workgroup) {
                            continue;
                        }
                        seen += 1;
                        let size = k.static_size(e.mem.value).expect("indexed LDS has a size");
                        assert!(x.is_constant() || x.terms.len() == 1, "{text}");
                        let last = x.eval(|_| threads - 1);
                        assert!(x.constant >= 0 && (last + 1) * 4 <= size as i64, "{text}");
                    }
                });
            }
        }
        assert!(seen > 50, "only {seen} indexed accesses");
    }

    #[test]
    fn byte_ranges_stay_inside() {
        for &t in Target::ALL {
            for seed in 0..40 {
                let text = gen(200, seed, t);
                let m = parse_one(&text);
                let k = &m.kernels[0];
                k.walk(&mut |_, d| {
                    if let StmtKind::Op(op) = &d.kind {
                        for e in &op.effects {
                            if let Selector::Bytes { lo, hi } = e.mem.sel {
                                assert!(lo < hi);
                                if let Some(s) = k.static_size(e.mem.value) {
                                    assert!(hi <= s);
                                }
                            }
                        }
                    }
                });
            }
        }
    }
}
