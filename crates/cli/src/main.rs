//! `syncopt`: inserts and proves the synchronization of accelerator kernels.
//!
//! Exit codes: 0 ok, 1 the program is wrong (diagnostics on stderr), 2 usage or I/O error.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use syncopt_ir::{Diagnostic, File, Kernel, Module};
use syncopt_passes::{InsertOptions, Pass};
use syncopt_targets::Target;

mod arena;
mod json;

#[global_allocator]
static ALLOC: arena::CliAlloc = arena::CliAlloc;

/// Phase times on stderr when `SYNCOPT_TIME` is set (to anything but `0`): where the time of
/// a large `insert` or `fmt` goes, outside the passes' own debug output.
struct Timer {
    on: bool,
    start: std::time::Instant,
    last: std::time::Instant,
}

impl Timer {
    fn new() -> Timer {
        let on = std::env::var_os("SYNCOPT_TIME").is_some_and(|v| v != "0");
        let now = std::time::Instant::now();
        Timer {
            on,
            start: now,
            last: now,
        }
    }

    /// Prints the time since the previous lap and since the start, as `phase: ms (total ms)`.
    fn lap(&mut self, phase: &str) {
        if !self.on {
            return;
        }
        let now = std::time::Instant::now();
        eprintln!(
            "syncopt time: {phase}: {:.1} ms (at {:.1} ms, arena {:.1} MB)",
            (now - self.last).as_secs_f64() * 1e3,
            (now - self.start).as_secs_f64() * 1e3,
            arena::used() as f64 / 1e6
        );
        self.last = now;
    }
}

thread_local! {
    static TIMER: std::cell::RefCell<Timer> = std::cell::RefCell::new(Timer::new());
}

fn lap(phase: &str) {
    TIMER.with(|t| t.borrow_mut().lap(phase));
}

const ABOUT: &str = "Inserts and proves the synchronization of accelerator kernels.

syncopt reads a kernel in its text format (see docs/FORMAT.md), inserts the workgroup
barriers, async-copy waits, Ascend pipe flags or warp-pipeline stage barriers it needs for
one target, and proves the result free of races and deadlocks.

Every command takes a file or '-' for stdin. The target comes from the file's 'target'
line; --target overrides it. Targets: gfx942 gfx950 gfx1200 gfx1250 sm_80 sm_90
ascend910b ascend950.

Exit codes: 0 ok, 1 the program is wrong (diagnostics with file:line:col), 2 usage or I/O.";

const EXAMPLES: &str = "Examples:
  syncopt insert examples/gemm_double_buffer_gfx950.sk        print the kernel with its sync
  syncopt insert --verify --stats examples/attention_gfx950.sk
  syncopt gen --ops 1000 --seed 7 --target gfx1250 | syncopt insert - | syncopt verify -
  syncopt insert --pass shared-barriers,async-waits k.sk     run only these passes, in order
  syncopt verify --json k.sk                                  machine-readable problems";

#[derive(Parser)]
#[command(name = "syncopt", version, about = ABOUT, after_help = EXAMPLES, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
struct Input {
    /// Input file in the syncopt text format, or '-' for stdin.
    file: String,
    /// Target to use instead of the file's 'target' line.
    #[arg(long, value_name = "TARGET")]
    target: Option<String>,
}

