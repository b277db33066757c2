//! The canonical printer: `parse(print(k))` gives back `k`, and `print` is a fixed point of
//! `fmt`. Comments attached by the parser are printed where they were.
//!
//! Statements are written with `push_str` and a small integer formatter rather than `write!`:
//! a million-statement kernel is 40 MB of text, and the formatting machinery was most of the
//! printing time.

use std::fmt::Write;

use crate::entity::EntityRef;

use crate::expr::{AffineExpr, Cond, Var};
use crate::kernel::*;
use crate::sync::{FlagId, SyncOp};

/// Bytes of text to reserve for `k`: generated and real kernels print 35-50 bytes per
/// statement, and one buffer of the right size saves regrowing (and copying) a large output.
fn size_hint(k: &Kernel) -> usize {
    k.stmts.len() * 48 + 256
}

/// Where printed text goes besides the output string: a writer that takes it in chunks, so a
/// large file is never held as one string (nor its pages faulted in).
struct Sink<'w> {
    writer: Option<&'w mut dyn std::io::Write>,
    error: Option<std::io::Error>,
    /// Kernels of at least this many statements print on two threads (streamed only).
    parallel_min: usize,
}

/// Text handed to the writer at a time.
const CHUNK: usize = 1 << 16;

impl Sink<'_> {
    /// Everything stays in the output string.
    fn none() -> Sink<'static> {
        Sink {
            writer: None,
            error: None,
            parallel_min: usize::MAX,
        }
    }

    /// Between statements: passes `out` on once it holds a chunk.
    #[inline]
    fn step(&mut self, out: &mut String) {
        if out.len() >= CHUNK && self.writer.is_some() {
            self.flush(out);
        }
    }

    /// Passes `text` on as it is (after what was flushed before).
    fn write(&mut self, text: &str) {
        if let Some(w) = self.writer.as_mut() {
            if self.error.is_none() {
                if let Err(e) = w.write_all(text.as_bytes()) {
                    self.error = Some(e);
                }
            }
        }
    }

    fn flush(&mut self, out: &mut String) {
        if let Some(w) = self.writer.as_mut() {
            if self.error.is_none() {
                if let Err(e) = w.write_all(out.as_bytes()) {
                    self.error = Some(e);
                }
            }
            out.clear();
        }
    }
}

pub fn print_file(file: &File) -> String {
    let hint: usize = file
        .chunks
        .iter()
        .flat_map(|m| &m.kernels)
        .map(size_hint)
        .sum();
    let mut out = String::with_capacity(hint);
    print_file_into(&mut out, file, &mut Sink::none());
    out
}

/// Writes what [`print_file`] returns to `w`, in chunks: the same bytes without building
/// the whole text first.
pub fn write_file(file: &File, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::with_capacity(CHUNK + CHUNK / 2);
    let mut sink = Sink {
        writer: Some(w),
        error: None,
        parallel_min: PARALLEL_MIN,
    };
    print_file_into(&mut out, file, &mut sink);
    sink.flush(&mut out);
    match sink.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn print_file_into(out: &mut String, file: &File, sink: &mut Sink) {
    for (i, m) in file.chunks.iter().enumerate() {
        if i > 0 {
            out.push_str("\n// -----\n\n");
        }
        // A chunk that only inherits its target does not repeat it.
        let inherited = i > 0 && file.chunks[i - 1].target == m.target && m.target_loc.is_none();
        print_module_into(out, m, !inherited, sink);
    }
}

pub fn print_module(m: &Module) -> String {
    let mut out = String::with_capacity(m.kernels.iter().map(size_hint).sum());
    print_module_into(&mut out, m, true, &mut Sink::none());
    out
}

fn print_module_into(out: &mut String, m: &Module, with_target: bool, sink: &mut Sink) {
    for c in &m.comments {
        comment(out, 0, c);
    }
    if let (true, Some(t)) = (with_target, &m.target) {
        let _ = writeln!(out, "target {t}");
        if !m.kernels.is_empty() {
            out.push('\n');
        }
    }
    for (i, k) in m.kernels.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_kernel_into(out, k, sink);
    }
    for c in &m.trailing_comments {
        comment(out, 0, c);
    }
}

fn comment(out: &mut String, ind: usize, c: &str) {
    indent(out, ind);
    if c.is_empty() {
        out.push_str("//\n");
    } else {
        let _ = writeln!(out, "// {c}");
    }
}

