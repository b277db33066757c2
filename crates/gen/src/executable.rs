//! Executable kernels for `gen --executable`: every access has a concrete meaning, so
//! `syncopt run` and `syncopt emit cuda` can execute the kernel and compare checksums.
//!
//! Shape: `W` warps of `w` threads (`T = w W`; `w` is 32 on NVIDIA, 64 on AMD); workgroup
//! buffers of `2T` words, a double buffer of two such slots, one global buffer for async copy
//! sources. Stores write word `tid + c` or `c - tid` (every thread its own word); loads read
//! words shifted by multiples of the warp size (`tid + w m`), so a load reads what other warps
//! stored: every hazard the analysis sees is one the hardware can show. Loops have constant trip counts or run to the parameter `%n`
//! (`max 4`); `if`s sit in loops, uniform on a loop variable's parity or on the parameter
//! `%p`: scripts/gpu-check runs each kernel with several values of `%n` and `%p` so that
//! every path executes. Atomics only touch `%E`, which nothing else touches: racecheck reports
//! no hazard between an atomic and a plain access (docs/GPU-VALIDATION.md). Async copies move
//! global words into shared memory. No sync op is generated: `insert` adds them.

use std::fmt::Write;

use syncopt_targets::{Family, Target};

use crate::{GenOptions, Rng};

pub fn generate(opts: &GenOptions) -> String {
    // Every GPU target: `syncopt run` executes any of them; CUDA emission (scripts/gpu-check)
    // takes the NVIDIA ones.
    let target = if opts.target.is_gpu() {
        opts.target
    } else {
        Target::Sm90
    };
    let w = target.info().wave_size.max(1);
    let mut rng = Rng::new(opts.seed ^ 0xE7EC_u64.rotate_left(40));
    let waves = *rng.pick(&[2u32, 4, 4, 8]);
    let mut g = ExecGen {
        rng,
        w,
        t: waves * w,
        out: String::new(),
        indent: 1,
        budget: opts.ops.clamp(1, 400),
        bufs: Vec::new(),
        ivs: Vec::new(),
        loops: 0,
        ops: 0,
        whole_copies: 0,
    };
    let t = g.t;
    let n_default = g.rng.range(1, 4);
    let p_default = g.rng.below(2);
    let _ = writeln!(
        g.out,
        "// Executable kernel (seed {}): run with 'syncopt run'{}.\ntarget {}\n\nkernel @exec{}(%n = {n_default}, %p = {p_default}) waves {waves} {{",
        opts.seed,
        if target.family() == Family::Nvidia {
            ", emit with 'syncopt emit cuda'"
        } else {
            ""
        },
        target.name(),
        opts.seed
    );
    let nbufs = g.rng.range(2, 3);
    for name in ["A", "B", "C"].iter().take(nbufs as usize) {
        g.line(&format!("%{name} = buffer workgroup {}", 8 * t));
        g.bufs.push(format!("%{name}"));
    }
    g.line(&format!("%D = buffer workgroup {}", 16 * t));
    // Atomics only ever meet other atomics (%E): compute-sanitizer's racecheck reports no
    // hazard between an atomic and a plain access (probes in docs/GPU-VALIDATION.md), so a
    // barrier ordering one could not be shown on the GPU.
    g.line(&format!("%E = buffer workgroup {}", 8 * t));
    // Async copy sources: tid + w m + 2T i, with loop variables below 4 and m below 2T / w.
    g.line(&format!("%G = buffer global {}", 4 * 16 * t));
    while g.budget > 0 {
        g.stmt();
    }
    g.out.push_str("}\n");
    g.out
}

struct ExecGen {
    rng: Rng,
    /// Threads per warp (wave).
    w: u32,
    t: u32,
    out: String,
    indent: usize,
    budget: usize,
    /// Workgroup memory values of `2T` words in scope.
    bufs: Vec<String>,
    /// Loop variables in scope with their trip counts (upper bounds).
    ivs: Vec<(String, u32)>,
    loops: usize,
    ops: usize,
    whole_copies: u32,
}