#[derive(clap::Args, Clone)]
struct Output {
    /// Write the result here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the file in canonical form (a fixed point: fmt(fmt(x)) == fmt(x)).
    Fmt {
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        out: Output,
        /// Exit 1 instead of printing when the file is not in canonical form.
        #[arg(long)]
        check: bool,
    },
    /// Parse and validate: undeclared names, sync ops the target lacks, barriers in divergent
    /// code, views outside their buffers...
    Check {
        #[command(flatten)]
        input: Input,
    },
    /// Generate a random valid kernel (for fuzzing and benchmarks).
    Gen {
        /// About how many statements to generate.
        #[arg(long, default_value_t = 100)]
        ops: usize,
        /// Random seed: the same seed gives the same kernel.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Target of the generated kernel [default: gfx950; sm_90 with --executable].
        #[arg(long)]
        target: Option<String>,
        /// Only accesses with concrete per-thread indices, runnable by 'run' (any GPU
        /// target; sized for its wave width) and, on sm_80/sm_90, by 'emit cuda'.
        #[arg(long)]
        executable: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Insert the synchronization the kernel needs and print it.
    Insert {
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        out: Output,
        /// Passes to run, in order (comma-separated or repeated): warp-pipeline,
        /// shared-barriers, async-waits, pipe-flags. Default: all that apply to the target.
        #[arg(long = "pass", value_delimiter = ',', value_name = "PASS")]
        passes: Vec<String>,
        /// Print hazards found, sync ops inserted (static and dynamic) and time, on stderr.
        #[arg(long)]
        stats: bool,
        /// List, for each inserted op, the hazards it covers, on stderr.
        #[arg(long)]
        explain: bool,
        /// Run the verifier on the result; exit 1 if it finds a problem.
        #[arg(long)]
        verify: bool,
        /// Use named barrier ids for independent hazard chains (gfx1250, sm_90).
        #[arg(long)]
        named_barriers: bool,
        /// Ascend: synchronize loop-carried pairs with one id instead of two alternating ids.
        #[arg(long)]
        no_double_buffer: bool,
        /// Ascend: event ids the inserter must leave alone (comma-separated).
        #[arg(long, value_delimiter = ',', value_name = "ID")]
        reserved_ids: Vec<u32>,
        /// Ascend: event ids available per pipe pair (default: the target's, 8).
        #[arg(long, value_name = "N")]
        flag_ids: Option<u32>,
        /// Input language: the syncopt text format, or MLIR (default: by file extension).
        #[arg(long = "input", value_enum, value_name = "LANG")]
        lang: Option<Lang>,
    },
    /// Prove the kernel free of races and deadlocks, or print counterexamples.
    Verify {
        #[command(flatten)]
        input: Input,
        /// Print problems as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Input language: the syncopt text format, or MLIR (default: by file extension).
        #[arg(long = "input", value_enum, value_name = "LANG")]
        lang: Option<Lang>,
    },
    /// Emit runnable code for the kernel.
    Emit {
        /// What to emit.
        #[arg(value_enum)]
        format: EmitFormat,
        #[command(flatten)]
        input: Input,
        #[command(flatten)]
        out: Output,
    },
    /// Run the kernel in the CPU interpreter and print per-thread checksums.
    Run {
        #[command(flatten)]
        input: Input,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum Lang {
    Text,
    Mlir,
}

#[derive(Copy, Clone, ValueEnum)]
enum EmitFormat {
    /// A self-contained CUDA file (kernel and host main).
    Cuda,
}

/// Why a command stopped: the program is wrong (1), or usage/I-O (2).
enum Fail {
    Program,
    Usage(String),
}

type CmdResult = Result<(), Fail>;

struct Source {
    name: String,
    text: String,
}

/// What parsing takes, in arena bytes per byte of text (generated kernels: about 9).
const IR_PER_TEXT_BYTE: usize = 10;

fn read_input(path: &str) -> Result<Source, Fail> {
    if path == "-" {
        // In pieces, so that the arena's pages are faulted in while the writer at the other
        // end of a pipe is still producing (`syncopt gen | syncopt insert -`).
        let mut bytes = Vec::new();
        let mut stdin = std::io::stdin().lock();
        loop {
            let n = (&mut stdin)
                .take(1 << 20)
                .read_to_end(&mut bytes)
                .map_err(|e| Fail::Usage(format!("cannot read stdin: {e}")))?;
            if n == 0 {
                break;
            }
            arena::prefault_to(bytes.len().saturating_mul(IR_PER_TEXT_BYTE));
        }
        let text = String::from_utf8(bytes).map_err(|_| {
            // What `read_to_string` said.
            Fail::Usage("cannot read stdin: stream did not contain valid UTF-8".into())
        })?;
        return Ok(Source {
            name: "<stdin>".into(),
            text,
        });
    }
    let bytes =
        std::fs::read(path).map_err(|e| Fail::Usage(format!("cannot read '{path}': {e}")))?;
    arena::prefault_to(bytes.len().saturating_mul(IR_PER_TEXT_BYTE));
    let text =
        String::from_utf8(bytes).map_err(|_| Fail::Usage(format!("'{path}' is not UTF-8 text")))?;
    Ok(Source {
        name: path.into(),
        text,
    })
}

fn write_output(out: &Output, text: &str) -> CmdResult {
    write_output_with(out, |w| w.write_all(text.as_bytes()))
}

/// Writes a file in the text format, streamed in chunks rather than printed to one string.
fn write_file_output(out: &Output, file: &File) -> CmdResult {
    write_output_with(out, |w| syncopt_ir::write_file(file, w))
}

fn write_output_with(
    out: &Output,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> CmdResult {
    match &out.output {
        Some(path) if path != "-" => std::fs::File::create(path)
            .and_then(|mut f| write(&mut f))
            .map_err(|e| Fail::Usage(format!("cannot write '{path}': {e}"))),
        _ => {
            let mut so = std::io::stdout().lock();
            write(&mut so)
                .and_then(|_| so.flush())
                .or_else(|e| {
                    if e.kind() == std::io::ErrorKind::BrokenPipe {
                        Ok(())
                    } else {
                        Err(e)
                    }
                })
                .map_err(|e| Fail::Usage(format!("cannot write stdout: {e}")))
        }
    }
}

fn report(src: &Source, diags: &[Diagnostic]) {
    if diags.is_empty() {
        return;
    }
    let lines = source_lines(&src.text, diags);
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    for d in diags {
        let _ = err.write_all(d.render_lines(&src.name, &lines).as_bytes());
    }
    let _ = err.flush();
}

/// The lines of `text` as `Diagnostic::render_lines` takes them (`lines[n - 1]` is line `n`),
/// with only the lines `diags` point at filled in and the others empty: two warnings on a
/// million-line input took 80 ms to render when every line was collected.
fn source_lines<'t>(text: &'t str, diags: &[Diagnostic]) -> Vec<&'t str> {
    // Indices as `render_lines` computes them (line 0 reads like line 1).
    let mut wanted: Vec<usize> = diags
        .iter()
        .flat_map(|d| {
            d.loc
                .iter()
                .chain(d.notes.iter().filter_map(|n| n.0.as_ref()))
        })
        .map(|l| l.line.saturating_sub(1) as usize)
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let Some(&last) = wanted.last() else {
        return Vec::new();
    };
    let mut lines = vec![""; last + 1];
    let bytes = text.as_bytes();
    // Line `line` (0-based) starts at byte `start`.
    let (mut line, mut start) = (0, 0);
    for &want in &wanted {
        while line < want {
            match next_newline(bytes, start) {
                Some(nl) => {
                    start = nl + 1;
                    line += 1;
                }
                None => {
                    // Past the last line: no line to show, as `str::lines` gives none.
                    lines.truncate(line + usize::from(start < bytes.len()));
                    return lines;
                }
            }
        }
        if start >= bytes.len() {
            // The text ends with a newline (or is empty): `str::lines` has no line here.
            lines.truncate(line);
            return lines;
        }
        let end = next_newline(bytes, start).unwrap_or(bytes.len());
        let mut l = &text[start..end];
        // As `str::lines`: a "\r\n" ending loses its "\r" too.
        if end < bytes.len() {
            l = l.strip_suffix('\r').unwrap_or(l);
        }
        lines[want] = l;
    }
    lines
}

/// The index of the first `\n` at or after `from`, eight bytes at a time (1M-line inputs).
fn next_newline(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(w) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(w.try_into().ok()?) ^ (ONES * u64::from(b'\n'));
        // Nonzero exactly when some byte of `x` is zero, lowest such byte first.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    bytes[i.min(bytes.len())..]
        .iter()
        .position(|&b| b == b'\n')
        .map(|p| i + p)
}

/// Parses every chunk; reports every chunk's error; fails if any chunk failed.
fn parse_all(src: &Source) -> Result<File, Fail> {
    let mut file = File::default();
    let mut bad = Vec::new();
    for chunk in syncopt_ir::parse_file(&src.text) {
        match chunk {
            Ok(m) => file.chunks.push(m),
            Err(d) => bad.push(d),
        }
    }
    // What is parsed stays until exit; what the checks and passes allocate comes and goes.
    arena::end();
    lap("parse");
    if bad.is_empty() {
        Ok(file)
    } else {
        report(src, &bad);
        Err(Fail::Program)
    }
}

fn chunk_target(cli: Option<&str>, m: &Module) -> Result<Target, Diagnostic> {
    syncopt_targets::resolve(cli, m.target.as_deref(), m.target_loc)
}

/// Resolves the target; an unknown `--target` is a usage error, a bad file target a program one.
fn target_for(src: &Source, cli: Option<&str>, m: &Module) -> Result<Target, Fail> {
    chunk_target(cli, m).map_err(|d| {
        if cli.is_some() || d.loc.is_none() {
            Fail::Usage(d.message)
        } else {
            report(src, &[d]);
            Fail::Program
        }
    })
}

/// Runs `check` on every kernel; reports and fails on errors, prints warnings.
fn checked(src: &Source, cli_target: Option<&str>) -> Result<(File, Vec<Target>), Fail> {
    let file = parse_all(src)?;
    let mut targets = Vec::new();
    let mut failed = false;
    for m in &file.chunks {
        let t = target_for(src, cli_target, m)?;
        targets.push(t);
        for k in &m.kernels {
            let diags = syncopt_targets::check::check_kernel(k, t);
            failed |= diags.iter().any(|d| d.is_error());
            report(src, &diags);
        }
    }
    lap("check");
    if failed {
        return Err(Fail::Program);
    }
    Ok((file, targets))
}

fn cmd_fmt(input: &Input, out: &Output, check: bool) -> CmdResult {
    let src = read_input(&input.file)?;
    lap("read");
    let file = parse_all(&src)?;
    if check {
        let text = syncopt_ir::print_file(&file);
        if text != src.text {
            eprintln!("{}: not in canonical form (run 'syncopt fmt')", src.name);
            return Err(Fail::Program);
        }
        return Ok(());
    }
    let res = write_file_output(out, &file);
    lap("print");
    exit_without_freeing(file);
    res
}

/// Leaves `file` to the operating system: the command is about to exit, and freeing a
/// million-statement kernel allocation by allocation takes a quarter of the time parsing it
/// did (about 0.1-0.3 s of `fmt` and `insert` on 1M statements).
fn exit_without_freeing(file: File) {
    std::mem::forget(file);
}

fn cmd_check(input: &Input) -> CmdResult {
    let src = read_input(&input.file)?;
    let (file, _) = checked(&src, input.target.as_deref())?;
    let n: usize = file.chunks.iter().map(|m| m.kernels.len()).sum();
    eprintln!("{}: {n} kernel(s) ok", src.name);
    Ok(())
}

fn cmd_gen(
    ops: usize,
    seed: u64,
    target: Option<&str>,
    executable: bool,
    out: &Output,
) -> CmdResult {
    let name = target.unwrap_or(if executable { "sm_90" } else { "gfx950" });
    let target = Target::from_name(name).ok_or_else(|| {
        Fail::Usage(format!(
            "unknown target '{name}'; expected one of {}",
            Target::names()
        ))
    })?;
    // Executable kernels are workgroup kernels: asking for an Ascend one would silently get
    // a GPU kernel.
    if executable && !target.is_gpu() {
        return Err(Fail::Usage(format!(
            "--executable generates workgroup kernels: use a GPU target ({}), not '{name}'",
            Target::GPUS
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let opts = syncopt_gen::GenOptions {
        ops,
        seed,
        target,
        executable,
    };
    // Streamed: `syncopt gen | syncopt insert -` reads while this generates.
    write_output_with(out, |w| syncopt_gen::generate_to(&opts, w))
}

struct InsertArgs<'a> {
    passes: &'a [String],
    stats: bool,
    explain: bool,
    verify: bool,
    opts: InsertOptions,
}

fn parse_passes(names: &[String]) -> Result<Option<Vec<Pass>>, Fail> {
    if names.is_empty() {
        return Ok(None);
    }
    names
        .iter()
        .map(|n| {
            Pass::from_name(n.trim()).ok_or_else(|| {
                let all: Vec<_> = Pass::ALL
                    .iter()
                    .map(|p| format!("  {:16} {}", p.name(), p.help()))
                    .collect();
                Fail::Usage(format!(
                    "unknown pass '{n}'; the passes are:\n{}",
                    all.join("\n")
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn cmd_insert(input: &Input, out: &Output, args: InsertArgs, lang: Option<Lang>) -> CmdResult {
    let passes = parse_passes(args.passes)?;
    if is_mlir(input, lang) {
        return mlir_insert(input, out, &args, passes.as_deref());
    }
    let src = read_input(&input.file)?;
    lap("read");
    let (mut file, targets) = checked(&src, input.target.as_deref())?;
    let mut failed = false;
    let mut stats = Vec::new();
    for (m, &t) in file.chunks.iter_mut().zip(&targets) {
        for k in &mut m.kernels {
            let start = std::time::Instant::now();
            let pipeline = passes
                .clone()
                .unwrap_or_else(|| syncopt_passes::default_pipeline(t));
            let rep =
                syncopt_passes::run_pipeline_observed(k, t, &pipeline, &args.opts, &mut |p| {
                    lap(p.name())
                });
            let elapsed = start.elapsed();
            report(&src, &rep.diagnostics);
            failed |= rep.has_errors();
            if args.stats {
                let (st, dy) = syncopt_analysis::inserted_cost(k);
                stats.push(format!(
                    "@{}: {} hazards, {st} sync ops inserted ({dy} dynamic), {:.3} ms",
                    k.name,
                    rep.hazards,
                    elapsed.as_secs_f64() * 1e3
                ));
            }
            if args.explain {
                explain(&src, k, t, &rep);
            }
            if args.verify && !rep.has_errors() {
                let vr = syncopt_verify::verify(k, t);
                if !vr.is_ok() {
                    eprintln!(
                        "{}: error: the result of 'insert' does not verify:",
                        src.name
                    );
                    report(&src, &vr.diagnostics);
                    failed = true;
                } else if args.stats {
                    stats.push(format!("@{}: verified ({} states)", k.name, vr.states));
                }
            }
            // The passes' explain lists (one per inserted op, built whether or not
            // `--explain` asked) took 90 ms to free at 1M statements; the process is about
            // to exit.
            std::mem::forget(rep);
        }
    }
    for s in stats {
        eprintln!("{s}");
    }
    lap("report");
    if failed {
        return Err(Fail::Program);
    }
    let res = write_file_output(out, &file);
    lap("print");
    exit_without_freeing(file);
    res
}

fn explain(src: &Source, k: &Kernel, t: Target, rep: &syncopt_passes::PassReport) {
    let mut by_stmt = std::collections::BTreeMap::new();
    for e in &rep.explain {
        by_stmt
            .entry(e.stmt)
            .or_insert_with(Vec::new)
            .extend(e.covers.iter().cloned());
    }
    // Inserted ops have no location: name them by position in program order.
    let order = k.inserted_syncs();
    for (i, s) in order.iter().enumerate() {
        let op = match &k.stmts[*s].kind {
            syncopt_ir::StmtKind::Sync(op) => op,
            _ => continue,
        };
        eprintln!(
            "@{} inserted #{}: {}  ({})",
            k.name,
            i + 1,
            syncopt_ir::printer::sync_op_string(k, op),
            syncopt_targets::spell(t, k, op)
        );
        for c in by_stmt.get(s).map(|v| v.as_slice()).unwrap_or(&[]) {
            let at = |l: Option<syncopt_ir::Loc>| {
                l.map_or("?".to_string(), |l| {
                    format!("{}:{}:{}", src.name, l.line, l.col)
                })
            };
            eprintln!("    covers {} {} -> {}", c.kind, at(c.from), at(c.to));
        }
    }
}

fn mlir_insert(
    input: &Input,
    out: &Output,
    args: &InsertArgs,
    passes: Option<&[Pass]>,
) -> CmdResult {
    let src = read_input(&input.file)?;
    arena::end();
    let target = input.target.as_deref();
    match syncopt_mlir::insert(&src.text, target, passes, &args.opts, args.verify) {
        Ok(text) => write_output(out, &text),
        Err(diags) => {
            report(&src, &diags);
            Err(Fail::Program)
        }
    }
}

fn is_mlir(input: &Input, lang: Option<Lang>) -> bool {
    match lang {
        Some(Lang::Mlir) => true,
        Some(Lang::Text) => false,
        None => input.file.ends_with(".mlir"),
    }
}

/// An MLIR module as a file of syncopt kernels, one chunk, for `verify`.
fn mlir_as_file(src: &Source, cli_target: Option<&str>) -> Result<(File, Vec<Target>), Fail> {
    arena::end();
    let name = cli_target
        .map(str::to_string)
        .or_else(|| syncopt_mlir::module_target(&src.text))
        .ok_or_else(|| {
            Fail::Usage(
                "no target: pass --target or give the gpu.module a #rocdl.target / #nvvm.target"
                    .into(),
            )
        })?;
    let target = Target::from_name(&name).ok_or_else(|| {
        Fail::Usage(format!(
            "unknown target '{name}'; expected one of {}",
            Target::names()
        ))
    })?;
    let kernels = syncopt_mlir::to_kernels(&src.text).map_err(|d| {
        report(src, &[d]);
        Fail::Program
    })?;
    let module = Module {
        target: Some(name),
        kernels,
        ..Module::default()
    };
    Ok((
        File {
            chunks: vec![module],
        },
        vec![target],
    ))
}

fn cmd_verify(input: &Input, json: bool, lang: Option<Lang>) -> CmdResult {
    let src = read_input(&input.file)?;
    let (file, targets) = if is_mlir(input, lang) {
        mlir_as_file(&src, input.target.as_deref())?
    } else {
        checked(&src, input.target.as_deref())?
    };
    let mut all = Vec::new();
    let mut kernels = 0;
    let mut states = 0;
    for (m, &t) in file.chunks.iter().zip(&targets) {
        for k in &m.kernels {
            let r = syncopt_verify::verify(k, t);
            kernels += 1;
            states += r.states;
            all.extend(r.diagnostics.into_iter().map(|d| (k.name.clone(), d)));
        }
    }
    let errors = all.iter().filter(|(_, d)| d.is_error()).count();
    if json {
        let text = json::report(&src.name, kernels, &all);
        write_output(&Output { output: None }, &text)?;
    } else {
        let diags: Vec<_> = all.iter().map(|(_, d)| d.clone()).collect();
        report(&src, &diags);
        if errors == 0 {
            println!(
                "{}: {kernels} kernel(s) verified: no race, no deadlock ({states} states)",
                src.name
            );
        } else {
            eprintln!("{}: {errors} problem(s) in {kernels} kernel(s)", src.name);
        }
    }
    if errors > 0 {
        Err(Fail::Program)
    } else {
        Ok(())
    }
}

/// The one kernel a command that runs code works on.
fn single_kernel<'a>(
    src: &Source,
    file: &'a File,
    targets: &[Target],
) -> Result<(&'a Kernel, Target), Fail> {
    let mut found = None;
    for (m, &t) in file.chunks.iter().zip(targets) {
        for k in &m.kernels {
            if found.is_some() {
                return Err(Fail::Usage(format!(
                    "{}: holds several kernels; emit and run take one",
                    src.name
                )));
            }
            found = Some((k, t));
        }
    }
    found.ok_or_else(|| Fail::Usage(format!("{}: holds no kernel", src.name)))
}

fn cmd_emit(input: &Input, out: &Output) -> CmdResult {
    let src = read_input(&input.file)?;
    let (file, targets) = checked(&src, input.target.as_deref())?;
    let (k, t) = single_kernel(&src, &file, &targets)?;
    match syncopt_emit::cuda(k, t) {
        Ok(text) => write_output(out, &text),
        Err(d) => {
            report(&src, &[d]);
            Err(Fail::Program)
        }
    }
}

fn cmd_run(input: &Input) -> CmdResult {
    let src = read_input(&input.file)?;
    let (file, targets) = checked(&src, input.target.as_deref())?;
    let (k, t) = single_kernel(&src, &file, &targets)?;
    match syncopt_interp::run(k, t) {
        Ok(sums) => {
            let mut text = String::new();
            for (i, s) in sums.iter().enumerate() {
                text.push_str(&format!("{i} {s:016x}\n"));
            }
            write_output(&Output { output: None }, &text)
        }
        Err(d) => {
            report(&src, &[d]);
            Err(Fail::Program)
        }
    }
}

fn main() -> ExitCode {
    // Starts the clock.
    lap("start");
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if !matches!(cli.cmd, Cmd::Gen { .. }) {
        // Until the input is read and parsed (`parse_all`; the MLIR paths turn it off
        // before their readers run).
        arena::begin();
    }
    let res = match &cli.cmd {
        Cmd::Fmt { input, out, check } => cmd_fmt(input, out, *check),
        Cmd::Check { input } => cmd_check(input),
        Cmd::Gen {
            ops,
            seed,
            target,
            executable,
            out,
        } => cmd_gen(*ops, *seed, target.as_deref(), *executable, out),
        Cmd::Insert {
            input,
            out,
            passes,
            stats,
            explain,
            verify,
            named_barriers,
            no_double_buffer,
            reserved_ids,
            flag_ids,
            lang,
        } => cmd_insert(
            input,
            out,
            InsertArgs {
                passes,
                stats: *stats,
                explain: *explain,
                verify: *verify,
                opts: InsertOptions {
                    named_barriers: *named_barriers,
                    double_buffer: !*no_double_buffer,
                    reserved_ids: reserved_ids.clone(),
                    flag_ids: *flag_ids,
                },
            },
            *lang,
        ),
        Cmd::Verify { input, json, lang } => cmd_verify(input, *json, *lang),
        Cmd::Emit {
            format: EmitFormat::Cuda,
            input,
            out,
        } => cmd_emit(input, out),
        Cmd::Run { input } => cmd_run(input),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Program) => ExitCode::from(1),
        Err(Fail::Usage(msg)) => {
            eprintln!("syncopt: error: {msg}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncopt_ir::Loc;

    fn at(line: u32, col: u32) -> Option<Loc> {
        Some(Loc { line, col })
    }

    #[test]
    fn sparse_lines_render_like_all_lines() {
        let long = "a line of forty-odd characters, give or take\n".repeat(20);
        let texts = [
            "a\nbb\r\nccc\n\nlast",
            "one\ntwo\n",
            "",
            "\n",
            "x\r\n\r\ny\r\n",
            "cr\r\nlone cr at the end\r",
            "é\nüü\r\n\n€ x\n",
            &long,
        ];
        let diags = [
            Diagnostic::error(at(1, 1), "first"),
            Diagnostic::error(at(0, 0), "line zero"),
            Diagnostic::warning(at(3, 2), "middle").with_note(at(2, 1), "note"),
            Diagnostic::error(at(5, 4), "last line"),
            Diagnostic::error(at(6, 1), "past the end"),
            Diagnostic::error(at(7, 1), "two past").with_note(at(2, 2), "back"),
            Diagnostic::error(at(19, 3), "in the long text"),
            Diagnostic::error(at(21, 3), "just past the long text"),
            Diagnostic::error(at(99, 1), "far past").with_note(None, "no place"),
            Diagnostic::error(None, "nowhere"),
        ];
        for text in texts {
            // Each alone, and all together (one table for the lot, as `report` builds it).
            for d in &diags {
                let lines = source_lines(text, std::slice::from_ref(d));
                assert_eq!(
                    d.render_lines("f", &lines),
                    d.render("f", text),
                    "{text:?} {d:?}"
                );
            }
            let lines = source_lines(text, &diags);
            for d in &diags {
                assert_eq!(
                    d.render_lines("f", &lines),
                    d.render("f", text),
                    "{text:?} {d:?}"
                );
            }
        }
        assert!(source_lines("a\nb\n", &[Diagnostic::error(None, "x")]).is_empty());
    }

    #[test]
    fn sparse_lines_on_random_texts() {
        // Newlines, carriage returns and multi-byte characters in every arrangement that a
        // small random walk reaches, lines asked for in and past the text.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..3000 {
            let len = next(40);
            let text: String = (0..len)
                .map(|_| ['a', 'b', '\n', '\r', 'é', ' '][next(6) as usize])
                .collect();
            let diags: Vec<Diagnostic> = (0..1 + next(3))
                .map(|_| {
                    Diagnostic::error(at(next(14) as u32, 1 + next(3) as u32), "d")
                        .with_note(at(next(14) as u32, 1), "n")
                })
                .collect();
            let lines = source_lines(&text, &diags);
            for d in &diags {
                assert_eq!(
                    d.render_lines("f", &lines),
                    d.render("f", &text),
                    "{text:?}"
                );
            }
        }
    }
}
