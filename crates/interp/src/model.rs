//! The execution model shared by the interpreter and the CUDA emitter (docs/GPU-VALIDATION.md):
//! where each buffer lives, which words an access touches, what a store writes and how loads
//! fold into the per-thread checksum. Both sides compute exactly these functions, so a
//! race-free kernel gives the same checksums on the CPU and on the GPU.
//!
//! - Memory is counted in 4-byte words. Workgroup buffers share one arena (the CUDA
//!   `__shared__` array); global buffers share another. `aliases %A` places a buffer at `%A`'s
//!   offset (the worst overlap), `at %A + n` at `%A`'s offset plus `n` bytes.
//! - Global memory is an immutable input image (`gin`, word `i` holds [`gin_value`]) plus a
//!   write-only output (`gout`). Only workgroup memory carries data between threads, which is
//!   what barriers order.
//! - `%X[expr]`: thread `t` touches word `expr` of `%X`.
//! - `%X`, `%X[lo:hi]`: cooperative. Thread `t` touches words `lo/4 + p, + T, + 2T, ...`
//!   below `hi/4` (`T` threads) for a pattern thread `p` ([`pattern_start`]): for writes and
//!   atomics a rotation of `t` by an odd multiple of a quarter warp that changes with the op
//!   and with every enclosing loop's iteration ([`rotation_step`]; `2 * waves` rotations), for
//!   reads a reversal that crosses warps. So a cooperative access never touches a word through
//!   the same thread as an index `tid + 32 m`, a reversed index `c - tid` (`c` odd mod 32) or a
//!   cooperative read, and two instances of cooperative writes (of two ops, or of one op in
//!   two iterations) use the same thread for a word only when their rotation steps agree
//!   modulo the number of rotations: the hazards the analysis sees cross threads. An op that
//!   also writes workgroup memory reads through its write pattern (one instance never
//!   conflicts with itself).
//! - A store's `k`-th word gets [`store_value`] of (op ordinal, thread, iteration key, k); an
//!   atomic adds that value; a load folds the word into the thread's checksum with [`fold`].
//! - An async op's workgroup writes land when a wait completes them: each written word copies
//!   a `gin` word of the op's first global read (its source, which is copied, not loaded into
//!   the checksum); its other reads fold into the checksum at issue.

use syncopt_ir::{AffineExpr, BufferId, Diagnostic, EntityRef, Kernel, Loc, Placement, Space, Var};

pub const K_OP: u32 = 0x9E37_79B1;
pub const K_TID: u32 = 0x85EB_CA77;
pub const K_WORD: u32 = 0xC2B2_AE3D;
pub const K_IV: u32 = 0x27D4_EB2F;
pub const GIN_SALT: u32 = 0x5BD1_E995;
pub const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;
/// Own buffers start at multiples of 4 words (16 bytes: cp.async and vector alignment).
pub const ALIGN_WORDS: u64 = 4;

/// A 32-bit finalizer (the "lowbias32" mix); the emitter writes the same function in CUDA.
pub fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    x
}

/// Word `i` of the global input image.
pub fn gin_value(i: u64) -> u32 {
    mix32((i as u32).wrapping_mul(K_OP).wrapping_add(GIN_SALT))
}

/// What the `k`-th word stored by op `op` in thread `tid` holds.
pub fn store_value(op: u32, tid: u32, iter: u32, k: u32) -> u32 {
    mix32(
        op.wrapping_add(1)
            .wrapping_mul(K_OP)
            .wrapping_add(tid.wrapping_mul(K_TID))
            .wrapping_add(iter)
            .wrapping_add(k.wrapping_mul(K_WORD)),
    )
}

/// The iteration key of the enclosing loops' induction variables, outermost first.
pub fn iter_key(ivs: &[i64]) -> u32 {
    ivs.iter().enumerate().fold(0u32, |acc, (j, &v)| {
        acc.wrapping_add((v as u32).wrapping_mul(iv_coef(j)))
    })
}

/// The multiplier of the `j`-th enclosing induction variable in [`iter_key`].
pub fn iv_coef(j: usize) -> u32 {
    K_IV.wrapping_mul(2 * j as u32 + 1)
}