pub fn print_kernel(k: &Kernel) -> String {
    let mut out = String::with_capacity(size_hint(k));
    print_kernel_into(&mut out, k, &mut Sink::none());
    out
}

fn print_kernel_into(out: &mut String, k: &Kernel, sink: &mut Sink) {
    for c in &k.comments {
        comment(out, 0, c);
    }
    let _ = write!(out, "kernel @{}", k.name);
    if !k.params.is_empty() {
        out.push('(');
        for (i, &p) in k.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "%{}", k.values[p].name);
            if let ValueKind::Param { default: Some(d) } = k.values[p].kind {
                let _ = write!(out, " = {d}");
            }
        }
        out.push(')');
    }
    if let Some(w) = k.waves {
        let _ = write!(out, " waves {w}");
    }
    out.push_str(" {\n");
    // Buffers are declared at the top of the kernel body, in declaration order.
    for b in k.buffers.values() {
        for c in &b.comments {
            comment(out, 1, c);
        }
        indent(out, 1);
        let _ = write!(
            out,
            "%{} = buffer {} {}",
            k.values[b.value].name, b.space, b.size
        );
        match b.placement {
            Placement::Own => {}
            Placement::Aliases(a) => {
                let _ = write!(out, " aliases %{}", k.values[a].name);
            }
            Placement::At { base, offset } => {
                let _ = write!(out, " at %{}", k.values[base].name);
                if offset != 0 {
                    let _ = write!(out, " + {offset}");
                }
            }
        }
        out.push('\n');
    }
    if sink.writer.is_some() && k.stmts.len() >= sink.parallel_min {
        print_body_in_two(out, k, sink);
    } else {
        print_block_body(out, k, k.body, 1, sink);
    }
    out.push_str("}\n");
}

/// Kernels this large print their body on two threads when streamed (see
/// [`print_body_in_two`]).
const PARALLEL_MIN: usize = 200_000;

/// Prints the kernel body as [`print_block_body`] does, with its second half printed on
/// another thread into a string while this one prints (and writes) the first: printing a
/// million statements took 80-100 ms on one thread.
fn print_body_in_two(out: &mut String, k: &Kernel, sink: &mut Sink) {
    let block = &k.blocks[k.body];
    let stmts = &block.stmts;
    // Parsed statements are numbered in program order, so a top-level statement's id tells
    // how much text comes before it; other kernels only split less evenly.
    let (first, last) = match (stmts.first(), stmts.last()) {
        (Some(f), Some(l)) => (f.index(), l.index()),
        _ => (0, 0),
    };
    let mid_id = first + last.saturating_sub(first) / 2;
    let mid = stmts
        .iter()
        .position(|s| s.index() >= mid_id)
        .unwrap_or(stmts.len());
    let (head, tail) = stmts.split_at(mid);
    std::thread::scope(|scope| {
        // No second thread (the system refused one): the tail is printed here, in order.
        let second = std::thread::Builder::new()
            .spawn_scoped(scope, || {
                let hint: usize = tail.len().saturating_mul(48) + 256;
                let mut text = String::with_capacity(hint.min(1 << 30));
                for &s in tail {
                    print_stmt(&mut text, k, s, 1, &mut Sink::none());
                }
                text
            })
            .ok();
        for &s in head {
            print_stmt(out, k, s, 1, sink);
            sink.step(out);
        }
        match second.map(|h| h.join()) {
            Some(Ok(text)) => {
                sink.flush(out);
                sink.write(&text);
            }
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => {
                for &s in tail {
                    print_stmt(out, k, s, 1, sink);
                    sink.step(out);
                }
            }
        }
    });
    for c in &block.trailing_comments {
        comment(out, 1, c);
    }
    if !block.yields.is_empty() {
        indent(out, 1);
        out.push_str("yield ");
        names(out, k, &block.yields);
        out.push('\n');
    }
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                ";
    let mut left = 2 * n;
    while left > 0 {
        let m = left.min(SPACES.len());
        out.push_str(&SPACES[..m]);
        left -= m;
    }
}

/// `%name` of a value.
#[inline]
fn value(out: &mut String, k: &Kernel, v: ValueId) {
    out.push('%');
    out.push_str(&k.values[v].name);
}