impl ExecGen {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn buf(&mut self) -> String {
        let i = self.rng.below(self.bufs.len() as u64) as usize;
        self.bufs[i].clone()
    }

    /// A word index into a `2T`-word operand: thread-injective and in bounds. Stores keep
    /// offsets in {0, T}; loads shift by multiples of the warp size so they read other warps'
    /// words.
    fn index(&mut self, store: bool) -> String {
        let (t, w) = (self.t, self.w);
        let mut off = if store {
            *self.rng.pick(&[0, t])
        } else {
            w * self.rng.range(0, (t / w) as u64) as u32
        };
        let mut iv_term = String::new();
        if !self.ivs.is_empty() && self.rng.chance(35) {
            let (name, trips) = self.ivs[self.rng.below(self.ivs.len() as u64) as usize].clone();
            let span = w * trips.saturating_sub(1);
            if span <= t {
                off = off.min(t - span);
                iv_term = format!(" + {w} * {name}");
            }
        }
        if iv_term.is_empty() && self.rng.chance(20) {
            // Reversed: word (T - 1 + off) - tid.
            return format!("{} - tid", t - 1 + off);
        }
        let mut s = format!("tid{iv_term}");
        if off > 0 {
            let _ = write!(s, " + {off}");
        }
        s
    }

    fn op(&mut self, s: &str) {
        self.ops += 1;
        self.budget = self.budget.saturating_sub(1);
        let s = s.replacen("OPN", &self.ops.to_string(), 1);
        self.line(&s);
    }

    fn stmt(&mut self) {
        let r = self.rng.below(100);
        let depth = self.ivs.len();
        let (t, w) = (self.t, self.w);
        match r {
            0..=21 => {
                let (b, i) = (self.buf(), self.index(true));
                self.op(&format!("op \"st_OPN\" write {b}[{i}]"));
            }
            22..=45 => {
                let (b, i) = (self.buf(), self.index(false));
                self.op(&format!("op \"ld_OPN\" read {b}[{i}]"));
            }
            46..=52 => {
                let b = self.buf();
                self.op(&format!("op \"ds_write_OPN\" write {b}"));
            }
            53..=60 => {
                let b = self.buf();
                if self.rng.chance(50) {
                    self.op(&format!("op \"ds_read_OPN\" read {b}"));
                } else {
                    let half = self.rng.below(2) as u32 * 4 * t;
                    self.op(&format!(
                        "op \"ds_read_OPN\" read {b}[{half}:{}]",
                        half + 4 * t
                    ));
                }
            }
            61..=65 => {
                let b = "%E".to_string();
                let i = if self.rng.chance(50) {
                    self.index(true)
                } else {
                    format!("{}", u64::from(w) * self.rng.below((2 * t / w) as u64))
                };
                self.op(&format!("op \"lds_add_OPN\" atomic {b}[{i}]"));
            }
            66..=74 => {
                let b = self.buf();
                if self.rng.chance(70) {
                    let i = self.index(true);
                    let mut src =
                        format!("tid + {}", u64::from(w) * self.rng.below((t / w) as u64));
                    if let Some((iv, _)) = self.ivs.last() {
                        let _ = write!(src, " + {} * {iv}", 2 * t);
                    }
                    self.op(&format!(
                        "op \"cp_async_OPN\" async write {b}[{i}], read %G[{src}]"
                    ));
                } else {
                    // Each whole-buffer copy reads its own 2T words of %G, above every indexed
                    // copy's source (words below 8T): two copies into one word then write
                    // different values, and racecheck reports no write-after-write of equal
                    // values (docs/GPU-VALIDATION.md).
                    let lo = 4 * (8 * t + 2 * t * (self.whole_copies % 4));
                    self.whole_copies += 1;
                    self.op(&format!(
                        "op \"cp_async_OPN\" async write {b}, read %G[{lo}:{}]",
                        lo + 8 * t
                    ));
                }
            }
            75..=84 if depth < 2 && self.budget > 2 => self.plain_loop(),
            // Inside loops only: conditions on a loop variable's parity run both branches.
            85..=91 if self.budget > 2 && !self.ivs.is_empty() => self.uniform_if(),
            92..=96 if depth < 2 && self.budget > 3 => self.double_buffer_loop(),
            _ => {
                if self.rng.chance(50) {
                    self.op("op \"mma_OPN\"");
                } else {
                    let m = u64::from(w) * self.rng.below(8);
                    self.op(&format!("op \"gld_OPN\" read %G[tid + {m}]"));
                }
            }
        }
    }