pub fn checksum_init(tid: u32) -> u64 {
    FNV_OFFSET ^ tid as u64
}

pub fn fold(cs: u64, word: u32) -> u64 {
    (cs ^ word as u64).wrapping_mul(FNV_PRIME)
}

/// Which arena a memory value lives in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mem {
    Shared,
    Global,
}

/// A memory value at run time: `words` words at word `off` of an arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Handle {
    pub mem: Mem,
    pub off: i64,
    pub words: i64,
}

/// Arena placement of every buffer.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Indexed by `BufferId`.
    pub buffers: Vec<Handle>,
    pub shared_words: u64,
    /// At least 1, so every async copy has a source word.
    pub global_words: u64,
}

pub fn mem_of_space(space: Space, loc: Option<Loc>) -> Result<Mem, Diagnostic> {
    match space {
        Space::Workgroup => Ok(Mem::Shared),
        Space::Global => Ok(Mem::Global),
        s => Err(Diagnostic::error(
            loc,
            format!("'{s}' memory is not executable: run and emit cuda take workgroup and global buffers only"),
        )),
    }
}

pub fn layout(k: &Kernel) -> Result<Layout, Diagnostic> {
    let n = k.buffers.len();
    let mut out: Vec<Option<Handle>> = vec![None; n];
    let mut ends = [0u64; 2];
    // Own buffers first, in declaration order; then placed ones (their bases may come later).
    for (i, b) in k.buffers.values().enumerate() {
        let loc = k.values[b.value].loc;
        let mem = mem_of_space(b.space, loc)?;
        if !b.size.is_multiple_of(4) {
            return Err(Diagnostic::error(
                loc,
                format!(
                    "buffer size {} is not a multiple of 4 bytes: not executable",
                    b.size
                ),
            ));
        }
        if b.placement == Placement::Own {
            let slot = &mut ends[mem as usize];
            let off = slot.div_ceil(ALIGN_WORDS) * ALIGN_WORDS;
            let words = b.size.div_ceil(4);
            *slot = off + words;
            out[i] = Some(Handle {
                mem,
                off: off as i64,
                words: words as i64,
            });
        }
    }
    for i in 0..n {
        resolve(k, i, &mut out, 0)?;
    }
    let buffers: Vec<Handle> = out.into_iter().map(|h| h.expect("resolved")).collect();
    for h in &buffers {
        let end = (h.off + h.words) as u64;
        let slot = &mut ends[h.mem as usize];
        *slot = (*slot).max(end);
    }
    Ok(Layout {
        buffers,
        shared_words: ends[0],
        global_words: ends[1].max(1),
    })
}

fn resolve(
    k: &Kernel,
    i: usize,
    out: &mut Vec<Option<Handle>>,
    depth: usize,
) -> Result<Handle, Diagnostic> {
    if let Some(h) = out[i] {
        return Ok(h);
    }
    let b = &k.buffers[BufferId::new(i)];
    let loc = k.values[b.value].loc;
    if depth > k.buffers.len() {
        return Err(Diagnostic::error(loc, "buffer placements form a cycle"));
    }
    let mem = mem_of_space(b.space, loc)?;
    let (base, offset) = match b.placement {
        Placement::Own => unreachable!("own buffers are placed first"),
        Placement::Aliases(base) => (base, 0),
        Placement::At { base, offset } => (base, offset),
    };
    if !offset.is_multiple_of(4) {
        return Err(Diagnostic::error(
            loc,
            format!("placement offset {offset} is not a multiple of 4 bytes: not executable"),
        ));
    }
    let base_idx = match k.values[base].kind {
        syncopt_ir::ValueKind::Buffer(bb) => bb.index(),
        _ => {
            return Err(Diagnostic::error(
                loc,
                "placement relative to a non-buffer is not executable",
            ))
        }
    };
    let bh = resolve(k, base_idx, out, depth + 1)?;
    if bh.mem != mem {
        return Err(Diagnostic::error(
            loc,
            "a buffer placed in another memory space is not executable",
        ));
    }
    let h = Handle {
        mem,
        off: bh.off + (offset / 4) as i64,
        words: b.size.div_ceil(4) as i64,
    };
    out[i] = Some(h);
    Ok(h)
}