/// Appends an unsigned integer in decimal (also used by `syncopt-gen`, which writes the text
/// format directly).
#[inline]
pub fn push_uint(out: &mut String, mut n: u64) {
    // Most numbers in kernels are small: one or two digits without a loop or a check.
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    if n < 100 {
        let i = 2 * n as usize;
        out.push_str(&TWO_DIGITS[i..i + 2]);
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &buf[i..] {
        out.push(char::from(d));
    }
}

/// "00", "01", ... "99".
const TWO_DIGITS: &str = "\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// A signed integer in decimal.
#[inline]
fn int(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_uint(out, n.unsigned_abs());
}

fn print_block_body(out: &mut String, k: &Kernel, b: BlockId, ind: usize, sink: &mut Sink) {
    let block = &k.blocks[b];
    for &s in &block.stmts {
        print_stmt(out, k, s, ind, sink);
        sink.step(out);
    }
    for c in &block.trailing_comments {
        comment(out, ind, c);
    }
    if !block.yields.is_empty() {
        indent(out, ind);
        out.push_str("yield ");
        names(out, k, &block.yields);
        out.push('\n');
    }
}

fn names(out: &mut String, k: &Kernel, vs: &[ValueId]) {
    for (i, &v) in vs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        value(out, k, v);
    }
}

fn print_stmt(out: &mut String, k: &Kernel, s: StmtId, ind: usize, sink: &mut Sink) {
    let data = &k.stmts[s];
    for c in &data.comments {
        comment(out, ind, c);
    }
    indent(out, ind);
    match &data.kind {
        StmtKind::Op(op) => {
            out.push_str("op \"");
            out.push_str(&op.name);
            out.push('"');
            if let Some(a) = op.asynchronous {
                out.push_str(" async");
                if let Some(c) = a.counter {
                    out.push('(');
                    out.push_str(c.as_str());
                    out.push(')');
                }
            }
            if let Some(p) = op.pipe {
                out.push_str(" pipe ");
                out.push_str(p.as_str());
            }
            for (i, e) in op.effects.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                out.push_str(e.kind.as_str());
                out.push(' ');
                value(out, k, e.mem.value);
                match &e.mem.sel {
                    Selector::Whole => {}
                    Selector::Bytes { lo, hi } => {
                        out.push('[');
                        push_uint(out, *lo);
                        out.push(':');
                        push_uint(out, *hi);
                        out.push(']');
                    }
                    Selector::Index(x) => {
                        out.push('[');
                        expr(out, k, x);
                        out.push(']');
                    }
                }
            }
            out.push('\n');
        }
        StmtKind::View(v) => {
            let view = &k.views[*v];
            value(out, k, view.value);
            out.push_str(" = view ");
            value(out, k, view.base);
            match &view.kind {
                ViewKind::Range { lo, hi } => {
                    out.push('[');
                    push_uint(out, *lo);
                    out.push(':');
                    push_uint(out, *hi);
                    out.push_str("]\n");
                }
                ViewKind::Slot { count, index } => {
                    out.push_str(" slot (");
                    expr(out, k, index);
                    out.push_str(") mod ");
                    push_uint(out, *count as u64);
                    out.push('\n');
                }
            }
        }
        StmtKind::For(f) => {
            if !f.results.is_empty() {
                names(out, k, &f.results);
                out.push_str(" = ");
            }
            out.push_str("for ");
            value(out, k, f.iv);
            out.push_str(" = ");
            bound(out, k, f.lo);
            out.push_str(" to ");
            bound(out, k, f.hi);
            if f.step != 1 {
                out.push_str(" step ");
                int(out, f.step);
            }
            if let Some(m) = f.min_trips {
                out.push_str(" min ");
                push_uint(out, m);
            }
            if let Some(m) = f.max_trips {
                out.push_str(" max ");
                push_uint(out, m);
            }
            if !f.iter_args.is_empty() {
                out.push_str(" iter(");
                for (i, (a, init)) in f.iter_args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    value(out, k, *a);
                    out.push_str(" = ");
                    value(out, k, *init);
                }
                out.push(')');
            }
            out.push_str(" {\n");
            print_block_body(out, k, f.body, ind + 1, sink);
            indent(out, ind);
            out.push_str("}\n");
        }
        StmtKind::If(i) => {
            if !i.results.is_empty() {
                names(out, k, &i.results);
                out.push_str(" = ");
            }
            out.push_str("if ");
            out.push_str(i.uniformity.as_str());
            out.push(' ');
            cond(out, k, &i.cond);
            out.push_str(" {\n");
            print_block_body(out, k, i.then_block, ind + 1, sink);
            indent(out, ind);
            out.push('}');
            if let Some(e) = i.else_block {
                out.push_str(" else {\n");
                print_block_body(out, k, e, ind + 1, sink);
                indent(out, ind);
                out.push('}');
            }
            out.push('\n');
        }
        StmtKind::Sync(op) => {
            sync_op(out, k, op);
            out.push('\n');
        }
        StmtKind::Stage(st) => {
            out.push_str("stage");
            if let Some(p) = st.prio {
                let _ = write!(out, " prio {p}");
            }
            if let Some(g) = st.gap {
                let _ = write!(out, " gap {g}");
            }
            out.push('\n');
        }
        StmtKind::StageEnd => out.push_str("stage.end\n"),
    }
}