    fn body(&mut self, n: usize) {
        self.indent += 1;
        let stop = self.budget.saturating_sub(n);
        let mut any = false;
        while self.budget > stop || !any {
            self.stmt();
            any = true;
            if self.budget == 0 {
                break;
            }
        }
        self.indent -= 1;
    }

    fn new_iv(&mut self) -> String {
        self.loops += 1;
        format!("%i{}", self.loops)
    }

    fn plain_loop(&mut self) {
        let iv = self.new_iv();
        // Trip counts on %n (0..=4) are run with several values of %n by scripts/gpu-check.
        let (header, trips) = if self.rng.chance(30) {
            (format!("for {iv} = 0 to %n max 4 {{"), 4)
        } else {
            let n = self.rng.range(2, 4) as u32;
            (format!("for {iv} = 0 to {n} {{"), n)
        };
        self.line(&header);
        self.ivs.push((iv.clone(), trips));
        // Sometimes a double buffer indexed by the loop variable's parity.
        let nbufs = self.bufs.len();
        if self.rng.chance(40) {
            let k = self.loops;
            self.indent += 1;
            self.line(&format!("%w{k} = view %D slot ({iv}) mod 2"));
            self.line(&format!("%r{k} = view %D slot ({iv} + 1) mod 2"));
            self.indent -= 1;
            self.bufs.push(format!("%w{k}"));
            self.bufs.push(format!("%r{k}"));
        }
        let n = self.rng.range(2, 6) as usize;
        self.body(n);
        self.bufs.truncate(nbufs);
        self.ivs.pop();
        self.line("}");
    }

    fn double_buffer_loop(&mut self) {
        let iv = self.new_iv();
        let k = self.loops;
        let (bound, n) = if self.rng.chance(30) {
            ("%n max 4".to_string(), 4)
        } else {
            let n = self.rng.range(2, 4) as u32;
            (n.to_string(), n)
        };
        let (a, b) = {
            let x = self.buf();
            let mut y = self.buf();
            if y == x {
                y = "%D".to_string();
            }
            if y == "%D" {
                // %D has 4T words: use its first slot to keep operands the same size.
                let v = format!("%d{k}");
                self.line(&format!("{v} = view %D[0:{}]", 8 * self.t));
                y = v;
            }
            (x, y)
        };
        self.line(&format!(
            "for {iv} = 0 to {bound} iter(%cur{k} = {a}, %nxt{k} = {b}) {{"
        ));
        self.ivs.push((iv, n));
        let nbufs = self.bufs.len();
        self.bufs.push(format!("%cur{k}"));
        self.bufs.push(format!("%nxt{k}"));
        let body = self.rng.range(2, 6) as usize;
        self.body(body);
        self.bufs.truncate(nbufs);
        self.ivs.pop();
        self.line(&format!("  yield %nxt{k}, %cur{k}"));
        self.line("}");
    }

    fn uniform_if(&mut self) {
        let cond = match self.ivs.last() {
            Some((iv, _)) if self.rng.chance(85) => format!("({iv}) mod 2 == 0"),
            _ => "%p".to_string(),
        };
        self.line(&format!("if uniform {cond} {{"));
        let n = self.rng.range(1, 3) as usize;
        self.body(n);
        if self.rng.chance(60) {
            self.line("} else {");
            let n = self.rng.range(1, 3) as usize;
            self.body(n);
        }
        self.line("}");
    }
}