/// Evaluates an affine expression; `lookup` gives integer values (`None`: not defined here).
pub fn eval_expr(
    e: &AffineExpr,
    tid: u32,
    mut lookup: impl FnMut(syncopt_ir::ValueId) -> Option<i64>,
    k: &Kernel,
    loc: Option<Loc>,
) -> Result<i64, Diagnostic> {
    let mut acc = e.constant;
    for &(v, c) in &e.terms {
        let x = match v {
            Var::Tid => tid as i64,
            Var::Value(id) => lookup(id).ok_or_else(|| {
                Diagnostic::error(
                    loc,
                    format!("'%{}' has no integer value here", k.value_name(id)),
                )
            })?,
        };
        acc = acc.wrapping_add(c.wrapping_mul(x));
    }
    Ok(acc)
}

/// The word range `[a, b)` (relative to the handle) of a cooperative access to bytes
/// `[lo, hi)`.
pub fn byte_range_words(lo: u64, hi: u64) -> (i64, i64) {
    ((lo / 4) as i64, hi.div_ceil(4) as i64)
}

/// The first word (relative to the range start) of thread `tid`'s cooperative pattern: words
/// `start, start + T, ...`. Writes and atomics use the pattern thread `(tid + r) mod T` for the
/// rotation `r = write_rotation(T, wave, step)` of the op instance's [`rotation_step`] (op
/// ordinal plus the enclosing induction variables); reads use the reversal `(a - tid) mod T`
/// with `a = read_offset(T, wave)`. Reads of an op that also writes workgroup memory use the
/// op's write pattern (`reversed` is false for them).
pub fn pattern_start(tid: u32, threads: u32, wave: u32, step: u32, reversed: bool) -> i64 {
    let t = threads.max(1) as i64;
    if reversed {
        (read_offset(threads, wave) - tid as i64).rem_euclid(t)
    } else {
        (tid as i64 + write_rotation(threads, wave, step)).rem_euclid(t)
    }
}

/// The unit of the write rotations: a quarter of a warp (8 threads on NVIDIA, 16 on AMD's
/// wave64), at least 1.
pub fn rotation_unit(wave: u32) -> u32 {
    (wave / 4).max(1)
}

/// How many distinct write rotations exist: the odd multiples of [`rotation_unit`] below `T`
/// (`2 * waves`: 4 with 2 warps, 8 with 4), at least 1.
pub fn rotations(threads: u32, wave: u32) -> u32 {
    (threads / (2 * rotation_unit(wave))).max(1)
}

/// The rotation step of an op instance: its ordinal plus the enclosing loops' induction
/// variables (each truncated to 32 bits, wrapping: CUDA's `(uint32_t)` conversions), so
/// successive iterations of a loop, and neighbouring ops, rotate differently.
pub fn rotation_step(op: u32, ivs: &[i64]) -> u32 {
    ivs.iter().fold(op, |acc, &v| acc.wrapping_add(v as u32))
}

/// The rotation of a cooperative write of rotation step `step`: `u * (2 (step mod R) + 1)`
/// for the unit `u` ([`rotation_unit`]) and `R` ([`rotations`]) rotations: an odd multiple of
/// a quarter warp, so never a multiple of 32 (a word `tid + 32 m` is never written by its own
/// thread) and always even (never the thread of a read reversal, whose offset is odd); two
/// different rotations differ by a multiple of half a warp.
pub fn write_rotation(threads: u32, wave: u32, step: u32) -> i64 {
    let u = rotation_unit(wave) as i64;
    let q = (step % rotations(threads, wave)) as i64;
    (u * (2 * q + 1)).rem_euclid(threads.max(1) as i64)
}

/// `a` of the reads' reversal `(a - tid) mod T`: `T - 1 - wave/2`, odd (never a write
/// rotation's thread). Thread `t` of lane `l` in warp `w` reads the word of thread
/// `a - t`: lanes below `wave/2` land in warp `W - 1 - w`, the others in warp `W - 2 - w`
/// (mod `W`), so every warp's reads reach two warps, another one among them also with 2 warps.
pub fn read_offset(threads: u32, wave: u32) -> i64 {
    (threads as i64 - 1 - (wave / 2) as i64).rem_euclid(threads.max(1) as i64)
}