/// Prints one sync op in the text format (no newline).
pub fn sync_op(out: &mut String, k: &Kernel, op: &SyncOp) {
    match op {
        SyncOp::Barrier { id, fence, threads } => {
            out.push_str("barrier");
            if !fence {
                out.push_str(" exec");
            }
            if *id != 0 {
                let _ = write!(out, " id {id}");
                if let Some(t) = threads {
                    let _ = write!(out, " threads {t}");
                }
            }
        }
        SyncOp::Signal { id } => {
            out.push_str("barrier.signal ");
            int(out, *id as i64);
        }
        SyncOp::Wait { id } => {
            out.push_str("barrier.wait ");
            int(out, *id as i64);
        }
        SyncOp::CondBarrier { group } => {
            out.push_str("cond_barrier ");
            out.push_str(group.as_str());
        }
        SyncOp::CounterWait { counter, n } => {
            out.push_str("wait ");
            out.push_str(counter.as_str());
            out.push('(');
            push_uint(out, *n as u64);
            out.push(')');
        }
        SyncOp::CpAsyncCommit => out.push_str("cp_async.commit"),
        SyncOp::CpAsyncWait { n } => {
            let _ = write!(out, "cp_async.wait {n}");
        }
        SyncOp::SetFlag { src, dst, id } | SyncOp::WaitFlag { src, dst, id } => {
            let kw = if matches!(op, SyncOp::SetFlag { .. }) {
                "set_flag"
            } else {
                "wait_flag"
            };
            out.push_str(kw);
            out.push(' ');
            out.push_str(src.as_str());
            out.push_str(" -> ");
            out.push_str(dst.as_str());
            out.push_str(", ");
            flag_id(out, k, id);
        }
        SyncOp::PipeBarrier { pipe } => {
            out.push_str("pipe_barrier ");
            out.push_str(pipe.as_str());
        }
        SyncOp::SchedBarrier { mask } => {
            let _ = write!(out, "sched_barrier {mask}");
        }
        SyncOp::SetPrio { prio } => {
            let _ = write!(out, "setprio {prio}");
        }
    }
}

/// A sync op as text, for diagnostics and `--explain`.
pub fn sync_op_string(k: &Kernel, op: &SyncOp) -> String {
    let mut s = String::new();
    sync_op(&mut s, k, op);
    s
}

fn flag_id(out: &mut String, k: &Kernel, id: &FlagId) {
    push_uint(out, id.base as u64);
    if let Some((e, n)) = &id.alternate {
        out.push_str(" + (");
        expr(out, k, e);
        out.push_str(") mod ");
        push_uint(out, *n as u64);
    }
}

fn bound(out: &mut String, k: &Kernel, b: Bound) {
    match b {
        Bound::Const(c) => int(out, c),
        Bound::Value(v) => value(out, k, v),
    }
}

fn cond(out: &mut String, k: &Kernel, c: &Cond) {
    if c.modulo.is_some()
        && !c.expr.terms.is_empty()
        && (c.expr.terms.len() > 1 || c.expr.constant != 0 || c.expr.terms[0].1 != 1)
    {
        out.push('(');
        expr(out, k, &c.expr);
        out.push(')');
    } else {
        expr(out, k, &c.expr);
    }
    if let Some(m) = c.modulo {
        out.push_str(" mod ");
        int(out, m);
    }
    if let Some((op, rhs)) = c.cmp {
        out.push(' ');
        out.push_str(op.as_str());
        out.push(' ');
        int(out, rhs);
    }
}

/// Prints an affine expression: variables in canonical order, then the constant.
pub fn expr(out: &mut String, k: &Kernel, e: &AffineExpr) {
    let mut first = true;
    for &(v, c) in &e.terms {
        let mag = c.unsigned_abs();
        if first {
            if c < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if c < 0 { " - " } else { " + " });
        }
        match v {
            Var::Tid => out.push_str("tid"),
            Var::Value(id) => value(out, k, id),
        }
        if mag != 1 {
            out.push_str(" * ");
            push_uint(out, mag);
        }
        first = false;
    }
    if first {
        int(out, e.constant);
    } else if e.constant != 0 {
        out.push_str(if e.constant < 0 { " - " } else { " + " });
        push_uint(out, e.constant.unsigned_abs());
    }
}

/// An affine expression as text.
pub fn expr_string(k: &Kernel, e: &AffineExpr) -> String {
    let mut s = String::new();
    expr(&mut s, k, e);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generated kernel large enough to cross many chunk boundaries, nested blocks
    /// included.
    fn big() -> File {
        let text = syncopt_gen::generate(&syncopt_gen::GenOptions {
            ops: 20_000,
            seed: 7,
            target: syncopt_targets::Target::Gfx950,
            executable: false,
        });
        let file = crate::parse(&text).expect("generated text parses");
        assert_eq!(
            print_file(&file),
            text,
            "the generator writes canonical text"
        );
        file
    }

    #[test]
    fn write_file_gives_the_bytes_of_print_file_in_chunks() {
        let file = big();
        let want = print_file(&file);
        assert!(want.len() > 8 * CHUNK, "{} bytes", want.len());
        let mut got = Vec::new();
        write_file(&file, &mut got).expect("a vector takes everything");
        assert_eq!(String::from_utf8(got).expect("UTF-8"), want);

        // Several chunks, each no larger than a chunk plus one statement.
        struct Sizes(Vec<usize>);
        impl std::io::Write for Sizes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.push(b.len());
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut sizes = Sizes(Vec::new());
        write_file(&file, &mut sizes).expect("accepts everything");
        assert!(sizes.0.len() > 8, "{:?}", sizes.0);
        assert_eq!(sizes.0.iter().sum::<usize>(), want.len());
        assert!(sizes.0.iter().all(|&n| n < CHUNK + 4096), "{:?}", sizes.0);
    }

    /// `write_file` with a kernel printed on two threads from `parallel_min` statements.
    fn write_with(file: &File, parallel_min: usize) -> String {
        let mut got = Vec::new();
        let mut out = String::new();
        let mut sink = Sink {
            writer: Some(&mut got),
            error: None,
            parallel_min,
        };
        print_file_into(&mut out, file, &mut sink);
        sink.flush(&mut out);
        assert!(sink.error.is_none());
        String::from_utf8(got).expect("UTF-8")
    }

    #[test]
    fn two_threads_print_the_same_bytes() {
        let file = big();
        let want = print_file(&file);
        assert_eq!(write_with(&file, 1), want);
        // Comments after the last statement, a kernel with one statement, an empty one and
        // several kernels and chunks.
        let text = "target gfx950\n\nkernel @a {\n  op \"x\"\n  // tail\n}\n\nkernel @b {\n}\n\n\
                    // -----\n\nkernel @c(%n = 3) {\n  %A = buffer workgroup 64\n  \
                    for %i = 0 to %n {\n    op \"y\" read %A\n  }\n  op \"z\" write %A\n}\n";
        let small = crate::parse(text).expect("parses");
        assert_eq!(print_file(&small), text);
        assert_eq!(write_with(&small, 1), text);
        assert_eq!(write_with(&small, 0), text);
    }

    #[test]
    fn write_file_reports_the_writer_error() {
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let err = write_file(&big(), &mut Full).expect_err("the writer fails");
        assert_eq!(err.to_string(), "disk full");
    }

    #[test]
    fn integers_print_like_display() {
        for n in [
            0i64,
            1,
            9,
            10,
            99,
            100,
            -1,
            -10,
            1 << 40,
            i64::MAX,
            i64::MIN,
        ] {
            let mut s = String::new();
            int(&mut s, n);
            assert_eq!(s, n.to_string());
        }
        let mut s = String::new();
        push_uint(&mut s, u64::MAX);
        assert_eq!(s, u64::MAX.to_string());
        for n in (0..2_000).chain([999_999, 1_000_000, 10u64.pow(19)]) {
            let mut s = String::from("x");
            push_uint(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
        assert_eq!(TWO_DIGITS.len(), 200);
    }
}
